"""Warp-specialized variant of gluon_fa.py (FA3's structure, without its ping-pong ordering): one loader
warp issues the TMA loads of Q and of a STAGES-deep K/V ring; two consumer warpgroups (the default
partition and a worker) each own 64 of the program's 128 query rows, run the same intra-warpgroup
pipelined loop (Q.K^T of tile j issued before P.V of tile j-1 is waited on) and release each K/V stage
to the loader by an mbarrier both arrive on. With PACK, the 128 rows are PACK query heads of one
key/value head. Not tessel code."""
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
from triton.experimental.gluon.language.nvidia.hopper import (tma, mbarrier, fence_async_shared,
                                                              warpgroup_mma, warpgroup_mma_wait)
from gluon_fa import _block, _sectioned, _softmax_step


@gluon.jit
def _loader(q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, bars, q_row, kv_row, S, n_tiles,
            PACK: gl.constexpr, PM: gl.constexpr, BLOCK_N: gl.constexpr, STAGES: gl.constexpr):
    q_bar, k_ready, v_ready, k_empty, v_empty, turn = bars
    mbarrier.expect(q_bar, PACK * q_desc.block_type.nbytes)
    for g in gl.static_range(PACK):
        tma.async_copy_global_to_shared(q_desc, [q_row + g * S, 0], q_bar, q_smem.slice(g * PM, PM))
    for i in range(n_tiles):
        st = i % STAGES
        ph = (i // STAGES) & 1
        mbarrier.wait(k_empty.index(st), ph ^ 1)
        mbarrier.expect(k_ready.index(st), k_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(k_desc, [kv_row + i * BLOCK_N, 0], k_ready.index(st), k_smem.index(st))
        mbarrier.wait(v_empty.index(st), ph ^ 1)
        mbarrier.expect(v_ready.index(st), v_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(v_desc, [kv_row + i * BLOCK_N, 0], v_ready.index(st), v_smem.index(st))


@gluon.jit
def _consumer(o_desc, q_smem, k_smem, v_smem, bars, q_row, p0, S, n_tiles, n_full, c, WG: gl.constexpr,
              PINGPONG: gl.constexpr, CAUSAL: gl.constexpr, PACK: gl.constexpr, PM: gl.constexpr, BLOCK_N: gl.constexpr,
              HEAD_D: gl.constexpr, STAGES: gl.constexpr):
    q_bar, k_ready, v_ready, k_empty, v_empty, turn = bars
    dtype: gl.constexpr = q_smem.dtype
    NW: gl.constexpr = gl.num_warps()
    R: gl.constexpr = 16 * NW
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[NW, 1], instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[NW, 1], instr_shape=[16, HEAD_D, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    row_s: gl.constexpr = gl.SliceLayout(1, s_layout)
    col_s: gl.constexpr = gl.SliceLayout(0, s_layout)
    row_o: gl.constexpr = gl.SliceLayout(1, o_layout)
    q_mine = q_smem.slice(WG * R, R)
    rows = p0 + (WG * R + gl.arange(0, R, layout=row_s)) % PM
    cols0 = gl.arange(0, BLOCK_N, layout=col_s)
    m = gl.full([R], -float("inf"), gl.float32, layout=row_s)
    l = gl.zeros([R], gl.float32, layout=row_s)
    zero_s = gl.zeros([R, BLOCK_N], gl.float32, layout=s_layout)
    acc = gl.zeros([R, HEAD_D], gl.float32, layout=o_layout)

    # PINGPONG (FA3's ordering): the warpgroups take turns issuing their GEMMs, so one's softmax runs
    # while the other's GEMMs hold the tensor cores. Warpgroup 1 hands warpgroup 0 the first turn.
    if PINGPONG:
        if WG == 1:
            mbarrier.arrive(turn.index(0), count=1)
    mbarrier.wait(q_bar, 0)
    mbarrier.wait(k_ready.index(0), 0)
    s = warpgroup_mma(q_mine, k_smem.index(0).permute((1, 0)), zero_s, use_acc=False, is_async=True)
    s = warpgroup_mma_wait(num_outstanding=0, deps=(s, ))
    mbarrier.arrive(k_empty.index(0), count=1)
    if n_full > 0:
        p, m, l, alpha = _softmax_step(s, m, l, c, rows, cols0, False)
    else:
        p, m, l, alpha = _softmax_step(s, m, l, c, rows, cols0, CAUSAL)
    for j in range(1, n_tiles):
        st = j % STAGES
        pst = (j - 1) % STAGES
        mbarrier.wait(k_ready.index(st), (j // STAGES) & 1)
        pa = gl.convert_layout(p.to(dtype), p_layout)
        if PINGPONG:
            mbarrier.wait(turn.index(WG), (j - 1) & 1)
        s = warpgroup_mma(q_mine, k_smem.index(st).permute((1, 0)), zero_s, use_acc=False, is_async=True)
        mbarrier.wait(v_ready.index(pst), ((j - 1) // STAGES) & 1)
        acc = warpgroup_mma(pa, v_smem.index(pst), acc, is_async=True)
        if PINGPONG:
            mbarrier.arrive(turn.index(1 - WG), count=1)
        s = warpgroup_mma_wait(num_outstanding=1, deps=(s, ))
        mbarrier.arrive(k_empty.index(st), count=1)
        if j < n_full:
            p, m, l, alpha = _softmax_step(s, m, l, c, rows, cols0 + j * BLOCK_N, False)
        else:
            p, m, l, alpha = _softmax_step(s, m, l, c, rows, cols0 + j * BLOCK_N, CAUSAL)
        acc, pa = warpgroup_mma_wait(num_outstanding=0, deps=(acc, pa))
        mbarrier.arrive(v_empty.index(pst), count=1)
        acc = acc * gl.convert_layout(alpha, row_o)[:, None]
    last = (n_tiles - 1) % STAGES
    mbarrier.wait(v_ready.index(last), ((n_tiles - 1) // STAGES) & 1)
    pa = gl.convert_layout(p.to(dtype), p_layout)
    acc = warpgroup_mma(pa, v_smem.index(last), acc, is_async=True)
    acc, pa = warpgroup_mma_wait(num_outstanding=0, deps=(acc, pa))
    mbarrier.arrive(v_empty.index(last), count=1)
    out = acc * gl.convert_layout(1.0 / l, row_o)[:, None]
    # this warpgroup's Q rows are dead: its output goes out through them
    q_mine.store(out.to(dtype))
    fence_async_shared()
    SUB: gl.constexpr = R // PM if PM < R else 1
    BOX: gl.constexpr = PM if PM < R else R
    for g in gl.static_range(SUB):
        tma.async_copy_shared_to_global(o_desc, [q_row + ((WG * R + g * BOX) // PM) * S + (WG * R + g * BOX) % PM, 0],
                                        q_smem.slice(WG * R + g * BOX, BOX))
    tma.store_wait(pendings=0)


@gluon.jit
def _consumer1(o_desc, q_smem, k_smem, v_smem, bars, q_row, p0, S, n_tiles, n_full, c, PINGPONG: gl.constexpr,
               CAUSAL: gl.constexpr,
               PACK: gl.constexpr, PM: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_D: gl.constexpr,
               STAGES: gl.constexpr):
    _consumer(o_desc, q_smem, k_smem, v_smem, bars, q_row, p0, S, n_tiles, n_full, c, 1, PINGPONG, CAUSAL, PACK, PM,
              BLOCK_N, HEAD_D, STAGES)


@gluon.jit
def fa_fwd_ws(q_desc, k_desc, v_desc, o_desc, qk_scale, H, HKV, S, T,
              CAUSAL: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_D: gl.constexpr, STAGES: gl.constexpr,
              LPT: gl.constexpr, PACK: gl.constexpr, CONSUMER_REGS: gl.constexpr, HEAD_MAJOR: gl.constexpr,
              PINGPONG: gl.constexpr, SECTION: gl.constexpr, ONE: gl.constexpr, num_warps: gl.constexpr):
    # ONE: one consumer partition of num_warps warps over all BLOCK_M = 16 * num_warps rows
    BLOCK_M: gl.constexpr = 16 * num_warps if ONE else 128
    dtype: gl.constexpr = q_desc.dtype
    PM: gl.constexpr = BLOCK_M // PACK
    # HEAD_MAJOR: a head's query blocks run next to each other (its K/V stay in L2); else one query
    # block of every head after another. LPT: a head's heaviest (causal: last) query block first.
    n_m = gl.cdiv(S, PM)
    if SECTION > 0:
        # heads in sections of SECTION (their K/V fit in L2); within a section one query block of
        # every head, heaviest level first (FA3's L2-aware longest-processing-time order)
        bh, pm = _sectioned(gl.program_id(0), n_m, SECTION)
    elif HEAD_MAJOR:
        bh = gl.program_id(1)
        pm = gl.program_id(0)
    else:
        bh = gl.program_id(0)
        pm = gl.program_id(1)
    if LPT:
        pid_m = n_m - 1 - pm
    else:
        pid_m = pm
    q_row, kv_row, p0, n_tiles, n_full = _block(bh, pid_m, H, HKV, S, T, CAUSAL, PACK, PM, BLOCK_N)

    q_smem = gl.allocate_shared_memory(dtype, [BLOCK_M, HEAD_D], q_desc.layout)
    k_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, HEAD_D], k_desc.layout)
    v_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, HEAD_D], v_desc.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    k_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    k_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(k_ready.index(i), count=1)
        mbarrier.init(v_ready.index(i), count=1)
        mbarrier.init(k_empty.index(i), count=1 if ONE else 2)
        mbarrier.init(v_empty.index(i), count=1 if ONE else 2)
    fence_async_shared()
    turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    mbarrier.init(turn.index(0), count=1)
    mbarrier.init(turn.index(1), count=1)
    bars = (q_bar, k_ready, v_ready, k_empty, v_empty, turn)
    c = qk_scale * 1.4426950408889634
    if ONE:
        # one consumer partition over all rows, one loader warp
        gl.warp_specialize([
            (_consumer, (o_desc, q_smem, k_smem, v_smem, bars, q_row, p0, S, n_tiles, n_full, c, 0, False, CAUSAL, PACK,
                         PM, BLOCK_N, HEAD_D, STAGES)),
            (_loader, (q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, bars, q_row, kv_row, S, n_tiles, PACK, PM,
                       BLOCK_N, STAGES)),
        ], [1], [24])
    else:
      gl.warp_specialize([
        (_consumer, (o_desc, q_smem, k_smem, v_smem, bars, q_row, p0, S, n_tiles, n_full, c, 0, PINGPONG, CAUSAL, PACK, PM,
                     BLOCK_N, HEAD_D, STAGES)),
        (_consumer1, (o_desc, q_smem, k_smem, v_smem, bars, q_row, p0, S, n_tiles, n_full, c, PINGPONG, CAUSAL, PACK, PM,
                      BLOCK_N, HEAD_D, STAGES)),
        (_loader, (q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, bars, q_row, kv_row, S, n_tiles, PACK, PM,
                   BLOCK_N, STAGES)),
    ], [4, 1], [CONSUMER_REGS, 24])


def attention(q, k, v, causal, BLOCK_N=128, STAGES=2, LPT=True, PACK=1, HEAD_MAJOR=False, PINGPONG=False, SECTION=0,
              ONE=0, regs=240, maxnreg=168, scale=None):
    """ONE: 0 (two 64-row consumer warpgroups), 8 (one 8-warp consumer, 128 rows) or 4 (one warpgroup,
    64 rows, two programs per multiprocessor where they fit)."""
    import torch
    B, H, S, D = q.shape
    HKV, T = k.shape[1], k.shape[2]
    BLOCK_M = 16 * ONE if ONE else 128
    PM = BLOCK_M // PACK
    assert S % PM == 0 and T % BLOCK_N == 0 and (PACK == 1 or PACK == H // HKV)
    dt = {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16}[q.dtype]
    o = torch.empty_like(q)
    box = min(PM, BLOCK_M if ONE else 64)
    ql = gl.NVMMASharedLayout.get_default_for([PM, D], dt)
    ol = gl.NVMMASharedLayout.get_default_for([box, D], dt)
    kl = gl.NVMMASharedLayout.get_default_for([BLOCK_N, D], dt)
    q2, k2, v2, o2 = (x.reshape(-1, D) for x in (q, k, v, o))
    qd = TensorDescriptor.from_tensor(q2, [PM, D], ql)
    kd = TensorDescriptor.from_tensor(k2, [BLOCK_N, D], kl)
    vd = TensorDescriptor.from_tensor(v2, [BLOCK_N, D], kl)
    od = TensorDescriptor.from_tensor(o2, [box, D], ol)
    scale = scale if scale is not None else D ** -0.5
    nbh = B * H // PACK
    if SECTION:
        SECTION = min(SECTION, nbh)
        assert nbh % SECTION == 0
        grid = (nbh * (S // PM), )
    else:
        grid = (S // PM, nbh) if HEAD_MAJOR else (nbh, S // PM)
    fa_fwd_ws[grid](qd, kd, vd, od, scale, H, HKV, S, T, causal, BLOCK_N, D, STAGES, LPT, PACK, regs, HEAD_MAJOR, PINGPONG, SECTION, bool(ONE),
                    num_warps=ONE if ONE else 4, maxnreg=maxnreg)
    return o
