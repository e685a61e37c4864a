"""GPU benchmark of attention forward written in the DSL (bench/attention_kernels.py) against SDPA
(flash and cuDNN backends) and FlexAttention (torch.compile(flex_attention)) in one process.

Every case is checked first: tessel's output against SDPA's (or an f32 reference for variants SDPA
has no spelling of) on random non-zero inputs. Then each is timed by the median of CUDA-event
timings. tessel runs its declared defaults and a small sweep of its declared parameters (the
best correct one is reported, with the list tried). TFLOP/s count 4*B*H*D per visible (query, key)
pair. Usage on the GPU machine:
    TESSEL_BIN=.../tessel PYTHONPATH=python:bench python3 bench/attention.py --out lab/results
"""
import argparse
import datetime
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

from run_bench import nonzero, timed, write_results  # the same timing and inputs as the rest of bench/

ROOT = pathlib.Path(__file__).resolve().parents[1]


def flex():
    from torch.nn.attention.flex_attention import flex_attention
    return torch.compile(flex_attention, dynamic=False)


def visible_pairs(S, T, kind, W=256):
    if kind == "causal" or kind == "gqa":
        return sum(min(s + 1, T) for s in range(S))
    if kind == "window":
        return sum(max(0, min(s + 1, T) - max(0, s - W + 1)) for s in range(S))
    return S * T


CONFIGS = [dict(BLOCK_S=bs, BLOCK_T=bt, WARPS=w, STAGES=st)
           for bs, bt, w, st in [(128, 64, 8, 3), (128, 64, 4, 3), (128, 64, 8, 2), (64, 64, 4, 3),
                                 (128, 32, 8, 3), (128, 128, 8, 2), (64, 128, 4, 2), (64, 32, 4, 3)]]


def parse_config(text):
    """--config BS,BT,WARPS,STAGES[,TMA][,NAME=VALUE...]: positional values, then named parameters
    (e.g. GLUON=0, PAIR_BLOCKS=2)."""
    items = text.split(",")
    named = dict(item.split("=", 1) for item in items if "=" in item)
    positional = [item for item in items if "=" not in item]
    return {**dict(zip(("BLOCK_S", "BLOCK_T", "WARPS", "STAGES", "TMA"), map(int, positional))),
            **{k: int(v) for k, v in named.items()}}


