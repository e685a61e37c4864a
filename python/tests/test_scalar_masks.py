"""A comparison of float scalars at kernel level (`s > 0.5` on a kernel scalar, or of two constants)
broadcast into a tensor mask (found by the DSL fuzzer, test/fuzz/dsl_fuzz.py): kir-to-pgpu emitted the
pgpu.cmp outside the program space as if it were a launch-time fact ("'pgpu.cmp' op is outside the
program space ... (invariant 2)"), and the Triton provider's `tl.full(..., 0, tl.int1) | c` splat of a
scalar float comparison failed under TRITON_INTERPRET=1 ("ufunc 'bitwise_or' not supported"). The KIR
and pgpu interpreters and the generated Triton agree with NumPy on random nonzero inputs at odd shapes."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from tessel import _cli  # noqa: E402


@tessel.kernel
def scalar_masks(x: T.In[T.f32, ("M", "N")], y: T.Out[T.bool_, ("M", "N")], z: T.Out[T.f32, ("M", "N")],
                 s: T.f32, q: T.i32):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    y[rows, cols] = (x[rows, cols] > 0.0) & (s > 0.5) | (q > 1)
    z[rows, cols] = T.where(~(T.broadcast(T.bool_(True), over=(rows, cols), dims=[]) | (T.f32(-0.75) > T.f32(1.5))),
                            x[rows, cols], x[rows, cols] * s)


def want(x, s, q):
    return ((x > 0) & (s > 0.5)) | (q > 1), x * np.float32(s)


CASES = [(1, 1, 0.75, 0), (2, 7, 0.25, 3), (13, 3, 0.75, 1), (5, 67, -1.5, 2)]


@pytest.mark.parametrize("m,n,s,q", CASES)
def test_interpreters(m, n, s, q, tmp_path):
    x = np.random.default_rng(m * 7 + n).uniform(-2, 2, (m, n)).astype(np.float32)
    x[x == 0] = 0.5
    wy, wz = want(x, s, q)
    res = scalar_masks.run_interp({"M": m, "N": n}, scalars={"s": s, "q": q}, inputs={"x": x})
    np.testing.assert_array_equal(res["y"], wy)
    np.testing.assert_array_equal(res["z"], wz)
    path, src, out = tmp_path / "k.mlir", tmp_path / "x.npy", tmp_path / "out"
    path.write_text(scalar_masks.kir())
    np.save(src, x)
    _cli.check(_cli.run_tessel(["run", f"{path}:scalar_masks", "--stage=pgpu", "--shape", f"M={m},N={n}",
                                "--scalar", f"s={s}", "--scalar", f"q={q}", "--in", f"x={src}", "--out", str(out)]),
               "tessel run --stage=pgpu")
    np.testing.assert_array_equal(np.load(out / "y.npy"), wy)
    np.testing.assert_array_equal(np.load(out / "z.npy"), wz)


@pytest.mark.parametrize("m,n,s,q", CASES)
def test_triton(m, n, s, q, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = np.random.default_rng(m * 7 + n).uniform(-2, 2, (m, n)).astype(np.float32)
    x[x == 0] = 0.5
    y, z = torch.empty(m, n, dtype=torch.bool), torch.empty(m, n)
    scalar_masks(torch.tensor(x), y, z, s=s, q=q)
    wy, wz = want(x, s, q)
    np.testing.assert_array_equal(y.numpy(), wy)
    np.testing.assert_array_equal(z.numpy(), wz)
