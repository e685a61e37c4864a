"""Rotary embedding on interleaved pairs (2i, 2i+1), fused with writing K into a KV cache: for each
token t and head h, k' = rope(k[t, h, :], pos[t]) with
k'[2i] = k[2i] cos - k[2i+1] sin, k'[2i+1] = k[2i+1] cos + k[2i] sin (cos/sin from tables indexed by
the token's position), stored to k_cache[slot[t], h, :] (bf16; slots distinct)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def rope_kv_cache(k: T.In[T.bf16, ("N", "H", "D")],
                  pos: T.In[T.i32, ("N",), T.Range(0, "P")],
                  cos: T.In[T.f32, ("P", "D2")],
                  sin: T.In[T.f32, ("P", "D2")],
                  slot: T.In[T.i32, ("N",), T.Range(0, "S")],
                  k_cache: T.InOut[T.bf16, ("S", "H", "D")]):
    N, H, D = k.shape
    pairs = T.domain(0, T.extent("D2"))
    i = T.indices(pairs)
    ev = i * 2
    od = ev + 1
    for t, h in T.parallel(T.domain(0, N), T.domain(0, H)):
        p = pos[t]
        c = cos[p, pairs]
        s = sin[p, pairs]
        xe = T.cast(k[t, h, ev], T.f32)
        xo = T.cast(k[t, h, od], T.f32)
        dst = slot[t]
        k_cache[dst, h, ev] = T.cast(xe * c - xo * s, T.bf16)
        k_cache[dst, h, od] = T.cast(xo * c + xe * s, T.bf16)


KERNEL = rope_kv_cache
CONSTEXPRS = {}


def _tables(P, D2):
    inv = 1.0 / (10000.0 ** (np.arange(D2, dtype=np.float64) / D2))
    ang = np.arange(P, dtype=np.float64)[:, None] * inv[None, :]
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def inputs(shape, rng):
    N, H, D, P, S = shape["N"], shape["H"], shape["D"], shape["P"], shape["S"]
    assert D == 2 * shape["D2"] and S >= N
    cos, sin = _tables(P, D // 2)
    return {
        "k": rng.standard_normal((N, H, D)).astype(np.float32),
        "pos": rng.integers(0, P, size=N).astype(np.int32),
        "cos": cos,
        "sin": sin,
        "slot": rng.permutation(S)[:N].astype(np.int32),
        "k_cache": rng.standard_normal((S, H, D)).astype(np.float32),
    }


def _bf16(a):
    """Round a float array to bf16 (nearest even), returned as float32."""
    b = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return b.view(np.float32)


def reference(k, pos, cos, sin, slot, k_cache):
    k64 = k.astype(np.float64)
    c = cos[pos].astype(np.float64)[:, None, :]
    s = sin[pos].astype(np.float64)[:, None, :]
    xe, xo = k64[..., 0::2], k64[..., 1::2]
    out = np.empty_like(k64)
    out[..., 0::2] = xe * c - xo * s
    out[..., 1::2] = xo * c + xe * s
    cache = k_cache.astype(np.float32).copy()
    cache[slot] = _bf16(out.astype(np.float32))
    return {"k_cache": cache}


def peer(k, pos, cos, sin, slot, k_cache):
    import torch
    kf = k.float().unflatten(-1, (-1, 2))
    c = cos[pos.long()][:, None, :]
    s = sin[pos.long()][:, None, :]
    xe, xo = kf[..., 0], kf[..., 1]
    out = torch.stack((xe * c - xo * s, xo * c + xe * s), dim=-1).flatten(-2)
    k_cache[slot.long()] = out.to(k_cache.dtype)
    return {"k_cache": k_cache}


TEST_SHAPES = [dict(N=1, H=1, D=2, D2=1, P=1, S=1),
               dict(N=7, H=3, D=10, D2=5, P=13, S=11),
               dict(N=37, H=2, D=34, D2=17, P=101, S=53),
               dict(N=61, H=5, D=128, D2=64, P=257, S=67)]
BENCH_SHAPE = dict(N=8192, H=8, D=128, D2=64, P=32768, S=65536)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"


def OPS(shape):
    N, H, D = shape["N"], shape["H"], shape["D"]
    return 3 * N * H * D, N * H * D * 2 * 2 + N * D * 4 * 2 // 2 + N * 8
