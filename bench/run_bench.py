"""GPU benchmark: tessel kernels (DSL -> KIR -> pgpu -> Triton) against torch in one process.

Every case is first checked for correctness against torch on random (never zero) inputs; only then
timed: the median of CUDA-event timings over repeated launches after warm-up. Writes a dated JSON to
lab/results/ (or --out). Usage on the GPU machine:
    TESSEL_BIN=build-static/bin/tessel PYTHONPATH=python:examples python3 bench/run_bench.py
"""
import argparse
import datetime
import importlib
import json
import os
import pathlib
import statistics
import time
import subprocess
import sys

import torch
import triton

import peers_triton as P

ROOT = pathlib.Path(__file__).resolve().parents[1]


def nonzero(*shape, dtype=torch.float32):
    x = torch.rand(*shape, device="cuda") * 0.75 + 0.25
    sign = torch.where(torch.rand(*shape, device="cuda") < 0.5, -1.0, 1.0)
    return (x * sign).to(dtype)


def write_results(doc: dict, out, tag: str, quiet: bool = False) -> pathlib.Path:
    """Writes `doc` as OUT/<doc's date>-h200-TAG.json, a dated results file (lab/results/ by default), and says
    where (unless `quiet`: a script rewriting it after every case)."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{doc['date']}-h200-{tag}.json"
    path.write_text(json.dumps(doc, indent=2) + "\n")
    if not quiet:
        print(f"wrote {path}", flush=True)
    return path


def run_cases(cases) -> list:
    """Each case() in turn, its entry printed as a JSON line as it finishes; a case that raises gives an
    entry with the error (a failure is a result too)."""
    results = []
    for case in cases:
        try:
            entry = case()
        except Exception as e:  # noqa: BLE001 - recorded, the next case runs
            entry = {"error": f"{type(e).__name__}: {e}"[:500]}
        print(json.dumps(entry), flush=True)
        results.append(entry)
    return results


def steady(fn, calls=20, reps=10, warmup=3):
    """Median over `reps` of the time per call of `calls` calls launched back to back (the launch
    path overlaps the device's work as in a model's forward pass)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / calls)
    return statistics.median(times)


def timed(fn, reps=20, warmup=3):
    """Median over `reps` of one call between two CUDA events (after `warmup` calls)."""
    return steady(fn, calls=1, reps=reps, warmup=warmup)


def within(got, want, case):
    """|got - want| <= atol + rtol * |want| everywhere (rtol for outputs rounded to 16 bits)."""
    if not got.numel():
        return True
    excess = (got.double() - want.double()).abs() - case.get("rtol", 0.0) * want.double().abs()
    return bool(excess.max().item() <= case.get("atol", 1e-4))


def kernel_ms(fn, reps=20):
    """GPU time of the kernels one call launches (torch profiler, mean over `reps` calls): what the
    generated code costs on the device, without the host-side launch path."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    total_us = sum(getattr(e, "self_device_time_total", 0) for e in prof.key_averages())
    return total_us / reps / 1e3


def host_us(fn, reps=200):
    """Host time of one call (launch path only: no synchronization inside the loop)."""
    fn()
    torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(reps):
        fn()
    elapsed = time.perf_counter() - started
    torch.cuda.synchronize()
    return elapsed / reps * 1e6


def kernel(name):
    import row_kernels
    if hasattr(row_kernels, name):
        return getattr(row_kernels, name)
    return getattr(importlib.import_module(name), name)


class _Tuning:
    """While active, `case["run"]` tunes the kernel on the case's arguments instead of launching it."""
    budget_s = None

    def __call__(self, k):
        if self.budget_s is None:
            return k
        self.kernel = k
        workers = max(0, (os.cpu_count() or 1) - 2)  # candidates compile ahead on a process pool
        return lambda *a, **kw: k.tune(*a, budget_s=self.budget_s, verbose=False, retune=True,
                                       compile_workers=workers if workers >= 2 else 0, **kw)


TUNING = _Tuning()


