"""A kernel-level scalar read used by two kernel-level worksets (found by the DSL fuzzer,
test/fuzz/dsl_fuzz.py): `y[rows, cols] = ...` then `z[cols] = x[0, 0] + ...` was refused by kir-to-pgpu
with "operand #0 does not dominate this use" (the second workset reused the load emitted inside the
first). Each workset now reads it again; the pgpu interpreter and the generated Triton (under
TRITON_INTERPRET=1) agree with the KIR interpreter and NumPy on random nonzero inputs at odd shapes. The
same for a kernel-level `a if c else b` of two reads, which was refused ("top-level 'kir.if' is neither a
launch-time fact nor a pure value read before the worksets")."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def two_worksets(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")], z: T.Out[T.f32, ("N",)]):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    y[rows, cols] = x[rows, cols] * x[M - 1, 0]
    z[cols] = x[0, N - 1] + T.cast(T.indices(cols), T.f32) * x[M - 1, 0]


SHAPES = [(1, 1), (2, 7), (13, 3), (5, 67)]


def want(x):
    M, N = x.shape
    return x * x[M - 1, 0], x[0, N - 1] + np.arange(N, dtype=np.float32) * x[M - 1, 0]


@pytest.mark.parametrize("m,n", SHAPES)
def test_both_interpreters_agree(m, n, tmp_path):
    x = np.random.default_rng(m * 100 + n).uniform(0.25, 2.0, (m, n)).astype(np.float32)
    src = tmp_path / "x.npy"
    np.save(src, x)
    y, z = want(x)
    for stage in ("kir", "pgpu"):
        ref = two_worksets.run_interp({"M": m, "N": n}, inputs={"x": x}) if stage == "kir" else None
        if stage == "pgpu":
            from tessel import _cli
            path = tmp_path / "k.mlir"
            path.write_text(two_worksets.kir())
            out = tmp_path / "out"
            _cli.check(_cli.run_tessel(["run", f"{path}:two_worksets", "--stage=pgpu", "--shape", f"M={m},N={n}",
                                        "--in", f"x={src}", "--out", str(out)]), "tessel run --stage=pgpu")
            ref = {"y": np.load(out / "y.npy"), "z": np.load(out / "z.npy")}
        np.testing.assert_allclose(ref["y"], y, rtol=1e-6, err_msg=stage)
        np.testing.assert_allclose(ref["z"], z, rtol=1e-6, err_msg=stage)


@pytest.mark.parametrize("m,n", SHAPES)
def test_triton_agrees(m, n, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = np.random.default_rng(m * 100 + n).uniform(0.25, 2.0, (m, n)).astype(np.float32)
    y, z = torch.empty(m, n), torch.empty(n)
    two_worksets(torch.tensor(x), y, z)
    wy, wz = want(x)
    np.testing.assert_allclose(y.numpy(), wy, rtol=1e-6)
    np.testing.assert_allclose(z.numpy(), wz, rtol=1e-6)


@tessel.kernel
def pick(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")], z: T.Out[T.f32, ("N",)], s: T.f32):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    v = x[0, N - 1] if s > 0.5 else x[M - 1, 0]       # a runtime if at kernel level, used by two worksets
    y[rows, cols] = x[rows, cols] * v
    z[cols] = x[0, cols] + v


@pytest.mark.parametrize("m,n", SHAPES)
@pytest.mark.parametrize("s", [0.75, 0.25])
def test_a_kernel_level_conditional_read_is_replayed(m, n, s, tmp_path, monkeypatch):
    """`a if c else b` on kernel-level reads was refused by kir-to-pgpu ("top-level 'kir.if' is neither a
    launch-time fact nor a pure value read before the worksets"); it is replayed in each workset."""
    x = np.random.default_rng(m * 10 + n).uniform(0.25, 2.0, (m, n)).astype(np.float32)
    v = x[0, n - 1] if s > 0.5 else x[m - 1, 0]
    wy, wz = x * v, x[0] + v
    src, path, out = tmp_path / "x.npy", tmp_path / "k.mlir", tmp_path / "out"
    np.save(src, x)
    path.write_text(pick.kir())
    from tessel import _cli
    _cli.check(_cli.run_tessel(["run", f"{path}:pick", "--stage=pgpu", "--shape", f"M={m},N={n}", "--scalar", f"s={s}",
                                "--in", f"x={src}", "--out", str(out)]), "tessel run --stage=pgpu")
    np.testing.assert_array_equal(np.load(out / "y.npy"), wy)
    np.testing.assert_array_equal(np.load(out / "z.npy"), wz)
    ref = pick.run_interp({"M": m, "N": n}, scalars={"s": s}, inputs={"x": x})
    np.testing.assert_array_equal(ref["y"], wy)
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    y, z = torch.empty(m, n), torch.empty(n)
    pick(torch.tensor(x), y, z, s=s)
    np.testing.assert_array_equal(y.numpy(), wy)
    np.testing.assert_array_equal(z.numpy(), wz)
