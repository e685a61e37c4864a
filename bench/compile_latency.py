#!/usr/bin/env python3
"""Compile latency of one kernel through the Python API, trace -> generated source, the source cache off
(issue 46 item 2). Each of N rounds traces afresh and compiles afresh; the median and the best of each
part are printed (the best is the steadier figure on a loaded machine):

    trace      the DSL kernel traced to KIR text (Kernel.kir)
    compile    KIR text -> the provider's source, as Kernel.compile does it: in process through the
               compiler module (_tessel_compiler, tessel._in_process) or with `tessel compile` as a subprocess
    total      trace + compile: the latency the issue's goal (<= 20 ms for a row kernel) is about

For the subprocess path `compile` is further split into the process's start (`tessel --version`, the
same binary: exec, dynamic linking, static initializers), the temporary KIR file, and the rest (the
parse, the pipeline and the emission inside the process, and Python reading back its output). In
process it is split into the call's MLIRContext (a call refused before the parse: the context created
with its dialects and destroyed) and the rest (parse, pipeline, emission).

    python3 bench/compile_latency.py [FILE.py[:KERNEL]] [--rounds 20] [--target triton] [--mode both|module|subprocess]

FILE.py defaults to bench/corpus/12_row_l2norm.py (a row kernel; a corpus file's KERNEL and CONSTEXPRS are
used, else the KERNEL named, e.g. examples/softmax.py:softmax).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import tessel  # noqa: E402
from tessel import _cli, _in_process  # noqa: E402


DERIVED = ("parse+pipeline+emit+read", "parse+pipeline+emit")


def _load(path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(f"_latency_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ms(seconds: float) -> float:
    return seconds * 1e3


def measure(kernel, constexprs: dict, target: str, in_process: bool, rounds: int) -> dict:
    parts: dict = {"trace": [], "compile": [], "total": []}
    if in_process:
        parts.update({"context": [], "parse+pipeline+emit": []})
    else:
        parts.update({"process start": [], "temporary file": [], "parse+pipeline+emit+read": []})
    emit = "wrapper" if target == "ptx" else "source"
    previous = os.environ.get("TESSEL_IN_PROCESS")
    os.environ["TESSEL_IN_PROCESS"] = "1" if in_process else "0"
    try:
        for _ in range(rounds + 1):  # the first round warms up (imports, the module's first context)
            kernel._cache.clear()
            t0 = time.perf_counter()
            text = kernel.kir(constexprs)
            t1 = time.perf_counter()
            kernel.compile(emit, constexprs, [f"--target={target}"])
            t2 = time.perf_counter()
            sample = {"trace": t1 - t0, "compile": t2 - t1, "total": t2 - t0}
            if in_process:
                # A request refused before the parse: the module's context (created, dialects loaded,
                # destroyed) and the call itself, without the compile.
                s0 = time.perf_counter()
                _in_process.module().compile(text, emit="none")
                sample["context"] = time.perf_counter() - s0
                sample["parse+pipeline+emit"] = sample["compile"] - sample["context"]
            else:
                s0 = time.perf_counter()
                subprocess.run([_cli.find_tessel(), "--version"], capture_output=True, check=True)
                s1 = time.perf_counter()
                with tempfile.TemporaryDirectory(prefix="tessel-") as tmp:
                    (pathlib.Path(tmp) / "k.mlir").write_text(text)
                s2 = time.perf_counter()
                sample["process start"] = s1 - s0
                sample["temporary file"] = s2 - s1
                sample["parse+pipeline+emit+read"] = (sample["compile"] - sample["process start"]
                                                      - sample["temporary file"])
            if _ == 0:
                continue
            for key, value in sample.items():
                parts[key].append(value)
    finally:
        if previous is None:
            os.environ.pop("TESSEL_IN_PROCESS", None)
        else:
            os.environ["TESSEL_IN_PROCESS"] = previous
    return {key: (statistics.median(values), min(values)) for key, values in parts.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", default=str(ROOT / "bench" / "corpus" / "12_row_l2norm.py"))
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--target", default="triton")
    parser.add_argument("--mode", choices=["both", "module", "subprocess"], default="both")
    args = parser.parse_args()
    file, _, name = args.file.partition(":")
    module = _load(pathlib.Path(file))
    kernel = getattr(module, name) if name else module.KERNEL
    constexprs = dict(getattr(module, "CONSTEXPRS", {}) or {})
    modes = []
    if args.mode in ("both", "subprocess"):
        modes.append(("subprocess", False))
    if args.mode in ("both", "module"):
        if _in_process.module() is None:
            print(f"in process: the compiler module is not importable ({_in_process.why_not()})")
        else:
            modes.append(("in process", True))
    print(f"{pathlib.Path(file).name} kernel {kernel.name}, target {args.target}, "
          f"median (and best) of {args.rounds} rounds, ms; the load average is {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    for label, in_process in modes:
        result = measure(kernel, constexprs, args.target, in_process, args.rounds)
        # A part found by difference (the rest) has no best of its own: its median only.
        print(f"  {label:10s} " + "  ".join(f"{k} {_ms(m):.2f}" + ("" if k in DERIVED else f" ({_ms(b):.2f})")
                                            for k, (m, b) in result.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
