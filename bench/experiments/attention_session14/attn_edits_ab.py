"""H200: tessel's generated attention (B4 H32 S=T=4096 D128 bf16, 64/64/4 warps/3 stages) as generated and
with attn_edits.py's hand edits, beside the hand FA2 kernels of session 13 (ws_probe.fa with host and with
device descriptors, desc4 MODE 2). Each variant is checked against SDPA on random non-zero inputs first, then
timed in interleaved rounds: median over rounds of (CUDA events around 10 back-to-back calls) / 10, which
hides the host launch path (the hostdesc variants launch through Triton's JIT), and the profiler's device
time. Prints one JSON line per case (and appends it to ARGV[1] if given).

  TESSEL_BIN=<static tessel> PYTHONPATH=python:bench:examples \\
      python3 bench/experiments/attention_session14/attn_edits_ab.py [OUT.jsonl] [--cases full,causal] [--only a,b]

Variant names: tma1:<edits> (the TMA=1 source edited), tma0:<edits> (the pointer source), hand_host,
hand_dev, desc4_4d. The generated sources of the variants are written under $OUT/attn_edits/ when $OUT is set
(else a temporary directory). `shared` over 115712 bytes means one program per SM instead of two."""
import importlib.util
import json
import math
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = ["python", "bench", HERE, os.path.join(HERE, "..", "attention_session13")]

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import triton  # noqa: E402

import attention_kernels as AK  # noqa: E402
import tessel.language as T  # noqa: E402
import attn_edits  # noqa: E402
from run_bench import kernel_ms, nonzero  # noqa: E402

TWO_PER_SM = 115712  # 2 * (shared + 1 KiB reserved) <= 228 KiB on the H200
VARIANTS = ["tma1:base", "tma1:kvonly", "tma1:ptro", "tma1:hostdesc", "tma1:hostkv", "tma1:nosel", "tma1:rcp",
            "tma1:scalemax", "tma1:kvonly+nosel+rcp+scalemax", "tma1:hostdesc+nosel+rcp+scalemax",
            "tma0:base", "tma0:nosel+rcp+scalemax", "hand_host", "hand_dev", "desc4_4d"]


def _load(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def _burst_ms(fn, n=10, reps=7):
    fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(n):
            fn()
        b.record()
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) / n)
    return statistics.median(ts)


def _compiled_meta(jit_fn):
    """shared bytes / registers / spills of each kernel `jit_fn` compiled."""
    out = []
    for dev_cache in jit_fn.device_caches.values():
        for ck in dev_cache[0].values():
            try:
                ck._init_handles()
                out.append(dict(shared=ck.metadata.shared, regs=ck.n_regs, spills=ck.n_spills))
            except Exception as e:  # noqa: BLE001
                out.append(dict(error=str(e)[:100]))
    return out


def _variant(name, causal, q, k, v, o, scale, srcdir, sources):
    """(call, jit function) of one variant."""
    if name.startswith(("tma0:", "tma1:")):
        tma, spec = int(name[3]), name[5:]
        if tma not in sources:
            sources[tma] = AK.attention(T.bf16, name="attention").source(
                target="triton", constexprs={"CAUSAL": causal}, params=dict(TMA=tma))
        path = os.path.join(srcdir, f"{'causal' if causal else 'full'}_tma{tma}_{spec.replace('+', '_')}.py")
        with open(path, "w") as f:
            f.write(attn_edits.apply(sources[tma], spec))
        m = _load(path)
        return (lambda: m.attention(q, k, v, o, scale=scale)), m._attention_kernel
    if name in ("hand_host", "hand_dev"):
        import ws_probe
        return ws_probe.fa(q, k, v, o, scale, causal, 64, 64, 4, 3, False, causal, dev=name == "hand_dev"), ws_probe._fa
    if name == "desc4_4d":
        import desc4
        B, H, S, D = q.shape
        return (lambda: desc4._fa[(S // 64, B * H)](q, k, v, o, 1.4426950408889634 * scale, B, H, S, D, 64, 64, 2, causal,
                                                    num_warps=4, num_stages=3)), desc4._fa
    raise ValueError(name)


def main():
    args = sys.argv[1:]
    out = None
    if args and not args[0].startswith("--"):
        out = args.pop(0)
    opts = dict(zip(args[::2], args[1::2]))
    cases = opts.get("--cases", "full,causal").split(",")
    names = opts["--only"].split(",") if "--only" in opts else VARIANTS
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    srcdir = os.path.join(os.environ["OUT"], "attn_edits") if os.environ.get("OUT") else tempfile.mkdtemp()
    os.makedirs(srcdir, exist_ok=True)
    torch.manual_seed(0)
    B, H, S, D = 4, 32, 4096, 128
    for case in cases:
        causal = case == "causal"
        q, k, v = (nonzero(B, H, S, D, dtype=torch.bfloat16) for _ in range(3))
        o = torch.empty_like(q)
        scale = 1 / math.sqrt(D)
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
        flops = 4.0 * B * H * D * (S * (S + 1) / 2 if causal else S * S)
        rec = dict(case=case, B=B, H=H, S=S, D=D, tiles="64/64/4/3", variants={})
        calls, sources = {}, {}
        for name in names:
            r = rec["variants"][name] = {}
            try:
                fn, jit_fn = _variant(name, causal, q, k, v, o, scale, srcdir, sources)
                o.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                r["err"] = (o.float() - ref.float()).abs().max().item()
                r["compiled"] = _compiled_meta(jit_fn)
                if r["err"] < 2e-2:
                    calls[name] = fn
            except Exception as e:  # noqa: BLE001
                r["error"] = f"{type(e).__name__}: {e}"[:300]
        rounds = {n: [] for n in calls}
        for _ in range(3):  # interleaved: drift (clocks, temperature) spreads over all variants
            for n, fn in calls.items():
                rounds[n].append(_burst_ms(fn))
        for n, fn in calls.items():
            ms = statistics.median(rounds[n])
            rec["variants"][n].update(ms=round(ms, 4), ms_rounds=[round(x, 4) for x in rounds[n]],
                                      device_ms=round(kernel_ms(fn), 4), TFLOPs=round(flops / ms / 1e9, 1))
        line = json.dumps(rec)
        print(line, flush=True)
        if out:
            with open(out, "a") as f:
                print(line, file=f)


if __name__ == "__main__":
    main()
