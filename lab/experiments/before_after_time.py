"""Before/after the session, one process (sources from before_after_gen.py in scratch/ab/): the Triton each compiler (7d12702, and this session's main)
generates for the same kernels and parameters, checked against torch and against each other, then
timed alternately (median of CUDA-event timings)."""
import datetime, importlib.util, json, os, statistics, sys
import torch
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path); m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m); return m
def timed(fn, reps=30):
    for _ in range(3): fn()
    torch.cuda.synchronize(); ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize(); ts.append(a.elapsed_time(b))
    return statistics.median(ts)
def nz(*s, dtype=torch.float32):
    x = torch.rand(*s, device="cuda") * 0.75 + 0.25
    return (x * torch.where(torch.rand(*s, device="cuda") < 0.5, -1.0, 1.0)).to(dtype)
def main():
    M, N = 16384, 8192
    cases = {
      "softmax": (lambda: [nz(M, N), torch.empty(M, N, device="cuda")], {}, lambda a: torch.softmax(a[0], -1), 1),
      "layernorm": (lambda: [nz(M, N), nz(N), nz(N), torch.empty(M, N, device="cuda")], {"eps": 1e-5},
                    lambda a: torch.nn.functional.layer_norm(a[0], (N,), a[1], a[2], 1e-5), 3),
      "rmsnorm_bf16": (lambda: [nz(4096, 1024, dtype=torch.bfloat16), nz(1024, dtype=torch.bfloat16),
                                torch.empty(4096, 1024, device="cuda", dtype=torch.bfloat16)], {"eps": 1e-5},
                       lambda a: (a[0].float() * torch.rsqrt(a[0].float().pow(2).mean(-1, keepdim=True) + 1e-5) * a[1].float()), 2),
      "matmul": (lambda: [nz(4096, 4096, dtype=torch.bfloat16), nz(4096, 4096, dtype=torch.bfloat16),
                          torch.empty(4096, 4096, device="cuda", dtype=torch.bfloat16)], {}, lambda a: a[0].float() @ a[1].float(), 2),
    }
    results = []
    for name, (make, kw, ref, out) in cases.items():
        a = make()
        mods = {w: getattr(load(f"scratch/ab/{name}_{w}.py", f"{name}_{w}"), name) for w in ("old", "new")}
        outs = {}
        for w, f in mods.items():
            a[out].fill_(float("nan")); f(*a, **kw); torch.cuda.synchronize(); outs[w] = a[out].clone()
        want = ref(a)
        err = {w: (o.double() - want.double()).abs().max().item() for w, o in outs.items()}
        same = torch.equal(outs["old"], outs["new"])
        t = {"old": [], "new": []}
        for _ in range(3):
            for w in ("old", "new"):
                t[w].append(timed(lambda: mods[w](*a, **kw)))
        row = {"kernel": name, "max_abs_err_vs_torch": err, "old_new_bitwise_equal": same,
               "old_ms": statistics.median(t["old"]), "new_ms": statistics.median(t["new"])}
        row["new_over_old_time"] = row["new_ms"] / row["old_ms"]
        print(json.dumps(row), flush=True); results.append(row)
    doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "what": f"Row kernels and GEMM before (compiler at {os.environ.get('AB_OLD', '7d12702')}) and after "
                   f"(main at {os.environ.get('AB_NEW', '06bbe1b')}), same "
                   "kernels and tuned parameters (README's), generated Triton loaded side by side in one process; "
                   "outputs checked against torch and against each other, then timed alternately (median of 3 x "
                   "median of 30 CUDA-event timings, end to end including the wrapper).",
           "results": results}
    os.makedirs(os.environ.get("OUT", "."), exist_ok=True)
    json.dump(doc, open(os.path.join(os.environ.get("OUT", "."), os.environ.get("AB_NAME", "2026-12-01-h200-before-after-rows-gemm.json")), "w"), indent=2)


if __name__ == "__main__":
    main()
