"""Blocked region folds (issue 13): attention in its variants, constructed on fragments, narrowed
and realized as loops, on the pgpu interpreter after the whole shared pipeline against the KIR
interpreter, at odd shapes (S != T, S = 1, T = 1, T = 0, extents that are no multiple of any block,
head dims that are not powers of two) with small block bindings, including a free axis longer
than its block (the element-wise fallback) and one exactly its block (the unmasked variant).

The variants are the DSL kernels of bench/attention_kernels.py: causal and full, a sliding window
(two coordinate predicates: all-false prefix and suffix), an additive bias source that varies with
the lanes, grouped-query heads (a key/value head computed from the query head).
"""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

# The shared pipeline up to the last shared group (the same definition tessel compiles with).
PIPELINE = ["--tessel-pipeline=stop-after=realize-folds"]


def attention_kernels(root):
    """bench/attention_kernels.py, loaded by its path: bench/ put on sys.path would stay there for the
    rest of the worker, where a later `import attention` (test_tiles) would find bench/attention.py."""
    if "attention_kernels" not in sys.modules:
        spec = importlib.util.spec_from_file_location("attention_kernels", root / "bench" / "attention_kernels.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["attention_kernels"] = module
    return sys.modules["attention_kernels"]


def kernels(root):
    AK = attention_kernels(root)
    import tessel.language as T
    return {"attention": AK.attention(T.f16, name="fold_attention"),
            "window": AK.window_attention(T.f16, name="fold_window"),
            "bias": AK.bias_attention(T.f16, name="fold_bias"),
            "gqa": AK.gqa_attention(T.f16, name="fold_gqa")}


CASES = [
    ("attention", {"CAUSAL": True}, {"B": 2, "H": 1, "S": 37, "T": 70, "D": 16}, {"BLOCK_D": 16}),
    ("attention", {"CAUSAL": False}, {"B": 2, "H": 1, "S": 37, "T": 70, "D": 16}, {"BLOCK_D": 16}),
    ("attention", {"CAUSAL": True}, {"B": 1, "H": 2, "S": 1, "T": 1, "D": 5}, {"BLOCK_D": 16}),
    ("attention", {"CAUSAL": True}, {"B": 1, "H": 1, "S": 29, "T": 1, "D": 40}, {"BLOCK_D": 64}),
    ("attention", {"CAUSAL": False}, {"B": 1, "H": 1, "S": 3, "T": 0, "D": 4}, {"BLOCK_D": 16}),
    ("attention", {"CAUSAL": True}, {"B": 1, "H": 1, "S": 53, "T": 41, "D": 96}, {"BLOCK_D": 128}),
    ("attention", {"CAUSAL": True}, {"B": 1, "H": 1, "S": 19, "T": 33, "D": 40}, {"BLOCK_D": 16}),  # fallback
    ("window", {"W": 5}, {"B": 2, "H": 1, "S": 37, "T": 70, "D": 16}, {"BLOCK_D": 16}),
    ("window", {"W": 40}, {"B": 1, "H": 1, "S": 70, "T": 70, "D": 16}, {"BLOCK_D": 16}),
    ("bias", {}, {"B": 1, "H": 2, "S": 37, "T": 70, "D": 16}, {"BLOCK_D": 16}),
    ("gqa", {"GROUP": 2}, {"B": 1, "H": 4, "G": 2, "S": 37, "T": 70, "D": 16}, {"BLOCK_D": 16}),
]


@pytest.mark.parametrize("name,constexprs,shapes,params", CASES,
                         ids=[f"{c[0]}-{'-'.join(f'{k}{v}' for k, v in c[2].items())}-{c[1]}" for c in CASES])
def test_blocked_fold_matches_kir(tessel_bin, root, tmp_path, name, constexprs, shapes, params):
    check_against_kir(tessel_bin, root, tmp_path, name, constexprs, shapes, params, 0.35)


@pytest.mark.parametrize("scale", [-0.35, 0.0, 1e-12, 5e9])
@pytest.mark.parametrize("name,constexprs,shapes,params", [CASES[0], CASES[-1]], ids=["causal", "gqa"])
def test_scales_outside_the_factored_window_match_kir(tessel_bin, root, tmp_path, name, constexprs, shapes,
                                                      params, scale):
    """pgpu-factor-reductions factors the scores' scale out of their row maximum only for a scale in
    [2^-32, 2^32] (a launch fact); a negative, zero, tiny or huge scale runs the maximum as written."""
    check_against_kir(tessel_bin, root, tmp_path, name, constexprs, shapes, params, scale)


def check_against_kir(tessel_bin, root, tmp_path, name, constexprs, shapes, params, scale):
    kernel = kernels(root)[name]
    source = kernel._write(tmp_path, constexprs)
    shape = ",".join(f"{k}={v}" for k, v in shapes.items())
    scalars = ["--scalar", f"scale={scale}"]
    kir = tmp_path / "kir"
    subprocess.run([str(tessel_bin), "run", str(source), "--stage", "kir", "--shape", shape, "--seed", "4",
                    "--segments=random", "--out", str(kir), *scalars], check=True, capture_output=True)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    text = program.read_text()
    assert "pgpu.contract" in text and "pgpu.region_fold" not in text  # kept structured, then realized
    if name == "attention" or name == "gqa":  # the scores' maximum factored on the scale's window
        assert "pgpu.cmp ge %scale" in text, text
    # pgpu-reciprocal-divisors (relaxed_normalization): acc / den divides once per row, not per lane.
    assert not [ln for ln in text.splitlines() if "pgpu.binary div" in ln and "BLOCK_D]>" in ln], text
    binding = {"BLOCK_S": 16, "BLOCK_T": 16, **params}
    out = tmp_path / "pgpu"
    res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--seed", "4", "--order",
                          "shuffle", "--out", str(out), *scalars,
                          *[f"--param={k}={v}" for k, v in binding.items()]], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    want, got = np.load(kir / "O.npy"), np.load(out / "O.npy")
    # numerics = relaxed_normalization: the weights are rounded to f16 for the value contraction.
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-3, atol=1e-3)


