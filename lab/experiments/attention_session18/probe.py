"""H200 probe: the hand Gluon FlashAttention (gluon_fa.py) checked against SDPA on random inputs, then
timed at B4 H32 S=T=4096 D128 bf16 (grouped-query causal with 4 query heads per key head, causal,
full) beside SDPA's default / cuDNN / flash backends and tessel's defaults, in one process.
    TESSEL_BIN=... PYTHONPATH=python:bench:examples python3 probe.py OUT.json [configs]"""
import json
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import gluon_fa
import gluon_fa_ws
import gluon_fa_persistent
from run_bench import nonzero, timed


def sdpa(q, k, v, causal, backend=None):
    kw = dict(is_causal=causal, enable_gqa=q.shape[1] != k.shape[1])
    if backend is None:
        return lambda: F.scaled_dot_product_attention(q, k, v, **kw)
    def call():
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(q, k, v, **kw)
    return call


def run_cfg(cfg, q, k, v, causal, G):
    """ps:ST,PACK,SECTION -> gluon_fa_persistent; ws:BN,ST,LPT,PACK[,HEAD_MAJOR,PINGPONG,SECTION,ONE] -> gluon_fa_ws; BM,BN,ST,W,LPT,PACK[,HEAD_MAJOR] -> gluon_fa."""
    if cfg[0] == "ps:":
        st, pack, sec = cfg[1:]
        return gluon_fa_persistent.attention(q, k, v, causal, 128, st, G if pack else 1, sec)
    if cfg[0] == "ws:":
        bn, st, lpt, pack, hm, pp, sec, one = (cfg[1:] + (0, 0, 0, 0))[:8]
        return gluon_fa_ws.attention(q, k, v, causal, bn, st, bool(lpt), G if pack else 1, bool(hm), bool(pp), sec, one,
                                     maxnreg=128 if one == 4 else 168)
    bm, bn, st, w, lpt, pack, hm = (cfg + (0,))[:7]
    return gluon_fa.attention(q, k, v, causal, bm, bn, st, w, bool(lpt), G if pack else 1, bool(hm))


def main():
    out = sys.argv[1]
    configs = [(c[:3],) + tuple(int(x) for x in c[3:].split(",")) if c[:3] in ("ws:", "ps:") else tuple(int(x) for x in c.split(","))
               for c in (sys.argv[2:] or ["128,128,2,8,1,0"])]
    res = {"checks": [], "cases": []}
    # correctness first: odd head counts, both masks, grouped and not
    for (B, H, G, S, causal) in [(2, 8, 4, 512, True), (2, 8, 1, 384, False), (1, 4, 2, 1024, True), (1, 4, 1, 256, True)]:
        q = nonzero(B, H, S, 128, dtype=torch.bfloat16)
        k = nonzero(B, H // G, S, 128, dtype=torch.bfloat16)
        v = nonzero(B, H // G, S, 128, dtype=torch.bfloat16)
        ref = sdpa(q.float(), k.float(), v.float(), causal, SDPBackend.MATH)()
        for cfg in configs:
            o = run_cfg(cfg, q, k, v, causal, G)
            torch.cuda.synchronize()
            err = (o.float() - ref).abs().max().item()
            res["checks"].append(dict(B=B, H=H, G=G, S=S, causal=causal, cfg=cfg, err=err, ok=err < 2e-2))
            json.dump(res, open(out, "w"), indent=1)
            print("check", B, H, G, S, causal, cfg, err, "ok" if err < 2e-2 else "FAIL", flush=True)
    if os.environ.get("CHECKS_ONLY") == "1":
        return
    import tessel  # noqa: F401
    import attention_kernels as AK
    import tessel.language as T
    tk = {"causal": AK.attention(T.bf16, name="attn_c"), "gqa": AK.gqa_attention(T.bf16, name="attn_g")}
    B, H, S, D = 4, 32, 4096, 128
    for kind, G, causal in [("gqa", 4, True), ("causal", 1, True), ("full", 1, False)]:
        q = nonzero(B, H, S, D, dtype=torch.bfloat16)
        k = nonzero(B, H // G, S, D, dtype=torch.bfloat16)
        v = nonzero(B, H // G, S, D, dtype=torch.bfloat16)
        pairs = S * (S + 1) / 2 if causal else S * S
        flops = 4.0 * B * H * D * pairs
        ref = sdpa(q, k, v, causal)()
        row = dict(kind=kind, B=B, H=H, S=S, D=D, G=G)
        def rec(name, fn):
            o = fn()
            torch.cuda.synchronize()
            err = (o.float() - ref.float()).abs().max().item()
            ms = timed(fn) if err < 2e-2 else None
            row[name] = dict(err=err, ms=ms, TFLOPs=(flops / ms / 1e9) if ms else None)
            print(kind, name, row[name], flush=True)
        for cfg in configs:
            packed = cfg[2] if cfg[0] == "ps:" else cfg[4] if cfg[0] == "ws:" else cfg[5]
            if packed and G == 1:
                continue
            rec("gluon_" + "_".join(map(str, cfg)), lambda: run_cfg(cfg, q, k, v, causal, G))
        rec("sdpa_default", sdpa(q, k, v, causal))
        rec("sdpa_cudnn", sdpa(q, k, v, causal, SDPBackend.CUDNN_ATTENTION))
        if G == 1:
            rec("sdpa_flash", sdpa(q, k, v, causal, SDPBackend.FLASH_ATTENTION))
        o = torch.empty_like(q)
        scale = 1.0 / math.sqrt(D)
        if kind == "gqa":
            rec("tessel_defaults", lambda: (tk["gqa"](q, k, v, o, scale=scale, GROUP=G), o)[1])
        else:
            rec("tessel_defaults", lambda: (tk["causal"](q, k, v, o, scale=scale, CAUSAL=causal), o)[1])
        res["cases"].append(row)
        json.dump(res, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
