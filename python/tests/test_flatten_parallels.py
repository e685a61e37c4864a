"""Nested `T.parallel` loops are one parallel over all their domains (kir-flatten-parallels, issue 41):
`for b in T.parallel(dB): for h in T.parallel(dH)` compiles like `for b, h in T.parallel(dB, dH)`
(before, construction refused the inner parallel). Checked against NumPy on the KIR interpreter and
through Triton under TRITON_INTERPRET=1 at odd shapes, and the generated Triton of the two spellings is
the same kernel."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def nested(x: T.In[T.f32, ("B", "H", "D")], s: T.In[T.f32, ("B",)], y: T.Out[T.f32, ("B", "H", "D")]):
    B, H, D = x.shape
    dims = T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        scale = s[b]
        for h in T.parallel(T.domain(0, H)):
            row = x[b, h, dims] * scale
            y[b, h, dims] = row - T.max(row)


@tessel.kernel
def flat(x: T.In[T.f32, ("B", "H", "D")], s: T.In[T.f32, ("B",)], y: T.Out[T.f32, ("B", "H", "D")]):
    B, H, D = x.shape
    dims = T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        row = x[b, h, dims] * s[b]
        y[b, h, dims] = row - T.max(row)


@pytest.mark.parametrize("B,H,D", [(1, 1, 1), (3, 5, 17), (2, 7, 131)])
def test_nested_parallels_run_as_one(B, H, D, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(B * H * D)
    x = rng.standard_normal((B, H, D)).astype(np.float32)
    s = rng.standard_normal(B).astype(np.float32)
    r = x * s[:, None, None]
    want = r - r.max(-1, keepdims=True)
    got = nested.run_interp(shapes=dict(B=B, H=H, D=D), scalars={}, inputs=dict(x=x, s=s))["y"]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    y = torch.full((B, H, D), float("nan"))
    nested(torch.tensor(x), torch.tensor(s), y)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-6, atol=1e-6)


def test_both_spellings_give_one_kernel():
    def body(kernel):
        src = kernel.source("triton")
        start = src.index("@triton.jit")
        return src[start:src.index("_plans = {}", start)].replace(kernel.name, "K").split("\n", 1)[1]
    strip = lambda t: "\n".join(l for l in t.splitlines() if not l.strip().startswith("#"))  # noqa: E731
    assert strip(body(nested)) == strip(body(flat))
