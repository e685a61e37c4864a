"""Does Triton 3.6's Hopper warp specialization (tl.range(..., warp_specialize=True)) lift a
FlashAttention-2-shaped forward on the H200? Hand-written kernel with host tensor descriptors (TMA),
variants over tiles/warps/stages/WS, checked against SDPA first. Usage: python3 ws_probe.py WS OUTFILE"""
import json
import math
import pathlib
import sys

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "bench"))  # bench/
from run_bench import timed  # noqa: E402  (bench/'s median of CUDA-event timings)


@triton.jit
def _tiles(acc, l_i, m_i, q, desc_k, desc_v, kv_row, start_m, lo, hi, qk_scale,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, MASKED: tl.constexpr, WS: tl.constexpr,
           STAGES: tl.constexpr):
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=WS, num_stages=STAGES):
        k = desc_k.load([kv_row + start_n, 0]).T
        qk = tl.dot(q, k)
        if MASKED:
            keep = offs_m[:, None] >= (start_n + tl.arange(0, BLOCK_N))[None, :]
            qk = qk * qk_scale + tl.where(keep, 0.0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk = qk - m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([kv_row + start_n, 0])
        acc = tl.dot(p.to(v.dtype), v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def _fa(desc_q, desc_k, desc_v, desc_o, qk_scale, H, N_CTX, G: tl.constexpr, HEAD_DIM: tl.constexpr,
        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, WS: tl.constexpr,
        STAGES: tl.constexpr, REV: tl.constexpr, Optr, PTR_O: tl.constexpr, WS2: tl.constexpr = False, ONE_LOOP: tl.constexpr = False, DEV: tl.constexpr = False, YQ=0, YKV=0):
    start_m = tl.program_id(0)
    if REV:
        start_m = tl.num_programs(0) - 1 - start_m
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    if DEV:
        desc_q = tl.make_tensor_descriptor(desc_q, shape=[YQ, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
        desc_k = tl.make_tensor_descriptor(desc_k, shape=[YKV, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
        desc_v = tl.make_tensor_descriptor(desc_v, shape=[YKV, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    q_row = off_hz * N_CTX + start_m * BLOCK_M
    kv_row = (off_z * (H // G) + off_h // G) * N_CTX
    q = desc_q.load([q_row, 0])
    m_i = tl.zeros([BLOCK_M], tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    hi = start_m * BLOCK_M if CAUSAL else N_CTX
    if ONE_LOOP:
        acc, l_i, m_i = _tiles(acc, l_i, m_i, q, desc_k, desc_v, kv_row, start_m, 0, hi + BLOCK_M, qk_scale,
                               BLOCK_M, BLOCK_N, True, WS, STAGES)
    else:
      acc, l_i, m_i = _tiles(acc, l_i, m_i, q, desc_k, desc_v, kv_row, start_m, 0, hi, qk_scale,
                           BLOCK_M, BLOCK_N, False, WS, STAGES)
      if CAUSAL:
        acc, l_i, m_i = _tiles(acc, l_i, m_i, q, desc_k, desc_v, kv_row, start_m, hi, hi + BLOCK_M,
                               qk_scale, BLOCK_M, BLOCK_N, True, WS2, STAGES)
    acc = acc / l_i[:, None]
    if PTR_O:
        rows = q_row + tl.arange(0, BLOCK_M)
        tl.store(Optr + rows[:, None] * HEAD_DIM + tl.arange(0, HEAD_DIM)[None, :], acc.to(Optr.dtype.element_ty))
    else:
        desc_o.store([q_row, 0], acc.to(desc_o.dtype))


def fa(q, k, v, o, scale, causal, BM, BN, warps, stages, ws, rev, dev=False):
    B, H, S, D = q.shape
    G = H // k.shape[1]
    if dev:
        grid = (triton.cdiv(S, BM), B * H)
        def call():
            _fa[grid](q, k, v, None, scale * 1.4426950408889634, H, S, G, D, BM, BN, causal, ws, stages, rev, o, True,
                      ONE_LOOP=bool(ws and causal), DEV=True, YQ=B * H * S, YKV=k.shape[0] * k.shape[1] * S,
                      num_warps=warps, num_stages=stages)
        return call
    dq = TensorDescriptor(q, [B * H * S, D], [D, 1], [BM, D])
    dk = TensorDescriptor(k, [k.shape[0] * k.shape[1] * S, D], [D, 1], [BN, D])
    dv = TensorDescriptor(v, [k.shape[0] * k.shape[1] * S, D], [D, 1], [BN, D])
    do = TensorDescriptor(o, [B * H * S, D], [D, 1], [BM, D])
    grid = (triton.cdiv(S, BM), B * H)
    def call():
        _fa[grid](dq, dk, dv, do, scale * 1.4426950408889634, H, S, G, D, BM, BN, causal, ws, stages, rev, o, ws,
                  ONE_LOOP=bool(ws and causal), num_warps=warps, num_stages=stages)
    return call



def _alloc(size, alignment, stream):
    return torch.empty(size, device="cuda", dtype=torch.int8)


def main():
    triton.set_allocator(_alloc)
    ws = bool(int(sys.argv[1]))
    dev = len(sys.argv) > 3 and sys.argv[3] == "dev"
    kinds = sys.argv[4].split(",") if len(sys.argv) > 4 else ("causal", "full", "gqa")
    out = open(sys.argv[2], "a")
    torch.manual_seed(0)
    B, H, S, D = 4, 32, 4096, 128
    configs = ([(128, 64, 4, 2), (128, 64, 4, 3), (128, 128, 4, 2), (256, 64, 4, 2), (128, 64, 4, 4),
                (256, 128, 4, 2)] if ws else
               [(128, 64, 4, 3), (128, 64, 8, 3), (128, 128, 8, 2), (128, 128, 8, 3), (64, 64, 4, 3)])
    for kind in kinds:
        G = 4 if kind == "gqa" else 1
        causal = kind != "full"
        q = torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, H // G, S, D, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, H // G, S, D, device="cuda", dtype=torch.bfloat16)
        o = torch.empty_like(q)
        scale = 1 / math.sqrt(D)
        pairs = S * (S + 1) / 2 if causal else S * S
        flops = 4.0 * B * H * D * pairs
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale, enable_gqa=G > 1)
        if not ws and not dev:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            for name, be in (("sdpa_default", None), ("cudnn", SDPBackend.CUDNN_ATTENTION),
                             ("flash", SDPBackend.FLASH_ATTENTION)):
                def call(be=be):
                    if be is None:
                        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale, enable_gqa=G > 1)
                    with sdpa_kernel([be]):
                        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale, enable_gqa=G > 1)
                try:
                    ms = timed(call)
                    rec = dict(kind=kind, peer=name, ms=ms, TFLOPs=flops / ms / 1e9)
                except Exception as e:
                    rec = dict(kind=kind, peer=name, error=str(e)[:200])
                print(json.dumps(rec), file=out, flush=True)
        for (BM, BN, W, ST) in configs:
            for rev in ((False, True) if causal else (False,)):
                rec = dict(kind=kind, BM=BM, BN=BN, warps=W, stages=ST, ws=ws, rev=rev, dev=dev)
                try:
                    fn = fa(q, k, v, o, scale, causal, BM, BN, W, ST, ws, rev, dev)
                    o.fill_(float("nan"))
                    fn()
                    torch.cuda.synchronize()
                    err = (o.float() - ref.float()).abs().max().item()
                    rec["err"] = err
                    if err < 2e-2:
                        ms = timed(fn)
                        rec.update(ms=ms, TFLOPs=flops / ms / 1e9)
                except Exception as e:
                    rec["error"] = f"{type(e).__name__}: {e}"[:300]
                print(json.dumps(rec), file=out, flush=True)


if __name__ == "__main__":
    main()
