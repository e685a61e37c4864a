"""Experiment (issue 7), kept for the record: do a persistent tile loop, TMA descriptors or warp
specialization close the gap to cuBLAS for bf16 GEMM on the H200? Hand-written Triton variants only;
nothing here is tessel output. Results: lab/results/2026-11-30-h200-gemm-persistent-tma-experiment.json.
On the GPU machine: python3 lab/experiments/gemm_persistent_tma.py OUT.json"""
import json, sys
import torch, triton, triton.language as tl
from triton.testing import do_bench


@triton.jit
def _tile(pid, M, N, BM: tl.constexpr, BN: tl.constexpr, G: tl.constexpr):
    tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    per = G * tiles_n
    first = (pid // per) * G
    rows = min(tiles_m - first, G)
    return first + (pid % per) % rows, (pid % per) // rows


@triton.jit
def plain(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr,
          MASK: tl.constexpr):
    pm, pn = _tile(tl.program_id(0), M, N, BM, BN, G)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        if MASK:
            ta = tl.load(a + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
            tb = tl.load(b + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        else:
            ta = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
            tb = tl.load(b + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(ta, tb, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def persistent(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr,
               P: tl.constexpr, FLAT: tl.constexpr):
    start = tl.program_id(0)
    tiles = tl.cdiv(M, BM) * tl.cdiv(N, BN)
    ksteps = tl.cdiv(K, BK)
    rk = tl.arange(0, BK)
    for t in tl.range(start, tiles, P, flatten=FLAT):
        pm, pn = _tile(t, M, N, BM, BN, G)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ks in range(ksteps):
            k = ks * BK
            ta = tl.load(a + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
            tb = tl.load(b + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(ta, tb, acc)
        tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def persistent_tma(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr,
                   P: tl.constexpr, FLAT: tl.constexpr, WS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    start = tl.program_id(0)
    tiles = tl.cdiv(M, BM) * tl.cdiv(N, BN)
    ksteps = tl.cdiv(K, BK)
    for t in tl.range(start, tiles, P, flatten=FLAT, warp_specialize=WS):
        pm, pn = _tile(t, M, N, BM, BN, G)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ks in range(ksteps):
            acc = tl.dot(a_desc.load([pm * BM, ks * BK]), b_desc.load([ks * BK, pn * BN]), acc)
        c_desc.store([pm * BM, pn * BN], acc.to(tl.bfloat16))


def main():
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    out = []
    for M, N, K in [(4096, 4096, 4096), (8192, 8192, 1024), (8192, 8192, 8192)]:
        a = (torch.rand(M, K, device="cuda") - 0.5).bfloat16()
        b = (torch.rand(K, N, device="cuda") - 0.5).bfloat16()
        ref = a @ b
        flops = 2 * M * N * K
        row = {"shape": [M, N, K], "cublas_ms": do_bench(lambda: a @ b, warmup=50, rep=300)}
        for BM, BN, BK, W, S in [(128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (128, 128, 64, 8, 4)]:
            tiles = triton.cdiv(M, BM) * triton.cdiv(N, BN)
            c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
            variants = {
                "plain": lambda: plain[(tiles,)](a, b, c, M, N, K, BM, BN, BK, 8, True, num_warps=W, num_stages=S),
                "persist": lambda: persistent[(min(sms, tiles),)](a, b, c, M, N, K, BM, BN, BK, 8, sms, False, num_warps=W, num_stages=S),
                "tma": lambda: persistent_tma[(min(sms, tiles),)](a, b, c, M, N, K, BM, BN, BK, 8, sms, False, False, num_warps=W, num_stages=S),
                "tma_flat": lambda: persistent_tma[(min(sms, tiles),)](a, b, c, M, N, K, BM, BN, BK, 8, sms, True, False, num_warps=W, num_stages=S),
                "tma_flat_ws": lambda: persistent_tma[(min(sms, tiles),)](a, b, c, M, N, K, BM, BN, BK, 8, sms, True, True, num_warps=W, num_stages=S),
            }
            for name, fn in variants.items():
                key = f"{name}_{BM}x{BN}x{BK}_w{W}s{S}"
                try:
                    c.zero_()
                    fn()
                    torch.cuda.synchronize()
                    err = (c.float() - ref.float()).abs().max().item()
                    if err > 0.5:
                        row[key] = f"wrong {err}"
                        continue
                    row[key] = do_bench(fn, warmup=50, rep=300)
                except Exception as e:
                    row[key] = f"{type(e).__name__}: {str(e)[:120]}"
        best = min((v, k) for k, v in row.items() if isinstance(v, float) and k != "cublas_ms")
        row["best"] = best[1]
        row["best_vs_cublas"] = row["cublas_ms"] / best[0]
        row["tflops_cublas"] = flops / row["cublas_ms"] / 1e9
        print(json.dumps(row), flush=True)
        out.append(row)
    json.dump(out, open(sys.argv[1], "w"), indent=1)


main()