def test_online_rescale_and_base2_fire_on_attention(tessel_bin, root, tmp_path):
    """The FlashAttention-2 form is reached from the user's summarizer and combine: after the
    pipeline the tile is exponentiated (in base 2) against the combined maximum, its P.V
    contraction accumulates into the rescaled carry, and no [rows, D] rescaling of the tile's
    summary is left (seed 002 §4)."""
    source = kernels(root)["attention"]._write(tmp_path, {"CAUSAL": True})
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE], capture_output=True,
                         text=True)
    assert opt.returncode == 0, opt.stderr
    text = opt.stdout
    assert "pgpu.unary exp2" in text and "pgpu.unary exp " not in text.split("pgpu.range_reduce")[0]
    # The all-true loop's value contraction takes the rescaled carry as its accumulator.
    # (the first loop with contractions: pgpu-pair-blocks may wrap the body in its pair loop first)
    loop = next(part for part in text.split("pgpu.for")[1:] if "pgpu.contract" in part)
    contracts = [ln for ln in loop.splitlines() if "pgpu.contract" in ln]
    assert len(contracts) == 2
    acc = contracts[1].split("pgpu.contract")[1].split(",")[2].split()[0]
    definition = next(ln for ln in loop.splitlines() if ln.strip().startswith(acc + " ="))
    assert "pgpu.binary mul" in definition, definition


def test_base2_reaches_biased_scores(tessel_bin, root, tmp_path):
    """Scores with an additive bias (q.k * scale + bias) are exponentiated in base 2 too: the sum joins
    the reference domain; the bias tile is a fragment leaf, so the domain stays unscaled and log2(e)
    joins each exponentiated difference (pgpu-exp-base2's difference form, seed 002 §4); no base-e
    exponential is left anywhere in the kernel."""
    source = kernels(root)["bias"]._write(tmp_path, {})
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE], capture_output=True,
                         text=True)
    assert opt.returncode == 0, opt.stderr
    assert "pgpu.unary exp2" in opt.stdout and "pgpu.unary exp " not in opt.stdout


def test_free_axis_default_covers_head_dim(root):
    """BLOCK_D declares that it covers the head dimension D: a call's default binds the smallest
    candidate at least D (the mask-free variant when equal), keeping the declared default when D
    exceeds every candidate."""
    import tessel.language as T
    AK = attention_kernels(root)
    import torch
    k = AK.attention(T.f16, name="covers_attention")
    src = k.source("triton", {"CAUSAL": True}, {})
    assert "covers_attention_COVERS = {'BLOCK_D': 'D'}" in src
    # D = 40 in BLOCK_D = 64 pads the head dimension: TMA's call default is on there (its zero fill).
    for d, want in ((40, {"BLOCK_D": 64, "TMA": 1}), (64, {"BLOCK_D": 64}), (16, {"BLOCK_D": 16}), (128, None),
                    (300, None)):
        views = [torch.empty(1, 1, 3, d, dtype=torch.float16) for _ in range(4)]
        # FOLD_SPLIT's call default (test_split_folds) is a separate fact of the same call.
        # PAIR_BLOCKS too (test_pair_blocks): at 3 queries the fold has one tile, so it is not split and
        # the few programs pair their blocks. LOOP_STAGES too (test_pipelined_walks: a launch with fewer
        # programs than SMs pipelines its walk deeper).
        chosen = {n: v for n, v in (k._fact_params({"CAUSAL": True}, views) or {}).items()
                  if n not in ("FOLD_SPLIT", "PAIR_BLOCKS", "LOOP_STAGES")}
        assert (chosen or None) == want, d
