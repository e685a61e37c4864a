#!/usr/bin/env python3
"""DSL-level fuzzer (issue 47 item 3): random *Python* kernels over tessel.language, run through the
tracer, the KIR and pgpu interpreters and the Triton provider (TRITON_INTERPRET=1), compared against an
independent NumPy evaluation of the same random program.

One random expression tree gives both spellings: `Node.code` is the DSL text written into the kernel
file, `Node.ev` evaluates the same operation in float64 NumPy together with a rigorous forward error
bound (running error analysis: each rounding in a dtype adds u_dtype * |result| plus the dtype's
smallest normal; sums add gamma_n * sum |terms|; library functions 4 ulp of f32 before the dtype's
own rounding). The NumPy side never reads tessel: a result outside the bound is a silent mismatch.
A comparison whose outcome the bound cannot decide (|a - b| <= error) makes the boolean uncertain, and
what depends on it is bounded by both outcomes or left unchecked (inf).

Kernels are written into --work as k_<seed>_<i>.py and run in worker processes (a hang is a timeout,
a crash of a worker a finding). A finding is:
  - a crash/abort/timeout of the tessel binary or of the worker;
  - a Python exception from inside tessel other than tessel.CompileError (a traceback), or a
    CompileError that does not name the user's kernel file and a line;
  - a valid program refused (a CompileError on a generated valid kernel; triage: generator or tessel);
  - a numeric mismatch beyond the bound; an unwritten output element that the program writes;
  - for the *invalid* programs (one defect injected on purpose at a known line: a store to an In view,
    reading an Out before writing it, a wrong coordinate count, mismatched extents, a float index, ...):
    acceptance, or an error that does not name the kernel file and the defect's line.
Findings are saved under --save (default build/dsl-fuzz-findings/) as the kernel file plus a .txt with
the command that reproduces it and the output.

    python3 test/fuzz/dsl_fuzz.py --seconds 60 --jobs 1 --seed 7
    python3 test/fuzz/dsl_fuzz.py --count 500 --seed 3 --no-triton
    python3 test/fuzz/dsl_fuzz.py --replay build/dsl-fuzz-findings/k_7_12.py   (one kernel, verbose)

Deterministic from --seed: kernel i of a run is generated from (seed, i) alone.

This file is the driver (workers, findings, the command line); the rest lives beside it: dsl_nodes.py
(expressions: DSL text and NumPy evaluation with a bound), dsl_programs.py (kernels from templates, the
injected defects) and dsl_oracle.py (shapes, inputs, the reference, running one kernel).
Exit status: 0 when nothing was found, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import select
import shutil
import subprocess
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The generator, the kernels and the oracle live beside this file (loaded by path from python/tests too).
if str(pathlib.Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from dsl_nodes import U, Ctx, Gen, Node, compare, const, float_binop, gamma, reduce_node, unary  # noqa: E402,F401
from dsl_oracle import LARGE, check_outputs, run_program, shapes_for, tessel_bin  # noqa: E402,F401
from dsl_programs import DEFECTS, TEMPLATES, Program  # noqa: E402,F401

# --------------------------------------------------------------------------------------------------
# Findings, workers, the driver
# --------------------------------------------------------------------------------------------------
# Located refusals in which the compiler names its own limit ("not constructed yet", "for now"): a valid
# program refused with a clear error. Counted and listed (issue 47 wants none), findings under --strict.
LIMITATION_MARKERS = ("yet", "for now", "only when its results are stored",
                      # scans as values (docs/language.md, Scans): the uses of a scan kir-to-pgpu builds
                      "constructs a scan's results where", "constructs a value computed from several scans",
                      "constructs a reduction of a scan's results", "constructs a reduction along a scan's axis",
                      "a loop carrying a scan's results is constructed")


def classify(findings):
    """(real findings, limitations)."""
    real, lim = [], []
    for kind, detail in findings:
        if kind.startswith("interpreter departure") or \
                (kind.startswith("refused (located)") and any(m in detail for m in LIMITATION_MARKERS)):
            lim.append((kind, detail))
        else:
            real.append((kind, detail))
    return real, lim


def signature(kind, detail):
    """A short class of a finding: its kind and the first error message without locations and numbers."""
    import re
    msg = ""
    for line in detail.splitlines():
        m = re.search(r"error: (.*)$", line) or re.search(r"((?:\w+Error|InterpreterError)\b.*)$", line)
        if m:
            msg = m.group(1)
            break
    if not msg and kind.startswith("mismatch"):
        msg = "numeric mismatch"
    if not msg:
        msg = detail.strip().splitlines()[-1] if detail.strip() else ""
    msg = re.sub(r"'?/[^ :']+'?", "FILE", msg)
    msg = re.sub(r"\d+", "N", msg)
    return f"{kind}: {msg[:160]}"


def serve(args):
    """Worker: reads kernel indices from stdin, answers one JSON line each (prefixed '@@ ')."""
    work = pathlib.Path(args.work)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        i = int(line)
        t0 = time.time()
        try:
            prog = Program(args.seed, i)
            findings = run_program(prog, work / "kernels", not args.no_triton, long=not args.short)
            name = prog.template + (f":{prog.idiom}" if getattr(prog, "idiom", None) else "")
            res = {"index": i, "template": name, "invalid": prog.invalid[0] if prog.invalid else None,
                   "skip_triton": bool(prog.skip_triton), "findings": findings}
        except Exception:
            res = {"index": i, "template": "?", "invalid": None, "skip_triton": False,
                   "findings": [("fuzzer error", traceback.format_exc()[-4000:])]}
        res["seconds"] = round(time.time() - t0, 3)
        sys.stdout.write("@@ " + json.dumps(res) + "\n")
        sys.stdout.flush()
        shutil.rmtree(work / "kernels" / f"tmp_{args.seed}_{i}", ignore_errors=True)  # the kernel file stays


class Worker:
    def __init__(self, args, n):
        self.args, self.n = args, n
        self.start()

    def start(self):
        env = dict(os.environ)
        env["TRITON_INTERPRET"] = "1"
        env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
        env.setdefault("TESSEL_CACHE", str(pathlib.Path(self.args.work) / "cache"))
        env["TESSEL_BIN"] = tessel_bin()
        cmd = [sys.executable, str(pathlib.Path(__file__).resolve()), "--serve", "--seed", str(self.args.seed),
               "--work", self.args.work] + (["--no-triton"] if self.args.no_triton else []) + \
            (["--short"] if self.args.short else [])
        self.err = open(pathlib.Path(self.args.work) / f"worker{self.n}.stderr", "ab")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, env=env)
        self.buf, self.index, self.since = b"", None, None

    def send(self, i):
        self.index, self.since = i, time.time()
        self.proc.stdin.write(f"{i}\n".encode())
        self.proc.stdin.flush()

    def kill(self):
        try:
            self.proc.kill()
            self.proc.wait(timeout=10)
        except Exception:
            pass
        self.err.close()


def save_finding(args, res, kind, detail):
    save = pathlib.Path(args.save)
    save.mkdir(parents=True, exist_ok=True)
    i = res["index"]
    src = pathlib.Path(args.work) / "kernels" / f"k_{args.seed}_{i}.py"
    stem = f"k_{args.seed}_{i}"
    if src.exists():
        shutil.copy(src, save / f"{stem}.py")
    n = len(list(save.glob(f"{stem}*.txt")))
    (save / f"{stem}.{n}.txt").write_text(
        f"finding: {kind}\nsignature: {signature(kind, detail)}\ntemplate: {res.get('template')}\n"
        f"reproduce: python3 test/fuzz/dsl_fuzz.py --seed {args.seed} --only {i}\n\n{detail}\n")


def threading_main():
    import threading
    return threading.current_thread() is threading.main_thread()


def main(argv=None):
    saved = {k: os.environ.get(k) for k in ("TRITON_INTERPRET", "TESSEL_CACHE")}
    try:
        return _main(argv)
    finally:  # called in process (python/tests/test_dsl_fuzz.py): leave the environment as it was
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=None, help="kernels to run (default: until --seconds)")
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="first kernel index")
    ap.add_argument("--timeout", type=float, default=300, help="seconds one kernel may take (all its runs)")
    ap.add_argument("--save", default=str(ROOT / "build" / "dsl-fuzz-findings"))
    ap.add_argument("--work", default=None)
    ap.add_argument("--no-triton", action="store_true", help="skip the Triton provider (TRITON_INTERPRET=1)")
    ap.add_argument("--short", action="store_true",
                    help="small shapes only: no long third shape for the idioms (the CI budget)")
    ap.add_argument("--templates", default=None,
                    help="comma-separated templates to run (e.g. idiom, or idiom:band for one idiom); others skipped")
    ap.add_argument("--strict", action="store_true", help="located refusals of valid programs are findings too")
    ap.add_argument("--only", type=int, default=None, help="run kernel INDEX in this process and print it")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.work is None:
        args.work = str(ROOT / "build" / "dsl-fuzz-work")
    # before triton is imported: the generated modules run under Triton's interpreter
    os.environ["TRITON_INTERPRET"] = "1"
    os.environ.setdefault("TESSEL_CACHE", str(pathlib.Path(args.work) / "cache"))
    if not args.no_triton:
        try:
            import triton  # noqa: F401
            import torch  # noqa: F401
        except ImportError:
            print("dsl-fuzz: triton or torch is not installed: skipping the Triton provider", flush=True)
            args.no_triton = True
    pathlib.Path(args.work).mkdir(parents=True, exist_ok=True)
    if args.serve:
        serve(args)
        return 0
    if args.only is not None:
        sys.path.insert(0, str(ROOT / "python"))
        prog = Program(args.seed, args.only)
        print(prog.source())
        findings = run_program(prog, pathlib.Path(args.work) / "kernels", not args.no_triton, long=not args.short)
        for kind, detail in findings:
            print(f"== {kind}\n{detail}\n")
        real, lim = classify(findings)
        print(f"dsl-fuzz: kernel {args.only}: {len(real)} findings, {len(lim)} limitations")
        return 1 if real or (args.strict and lim) else 0
    if args.count is None and args.seconds is None:
        args.count = 100
    deadline = time.time() + args.seconds if args.seconds is not None else None
    workers = [Worker(args, n) for n in range(max(1, args.jobs))]
    nxt, done, stats, sent = args.start, 0, {}, 0
    limit = args.count
    wanted = set(args.templates.split(",")) if args.templates else None

    def selected(i):
        if wanted is None:
            return True
        prog = Program(args.seed, i)
        return prog.template in wanted or f"idiom:{getattr(prog, 'idiom', '')}" in wanted

    def feed(w):
        """Sends the next kernel index (of the selected templates) to worker w."""
        nonlocal nxt, sent
        while not selected(nxt):
            nxt += 1
        w.send(nxt)
        nxt += 1
        sent += 1
    nfind, nlim, ninvalid, sigs = 0, 0, 0, {}
    t0 = time.time()

    def more():
        return (limit is None or sent < limit) and (deadline is None or time.time() < deadline)

    def record(res):
        nonlocal done, nfind, nlim, ninvalid
        done += 1
        stats[res["template"]] = stats.get(res["template"], 0) + 1
        ninvalid += bool(res.get("invalid"))
        real, lim = classify([tuple(f) for f in res["findings"]])
        if args.strict:
            real, lim = real + lim, []
        nlim += bool(lim)
        for kind, detail in lim:
            sigs.setdefault("limitation " + signature(kind, detail), []).append(res["index"])
        if real:
            nfind += 1
            for kind, detail in real:
                save_finding(args, res, kind, detail)
                sigs.setdefault(signature(kind, detail), []).append(res["index"])
            print(f"dsl-fuzz: FINDING kernel {res['index']} ({res['template']}): "
                  f"{'; '.join(signature(k, d) for k, d in real)}", flush=True)

    def on_term(signum, frame):  # a deep run ended by `kill PID` still prints its summary
        raise KeyboardInterrupt
    import signal
    previous = signal.signal(signal.SIGTERM, on_term) if threading_main() else None
    try:
        for w in workers:
            if more():
                feed(w)
        while any(w.index is not None for w in workers):
            busy = {w.proc.stdout.fileno(): w for w in workers if w.index is not None}
            ready, _, _ = select.select(list(busy), [], [], 1.0)
            for fd in ready:
                w = busy[fd]
                chunk = os.read(fd, 1 << 16)
                if not chunk:  # the worker died: its kernel is the finding
                    rc = w.proc.wait()
                    res = {"index": w.index, "template": "?",
                           "findings": [("worker died", f"exit status {rc} (signal when negative)")]}
                    record(res)
                    w.kill()
                    w.start()
                    if more():
                        feed(w)
                    continue
                w.buf += chunk
                while b"\n" in w.buf:
                    line, w.buf = w.buf.split(b"\n", 1)
                    if not line.startswith(b"@@ "):
                        continue
                    record(json.loads(line[3:]))
                    w.index = None
                    if more():
                        feed(w)
            for w in workers:
                if w.index is not None and time.time() - w.since > args.timeout:
                    record({"index": w.index, "template": "?",
                            "findings": [("timeout", f"kernel {w.index} ran longer than {args.timeout} s")]})
                    w.kill()
                    w.start()
                    if more():
                        feed(w)
    except KeyboardInterrupt:
        print("dsl-fuzz: interrupted; the kernels in flight are not counted", flush=True)
    finally:
        for w in workers:
            w.kill()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    el = time.time() - t0
    print(f"dsl-fuzz: {done} kernels (seed {args.seed}, {ninvalid} invalid on purpose) in {el:.0f} s; "
          f"templates {dict(sorted(stats.items()))}; {nfind} with findings, {nlim} with limitations", flush=True)
    for sig, idx in sorted(sigs.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(idx):5d}  {sig}  (e.g. kernel {idx[0]})")
    return 1 if nfind else 0


if __name__ == "__main__":
    sys.exit(main())
