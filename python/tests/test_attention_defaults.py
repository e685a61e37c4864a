"""Attention's per-score work and default binding (issue 13, session 11), against the KIR interpreter
on random nonzero inputs (random KIR segmentations):

  * pgpu-exp-base2's difference form: scores with an additive bias tile (a fragment leaf) stay
    unscaled and log2(e) joins each exponentiated difference (one multiply-add a score), in the
    generated Triton under TRITON_INTERPRET=1 (f16: the CPU interpreter's bf16 is broken) at the
    call's defaults and with the fold split across programs (the stored maximum is unscaled);
  * the lane-block default (TritonLegalize chooseLaneDefaults): the bias kernel's iteration loads
    more than 256 bytes a thread at 64 query rows and 4 warps, so its declared default is 128 rows and
    8 warps; attention without the bias tile keeps 64 and 4;
  * pgpu-pair-blocks (PAIR_BLOCKS = 2: a program runs query blocks j and N-1-j where the key ranges
    narrow along the query blocks): the pgpu interpreter after the Triton pipeline (shuffled program
    order; odd and even block counts, the middle block paired with itself; with and without the fold
    split) and the generated Triton under TRITON_INTERPRET=1; the call's default pairs small launches.
"""
import subprocess
import os

import numpy as np
import pytest

from conftest import load_bench

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)


def kernels(root):
    """bench/attention_kernels.py (conftest.load_bench)."""
    return load_bench("attention_kernels")


def test_lane_default_grows_only_with_the_bias_tile(root, monkeypatch, tmp_path):
    import tessel.language as T
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    AK = kernels(root)
    bias = AK.bias_attention(T.bf16, name="lanes_bias")._space({})
    assert (bias["BLOCK_S"][1], bias["WARPS"][1]) == (128, 8)
    for make, ce in ((AK.attention, {"CAUSAL": True}), (AK.window_attention, {}), (AK.gqa_attention, {})):
        space = make(T.bf16, name="lanes_" + make.__name__)._space(ce)
        assert (space["BLOCK_S"][1], space["WARPS"][1]) == (64, 4), make.__name__


def test_biased_scores_take_the_difference_form(root, monkeypatch, tmp_path):
    """On the blocked path the scores' scale is spread unscaled over the [rows, keys] tile (the domain
    stays in natural units) and the scores are multiplied by log2(e) in each exponentiated difference;
    the exponentials are exp2. (The element-wise fallback's bias is a scalar leaf: the scaled form.)"""
    import re
    import tessel.language as T
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    src = kernels(root).bias_attention(T.f16, name="form_bias").source("triton", {}, {})
    assert "tl.exp2(" in src and "tl.exp(" not in src
    assert re.search(r"= tl\.full\(\[128, 64\], 0, tl\.float32\) \+ scale\n", src)
    assert not re.search(r"= scale \* tl\.full\(\[\], 1\.4426950216293335e\+00, tl\.float32\)\n\s+v\d+ = "
                         r"tl\.full\(\[128, 64\], 0,", src)
    assert re.search(r"= tl\.full\(\[128, 64\], 0, tl\.float32\) \+ tl\.full\(\[\], 1\.4426950216293335e\+00", src)


# Odd shapes: S != T, S = 1, T = 1, T not a multiple of any block, S above one 128-row block, D = 40 and 96.
SHAPES = [{"B": 1, "H": 2, "S": 37, "T": 70, "D": 40},
          {"B": 2, "H": 1, "S": 1, "T": 1, "D": 16},
          {"B": 1, "H": 1, "S": 131, "T": 97, "D": 96},
          {"B": 1, "H": 1, "S": 5, "T": 0, "D": 8}]


@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
@pytest.mark.parametrize("split", [None, 2], ids=["defaults", "split2"])
def test_triton_bias_matches_kir(root, tmp_path, monkeypatch, shapes, split):
    torch = pytest.importorskip("torch")
    import tessel.language as T
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = kernels(root).bias_attention(T.f16, name="diff_bias")
    ref = kernel.run_interp(shapes, {"scale": 0.35}, {}, seed=3, segments="random")
    q, k, v, b = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("Q", "K", "V", "Bias"))
    o = torch.full((shapes["B"], shapes["H"], shapes["S"], shapes["D"]), float("nan"), dtype=torch.float16)
    if split is None:
        kernel(q, k, v, b, o, scale=0.35)  # the call's defaults: 128 query rows, BLOCK_D covering D
    else:
        params = {"BLOCK_S": 16, "BLOCK_T": 16, "BLOCK_D": 128 if shapes["D"] > 64 else 64, "FOLD_SPLIT": split}
        kernel._launcher({}, params)(q, k, v, b, o, scale=0.35)
    np.testing.assert_allclose(o.double().numpy(), np.array(ref["O"]).astype(np.float64), rtol=2e-3, atol=2e-3)


