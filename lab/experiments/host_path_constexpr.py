"""Host time of calls with constexpr keywords (session 14, branch h14-host): such a call, e.g. attention's
`kern(q, k, v, o, scale=s, CAUSAL=True)`, is now the planned call of its specialization (a plan table per
constexpr key, `Kernel._dispatch`) instead of the binding path (`_bind`, the constexprs' `_key`, the
`_launches` lookup and the launcher's wrapper). Per case, one process, fresh kernel objects:

  old        constexpr calls on the binding path they took before (the object's `_call_special` replaced
             by the old `launch(*tensors, **scalars)`)
  new        constexpr calls only (the object's call is `Kernel.__call__` -> `_dispatch` -> planned call)
  new mixed  constexpr calls on an object that also had a plain call (its call is the plain planned
             call, which hands the constexpr call to `_dispatch`)
  plain      the call without constexpr keywords (the plain planned call, at the defaults: the floor)

Every variant's output is checked against the example's numpy reference first (random non-zero inputs).
Host microseconds: rounds in which the variants take turns; a round is the median over batches of 100
calls (synchronized between batches, so the launch queue never fills); the figure is the median of the
rounds. End to end: run_bench.timed (median of CUDA-event timings of one call). Prints JSON (and writes
OUT.json when given). Look at host_us: new - plain should be ~1-2 us, old - new is the saving.
    TESSEL_BIN=<static tessel> PYTHONPATH=python:bench:examples python3 lab/experiments/host_path_constexpr.py [OUT.json]
`--cpu` runs a smoke test of the script itself on the Triton interpreter (tiny shapes, no timing)."""
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path

CPU = "--cpu" in sys.argv
if CPU:
    os.environ["TRITON_INTERPRET"] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402

from tessel import _kernel  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name):
    """examples/NAME.py by path (bench/attention.py would shadow examples/attention.py on sys.path)."""
    spec = importlib.util.spec_from_file_location(f"_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


attention, cumsum, gemm = example("attention"), example("cumsum"), example("gemm")

DEVICE = "cpu" if CPU else "cuda"


def fresh(k, old=False):
    """A kernel object of its own over `k`'s function; `old`: its constexpr calls take the binding path."""
    obj = _kernel.Kernel(k.fn, name=k.name, target=k.target, **k.options)
    if old:
        obj._call_special = lambda launch, checked, tensors, scalars, kwargs: launch(*tensors, **scalars)
    return obj


def nonzero(*shape, dtype):
    x = torch.rand(*shape, device=DEVICE) * 0.75 + 0.25
    return (x * torch.where(torch.rand(*shape, device=DEVICE) < 0.5, -1.0, 1.0)).to(dtype)


def cases():
    s = 4 if CPU else 1
    b, h, n, d = (1, 2, 16, 16) if CPU else (1, 8, 256, 64)  # a 0.06 ms-class launch on the H200
    q, k, v = (nonzero(b, h, n, d, dtype=torch.float16) for _ in range(3))
    scale = 1 / d ** 0.5
    yield ("attention CAUSAL=True", attention.attention, lambda: (q, k, v, torch.empty_like(q)),
           {"scale": scale}, {"CAUSAL": True},
           lambda cx: attention.reference(*(t.cpu().numpy() for t in (q, k, v)), scale, **cx), 2e-2)
    x = nonzero(16 // s if CPU else 256, 37 if CPU else 1024, dtype=torch.float32)
    yield ("cumsum REVERSE=True", cumsum.cumsum, lambda: (x, torch.empty_like(x)), {}, {"REVERSE": True},
           lambda cx: cumsum.reference(x.cpu().numpy(), **cx), 1e-3)
    m = 16 if CPU else 256
    a, bb = nonzero(m, m, dtype=torch.float16), nonzero(m, m, dtype=torch.float16)
    bias = nonzero(m, dtype=torch.float32)
    cx = {"HAS_BIAS": True, "ACTIVATION": "relu"}
    yield ("gemm HAS_BIAS, relu", gemm.gemm,
           lambda: (a, bb, bias, torch.empty(m, m, device=DEVICE)), {}, cx,
           lambda cx: gemm.reference(a.cpu().numpy(), bb.cpu().numpy(), bias.cpu().numpy(), **cx), 2e-2)


def sync():
    if not CPU:
        torch.cuda.synchronize()


def host_us(fn, batches=10, calls=100):
    for _ in range(20):
        fn()
    sync()
    means = []
    for _ in range(batches):
        started = time.perf_counter()
        for _ in range(calls):
            fn()
        means.append((time.perf_counter() - started) / calls * 1e6)
        sync()
    return statistics.median(means)


def main():
    results = {}
    for what, kern, make, scalars, cx, reference, tol in cases():
        old, new, mixed, plain = fresh(kern, old=True), fresh(kern), fresh(kern), fresh(kern)
        calls = {}
        for label, obj, kw in (("old", old, {**scalars, **cx}), ("new", new, {**scalars, **cx}),
                               ("new mixed", mixed, {**scalars, **cx}), ("plain", plain, scalars)):
            args = make()
            if label == "new mixed":
                mixed(*make(), **scalars)  # a plain call first: the object's call is the plain planned call
            obj(*args, **kw)
            obj(*args, **kw)
            out = args[-1].float().cpu().numpy()
            want = reference({} if label == "plain" else cx)
            err = float(np.max(np.abs(out - want) / (1 + np.abs(want))))
            if not err <= tol:
                raise SystemExit(f"{what} ({label}): wrong output, max relative error {err}")
            calls[label] = (lambda obj=obj, args=args, kw=kw: obj(*args, **kw))
        assert new._special_fronts and mixed._special_fronts and not old._special_fronts
        assert type(mixed).__call__ is mixed._front and type(new).__call__ is _kernel.Kernel.__call__
        entry = {"checked": True}
        if not CPU:
            rounds = {label: [] for label in calls}
            for _ in range(7):
                for label, call in calls.items():
                    rounds[label].append(host_us(call))
            entry["host_us"] = {label: round(statistics.median(t), 2) for label, t in rounds.items()}
            import run_bench
            entry["end_to_end_ms"] = {label: round(run_bench.timed(call, reps=50), 4) for label, call in calls.items()}
        results[what] = entry
        print(json.dumps({what: entry}), flush=True)
    if len(sys.argv) > 1 and sys.argv[-1].endswith(".json"):
        with open(sys.argv[-1], "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
