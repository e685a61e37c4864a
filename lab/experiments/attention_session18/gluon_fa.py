"""Hand-written FlashAttention forward in Gluon (Triton 3.6's layout-explicit dialect) for Hopper, the
calibration for a Gluon spelling of blocked region folds (issue 13's grouped-query row).

One program: BLOCK_M query rows of one head (num_warps // 4 warpgroups, 64 rows each), the key range
in BLOCK_N tiles through a STAGES-deep TMA ring of K and V (host tensor descriptors over 2-d
[rows, D] views), async wgmma with the next tile's Q.K^T issued before the current tile's P.V is
waited on (the softmax of tile j overlaps P.V of tile j-1: FA3's intra-warpgroup pipelining), scores
scaled inside exp2, causal mask only on the diagonal tile, heaviest query blocks launched first.
Not tessel code."""
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
from triton.experimental.gluon.language.nvidia.hopper import (tma, mbarrier, fence_async_shared,
                                                              warpgroup_mma, warpgroup_mma_wait)


@gluon.jit
def _load_kv(desc, row, bars, smem, idx, STAGES: gl.constexpr):
    s = idx % STAGES
    mbarrier.expect(bars.index(s), desc.block_type.nbytes)
    tma.async_copy_global_to_shared(desc, [row, 0], bars.index(s), smem.index(s))


@gluon.jit
def _softmax_step(s, m, l, c, mask_rows, mask_cols, MASK: gl.constexpr):
    if MASK:
        s = gl.where(mask_rows[:, None] >= mask_cols[None, :], s, -float("inf"))
    m_new = gl.maximum(m, gl.max(s, axis=1) * c)
    alpha = gl.exp2(m - m_new)
    p = gl.exp2(s * c - m_new[:, None])
    l = l * alpha + gl.sum(p, axis=1)
    return p, m_new, l, alpha


@gluon.jit
def _block(bh, pid_m, H, HKV, S, T, CAUSAL: gl.constexpr, PACK: gl.constexpr, PM: gl.constexpr,
           BLOCK_N: gl.constexpr):
    """Query block `pid_m` of `bh` ((b, h); (b, kv head) with PACK > 1, its PACK query heads' PM
    positions each) in the 2-d [rows, D] views: (q_row of its first head, kv_row, p0 its first position,
    n_tiles key tiles to walk, n_full of them every row sees whole)."""
    if PACK == 1:
        b = bh // H
        h = bh % H
        kvh = h // (H // HKV)
    else:
        b = bh // HKV
        kvh = bh % HKV
        h = kvh * PACK
    p0 = pid_m * PM
    q_row = (b * H + h) * S + p0
    kv_row = (b * HKV + kvh) * T
    if CAUSAL:
        hi = gl.minimum(p0 + PM, T)
        n_full = p0 // BLOCK_N
    else:
        hi = T
        n_full = T // BLOCK_N
    n_tiles = gl.cdiv(hi, BLOCK_N)
    return q_row, kv_row, p0, n_tiles, n_full


@gluon.jit
def _sectioned(pid, n_m, SECTION: gl.constexpr):
    """(bh, query level) of program or work item `pid` when heads run in sections of SECTION (their K/V
    fit in L2) and, within a section, one query block of every head after another (FA3's L2-aware
    longest-processing-time order with the level counted heaviest first by the caller)."""
    per = SECTION * n_m
    sec = pid // per
    idx = pid % per
    return sec * SECTION + idx % SECTION, idx // SECTION


