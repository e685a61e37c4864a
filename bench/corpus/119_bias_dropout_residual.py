"""Bias + dropout + residual (training): y = r + dropout(x + bias, p) with keep-scaling 1/(1-p), using the language's counter-based random numbers with a runtime seed; x, r [M, N] bf16, bias [N]; also write the keep mask (bool or uint8). M16384 N4096, p=0.1. Peer: torch.compile (its own RNG; compare statistics, not values: document how your reference/peer handle the randomness)."""
import numpy as np
import tessel
import tessel.language as T

# Randomness: tessel has no random-number op (docs/language.md: "write Philox from i64 ops"), so the
# kernel hashes each element's flat index with the seed (murmur3's 32-bit finalizer, 32-bit unsigned
# arithmetic emulated in i64 and masked), takes the top 24 bits as u in [0, 1) and keeps the element
# when u >= p. reference() computes the same hash in NumPy (uint64), so kernel and reference agree bit
# for bit, mask included. peer() uses torch's own dropout RNG: its values differ, only its statistics
# (keep rate ~ 1 - p, kept values scaled by 1/(1-p)) are comparable.
M32 = 0xFFFFFFFF


@tessel.fn
def _hash32(h):
    """murmur3 fmix32 of an i64 holding a 32-bit unsigned value."""
    h = ((h ^ (h >> 16)) * 0x85EBCA6B) & M32
    h = ((h ^ (h >> 13)) * 0xC2B2AE35) & M32
    return h ^ (h >> 16)


@tessel.kernel
def bias_dropout_residual(x: T.In[T.bf16, ("M", "N")], r: T.In[T.bf16, ("M", "N")], bias: T.In[T.f32, ("N",)],
                          y: T.Out[T.bf16, ("M", "N")], keep: T.Out[T.i1, ("M", "N")],
                          p: T.f32, seed: T.i64):
    M, N = x.shape
    cols = T.domain(0, N)
    col = T.cast(T.indices(cols), T.i64)
    for m in T.parallel(T.domain(0, M)):
        flat = T.cast(m, T.i64) * T.cast(N, T.i64) + col
        bits = _hash32((flat + seed * 0x9E3779B1) & M32)
        u = T.cast(bits >> 8, T.f32) * (1.0 / 16777216.0)
        kept = u >= p
        h = T.cast(x[m, cols], T.f32) + bias[cols]
        dropped = T.where(kept, h / (1.0 - p), 0.0)
        y[m, cols] = T.cast(T.cast(r[m, cols], T.f32) + dropped, T.bf16)
        keep[m, cols] = kept


KERNEL = bias_dropout_residual


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def _np_hash32(h):
    h = ((h ^ (h >> np.uint64(16))) * np.uint64(0x85EBCA6B)) & np.uint64(M32)
    h = ((h ^ (h >> np.uint64(13))) * np.uint64(0xC2B2AE35)) & np.uint64(M32)
    return h ^ (h >> np.uint64(16))


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return {"x": rng.standard_normal((M, N)).astype(np.float32), "r": rng.standard_normal((M, N)).astype(np.float32),
            "bias": rng.standard_normal(N).astype(np.float32), "p": 0.1, "seed": int(rng.integers(0, 2 ** 31))}


def reference(x, r, bias, p, seed):
    M, N = x.shape
    flat = np.arange(M * N, dtype=np.uint64).reshape(M, N)
    bits = _np_hash32((flat + np.uint64(seed) * np.uint64(0x9E3779B1)) & np.uint64(M32))
    u = (bits >> np.uint64(8)).astype(np.float32) * np.float32(1.0 / 16777216.0)
    kept = u >= np.float32(p)
    h = x + bias
    dropped = np.where(kept, h / (np.float32(1.0) - np.float32(p)), np.float32(0.0)).astype(np.float32)
    return {"y": _bf16(r + dropped), "keep": kept}


def peer(x, r, bias, p, seed):
    import torch
    torch.manual_seed(seed)
    h = x.float() + bias
    d = torch.nn.functional.dropout(h, p, training=True)
    return {"y": (r.float() + d).to(torch.bfloat16), "keep": d != 0}


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
BENCH_TOLERANCE = dict(rtol=float("inf"), atol=float("inf"))   # the peer's RNG differs: compare statistics
PEER = "torch.compile"