def cases():
    M, N = 4096, 1024
    x = nonzero(M, N)
    w, b = nonzero(N), nonzero(N)
    yield dict(name="vector_add",
               peer=lambda a: P.vector_add(a[0], a[1], a[2], 1.5),
               shape={"N": 1 << 22},
               setup=lambda: (nonzero(1 << 22), nonzero(1 << 22), torch.empty(1 << 22, device="cuda")),
               run=lambda a: TUNING(kernel("vector_add"))(a[0], a[1], a[2], scale=1.5),
               out=lambda a: a[2], ref=lambda a: torch.relu(a[0] + a[1]) * 1.5,
               bytes=lambda a: 3 * a[0].numel() * 4)
    yield dict(name="softmax",
               peer=lambda a: P.softmax(*a),
               shape={"M": M, "N": N}, setup=lambda: (x, torch.empty_like(x)),
               run=lambda a: TUNING(kernel("softmax"))(*a), out=lambda a: a[1], ref=lambda a: torch.softmax(a[0], 1),
               bytes=lambda a: 2 * a[0].numel() * 4)
    big = nonzero(16384, 8192)
    yield dict(name="softmax",
               peer=lambda a: P.softmax(*a),
               shape={"M": 16384, "N": 8192}, setup=lambda: (big, torch.empty_like(big)),
               run=lambda a: TUNING(kernel("softmax"))(*a), out=lambda a: a[1],
               ref=lambda a: torch.softmax(a[0], 1), bytes=lambda a: 2 * a[0].numel() * 4)
    yield dict(name="layernorm",
               peer=lambda a: P.layernorm(*a, 1e-5),
               shape={"M": M, "N": N}, setup=lambda: (x, w, b, torch.empty_like(x)),
               run=lambda a: TUNING(kernel("layernorm"))(*a, eps=1e-5), out=lambda a: a[3],
               ref=lambda a: torch.nn.functional.layer_norm(a[0], (N,), a[1], a[2], 1e-5),
               bytes=lambda a: 2 * a[0].numel() * 4)
    yield dict(name="rmsnorm",
               peer=lambda a: P.rmsnorm(*a, 1e-5),
               shape={"M": M, "N": N}, setup=lambda: (x, w, torch.empty_like(x)),
               run=lambda a: TUNING(kernel("rmsnorm"))(*a, eps=1e-5), out=lambda a: a[2],
               ref=lambda a: torch.nn.functional.rms_norm(a[0], (N,), a[1], 1e-5),
               bytes=lambda a: 2 * a[0].numel() * 4)
    yield dict(name="cumsum",
               peer=lambda a: P.cumsum(*a),
               shape={"M": 1024, "N": 1024}, setup=lambda: (nonzero(1024, 1024), torch.empty(1024, 1024, device="cuda")),
               run=lambda a: TUNING(kernel("cumsum"))(*a), out=lambda a: a[1], ref=lambda a: torch.cumsum(a[0], 1),
               bytes=lambda a: 2 * a[0].numel() * 4, atol=1e-3)
    yield dict(name="argmax",
               peer=lambda a: P.argmax(*a),
               shape={"M": M, "N": N},
               setup=lambda: (x, torch.empty(M, device="cuda"), torch.empty(M, dtype=torch.int64, device="cuda")),
               run=lambda a: TUNING(kernel("argmax"))(*a), out=lambda a: a[2], ref=lambda a: torch.argmax(a[0], 1),
               bytes=lambda a: a[0].numel() * 4)
    yield dict(name="transpose",
               peer=lambda a: P.transpose(*a),
               shape={"M": 2048, "N": 2048},
               setup=lambda: (nonzero(2048, 2048), torch.empty(2048, 2048, device="cuda")),
               run=lambda a: TUNING(kernel("transpose"))(*a), out=lambda a: a[1], ref=lambda a: a[0].t().contiguous(),
               bytes=lambda a: 2 * a[0].numel() * 4)
    yield dict(name="gemm",
               peer=lambda a: P.gemm(*a),
               shape={"M": 512, "N": 512, "K": 512},
               setup=lambda: (nonzero(512, 512, dtype=torch.float16), nonzero(512, 512, dtype=torch.float16),
                              nonzero(512), torch.empty(512, 512, device="cuda")),
               run=lambda a: TUNING(kernel("gemm"))(*a), out=lambda a: a[3],
               ref=lambda a: (a[0].float() @ a[1].float()), flops=lambda a: 2 * 512 ** 3, atol=1e-2)
    # Causal attention (issue 6: correct on the GPU; its region fold runs unblocked, one key at a time).
    yield dict(name="attention",
               shape={"B": 1, "H": 4, "S": 128, "T": 128, "D": 64},
               setup=lambda: tuple(nonzero(1, 4, 128, 64, dtype=torch.float16) for _ in range(3)) +
               (torch.empty(1, 4, 128, 64, device="cuda", dtype=torch.float16),),
               run=lambda a: TUNING(kernel("attention"))(*a, scale=0.125), out=lambda a: a[3],
               ref=lambda a: torch.nn.functional.scaled_dot_product_attention(a[0], a[1], a[2], is_causal=True,
                                                                             scale=0.125),
               atol=2e-3, rtol=1e-2)
    # Causal linear attention (issue 6: its region scan is constructed, correct on the GPU; unblocked).
    yield dict(name="linear_attention",
               shape={"B": 1, "H": 2, "T": 64, "D": 16, "E": 16},
               setup=lambda: tuple(nonzero(1, 2, 64, 16) for _ in range(3)) +
               (torch.empty(1, 2, 64, 16, device="cuda"), torch.empty(1, 2, 16, 16, device="cuda"),
                torch.empty(1, 2, 16, device="cuda")),
               run=lambda a: TUNING(kernel("linear_attention"))(*a),
               out=lambda a: torch.cat([a[3].flatten(), a[4].flatten(), a[5].flatten()]),
               ref=linear_attention_ref, atol=1e-3, rtol=1e-4)
    yield from row_cases()
    # bf16 GEMM (issue 7 targets): torch.matmul is cuBLAS; the hand-written Triton peer is a fixed good config.
    for M, N, K in [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 1024), (4097, 4095, 1000)]:
        yield dict(name="matmul",
                   peer=lambda a: P.matmul(*a),
                   shape={"M": M, "N": N, "K": K},
                   setup=lambda M=M, N=N, K=K: (nonzero(M, K, dtype=torch.bfloat16), nonzero(K, N, dtype=torch.bfloat16),
                                                torch.empty(M, N, device="cuda", dtype=torch.bfloat16)),
                   run=lambda a: TUNING(kernel("matmul"))(*a), out=lambda a: a[2],
                   ref=lambda a: torch.matmul(a[0], a[1]), flops=lambda a: 2 * a[0].shape[0] * a[0].shape[1] * a[1].shape[1],
                   atol=0.25, rtol=2e-2)


