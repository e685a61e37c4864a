"""int4 KV-cache append with per-group scales (one decode step of a 4-bit quantized KV cache, KIVI /
QServe style): new keys k f16 [B, H, D] (D 128), cache slots slot i32 [B] (distinct); per (b, h) and group
of 32 channels, scale = absmax / 7 (1 where the group is all zero), stored as f16, and values
round-half-even(k / scale) clamped to [-8, 7] (f32 math, dividing by the stored f16 scale, the one a reader
dequantizes with), packed two per byte (low nibble = even channel, two's-complement nibbles) into cache u8
[SLOTS, H, D/2] at row slot[b]; the scales f16 into scales [SLOTS, H, D/32]. Other rows keep their
contents. The cache is unsigned bytes: declared T.i8 and passed as cache.view(torch.int8) (the language
has no unsigned types). B256 H32, SLOTS 65536. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def int4_kv_append(k: T.In[T.f16, ("B", "H", 128)], slot: T.In[T.i32, ("B",), T.Range(0, "SLOTS")],
                   cache: T.InOut[T.i8, ("SLOTS", "H", 64)], scales: T.InOut[T.f16, ("SLOTS", "H", 4)]):
    B, H = k.shape[0], k.shape[1]
    groups, half = T.domain(0, 4), T.domain(0, 16)               # 4 groups of 32 channels = 16 pairs
    pair = T.broadcast(T.indices(groups) * 16, over=(groups, half), dims=[0]) + T.indices(half)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        s = slot[b]
        ev = T.cast(k[b, h, 2 * pair], T.f32)                    # even channels, [groups, half]
        od = T.cast(k[b, h, 2 * pair + 1], T.f32)                # odd channels
        amax = T.maximum(T.max(T.abs(ev), axis=1), T.max(T.abs(od), axis=1))
        sc = T.cast(T.where(amax > 0.0, amax / 7.0, 1.0), T.f16)
        scales[s, h, groups] = sc
        scf = T.cast(sc, T.f32)
        qe = T.cast(T.minimum(T.maximum(T.round(ev / scf), -8.0), 7.0), T.i32)
        qo = T.cast(T.minimum(T.maximum(T.round(od / scf), -8.0), 7.0), T.i32)
        cache[s, h, pair] = T.cast((qe & 15) | ((qo & 15) << 4), T.i8)


KERNEL = int4_kv_append


def inputs(shape, rng):
    B, H, SLOTS = shape["B"], shape["H"], shape["SLOTS"]
    assert B <= SLOTS
    k = rng.standard_normal((B, H, 128)) * rng.uniform(0.1, 4.0, (B, H, 1))
    if B and H:
        k[0, 0, 32:64] = 0.0                                     # an all-zero group: scale 1
    return dict(k=k.astype(np.float16), slot=rng.permutation(SLOTS)[:B].astype(np.int32),
                cache=rng.integers(-128, 128, (SLOTS, H, 64)).astype(np.int8),
                scales=rng.uniform(0.1, 1.0, (SLOTS, H, 4)).astype(np.float16))


def _quantized(k):
    B, H, _ = k.shape
    g = k.astype(np.float32).reshape(B, H, 4, 32)
    amax = np.abs(g).max(axis=3)
    sc = np.where(amax > 0, amax / np.float32(7.0), np.float32(1.0)).astype(np.float16)
    return g / sc.astype(np.float32)[..., None], sc


def reference(k, slot, cache, scales):
    B, H, _ = k.shape
    v, sc = _quantized(k)
    q = np.clip(np.rint(v), -8, 7).astype(np.int32).reshape(B, H, 128)
    packed = ((q[..., 0::2] & 15) | ((q[..., 1::2] & 15) << 4)).astype(np.uint8).view(np.int8)
    cache, scales = cache.copy(), scales.copy()
    cache[slot] = packed
    scales[slot] = sc
    return dict(cache=cache, scales=scales)


def peer(k, slot, cache, scales):
    import torch
    B, H, D = k.shape
    g = k.float().view(B, H, D // 32, 32)
    amax = g.abs().amax(dim=3)
    sc = torch.where(amax > 0, amax / 7.0, torch.ones_like(amax)).to(torch.float16)
    q = torch.round(g / sc.float()[..., None]).clamp(-8, 7).to(torch.int32).view(B, H, D)
    packed = ((q[..., 0::2] & 15) | ((q[..., 1::2] & 15) << 4)).to(torch.uint8).view(torch.int8)
    cache = cache.clone()
    scales = scales.clone()
    cache[slot.long()] = packed
    scales[slot.long()] = sc
    return dict(cache=cache, scales=scales)


def OPS(shape):
    B, H = shape["B"], shape["H"]
    return 6 * B * H * 128, B * H * (256 + 64 + 8) + 4 * B


# small: through Triton the packed store is a scalar walk of the 64 pairs that recomputes its group's absmax
# per pair (about 1 s a (b, h) member under TRITON_INTERPRET=1)
TEST_SHAPES = [dict(B=0, H=2, SLOTS=3), dict(B=1, H=1, SLOTS=1), dict(B=3, H=2, SLOTS=7),
               dict(B=5, H=1, SLOTS=37)]
BENCH_SHAPE = dict(B=256, H=32, SLOTS=65536)
TOLERANCE = dict(rtol=0.0, atol=0.0)
# The compiled peer divides by the unrounded absmax / 7, not by the f16 scale it stores: Inductor elides a
# downcast-upcast pair inside a fused kernel (torch._inductor.config.emulate_precision_casts is off by
# default), so its sc.float() is the f32 quotient, and Triton's f32 `/` (div.full, 2 ulps) rounds quotients
# near a tie either way.
# On the H100 (s47) 433 of 134217728 cache bytes differed from it, first at (72, 6, 7): -44 (the reference's
# and tessel's: -1.7129 / 0.68506 = -2.50036) against -28 (/ 0.68527 = -2.49959); NumPy with the f16
# rounding elided flips 421 bytes, the first that one. The reference decides those bytes (bench/corpus.py).
REFEREE = {"cache": "the compiled peer quantizes with the unrounded f32 scale, not the stored f16 one"}
PEER = "torch.compile"
