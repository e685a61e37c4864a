"""Blocked region scans (issue 16): linear attention's kir.region_scan constructed on fragments
(seed 002 §3.4 region-scan realization: the state carried across BLOCK_T source tiles, each tile
emitted from the state before it plus its masked intra-tile contraction), realized as a loop, against
the KIR interpreter on random nonzero inputs with random KIR segmentations:

  * the pgpu interpreter after every pipeline group and after the whole shared pipeline (shuffled
    program order), at T = 0, 1, primes and non-multiples of BLOCK_T, D and E that are not powers
    of two, the exact-fit variant (D = E = block), the padded one and the element-wise fallback
    (D above its block);
  * the generated Triton under TRITON_INTERPRET=1 (f32: the interpreter's bf16 tl.dot is wrong);
  * both realizations the tuner chooses between (SCAN_CHAIN, pgpu-chain-scans): the ordered loop in
    one program, and one program per segment with the state handed on through workspace;
  * the bf16 variant of bench/linear_attention.py (the user rounds the state and the masked scores
    to bf16), through the pgpu interpreter.
"""
import importlib.util
import os
import subprocess

import numpy as np
import pytest

from conftest import load_bench

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

PIPELINE_END = "realize-folds"

def shape_arg(shapes):
    return ",".join(f"{k}={v}" for k, v in shapes.items())


A = {"BLOCK_T": 16, "BLOCK_D": 16, "BLOCK_E": 32}
B = {"BLOCK_T": 32, "BLOCK_D": 16, "BLOCK_E": 16}
CASES = [
    ({"B": 1, "H": 2, "T": 0, "D": 4, "E": 3}, A),
    ({"B": 1, "H": 1, "T": 1, "D": 1, "E": 1}, B),
    ({"B": 2, "H": 1, "T": 13, "D": 5, "E": 7}, A),
    ({"B": 2, "H": 1, "T": 13, "D": 5, "E": 7}, B),
    ({"B": 1, "H": 2, "T": 37, "D": 16, "E": 16}, B),   # exact fit: D and E are their blocks
    ({"B": 1, "H": 2, "T": 37, "D": 16, "E": 16}, A),   # E padded
    ({"B": 2, "H": 3, "T": 53, "D": 3, "E": 17}, A),
    ({"B": 1, "H": 1, "T": 9, "D": 20, "E": 3}, A),     # D above BLOCK_D: the element-wise fallback
]


def run(cmd):
    res = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(map(str, cmd))}\n{res.stderr}"
    return res.stdout


def reference(tessel_bin, source, shapes, out, seed):
    run([tessel_bin, "run", source, "--stage", "kir", "--shape", shape_arg(shapes), "--seed", seed,
         "--segments=random", "--out", out])
    return {n: np.load(out / f"{n}.npy") for n in ("O", "S_OUT", "Z_OUT")}


def compare(got, want, rtol=1e-5, atol=1e-5):
    for n, w in want.items():
        np.testing.assert_allclose(got[n].astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol, err_msg=n)


@pytest.mark.parametrize("chain", [1, 2], ids=["ordered", "chained"])
@pytest.mark.parametrize("shapes,params", CASES,
                         ids=[f"{shape_arg(s)}-T{p['BLOCK_T']}D{p['BLOCK_D']}E{p['BLOCK_E']}" for s, p in CASES])
def test_blocked_scan_matches_kir(tessel_bin, root, tmp_path, shapes, params, chain):
    """SCAN_CHAIN = 1: one program walks the segments; 2: one program per segment, the state handed
    on through workspace (pgpu-chain-scans; a space that waits runs in linear order whatever --order says)."""
    source = root / "examples" / "kir" / "linear_attention.mlir"
    want = reference(tessel_bin, source, shapes, tmp_path / "kir", 5)
    program = tmp_path / "program.mlir"
    program.write_text(run([tessel_bin.parent / "tessel-opt", source, f"--tessel-pipeline=stop-after={PIPELINE_END}"]))
    text = program.read_text()
    # Constructed as a scan on fragments (then realized): its products stay contractions.
    assert "pgpu.region_scan" not in text and "pgpu.contract" in text
    assert '"SCAN_CHAIN"' in text and "order acquire" in text
    out = tmp_path / "pgpu"
    run([tessel_bin, "run", program, "--shape", shape_arg(shapes), "--seed", 5, "--order", "shuffle", "--out", out,
         *[f"--param={k}={v}" for k, v in {**params, "SCAN_CHAIN": chain}.items()]])
    compare({n: np.load(out / f"{n}.npy") for n in want}, want)