def linear_attention_ref(a):
    q, k, v = (t.double() for t in a[:3])
    pq, pk = torch.relu(q) + 1, torch.relu(k) + 1
    S = torch.cumsum(torch.einsum("bhtd,bhte->bhtde", pk, v), dim=2)
    z = torch.cumsum(pk, dim=2)
    o = torch.einsum("bhtd,bhtde->bhte", pq, S) / torch.einsum("bhtd,bhtd->bht", pq, z)[..., None]
    return torch.cat([o.flatten(), S[:, :, -1].flatten(), z[:, :, -1].flatten()]).float()


def row_cases():
    """Issue 7's row targets: f32 and bf16 at 16384x8192 (and the bf16 kernels at 4096x1024), against
    torch eager / torch.compile of the same torch expression; hand-written Triton for f32."""
    eps = 1e-5
    for dtype, suffix in [(torch.float32, ""), (torch.bfloat16, "_bf16")]:
        size = torch.finfo(dtype).bits // 8
        loose = dict(atol=2e-2, rtol=1e-2) if dtype == torch.bfloat16 else {}
        for M, N in ([(16384, 8192)] if dtype == torch.float32 else [(4096, 1024), (16384, 8192)]):
            x = nonzero(M, N, dtype=dtype)
            w, b = nonzero(N, dtype=dtype), nonzero(N, dtype=dtype)
            hand = dtype == torch.float32
            if suffix:
                yield dict(name="softmax" + suffix, shape={"M": M, "N": N}, setup=lambda x=x: (x, torch.empty_like(x)),
                           run=lambda a: TUNING(kernel("softmax_bf16"))(*a), out=lambda a: a[1],
                           ref=lambda a: torch.softmax(a[0], 1), bytes=lambda a: 2 * a[0].numel() * size, **loose)
            yield dict(name="layernorm" + suffix, shape={"M": M, "N": N},
                       setup=lambda x=x, w=w, b=b: (x, w, b, torch.empty_like(x)),
                       run=lambda a, k="layernorm" + suffix: TUNING(kernel(k))(*a, eps=eps), out=lambda a: a[3],
                       ref=lambda a: torch.nn.functional.layer_norm(a[0], (a[0].shape[1],), a[1], a[2], eps),
                       bytes=lambda a: 2 * a[0].numel() * size, **loose,
                       **({"peer": lambda a: P.layernorm(*a, eps)} if hand else {}))
            yield dict(name="rmsnorm" + suffix, shape={"M": M, "N": N},
                       setup=lambda x=x, w=w: (x, w, torch.empty_like(x)),
                       run=lambda a, k="rmsnorm" + suffix: TUNING(kernel(k))(*a, eps=eps), out=lambda a: a[2],
                       ref=lambda a: torch.nn.functional.rms_norm(a[0], (a[0].shape[1],), a[1], eps),
                       bytes=lambda a: 2 * a[0].numel() * size, **loose,
                       **({"peer": lambda a: P.rmsnorm(*a, eps)} if hand else {}))
            yield dict(name="rowsum" + suffix, shape={"M": M, "N": N},
                       setup=lambda x=x, M=M: (x, torch.empty(M, device="cuda")),
                       run=lambda a, k="rowsum" + suffix: TUNING(kernel(k))(*a), out=lambda a: a[1],
                       ref=lambda a: torch.sum(a[0], 1, dtype=torch.float32), bytes=lambda a: a[0].numel() * size,
                       atol=1e-2, rtol=1e-4)
            yield dict(name="argmax" + suffix, shape={"M": M, "N": N},
                       setup=lambda x=x, M=M: (x, torch.empty(M, device="cuda", dtype=x.dtype),
                                               torch.empty(M, dtype=torch.int64, device="cuda")),
                       run=lambda a, k="argmax" + suffix: TUNING(kernel(k))(*a), out=lambda a: a[2],
                       ref=lambda a: torch.argmax(a[0], 1), bytes=lambda a: a[0].numel() * size,
                       **({"peer": lambda a: P.argmax(*a)} if hand else {}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "lab" / "results"))
    parser.add_argument("--tag", default="pipeline", help="file name tag of the results JSON")
    parser.add_argument("--note", default="", help="what this run measures")
    parser.add_argument("--tune", type=float, default=0.0, metavar="SECONDS",
                        help="tune each tessel kernel for up to SECONDS on the case's arguments first")
    parser.add_argument("--compile-peer", action="store_true",
                        help="also time torch.compile of the reference (default mode, static shapes)")
    parser.add_argument("--only", default="", help="comma-separated kernel names to run (default: all)")
    args = parser.parse_args()
    sys.path[:0] = [str(ROOT / "python"), str(ROOT / "examples")]
    torch.manual_seed(0)
    version = subprocess.run([os.environ.get("TESSEL_BIN", str(ROOT / "build/bin/tessel")), "--version"],
                             capture_output=True, text=True).stdout.strip()
    results = []
    for case in cases():
        if args.only and case["name"] not in args.only.split(","):
            continue
        entry = {"kernel": case["name"], "shape": case["shape"]}
        try:
            a = case["setup"]()
            if args.tune > 0:
                started = time.monotonic()
                TUNING.budget_s = args.tune
                try:
                    entry["tuned_params"] = case["run"](a)
                finally:
                    TUNING.budget_s = None
                entry["tune_s"] = round(time.monotonic() - started, 1)
                report = dict(TUNING.kernel.last_tuning or {})
                report["rejected"] = [f"{p}: {why}" for p, why in report.get("rejected", [])]
                entry["tuning_report"] = report
            case["run"](a)
            case["run"](a)  # the second call takes the wrapper's fast path (the compiled kernel reused)
            torch.cuda.synchronize()
            got, want = case["out"](a), case["ref"](a)
            err = (got.double() - want.double()).abs().max().item() if got.numel() else 0.0
            entry["max_abs_err"] = err
            entry["correct"] = within(got, want, case)
            if entry["correct"]:
                entry["tessel_ms"] = timed(lambda: case["run"](a))
                entry["torch_eager_ms"] = timed(lambda: case["ref"](a))
                entry["speedup_vs_torch_eager"] = entry["torch_eager_ms"] / entry["tessel_ms"]
                entry["tessel_kernel_ms"] = kernel_ms(lambda: case["run"](a))
                entry["torch_eager_kernel_ms"] = kernel_ms(lambda: case["ref"](a))
                entry["tessel_host_us_per_call"] = host_us(lambda: case["run"](a))
                if "peer" in case:  # hand-written Triton, checked like tessel before it is timed
                    try:
                        peer_out = case["setup"]()
                        case["peer"](peer_out)
                        torch.cuda.synchronize()
                        peer_want = case["ref"](peer_out)  # setup may draw fresh inputs
                        perr = (case["out"](peer_out).double() - peer_want.double()).abs().max().item()
                        if within(case["out"](peer_out), peer_want, case):
                            entry["triton_hand_ms"] = timed(lambda: case["peer"](peer_out))
                            entry["triton_hand_kernel_ms"] = kernel_ms(lambda: case["peer"](peer_out))
                            entry["kernel_speed_vs_triton_hand"] = entry["triton_hand_kernel_ms"] / entry["tessel_kernel_ms"]
                        else:
                            entry["triton_hand_error"] = f"max abs err {perr}"
                    except Exception as e:
                        entry["triton_hand_error"] = f"{type(e).__name__}: {e}"[:300]
                if args.compile_peer:
                    try:
                        compiled = torch.compile(case["ref"], dynamic=False)
                        compiled(a)
                        entry["torch_compile_ms"] = timed(lambda: compiled(a))
                        entry["speedup_vs_torch_compile"] = entry["torch_compile_ms"] / entry["tessel_ms"]
                    except Exception as e:  # the peer failing is recorded, not fatal
                        entry["torch_compile_error"] = f"{type(e).__name__}: {e}"[:300]
                if "bytes" in case:
                    entry["tessel_GBps"] = case["bytes"](a) / entry["tessel_ms"] / 1e6
                if "flops" in case:
                    entry["tessel_TFLOPs"] = case["flops"](a) / entry["tessel_ms"] / 1e9
        except Exception as e:  # a failure is a result too: record it
            entry["error"] = f"{type(e).__name__}: {e}"[:500]
        print(json.dumps(entry), flush=True)
        results.append(entry)
        write(args, version, results)  # after every case: a run cut short still leaves its results


def write(args, version, results):
    doc = {
        "date": datetime.date.today().isoformat(),
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__, "triton": triton.__version__, "tessel": version,
        "note": args.note,
        "timing": ("*_ms: median of 20 CUDA-event timings after 3 warm-up launches (end to end, includes the "
                   "host launch path when it is the bottleneck); *_kernel_ms: device time of the launched "
                   "kernels from the torch profiler, mean of 20 calls; correctness checked first"),
        "tuning": (f"each kernel tuned for up to {args.tune} s on the case's arguments (closed search over "
                   "the declared parameters, checked against the default)") if args.tune > 0 else "defaults",
        "results": results,
    }
    write_results(doc, args.out, args.tag)


if __name__ == "__main__":
    main()
