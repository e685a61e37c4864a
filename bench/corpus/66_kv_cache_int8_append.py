"""Per-token int8 quantization of new keys written into a paged cache: K [T, H, D] bf16, rows given by
slot_mapping [T] int64: cache[slot[t], h, :] = round(K[t, h, :] / s[t, h]) as int8 with
s[t, h] = max|K[t, h, :]| / 127, and s stored into scales[slot[t], h] (f32); cache [NSLOTS, H, D] int8,
scales [NSLOTS, H] f32; other cache rows untouched. T=4096, H=8, D=128, NSLOTS=65536.
Peer: torch eager / torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def kv_cache_int8_append(k: T.In[T.bf16, ("T", "H", "D")],
                         slot_mapping: T.In[T.i64, ("T",), T.Range(0, "NSLOTS")],
                         cache: T.InOut[T.i8, ("NSLOTS", "H", "D")],
                         scales: T.InOut[T.f32, ("NSLOTS", "H")]):
    Tn, H, D = k.shape
    dims = T.domain(0, D)
    for t, h in T.parallel(T.domain(0, Tn), T.domain(0, H)):
        kf = T.cast(k[t, h, dims], T.f32)
        s = T.max(T.abs(kf)) / 127.0
        slot = slot_mapping[t]
        cache[slot, h, dims] = T.cast(T.round(kf / s), T.i8)
        scales[slot, h] = s


KERNEL = kv_cache_int8_append
CONSTEXPRS = {}


def inputs(shape, rng):
    Tn, H, D, S = shape["T"], shape["H"], shape["D"], shape["NSLOTS"]
    assert S >= Tn
    mag = np.exp(rng.uniform(-2.0, 2.0, size=(Tn, H, 1)))      # per-token, per-head magnitudes vary
    return {
        "k": (rng.standard_normal((Tn, H, D)) * mag).astype(np.float32),
        "slot_mapping": rng.permutation(S)[:Tn].astype(np.int64),
        "cache": rng.integers(-128, 128, size=(S, H, D)).astype(np.int8),
        "scales": rng.uniform(0.01, 1.0, size=(S, H)).astype(np.float32),
    }


def reference(k, slot_mapping, cache, scales):
    kf = k.astype(np.float32)
    s = (np.abs(kf).max(axis=-1) / np.float32(127.0)).astype(np.float32)      # [T, H]
    q = np.rint(kf / s[..., None]).astype(np.int8)                            # ties to even
    cache, scales = cache.copy(), scales.copy()
    cache[slot_mapping] = q
    scales[slot_mapping] = s
    return {"cache": cache, "scales": scales}


def peer(k, slot_mapping, cache, scales):
    kf = k.float()
    s = kf.abs().amax(dim=-1) / 127.0
    cache[slot_mapping] = (kf / s[..., None]).round().to(cache.dtype)
    scales[slot_mapping] = s
    return {"cache": cache, "scales": scales}


def unrounded_cache(k, slot_mapping, cache, scales):
    """The cache as reference() computes it before rounding (bench/corpus.py's tie rule)."""
    kf = k.astype(np.float32)
    s = (np.abs(kf).max(axis=-1) / np.float32(127.0)).astype(np.float32)
    out = cache.astype(np.float64)
    out[slot_mapping] = kf / s[..., None]
    return out


UNROUNDED = {"cache": unrounded_cache}

TEST_SHAPES = [dict(T=1, H=1, D=1, NSLOTS=1), dict(T=3, H=2, D=7, NSLOTS=11),
               dict(T=17, H=3, D=31, NSLOTS=53), dict(T=37, H=8, D=128, NSLOTS=131)]
BENCH_SHAPE = dict(T=4096, H=8, D=128, NSLOTS=65536)
TOLERANCE = dict(rtol=1e-6, atol=1e-6)
PEER = "torch eager / torch.compile"


def OPS(shape):
    Tn, H, D = shape["T"], shape["H"], shape["D"]
    return 4 * Tn * H * D, Tn * H * D * (2 + 1) + Tn * 8 + Tn * H * 4
