"""The differential matrix (issue 19) through a provider that needs a GPU and no tessel build there.

Two phases, like bench/cutile_check.py: here (CPU, build/bin/tessel) every suite kernel the provider
accepts is drawn exactly as python/tests/test_matrix.py draws it for Triton (per seed 4 shapes x every
drawn binding: smallest, largest that fits, random), its launcher is generated once per binding (the
cuTile or Triton source; the PTX provider's `--emit=wrapper` module, which launches through
libtessel_cuda.so), and the KIR interpreter's inputs and outputs are saved; on the GPU machine each case
runs through the generated launcher on those inputs and must agree with the interpreter (same
tolerances as the matrix).

    PYTHONPATH=python:python/tests TESSEL_MATRIX_SEED=N python3 bench/matrix_gpu.py gen --provider ptx --out DIR
    # on the H200 (PTX: TESSEL_CUDA_LIB=.../libtessel_cuda.so; cuTile: after cutile-toolchain.sh unpack,
    # with what it prints exported, and CUDA_TILE_COMPILER_TIMEOUT_SEC to bound one tileiras run)
    python3 bench/matrix_gpu.py check --carry DIR --jsonl $OUT/ptx.jsonl --deadline 240 [--json OUT.json]
    # anywhere, from what a check wrote (also after it was killed): the summary and the results JSON
    python3 bench/matrix_gpu.py report --carry DIR --jsonl ptx.jsonl --json lab/results/DATE-h200-X.json

bench/matrix_gpu.sh packs both providers with the cuTile toolchain for one device call and runs them there.

`check` runs one task per generated launcher (its cases in a row, so a launcher compiles once) on a pool
of processes, first binding of every kernel first; each case's result is one line of the JSON-lines
file, written and flushed as it finishes, so a run cut off by a time limit still returns what ran.
After `--deadline` seconds no case starts; the ones left are reported as not run. A case fails when it
disagrees with the interpreter (`mismatch`) or raises (`error`: a JIT failure, a launch error, a
toolchain crash; after a tileiras crash or timeout the launcher's later cases are `skipped`);
`--known KERNEL[=WHY]` marks a kernel's errors as a known toolchain failure (reported, not fatal). Exits
non-zero on a mismatch or an unknown error.
"""
import argparse
import dataclasses
import datetime
import importlib.util
import json
import os
import pathlib
import random
import re
import sys
import tempfile
import time
import types

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "python"), str(ROOT / "python" / "tests")]

# cuda.tile's errors for a tileiras crash or timeout: a launcher's later cases would only repeat it
# (a timeout costs CUDA_TILE_COMPILER_TIMEOUT_SEC each), so they are reported as skipped.
TOOLCHAIN_FAILURES = ("CompilerExecutionError", "CompilerTimeoutError")
# A launch the provider declines before launching, with a ValueError saying why: the cuTile wrapper for a
# launch fact whose element-wise branch it does not compile (an extent past its block). Not a failure:
# the case is counted as declined.
DECLINED = ("the cuTile provider compiles only the tiled branch",)
# What `tessel compile --emit=` gives a launcher each provider's Python can import.
EMIT = {"ptx": "wrapper", "cutile": "source", "triton": "source"}


