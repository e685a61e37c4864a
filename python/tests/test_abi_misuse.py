"""Issue 14, ABI misuse: each wrong call of a suite kernel raises a clear error naming the argument (or
scalar) and what was expected, before anything launches. Together with test_call_checks.py (aliasing,
stride-0 and self-overlapping outputs, grid limits, scalars outside their type) these are the issue's
"at least 40 ABI-misuse cases". Runs under TRITON_INTERPRET=1."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"
torch = pytest.importorskip("torch")

from conftest import example  # noqa: E402


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))


def x37():
    return torch.randn(3, 7)


def y37(dtype=torch.float32, device="cpu"):
    return torch.empty(3, 7, dtype=dtype, device=device)


def vec(n, dtype=torch.float32):
    return torch.randn(n).to(dtype)


I32, I64 = torch.int32, torch.int64
# (id, kernel, call, exception, message pattern)
CASES = [
    ("f64-input", "softmax", lambda k: k(x37().double(), y37()), TypeError,
     r"argument 'x' must have dtype torch.float32, got torch.float64"),
    ("int-input", "softmax", lambda k: k(torch.ones(3, 7, dtype=I32), y37()), TypeError,
     r"argument 'x' must have dtype torch.float32, got torch.int32"),
    ("bf16-for-f32", "softmax", lambda k: k(x37().bfloat16(), y37()), TypeError, r"argument 'x' .* torch.bfloat16"),
    ("complex-input", "softmax", lambda k: k(torch.randn(3, 7, dtype=torch.complex64), y37()), TypeError,
     r"argument 'x' .* torch.complex64"),
    ("f16-output", "softmax", lambda k: k(x37(), y37(torch.float16)), TypeError,
     r"argument 'y' must have dtype torch.float32, got torch.float16"),
    ("rank-too-low", "softmax", lambda k: k(torch.randn(7), y37()), ValueError, r"argument 'x' must have rank 2, got 1"),
    ("rank-too-high", "softmax", lambda k: k(torch.randn(1, 3, 7), y37()), ValueError,
     r"argument 'x' must have rank 2, got 3"),
    ("rank-0", "vector_add", lambda k: k(torch.tensor(1.0), vec(1), vec(1), scale=1.0), ValueError,
     r"argument 'x' must have rank 1, got 0"),
    ("extent-mismatch-2d", "softmax", lambda k: k(x37(), torch.empty(3, 8)), ValueError,
     r"argument 'y' axis 1 is extent 'N' = 7 elsewhere, got 8"),
    ("extent-mismatch-rows", "softmax", lambda k: k(x37(), torch.empty(4, 7)), ValueError,
     r"argument 'y' axis 0 is extent 'M' = 3 elsewhere, got 4"),
    ("extent-mismatch-1d", "vector_add", lambda k: k(vec(9), vec(8), vec(9), scale=1.0), ValueError,
     r"argument 'y' axis 0 is extent 'N' = 9 elsewhere, got 8"),
    ("weight-extent", "layernorm", lambda k: k(x37(), vec(6), vec(7), y37(), eps=1e-5), ValueError,
     r"argument 'w' axis 0 is extent 'N' = 7 elsewhere, got 6"),
    ("loss-extent", "cross_entropy", lambda k: k(torch.randn(3, 5), torch.zeros(3, dtype=I32), vec(4)), ValueError,
     r"argument 'loss' axis 0 is extent 'M' = 3 elsewhere, got 4"),
    ("index-dtype", "cross_entropy", lambda k: k(torch.randn(3, 5), torch.zeros(3, dtype=I64), vec(3)), TypeError,
     r"argument 'target' must have dtype torch.int32, got torch.int64"),
    ("values-i64", "histogram", lambda k: k(torch.zeros(10, dtype=I64), torch.zeros(4, dtype=I32)), TypeError,
     r"argument 'x' must have dtype torch.int32, got torch.int64"),
    ("values-f32", "histogram", lambda k: k(torch.zeros(10), torch.zeros(4, dtype=I32)), TypeError,
     r"argument 'x' must have dtype torch.int32, got torch.float32"),
    ("counts-f32", "histogram", lambda k: k(torch.zeros(10, dtype=I32), torch.zeros(4)), TypeError,
     r"argument 'h' must have dtype torch.int32, got torch.float32"),
    ("too-few-views", "softmax", lambda k: k(x37()), TypeError, r"kernel 'softmax': missing view argument 'y'"),
    ("too-many-views", "softmax", lambda k: k(x37(), y37(), y37()), TypeError,
     r"kernel 'softmax' takes 2 views \(x, y\), got 3$"),
    ("scalar-positional", "vector_add", lambda k: k(vec(4), vec(4), vec(4), 1.0), TypeError,
     r"kernel 'vector_add' takes 3 views \(x, y, z\), got 4; scalars and constexprs are passed by keyword "
     r"\(scale=\.\.\.\)$"),
    ("unknown-keyword", "vector_add", lambda k: k(vec(4), vec(4), vec(4), scale=1.0, bogus=2), TypeError,
     r"kernel 'vector_add' got unexpected arguments \['bogus'\]"),
    ("view-under-wrong-name", "softmax", lambda k: k(x37(), out=y37()), TypeError,
     r"kernel 'softmax': missing view argument 'y'"),
    ("missing-scalar", "vector_add", lambda k: k(vec(4), vec(4), vec(4)), TypeError,
     r"kernel 'vector_add': missing scalar argument 'scale'"),
    ("scalar-tensor", "vector_add", lambda k: k(vec(4), vec(4), vec(4), scale=torch.tensor(1.0)), TypeError,
     r"scalar 'scale' must be float, got Tensor"),
    ("scalar-str", "vector_add", lambda k: k(vec(4), vec(4), vec(4), scale="1"), TypeError,
     r"scalar 'scale' must be float, got str"),
    ("scalar-bool", "vector_add", lambda k: k(vec(4), vec(4), vec(4), scale=True), TypeError,
     r"scalar 'scale' must be float, got bool"),
    ("scalar-none", "layernorm", lambda k: k(x37(), vec(7), vec(7), y37(), eps=None), TypeError,
     r"scalar 'eps' must be float, got NoneType"),
    ("numpy-view", "softmax", lambda k: k(np.ones((3, 7), np.float32), y37()), TypeError,
     r"argument 'x' must be a torch.Tensor, got ndarray"),
    ("list-view", "softmax", lambda k: k([[1.0] * 7] * 3, y37()), TypeError,
     r"argument 'x' must be a torch.Tensor, got list"),
    ("none-view", "softmax", lambda k: k(None, y37()), TypeError, r"argument 'x' must be a torch.Tensor, got NoneType"),
    ("mixed-devices", "softmax", lambda k: k(x37(), y37(device="meta")), ValueError,
     r"argument 'y' is on meta, other arguments on cpu"),
    # Issue 47: views torch reads lazily (the sign applied on access) or without strided memory.
    ("neg-bit-input", "softmax", lambda k: k(torch.randn(3, 7, dtype=torch.complex64).conj().imag, y37()), ValueError,
     r"argument 'x' has the negative bit set .*its memory holds the values without it; pass x.resolve_neg\(\)"),
    ("neg-view-input", "vector_add", lambda k: k(vec(4), torch._neg_view(vec(4)), vec(4), scale=1.0), ValueError,
     r"argument 'y' has the negative bit set"),
    ("neg-view-output", "softmax", lambda k: k(x37(), torch._neg_view(y37())), ValueError,
     r"argument 'y' has the negative bit set .*write into a tensor without it"),
    ("sparse-input", "softmax", lambda k: k(x37().to_sparse(), y37()), TypeError,
     r"argument 'x' must be a dense \(strided\) tensor, got layout torch.sparse_coo"),
    ("sparse-csr-output", "softmax", lambda k: k(x37(), y37().to_sparse_csr()), TypeError,
     r"argument 'y' must be a dense \(strided\) tensor, got layout torch.sparse_csr"),
    ("meta-views", "softmax", lambda k: k(y37(device="meta"), y37(device="meta")), ValueError,
     r"argument 'x' is a meta tensor \(a shape without data\); a launch needs its elements"),
]


@pytest.mark.parametrize("kernel,call,exc,pattern", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_misuse_is_refused_naming_the_argument(kernel, call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call(example(kernel))


def test_a_planned_call_does_not_take_a_view_with_the_negative_bit():
    """The plan key holds the negative bit: after a plain call planned softmax for these shapes and
    strides, the same call on a view with the bit still reaches the full checks (issue 47)."""
    softmax = example("softmax")
    x, y = x37(), y37()
    for _ in range(2):
        softmax(x, y)
    np.testing.assert_allclose(y.numpy(), torch.softmax(x, 1).numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="argument 'x' has the negative bit set"):
        softmax(torch._neg_view(x), y)
    softmax(torch._neg_view(x).resolve_neg(), y)  # the documented remedy
    np.testing.assert_allclose(y.numpy(), torch.softmax(-x, 1).numpy(), rtol=1e-5, atol=1e-6)


def test_views_by_keyword_are_accepted():
    softmax = example("softmax")
    x, y = x37(), y37()
    softmax(x=x, y=y)
    np.testing.assert_allclose(y.numpy(), torch.softmax(x, 1).numpy(), rtol=1e-5, atol=1e-6)


def test_a_refused_call_writes_nothing():
    """Checks run before the launch: an output is untouched when another argument is wrong."""
    layernorm = example("layernorm")
    y = torch.full((3, 7), 5.0)
    with pytest.raises(ValueError):
        layernorm(x37(), vec(6), vec(7), y, eps=1e-5)
    assert bool((y == 5.0).all())
