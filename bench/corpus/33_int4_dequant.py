"""Int4 unpack + dequantize: a weight matrix W [N, K] stored as packed bytes q [N, K/2] (two 4-bit
unsigned values per byte: element 2j in the low nibble, 2j+1 in the high nibble), with per-group
(group size 128 along K) f16 scales and zero points [N, ceil(K/128)]. W[n, k] = (nibble - zero) * scale,
written as f16. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def int4_dequant(q: T.In[T.i8, ("N", "KH")],
                 scales: T.In[T.f16, ("N", "NG")],
                 zeros: T.In[T.f16, ("N", "NG")],
                 w: T.Out[T.f16, ("N", "K")],
                 GROUP: T.Constexpr[int] = 128):
    N, K = w.shape
    kcols = T.domain(0, K)
    k = T.indices(kcols)
    for n in T.parallel(T.domain(0, N)):
        packed = q[n, k // 2]                       # the byte holding element k
        shift = T.cast(k % 2, T.i8) * 4             # low nibble for even k, high for odd
        nib = (packed >> shift) & 0xF
        s = T.cast(scales[n, k // GROUP], T.f32)
        z = T.cast(zeros[n, k // GROUP], T.f32)
        w[n, kcols] = T.cast((T.cast(nib, T.f32) - z) * s, T.f16)


KERNEL = int4_dequant
CONSTEXPRS = {"GROUP": 128}


def _shape(N, K):
    return dict(N=N, K=K, KH=K // 2, NG=(K + 127) // 128)


def inputs(shape, rng):
    N, KH, NG = shape["N"], shape["KH"], shape["NG"]
    return {
        "q": rng.integers(-128, 128, size=(N, KH)).astype(np.int8),
        "scales": (0.01 + 0.02 * rng.random((N, NG))).astype(np.float16),
        "zeros": rng.integers(0, 16, size=(N, NG)).astype(np.float16),
    }


def _unpack(q):
    b = q.view(np.uint8).astype(np.int64)
    lo, hi = b & 0xF, (b >> 4) & 0xF
    return np.stack([lo, hi], axis=-1).reshape(q.shape[0], -1)


def reference(q, scales, zeros):
    vals = _unpack(q).astype(np.float64)
    g = np.arange(vals.shape[1]) // CONSTEXPRS["GROUP"]
    return {"w": (vals - zeros.astype(np.float64)[:, g]) * scales.astype(np.float64)[:, g]}


def peer(q, scales, zeros):
    import torch
    lo = q & 0xF
    hi = (q >> 4) & 0xF
    vals = torch.stack([lo, hi], dim=-1).reshape(q.shape[0], -1).to(torch.float16)
    g = CONSTEXPRS["GROUP"]
    K = vals.shape[1]
    s = scales.repeat_interleave(g, dim=1)[:, :K]
    z = zeros.repeat_interleave(g, dim=1)[:, :K]
    return {"w": (vals - z) * s}


TEST_SHAPES = [_shape(1, 2), _shape(3, 130), _shape(5, 1030), _shape(11, 2566)]
BENCH_SHAPE = _shape(4096, 4096)
TOLERANCE = dict(rtol=2e-3, atol=2e-3)
PEER = "torch.compile"


def OPS(shape):
    n = shape["N"] * shape["K"]
    return 2 * n, n // 2 + 2 * n + 4 * shape["N"] * shape["NG"]
