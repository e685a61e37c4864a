"""compute-sanitizer over every suite kernel (issue 14): memcheck and racecheck on the Triton provider's
generated kernels at odd shapes, each launch also checked against the KIR interpreter.

Two halves, because the GPU machine has no MLIR (no tessel compiler):

    python3 bench/sanitize.py prepare --dir scratch/sanitize        # here: Triton sources, inputs, references
    python3 bench/sanitize.py prepare --set tiny --dir scratch/sanitize-tiny   # sizes 0, 1 and one-block tails
    python3 bench/sanitize.py drive --dir scratch/sanitize --out R.json   # GPU: plain run, then the tools

`prepare` writes, per case (kernel, odd shapes, constexpr variant), the generated Triton module and an
.npz of the KIR interpreter's inputs and outputs. `run` imports each module, launches it once on the
inputs and compares with the interpreter (TRITON_INTERPRET=1 runs it on the CPU, which tests this script
without a GPU). `drive` runs `run` without a tool, under `compute-sanitizer --tool memcheck` and under
`--tool racecheck`, side by side, and writes the results JSON: each tool's error count and summary lines, and each case's outcome under each run.
"""
import argparse
import concurrent.futures
import importlib.util
import json
import os
import pathlib
import platform
import re
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]

# (kernel, shapes, constexprs): odd sizes over several blocks and programs, with tails and masks.
CASES = [
    ("vector_add", {"N": 100003}, {}),
    ("fused_pointwise", {"N": 4099}, {}),
    ("softmax", {"M": 37, "N": 1029}, {}),
    ("softmax_relaxed", {"M": 37, "N": 1029}, {}),
    ("online_softmax", {"M": 13, "N": 1029}, {}),
    ("layernorm", {"M": 37, "N": 1029}, {}),
    ("rmsnorm", {"M": 37, "N": 1029}, {}),
    ("argmax", {"M": 37, "N": 1029}, {}),
    ("cross_entropy", {"M": 37, "C": 1029}, {}),
    ("cumsum", {"M": 5, "N": 1029}, {}),
    ("cumsum", {"M": 5, "N": 1029}, {"EXCLUSIVE": True, "REVERSE": True}),
    ("cummax", {"M": 5, "N": 1029}, {}),
    ("cummax", {"M": 5, "N": 1029}, {"REVERSE": True}),
    ("transpose", {"M": 37, "N": 129}, {}),
    ("gemv", {"M": 37, "K": 1029}, {}),
    ("batched_gemv", {"B": 3, "M": 37, "K": 129}, {}),
    ("gemm", {"M": 37, "N": 129, "K": 71}, {}),
    ("gemm", {"M": 37, "N": 129, "K": 71}, {"HAS_BIAS": True, "ACTIVATION": "relu"}),
    ("matmul", {"M": 37, "N": 45, "K": 29}, {}),
    ("batched_gemm", {"B": 3, "M": 37, "N": 33, "K": 29}, {}),
    ("histogram", {"N": 10007, "B": 37}, {}),
    ("embedding", {"V": 37, "D": 67, "T": 129}, {}),
    ("scatter_add", {"V": 37, "D": 67, "T": 129}, {}),
    ("attention", {"B": 2, "H": 3, "S": 67, "T": 67, "D": 64}, {}),
    ("attention", {"B": 1, "H": 2, "S": 37, "T": 53, "D": 64}, {"CAUSAL": False}),
    ("linear_attention", {"B": 1, "H": 2, "T": 67, "D": 32, "E": 16}, {}),
    # Session 9: the two kernels the Triton provider constructs since session 7 (kernel-level workspace,
    # data-dependent worksets), every split variant.
    ("splitk_gemm", {"M": 37, "N": 129, "K": 1029}, {}),
    ("splitk_gemm", {"M": 37, "N": 129, "K": 1029}, {"SPLITS": 1}),
    ("splitk_gemm", {"M": 37, "N": 129, "K": 1029}, {"SPLITS": 3}),
    ("splitk_gemm", {"M": 37, "N": 129, "K": 1029}, {"SPLITS": 7}),
    ("grouped_gemm", {"G": 5, "M": 37, "K": 71, "N": 129}, {}),
    ("grouped_gemm", {"G": 3, "M": 67, "K": 129, "N": 45}, {}),
]
# The second set: every odd shape the DSL tests list per kernel (sizes 0 and 1, one-block tails), at each
# kernel's first constexpr variant (`prepare --set tiny`).
TINY = "tiny"
# Kernels the Triton provider does not construct yet (README "Not built yet"): none since session 7
# (split-K's kernel-level workspace and grouped GEMM's data-dependent worksets were the last two).
SKIPPED = {}


