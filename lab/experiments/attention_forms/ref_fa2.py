import triton, triton.language as tl, torch
@triton.jit
def _fa2(Q, K, V, O, sm_scale, H, S, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr, CAUSAL: tl.constexpr):
    pid_m = tl.program_id(0); bh = tl.program_id(1)
    if CAUSAL:
        pid_m = tl.num_programs(0) - 1 - pid_m
    base = bh.to(tl.int64) * S * D
    offs_m = pid_m * BM + tl.arange(0, BM); offs_n = tl.arange(0, BN); offs_d = tl.arange(0, D)
    q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :])
    m_i = tl.full([BM], -float("inf"), tl.float32); l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = pid_m * BM if CAUSAL else S
    for start in range(0, hi, BN):
        k = tl.load(K + base + (start + offs_n)[None, :] * D + offs_d[:, None])
        qk = tl.dot(q, k)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + base + (start + offs_n)[:, None] * D + offs_d[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_ij
    if CAUSAL:
        for start in range(pid_m * BM, (pid_m + 1) * BM, BN):
            k = tl.load(K + base + (start + offs_n)[None, :] * D + offs_d[:, None])
            qk = tl.dot(q, k)
            mask = offs_m[:, None] >= (start + offs_n)[None, :]
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            p = tl.math.exp2(qk - m_ij[:, None])
            alpha = tl.math.exp2(m_i - m_ij)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(V + base + (start + offs_n)[:, None] * D + offs_d[None, :])
            acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
            m_i = m_ij
    tl.store(O + base + offs_m[:, None] * D + offs_d[None, :], (acc / l_i[:, None]).to(O.dtype.element_ty))

def fa2(q, k, v, o, scale, causal, BM=128, BN=64, warps=8, stages=3):
    B, H, S, D = q.shape
    _fa2[(S // BM, B * H)](q, k, v, o, scale, H, S, BM=BM, BN=BN, D=D, CAUSAL=causal, num_warps=warps, num_stages=stages)
