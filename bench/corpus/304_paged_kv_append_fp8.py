"""Paged KV-cache append with FP8 quantization (vLLM's reshape_and_cache_flash with
kv_cache_dtype="fp8_e4m3", as FP8-KV serving runs it every step): the new tokens' keys and values
key, value bf16 [T, H, D] are divided by the per-tensor scales k_scale, v_scale (runtime f32, from
calibration), saturated to the e4m3 range [-448, 448] and written as float8_e4m3fn into the paged caches
key_cache, value_cache [NUM_BLOCKS, BS, H, D] at slot slot_mapping[t] (i64; block slot // BS, row slot % BS;
-1 marks a padded token that is skipped). Every other cache row keeps its contents. T4096 H8 D128 BS16
NUM_BLOCKS 8192. Peer: torch (divide, clamp, .to(float8_e4m3fn), index_copy_ into the flattened cache)."""
import numpy as np
import tessel
import tessel.language as T

FP8_MAX = 448.0


@tessel.kernel
def paged_kv_append_fp8(key: T.In[T.bf16, ("T", "H", "D")], value: T.In[T.bf16, ("T", "H", "D")],
                        slot_mapping: T.In[T.i64, ("T",)],
                        key_cache: T.InOut[T.f8e4m3, ("NB", "BS", "H", "D")],
                        value_cache: T.InOut[T.f8e4m3, ("NB", "BS", "H", "D")],
                        k_scale: T.f32, v_scale: T.f32):
    NT, H, D = key.shape
    BS = key_cache.shape[1]
    heads, dims = T.domain(0, H), T.domain(0, D)
    for t in T.parallel(T.domain(0, NT)):
        slot = slot_mapping[t]
        if slot >= 0:
            blk = T.cast(slot, T.index) // BS
            row = T.cast(slot, T.index) % BS
            k = T.cast(key[t, heads, dims], T.f32) / k_scale
            v = T.cast(value[t, heads, dims], T.f32) / v_scale
            key_cache[blk, row, heads, dims] = T.cast(T.minimum(T.maximum(k, -FP8_MAX), FP8_MAX), T.f8e4m3)
            value_cache[blk, row, heads, dims] = T.cast(T.minimum(T.maximum(v, -FP8_MAX), FP8_MAX), T.f8e4m3)


KERNEL = paged_kv_append_fp8


def _f8(a):
    import torch
    return torch.tensor(np.ascontiguousarray(a, dtype=np.float32)).to(torch.float8_e4m3fn).float().numpy()


def inputs(shape, rng):
    NT, H, D, NB, BS = shape["T"], shape["H"], shape["D"], shape["NB"], shape["BS"]
    slots = rng.permutation(NB * BS)[:NT].astype(np.int64)
    if NT > 2:
        slots[rng.random(NT) < 0.2] = -1                       # padded tokens
    key = (rng.standard_normal((NT, H, D)) * 2.0).astype(np.float32)
    if NT * H * D > 3:
        key.reshape(-1)[:3] = [900.0, -2000.0, 0.0005]         # saturates both ways; a subnormal
    return dict(key=key, value=rng.standard_normal((NT, H, D)).astype(np.float32), slot_mapping=slots,
                key_cache=_f8(rng.standard_normal((NB, BS, H, D)) * 3.0),
                value_cache=_f8(rng.standard_normal((NB, BS, H, D)) * 3.0),
                k_scale=0.05, v_scale=0.0125)


def reference(key, value, slot_mapping, key_cache, value_cache, k_scale, v_scale):
    NB, BS = key_cache.shape[:2]
    kc, vc = key_cache.copy(), value_cache.copy()
    ks = np.clip(key / np.float32(k_scale), -FP8_MAX, FP8_MAX)
    vs = np.clip(value / np.float32(v_scale), -FP8_MAX, FP8_MAX)
    for t, s in enumerate(slot_mapping):
        if s >= 0:
            kc[s // BS, s % BS] = _f8(ks[t])
            vc[s // BS, s % BS] = _f8(vs[t])
    return dict(key_cache=kc, value_cache=vc)


def peer(key, value, slot_mapping, key_cache, value_cache, k_scale, v_scale):
    import torch
    NB, BS, H, D = key_cache.shape
    keep = slot_mapping >= 0
    s = slot_mapping[keep]
    kq = (key[keep].float() / k_scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    vq = (value[keep].float() / v_scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    kc = key_cache.view(torch.uint8).view(NB * BS, H, D).index_copy(0, s, kq.view(torch.uint8))
    vc = value_cache.view(torch.uint8).view(NB * BS, H, D).index_copy(0, s, vq.view(torch.uint8))
    return dict(key_cache=kc.view(torch.float8_e4m3fn).view(NB, BS, H, D),
                value_cache=vc.view(torch.float8_e4m3fn).view(NB, BS, H, D))


def OPS(shape):
    n = shape["T"] * shape["H"] * shape["D"]
    return 6 * n, 2 * (2 * n + n) + 8 * shape["T"]


TEST_SHAPES = [dict(T=1, H=1, D=1, NB=1, BS=1), dict(T=5, H=3, D=7, NB=3, BS=4),
               dict(T=37, H=2, D=33, NB=11, BS=5)]
BENCH_SHAPE = dict(T=4096, H=8, D=128, NB=8192, BS=16)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch"