def case_id(name, shapes, cx):
    return "-".join([name] + [f"{k}{v}" for k, v in shapes.items()] + [f"{k}{v}" for k, v in sorted(cx.items())])


def prepare(directory: pathlib.Path, only=None, which="odd"):
    import numpy as np
    sys.path[:0] = [str(ROOT / "python"), str(ROOT / "python" / "tests"), str(ROOT / "examples")]
    from test_dsl import ALL  # scalars and tolerances of each suite kernel
    directory.mkdir(parents=True, exist_ok=True)
    manifest = []
    cases = CASES if which != TINY else [(n, s, spec.get("constexprs", [{}])[0]) for n, spec in sorted(ALL.items())
                                         if n not in SKIPPED for s in spec["shapes"]]
    for name, shapes, cx in cases:
        if only and name not in only:
            continue
        spec = ALL[name]
        kernel = getattr(__import__(name), name)
        cid = case_id(name, shapes, cx)
        scalars = spec.get("scalars", {})
        ref = kernel.run_interp(shapes, scalars=scalars, constexprs=cx, seed=11)
        # The binding a call of these shapes launches: the declared defaults, with parameters that cover a
        # shape symbol taken from it (Kernel._fact_params), as `@tessel.kernel` does without a tuned winner.
        arrays = [ref.get(f"{p.name}.in", ref.get(p.name)) for p in kernel.params() if p.kind == "view"]
        params = kernel._fact_params(cx, arrays)
        (directory / f"{cid}.py").write_text(kernel.source("triton", cx, params))
        np.savez(directory / f"{cid}.npz", **ref)
        views = [(p.name, p.spec.mode, p.spec.dtype.name) for p in kernel.params() if p.kind == "view"]
        manifest.append(dict(id=cid, kernel=name, shapes=shapes, constexprs=cx, params=params or {}, scalars=scalars,
                             views=views,
                             exact=bool(spec.get("exact")), rtol=max(spec.get("rtol", 1e-5), 1e-5),
                             atol=max(spec.get("atol", 1e-6), 1e-5)))
        print(f"prepared {cid}", flush=True)
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))


def run(directory: pathlib.Path, report: pathlib.Path | None):
    """Launches every prepared case once and compares with the interpreter; one JSON line per case."""
    import numpy as np
    import torch
    device = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
    results = []
    for case in json.loads((directory / "manifest.json").read_text()):
        started = time.time()
        entry = dict(id=case["id"])
        try:
            spec = importlib.util.spec_from_file_location(f"_san_{len(results)}", directory / f"{case['id']}.py")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            ref = np.load(directory / f"{case['id']}.npz")
            args = []
            for name, mode, dtype in case["views"]:
                if f"{name}.in" in ref:
                    t = torch.from_numpy(np.array(ref[f"{name}.in"]))
                else:  # an output only: NaN-filled (f) or garbage-free zeros (int), so stale values show
                    want = ref[name]
                    t = torch.from_numpy(np.full(want.shape, np.nan, want.dtype) if want.dtype.kind == "f"
                                         else np.zeros(want.shape, want.dtype))
                args.append((t.to(torch.bfloat16) if dtype == "bf16" else t).to(device))
            getattr(module, case["kernel"])(*args, **case["scalars"])
            if device == "cuda":
                torch.cuda.synchronize()
            worst = 0.0
            for (name, mode, dtype), t in zip(case["views"], args):
                if name not in ref:
                    continue
                got = t.float().cpu().numpy() if dtype == "bf16" else t.cpu().numpy()
                want = ref[name]
                if case["exact"]:
                    np.testing.assert_array_equal(got, want, err_msg=name)
                else:
                    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=case["rtol"],
                                               atol=case["atol"], err_msg=name)
                if want.size and want.dtype.kind == "f":
                    worst = max(worst, float(np.nanmax(np.abs(got.astype(np.float64) - want))))
            entry.update(ok=True, max_abs_err=worst)
        except Exception as e:  # recorded, not raised: one bad case must not hide the others
            entry.update(ok=False, error=f"{type(e).__name__}: {str(e)[:400]}")
        entry["seconds"] = round(time.time() - started, 3)
        results.append(entry)
        print(json.dumps(entry), flush=True)
    if report:
        report.write_text(json.dumps(results, indent=1))
    return 0 if all(r["ok"] for r in results) else 1


