"""The differential matrix (issue 19) through a provider that needs a GPU and no tessel build there.

Two phases, like bench/cutile_check.py: here (CPU, build/bin/tessel) every suite kernel the provider
accepts is drawn exactly as python/tests/test_matrix.py draws it for Triton (per seed 4 shapes x every
drawn binding: smallest, largest that fits, random), its source is generated once per binding, and the
KIR interpreter's inputs and outputs are saved; on the GPU machine each case runs through the generated
wrapper on those inputs and must agree with the interpreter (same tolerances as the matrix).

    PYTHONPATH=python:python/tests python3 bench/matrix_gpu.py gen --provider cutile --out bench/matrix_carry
    # on the H200 (cuTile: after cutile-toolchain.sh unpack, with what it prints exported)
    python3 bench/matrix_gpu.py check --carry bench/matrix_carry [--json OUT.json]

`check` prints one line per failing case and a summary line, and exits non-zero on a mismatch or a
failure that is not listed as a known toolchain crash.
"""
import argparse
import dataclasses
import datetime
import importlib.util
import json
import pathlib
import random
import sys
import tempfile
import types

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "python"), str(ROOT / "python" / "tests")]


def gen(provider, out):
    import matrix_lib as M
    import test_matrix as TM  # its shape draws; nothing here runs a test
    out.mkdir(parents=True, exist_ok=True)
    budget = dataclasses.replace(M.CI, shapes=M.CI.triton_shapes, work=M.CI.triton_work)
    suite = M.suite_kernels(pathlib.Path(tempfile.mkdtemp()) / "kir")
    refs = M.Reference(tempfile.mkdtemp())
    cases, rejected, seeds = [], {}, M.seeds(M.CI)
    for k in suite:
        if k.example in M.REJECTED:
            rejected[k.id] = f"construction: {M.REJECTED[k.example]}"
            continue
        res = M.run([M.TESSEL, "compile", k.target, f"--target={provider}", "--emit=source"])
        if res.returncode != 0:
            rejected[k.id] = res.stderr.strip().splitlines()[0][:200]
            continue
        params = M.declared_params(M.run([M.TESSEL, "compile", k.target, "--emit=pgpu"], check=True).stdout, k.name)
        sources = {}
        for seed in seeds:
            rng = random.Random(f"{provider}/{seed}/{k.id}")
            for shape, input_seed in TM._shapes(k, refs, rng, budget):
                want, inputs = refs.get(k, shape, input_seed)
                for b in M.draw_bindings(rng, params, shape):
                    key = tuple(sorted(b.items()))
                    if key not in sources:
                        src = M.run([M.TESSEL, "compile", k.target, f"--target={provider}", "--emit=source",
                                     *[f"--param={n}={v}" for n, v in b.items()]], check=True).stdout
                        sources[key] = f"src/{TM._safe(k.id)}_{len(sources)}.py"
                        (out / "src").mkdir(exist_ok=True)
                        (out / sources[key]).write_text(src)
                    data = f"cases/{len(cases)}.npz"
                    (out / "cases").mkdir(exist_ok=True)
                    np.savez(out / data, **{f"in.{n}": a for n, a in inputs.items()},
                                        **{f"out.{n}": a for n, a in want.items()})
                    cases.append({"kid": k.id, "name": k.name, "source": sources[key], "data": data,
                                  "views": [[v.name, v.mode, v.dtype] for v in k.views], "scalars": k.scalars,
                                  "shape": shape, "binding": b, "input_seed": input_seed,
                                  "exact": k.exact, "rtol": k.rtol, "atol": k.atol})
    manifest = {"provider": provider, "seeds": seeds, "cases": cases, "rejected": rejected}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{provider}: {len({c['kid'] for c in cases})} kernels, {len(cases)} cases, "
          f"{len(rejected)} rejected; carry {out}")


def compare(case, got, want):
    import matrix_lib as M
    kernel = types.SimpleNamespace(exact=case["exact"], rtol=case["rtol"], atol=case["atol"])
    return M.compare(kernel, got, want)