def run_case(case, args, kernels, flex_fn):
    import attention_kernels as AK
    B, H, S, D, kind, dtn = case["B"], case["H"], case["S"], case["D"], case["kind"], case["dtype"]
    dt = {"bf16": torch.bfloat16, "f16": torch.float16}[dtn]
    G = case.get("G", 1)
    Hkv = H // G
    q, k, v = nonzero(B, H, S, D, dtype=dt), nonzero(B, Hkv, S, D, dtype=dt), nonzero(B, Hkv, S, D, dtype=dt)
    scale = 1.0 / math.sqrt(D)
    o = torch.empty_like(q)
    entry = dict(case)
    bias = None
    tdt = {"bf16": "bf16", "f16": "f16"}[dtn]
    import tessel.language as T
    tdtype = {"bf16": T.bf16, "f16": T.f16}[tdt]
    key = (kind, dtn)
    if key not in kernels:
        maker = {"full": AK.attention, "causal": AK.attention, "window": AK.window_attention,
                 "bias": AK.bias_attention, "gqa": AK.gqa_attention}[kind]
        kernels[key] = maker(tdtype, name=f"attn_{kind}_{dtn}")
    kern = kernels[key]
    constexprs = {}
    tensors = [q, k, v, o]
    if kind in ("full", "causal"):
        constexprs = {"CAUSAL": kind == "causal"}
    elif kind == "bias":
        bias = nonzero(H, S, S, dtype=dt)
        tensors = [q, k, v, bias, o]
    elif kind == "gqa":
        constexprs = {"GROUP": G}

    # The reference and the peers.
    def sdpa(backend=None):
        kw = {}
        if kind in ("causal",):
            kw["is_causal"] = True
        if kind == "gqa":
            kw["is_causal"], kw["enable_gqa"] = True, True
        if kind == "bias":
            kw["attn_mask"] = bias.unsqueeze(0)
        if kind == "window":
            i = torch.arange(S, device="cuda")
            kw["attn_mask"] = (i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - 256)
        if backend is None:
            return lambda: F.scaled_dot_product_attention(q, k, v, scale=scale, **kw)
        def call():
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(q, k, v, scale=scale, **kw)
        return call

    ref = sdpa(SDPBackend.MATH if kind in ("bias", "window") else None)()
    torch.cuda.synchronize()
    flops = 4.0 * B * H * D * visible_pairs(S, S, kind)
    entry["flops"] = flops

    def tessel_call(params):
        if params is None:  # the user's call: tuned winner if cached, else defaults from the call's facts
            return lambda: kern(*tensors, scale=scale, **constexprs)
        launch = kern._launcher(constexprs, params)
        return lambda: launch(*tensors, scale=scale)

    results = []
    sweep = CONFIGS[: args.configs] if not args.config else [parse_config(c) for c in args.config]
    def check_and_time(row, fn, started=None):
        """Runs `fn` once on a NaN-filled output (its time since `started`, compiling included, as
        compile_s), compares with the reference, and times it if correct."""
        o.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        if started is not None:
            row["compile_s"] = round(time.monotonic() - started, 1)
        err = (o.double() - ref.double()).abs().max().item()
        row["max_abs_err"] = err
        row["correct"] = bool(err <= case.get("atol", 2e-2))
        if row["correct"]:
            row["ms"] = timed(fn)
            row["TFLOPs"] = flops / row["ms"] / 1e9

    def tuned(row):
        """The user's tuning call (tessel's own search: the declared space, pruned by the program's
        resource estimates, checked, timed), then the user's call again, which takes the winner."""
        started = time.monotonic()
        row["winner"] = kern.tune(*tensors, scale=scale, **constexprs, budget_s=args.tune, retune=True,
                                  compile_workers=args.workers, verbose=False)
        report = kern.last_tuning
        row["tune_s"] = round(time.monotonic() - started, 1)
        row["search"] = {k: report.get(k) for k in ("candidates", "pruned", "timed", "skipped_for_budget")}
        row["search"]["rejected"] = len(report.get("rejected", []))
        return tessel_call(None)

    sweep_params = [None] + [dict(c, BLOCK_D=triton.next_power_of_2(D)) for c in sweep]
    for params in sweep_params + (["tuned"] if args.tune > 0 else []):
        row = {"params": params or "defaults"}
        try:
            if params == "tuned":
                check_and_time(row, tuned(row))
            else:
                started = time.monotonic()
                check_and_time(row, tessel_call(params), started)
        except Exception as e:
            row["error"] = f"{type(e).__name__}: {e}"[:400]
        print(json.dumps(row), flush=True)
        results.append(row)
    entry["tessel"] = results
    good = [r for r in results if r.get("correct")]
    if good:
        best = min(good, key=lambda r: r["ms"])
        entry["tessel_ms"], entry["tessel_TFLOPs"], entry["tessel_params"] = best["ms"], best["TFLOPs"], best["params"]
        default = results[0]
        if default.get("correct"):
            entry["tessel_default_ms"] = default["ms"]
    # Peers, each checked against the reference first.
    peers = {}
    if kind in ("full", "causal", "gqa"):
        peers["sdpa_flash"] = sdpa(SDPBackend.FLASH_ATTENTION)
        peers["sdpa_cudnn"] = sdpa(SDPBackend.CUDNN_ATTENTION)
    peers["sdpa_default"] = sdpa(None)
    if flex_fn is not None:
        from torch.nn.attention.flex_attention import create_block_mask
        if kind in ("causal", "gqa"):
            bm = create_block_mask(lambda b, h, qi, ki: ki <= qi, None, None, S, S)
            peers["flex"] = lambda: flex_fn(q, k, v, block_mask=bm, scale=scale, enable_gqa=(kind == "gqa"))
        elif kind == "window":
            bm = create_block_mask(lambda b, h, qi, ki: (ki <= qi) & (ki > qi - 256), None, None, S, S)
            peers["flex"] = lambda: flex_fn(q, k, v, block_mask=bm, scale=scale)
        elif kind == "bias":
            peers["flex"] = lambda: flex_fn(q, k, v, score_mod=lambda sc, b, h, qi, ki: sc + bias[h, qi, ki],
                                            scale=scale)
        else:
            peers["flex"] = lambda: flex_fn(q, k, v, scale=scale)
    checked = {}  # the peers that agreed with the reference: the interleaved rounds' contenders
    for name, fn in peers.items():
        try:
            out = fn()
            torch.cuda.synchronize()
            err = (out.double() - ref.double()).abs().max().item()
            if err > case.get("atol", 2e-2):
                entry[f"{name}_error"] = f"max abs err {err}"
                continue
            checked[name] = fn
            entry[f"{name}_ms"] = timed(fn)
            entry[f"{name}_TFLOPs"] = flops / entry[f"{name}_ms"] / 1e9
            if "tessel_ms" in entry:
                entry[f"vs_{name}"] = entry[f"{name}_ms"] / entry["tessel_ms"]
        except Exception as e:
            entry[f"{name}_error"] = f"{type(e).__name__}: {e}"[:300]
    if args.rounds > 1 and results and results[0].get("correct"):
        # Short kernels move with the GPU's state over a run (clocks, heat after a sweep): the user's
        # call (defaults, or the tuned winner when --tune ran) and every checked peer, timed again in
        # interleaved rounds; medians over the rounds, ratios from them.
        contenders = {"tessel": tessel_call(None), **checked}
        rounds = {name: [] for name in contenders}
        for _ in range(args.rounds):
            for name, fn in contenders.items():
                rounds[name].append(timed(fn))
        entry["rounds"] = rounds
        med = {name: statistics.median(ms) for name, ms in rounds.items()}
        entry["interleaved_ms"] = med
        entry["interleaved_vs"] = {name: med[name] / med["tessel"] for name in med if name != "tessel"}
    return entry


