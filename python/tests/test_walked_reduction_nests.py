"""A reduction that is no contraction nested in another's element body (pgpu-form-tiles' walked nests),
against the KIR interpreter.

A Gaussian KDE as a user writes it (corpus 359): density[q] = (1/C) sum_c exp(-sum_d (c[c, d] - x[q, d])^2 * inv).
Construction realizes the squared distance per centre inside the sum over centres; pgpu-form-tiles tiles
it as [TILE_0, TILE_1] tiles of queries and a block of centres, walks d one member a trip carrying the
[TILE_0, TILE_1] distance tile, applies exp to the tile and reduces it along the centres into a [TILE_0]
carry. A nearest-centre distance (a max over centres of minus an L1 distance) tiles alike. At odd shapes
(0 and 1 extents, primes, extents that are not multiples of any tile) and several bindings, the pgpu
interpreter (shuffled program order) and the generated Triton under TRITON_INTERPRET=1 compute what the
KIR interpreter computes. Lit: test/Dialect/PGPU/Transforms/pgpu-form-tiles-walked-nests.mlir.
"""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T


@tessel.kernel
def kde(x: T.In[T.f32, ("Q", "D")], c: T.In[T.f32, ("C", "D")], density: T.Out[T.f32, ("Q",)], h: T.f32):
    Q, D = x.shape
    C = c.shape[0]
    cents, dims = T.domain(0, C), T.domain(0, D)
    inv = 1.0 / (2.0 * h * h)
    for q in T.parallel(T.domain(0, Q)):
        diff = c[cents, dims] - x[q, dims]
        d2 = T.sum(diff * diff, axis=1)
        density[q] = T.sum(T.exp(-d2 * inv)) / T.cast(C, T.f32)


@tessel.kernel
def nearest(x: T.In[T.f32, ("Q", "D")], c: T.In[T.f32, ("C", "D")], out: T.Out[T.f32, ("Q",)]):
    Q, D = x.shape
    C = c.shape[0]
    cents, dims = T.domain(0, C), T.domain(0, D)
    for q in T.parallel(T.domain(0, Q)):
        l1 = T.sum(T.abs(c[cents, dims] - x[q, dims]), axis=1)
        out[q] = T.max(-l1)


@tessel.kernel
def seven(x: T.In[T.f32, ("Q", "D")], c: T.In[T.f32, (7, "D")], out: T.Out[T.f32, ("Q",)]):
    Q, D = x.shape
    cents, dims = c.domain(0), T.domain(0, D)
    for q in T.parallel(T.domain(0, Q)):
        diff = c[cents, dims] - x[q, dims]
        out[q] = T.min(T.sum(diff * diff, axis=1))


SHAPES = [{"Q": 1, "C": 1, "D": 1}, {"Q": 37, "C": 67, "D": 5}, {"Q": 13, "C": 0, "D": 3},
          {"Q": 7, "C": 11, "D": 0}, {"Q": 0, "C": 5, "D": 3}]
BINDINGS = [{}, {"TILE_0": 16, "TILE_1": 32}, {"TILE_0": 32, "TILE_1": 16}]
KERNELS = [kde, nearest]
TOL = dict(rtol=1e-5, atol=1e-6)


def ids(v):
    return "-".join(f"{k}{x}" for k, x in v.items()) if isinstance(v, dict) else getattr(v, "name", str(v))


SCALARS = {"h": 1.3}


def scalars_of(kernel):
    return SCALARS if kernel is kde else {}


def run_pgpu(tessel_bin, path, shapes, params, seed, scalars):
    import tempfile
    with tempfile.TemporaryDirectory() as out:
        cmd = [str(tessel_bin), "run", str(path), "--stage", "pgpu", "--seed", str(seed), "--order", "shuffle",
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()), "--out", out]
        for k, v in params.items():
            cmd += ["--param", f"{k}={v}"]
        for k, v in scalars.items():
            cmd += ["--scalar", f"{k}={v}"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        return {p[:-4]: np.load(os.path.join(out, p)) for p in os.listdir(out) if not p.endswith(".in.npy")}


@pytest.mark.parametrize("kernel", KERNELS, ids=ids)
def test_nest_is_tiled(kernel):
    # No element-by-element reduction is left: a step-1 loop over d carries the [TILE_0, TILE_1] distance
    # tile inside the loop over blocks of centres, whose tile is reduced into a [TILE_0] carry (one tile
    # reduction in the full blocks' loop, one in the partial last block's).
    text = kernel.pgpu()
    assert "pgpu.range_reduce" not in text and "pgpu.foreach" not in text, text
    assert "!pgpu.fragment<f32, [TILE_0, TILE_1]>" in text, text
    assert "TILE_K" not in text and "TILE_2" not in text and "BLOCK" not in text, text
    source = kernel.source("triton", None, {"TILE_0": 16, "TILE_1": 16})
    assert "tl.dot(" not in source and source.count("tl.sum(") + source.count("tl.reduce(") == 2, source


@pytest.mark.parametrize("params", BINDINGS, ids=lambda p: ids(p) or "defaults")
@pytest.mark.parametrize("shapes", SHAPES, ids=ids)
@pytest.mark.parametrize("kernel", KERNELS, ids=ids)
def test_pgpu_matches_kir(tessel_bin, tmp_path, kernel, shapes, params):
    path = tmp_path / "k.mlir"
    path.write_text(kernel.kir())
    ref = kernel.run_interp(shapes, scalars=scalars_of(kernel), seed=7)
    got = run_pgpu(tessel_bin, path, shapes, params, seed=7, scalars=scalars_of(kernel))
    out = "density" if kernel is kde else "out"
    np.testing.assert_allclose(got[out], ref[out], **TOL)


@pytest.mark.parametrize("shapes", SHAPES[:3], ids=ids)
@pytest.mark.parametrize("kernel", KERNELS, ids=ids)
def test_triton_matches_kir(tmp_path, monkeypatch, kernel, shapes):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = kernel.run_interp(shapes, scalars=scalars_of(kernel), seed=11)
    args = [torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("x", "c")]
    out = "density" if kernel is kde else "out"
    y = torch.empty(ref[out].shape, dtype=torch.float32)
    kernel._launcher(None, {"TILE_0": 16, "TILE_1": 32})(*args, y, **scalars_of(kernel))
    np.testing.assert_allclose(y.numpy(), ref[out], **TOL)


def test_constant_extent_is_one_block(tessel_bin, tmp_path):
    # 7 centroids: TILE_1's one candidate is 16 (the first power of two covering 7, tensor-core sized),
    # a [TILE_0, 16] tile and one block of the centres, not a tile three quarters masked.
    text = seven.pgpu()
    assert '#pgpu.param<"TILE_1", [16], 16>' in text, text
    path = tmp_path / "k.mlir"
    path.write_text(seven.kir())
    for shapes in ({"Q": 37, "D": 5}, {"Q": 1, "D": 0}):
        ref = seven.run_interp(shapes, seed=5)
        got = run_pgpu(tessel_bin, path, shapes, {"TILE_0": 16}, seed=5, scalars={})
        np.testing.assert_allclose(got["out"], ref["out"], **TOL)
