"""Device: check one generated module against f32 SDPA on random inputs, then time it and SDPA (enable_gqa,
default and cuDNN backends) with CUDA events in the same process: python3 run_one.py mods/TAG.py -> one JSON line."""
import importlib.util
import json
import sys

import torch
import torch.nn.functional as F


def timed(fn, reps=20, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    ts.sort()
    return ts[len(ts) // 2]


def checked(call, B, H, S, D, G=None, device="cuda", **sdpa):
    """One call of a generated attention on random bf16 inputs (seed 0; G key/value heads, H when None) into
    a NaN-filled output, against f32 SDPA with `sdpa`'s keywords (is_causal, attn_mask, enable_gqa):
    (max abs error, (q, k, v, o), scale)."""
    torch.manual_seed(0)
    q = torch.randn(B, H, S, D, device=device, dtype=torch.bfloat16)
    k, v = (torch.randn(B, G or H, S, D, device=device, dtype=torch.bfloat16) for _ in range(2))
    o = torch.full_like(q, float("nan"))
    scale = D ** -0.5
    call(q, k, v, o, scale=scale)
    if device == "cuda":
        torch.cuda.synchronize()
    ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), scale=scale, **sdpa)
    return (o.float() - ref).abs().max().item(), (q, k, v, o), scale


def load(path):
    """A generated module by its path (a module name of its own, so that several load side by side)."""
    spec = importlib.util.spec_from_file_location(path.replace("/", "_").removesuffix(".py"), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(path, B=4, H=32, G=8, S=4096, D=128):
    mod = load(path)
    used = {"gluon": False}
    real = getattr(mod, "_gqa_attention_gluon", None)
    if real is not None:
        class Seen:
            def __getitem__(self, grid):
                used["gluon"] = True
                return real[grid]
        mod._gqa_attention_gluon = Seen()
    # odd shapes first (S, T not multiples of any block; one query block; GQA groups of 4)
    odd = []
    for (b, h, g, s, d) in ((1, 8, 2, 1031, D), (2, 4, 1, 67, D), (1, 4, 1, 1, D)):
        used["gluon"] = False
        torch.manual_seed(1)
        qo = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
        ko = torch.randn(b, g, s, d, device="cuda", dtype=torch.bfloat16)
        vo = torch.randn(b, g, s, d, device="cuda", dtype=torch.bfloat16)
        oo = torch.full_like(qo, float("nan"))
        mod.gqa_attention(qo, ko, vo, oo, scale=d ** -0.5)
        torch.cuda.synchronize()
        ro = F.scaled_dot_product_attention(qo.float(), ko.float(), vo.float(), is_causal=True, scale=d ** -0.5,
                                            enable_gqa=True)
        odd.append({"shape": [b, h, g, s, d], "gluon_launched": used["gluon"],
                    "max_abs_err": (oo.float() - ro).abs().max().item()})
    used["gluon"] = False
    torch.manual_seed(0)
    q = torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, G, S, D, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(B, G, S, D, device="cuda", dtype=torch.bfloat16)
    o = torch.full_like(q, float("nan"))
    scale = D ** -0.5
    mod.gqa_attention(q, k, v, o, scale=scale)
    torch.cuda.synchronize()
    ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=True, scale=scale, enable_gqa=True)
    err = (o.float() - ref).abs().max().item()
    row = {"module": path, "gluon_launched": used["gluon"], "max_abs_err": err, "odd": odd,
           "correct": bool(err < 2e-2 and all(o["max_abs_err"] < 2e-2 for o in odd))}
    flops = 4 * B * H * S * S * D / 2
    if row["correct"]:
        ms = timed(lambda: mod.gqa_attention(q, k, v, o, scale=scale))
        row.update(ms=ms, TFLOPs=flops / ms / 1e9)
        sd = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale, enable_gqa=True))
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            cd = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale, enable_gqa=True))
        row.update(sdpa_ms=sd, sdpa_TFLOPs=flops / sd / 1e9, cudnn_ms=cd, ratio_sdpa=sd / ms, ratio_cudnn=cd / ms)
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