@gluon.jit
def fa_fwd(q_desc, k_desc, v_desc, o_desc, qk_scale, H, HKV, S, T,
           CAUSAL: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_D: gl.constexpr,
           STAGES: gl.constexpr, LPT: gl.constexpr, PACK: gl.constexpr, HEAD_MAJOR: gl.constexpr,
           num_warps: gl.constexpr):
    # PACK > 1: the program's BLOCK_M rows are PACK query heads sharing one key/value head, PM = BLOCK_M //
    # PACK positions each (row r is head g = r // PM, position p0 + r % PM): K/V tiles serve PACK heads.
    dtype: gl.constexpr = q_desc.dtype
    PM: gl.constexpr = BLOCK_M // PACK
    # (b, h) without packing, (b, kv head) with; HEAD_MAJOR: a head's query blocks run side by side
    if HEAD_MAJOR:
        bh = gl.program_id(1)
        pm = gl.program_id(0)
    else:
        bh = gl.program_id(0)
        pm = gl.program_id(1)
    n_m = gl.cdiv(S, PM)
    if LPT:
        pid_m = n_m - 1 - pm
    else:
        pid_m = pm
    q_row, kv_row, p0, n_tiles, n_full = _block(bh, pid_m, H, HKV, S, T, CAUSAL, PACK, PM, BLOCK_N)

    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                       instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                       instr_shape=[16, HEAD_D, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    row_s: gl.constexpr = gl.SliceLayout(1, s_layout)
    col_s: gl.constexpr = gl.SliceLayout(0, s_layout)
    row_o: gl.constexpr = gl.SliceLayout(1, o_layout)

    q_smem = gl.allocate_shared_memory(dtype, [BLOCK_M, HEAD_D], q_desc.layout)
    k_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, HEAD_D], k_desc.layout)
    v_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, HEAD_D], v_desc.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    k_bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(k_bars.index(i), count=1)
        mbarrier.init(v_bars.index(i), count=1)
    fence_async_shared()

    mbarrier.expect(q_bar, PACK * q_desc.block_type.nbytes)
    for g in gl.static_range(PACK):
        tma.async_copy_global_to_shared(q_desc, [q_row + g * S, 0], q_bar, q_smem.slice(g * PM, PM))
    for i in gl.static_range(STAGES):
        if i < n_tiles:
            _load_kv(k_desc, kv_row + i * BLOCK_N, k_bars, k_smem, i, STAGES)
            _load_kv(v_desc, kv_row + i * BLOCK_N, v_bars, v_smem, i, STAGES)

    c = qk_scale * 1.4426950408889634
    rows = p0 + gl.arange(0, BLOCK_M, layout=row_s) % PM
    cols0 = gl.arange(0, BLOCK_N, layout=col_s)
    m = gl.full([BLOCK_M], -float("inf"), gl.float32, layout=row_s)
    l = gl.zeros([BLOCK_M], gl.float32, layout=row_s)
    zero_s = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, layout=s_layout)
    acc = gl.zeros([BLOCK_M, HEAD_D], gl.float32, layout=o_layout)

    # tile 0
    mbarrier.wait(q_bar, 0)
    mbarrier.wait(k_bars.index(0), 0)
    s = warpgroup_mma(q_smem, k_smem.index(0).permute((1, 0)), zero_s, use_acc=False, is_async=True)
    s = warpgroup_mma_wait(num_outstanding=0, deps=(s, ))
    if n_full > 0:
        p, m, l, alpha = _softmax_step(s, m, l, c, rows, cols0, False)
    else:
        p, m, l, alpha = _softmax_step(s, m, l, c, rows, cols0, CAUSAL or (T % BLOCK_N != 0))
    if STAGES < n_tiles:
        _load_kv(k_desc, kv_row + STAGES * BLOCK_N, k_bars, k_smem, STAGES, STAGES)

    for j in range(1, n_tiles):
        st = j % STAGES
        pst = (j - 1) % STAGES
        mbarrier.wait(k_bars.index(st), (j // STAGES) & 1)
        s = warpgroup_mma(q_smem, k_smem.index(st).permute((1, 0)), zero_s, use_acc=False, is_async=True)
        mbarrier.wait(v_bars.index(pst), ((j - 1) // STAGES) & 1)
        pa = gl.convert_layout(p.to(dtype), p_layout)
        acc = warpgroup_mma(pa, v_smem.index(pst), acc, is_async=True)
        s = warpgroup_mma_wait(num_outstanding=1, deps=(s, ))
        if j < n_full:
            p, m, l, alpha = _softmax_step(s, m, l, c, rows, cols0 + j * BLOCK_N, False)
        else:
            p, m, l, alpha = _softmax_step(s, m, l, c, rows, cols0 + j * BLOCK_N, True)
        acc, pa = warpgroup_mma_wait(num_outstanding=0, deps=(acc, pa))
        acc = acc * gl.convert_layout(alpha, row_o)[:, None]
        if j + STAGES < n_tiles:
            _load_kv(k_desc, kv_row + (j + STAGES) * BLOCK_N, k_bars, k_smem, j + STAGES, STAGES)
        if j - 1 + STAGES < n_tiles:
            _load_kv(v_desc, kv_row + (j - 1 + STAGES) * BLOCK_N, v_bars, v_smem, j - 1 + STAGES, STAGES)

    last = (n_tiles - 1) % STAGES
    mbarrier.wait(v_bars.index(last), ((n_tiles - 1) // STAGES) & 1)
    pa = gl.convert_layout(p.to(dtype), p_layout)
    acc = warpgroup_mma(pa, v_smem.index(last), acc, is_async=True)
    acc, pa = warpgroup_mma_wait(num_outstanding=0, deps=(acc, pa))
    out = acc * gl.convert_layout(1.0 / l, row_o)[:, None]

    mbarrier.invalidate(q_bar)
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(k_bars.index(i))
        mbarrier.invalidate(v_bars.index(i))
    o_smem = q_smem  # Q is dead after the last Q.K^T
    o_smem.store(out.to(dtype))
    fence_async_shared()
    for g in gl.static_range(PACK):
        tma.async_copy_shared_to_global(o_desc, [q_row + g * S, 0], o_smem.slice(g * PM, PM))
    tma.store_wait(pendings=0)


def layouts(dtype_gl, BLOCK_M, BLOCK_N, D):
    ql = gl.NVMMASharedLayout.get_default_for([BLOCK_M, D], dtype_gl)
    kl = gl.NVMMASharedLayout.get_default_for([BLOCK_N, D], dtype_gl)
    return ql, kl


def attention(q, k, v, causal, BLOCK_M=128, BLOCK_N=128, STAGES=2, num_warps=8, LPT=True, PACK=1, HEAD_MAJOR=False,
              scale=None):
    """q [B, H, S, D], k/v [B, HKV, T, D] contiguous; S a multiple of BLOCK_M, T of BLOCK_N (calibration)."""
    import torch
    B, H, S, D = q.shape
    HKV, T = k.shape[1], k.shape[2]
    PM = BLOCK_M // PACK
    assert S % PM == 0 and T % BLOCK_N == 0 and (PACK == 1 or PACK == H // HKV)
    dt = {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16}[q.dtype]
    o = torch.empty_like(q)
    ql, kl = layouts(dt, BLOCK_M, BLOCK_N, D)
    q2, k2, v2, o2 = (x.reshape(-1, D) for x in (q, k, v, o))
    ql = gl.NVMMASharedLayout.get_default_for([PM, D], dt)
    qd = TensorDescriptor.from_tensor(q2, [PM, D], ql)
    kd = TensorDescriptor.from_tensor(k2, [BLOCK_N, D], kl)
    vd = TensorDescriptor.from_tensor(v2, [BLOCK_N, D], kl)
    od = TensorDescriptor.from_tensor(o2, [PM, D], ql)
    scale = scale if scale is not None else D ** -0.5
    grid = (S // PM, B * H // PACK) if HEAD_MAJOR else (B * H // PACK, S // PM)
    fa_fwd[grid](qd, kd, vd, od, scale, H, HKV, S, T, causal, BLOCK_M, BLOCK_N, D, STAGES, LPT, PACK, HEAD_MAJOR,
                 num_warps=num_warps)
    return o
