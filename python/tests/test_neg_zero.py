"""T.neg flips the sign bit of every float, zeros included (IEEE negate, as torch.neg): Triton's unary
minus on floats is 0 - x, which gives +0.0 for +0.0, so the Triton provider spells neg as x * -1.0. The
KIR interpreter and the generated Triton under TRITON_INTERPRET=1 agree with NumPy bit for bit, in f32,
f16 and bf16, on signed zeros, NaN, infinities and ordinary values."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

VALUES = [0.0, -0.0, 1.5, -2.25, float("inf"), float("-inf"), float("nan"), 65504.0, 1e-3]


def kernel_for(dtype):
    @tessel.kernel
    def negate(x: T.In[dtype, ("N",)], y: T.Out[dtype, ("N",)]):
        N = x.shape[0]
        d = T.domain(0, N)
        y[d] = T.neg(x[d])
    return negate


@pytest.mark.parametrize("name", ["f32", "f16", "bf16"])
def test_neg_flips_the_sign_of_zeros(name, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    dtype = {"f32": T.f32, "f16": T.f16, "bf16": T.bf16}[name]
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[name]
    k = kernel_for(dtype)
    x = torch.tensor(VALUES, dtype=tdt)
    y = torch.empty_like(x)
    k(x, y)
    want = torch.neg(x)
    bits = (lambda t: t.view(torch.int16)) if tdt != torch.float32 else (lambda t: t.view(torch.int32))
    nan = torch.isnan(want)
    assert torch.equal(torch.isnan(y), nan)
    assert torch.equal(bits(y)[~nan], bits(want)[~nan]), (y.tolist(), want.tolist())
    assert torch.signbit(y[0]) and not torch.signbit(y[1])
    ref = k.run_interp({"N": len(VALUES)}, seed=3)
    np.testing.assert_array_equal(np.signbit(np.asarray(ref["y"], dtype=np.float64)),
                                  np.signbit(-np.asarray(ref["x.in"], dtype=np.float64)))