def gen(provider, out, only=None):
    """Draws, generates and saves the cases of every suite kernel (those `only` matches: a manifest
    already in `out` keeps its other kernels' cases, so a few kernels can be drawn again)."""
    import matrix_lib as M
    import test_matrix as TM  # its shape draws; nothing here runs a test
    out.mkdir(parents=True, exist_ok=True)
    # Every seed draws 4 Triton-sized shapes, the edges first (a GPU runs them in moments: CI's Triton budget is
    # the interpreter's, not this one's).
    budget = dataclasses.replace(M.CI, triton_shapes=4, drawn_triton_shapes=4)
    suite = M.suite_kernels(pathlib.Path(tempfile.mkdtemp()) / "kir")
    refs = M.Reference(tempfile.mkdtemp())
    cases, rejected, refused, seeds, emit = [], {}, {}, M.seeds(M.CI), f"--emit={EMIT[provider]}"
    old = out / "manifest.json"
    if only and old.exists():
        kept = json.loads(old.read_text())
        if kept["provider"] != provider or kept["seeds"] != list(seeds):
            raise SystemExit(f"{old} is {kept['provider']} at seeds {kept['seeds']}: draw again with the same "
                             f"provider and TESSEL_MATRIX_SEED={kept['seeds'][-1]}")
        mine = lambda kid: re.search(only, kid)  # noqa: E731
        cases = [c for c in kept["cases"] if not mine(c["kid"])]
        rejected = {k: v for k, v in kept["rejected"].items() if not mine(k)}
        refused = {k: v for k, v in kept.get("refused", {}).items() if not mine(k)}
    for k in suite:
        if only and not re.search(only, k.id):
            continue
        if k.example in M.REJECTED:
            rejected[k.id] = f"construction: {M.REJECTED[k.example]}"
            continue
        params = M.declared_params(M.run([M.TESSEL, "compile", k.target, "--emit=pgpu"], check=True).stdout, k.name)
        sources, mine = {}, []
        for seed in seeds:
            rng = random.Random(f"{provider}/{seed}/{k.id}")
            for shape, input_seed in TM._shapes(k, refs, rng, budget, seed, triton=True):
                want, inputs = refs.get(k, shape, input_seed)
                for b in M.draw_bindings(rng, params, shape):
                    key = tuple(sorted(b.items()))
                    if key not in sources:
                        res = M.run([M.TESSEL, "compile", k.target, f"--target={provider}", emit,
                                     *[f"--param={n}={v}" for n, v in b.items()]])
                        if res.returncode != 0:  # the provider's located diagnostic for this binding
                            sources[key] = None
                            refused.setdefault(k.id, []).append({"binding": b, "why": res.stderr.strip()
                                                                 .splitlines()[0][:300]})
                        else:
                            sources[key] = f"src/{TM._safe(k.id)}_{len(sources)}.py"
                            (out / "src").mkdir(exist_ok=True)
                            (out / sources[key]).write_text(res.stdout)
                    if sources[key] is None:
                        continue
                    data = f"cases/{TM._safe(k.id)}_{len(mine)}.npz"
                    (out / "cases").mkdir(exist_ok=True)
                    np.savez_compressed(out / data, **{f"in.{n}": a for n, a in inputs.items()},
                                        **{f"out.{n}": a for n, a in want.items()})
                    mine.append({"kid": k.id, "name": k.name, "source": sources[key], "data": data,
                                 "views": [[v.name, v.mode, v.dtype] for v in k.views], "scalars": k.scalars,
                                 "shape": shape, "binding": b, "input_seed": input_seed,
                                 "exact": k.exact, "rtol": k.rtol, "atol": k.atol})
        if not mine:  # no binding compiles: the provider does not accept the kernel
            rejected[k.id] = refused.pop(k.id, [{"why": "no binding drawn"}])[0]["why"]
        cases += mine
    # rejected: kernels the provider accepts at no drawn binding (its located diagnostic); refused:
    # bindings of an accepted kernel it refuses before launch, e.g. past the PTX selector's
    # shared-memory budget (their cases are left out).
    manifest = {"provider": provider, "seeds": seeds, "cases": cases, "rejected": rejected, "refused": refused}
    old.write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{provider}: {len({c['kid'] for c in cases})} kernels, {len(cases)} cases, "
          f"{len({c['source'] for c in cases})} launchers, {len(rejected)} rejected, "
          f"{sum(map(len, refused.values()))} bindings of {len(refused)} kernels refused; carry {out}")


def compare(case, got, want):
    import matrix_lib as M
    kernel = types.SimpleNamespace(exact=case["exact"], rtol=case["rtol"], atol=case["atol"])
    return M.compare(kernel, got, want)


def tasks(cases, first=None):
    """[(launcher, [case indices])], one per generated launcher, ordered so that every kernel's first
    launcher comes before any kernel's second (a deadline then leaves each kernel some of its cases);
    the launchers of kernels whose id matches the regular expression `first` (those with the longest
    compiles) come before all others, so that a pool of processes does not end waiting on them."""
    by_source, rank = {}, {}
    for i, case in enumerate(cases):
        if case["source"] not in by_source:
            rank[case["source"]] = sum(1 for s in by_source if cases[by_source[s][0]]["kid"] == case["kid"])
            by_source[case["source"]] = []
        by_source[case["source"]].append(i)
    heavy = lambda source: bool(first and re.search(first, cases[by_source[source][0]]["kid"]))  # noqa: E731
    return sorted(by_source.items(), key=lambda t: (not heavy(t[0]), rank[t[0]]))


