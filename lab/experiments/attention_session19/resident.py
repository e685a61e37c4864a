"""Resident programs (pgpu-persistent-folds, RESIDENT) on grouped-query causal attention, and the walk's
effect at the defaults:
  TESSEL_BIN=... python3 resident.py gen SUFFIX  (CPU)  -> mods/res_*SUFFIX.py
  python3 resident.py run  (the H200): each module checked against f32 SDPA, then all timed in alternation
  with SDPA's default over ROUNDS rounds (one JSON line)."""
import json
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[2] / "python"), str(HERE.parents[2] / "bench")]

GL = dict(BLOCK_S=128, BLOCK_T=128, WARPS=8, STAGES=2, GLUON=1, BLOCK_D=128, PAIR_BLOCKS=2)
GQA = {"gqa_tri": dict(BLOCK_S=64, BLOCK_T=64, WARPS=4, STAGES=3, BLOCK_D=128),
       "gqa_gl": GL, "gqa_gl_r1": dict(GL, RESIDENT=1), "gqa_gl_r2": dict(GL, RESIDENT=2)}
# B1 H4 S4099 D96 causal: the call's defaults there (BLOCK_D 128, TMA on for the padded head, paired blocks).
D96 = {"d96_tri": dict(BLOCK_D=128, TMA=1, PAIR_BLOCKS=2)}


def gen(suffix):
    import attention_kernels as ak
    from tessel import language as T
    (HERE / "mods").mkdir(exist_ok=True)
    gqa, att = ak.gqa_attention(T.bf16), ak.attention(T.bf16)
    for tag, params in GQA.items():
        if "RESIDENT" in params and suffix == "_old":
            continue
        (HERE / "mods" / f"res_{tag}{suffix}.py").write_text(gqa.source(params=params))
    for tag, params in D96.items():
        (HERE / "mods" / f"res_{tag}{suffix}.py").write_text(att.source("triton", {"CAUSAL": True}, params))


def run(rounds):
    import torch.nn.functional as F
    from run_one import checked, load, timed
    out = {"checked": {}, "TFLOPs": {}}
    calls = {}
    for path in sorted((HERE / "mods").glob("res_*.py")):
        mod = load(str(path.relative_to(HERE)))
        gqa = "gqa" in path.name
        B, H, G, S, D = (4, 32, 8, 4096, 128) if gqa else (1, 4, 4, 4099, 96)
        fn = mod.gqa_attention if gqa else mod.attention
        err, (q, k, v, o), _ = checked(fn, B, H, S, D, G=G, is_causal=True, enable_gqa=gqa)
        out["checked"][path.name] = err
        if err < 2e-2:
            flops = 4 * B * H * D * S * (S + 1) / 2
            calls[path.name] = (lambda fn=fn, q=q, k=k, v=v, o=o, D=D: fn(q, k, v, o, scale=D ** -0.5), flops)
            if gqa and "sdpa_gqa" not in calls:
                calls["sdpa_gqa"] = (lambda q=q, k=k, v=v: F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                     scale=D ** -0.5, enable_gqa=True), flops)
    for name in calls:
        out["TFLOPs"][name] = []
    for _ in range(rounds):
        for name, (fn, flops) in calls.items():
            out["TFLOPs"][name].append(flops / timed(fn) / 1e9)
    out["median"] = {n: sorted(v)[len(v) // 2] for n, v in out["TFLOPs"].items()}
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2] if len(sys.argv) > 2 else "")
    else:
        run(int(sys.argv[2]) if len(sys.argv) > 2 else 8)
