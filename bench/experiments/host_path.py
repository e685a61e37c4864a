"""Where the host time of one tessel call goes (issue 7: end-to-end speed of short kernels). Results:
bench/results/2026-11-30-h200-host-path.json. On the GPU machine, from the repository root:
    TESSEL_BIN=build-static/bin/tessel python3 bench/experiments/host_path.py"""
import cProfile, pstats, sys, time, io
import torch
sys.path[:0] = ["python", "examples"]
import softmax as S

k = S.softmax
x = torch.randn(4096, 1024, device="cuda")
y = torch.empty_like(x)
k(x, y); k(x, y); torch.cuda.synchronize()
launch = k._launcher({}, None)
for t in list(k._launches.values()):
    launch = t
g = launch.__globals__
entries = list(g["_softmax_launched"].values())
print("launched entries:", [getattr(e, "__name__", type(e).__name__) for e in entries])
go = entries[0]
args = (x, x.shape[0], x.shape[1], x.stride(0), x.stride(1), y, y.stride(0), y.stride(1))


def per_call(fn, n=3000):
    fn(); torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    e = time.perf_counter() - t
    torch.cuda.synchronize()
    return round(e / n * 1e6, 2)


print("kernel object us", per_call(lambda: k(x, y)))
print("generated wrapper us", per_call(lambda: launch(x, y)))
print("direct go us", per_call(lambda: go(4096, 0, *args)))
jit = g["_softmax_kernel"]
compiled = jit[(4096, 1, 1)](*args, num_warps=4, num_stages=3)
print("triton CompiledKernel[grid] us", per_call(lambda: compiled[(4096, 1, 1)](*args)))
print("triton JIT launch us", per_call(lambda: jit[(4096, 1, 1)](*args, num_warps=4, num_stages=3)))
print("torch.softmax us", per_call(lambda: torch.softmax(x, 1)))
print("empty loop us", per_call(lambda: None))
from torch._C import _cuda_getCurrentRawStream as stream
print("raw stream us", per_call(lambda: stream(0)))
print("get_device us", per_call(lambda: x.get_device()))
pr = cProfile.Profile()
pr.enable()
for _ in range(3000):
    k(x, y)
pr.disable()
s = io.StringIO()
pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(15)
print(s.getvalue()[:4000])
