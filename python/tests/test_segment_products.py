"""Several products in one kernel (construction's dispatch chain of segments, pgpu-form-tiles tiles
each segment on its own): a GEMM, an elementwise segment that does not tile, and a GEMM with a bias
stored head-major through div/rem of its rows (corpus 111's index map), at odd shapes (empty, one, primes,
sizes that are not multiples of the tiles, K = 0) with small tiles so that every segment spans
several tiles and tiles straddle its ends.

The pgpu interpreter (the whole pipeline, program instances in shuffled order) against the KIR
interpreter on the same random inputs, and the remarks that say which segment tiled and why not.
"""
import subprocess

import numpy as np
import pytest

import tessel
import tessel.language as T

SMALL = ["--param=TILE_0=16", "--param=TILE_1=16", "--param=TILE_K=16", "--param=GROUP_0=2"]


@tessel.kernel
def three_segments(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("K", "N")], x: T.In[T.f32, ("L",)],
                   bias: T.In[T.f32, ("N",)], c: T.Out[T.f32, ("M", "N")], o: T.Out[T.f32, ("L",)], d: T.Out[T.f32, ("B", "S", "N")]):
    M, K = a.shape
    N = b.shape[1]
    ms, ks, ns = T.domain(0, M), T.domain(0, K), T.domain(0, N)
    c[ms, ns] = T.matmul(a[ms, ks], b[ks, ns])
    ls = T.domain(0, x.shape[0])
    o[ls] = x[ls] * 2.0
    i, j = T.indices(ms), T.indices(ns)
    S = d.shape[1]
    d[i // S, i % S, j] = T.matmul(a[ms, ks], b[ks, ns], init=bias[ns])


@pytest.fixture(scope="module")
def kir(tmp_path_factory):
    path = tmp_path_factory.mktemp("segments") / "three.kir.mlir"
    path.write_text(three_segments.kir())
    return path


def test_each_product_segment_is_tiled_and_the_other_says_why(tessel_bin, kir):
    res = subprocess.run([str(tessel_bin), "compile", str(kir), "--emit=pgpu", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "pgpu-form-tiles: segment 0 of 3: tiled a contraction nest" in res.stderr
    assert "pgpu-form-tiles: not tiled (segment 1 of 3): no contraction" in res.stderr
    assert "pgpu-form-tiles: segment 2 of 3: tiled a contraction nest" in res.stderr
    assert "pgpu-refine-mapping: each program owns BLOCK_P consecutive members of the workset (one segment" \
        in res.stderr
    assert res.stdout.count("pgpu.contract") == 2 and "pgpu.range_reduce" not in res.stdout


@pytest.mark.parametrize("shape", [
    "M=1,N=1,K=1,L=1,B=1,S=1", "M=0,N=5,K=3,L=2,B=0,S=3", "M=37,N=19,K=23,L=41,B=37,S=1",
    "M=35,N=17,K=33,L=3,B=5,S=7", "M=6,N=2,K=0,L=1,B=3,S=2", "M=34,N=31,K=16,L=1,B=2,S=17",
])
def test_pgpu_matches_kir_with_small_tiles(tessel_bin, kir, tmp_path, shape):
    pgpu = tmp_path / "three.pgpu.mlir"
    res = subprocess.run([str(tessel_bin), "compile", str(kir), "--emit=pgpu", "-o", str(pgpu)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    outs = {}
    for stage, source, extra in (("kir", kir, ["--stage", "kir"]), ("pgpu", pgpu, SMALL + ["--order", "shuffle"])):
        out = tmp_path / stage
        run = subprocess.run([str(tessel_bin), "run", str(source), "--shape", shape, "--seed", "3", "--out", str(out),
                              *extra], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        outs[stage] = {name: np.load(out / f"{name}.npy") for name in ("c", "o", "d")}
    for name in ("c", "o", "d"):
        assert outs["pgpu"][name].shape == outs["kir"][name].shape
        np.testing.assert_allclose(outs["pgpu"][name], outs["kir"][name], rtol=1e-5, atol=1e-5, err_msg=name)
