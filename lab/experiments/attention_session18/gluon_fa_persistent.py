"""Persistent variant of gluon_fa_ws.py (two ping-ponged 64-row consumer warpgroups and a loader warp):
one program per multiprocessor walks work items (a 128-row query block of one head, or of PACK heads
sharing a key/value head) in an L2-aware longest-processing-time order: heads in sections of SECTION,
within a section the heaviest query level of every head first (FA3's scheduler, statically strided).
The loader loads the next item's Q as soon as both consumers have stored the last item's output
(through Q's buffer); ring slots, barrier phases and the consumers' turns run on across items.
Not tessel code."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
from triton.experimental.gluon.language.nvidia.hopper import (tma, mbarrier, fence_async_shared,
                                                              warpgroup_mma, warpgroup_mma_wait)
from gluon_fa import _block, _sectioned, _softmax_step


@gluon.jit
def _item(item, H, HKV, S, T, CAUSAL: gl.constexpr, PACK: gl.constexpr, PM: gl.constexpr,
          BLOCK_N: gl.constexpr, SECTION: gl.constexpr):
    n_m = gl.cdiv(S, PM)
    bh, level = _sectioned(item, n_m, SECTION)
    return _block(bh, n_m - 1 - level, H, HKV, S, T, CAUSAL, PACK, PM, BLOCK_N)


@gluon.jit
def _loader(q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, bars, H, HKV, S, T, n_items,
            CAUSAL: gl.constexpr, PACK: gl.constexpr, PM: gl.constexpr, BLOCK_N: gl.constexpr,
            STAGES: gl.constexpr, SECTION: gl.constexpr):
    q_bar, q_empty, k_ready, v_ready, k_empty, v_empty, turn = bars
    t = 0
    it = 0
    for item in range(gl.program_id(0), n_items, gl.num_programs(0)):
        q_row, kv_row, p0, n_tiles, n_full = _item(item, H, HKV, S, T, CAUSAL, PACK, PM, BLOCK_N, SECTION)
        mbarrier.wait(q_empty, (it & 1) ^ 1)
        mbarrier.expect(q_bar, PACK * q_desc.block_type.nbytes)
        for g in gl.static_range(PACK):
            tma.async_copy_global_to_shared(q_desc, [q_row + g * S, 0], q_bar, q_smem.slice(g * PM, PM))
        for i in range(n_tiles):
            st = t % STAGES
            ph = (t // STAGES) & 1
            mbarrier.wait(k_empty.index(st), ph ^ 1)
            mbarrier.expect(k_ready.index(st), k_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(k_desc, [kv_row + i * BLOCK_N, 0], k_ready.index(st), k_smem.index(st))
            mbarrier.wait(v_empty.index(st), ph ^ 1)
            mbarrier.expect(v_ready.index(st), v_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(v_desc, [kv_row + i * BLOCK_N, 0], v_ready.index(st), v_smem.index(st))
            t += 1
        it += 1


@gluon.jit
def _consumer(o_desc, q_smem, k_smem, v_smem, bars, H, HKV, S, T, n_items, c, WG: gl.constexpr,
              CAUSAL: gl.constexpr, PACK: gl.constexpr, PM: gl.constexpr, BLOCK_N: gl.constexpr,
              HEAD_D: gl.constexpr, STAGES: gl.constexpr, SECTION: gl.constexpr):
    q_bar, q_empty, k_ready, v_ready, k_empty, v_empty, turn = bars
    dtype: gl.constexpr = q_smem.dtype
    R: gl.constexpr = 64
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, HEAD_D, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    row_s: gl.constexpr = gl.SliceLayout(1, s_layout)
    col_s: gl.constexpr = gl.SliceLayout(0, s_layout)
    row_o: gl.constexpr = gl.SliceLayout(1, o_layout)
    q_mine = q_smem.slice(WG * R, R)
    cols0 = gl.arange(0, BLOCK_N, layout=col_s)
    zero_s = gl.zeros([R, BLOCK_N], gl.float32, layout=s_layout)
    SUB: gl.constexpr = R // PM if PM < R else 1
    BOX: gl.constexpr = PM if PM < R else R
    if WG == 1:
        mbarrier.arrive(turn.index(0), count=1)
    t0 = 0
    tc = 0
    it = 0
    for item in range(gl.program_id(0), n_items, gl.num_programs(0)):
        q_row, kv_row, p0, n_tiles, n_full = _item(item, H, HKV, S, T, CAUSAL, PACK, PM, BLOCK_N, SECTION)
        rows = p0 + (WG * R + gl.arange(0, R, layout=row_s)) % PM
        m = gl.full([R], -float("inf"), gl.float32, layout=row_s)
        l = gl.zeros([R], gl.float32, layout=row_s)
        acc = gl.zeros([R, HEAD_D], gl.float32, layout=o_layout)
        mbarrier.wait(q_bar, it & 1)
        st0 = t0 % STAGES
        mbarrier.wait(k_ready.index(st0), (t0 // STAGES) & 1)
        s = warpgroup_mma(q_mine, k_smem.index(st0).permute((1, 0)), zero_s, use_acc=False, is_async=True)
        s = warpgroup_mma_wait(num_outstanding=0, deps=(s, ))
        mbarrier.arrive(k_empty.index(st0), count=1)
        if n_full > 0:
            p, m, l, alpha = _softmax_step(s, m, l, c, rows, cols0, False)
        else:
            p, m, l, alpha = _softmax_step(s, m, l, c, rows, cols0, CAUSAL)
        for j in range(1, n_tiles):
            t = t0 + j
            st = t % STAGES
            pst = (t - 1) % STAGES
            mbarrier.wait(k_ready.index(st), (t // STAGES) & 1)
            pa = gl.convert_layout(p.to(dtype), p_layout)
            mbarrier.wait(turn.index(WG), tc & 1)
            s = warpgroup_mma(q_mine, k_smem.index(st).permute((1, 0)), zero_s, use_acc=False, is_async=True)
            mbarrier.wait(v_ready.index(pst), ((t - 1) // STAGES) & 1)
            acc = warpgroup_mma(pa, v_smem.index(pst), acc, is_async=True)
            mbarrier.arrive(turn.index(1 - WG), count=1)
            tc += 1
            s = warpgroup_mma_wait(num_outstanding=1, deps=(s, ))
            mbarrier.arrive(k_empty.index(st), count=1)
            if j < n_full:
                p, m, l, alpha = _softmax_step(s, m, l, c, rows, cols0 + j * BLOCK_N, False)
            else:
                p, m, l, alpha = _softmax_step(s, m, l, c, rows, cols0 + j * BLOCK_N, CAUSAL)
            acc, pa = warpgroup_mma_wait(num_outstanding=0, deps=(acc, pa))
            mbarrier.arrive(v_empty.index(pst), count=1)
            acc = acc * gl.convert_layout(alpha, row_o)[:, None]
        tl_ = t0 + n_tiles - 1
        last = tl_ % STAGES
        mbarrier.wait(v_ready.index(last), (tl_ // STAGES) & 1)
        pa = gl.convert_layout(p.to(dtype), p_layout)
        acc = warpgroup_mma(pa, v_smem.index(last), acc, is_async=True)
        acc, pa = warpgroup_mma_wait(num_outstanding=0, deps=(acc, pa))
        mbarrier.arrive(v_empty.index(last), count=1)
        out = acc * gl.convert_layout(1.0 / l, row_o)[:, None]
        q_mine.store(out.to(dtype))
        fence_async_shared()
        for g in gl.static_range(SUB):
            tma.async_copy_shared_to_global(o_desc, [q_row + ((WG * R + g * BOX) // PM) * S + (WG * R + g * BOX) % PM, 0],
                                            q_smem.slice(WG * R + g * BOX, BOX))
        tma.store_wait(pendings=0)
        mbarrier.arrive(q_empty, count=1)
        t0 += n_tiles
        it += 1


@gluon.jit
def _consumer1(o_desc, q_smem, k_smem, v_smem, bars, H, HKV, S, T, n_items, c, CAUSAL: gl.constexpr,
               PACK: gl.constexpr, PM: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_D: gl.constexpr,
               STAGES: gl.constexpr, SECTION: gl.constexpr):
    _consumer(o_desc, q_smem, k_smem, v_smem, bars, H, HKV, S, T, n_items, c, 1, CAUSAL, PACK, PM, BLOCK_N, HEAD_D,
              STAGES, SECTION)


@gluon.jit
def fa_fwd_persistent(q_desc, k_desc, v_desc, o_desc, qk_scale, H, HKV, S, T, n_items,
                      CAUSAL: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_D: gl.constexpr, STAGES: gl.constexpr,
                      PACK: gl.constexpr, SECTION: gl.constexpr, CONSUMER_REGS: gl.constexpr,
                      num_warps: gl.constexpr):
    BLOCK_M: gl.constexpr = 128
    dtype: gl.constexpr = q_desc.dtype
    PM: gl.constexpr = BLOCK_M // PACK
    q_smem = gl.allocate_shared_memory(dtype, [BLOCK_M, HEAD_D], q_desc.layout)
    k_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, HEAD_D], k_desc.layout)
    v_smem = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, HEAD_D], v_desc.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    q_empty = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    k_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    k_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    mbarrier.init(q_empty, count=2)
    for i in gl.static_range(STAGES):
        mbarrier.init(k_ready.index(i), count=1)
        mbarrier.init(v_ready.index(i), count=1)
        mbarrier.init(k_empty.index(i), count=2)
        mbarrier.init(v_empty.index(i), count=2)
    mbarrier.init(turn.index(0), count=1)
    mbarrier.init(turn.index(1), count=1)
    fence_async_shared()
    bars = (q_bar, q_empty, k_ready, v_ready, k_empty, v_empty, turn)
    c = qk_scale * 1.4426950408889634
    gl.warp_specialize([
        (_consumer, (o_desc, q_smem, k_smem, v_smem, bars, H, HKV, S, T, n_items, c, 0, CAUSAL, PACK, PM, BLOCK_N,
                     HEAD_D, STAGES, SECTION)),
        (_consumer1, (o_desc, q_smem, k_smem, v_smem, bars, H, HKV, S, T, n_items, c, CAUSAL, PACK, PM, BLOCK_N,
                      HEAD_D, STAGES, SECTION)),
        (_loader, (q_desc, k_desc, v_desc, q_smem, k_smem, v_smem, bars, H, HKV, S, T, n_items, CAUSAL, PACK, PM,
                   BLOCK_N, STAGES, SECTION)),
    ], [4, 1], [CONSUMER_REGS, 24])


def attention(q, k, v, causal, BLOCK_N=128, STAGES=3, PACK=1, SECTION=16, programs=132, regs=240, maxnreg=168,
              scale=None):
    import torch
    B, H, S, D = q.shape
    HKV, T = k.shape[1], k.shape[2]
    PM = 128 // PACK
    assert S % PM == 0 and T % BLOCK_N == 0 and (PACK == 1 or PACK == H // HKV)
    nbh = B * H // PACK
    SECTION = min(SECTION, nbh)
    assert nbh % SECTION == 0
    dt = {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16}[q.dtype]
    o = torch.empty_like(q)
    box = min(PM, 64)
    ql = gl.NVMMASharedLayout.get_default_for([PM, D], dt)
    ol = gl.NVMMASharedLayout.get_default_for([box, D], dt)
    kl = gl.NVMMASharedLayout.get_default_for([BLOCK_N, D], dt)
    q2, k2, v2, o2 = (x.reshape(-1, D) for x in (q, k, v, o))
    qd = TensorDescriptor.from_tensor(q2, [PM, D], ql)
    kd = TensorDescriptor.from_tensor(k2, [BLOCK_N, D], kl)
    vd = TensorDescriptor.from_tensor(v2, [BLOCK_N, D], kl)
    od = TensorDescriptor.from_tensor(o2, [box, D], ol)
    scale = scale if scale is not None else D ** -0.5
    n_items = nbh * (S // PM)
    grid = (min(programs, n_items), )
    fa_fwd_persistent[grid](qd, kd, vd, od, scale, H, HKV, S, T, n_items, causal, BLOCK_N, D, STAGES, PACK, SECTION,
                            regs, num_warps=4, maxnreg=maxnreg)
    return o
