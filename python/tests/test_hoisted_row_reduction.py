"""A row reduction nested in a product's element body that does not depend on the member (RMSNorm
before a linear layer, corpus 113): pgpu-form-tiles computes it once before the product and tiles
the nest (a K loop for the row tile's sum of squares, then the GEMM's K loop scaling the A tile).

The pgpu interpreter (whole pipeline, small tiles, program instances in shuffled order) against the
KIR interpreter on the same random inputs at odd shapes (one, primes, non-multiples of the tiles,
rows and columns past one tile). A nested reduction that depends on the member (its bound the
member) stays where it is: test/Dialect/PGPU/Transforms/pgpu-form-tiles-hoist.mlir.
"""
import subprocess

import numpy as np
import pytest

import tessel
import tessel.language as T

SMALL = ["--param=TILE_0=16", "--param=TILE_1=16", "--param=TILE_K=16", "--param=GROUP_0=2", "--param=PERSIST=1"]


@tessel.kernel
def rms_linear(x: T.In[T.f32, ("M", "K")], g: T.In[T.f32, ("K",)], w: T.In[T.f32, ("K", "N")],
               y: T.Out[T.f32, ("M", "N")], eps: T.f32):
    M, K = x.shape
    rows, cols, ks = T.domain(0, M), T.domain(0, w.shape[1]), T.domain(0, K)
    xf = x[rows, ks]
    rstd = T.rsqrt(T.sum(xf * xf, axis=1) / T.cast(K, T.f32) + eps)
    y[rows, cols] = T.matmul(xf * rstd * g[ks], w[ks, cols])


@pytest.fixture(scope="module")
def compiled(tessel_bin, tmp_path_factory):
    d = tmp_path_factory.mktemp("hoist")
    kir, pgpu = d / "rms.kir.mlir", d / "rms.pgpu.mlir"
    kir.write_text(rms_linear.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(kir), "--emit=pgpu", "--remarks", "-o", str(pgpu)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return kir, pgpu, res.stderr


def test_the_nest_is_tiled_with_the_row_reduction_first(compiled):
    _, pgpu, remarks = compiled
    assert "a nested reduction independent of the member is computed once before the enclosing one" in remarks
    text = pgpu.read_text()
    assert "pgpu.contract" in text and "pgpu.range_reduce" not in text
    assert text.index("rsqrt") < text.index("pgpu.contract")


@pytest.mark.parametrize("shape", ["M=1,K=1,N=1", "M=17,K=37,N=19", "M=33,K=16,N=2", "M=5,K=64,N=47"])
def test_pgpu_matches_kir_with_small_tiles(tessel_bin, compiled, tmp_path, shape):
    kir, pgpu, _ = compiled
    outs = {}
    for stage, source, extra in (("kir", kir, ["--stage", "kir"]), ("pgpu", pgpu, SMALL + ["--order", "shuffle"])):
        out = tmp_path / stage
        run = subprocess.run([str(tessel_bin), "run", str(source), "--shape", shape, "--scalar", "eps=1e-5",
                              "--seed", "5", "--out", str(out), *extra], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        outs[stage] = np.load(out / "y.npy")
    assert outs["pgpu"].shape == outs["kir"].shape
    np.testing.assert_allclose(outs["pgpu"], outs["kir"], rtol=1e-4, atol=1e-4)