def cases(only):
    out = []
    for dtn in ("bf16", "f16"):
        for kind in ("causal", "full"):
            out.append(dict(B=4, H=32, S=4096, D=128, kind=kind, dtype=dtn))
    for kind in ("causal", "full"):
        out.append(dict(B=1, H=32, S=16384, D=128, kind=kind, dtype="bf16"))
        out.append(dict(B=16, H=16, S=1024, D=64, kind=kind, dtype="bf16"))
    out.append(dict(B=1, H=4, S=4099, D=96, kind="causal", dtype="bf16"))
    out.append(dict(B=4, H=32, S=4096, D=128, kind="window", dtype="bf16"))
    out.append(dict(B=4, H=32, S=4096, D=128, kind="bias", dtype="bf16"))
    out.append(dict(B=4, H=32, S=4096, D=128, kind="gqa", dtype="bf16", G=4))
    if only:
        keep = set(only.split(","))
        out = [c for i, c in enumerate(out) if str(i) in keep or c["kind"] in keep]
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "lab" / "results"))
    parser.add_argument("--tag", default="attention")
    parser.add_argument("--only", default="", help="case indices or kinds, comma-separated")
    parser.add_argument("--configs", type=int, default=len(CONFIGS), help="how many sweep configs to try")
    parser.add_argument("--config", action="append", default=[], metavar="BS,BT,WARPS,STAGES[,TMA][,NAME=V...]",
                        help="sweep these configurations instead of the first --configs of CONFIGS")
    parser.add_argument("--no-flex", action="store_true")
    parser.add_argument("--tune", type=float, default=0.0, metavar="SECONDS",
                        help="also run kernel.tune() with this budget and time the user's call after it")
    parser.add_argument("--workers", type=int, default=8, help="tune(): compile_workers")
    parser.add_argument("--rounds", type=int, default=0,
                        help="time the user's call and the checked peers again in this many interleaved rounds")
    args = parser.parse_args()
    sys.path[:0] = [str(ROOT / "python"), str(ROOT / "bench")]
    torch.manual_seed(0)
    version = subprocess.run([os.environ.get("TESSEL_BIN", str(ROOT / "build/bin/tessel")), "--version"],
                             capture_output=True, text=True).stdout.strip()
    # One compiled FlexAttention per case shape and mask: more than dynamo's default of 8 recompiles.
    torch._dynamo.config.recompile_limit = 256
    torch._dynamo.config.accumulated_recompile_limit = 4096
    flex_fn = None if args.no_flex else flex()
    kernels, results = {}, []
    for case in cases(args.only):
        try:
            entry = run_case(case, args, kernels, flex_fn)
        except Exception as e:
            entry = dict(case, error=f"{type(e).__name__}: {e}"[:500])
        print(json.dumps({k: v for k, v in entry.items() if k != "tessel"}), flush=True)
        results.append(entry)
        doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
               "torch": torch.__version__, "triton": triton.__version__, "tessel": version,
               "timing": "median of 20 CUDA-event timings after 3 warm-up calls (run_bench.timed); correctness checked first",
               "results": results}
        write_results(doc, args.out, args.tag, quiet=True)


if __name__ == "__main__":
    main()
