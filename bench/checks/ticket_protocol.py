"""The last-program (ticket) protocol on a GPU, repeated: corpus kernels whose programs merge a sum into
kept workspace (atomic adds or stored summaries) and whose last arriving program reads it, resets it and
writes the result. Each kernel runs CALLS times in a row at its BENCH_SHAPE (no synchronization between
calls, so the kept tickets and sums are reused launch after launch, as under a benchmark), on a few
random input sets in turn, each call into fresh NaN-filled outputs; every call's outputs are then
compared with the torch peer on the same inputs (bench/corpus.py's tolerance: BENCH_TOLERANCE, else 4x
TOLERANCE). One line per kernel; exit status 1 on any mismatch (or error), else 0.

    TESSEL_BIN=build/bin/tessel PYTHONPATH=python python3 bench/checks/ticket_protocol.py
        [--calls 50] [--sets 4] [--only NAME,NAME] [--cpu-smoke]

--cpu-smoke: under TRITON_INTERPRET=1 on the CPU at each kernel's smallest test shape with more than one
element per axis, 3 calls: it checks the script, not the protocol (the interpreter runs programs one
after another). Session 30 found corpus 60/60_b's dw wrong on the H100 at the bench shape (3577 and 512
of 4096 columns) while every CPU check passed; this is the check to run before such a kernel ships.
"""
import argparse
import math
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT / "python"), str(ROOT / "bench" / "corpus")]

KERNELS = ["60_rmsnorm_backward", "60_rmsnorm_backward_b", "83_bias_grad_colsum", "88_global_avgpool_nhwc"]


def _device_inputs(H, mod, inputs, device):
    """The input views on `device` (bf16 views as bfloat16) and the scalars, as the peer takes them."""
    import numpy as np
    import torch
    specs = {p.name: p for p in H.params(mod)}
    out = {}
    for k, v in inputs.items():
        if isinstance(v, np.ndarray):
            t = torch.from_numpy(np.ascontiguousarray(v)).to(device)
            if specs[k].kind == "view" and specs[k].spec.dtype.name == "bf16":
                t = t.to(torch.bfloat16)
            out[k] = t
        else:
            out[k] = v
    return out


def _fresh(H, mod, views):
    """A call's views: inputs shared, outputs new and NaN-filled (an unwritten element shows), InOut
    views copied (a call updates them in place)."""
    import torch
    fresh = []
    for p, t in zip([p for p in H.params(mod) if p.kind == "view"], views):
        if p.spec.mode == "out":
            u = t.new_empty(t.shape)
            u.fill_(float("nan") if u.is_floating_point() else (0x5E if u.dtype != torch.bool else 0))
            fresh.append(u)
        elif p.spec.mode == "inout":
            fresh.append(t.clone())
        else:
            fresh.append(t)
    return fresh


def _error(got, want, tol):
    """(elements outside the tolerance, the largest |got - want| over them or overall, NaNs in got)."""
    import torch
    g, w = got.detach().double(), want.detach().double()
    bad = ~torch.isclose(g, w, rtol=tol["rtol"], atol=tol["atol"], equal_nan=True)
    diff = (g - w).abs()
    diff = torch.where(torch.isnan(diff), torch.full_like(diff, math.inf), diff)
    return int(bad.sum()), float(diff.max()) if diff.numel() else 0.0, int(torch.isnan(g).sum())


def check(name, calls, sets, smoke):
    import torch
    import _harness as H
    device = "cpu" if smoke else "cuda"
    mod = H.load(name)
    if smoke:
        shape = dict(min((s for s in mod.TEST_SHAPES if min(s.values()) > 1) or mod.TEST_SHAPES,
                         key=lambda s: math.prod(s.values())))
    else:
        shape = dict(mod.BENCH_SHAPE)
    tol = getattr(mod, "BENCH_TOLERANCE", None) or {k: 4 * v for k, v in mod.TOLERANCE.items()}
    # A few random input sets (never zero: the files' own distributions), each with its peer's outputs.
    cases = []
    for s in range(sets):
        inputs = H.draw(mod, shape, seed=7919 + s)
        views, kw = H.torch_args(mod, shape, inputs, device)
        want = mod.peer(**_device_inputs(H, mod, inputs, device))
        cases.append((views, kw, want))
    mod.KERNEL(*_fresh(H, mod, cases[0][0]), **cases[0][1])  # compile and first launch, not counted
    if not smoke:
        torch.cuda.synchronize()
    runs = []
    t0 = time.time()
    for i in range(calls):  # in a row: no synchronization between the launches
        views, kw, want = cases[i % sets]
        call = _fresh(H, mod, views)
        mod.KERNEL(*call, **kw)
        runs.append((H.outputs_of(mod, call), want))
    if not smoke:
        torch.cuda.synchronize()
    wall = time.time() - t0
    wrong, worst, detail = 0, 0.0, ""
    for i, (ours, want) in enumerate(runs):
        bad_call = False
        for k, w in want.items():
            if k not in ours:
                continue
            n, err, nans = _error(ours[k], w, tol)
            worst = max(worst, err)
            if n:
                bad_call = True
                if not detail:
                    detail = f"; first wrong: call {i}, output {k}, {n} of {w.numel()} elements ({nans} NaN)"
        wrong += bad_call
    status = "OK" if wrong == 0 else "FAIL"
    print(f"{status} {name} shape={shape} calls={calls} wrong_calls={wrong} max_abs_err={worst:.3g} "
          f"(tolerance rtol={tol['rtol']:g} atol={tol['atol']:g}) {wall:.2f}s{detail}", flush=True)
    return wrong == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--sets", type=int, default=4, help="random input sets the calls cycle through")
    ap.add_argument("--only", default="", help="comma-separated corpus names (default: the four kernels)")
    ap.add_argument("--cpu-smoke", action="store_true")
    args = ap.parse_args()
    if args.cpu_smoke:
        os.environ["TRITON_INTERPRET"] = "1"
        args.calls = min(args.calls, 3)
        args.sets = min(args.sets, 2)
    names = [n for n in args.only.split(",") if n] or KERNELS
    ok = True
    for name in names:
        try:
            ok &= check(name, args.calls, max(1, args.sets), args.cpu_smoke)
        except Exception as e:  # a kernel that does not compile or launch is a failure, and the rest run
            print(f"FAIL {name}: {type(e).__name__}: {str(e)[:400]}", flush=True)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
