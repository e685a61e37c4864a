"""Row-wise cosine similarity: cos[m] = <a[m], b[m]> / max(|a[m]| * |b[m]|, eps), eps = 1e-8, for a, b [M, D]
bf16; f32 accumulation, f32 out [M].
"""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def cosine_similarity_rows(a: T.In[T.bf16, ("M", "D")], b: T.In[T.bf16, ("M", "D")], cos: T.Out[T.f32, ("M",)],
                           eps: T.f32):
    M, D = a.shape
    dims = T.domain(0, D)
    for m in T.parallel(T.domain(0, M)):
        av = T.cast(a[m, dims], T.f32)
        bv = T.cast(b[m, dims], T.f32)
        num = T.sum(av * bv)
        den = T.sqrt(T.sum(av * av)) * T.sqrt(T.sum(bv * bv))
        cos[m] = num / T.maximum(den, eps)


KERNEL = cosine_similarity_rows


def inputs(shape, rng):
    M, D = shape["M"], shape["D"]
    a = rng.standard_normal((M, D)).astype(np.float32)
    b = (0.5 * a + rng.standard_normal((M, D))).astype(np.float32)
    if M > 2:
        a[1] = 0.0          # a zero row: the eps floor (0 / eps = 0)
    return dict(a=a, b=b, eps=1e-8)


def reference(a, b, eps):
    a, b = a.astype(np.float64), b.astype(np.float64)
    num = (a * b).sum(axis=1)
    den = np.sqrt((a * a).sum(axis=1)) * np.sqrt((b * b).sum(axis=1))
    return {"cos": num / np.maximum(den, eps)}


def peer(a, b, eps):
    import torch.nn.functional as F
    return {"cos": F.cosine_similarity(a.float(), b.float(), dim=1, eps=eps)}


TEST_SHAPES = [dict(M=1, D=1), dict(M=5, D=127), dict(M=13, D=1031)]
BENCH_SHAPE = dict(M=65536, D=1024)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"


def OPS(shape):
    M, D = shape["M"], shape["D"]
    return 6 * M * D, 2 * 2 * M * D + 4 * M