def test_every_group_keeps_the_scan(tessel_bin, root, tmp_path):
    """The pgpu interpreter after each pipeline group, at a prime T longer than one tile."""
    source = root / "examples" / "kir" / "linear_attention.mlir"
    shapes = {"B": 1, "H": 2, "T": 41, "D": 5, "E": 6}
    want = reference(tessel_bin, source, shapes, tmp_path / "kir", 7)
    for group in run([tessel_bin, "groups"]).split():
        program = tmp_path / f"{group}.mlir"
        program.write_text(run([tessel_bin.parent / "tessel-opt", source, f"--tessel-pipeline=stop-after={group}"]))
        out = tmp_path / f"{group}-out"
        declared = program.read_text()
        params = [f"--param={k}=16" for k in ("BLOCK_T", "BLOCK_D", "BLOCK_E") if f'"{k}"' in declared]
        run([tessel_bin, "run", program, "--shape", shape_arg(shapes), "--seed", 7, "--order", "shuffle", "--out", out,
             *params])
        compare({n: np.load(out / f"{n}.npy") for n in want}, want)


def bench_module(root):
    """bench/linear_attention.py (conftest.load_bench)."""
    return load_bench("linear_attention")


@pytest.mark.parametrize("shapes", [{"B": 1, "H": 2, "T": 37, "D": 5, "E": 7}, {"B": 1, "H": 1, "T": 64, "D": 16, "E": 16}],
                         ids=shape_arg)
def test_bf16_scan_matches_kir(tessel_bin, root, tmp_path, shapes):
    kernel = bench_module(root).kernel_for("bf16")
    source = kernel._write(tmp_path, {})
    target = f"{source}:{kernel.name}"
    want = reference(tessel_bin, target, shapes, tmp_path / "kir", 3)
    program = tmp_path / "program.mlir"
    program.write_text(run([tessel_bin.parent / "tessel-opt", source, f"--tessel-pipeline=stop-after={PIPELINE_END}"]))
    assert "pgpu.region_scan" not in program.read_text()
    out = tmp_path / "pgpu"
    run([tessel_bin, "run", program, "--shape", shape_arg(shapes), "--seed", 3, "--order", "shuffle", "--out", out,
         "--param=BLOCK_T=16", "--param=BLOCK_D=16", "--param=BLOCK_E=16"])
    got = {n: np.load(out / f"{n}.npy") for n in want}
    # The author rounds the incoming state to bf16 at each slice: the KIR run's random slices and the
    # tiles round at different places (a few bf16 ulps of |O| <= 1), then O is stored as bf16.
    compare({"O": got["O"]}, {"O": want["O"]}, rtol=0, atol=2e-2)
    compare({n: got[n] for n in ("S_OUT", "Z_OUT")}, {n: want[n] for n in ("S_OUT", "Z_OUT")})


@pytest.mark.parametrize("shapes", [{"B": 1, "H": 2, "T": 1, "D": 5, "E": 3}, {"B": 2, "H": 1, "T": 37, "D": 7, "E": 5},
                                    {"B": 1, "H": 1, "T": 48, "D": 16, "E": 16}], ids=shape_arg)
@pytest.mark.parametrize("chain", [1, 2], ids=["ordered", "chained"])
def test_triton_scan_matches_kir(root, tmp_path, monkeypatch, shapes, chain):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    spec = importlib.util.spec_from_file_location("example_linear_attention", root / "examples" / "linear_attention.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = module.linear_attention
    params = {"BLOCK_T": 16, "BLOCK_D": 16, "BLOCK_E": 16, "SCAN_CHAIN": chain}
    src = kernel.source("triton", {}, params)
    assert src.count("tl.dot(") >= 4  # the tile's transition, the state, the scores and their values
    # Both realizations are in the source, chosen by a launch guard on SCAN_CHAIN; the chained one
    # hands the state on by an acquire wait and a release of the per-point flag.
    assert "sem='acquire'" in src and "sem='release'" in src and f"bool(({chain} != 1))" in src
    ref = kernel.run_interp(shapes, seed=3, segments="random")
    q, k, v = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("Q", "K", "V"))
    B, H, T, D, E = (shapes[n] for n in "BHTDE")
    o, s, z = torch.empty(B, H, T, E), torch.empty(B, H, D, E), torch.empty(B, H, D)
    kernel._launcher({}, params)(q, k, v, o, s, z)
    compare({"O": o.numpy(), "S_OUT": s.numpy(), "Z_OUT": z.numpy()}, {n: ref[n] for n in ("O", "S_OUT", "Z_OUT")})


