"""TMA=0 vs TMA=1 (explicit bindings, else the defaults) on the attention cases: call ms, device ms, host us.
    python3 tma_ab.py OUT.jsonl [CASE,CASE,...]   (indices into the case list below)"""
import json, math, sys
sys.path[:0] = ["python", "bench"]
import torch, torch.nn.functional as F
from run_bench import nonzero, timed, kernel_ms, host_us
import attention_kernels as AK
import tessel.language as T


def main():
    out = open(sys.argv[1], "a")
    cases = [(1, 4, 4099, 96, "causal", 1), (4, 32, 4096, 128, "causal", 1), (4, 32, 4096, 128, "full", 1),
             (4, 32, 4096, 128, "gqa", 4), (4, 32, 4096, 128, "bias", 1), (16, 16, 1024, 64, "causal", 1),
             (16, 16, 1024, 64, "full", 1)]
    if len(sys.argv) > 2:  # a filter: case indices, comma-separated
        cases = [cases[int(i)] for i in sys.argv[2].split(",")]
    for (B, H, S, D, kind, G) in cases:
        q = nonzero(B, H, S, D, dtype=torch.bfloat16)
        k, v = nonzero(B, H // G, S, D, dtype=torch.bfloat16), nonzero(B, H // G, S, D, dtype=torch.bfloat16)
        o = torch.empty_like(q); scale = 1 / math.sqrt(D)
        tensors, cx, kw = [q, k, v, o], {}, {}
        if kind == "gqa":
            kern = AK.gqa_attention(T.bf16, name="ab_gqa"); cx = {"GROUP": G}; kw = dict(is_causal=True, enable_gqa=True)
        elif kind == "bias":
            bias = nonzero(H, S, S, dtype=torch.bfloat16); tensors = [q, k, v, bias, o]
            kern = AK.bias_attention(T.bf16, name="ab_bias"); kw = dict(attn_mask=bias.unsqueeze(0))
        else:
            kern = AK.attention(T.bf16, name=f"ab_{kind}{D}"); cx = {"CAUSAL": kind == "causal"}; kw = dict(is_causal=kind == "causal")
        ref = F.scaled_dot_product_attention(q, k, v, scale=scale, **kw)
        sd = lambda: F.scaled_dot_product_attention(q, k, v, scale=scale, **kw)
        rec = dict(B=B, H=H, S=S, D=D, kind=kind)
        rec["sdpa_ms"] = timed(sd, reps=30); rec["sdpa_device_ms"] = kernel_ms(sd)
        rec["defaults"] = dict(kern.call_defaults(*tensors, scale=scale, **cx))
        for tma in (0, 1):
            try:
                params = dict(rec["defaults"], TMA=tma)
                launch = kern._launcher(cx, params)
                fn = lambda: launch(*tensors, scale=scale)
                o.fill_(float("nan")); fn(); torch.cuda.synchronize()
                err = (o.float() - ref.float()).abs().max().item()
                r = dict(err=err)
                if err < 2e-2:
                    r.update(ms=timed(fn, reps=30), device_ms=kernel_ms(fn), host_us=host_us(fn, reps=100))
            except Exception as e:
                r = dict(error=f"{type(e).__name__}: {e}"[:300])
            rec[f"tma{tma}"] = r
        call = lambda: kern(*tensors, scale=scale, **cx)
        rec["call_ms"] = timed(call, reps=30); rec["call_host_us"] = host_us(call, reps=100)
        print(json.dumps(rec), file=out, flush=True)



if __name__ == "__main__":
    main()