PIPELINE = ["--tessel-pipeline=stop-after=realize-folds"]
PAIR_CASES = [  # BLOCK_S = 16: S = 37 is 3 blocks (the middle one alone), 53 is 4, 70 is 5, 1 is 1
    ("attention", {"CAUSAL": True}, {"B": 2, "H": 1, "S": 37, "T": 70, "D": 16}, {"BLOCK_D": 16}),
    ("attention", {"CAUSAL": True}, {"B": 1, "H": 1, "S": 53, "T": 41, "D": 96}, {"BLOCK_D": 128}),
    ("attention", {"CAUSAL": True}, {"B": 1, "H": 2, "S": 1, "T": 1, "D": 5}, {"BLOCK_D": 16}),
    ("attention", {"CAUSAL": True}, {"B": 1, "H": 1, "S": 19, "T": 33, "D": 40}, {"BLOCK_D": 16}),  # fallback
    ("window", {"W": 5}, {"B": 1, "H": 1, "S": 70, "T": 70, "D": 16}, {"BLOCK_D": 16}),
    ("gqa", {"GROUP": 2}, {"B": 1, "H": 4, "G": 2, "S": 37, "T": 70, "D": 16}, {"BLOCK_D": 16}),
]


@pytest.mark.parametrize("split", [1, 2])
@pytest.mark.parametrize("name,constexprs,shapes,params", PAIR_CASES,
                         ids=[f"{c[0]}-{'-'.join(f'{k}{v}' for k, v in c[2].items())}" for c in PAIR_CASES])
def test_paired_blocks_match_kir(tessel_bin, root, tmp_path, name, constexprs, shapes, params, split):
    import tessel.language as T
    AK = kernels(root)
    make = {"attention": AK.attention, "window": AK.window_attention, "gqa": AK.gqa_attention}[name]
    kernel = make(T.f16, name="pair_" + name)
    source = kernel._write(tmp_path, constexprs)
    shape = ",".join(f"{k}={v}" for k, v in shapes.items())
    scalars = ["--scalar", "scale=0.35"]
    kir = tmp_path / "kir"
    subprocess.run([str(tessel_bin), "run", str(source), "--stage", "kir", "--shape", shape, "--seed", "5",
                    "--segments=random", "--out", str(kir), *scalars], check=True, capture_output=True)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    assert 'pgpu.param "PAIR_BLOCKS"' in program.read_text()
    binding = {"BLOCK_S": 16, "BLOCK_T": 16, "PAIR_BLOCKS": 2, "FOLD_SPLIT": split, **params}
    out = tmp_path / "pgpu"
    res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--seed", "5", "--order",
                          "shuffle", "--out", str(out), *scalars,
                          *[f"--param={k}={v}" for k, v in binding.items()]], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    want, got = np.load(kir / "O.npy"), np.load(out / "O.npy")
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("shapes", [{"B": 1, "H": 2, "S": 37, "T": 70, "D": 16},
                                    {"B": 1, "H": 1, "S": 53, "T": 41, "D": 96},
                                    {"B": 2, "H": 1, "S": 1, "T": 1, "D": 16}],
                         ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
@pytest.mark.parametrize("split", [1, 2])
def test_triton_paired_blocks_match_kir(root, tmp_path, monkeypatch, shapes, split):
    torch = pytest.importorskip("torch")
    import tessel.language as T
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = kernels(root).attention(T.f16, name="pair_triton")
    params = {"BLOCK_S": 16, "BLOCK_T": 16, "BLOCK_D": 128 if shapes["D"] > 64 else 16, "PAIR_BLOCKS": 2,
              "FOLD_SPLIT": split}
    src = kernel.source("triton", {"CAUSAL": True}, params)
    assert "in range(0, 2, 1):" in src
    ref = kernel.run_interp(shapes, {"scale": 0.35}, {"CAUSAL": True}, seed=6, segments="random")
    q, k, v = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("Q", "K", "V"))
    o = torch.full((shapes["B"], shapes["H"], shapes["S"], shapes["D"]), float("nan"), dtype=torch.float16)
    kernel._launcher({"CAUSAL": True}, params)(q, k, v, o, scale=0.35)
    np.testing.assert_allclose(o.double().numpy(), np.array(ref["O"]).astype(np.float64), rtol=2e-3, atol=2e-3)