def run_cases(carry, indices):
    """Runs manifest cases `indices` in this process: (passed kernel ids, failures)."""
    import torch
    cases = json.loads((carry / "manifest.json").read_text())["cases"]
    modules, failures, passed = {}, [], []
    for i in indices:
        case = cases[i]
        try:
            if case["source"] not in modules:
                path = carry / case["source"]
                spec = importlib.util.spec_from_file_location(f"_matrix_gpu_{path.stem}", path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                modules[case["source"]] = getattr(module, case["name"])
            data = np.load(carry / case["data"])
            want = {k[4:]: data[k] for k in data.files if k.startswith("out.")}
            args, outs = [], {}
            for name, mode, dtype in case["views"]:
                a = data[f"in.{name}"] if f"in.{name}" in data.files else np.empty(want[name].shape, want[name].dtype)
                t = torch.from_numpy(np.array(a)).cuda()
                t = t.to(torch.bfloat16) if dtype == "bf16" else t
                args.append(t)
                if mode != "in":
                    outs[name] = t
            scalars = {k: (float(v) if "." in v or "e" in v else int(v)) for k, v in case["scalars"].items()}
            modules[case["source"]](*args, **scalars)
            torch.cuda.synchronize()
            got = {k: (t.float() if t.dtype == torch.bfloat16 else t).cpu().numpy() for k, t in outs.items()}
            why = compare(case, got, want)
        except Exception as e:  # a JIT failure or a launch error: reported per case
            text = str(e).strip()
            why = f"{type(e).__name__}: {text.splitlines()[-1][:300] if text else ''}"
        if why is None:
            passed.append(case["kid"])
        else:
            failures.append({"kid": case["kid"], "shape": case["shape"], "binding": case["binding"],
                             "input_seed": case["input_seed"], "why": why})
    return passed, failures


def check(carry, json_path=None, known=(), jobs=1):
    import concurrent.futures
    import multiprocessing
    import torch
    manifest = json.loads((carry / "manifest.json").read_text())
    # Cases of one kernel stay in one process (its modules JIT once there).
    by_kid = {}
    for i, case in enumerate(manifest["cases"]):
        by_kid.setdefault(case["kid"], []).append(i)
    chunks = [[] for _ in range(max(jobs, 1))]
    for n, indices in enumerate(sorted(by_kid.values(), key=len, reverse=True)):
        min(chunks, key=len).extend(indices)
    with concurrent.futures.ProcessPoolExecutor(len(chunks), mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = list(pool.map(run_cases, [carry] * len(chunks), chunks))
    passed = [k for p, _ in parts for k in p]
    failures = [f for _, fs in parts for f in fs]
    for f in failures:
        f["known"] = any(f["kid"].endswith(k) or f"/{k}[" in f["kid"] for k in known)
        print(f"FAIL {f['kid']} {f['shape']} {f['binding']}: {f['why']}", flush=True)
    unknown = [f for f in failures if not f["known"]]
    failing = {f["kid"] for f in failures}
    agree = {k for k in passed if k not in failing}
    line = (f"{manifest['provider']} on {torch.cuda.get_device_name()}: {len(agree)} kernels agree at every case, "
            f"{len(passed)} of {len(manifest['cases'])} cases pass, {len(failures)} fail ({len(unknown)} not "
            f"known; failing kernels: {sorted(failing)}); seeds {manifest['seeds']}; rejected by the provider or "
            f"construction: {len(manifest['rejected'])}")
    print(line)
    if json_path:
        doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
               "provider": manifest["provider"], "summary": line, "failures": failures,
               "rejected": manifest["rejected"], "known": list(known)}
        pathlib.Path(json_path).write_text(json.dumps(doc, indent=1) + "\n")
    return 1 if unknown else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--provider", default="cutile")
    g.add_argument("--out", type=pathlib.Path, default=ROOT / "bench" / "matrix_carry")
    c = sub.add_parser("check")
    c.add_argument("--carry", type=pathlib.Path, default=ROOT / "bench" / "matrix_carry")
    c.add_argument("--json")
    c.add_argument("--jobs", type=int, default=8, help="processes (each its own CUDA context)")
    c.add_argument("--known", action="append", default=[],
                   help="a kernel whose failures are a known toolchain crash (reported, not fatal)")
    args = parser.parse_args()
    if args.cmd == "gen":
        gen(args.provider, args.out)
        return 0
    return check(args.carry, args.json, args.known, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
