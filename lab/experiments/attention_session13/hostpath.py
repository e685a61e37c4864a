"""Where the time of tessel's attention call goes (call vs device-only vs host launch path), beside SDPA."""
import json, math, sys
sys.path[:0] = ["python", "bench"]
import torch, torch.nn.functional as F
from run_bench import nonzero, timed, kernel_ms, host_us
import attention_kernels as AK
import tessel.language as T


def main():
    out = open(sys.argv[1], "a")
    for (B, H, S, D, kind, G) in ((1, 4, 4099, 96, "causal", 1), (4, 32, 4096, 128, "gqa", 4), (4, 32, 4096, 128, "causal", 1)):
        q = nonzero(B, H, S, D, dtype=torch.bfloat16)
        k, v = nonzero(B, H // G, S, D, dtype=torch.bfloat16), nonzero(B, H // G, S, D, dtype=torch.bfloat16)
        o = torch.empty_like(q); scale = 1 / math.sqrt(D)
        if kind == "gqa":
            kern = AK.gqa_attention(T.bf16, name="hp_gqa"); call = lambda: kern(q, k, v, o, scale=scale, GROUP=G)
        else:
            kern = AK.attention(T.bf16, name=f"hp_{D}"); call = lambda: kern(q, k, v, o, scale=scale, CAUSAL=True)
        sd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale, enable_gqa=G > 1)
        ref = sd(); call(); torch.cuda.synchronize()
        err = (o.float() - ref.float()).abs().max().item()
        rec = dict(B=B, H=H, S=S, D=D, kind=kind, err=err)
        for name, fn in (("tessel", call), ("sdpa", sd)):
            rec[name + "_ms"] = timed(fn, reps=50)
            rec[name + "_device_ms"] = kernel_ms(fn)
            rec[name + "_host_us"] = host_us(fn, reps=100)
        print(json.dumps(rec), file=out, flush=True)



if __name__ == "__main__":
    main()