def run_task(carry, source, indices, jsonl, stop_at, device):
    """Runs the cases `indices` of one launcher in this process; appends one JSON line per case to
    `jsonl` (one write each, flushed) and returns how many ran."""
    import torch
    cases = json.loads((carry / "manifest.json").read_text())["cases"]
    fn, ran, broken = None, 0, None
    for i in indices:
        if time.time() > stop_at:
            break
        case, t0, detail = cases[i], time.time(), None
        if broken:  # the toolchain crashed or timed out on this launcher: its other cases are not run
            _append(jsonl, {"i": i, "kid": case["kid"], "source": source, "shape": case["shape"],
                            "binding": case["binding"], "input_seed": case["input_seed"], "status": "skipped",
                            "s": 0.0, "why": f"not run: {broken}"})
            continue
        try:
            if fn is None:
                path = carry / source
                spec = importlib.util.spec_from_file_location(f"_matrix_gpu_{path.stem}", path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                fn = getattr(module, case["name"])
            data = np.load(carry / case["data"])
            want = {k[4:]: data[k] for k in data.files if k.startswith("out.")}
            args, outs = [], {}
            for name, mode, dtype in case["views"]:
                a = data[f"in.{name}"] if f"in.{name}" in data.files else np.empty(want[name].shape, want[name].dtype)
                t = torch.from_numpy(np.array(a)).to(device)
                t = t.to(torch.bfloat16) if dtype == "bf16" else t
                args.append(t)
                if mode != "in":
                    outs[name] = t
            scalars = {k: (float(v) if "." in v or "e" in v else int(v)) for k, v in case["scalars"].items()}
            fn(*args, **scalars)
            if device == "cuda":
                torch.cuda.synchronize()
            got = {k: (t.float() if t.dtype == torch.bfloat16 else t).cpu().numpy() for k, t in outs.items()}
            why = compare(case, got, want)
            status = "pass" if why is None else "mismatch"
        except Exception as e:  # a JIT failure, a toolchain crash or a launch error: reported per case
            text, detail = str(e).strip(), _detail(e)
            why, status = f"{type(e).__name__}: {text.splitlines()[-1][:300] if text else ''}", "error"
            if isinstance(e, ValueError) and any(d in text for d in DECLINED):
                status, detail = "declined", None
            if type(e).__name__ in TOOLCHAIN_FAILURES:
                broken = f"{type(e).__name__} on case {i} of this launcher"
        line = {"i": i, "kid": case["kid"], "source": source, "shape": case["shape"], "binding": case["binding"],
                "input_seed": case["input_seed"], "status": status, "s": round(time.time() - t0, 3)}
        if why:
            line["why"] = why
        if status == "error" and detail:
            line["detail"] = detail
        _append(jsonl, line)
        ran += 1
    return ran


def _detail(e):
    """What an error's last line leaves out: the whole message (a toolchain's return code and its own
    stderr) and, for a compiler failure, the flags and version it ran with."""
    parts = [str(e).strip()[-1500:]]
    for attr in ("compiler_flags", "compiler_version"):
        if getattr(e, attr, None):
            parts.append(f"{attr}: {str(getattr(e, attr)).strip()[:300]}")
    return "\n".join(p for p in parts if p)


def _append(jsonl, line):
    fd = os.open(jsonl, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(line) + "\n").encode())  # one append per case: lines never interleave
    finally:
        os.close(fd)


