"""A contraction whose operand is another contraction's result (pgpu-form-tiles' nests), against the
KIR interpreter.

LoRA forward in f16: y = f16(x·w + s·(f16(x·a))·b). Construction realizes the delta's operand x·a
per member r of the rank inside the delta's sum; pgpu-form-tiles blocks r (TILE_<r>) and computes
the [TILE_0, TILE_<r>] tile of x·a in one K loop per r block, then contracts it with the b tile.
At odd shapes (1, primes, extents that are not multiples of any tile) and several bindings, the pgpu
interpreter (shuffled program order) and the generated Triton under TRITON_INTERPRET=1 compute what
the KIR interpreter computes: with the rank the constant 16 (one r block) and a symbolic rank R (19:
two r blocks of 16, the second partial, x·a recomputed per block). f16, not bf16: Triton's CPU
interpreter's bf16 tl.dot is wrong upstream (bench/corpus/_harness.py interpreter_bf16_dot).
"""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T
from conftest import split_k_branches


@tessel.kernel
def lora16(x: T.In[T.f16, ("M", "K")], w: T.In[T.f16, ("K", "N")], a: T.In[T.f16, ("K", 16)],
           b: T.In[T.f16, (16, "N")], y: T.Out[T.f16, ("M", "N")], s: T.f32):
    xt = x[:, :]
    base = T.matmul(xt, w[:, :], acc_dtype=T.f32)
    xa = T.cast(T.matmul(xt, a[:, :], acc_dtype=T.f32), T.f16)
    delta = T.matmul(xa, b[:, :], acc_dtype=T.f32)
    y[:, :] = T.cast(base + s * delta, T.f16)


@tessel.kernel
def lora_r(x: T.In[T.f16, ("M", "K")], w: T.In[T.f16, ("K", "N")], a: T.In[T.f16, ("K", "R")],
           b: T.In[T.f16, ("R", "N")], y: T.Out[T.f16, ("M", "N")], s: T.f32):
    xt = x[:, :]
    base = T.matmul(xt, w[:, :], acc_dtype=T.f32)
    xa = T.cast(T.matmul(xt, a[:, :], acc_dtype=T.f32), T.f16)
    delta = T.matmul(xa, b[:, :], acc_dtype=T.f32)
    y[:, :] = T.cast(base + s * delta, T.f16)


SHAPES = [{"M": 1, "N": 1, "K": 1}, {"M": 17, "N": 37, "K": 29}, {"M": 41, "N": 23, "K": 53}]
BINDINGS = [{}, {"TILE_0": 16, "TILE_1": 32, "TILE_K": 16, "GROUP_0": 2},
            {"TILE_0": 32, "TILE_1": 16, "TILE_K": 32, "GROUP_0": 1}]
# The r axis's parameter: axis 3 (after the program axes 0, 1 and the base's k loop 2).
CASES = [(lora16, {}, "TILE_3", 16), (lora_r, {"R": 19}, "TILE_3", 16), (lora_r, {"R": 5}, "TILE_3", 32)]
TOL = dict(rtol=2e-2, atol=2e-2)


def ids(v):
    return "-".join(f"{k}{x}" for k, x in v.items()) if isinstance(v, dict) else getattr(v, "name", str(v))


def run_pgpu(tessel_bin, path, shapes, params, seed):
    import tempfile
    with tempfile.TemporaryDirectory() as out:
        cmd = [str(tessel_bin), "run", str(path), "--stage", "pgpu", "--seed", str(seed), "--order", "shuffle",
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()), "--scalar", "s=0.5", "--out", out]
        for k, v in params.items():
            cmd += ["--param", f"{k}={v}"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        return {p[:-4]: np.load(os.path.join(out, p)) for p in os.listdir(out) if not p.endswith(".in.npy")}


def test_nest_is_tiled(tessel_bin):
    # The delta's sum holds x·a's sum: both become pgpu.contract, none stays element by element.
    for kernel in (lora16, lora_r):
        text = kernel.pgpu()
        assert "pgpu.range_reduce" not in text and "pgpu.foreach" not in text, text
        # x·a's tile is contracted over TILE_K into [TILE_0, TILE_3], then is the delta's left operand.
        assert "!pgpu.fragment<f16, [TILE_K, TILE_3]>, !pgpu.fragment<f32, [TILE_0, TILE_3]>" in text, text
        assert "pgpu.contract" in text and "!pgpu.fragment<f16, [TILE_0, TILE_3]>, !pgpu.fragment<f16, [TILE_3, TILE_1]>" in text, text
    assert '#pgpu.param<"TILE_3", [16], 16>' in lora16.pgpu()
    # Rank 16 is one r block: x·a accumulates in the base's K loop (two carries, x read once there).
    assert ":2 = pgpu.for" in lora16.pgpu() and ":2 = pgpu.for" not in lora_r.pgpu()
    # x is read once in each branch of the split-K choice (a launch compiles one; both exist here)
    branches = split_k_branches(lora16.source("triton"))
    assert branches[1] is not None
    assert all(b.count("tl.load(x + ") == 1 for b in branches)
    assert '#pgpu.param<"TILE_3", [16, 32, 64, 128], 64>' in lora_r.pgpu()


@pytest.mark.parametrize("params", BINDINGS, ids=lambda p: ids(p) or "defaults")
@pytest.mark.parametrize("shapes", SHAPES, ids=ids)
@pytest.mark.parametrize("kernel,rank,tile_r,tile", CASES, ids=lambda v: ids(v) if not isinstance(v, int) else str(v))
def test_pgpu_matches_kir(tessel_bin, tmp_path, kernel, rank, tile_r, tile, shapes, params):
    shapes = {**shapes, **rank}
    path = tmp_path / "k.mlir"
    path.write_text(kernel.kir())
    ref = kernel.run_interp(shapes, scalars={"s": 0.5}, seed=7)
    got = run_pgpu(tessel_bin, path, shapes, {**params, tile_r: tile} if params else params, seed=7)
    np.testing.assert_allclose(got["y"].astype(np.float64), ref["y"].astype(np.float64), **TOL)


@pytest.mark.parametrize("shapes", SHAPES, ids=ids)
@pytest.mark.parametrize("kernel,rank,tile_r,tile", CASES, ids=lambda v: ids(v) if not isinstance(v, int) else str(v))
def test_triton_matches_kir(tmp_path, monkeypatch, kernel, rank, tile_r, tile, shapes):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    shapes = {**shapes, **rank}
    params = {"TILE_0": 16, "TILE_1": 32, "TILE_K": 16, "GROUP_0": 2, tile_r: tile}
    source = kernel.source("triton", None, params)
    assert source.count("tl.dot(") >= 3 and "tl.cast(" in source
    ref = kernel.run_interp(shapes, scalars={"s": 0.5}, seed=11)
    args = [torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("x", "w", "a", "b")]
    y = torch.empty(ref["y"].shape, dtype=torch.float16)
    kernel._launcher(None, params)(*args, y, s=0.5)
    np.testing.assert_allclose(y.numpy().astype(np.float64), ref["y"].astype(np.float64), **TOL)
