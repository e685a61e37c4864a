"""A product chain whose pointwise math between the two products reads a per-row value from memory
(FlashAttention-2 backward dQ, corpus 279: exp(scale * <q_i, k_j> - lse[i]) and dp_j - delta[i]):
pgpu-form-tiles takes the row's reads before the walk of the output columns as values of the chain,
read once per row tile as vectors, and tiles the chain (issue 45).

The pgpu interpreter (whole pipeline, small tiles, program instances in shuffled order) against the
KIR interpreter on the same random inputs at odd shapes (one key, primes, non-multiples of the tiles,
an odd head dimension); the generated Triton (f16 views: the Triton interpreter computes with NumPy, which
has no bfloat16) under TRITON_INTERPRET=1 against the KIR interpreter. Must not fire: test/Dialect/PGPU/Transforms/pgpu-form-tiles-row-reads.mlir.
"""
import os
import subprocess

import numpy as np
import pytest

import tessel.language as T
from interp_cli import attention_backward_dq

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

SMALL = ["--param=TILE_1=16", "--param=TILE_2=16", "--param=TILE_3=16", "--param=TILE_K=16", "--param=GROUP_1=2",
         "--param=PERSIST=1"]


dq_rows = attention_backward_dq("dq_rows", T.bf16)
dq_rows_f16 = attention_backward_dq("dq_rows_f16", T.f16)


@pytest.fixture(scope="module")
def compiled(tessel_bin, tmp_path_factory):
    d = tmp_path_factory.mktemp("rowreads")
    kir, pgpu = d / "dq.kir.mlir", d / "dq.pgpu.mlir"
    kir.write_text(dq_rows.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(kir), "--emit=pgpu", "--remarks", "-o", str(pgpu)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return kir, pgpu, res.stderr


def test_the_chain_is_tiled_with_the_row_reads_as_vectors(compiled):
    _, pgpu, remarks = compiled
    assert "per-row reads before the walk are read once per tile" in remarks
    text = pgpu.read_text()
    assert "pgpu.contract" in text and "pgpu.range_reduce" not in text
    for view in ("lse", "delta"):  # a [rows] vector each, once per tile (the K-loop branches share it)
        loads = [line for line in text.splitlines() if f"pgpu.load %{view}[" in line]
        assert len(loads) == 1 and loads[0].endswith("-> !pgpu.fragment<f32, [TILE_1]>"), loads


@pytest.mark.parametrize("shape", ["H=1,S=1,D=1", "H=2,S=7,D=5", "H=1,S=37,D=19", "H=3,S=17,D=16"])
def test_pgpu_matches_kir_with_small_tiles(tessel_bin, compiled, tmp_path, shape):
    kir, pgpu, _ = compiled
    outs = {}
    for stage, source, extra in (("kir", kir, ["--stage", "kir"]), ("pgpu", pgpu, SMALL + ["--order", "shuffle"])):
        out = tmp_path / stage
        run = subprocess.run([str(tessel_bin), "run", str(source), "--shape", shape, "--scalar", "scale=0.25",
                              "--seed", "3", "--out", str(out), *extra], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        outs[stage] = np.load(out / "dq.npy")
    assert outs["pgpu"].shape == outs["kir"].shape
    np.testing.assert_allclose(outs["pgpu"], outs["kir"], rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("shape", [dict(H=1, S=1, D=3), dict(H=2, S=19, D=5)])
def test_triton_matches_kir(tmp_path_factory, monkeypatch, shape):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path_factory.mktemp("cache")))
    launch = dq_rows_f16._launcher({}, {"TILE_1": 16, "TILE_2": 16, "TILE_3": 16, "TILE_K": 16})
    ref = dq_rows_f16.run_interp(shape, {"scale": 0.25}, None, seed=7)
    args = [torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("q", "k", "v", "do", "lse", "delta")]
    out = torch.full((shape["H"], shape["S"], shape["D"]), float("nan"), dtype=torch.float32)
    launch(*args, out, scale=0.25)
    np.testing.assert_allclose(out.numpy(), np.array(ref["dq"]), rtol=2e-2, atol=2e-2)