def check(carry, jsonl, deadline, jobs, device, first=None):
    import concurrent.futures
    import multiprocessing
    manifest = json.loads((carry / "manifest.json").read_text())
    stop_at = time.time() + deadline
    import torch
    meta = {"provider": manifest["provider"], "device": torch.cuda.get_device_name() if device == "cuda" else device,
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    pathlib.Path(jsonl).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(jsonl).write_text(json.dumps({"meta": meta}) + "\n")
    work = tasks(manifest["cases"], first)
    print(f"{manifest['provider']}: {len(manifest['cases'])} cases, {len(work)} launchers, {jobs} processes, "
          f"deadline {deadline} s", flush=True)
    with concurrent.futures.ProcessPoolExecutor(max(jobs, 1), mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(run_task, carry, source, indices, str(jsonl), stop_at, device)
                   for source, indices in work]
        for f in concurrent.futures.as_completed(futures):
            f.result()


def read_results(jsonl):
    """({case index: result line}, the run's meta line) from a JSON-lines file (a line cut off by a kill
    is skipped)."""
    out, meta = {}, {}
    for line in pathlib.Path(jsonl).read_text().splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "meta" in r:
            meta = r["meta"]
        else:
            out[r["i"]] = r
    return out, meta


def report(carry, jsonl, known=()):
    """(results document, exit status): per kernel, the shapes, bindings and cases that ran and how
    they ended; mismatches and unknown errors fail."""
    manifest = json.loads((carry / "manifest.json").read_text())
    results, meta = read_results(jsonl)
    per = {}
    for i, case in enumerate(manifest["cases"]):
        k = per.setdefault(case["kid"], {"cases": 0, "pass": 0, "mismatch": 0, "error": 0, "declined": 0, "skipped": 0,
                                         "not_run": 0, "shapes": set(), "bindings": set(), "seconds": 0.0})
        k["cases"] += 1
        r = results.get(i)
        if r is None:
            k["not_run"] += 1
            continue
        k[r["status"]] += 1
        k["seconds"] += r["s"]
        if r["status"] == "pass":
            k["shapes"].add((json.dumps(case["shape"], sort_keys=True), case["input_seed"]))
            k["bindings"].add(json.dumps(case["binding"], sort_keys=True))
    failures = [r for r in results.values() if r["status"] in ("mismatch", "error")]
    names = [k.split("=", 1)[0] for k in known]  # NAME or NAME=why it is known
    for f in failures:
        f["known"] = f["status"] == "error" and any(f["kid"].endswith(k) or f"/{k}[" in f["kid"] for k in names)
    unknown = [f for f in failures if not f["known"]]
    kernels = {kid: {"cases": k["cases"], "pass": k["pass"], "mismatch": k["mismatch"], "error": k["error"],
                     "declined": k["declined"], "skipped": k["skipped"], "not_run": k["not_run"],
                     "shapes_passed": len(k["shapes"]),
                     "bindings_passed": len(k["bindings"]), "seconds": round(k["seconds"], 1)}
               for kid, k in sorted(per.items())}
    full = [kid for kid, k in kernels.items() if k["pass"] + k["declined"] == k["cases"]]
    ran = [kid for kid, k in kernels.items() if k["pass"] + k["mismatch"] + k["error"]]
    agree = [kid for kid in ran if not kernels[kid]["mismatch"] and not kernels[kid]["error"]]
    count = {s: sum(k[s] for k in kernels.values())
             for s in ("cases", "pass", "mismatch", "error", "declined", "skipped", "not_run")}
    deep_enough = [kid for kid in agree if kernels[kid]["shapes_passed"] >= 8 and kernels[kid]["bindings_passed"] >= 3]
    line = (f"{manifest['provider']}: {len(kernels)} kernels accepted, {len(manifest['rejected'])} rejected; "
            f"{count['pass']} of {count['cases']} cases pass, {count['mismatch']} mismatch, {count['error']} "
            f"error ({len(unknown)} not known), {count['declined']} declined before launching (a launch fact's "
            f"branch the provider does not compile), {count['skipped']} skipped after a toolchain failure, "
            f"{count['not_run']} not run (deadline); {len(agree)} of {len(ran)} kernels that "
            f"ran agree at every case run ({len(deep_enough)} of them at >= 8 shapes and >= 3 bindings), {len(full)} "
            f"passed every drawn case it did not decline; seeds {manifest['seeds']}")
    doc = {"date": datetime.date.today().isoformat(), "device": meta.get("device"), "started": meta.get("started"),
           "provider": manifest["provider"],
           "seeds": manifest["seeds"], "summary": line, "counts": count, "kernels": kernels,
           "failures": sorted(failures, key=lambda f: f["i"]), "rejected": manifest["rejected"],
           "refused": manifest.get("refused", {}), "known": list(known)}
    return doc, (1 if unknown else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--provider", default="cutile", choices=sorted(EMIT))
    g.add_argument("--out", type=pathlib.Path, default=ROOT / "bench" / "matrix_carry")
    g.add_argument("--only", help="a regular expression: only the kernel ids it matches (e.g. 'py/softmax$')")
    for name in ("check", "report"):
        c = sub.add_parser(name)
        c.add_argument("--carry", type=pathlib.Path, default=ROOT / "bench" / "matrix_carry")
        c.add_argument("--jsonl", type=pathlib.Path, required=True, help="one line per case, written as it ends")
        c.add_argument("--json", help="the results document")
        c.add_argument("--known", action="append", default=[],
                       help="KERNEL[=WHY]: a kernel whose errors are a known toolchain failure (reported, not fatal)")
        if name == "check":
            c.add_argument("--jobs", type=int, default=8, help="processes (each its own CUDA context)")
            c.add_argument("--deadline", type=float, default=1e9, help="seconds after which no case starts")
            c.add_argument("--device", default="cuda", help="torch device of the launches (cpu: Triton's interpreter)")
            c.add_argument("--first", help="a regular expression: the launchers of the kernel ids it matches start "
                                           "first (the longest compiles, e.g. 'attention')")
    args = parser.parse_args()
    if args.cmd == "gen":
        gen(args.provider, args.out, args.only)
        return 0
    if args.cmd == "check":
        check(args.carry, args.jsonl, args.deadline, args.jobs, args.device, args.first)
    doc, status = report(args.carry, args.jsonl, args.known)
    for f in doc["failures"]:
        print(f"{f['status'].upper()}{' (known)' if f['known'] else ''} {f['kid']} {f['shape']} {f['binding']}: "
              f"{f.get('why', '')}")
    print(doc["summary"], flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
