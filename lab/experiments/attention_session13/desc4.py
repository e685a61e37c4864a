"""Hand FA2 forward: K/V tiles through 2-d device descriptors over [B*H*T, D] vs 4-d [B, H, T, D] with
[1, 1, BN, D] boxes reshaped (what tessel spells), vs pointer loads. Full attention, 64/64/4/3."""
import json, math, pathlib, sys
import torch, triton, triton.language as tl
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "bench"))  # bench/
from run_bench import timed  # noqa: E402  (bench/'s median of CUDA-event timings)

@triton.jit
def _fa(Q, K, V, O, qk_scale, Z, H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
        MODE: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    rows = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    dcol = tl.arange(0, HEAD_DIM)
    base = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    q = tl.load(Q + base + rows[:, None] * HEAD_DIM + dcol[None, :])
    if MODE == 1:
        dk = tl.make_tensor_descriptor(K, shape=[Z * H * N_CTX, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
        dv = tl.make_tensor_descriptor(V, shape=[Z * H * N_CTX, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    if MODE == 2:
        dk = tl.make_tensor_descriptor(K, shape=[Z, H, N_CTX, HEAD_DIM], strides=[H * N_CTX * HEAD_DIM, N_CTX * HEAD_DIM, HEAD_DIM, 1], block_shape=[1, 1, BLOCK_N, HEAD_DIM])
        dv = tl.make_tensor_descriptor(V, shape=[Z, H, N_CTX, HEAD_DIM], strides=[H * N_CTX * HEAD_DIM, N_CTX * HEAD_DIM, HEAD_DIM, 1], block_shape=[1, 1, BLOCK_N, HEAD_DIM])
    m_i = tl.zeros([BLOCK_M], tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    hi = (start_m + 1) * BLOCK_M if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        if MODE == 0:
            k = tl.load(K + base + cols[:, None] * HEAD_DIM + dcol[None, :])
        elif MODE == 1:
            k = dk.load([off_hz * N_CTX + start_n, 0])
        else:
            k = tl.reshape(dk.load([off_z, off_h, start_n, 0]), [BLOCK_N, HEAD_DIM])
        qk = tl.dot(q, tl.permute(k, (1, 0)))
        if CAUSAL:
            qk = qk * qk_scale + tl.where(rows[:, None] >= cols[None, :], 0.0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk = qk - m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        if MODE == 0:
            v = tl.load(V + base + cols[:, None] * HEAD_DIM + dcol[None, :])
        elif MODE == 1:
            v = dv.load([off_hz * N_CTX + start_n, 0])
        else:
            v = tl.reshape(dv.load([off_z, off_h, start_n, 0]), [BLOCK_N, HEAD_DIM])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(O + base + rows[:, None] * HEAD_DIM + dcol[None, :], acc.to(O.dtype.element_ty))


if __name__ == "__main__":
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    out = open(sys.argv[1], "a")
    B, H, S, D = 4, 32, 4096, 128
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3)); o = torch.empty_like(q)
    for causal in (False, True):
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        flops = 4.0 * B * H * D * (S * (S + 1) / 2 if causal else S * S)
        for mode in (0, 1, 2):
            for (BM, BN, W, ST) in ((64, 64, 4, 3), (128, 64, 8, 3)):
                fn = lambda: _fa[(S // BM, B * H)](q, k, v, o, 1.4426950408889634 / math.sqrt(D), B, H, S, D, BM, BN, mode, causal, num_warps=W, num_stages=ST)
                rec = dict(causal=causal, mode=["pointer", "desc2d", "desc4d"][mode], cfg=[BM, BN, W, ST])
                try:
                    o.fill_(float("nan")); fn(); torch.cuda.synchronize()
                    rec["err"] = (o.float() - ref.float()).abs().max().item()
                    if rec["err"] < 2e-2:
                        ms = timed(fn, reps=30); rec.update(ms=ms, TFLOPs=flops / ms / 1e9)
                except Exception as e:
                    rec["error"] = str(e)[:200]
                print(json.dumps(rec), file=out, flush=True)
