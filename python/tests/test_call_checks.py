"""Issue 14, call time: the generated launch wrapper refuses calls that would be silently wrong or fail
inside Triton (aliased or self-overlapping outputs, a grid past the launch limit, scalars outside
their type) with an error naming the argument, before launching. Runs under TRITON_INTERPRET=1."""
import os
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

from conftest import example  # noqa: E402  (the suite's examples, by name)


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))


def test_an_output_aliased_with_an_input_is_refused():
    softmax = example("softmax")
    x = torch.randn(3, 7)
    with pytest.raises(ValueError, match="argument 'y' overlaps argument 'x' in memory"):
        softmax(x, x)
    # A view of the same storage shifted by one row still overlaps.
    big = torch.randn(4, 7)
    with pytest.raises(ValueError, match="overlaps"):
        softmax(big[:3], big[1:])


def test_disjoint_views_of_one_storage_are_accepted():
    softmax = example("softmax")
    big = torch.randn(6, 7)
    softmax(big[:3], big[3:])
    np.testing.assert_allclose(big[3:].numpy(), torch.softmax(big[:3], 1).numpy(), rtol=1e-5, atol=1e-6)


def test_two_inputs_may_share_memory():
    vector_add = example("vector_add")
    x = torch.randn(9)
    z = torch.empty(9)
    vector_add(x, x, z, scale=1.0)
    np.testing.assert_allclose(z.numpy(), torch.relu(2 * x).numpy(), rtol=1e-6)


def test_overlapping_outputs_are_refused():
    argmax = example("argmax")
    x = torch.randn(4, 5)
    argmax(x, torch.empty(4), torch.empty(4, dtype=torch.int64))
    buf = torch.empty(16, dtype=torch.int64)
    idx, v = buf[:4], buf.view(torch.float32)[2:6]  # bytes 0-32 and 8-24 of one storage
    with pytest.raises(ValueError, match="argument 'idx' overlaps argument 'v'"):
        argmax(x, v, idx)


@pytest.mark.parametrize("make", [
    lambda: torch.empty(3, 1).expand(3, 7),
    lambda: torch.empty(1, 7).expand(3, 7),
])
def test_a_stride_0_output_is_refused(make):
    softmax = example("softmax")
    with pytest.raises(ValueError, match="argument 'y' is written but axis [01] has stride 0"):
        softmax(torch.randn(3, 7), make())


def test_a_self_overlapping_output_is_refused():
    softmax = example("softmax")
    base = torch.empty(16)
    y = base.as_strided((3, 7), (2, 1))
    with pytest.raises(ValueError, match="argument 'y' is written but its elements overlap"):
        softmax(torch.randn(3, 7), y)


def test_a_stride_0_input_is_fine():
    softmax = example("softmax")
    x = torch.randn(1, 7).expand(3, 7)
    y = torch.empty(3, 7)
    softmax(x, y)
    np.testing.assert_allclose(y.numpy(), torch.softmax(x, 1).numpy(), rtol=1e-5, atol=1e-6)


def test_a_grid_past_the_launch_limit_is_refused_before_launch():
    softmax = example("softmax")
    rows = 2 ** 31
    x = torch.empty_strided((rows, 1), (1, 1), device="meta")
    y = torch.empty_strided((rows, 1), (1, 1), device="meta")
    # One row per program (ROWS's declared default 1, and bound to 1): 2**31 programs, past the grid's limit.
    for bound in ({}, {"ROWS": 1}):
        with pytest.raises(ValueError, match=r"2147483648 programs exceed the launch limit of 2\*\*31 - 1"):
            softmax._launcher({}, bound)(x, y)
    # Packed rows (pgpu-pack-rows, ROWS bound to 8) launch 2**28 programs: within the limit, so the
    # call gets past the grid check to the next one (a meta tensor has no data to launch on).
    with pytest.raises(ValueError, match="argument 'x' is a meta tensor"):
        softmax._launcher({}, {"ROWS": 8})(x, y)


@pytest.mark.parametrize("eps", [1e300, -1e39, 3.5e38])
def test_a_float_scalar_outside_f32_is_refused(eps):
    layernorm = example("layernorm")
    with pytest.raises(ValueError, match=r"scalar 'eps' = .* is outside the range of its type"):
        layernorm(torch.randn(2, 3), torch.randn(3), torch.randn(3), torch.empty(2, 3), eps=eps)


def test_special_float_scalars_are_passed_through():
    vector_add = example("vector_add")
    x, y = torch.randn(5), torch.randn(5)
    for scale in (float("inf"), float("nan"), 3.4028234663852886e38, -0.0):
        z = torch.empty(5)
        vector_add(x, y, z, scale=scale)
        want = torch.relu(x + y) * torch.tensor(scale, dtype=torch.float32)
        np.testing.assert_array_equal(z.numpy(), want.numpy())


@tessel.kernel
def shift(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)], k: T.i32):
    n = T.domain(0, x.shape[0])
    y[n] = x[n] * T.cast(k, T.f32)


@pytest.mark.parametrize("k", [0, 1, 2, 16, -1, 2 ** 31 - 1])
def test_integer_scalars_including_1_run(k):
    x = torch.randn(6)
    y = torch.empty(6)
    shift(x, y, k=k)
    np.testing.assert_array_equal(y.numpy(), (x * torch.tensor(float(k), dtype=torch.float32)).numpy())


@pytest.mark.parametrize("k", [2 ** 31, -2 ** 31 - 1, 2 ** 70])
def test_an_integer_scalar_outside_i32_is_refused(k):
    with pytest.raises(ValueError, match=r"scalar 'k' = .* is outside the range of its type"):
        shift(torch.randn(6), torch.empty(6), k=k)


def test_casts_are_spelled_for_python_ints_too():
    # Triton specializes an integer argument equal to 1 to a Python int (a constexpr) on the GPU;
    # `k.to(tl.float32)` then fails to compile. tl.cast converts both a tensor and a Python int.
    src = shift.source("triton")
    assert ".to(tl." not in src
    assert "tl.cast(" in src
    import triton.language as tl
    assert tl.cast  # the spelling exists in this Triton


def test_an_integer_scalar_of_1_compiles_for_the_gpu(tmp_path):
    # What Triton does on the GPU (not under TRITON_INTERPRET): an int argument equal to 1 is a
    # constexpr. Triton's CUDA backend compiles to PTX without a GPU, so the specialization is
    # compiled here for sm_90 exactly as a launch with k=1 would (in a process without the
    # interpreter, which replaces triton.language's jitted helpers).
    pytest.importorskip("triton.backends.nvidia")
    import subprocess
    (tmp_path / "gen.py").write_text(shift.source("triton"))
    script = """
import inspect, sys
sys.path.insert(0, sys.argv[1])
import triton, gen
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
jit = gen._shift_kernel
signature, constexprs = {}, {}
for p in inspect.signature(jit.fn).parameters.values():
    if p.name == "k" or "constexpr" in str(p.annotation):
        signature[p.name] = "constexpr"
        constexprs[p.name] = 1 if p.name == "k" else 0
    else:
        signature[p.name] = "*fp32" if p.name in ("x", "y") else "i32"
out = triton.compile(ASTSource(fn=jit, signature=signature, constexprs=constexprs), target=GPUTarget("cuda", 90, 32))
print("compiled", "ptx" in out.asm)
"""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, env=env,
                       timeout=300)
    if r.returncode and "ptxas" in r.stderr and "not found" in r.stderr:
        pytest.skip("no ptxas for the CUDA backend here")
    assert r.returncode == 0 and "compiled True" in r.stdout, r.stderr[-3000:]
