"""The call's default tile and schedule of a blocked fold (python/tessel/_fold_tiles.py, issue 43 items 1,
3 and 4) from facts the compiler exports:

  * `<kernel>_FOLD_TILES` (the Triton serializer): the tiles each program's walk steps through, counted
    here against the visibility predicate's key ranges (causal, a constexpr window) at odd shapes and
    block sizes; None where a runtime width bounds the walk;
  * the binding an untuned call takes at every row of issue 43 / README's session-23 table (meta tensors:
    no GPU), which is the swept best measured there, and decode's fold split kept;
  * the kernels at the new bindings (128/128/8/2, paired; 64/64/4/3 in the Triton spelling) against the
    KIR interpreter at odd shapes on random inputs (TRITON_INTERPRET=1 runs the Triton spelling; the
    Gluon spelling runs on a GPU only).
"""
import os

import numpy as np
import pytest

from conftest import load_bench

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)


def kernels():
    return load_bench("attention_kernels")


def module_of(kernel, constexprs):
    """The generated module's names (the declared defaults' launcher)."""
    return kernel._launcher(constexprs, None).__globals__


def walks(mod, name, shapes, block_s, block_t, d_block):
    """[tiles walked by each query block] from `<kernel>_FOLD_TILES` over the group's query-block axis."""
    import torch
    views = {"Q": torch.empty(1, 1, shapes["S"], shapes["D"], device="meta"),
             "K": torch.empty(1, 1, shapes["T"], shapes["D"], device="meta")}
    p = {"BLOCK_S": block_s, "BLOCK_T": block_t, "BLOCK_D": d_block, "FOLD_SPLIT": 1, "PAIR_BLOCKS": 1}
    extents = mod[f"{name}_GROUP_EXTENTS"](p, views)
    assert mod[f"{name}_FOLD_AXES"] == (2, 3)  # the query block, the fold split's segment
    return sorted(mod[f"{name}_FOLD_TILES"](p, views, (0, 0, j, 0)) for j in range(extents[2]))


