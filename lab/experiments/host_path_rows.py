"""Host time of one call of the row kernels at 4096x1024 (f32 and bf16) against the torch op, in one
process (issue 18: no more host time than torch). For each kernel: the `@tessel.kernel` call, the
generated wrapper of the module the kernel object launches, the same wrapper as the compiler before
launch plans generated it (`old/<kernel>.py`, when present), the plan's launch alone (the compiled
kernel's launcher) and the torch op. Every output is checked against torch first. Host microseconds:
each call is timed in rounds, the calls of one kernel taking turns (so drift hits all alike); a round
is the median over batches of 100 calls (synchronized between batches, so the launch queue never
fills) and the figure is the median of the rounds. End to end is the median of CUDA-event timings of
one call. Results are written to OUT.json after each kernel.

The bundle (this file, python/, examples/, bench/row_kernels.py, gen/ with each kernel's generated
module, old/) is made by host_path_bundle.py on a machine with the compiler; on the GPU machine:
    python3 host_path_rows.py OUT.json [LABEL]"""
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ.setdefault("TESSEL_CACHE", str(HERE / "cache"))  # the modules loaded are written here
sys.path[:0] = [str(HERE / "python"), str(HERE / "examples"), str(HERE / "bench")]

import torch  # noqa: E402
import tessel._kernel as K  # noqa: E402

K._VERSION = "host-path"  # no compiler here: its version names nothing, its sources are bundled
K.Kernel.source = lambda self, target="triton", constexprs=None, params=None: \
    (HERE / "gen" / f"{self.name}.py").read_text()
import layernorm  # noqa: E402
import rmsnorm  # noqa: E402
import row_kernels  # noqa: E402
import softmax  # noqa: E402

M, N, EPS = 4096, 1024, 1e-5
F = torch.nn.functional


def nonzero(*shape, dtype):
    x = torch.rand(*shape, device="cuda") * 0.75 + 0.25
    return (x * torch.where(torch.rand(*shape, device="cuda") < 0.5, -1.0, 1.0)).to(dtype)


def host_us(fn, batches=10, calls=100):
    """One round: the median over `batches` batches of `calls` calls, in microseconds per call."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    means = []
    for _ in range(batches):
        started = time.perf_counter()
        for _ in range(calls):
            fn()
        means.append((time.perf_counter() - started) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(means)


def host_rounds(calls: dict, rounds=7) -> dict:
    """{what: median over `rounds` rounds of host_us}, the calls taking turns in each round."""
    times = {what: [] for what in calls}
    for _ in range(rounds):
        for what, call in calls.items():
            times[what].append(host_us(call))
    return {what: round(statistics.median(t), 2) for what, t in times.items()}


def end_to_end_us(fn, reps=50):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return round(statistics.median(times), 2)


def cases():
    for dtype, suffix, kernels in [(torch.float32, "", (softmax.softmax, layernorm.layernorm, rmsnorm.rmsnorm)),
                                   (torch.bfloat16, "_bf16", (row_kernels.softmax_bf16, row_kernels.layernorm_bf16,
                                                               row_kernels.rmsnorm_bf16))]:
        x, w, b = nonzero(M, N, dtype=dtype), nonzero(N, dtype=dtype), nonzero(N, dtype=dtype)
        tol = 2e-2 if dtype == torch.bfloat16 else 1e-4
        k_soft, k_ln, k_rms = kernels
        yield k_soft, (x, torch.empty_like(x)), {}, lambda: torch.softmax(x, 1), tol
        yield k_ln, (x, w, b, torch.empty_like(x)), {"eps": EPS}, lambda: F.layer_norm(x, (N,), w, b, EPS), tol
        yield k_rms, (x, w, torch.empty_like(x)), {"eps": EPS}, lambda: F.rms_norm(x, (N,), w, EPS), tol


def load(path, name):
    spec = importlib.util.spec_from_file_location(f"old_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "host-path-rows.json"
    label = sys.argv[2] if len(sys.argv) > 2 else None
    torch.manual_seed(0)
    doc = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "label": label,
           "what": __doc__.split("\n\n")[0].replace("\n", " "), "results": []}
    for kernel, args, kw, ref, tol in cases():
        entry = {"kernel": kernel.name, "shape": {"M": M, "N": N}}
        try:
            want = ref()
            kernel(*args, **kw)
            kernel(*args, **kw)  # the second call is planned
            (plan,) = kernel._plans.values()
            wrapper = plan[0].__globals__[kernel.name]  # the wrapper of the module the kernel object launches
            calls = {"tessel kernel object": lambda: kernel(*args, **kw), "generated wrapper": lambda: wrapper(*args, **kw)}
            old = HERE / "old" / f"{kernel.name}.py"
            if old.exists():
                old_wrapper = load(old, kernel.name)
                calls["generated wrapper before launch plans"] = lambda: old_wrapper(*args, **kw)
            for what, call in calls.items():
                args[-1].fill_(float("nan"))
                call()
                call()  # the second call is planned
                torch.cuda.synchronize()
                err = (args[-1].double() - want.double()).abs().max().item()
                entry.setdefault("max_abs_err", {})[what] = err
                if not err <= tol:
                    raise AssertionError(f"{what}: max abs err {err}")
            go_args = [a for t in args for a in (t, t.data_ptr())] + list(kw.values())
            calls["plan launch alone"] = lambda: plan[0](*go_args)
            calls["torch op"] = ref
            entry["host_us"] = host_rounds(calls)
            entry["end_to_end_us"] = {"tessel kernel object": end_to_end_us(calls["tessel kernel object"]),
                                      "torch op": end_to_end_us(ref)}
            entry["host_vs_torch"] = round(entry["host_us"]["torch op"] / entry["host_us"]["tessel kernel object"], 3)
        except Exception as e:  # a failure is a result too
            entry["error"] = f"{type(e).__name__}: {e}"[:500]
        print(json.dumps(entry), flush=True)
        doc["results"].append(entry)
        out.write_text(json.dumps(doc, indent=1))  # as it goes: a run cut short keeps what it measured


if __name__ == "__main__":
    main()
