"""Causal key-block skipping in a tiled product chain (issue 45; FlashAttention-2 backward dQ, corpus 279):
pgpu-narrow-fold-ranges reads pgpu-form-tiles' key loop, whose carry is the dq contraction's accumulator,
as a fold of contractions; ds = where(k <= i, p, 0) * (dp - delta) is zero on key blocks past the query
tile's last row, which are skipped, and the blocks wholly at or below its first row run unmasked.

The pgpu interpreter (whole pipeline, program instances shuffled, row and key tiles of different sizes so
the diagonal blocks straddle tile edges) against the KIR interpreter at S = 1, primes and non-multiples of
the tiles; the generated Triton under TRITON_INTERPRET=1 against the KIR interpreter. A mask converted to
0/1 and multiplied is not skipped (0 * inf is NaN): that loop stays whole. Lit:
test/Dialect/PGPU/Transforms/pgpu-narrow-fold-ranges-products.mlir.
"""
import os
import subprocess

import numpy as np
import pytest

import tessel
import tessel.language as T
from interp_cli import attention_backward_dq

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

SKIPPED = "1 all-false interval(s) skipped (identity proven)"


dq_causal = attention_backward_dq("dq_causal", T.f16)


@tessel.kernel
def dq_float_mask(q: T.In[T.f16, ("H", "S", "D")], k: T.In[T.f16, ("H", "S", "D")],
                  v: T.In[T.f16, ("H", "S", "D")], do: T.In[T.f16, ("H", "S", "D")],
                  lse: T.In[T.f32, ("H", "S")], delta: T.In[T.f32, ("H", "S")],
                  dq: T.Out[T.f32, ("H", "S", "D")], scale: T.f32):
    H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    kpos = T.indices(keys)
    for h, i in T.parallel(T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[h, keys, dims], q[h, i, dims]) * scale
        p = T.exp(s - lse[h, i]) * T.cast(kpos <= i, T.f32)
        dp = T.matvec(v[h, keys, dims], do[h, i, dims])
        ds = T.cast(p * (dp - delta[h, i]), T.f16)
        dq[h, i, dims] = T.vecmat(ds, k[h, keys, dims]) * scale


def _compile(tessel_bin, d, kernel, name):
    kir, pgpu = d / f"{name}.kir.mlir", d / f"{name}.pgpu.mlir"
    kir.write_text(kernel.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(kir), "--emit=pgpu", "--remarks", "-o", str(pgpu)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return kir, pgpu, res.stderr


@pytest.fixture(scope="module")
def compiled(tessel_bin, tmp_path_factory):
    d = tmp_path_factory.mktemp("causalskip")
    return {"causal": _compile(tessel_bin, d, dq_causal, "causal"),
            "float_mask": _compile(tessel_bin, d, dq_float_mask, "float_mask")}


def _product_loop_remarks(remarks):
    return [line for line in remarks.splitlines() if "a blocked reduction loop, read as its region fold" in line]


def test_the_causal_key_blocks_are_skipped(compiled):
    remarks = _product_loop_remarks(compiled["causal"][2])
    assert remarks and all(SKIPPED in line for line in remarks), remarks


def test_a_mask_multiplied_as_0_or_1_is_not_skipped(compiled):
    remarks = _product_loop_remarks(compiled["float_mask"][2])
    assert not any(SKIPPED in line for line in remarks), remarks


# Rows, columns, keys (TILE_1, TILE_2, TILE_3) and the contraction block: key tiles larger and smaller than
# the row tile, so the last visible key block and the first masked one fall inside a row tile.
TILES = [["--param=TILE_1=16", "--param=TILE_2=16", "--param=TILE_3=32", "--param=TILE_K=16"],
         ["--param=TILE_1=32", "--param=TILE_2=16", "--param=TILE_3=16", "--param=TILE_K=16"]]


@pytest.mark.parametrize("which,shape,tiles", [
    ("causal", "H=1,S=1,D=3", 0), ("causal", "H=2,S=13,D=5", 0), ("causal", "H=2,S=13,D=5", 1),
    ("causal", "H=1,S=41,D=16", 0), ("causal", "H=1,S=67,D=7", 1), ("float_mask", "H=1,S=41,D=5", 1)])
def test_pgpu_matches_kir(tessel_bin, compiled, tmp_path, which, shape, tiles):
    kir, pgpu, _ = compiled[which]
    outs = {}
    for stage, source, extra in (("kir", kir, ["--stage", "kir"]),
                                 ("pgpu", pgpu, TILES[tiles] + ["--param=PERSIST=1", "--order", "shuffle"])):
        out = tmp_path / stage
        run = subprocess.run([str(tessel_bin), "run", str(source), "--shape", shape, "--scalar", "scale=0.25",
                              "--seed", "5", "--out", str(out), *extra], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        outs[stage] = np.load(out / "dq.npy")
    np.testing.assert_allclose(outs["pgpu"], outs["kir"], rtol=2e-2, atol=2e-2)


# Importing torch and Triton costs CI more than the rest of this file; test_row_read_chains.py runs this
# chain (now skipping) through Triton at S = 19 already.
@pytest.mark.skipif(not os.environ.get("TESSEL_DEEP"), reason="TESSEL_DEEP: Triton under TRITON_INTERPRET")
@pytest.mark.parametrize("shape", [dict(H=1, S=1, D=3), dict(H=1, S=37, D=5)])
def test_triton_matches_kir(tmp_path_factory, monkeypatch, shape):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path_factory.mktemp("cache")))
    launch = dq_causal._launcher({}, {"TILE_1": 16, "TILE_2": 16, "TILE_3": 16, "TILE_K": 16})
    ref = dq_causal.run_interp(shape, {"scale": 0.25}, None, seed=11)
    args = [torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("q", "k", "v", "do", "lse", "delta")]
    out = torch.full((shape["H"], shape["S"], shape["D"]), float("nan"), dtype=torch.float32)
    launch(*args, out, scale=0.25)
    np.testing.assert_allclose(out.numpy(), np.array(ref["dq"]), rtol=2e-2, atol=2e-2)