def expected(S, T, block_s, block_t, lo_of, hi_of):
    """[key tiles covering the keys visible to a query block's rows]: the visible range clamped to the keys
    [0, T), then rounded out to whole tiles (a narrowed range walks every tile in between; a range that
    clamps empty inside a tile, a band past the last key, still walks that masked tile)."""
    out = []
    for s0 in range(0, S, block_s):
        rows = range(s0, min(s0 + block_s, S))
        lo = min(max(min(lo_of(s) for s in rows), 0), T)
        hi = min(max(max(hi_of(s) for s in rows), lo), T)
        out.append(max(-(-hi // block_t) - lo // block_t, 0))
    return sorted(out)


SIZES = [(1, 1), (67, 67), (131, 97), (1031, 1031), (200, 64)]
BLOCKS = [(64, 64, 64), (128, 128, 128), (32, 64, 128), (128, 32, 64)]


@pytest.mark.parametrize("S,T", SIZES)
@pytest.mark.parametrize("block_s,block_t,d_block", BLOCKS)
def test_walks_follow_the_visible_keys(tmp_path, monkeypatch, S, T, block_s, block_t, d_block):
    import tessel.language as T_
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    AK = kernels()
    shapes = {"S": S, "T": T, "D": d_block}
    causal = module_of(AK.attention(T_.bf16, name="walk_causal"), {"CAUSAL": True})
    assert walks(causal, "walk_causal", shapes, block_s, block_t, d_block) == \
        expected(S, T, block_s, block_t, lambda s: 0, lambda s: s + 1)
    W = 40  # an odd width: bands that start inside a tile
    window = module_of(AK.window_attention(T_.bf16, name="walk_window"), {"W": W})
    assert walks(window, "walk_window", shapes, block_s, block_t, d_block) == \
        expected(S, T, block_s, block_t, lambda s: s - W + 1, lambda s: s + 1)


def test_walks_absent_or_unknown(tmp_path, monkeypatch):
    """Full attention walks every key tile alike (no FOLD_TILES: the rule counts the fold's tiles); a
    runtime window's walk reads a kernel scalar, unknown to a call's default."""
    import tessel.language as T_
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    AK = kernels()
    full = module_of(AK.attention(T_.bf16, name="walk_full"), {"CAUSAL": False})
    assert "walk_full_FOLD_TILES" not in full
    runtime = module_of(AK.runtime_window_attention(T_.bf16, name="walk_runtime"), {})
    assert runtime["walk_runtime_FOLD_TILES"] is None


def meta(*shape):
    import torch
    return torch.empty(shape, dtype=torch.bfloat16, device="meta")


BIG = {"BLOCK_S": 128, "BLOCK_T": 128, "WARPS": 8, "STAGES": 2, "GLUON": 1}
DEFAULTS = {"BLOCK_S": 64, "BLOCK_T": 64, "WARPS": 4, "STAGES": 2, "GLUON": 1}
# (form, B, H, S, T, D, the binding; PAIR_BLOCKS where declared): README's session-23 table, the swept best
# (defaults where they were the best).
ROWS = [
    ("causal", 4, 32, 4096, 4096, 128, {**BIG, "PAIR_BLOCKS": 2}),      # 591 (defaults 507)
    ("full", 4, 32, 4096, 4096, 128, BIG),                             # 691 (576)
    ("causal", 1, 32, 16384, 16384, 128, {**BIG, "PAIR_BLOCKS": 1}),   # 709 (584)
    ("full", 1, 32, 16384, 16384, 128, BIG),                           # 655 (539)
    ("causal", 16, 16, 1024, 1024, 64, {**DEFAULTS, "STAGES": 3, "GLUON": 0, "PAIR_BLOCKS": 1}),  # 209 (198)
    ("full", 16, 16, 1024, 1024, 64, BIG),                             # 333 (289)
    ("causal", 1, 4, 4099, 4099, 96, {**BIG, "PAIR_BLOCKS": 1, "TMA": 1}),  # 199 (189)
    ("window", 4, 32, 4096, 4096, 128, {**DEFAULTS, "PAIR_BLOCKS": 1}),    # 221 = defaults
    # 384 = defaults; GLUON declared off by default (the bias tile read with pointers): the rule moves nothing
    ("bias", 4, 32, 4096, 4096, 128, {"BLOCK_S": 128, "BLOCK_T": 64, "WARPS": 8, "STAGES": 3, "GLUON": 0}),
    ("gqa", 4, 32, 4096, 4096, 128, {**BIG, "PAIR_BLOCKS": 2}),         # 608 (521)
    ("runtime_window", 4, 32, 4096, 4096, 128, {**DEFAULTS, "PAIR_BLOCKS": 1}),  # unknown walk: defaults
]


def make(AK, form, dt):
    return {"causal": AK.attention, "full": AK.attention, "window": AK.window_attention, "bias": AK.bias_attention,
            "gqa": AK.gqa_attention, "runtime_window": AK.runtime_window_attention}[form](dt, name=f"rule_{form}")


def views(form, B, H, S, T, D):
    kv = H // 4 if form == "gqa" else H
    out = [meta(B, H, S, D), meta(B, kv, T, D), meta(B, kv, T, D)]
    return out + [meta(H, S, T)] * (form == "bias") + [meta(B, H, S, D)]


def constexprs(form):
    return {"CAUSAL": form == "causal"} if form in ("causal", "full") else {}


@pytest.mark.parametrize("row", ROWS, ids=[f"{r[0]}-B{r[1]}H{r[2]}S{r[3]}D{r[5]}" for r in ROWS])
def test_first_call_takes_the_swept_best(tmp_path, monkeypatch, row):
    import tessel.language as T_
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    form, B, H, S, T, D, want = row
    kernel = make(kernels(), form, T_.bf16)
    got = kernel._call_defaults(constexprs(form), views(form, B, H, S, T, D))
    assert {k: got[k] for k in want} == want, got
    assert got["FOLD_SPLIT"] == 1


@pytest.mark.parametrize("B,H,T,split", [(8, 32, 32768, 1), (1, 32, 32768, 8), (1, 8, 4099, 32)])
def test_decode_keeps_its_tiles_and_split(tmp_path, monkeypatch, B, H, T, split):
    """Decode (one query row): the query tile has no rows to grow into, so the tiles stay and pgpu-split-
    folds' call default splits the keys where the programs (B x H) are fewer than the multiprocessors."""
    import tessel.language as T_
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = make(kernels(), "full", T_.bf16)
    got = kernel._call_defaults({"CAUSAL": False}, views("full", B, H, 1, T, 128))
    assert {k: got[k] for k in DEFAULTS} == DEFAULTS and got["FOLD_SPLIT"] == split, got


def test_rule_reads_facts_not_names(tmp_path, monkeypatch):
    """Corpus 79 names its key tile BLOCK_S_ (both axes extend over S): the rule finds the program tile
    and the walk's tile by what they change, and grows both."""
    import importlib.util
    import pathlib
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    path = pathlib.Path(__file__).resolve().parents[2] / "bench" / "corpus" / "79_alibi_causal_attention.py"
    spec = importlib.util.spec_from_file_location("corpus79", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import torch
    q = torch.empty(4, 32, 4096, 128, dtype=torch.float16, device="meta")
    got = mod.KERNEL._call_defaults({}, [q, q, q, q])
    assert (got["BLOCK_S"], got["BLOCK_S_"], got["WARPS"], got["PAIR_BLOCKS"]) == (128, 128, 8, 2), got


# Odd shapes: S != T, S = 1, T = 0, neither a multiple of any block; D = 40, 64 and 96.
SHAPES = [{"B": 1, "H": 2, "S": 37, "T": 70, "D": 40},
          {"B": 2, "H": 1, "S": 1, "T": 1, "D": 64},
          {"B": 1, "H": 1, "S": 131, "T": 197, "D": 96},
          {"B": 1, "H": 1, "S": 5, "T": 0, "D": 64}]
BINDINGS = [{**BIG, "PAIR_BLOCKS": 2}, BIG, {**DEFAULTS, "STAGES": 3, "GLUON": 0}]


@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
@pytest.mark.parametrize("binding", BINDINGS, ids=["big-paired", "big", "small-triton"])
@pytest.mark.parametrize("form", ["causal", "window"])
def test_new_bindings_match_kir(tmp_path, monkeypatch, shapes, binding, form):
    torch = pytest.importorskip("torch")
    import tessel.language as T_
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = make(kernels(), form, T_.f16)  # f16: the CPU interpreter's bf16 is broken
    ce = {"CAUSAL": True} if form == "causal" else {"W": 45}
    ref = kernel.run_interp(shapes, {"scale": 0.35}, ce, seed=11, segments="random")
    q, k, v = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("Q", "K", "V"))
    o = torch.full((shapes["B"], shapes["H"], shapes["S"], shapes["D"]), float("nan"), dtype=torch.float16)
    params = {**binding, "BLOCK_D": 64 if shapes["D"] <= 64 else 128}
    kernel._launcher(ce, params)(q, k, v, o, scale=0.35)
    np.testing.assert_allclose(o.double().numpy(), np.array(ref["O"]).astype(np.float64), rtol=2e-3, atol=2e-3)


def test_gluon_declared_off_moves_nothing(tmp_path, monkeypatch):
    """Corpus 19 (document-masked attention: a doc-id tile read beside the K and V streams) declares GLUON off
    by default (TritonLegalize.cpp declareGluon: that tile read with pointers, unmeasured): rule 1a does not
    hold, so its call keeps the declared Triton binding (64/64/4/3), not the grown Gluon one (128/128/8/2)."""
    import importlib.util
    import pathlib
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    path = pathlib.Path(__file__).resolve().parents[2] / "bench" / "corpus" / "19_document_attention.py"
    spec = importlib.util.spec_from_file_location("corpus19", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import torch
    q = torch.empty(2, 16, 8192, 128, dtype=torch.float16, device="meta")
    doc = torch.empty(2, 8192, dtype=torch.int32, device="meta")
    got = mod.KERNEL._call_defaults({}, [q, q, q, doc, q])
    assert (got["BLOCK_S"], got["BLOCK_S_"], got["WARPS"], got["STAGES"], got["GLUON"]) == (64, 64, 4, 3, 0), got
