"""GPU side: attention with few queries and long keys (decode, S = 1..16) written as bench/attention_kernels.py
writes it, tessel's defaults and a few configurations against SDPA (default, flash, cuDNN) in one process,
each checked against SDPA's math backend on random non-zero inputs first. Measures what a fold realized in
one program per (b, h, query block) costs when the launch has few programs (the case a fold split across
programs, flash-decoding, is for). Usage: TESSEL_BIN=... PYTHONPATH=python:bench python3 decode.py"""
import json, math, os, pathlib, sys
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "bench"))
from run_bench import nonzero, timed
import attention_kernels as AK
import tessel.language as T


def main():
    out = []
    kern = AK.attention(T.bf16, name="decode_attention")
    for B, H, S, Tk, D in ((8, 32, 1, 8192, 128), (1, 32, 1, 32768, 128), (8, 32, 16, 4096, 128)):
        q = nonzero(B, H, S, D, dtype=torch.bfloat16)
        k, v = (nonzero(B, H, Tk, D, dtype=torch.bfloat16) for _ in range(2))
        scale = 1.0 / math.sqrt(D)
        with sdpa_kernel([SDPBackend.MATH]):
            ref = F.scaled_dot_product_attention(q, k, v, scale=scale)
        bytes_moved = 2 * B * H * Tk * D * 2
        row = dict(B=B, H=H, S=S, T=Tk, D=D)
        o = torch.empty_like(q)
        for params in (None, dict(BLOCK_S=16, BLOCK_T=64, WARPS=4, STAGES=3, BLOCK_D=D),
                       dict(BLOCK_S=16, BLOCK_T=128, WARPS=4, STAGES=3, BLOCK_D=D),
                       dict(BLOCK_S=16, BLOCK_T=256, WARPS=8, STAGES=2, BLOCK_D=D)):
            name = "tessel_defaults" if params is None else "tessel_%d_%d_%d" % (params["BLOCK_S"], params["BLOCK_T"], params["WARPS"])
            try:
                fn = (lambda: kern(q, k, v, o, scale=scale, CAUSAL=False)) if params is None else \
                    (lambda l=kern._launcher({"CAUSAL": False}, params): l(q, k, v, o, scale=scale))
                o.fill_(float("nan")); fn(); torch.cuda.synchronize()
                err = (o.double() - ref.double()).abs().max().item()
                row[name + "_err"] = err
                if err <= 2e-2:
                    row[name + "_ms"] = timed(fn)
            except Exception as e:
                row[name + "_error"] = f"{type(e).__name__}: {e}"[:300]
        for peer, backends in (("sdpa_default", None), ("sdpa_flash", [SDPBackend.FLASH_ATTENTION]),
                               ("sdpa_cudnn", [SDPBackend.CUDNN_ATTENTION]), ("sdpa_efficient", [SDPBackend.EFFICIENT_ATTENTION])):
            def call(backends=backends):
                if backends is None:
                    return F.scaled_dot_product_attention(q, k, v, scale=scale)
                with sdpa_kernel(backends):
                    return F.scaled_dot_product_attention(q, k, v, scale=scale)
            try:
                r = call(); torch.cuda.synchronize()
                if (r.double() - ref.double()).abs().max().item() <= 2e-2:
                    row[peer + "_ms"] = timed(call)
            except Exception as e:
                row[peer + "_error"] = f"{type(e).__name__}: {e}"[:200]
        best = min((v for k2, v in row.items() if k2.startswith("tessel") and k2.endswith("_ms")), default=None)
        if best:
            row["tessel_best_GBps"] = bytes_moved / best / 1e6
            row["vs_sdpa_default"] = row.get("sdpa_default_ms", float("nan")) / best
        print(json.dumps(row), flush=True)
        out.append(row)
        pathlib.Path(os.environ.get("OUT", "."), "decode.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
