"""The PTX provider's histogram (pgpu.histogram as shared-memory atomics, the workspace partial and
pgpu.last_program, all selected by tessel itself, seed 004) timed against torch.bincount in one
process. Each `SOURCES/histogram__<NAME>=<V>__....ptx` is `tessel compile examples/kir/histogram.mlir
--target=ptx --param NAME=V ...` made on the CPU machine; the harness loads it with the CUDA driver
(cuModuleLoadData, through ctypes) and launches it on torch's stream with the kernel ABI of
include/tessel/Target/PTX/PTX.h: per view a pointer, its extents and strides (i64), then the
workspace pointers (the zero-filled partial and ticket, allocated per call like the wrappers do).
Correctness (exact, against bincount) before timing; median of CUDA-event timings after warm-up.
Usage on the GPU machine: python3 bench/ptx_histogram.py SOURCES [--out DIR]
"""
import argparse
import ctypes
import datetime
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def timed(fn, reps=20, warmup=3):
    from run_bench import timed as shared  # the same timing as the rest of bench/ (imports torch)
    return shared(fn, reps, warmup)


class Driver:
    def __init__(self):
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self.check(self.cuda.cuInit(0), "cuInit")

    def check(self, rc, what):
        if rc:
            raise RuntimeError(f"{what} failed with CUDA error {rc}")

    def function(self, ptx: bytes, name: bytes):
        module, function = ctypes.c_void_p(), ctypes.c_void_p()
        self.check(self.cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(ptx + b"\0")), "cuModuleLoadData")
        self.check(self.cuda.cuModuleGetFunction(ctypes.byref(function), module, name), "cuModuleGetFunction")
        return function

    def launch(self, function, grid, threads, args, stream):
        holders = [ctypes.c_uint64(a) if kind == "u64" else ctypes.c_int64(a) for kind, a in args]
        pointers = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in holders])
        self.check(self.cuda.cuLaunchKernel(function, ctypes.c_uint(grid), 1, 1, ctypes.c_uint(threads), 1, 1, 0,
                                            ctypes.c_void_p(stream), pointers, None), "cuLaunchKernel")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sources")
    parser.add_argument("--n", type=int, default=1 << 26)
    parser.add_argument("--out", default=str(ROOT / "lab" / "results"))
    parser.add_argument("--tag", default="histogram-ptx")
    args = parser.parse_args()
    import torch
    torch.cuda.init()
    torch.empty(1, device="cuda")  # the primary context is current from here on
    driver = Driver()
    results = []
    for path in sorted(pathlib.Path(args.sources).glob("histogram__*.ptx")):
        b = dict(part.split("=") for part in path.stem.split("__")[1:])
        bins, threads, block_p = int(b["B"]), int(b["THREADS"]), int(b["BLOCK_P"])
        entry = {"B": bins, "N": args.n, "params": {k: v for k, v in b.items() if k != "B"}, "provider": "ptx"}
        try:
            x = torch.randint(0, bins, (args.n,), device="cuda", dtype=torch.int32)
            want = torch.bincount(x, minlength=bins).to(torch.int32)
            h = torch.empty(bins, device="cuda", dtype=torch.int32)
            function = driver.function(path.read_bytes(), b"histogram")
            grid = max(-(-args.n // block_p), 1)

            def call():
                partial = torch.zeros(bins, device="cuda", dtype=torch.int32)
                ticket = torch.zeros(1, device="cuda", dtype=torch.int32)
                driver.launch(function, grid, threads,
                              [("u64", x.data_ptr()), ("i64", args.n), ("i64", 1),
                               ("u64", h.data_ptr()), ("i64", bins), ("i64", 1),
                               ("u64", partial.data_ptr()), ("u64", ticket.data_ptr())],
                              torch.cuda.current_stream().cuda_stream)

            call()
            torch.cuda.synchronize()
            entry["correct"] = bool(torch.equal(h, want))
            if entry["correct"]:
                entry["tessel_ms"] = timed(call)
                entry["bincount_ms"] = timed(lambda: torch.bincount(x, minlength=bins))
                entry["speedup_vs_bincount"] = entry["bincount_ms"] / entry["tessel_ms"]
            else:
                entry["max_abs_err"] = int((h.long() - want.long()).abs().max().item())
        except Exception as e:  # a failure is a result too
            entry["error"] = f"{type(e).__name__}: {e}"[:400]
        print(json.dumps(entry), flush=True)
        results.append(entry)
    doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
           "torch": torch.__version__,
           "timing": "median of 20 CUDA-event timings of one call (workspace allocation included) after 3 "
                     "warm-up calls; exact check first",
           "results": results}
    from run_bench import write_results
    write_results(doc, args.out, args.tag)


if __name__ == "__main__":
    main()
