"""Issue 16, one GPU process: (1) the bf16 fused_pointwise (examples/fused_pointwise.py's expression on bf16
x, y, z, f32 math), 2^26 elements, tessel's Triton module at several bindings (src/pw__<name>.py, generated
on the CPU machine; 'defaults' is the untuned call's binding) vs torch.compile of the same expression;
(2) histogram 2^26 int32 -> 1024 / 65536 bins, the PTX provider's kernels (ptx/*.ptx, tessel compile
examples/kir/histogram.mlir --target=ptx --param ...) launched with the CUDA driver (ctypes; dynamic
shared memory sized from the extern array's `_dynamic<bytes>` name, as tessel's launcher does) vs
torch.bincount. Correctness first: pointwise against eager torch; histogram exact against bincount,
at 2^26 in range and at an odd N with values outside [0, B). Median of 20 CUDA-event timings."""
import ctypes, importlib.util, json, os, pathlib, re, sys, time
import torch
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import statistics
def timed(fn, reps=20, warmup=3):  # bench/run_bench.py's timing
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(); fn(); end.record(); torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)
OUT = pathlib.Path(os.environ.get("OUT", "/tmp"))
rows = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
import triton
rows["triton"] = triton.__version__
log = open(OUT / "log.jsonl", "w")
def emit(r):
    print(json.dumps(r), flush=True); log.write(json.dumps(r) + "\n"); log.flush()

# ---- histogram (PTX) ----
cu = ctypes.CDLL("libcuda.so.1")
torch.empty(1, device="cuda")
def check(rc, what):
    if rc: raise RuntimeError(f"{what}: CUDA error {rc}")
def function(ptx, name):
    m, f = ctypes.c_void_p(), ctypes.c_void_p()
    check(cu.cuModuleLoadData(ctypes.byref(m), ctypes.c_char_p(ptx + b"\0")), "cuModuleLoadData")
    check(cu.cuModuleGetFunction(ctypes.byref(f), m, name.encode()), "cuModuleGetFunction")
    d = re.search(rb"\.extern \.shared \.align 16 \.b8 " + re.escape(name.encode()) + rb"_\w*_dynamic(\d+)\[\]", ptx)
    dyn = int(d.group(1)) if d else 0
    if dyn:
        check(cu.cuFuncSetAttribute(f, 8, ctypes.c_int(dyn)), "cuFuncSetAttribute")
    return f, dyn
def launch(f, dyn, grid, threads, args):
    hold = [ctypes.c_uint64(a) for a in args]
    ptrs = (ctypes.c_void_p * len(hold))(*[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in hold])
    check(cu.cuLaunchKernel(f, grid, 1, 1, threads, 1, 1, dyn, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), ptrs, None), "cuLaunchKernel")
N = 1 << 26
hist = []
for bins in (1024, 65536):
    x = torch.randint(0, bins, (N,), device="cuda", dtype=torch.int32)
    want = torch.bincount(x, minlength=bins).to(torch.int32)
    bc = timed(lambda: torch.bincount(x, minlength=bins))
    emit({"B": bins, "bincount_ms": bc})
    for path in sorted((HERE / "ptx").glob(f"histogram__*__B={bins}.ptx")):
        p = dict(kv.split("=") for kv in path.stem.split("__")[1:])
        e = {"B": bins, "N": N, "provider": "ptx", "params": {k: int(v) for k, v in p.items() if k != "B"}, "bincount_ms": bc}
        try:
            ptx = path.read_bytes()
            hb, hp, bp, th = (int(p[k]) for k in ("HBINS", "HPASSES", "BLOCK_P", "THREADS"))
            name = "histogram$g" + ("1" if bins <= hb * hp else "0")
            f, dyn = function(ptx, name)
            e["kernel"], e["dynamic_shared_bytes"] = name, dyn
            def call(xx, h, n):
                part = torch.zeros(bins, device="cuda", dtype=torch.int32)
                ticket = torch.zeros(1, device="cuda", dtype=torch.int32)
                launch(f, dyn, max(-(-n // bp), 1), th, [xx.data_ptr(), n, 1, h.data_ptr(), bins, 1, part.data_ptr(), ticket.data_ptr()])
            h = torch.full((bins,), -1, device="cuda", dtype=torch.int32)
            call(x, h, N); torch.cuda.synchronize()
            ok = bool(torch.equal(h, want))
            n2 = 1000003
            x2 = torch.randint(-3, bins + 3, (n2,), device="cuda", dtype=torch.int32)
            w2 = torch.bincount(x2[(x2 >= 0) & (x2 < bins)].long(), minlength=bins).to(torch.int32)
            h2 = torch.full((bins,), -1, device="cuda", dtype=torch.int32)
            call(x2, h2, n2); torch.cuda.synchronize()
            e["correct"], e["correct_odd_n_out_of_range"] = ok, bool(torch.equal(h2, w2))
            if ok and e["correct_odd_n_out_of_range"]:
                e["tessel_ms"] = timed(lambda: call(x, h, N))
                e["speedup_vs_bincount"] = bc / e["tessel_ms"]
        except Exception as ex:
            e["error"] = f"{type(ex).__name__}: {ex}"[:300]
        emit(e); hist.append(e)
rows["histogram"] = hist
del x, want

# ---- pointwise ----
pw = []
torch.manual_seed(0)
x = (torch.randn(N, device="cuda") * 2).to(torch.bfloat16)
y = (torch.randn(N, device="cuda") * 2).to(torch.bfloat16)
alpha = 0.75
def expr(x, y):
    xf, yf = x.float(), y.float()
    return (torch.sigmoid(xf) * torch.tanh(yf) + alpha * torch.maximum(xf, yf) - torch.sqrt(yf.abs())).to(torch.bfloat16)
want = expr(x, y)
t0 = time.time()
compiled = torch.compile(expr)
got = compiled(x, y)
tc = timed(lambda: compiled(x, y))
emit({"torch_compile_ms": tc, "torch_compile_max_abs_err": (got.float() - want.float()).abs().max().item(), "compile_s": time.time() - t0})
for path in sorted((HERE / "src").glob("pw__*.py")):
    e = {"binding": path.stem[4:], "N": N, "dtype": "bf16", "torch_compile_ms": tc}
    try:
        spec = importlib.util.spec_from_file_location(path.stem, path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
        e["num_warps"] = int(re.search(r"num_warps=(\d+)", path.read_text()).group(1))
        z = torch.empty(N, dtype=torch.bfloat16, device="cuda")
        m.fused_pointwise_bf16(x, y, z, alpha=alpha); torch.cuda.synchronize()
        e["max_abs_err"] = (z.float() - want.float()).abs().max().item()
        e["tessel_ms"] = timed(lambda: m.fused_pointwise_bf16(x, y, z, alpha=alpha))
        e["vs_torch_compile"] = tc / e["tessel_ms"]
        e["GB_per_s"] = 3 * N * 2 / e["tessel_ms"] / 1e6
    except Exception as ex:
        e["error"] = f"{type(ex).__name__}: {ex}"[:300]
    emit(e); pw.append(e)
rows["pointwise"] = pw
(OUT / "result.json").write_text(json.dumps(rows, indent=2))
