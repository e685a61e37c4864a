"""Row statistics nested in an enclosing reduction (issue 41/42): a row's log-sum-exp used inside an
elementwise expression of a per-row sum (corpus 237's JSD) is built by construction inside the sum's
element body, once per member (O(V^2) a row). pgpu-hoist-invariant-reductions computes it once
before the sum, which pgpu-form-blocking then walks in blocks. Column sums beside an elementwise store
of the same kernel (corpus 236's bias gradient: one segment of two) are tiled [BLOCK_R, BLOCK_C] by
pgpu-tile-column-reductions like a sole group's.

The pgpu interpreter (whole pipeline, small blocks, programs shuffled) against the KIR interpreter at
odd shapes (empty rows, one element, primes, non-multiples of the blocks), and Triton under
TRITON_INTERPRET=1 against NumPy at two shapes. Lit: pgpu-hoist-invariant-reductions.mlir (fires,
must not fire: a member-dependent prefix, bounds read from memory), pgpu-tile-column-segments.mlir.
"""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def row_kl(a: T.In[T.f32, ("N", "V")], b: T.In[T.f32, ("N", "V")], kl: T.Out[T.f32, ("N",)]):
    N, V = a.shape
    rows, vocab = T.domain(0, N), T.domain(0, V)
    x, y = a[rows, vocab], b[rows, vocab]
    lp = x - (T.max(x, axis=1) + T.log(T.sum(T.exp(x - T.max(x, axis=1)), axis=1)))
    lq = y - (T.max(y, axis=1) + T.log(T.sum(T.exp(y - T.max(y, axis=1)), axis=1)))
    kl[rows] = T.sum(T.exp(lp) * (lp - lq), axis=1)


@tessel.kernel
def mean_kl(a: T.In[T.f32, ("N", "V")], b: T.In[T.f32, ("N", "V")], loss: T.Out[T.f32, (1,)]):
    N, V = a.shape
    rows, vocab = T.domain(0, N), T.domain(0, V)
    x, y = a[rows, vocab], b[rows, vocab]
    lp = x - (T.max(x, axis=1) + T.log(T.sum(T.exp(x - T.max(x, axis=1)), axis=1)))
    lq = y - (T.max(y, axis=1) + T.log(T.sum(T.exp(y - T.max(y, axis=1)), axis=1)))
    loss[0] = T.sum(T.sum(T.exp(lp) * (lp - lq), axis=1)) / T.cast(N, T.f32)


@tessel.kernel
def scale_and_column_sum(x: T.In[T.f32, ("M", "N")], s: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M", "N")],
                         cs: T.Out[T.f32, ("N",)]):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    d = x[rows, cols] * s[cols] + 1.0
    y[rows, cols] = d
    cs[cols] = T.sum(d, axis=0)


def _kl_ref(a, b):
    def log_softmax(z):
        z = np.asarray(z, np.float64)
        if z.shape[1] == 0:
            return z
        m = z.max(axis=1, keepdims=True)
        return z - m - np.log(np.exp(z - m).sum(axis=1, keepdims=True))
    lp, lq = log_softmax(a), log_softmax(b)
    return (np.exp(lp) * (lp - lq)).sum(axis=1)


def _compile(tessel_bin, tmp, kernel):
    kir, pgpu = tmp / f"{kernel.name}.kir.mlir", tmp / f"{kernel.name}.pgpu.mlir"
    kir.write_text(kernel.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(kir), "--emit=pgpu", "--remarks", "-o", str(pgpu)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return kir, pgpu, res.stderr


@pytest.fixture(scope="module")
def compiled(tessel_bin, tmp_path_factory):
    d = tmp_path_factory.mktemp("rowstats")
    return {k.name: _compile(tessel_bin, d, k) for k in (row_kl, mean_kl, scale_and_column_sum)}


@pytest.mark.parametrize("name", ["row_kl", "mean_kl"])
def test_the_statistics_leave_the_sum_and_it_blocks(compiled, name):
    _, pgpu, remarks = compiled[name]
    assert "nested reduction(s) independent of the member computed once before this one" in remarks
    # every reduction over the vocabulary walks blocks of lanes; mean_kl's rows stay a walk of rows
    assert pgpu.read_text().count("pgpu.range_reduce") == (0 if name == "row_kl" else 1)


def test_the_column_segment_is_tiled(compiled):
    _, pgpu, remarks = compiled["scale_and_column_sum"]
    assert "(the kept axis) became blocks of BLOCK_C lanes" in remarks
    assert "BLOCK_R" in pgpu.read_text()


CASES = [("row_kl", "N=1,V=1", ["kl"]), ("row_kl", "N=3,V=131", ["kl"]), ("row_kl", "N=2,V=0", ["kl"]),
         ("row_kl", "N=5,V=37", ["kl"]), ("mean_kl", "N=7,V=13", ["loss"]), ("mean_kl", "N=1,V=67", ["loss"]),
         ("scale_and_column_sum", "M=1,N=1", ["y", "cs"]), ("scale_and_column_sum", "M=0,N=5", ["y", "cs"]),
         ("scale_and_column_sum", "M=37,N=19", ["y", "cs"]), ("scale_and_column_sum", "M=131,N=3", ["y", "cs"])]
SMALL = dict(BLOCK=64, BLOCK_P=256, BLOCK_R=4, BLOCK_C=16, FOLD_SPLIT=3)  # each where the kernel declares it


@pytest.mark.parametrize("name,shape,outs", CASES)
def test_pgpu_matches_kir(tessel_bin, compiled, tmp_path, name, shape, outs):
    kir, pgpu, _ = compiled[name]
    text = pgpu.read_text()
    small = [f"--param={k}={v}" for k, v in SMALL.items() if f'#pgpu.param<"{k}"' in text]
    got = {}
    for stage, source, extra in (("kir", kir, ["--stage", "kir"]), ("pgpu", pgpu, small + ["--order", "shuffle"])):
        out = tmp_path / stage
        run = subprocess.run([str(tessel_bin), "run", str(source), "--shape", shape, "--seed", "3", "--out", str(out),
                              *extra], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        got[stage] = {o: np.load(out / f"{o}.npy") for o in outs}
    for o in outs:
        np.testing.assert_allclose(got["pgpu"][o], got["kir"][o], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("N,V", [(3, 131), (2, 1)])
def test_triton_row_kl(N, V):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    rng = np.random.default_rng(N * 1000 + V)
    a = (2.0 * rng.standard_normal((N, V))).astype(np.float32)
    b = (a + rng.standard_normal((N, V))).astype(np.float32)
    kl = torch.empty(N, dtype=torch.float32)
    row_kl(torch.from_numpy(a), torch.from_numpy(b), kl)
    np.testing.assert_allclose(kl.numpy(), _kl_ref(a, b), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("M,N", [(37, 19), (1, 3)])
def test_triton_column_sum(M, N):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    rng = np.random.default_rng(M * 100 + N)
    x = rng.standard_normal((M, N)).astype(np.float32)
    s = rng.standard_normal(N).astype(np.float32)
    y, cs = torch.empty(M, N), torch.empty(N)
    scale_and_column_sum(torch.from_numpy(x), torch.from_numpy(s), y, cs)
    d = x.astype(np.float64) * s + 1.0
    np.testing.assert_allclose(y.numpy(), d, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(cs.numpy(), d.sum(axis=0), rtol=1e-4, atol=1e-4)
