"""GPU side (session 11): session 7's run.py (check against SDPA's math backend, then time with the
peers in the same process) over a folder of generated variants and its manifest (gen.py writes them;
the device gets them under scratch/). Each variant is compiled first on a pool of processes
(the generated `<name>_warmup` entry fills Triton's cache), so the timing process only loads them.

    python3 time_variants.py DIR [name-prefixes]"""
import concurrent.futures as cf
import importlib.util as _u
import json
import math
import pathlib
import sys


def _warm(args):
    directory, v = args
    import torch
    spec = _u.spec_from_file_location(v["name"], pathlib.Path(directory) / f"{v['name']}.py")
    mod = _u.module_from_spec(spec)
    spec.loader.exec_module(mod)
    B, H, S, D = v["B"], v["H"], v["S"], v["D"]
    q = torch.empty(B, H, S, D, dtype=torch.bfloat16, device="cuda")
    views = (q, q, q, torch.empty(H, S, S, dtype=torch.bfloat16, device="cuda"), q) if v["kind"] == "bias" else (q, q, q, q)
    try:
        getattr(mod, v["fn"] + "_warmup")(*views, scale=1.0 / math.sqrt(D))
        return v["name"], "ok"
    except Exception as e:  # the timing process reports it again, located
        return v["name"], f"{type(e).__name__}: {e}"[:200]


if __name__ == "__main__":
    directory = pathlib.Path(sys.argv[1]).resolve()
    man = json.loads((directory / "manifest.json").read_text())
    only = sys.argv[2].split(",") if len(sys.argv) > 2 and sys.argv[2] else None
    todo = [v for v in man if not only or any(v["name"].startswith(o) for o in only)]
    import multiprocessing as mp
    with cf.ProcessPoolExecutor(8, mp_context=mp.get_context("spawn")) as pool:
        for name, status in pool.map(_warm, [(str(directory), v) for v in todo]):
            print("warm", name, status, flush=True)
    spec = _u.spec_from_file_location("run7", pathlib.Path.cwd() / "bench" / "experiments" / "attention_session7" / "run.py")
    run7 = _u.module_from_spec(spec)
    spec.loader.exec_module(run7)
    run7.HERE = directory
    sys.argv = [sys.argv[0]] + ([sys.argv[2]] if len(sys.argv) > 2 else [])
    run7.main()
    # Device time alone (torch profiler, run_bench.kernel_ms) of the variants marked "profile": what the
    # kernels cost without the host's launch path (the split's workspace and ticket set-up included).
    import os
    import torch
    from run_bench import kernel_ms, nonzero
    rows = []
    for v in todo:
        if not v.get("profile"):
            continue
        B, H, S, D = v["B"], v["H"], v["S"], v["D"]
        spec = _u.spec_from_file_location(v["name"] + "_p", directory / f"{v['name']}.py")
        mod = _u.module_from_spec(spec)
        spec.loader.exec_module(mod)
        fn = getattr(mod, v["fn"])
        q, k, vv = (nonzero(B, H, S, D, dtype=torch.bfloat16) for _ in range(3))
        views = (q, k, vv, nonzero(H, S, S, dtype=torch.bfloat16), torch.empty_like(q)) if v["kind"] == "bias" \
            else (q, k, vv, torch.empty_like(q))
        try:
            ms = kernel_ms(lambda: fn(*views, scale=1.0 / math.sqrt(D)))
            rows.append(dict(name=v["name"], kernel_ms=ms))
        except Exception as e:
            rows.append(dict(name=v["name"], error=f"{type(e).__name__}: {e}"[:300]))
        print(json.dumps(rows[-1]), flush=True)
    (pathlib.Path(os.environ.get("OUT", ".")) / "profile.json").write_text(json.dumps(rows, indent=1))