def test_pair_default_on_small_causal_launches(root, monkeypatch, tmp_path):
    """PAIR_BLOCKS's call default: 2 on a causal launch of at most 4 programs a multiprocessor (132
    assumed off the GPU) whose folds are not split; 1 on large launches; not declared without narrowing.
    Where the fold's tile grows (python/tessel/_fold_tiles.py) that rule decides instead: B1 H4 S4099 D96
    at 128-row tiles is 132 programs, one a multiprocessor, unpaired (199 TFLOP/s against 188 paired,
    session 23); B4 H32 S4096 D128 walks 16.5 tiles a program on 31 waves, paired (591 against 586)."""
    torch = pytest.importorskip("torch")
    import tessel.language as T
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = kernels(root).attention(T.bf16, name="pair_default")
    for (b, h, s, d), causal, want in (((1, 4, 4099, 96), True, None), ((4, 32, 4096, 128), True, 2),
                                       ((1, 4, 4096, 128), True, 2),  # 64-row tiles (128 programs at 128): 256
                                       ((1, 32, 16384, 128), True, None), ((1, 4, 4099, 96), False, None)):
        q = torch.empty(b, h, s, d, dtype=torch.bfloat16, device="meta")
        got = (kernel._fact_params({"CAUSAL": causal}, [q, q, q, q]) or {}).get("PAIR_BLOCKS")
        assert got == want, (b, h, s, d, causal, got)
    # decode: the fold split spreads the keys instead; one query block has nothing to pair.
    q = torch.empty(1, 32, 1, 128, dtype=torch.bfloat16, device="meta")
    kv = torch.empty(1, 32, 32768, 128, dtype=torch.bfloat16, device="meta")
    chosen = kernel._fact_params({"CAUSAL": True}, [q, kv, kv, q]) or {}
    assert chosen.get("FOLD_SPLIT") == 8 and "PAIR_BLOCKS" not in chosen


def test_tma_default_where_a_box_pads_the_view(root, monkeypatch, tmp_path):
    """TMA (declared off for attention's fixed-axis boxes) is the call default when BLOCK_D is wider than
    D (96 in 128: the descriptor's zero fill replaces every load's mask), not at an exact fit."""
    torch = pytest.importorskip("torch")
    import tessel.language as T
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = kernels(root).attention(T.bf16, name="tma_default")
    assert kernel._space({"CAUSAL": True}, "triton")["TMA"][1] == 0
    for (b, h, s, d), want in (((1, 4, 4099, 96), 1), ((1, 4, 4099, 40), 1), ((16, 16, 1024, 64), None),
                               ((4, 32, 4096, 128), None)):
        q = torch.empty(b, h, s, d, dtype=torch.bfloat16, device="meta")
        got = (kernel._fact_params({"CAUSAL": True}, [q, q, q, q]) or {}).get("TMA")
        assert got == want, (b, h, s, d, got)


def _corpus(name):
    import sys
    import pathlib
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench" / "corpus"))
    import _harness
    return _harness, _harness.load(name)


def test_head_size_256_keeps_64_query_rows():
    """A fold over head size 256 (corpus 280, gated grouped-query attention): its 64 x 256 f32
    accumulator a warpgroup is 128 registers a thread plus its rows' statistics, within the carried
    state's budget (Resources.cpp carriedStateLimit), so the call keeps 64 query rows (warpgroup MMA
    tiles them; 32, where the bound had sent it, runs the Triton kernel's mma.sync) and its Gluon
    spelling's consumer stays uncapped (a cap of 128 registers is refused by ptxas). Must not fire
    past it: 128 rows over one warpgroup stay pruned."""
    H, mod = _corpus("280_gated_output_attention")
    shape = dict(B=1, HQ=4, HKV=1, S=300, D=256)
    views, kw = H.torch_args(mod, shape, H.draw(mod, shape, 3), "cpu")
    got = mod.KERNEL.call_defaults(*views, **kw)
    assert (got["BLOCK_S"], got["BLOCK_D"], got["WARPS"]) == (64, 256, 4)
    src = mod.KERNEL.source("triton", {}, {n: int(v) for n, v in got.items()})
    assert "_gated_output_attention_gluon if" in src and "maxnreg" not in src
    # The PRUNE function alone (plain Python; the module's @jit functions need a file of their own).
    text = "def gated_output_attention_PRUNE" + src.split("def gated_output_attention_PRUNE")[1].split("\n\n\n")[0]
    generated = {}
    exec(text, generated)
    prune = generated["gated_output_attention_PRUNE"]
    binding = {n: int(v) for n, v in got.items()}
    assert prune(binding) is None
    assert prune({**binding, "BLOCK_S": 128, "BLOCK_S_": 16}) == "registers"  # shared memory fits there


_SLOW_256 = pytest.mark.deep(reason="Triton's CPU interpreter over 64 x 256 tiles runs for many minutes; the "
                                    "one-key shape runs in the default tier")


@pytest.mark.parametrize("path, shape", [
    ("interp", dict(B=1, HQ=2, HKV=1, S=97, D=256)), ("interp", dict(B=1, HQ=3, HKV=3, S=1, D=256)),
    ("interp", dict(B=2, HQ=2, HKV=1, S=67, D=256)), ("triton", dict(B=1, HQ=3, HKV=3, S=1, D=256)),
    pytest.param("triton", dict(B=1, HQ=2, HKV=1, S=97, D=256), marks=_SLOW_256),
    pytest.param("triton", dict(B=2, HQ=2, HKV=1, S=67, D=256), marks=_SLOW_256)])
def test_head_size_256_matches_the_reference(path, shape):
    """The 64-row binding at head size 256, through the KIR interpreter and the generated Triton under
    TRITON_INTERPRET=1, against the NumPy reference on random nonzero inputs (odd lengths: a partial
    last query and key block, one key)."""
    H, mod = _corpus("280_gated_output_attention")
    assert H.check(mod, shape, 5, path) is None