def meta_call(torch, dt, b, h, t, d=64, e=64):
    """Meta tensors (q, k, v, o, S, Z) of a linear attention call of `dt` (no device: 132 multiprocessors)."""
    dtype = torch.bfloat16 if dt == "bf16" else torch.float32
    q, v = (torch.empty(b, h, t, n, dtype=dtype, device="meta") for n in (d, e))
    return q, q, v, v, torch.empty(b, h, d, e, device="meta"), torch.empty(b, h, d, device="meta")


def test_call_defaults_at_the_bench_shape(root, tmp_path, monkeypatch):
    """What an untuned call binds at B=4 H=16 T=4096 D=E=64: the chain (SCAN_CHAIN 2, since the 64 ordered
    programs leave multiprocessors idle) everywhere; f32 with IEEE products (tl.dot's FMA path) takes the
    smallest scan tile, the tensor-core forms (TF32, bf16) keep 64; 4 warps each (one warpgroup per 64 rows)."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    bench = bench_module(root)
    rest = {"BLOCK_D": 64, "BLOCK_E": 64, "BLOCK": 512, "SCAN_CHAIN": 2, "WARPS": 4, "STAGES": 3, "TMA": 0}
    # (LOOP_STAGES, the walks' pipeline depth, from their buffers' bytes against the in-flight target:
    # f32 scan tiles of 64 rows leave room for one stage, the others for 3; pipelined-walks.mlir)
    for dt, tile, loop in (("f32", 16, 3), ("f32_tf32", 64, 1), ("bf16", 64, 3)):
        got = bench.kernel_for(dt).call_defaults(*meta_call(torch, dt, 4, 16, 4096))
        assert got == {"BLOCK_T": tile, **rest, "LOOP_STAGES": loop}, dt


@pytest.mark.parametrize("b,h,t,want", [(4, 16, 4096, 2), (1, 1, 17, 2), (8, 16, 4096, 2), (4, 33, 4096, 1), (8, 17, 4096, 1),
                                        (4, 16, 16, 1), (4, 16, 0, 1)])
def test_scan_chain_call_default(root, tmp_path, monkeypatch, b, h, t, want):
    """SCAN_CHAIN's call default: 2 while the ordered realization's programs (one per (b, h)) are fewer than
    the 132 multiprocessors and there is more than one segment (BLOCK_T 16 here) to chain, else 1."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = bench_module(root).kernel_for("f32")
    assert kernel.call_defaults(*meta_call(torch, "f32", b, h, t))["SCAN_CHAIN"] == want


def test_fma_operand_tiles_prune_registers(root, tmp_path, monkeypatch):
    """`<kernel>_PRUNE` counts an FMA-spelled contraction's operand tiles and accumulator (spread over the
    threads) against the register budget: f32 with IEEE products at BLOCK_T 64 with 2 warps (a 64x64 by
    64x64 product: 192 registers a thread; sm_90 ptxas spills 18.9 KB a thread) or 16 with 1 warp is
    pruned; 64 and 16 at 4 warps, 32 at 2, are measured. The tensor-core forms count no operand tiles."""
    pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    bench = bench_module(root)
    base = {"BLOCK_D": 64, "BLOCK_E": 64, "BLOCK": 512, "SCAN_CHAIN": 2, "STAGES": 2, "TMA": 0, "LOOP_STAGES": 1}

    def why(dt, tile, warps):
        return bench.kernel_for(dt)._prune({})({**base, "BLOCK_T": tile, "WARPS": warps})

    assert why("f32", 64, 2) == "registers" and why("f32", 16, 1) == "registers"
    assert why("f32", 64, 4) is None and why("f32", 16, 4) is None and why("f32", 32, 2) is None
    assert why("bf16", 64, 2) is None and why("f32_tf32", 64, 2) is None