def sanitizer(tool, directory, logs, timeout):
    """One `run` under compute-sanitizer --tool TOOL: (exit status, errors, summary lines, cases, seconds)."""
    log, cases = logs / f"{tool}.log", logs / f"{tool}-cases.json"
    cmd = ["compute-sanitizer", "--tool", tool, "--print-limit", "50", "--error-exitcode", "3",
           sys.executable, __file__, "run", "--dir", str(directory), "--report", str(cases)]
    if tool == "racecheck":
        cmd[3:3] = ["--racecheck-report", "all"]
    started = time.time()
    try:
        with open(log, "w") as f:
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
    text = log.read_text(errors="replace")
    summaries = [line.strip() for line in text.splitlines() if "SUMMARY" in line]
    errors = None
    for line in summaries:
        m = re.search(r"ERROR SUMMARY: (\d+) error", line) or re.search(r"\((\d+) errors?,", line)
        if m:
            errors = (errors or 0) + int(m.group(1))
    hazards = [line.strip() for line in text.splitlines() if re.search(r"(Invalid|Race|Hazard|error)", line)
               and not line.startswith("{")][:40]
    per_case = json.loads(cases.read_text()) if cases.exists() else None
    return dict(tool=tool, exit_status=rc, errors=errors, summary=summaries, findings=hazards,
                cases=per_case, seconds=round(time.time() - started, 1))


def plain_run(directory, logs, timeout):
    """`run` without a tool: each case's outcome and error against the interpreter."""
    started, report = time.time(), logs / "plain-cases.json"
    try:
        p = subprocess.run([sys.executable, __file__, "run", "--dir", str(directory), "--report", str(report)],
                           capture_output=True, text=True, timeout=timeout)
        rc, text = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        rc, text = "timeout", str(e.stdout or "")
    (logs / "plain.log").write_text(text)
    return dict(exit_status=rc, seconds=round(time.time() - started, 1),
                cases=json.loads(report.read_text()) if report.exists() else None)


def drive(directory: pathlib.Path, out: pathlib.Path, logs: pathlib.Path, timeout: float):
    logs.mkdir(parents=True, exist_ok=True)
    import torch
    import triton
    started = time.time()
    result = dict(
        date=time.strftime("%Y-%m-%d"), device=torch.cuda.get_device_name(0), torch=torch.__version__,
        triton=triton.__version__, python=platform.python_version(),
        sanitizer=subprocess.run(["compute-sanitizer", "--version"], capture_output=True, text=True).stdout.strip()
        .splitlines()[-1:],
        provider="triton", skipped=SKIPPED,
        cases=[dict(id=c["id"], kernel=c["kernel"], shapes=c["shapes"], constexprs=c["constexprs"],
                    params=c.get("params", {}))
               for c in json.loads((directory / "manifest.json").read_text())])
    # The plain run and the two tools side by side (three processes on one GPU, each compiling into
    # Triton's cache; 16 cores): the wall time is the slowest of them.
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        plain = pool.submit(plain_run, directory, logs, timeout)
        tools = list(pool.map(lambda t: sanitizer(t, directory, logs, timeout), ["memcheck", "racecheck"]))
        result["plain"] = plain.result()
    result["tools"] = tools
    result["total_errors"] = sum(t["errors"] or 0 for t in tools) if all(t["errors"] is not None for t in tools) \
        else None
    result["seconds"] = round(time.time() - started, 1)
    out.write_text(json.dumps(result, indent=1))
    print(json.dumps({t["tool"]: [t["exit_status"], t["errors"], t["summary"]] for t in tools}))
    print("plain:", sum(c["ok"] for c in result["plain"]["cases"] or []), "of", len(result["cases"]), "cases ok")
    return 0 if result["total_errors"] == 0 and result["plain"]["exit_status"] == 0 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["prepare", "run", "drive"])
    ap.add_argument("--dir", type=pathlib.Path, default=ROOT / "scratch" / "sanitize")
    ap.add_argument("--only", default="", help="prepare: comma-separated kernel names")
    ap.add_argument("--set", default="odd", choices=["odd", TINY], help="prepare: the case set")
    ap.add_argument("--report", type=pathlib.Path, help="run: write the per-case results here")
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "lab" / "results" / "2026-12-01-h200-sanitizer.json")
    ap.add_argument("--logs", type=pathlib.Path, default=pathlib.Path(os.environ.get("OUT", "/tmp")) / "sanitize-logs")
    ap.add_argument("--timeout", type=float, default=150)
    a = ap.parse_args()
    if a.mode == "prepare":
        prepare(a.dir, set(filter(None, a.only.split(","))), a.set)
        return 0
    if a.mode == "run":
        return run(a.dir, a.report)
    return drive(a.dir, a.out, a.logs, a.timeout)


if __name__ == "__main__":
    sys.exit(main())
