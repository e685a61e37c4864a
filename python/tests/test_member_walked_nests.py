"""A contraction nested in a sum's element body, free on the two program axes, whose operand reads the
sum's member (pgpu-form-tiles' member-walked nests), against the KIR interpreter.

A lightning indexer, I[t, s] = sum_h w[t, h] relu(q[t, h, :] . k[s, :]) under a causal mask, as a user writes
it (corpus 343): construction realizes the product per member h inside the sum over h; pgpu-form-tiles
tiles it as [TILE_0, TILE_1] tiles of t and s, walks h one member a trip around the product's K loop, and
accumulates relu(tile) * w's column into a [TILE_0, TILE_1] carry. Per-head keys k[s, h, :] (both operands
read h) tile alike. At odd shapes (0 and 1 extents, primes, extents that are not multiples of any tile) and
several bindings, the pgpu interpreter (shuffled program order) and the generated Triton under
TRITON_INTERPRET=1 compute what the KIR interpreter computes. f16, not bf16: Triton's CPU interpreter's
bf16 tl.dot is wrong upstream (bench/corpus/_harness.py interpreter_bf16_dot). Lit:
test/Dialect/PGPU/Transforms/pgpu-form-tiles-member-nests.mlir.
"""
import math
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T


@tessel.kernel
def indexer(q: T.In[T.f16, ("T", "H", "D")], w: T.In[T.f32, ("T", "H")], k: T.In[T.f16, ("S", "D")],
            scores: T.Out[T.f32, ("T", "S")]):
    NT, H, D = q.shape
    S = k.shape[0]
    heads, dims, keys = T.domain(0, H), T.domain(0, D), T.domain(0, S)
    kpos = T.indices(keys)
    for t in T.parallel(T.domain(0, NT)):
        logits = T.matmul(q[t, heads, dims], k[keys, dims], transpose_rhs=True)
        idx = T.sum(T.relu(logits) * w[t, heads], axis=0)
        scores[t, keys] = T.where(kpos <= t + (S - NT), idx, -math.inf)


@tessel.kernel
def per_head(q: T.In[T.f16, ("T", "H", "D")], k: T.In[T.f16, ("S", "H", "D")], out: T.Out[T.f32, ("T", "S")]):
    NT, H, D = q.shape
    S = k.shape[0]
    heads, dims, keys = T.domain(0, H), T.domain(0, D), T.domain(0, S)
    for t in T.parallel(T.domain(0, NT)):
        for s in T.parallel(keys):
            logits = T.sum(T.cast(q[t, heads, dims], T.f32) * T.cast(k[s, heads, dims], T.f32), axis=1)
            out[t, s] = T.sum(logits * logits, axis=0)


SHAPES = [{"T": 1, "H": 1, "D": 1, "S": 1}, {"T": 17, "H": 3, "D": 29, "S": 37},
          {"T": 5, "H": 0, "D": 7, "S": 11}, {"T": 7, "H": 2, "D": 0, "S": 13}, {"T": 0, "H": 2, "D": 3, "S": 5}]
BINDINGS = [{}, {"TILE_0": 16, "TILE_1": 32, "TILE_K": 16, "GROUP_0": 2},
            {"TILE_0": 32, "TILE_1": 16, "TILE_K": 32, "GROUP_0": 1}]
KERNELS = [indexer, per_head]
TOL = dict(rtol=2e-3, atol=2e-3)


def ids(v):
    return "-".join(f"{k}{x}" for k, x in v.items()) if isinstance(v, dict) else getattr(v, "name", str(v))


def run_pgpu(tessel_bin, path, shapes, params, seed):
    import tempfile
    with tempfile.TemporaryDirectory() as out:
        cmd = [str(tessel_bin), "run", str(path), "--stage", "pgpu", "--seed", str(seed), "--order", "shuffle",
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()), "--out", out]
        for k, v in params.items():
            cmd += ["--param", f"{k}={v}"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        return {p[:-4]: np.load(os.path.join(out, p)) for p in os.listdir(out) if not p.endswith(".in.npy")}


@pytest.mark.parametrize("kernel", KERNELS, ids=ids)
def test_nest_is_tiled(kernel):
    # No element-by-element reduction is left: the product is a tile contraction of [TILE_0, TILE_K] rows of
    # q (h a scalar coordinate) and [TILE_K, TILE_1] keys, inside a step-1 loop over h carrying the tile.
    text = kernel.pgpu()
    assert "pgpu.range_reduce" not in text and "pgpu.foreach" not in text, text
    assert ("!pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, "
            "!pgpu.fragment<f32, [TILE_0, TILE_1]>") in text, text
    assert "TILE_2" not in text and "TILE_3" not in text, text
    source = kernel.source("triton", None, {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "GROUP_0": 1})
    assert source.count("tl.dot(") == 1, source


@pytest.mark.parametrize("params", BINDINGS, ids=lambda p: ids(p) or "defaults")
@pytest.mark.parametrize("shapes", SHAPES, ids=ids)
@pytest.mark.parametrize("kernel", KERNELS, ids=ids)
def test_pgpu_matches_kir(tessel_bin, tmp_path, kernel, shapes, params):
    path = tmp_path / "k.mlir"
    path.write_text(kernel.kir())
    ref = kernel.run_interp(shapes, seed=7)
    got = run_pgpu(tessel_bin, path, shapes, params, seed=7)
    out = "scores" if kernel is indexer else "out"
    np.testing.assert_allclose(got[out], ref[out], **TOL)


@pytest.mark.parametrize("shapes", SHAPES[:3], ids=ids)
@pytest.mark.parametrize("kernel", KERNELS, ids=ids)
def test_triton_matches_kir(tmp_path, monkeypatch, kernel, shapes):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    params = {"TILE_0": 16, "TILE_1": 32, "TILE_K": 16, "GROUP_0": 2}
    ref = kernel.run_interp(shapes, seed=11)
    names = ("q", "w", "k") if kernel is indexer else ("q", "k")
    args = [torch.from_numpy(np.array(ref[f"{n}.in"])) for n in names]
    out = "scores" if kernel is indexer else "out"
    y = torch.empty(ref[out].shape, dtype=torch.float32)
    kernel._launcher(None, params)(*args, y)
    np.testing.assert_allclose(y.numpy(), ref[out], **TOL)
