"""Transformer feed-forward block (BERT / ViT MLP), both layers in one kernel: H = gelu(X W1 + b1)
rounded to bf16, Y = H W2 + b2 rounded to bf16, with X [M, D], W1 [D, F], W2 [F, D] bf16 and the biases
b1 [F], b2 [D] f32 (f32 accumulation, erf GELU); the [M, F] hidden activation is never written to
memory. M=8192 D=1024 F=4096 (BERT-large). Peer: torch.compile (two cuBLAS GEMMs, GELU in the
first's epilogue)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def mlp_gelu_two_layer(x: T.In[T.bf16, ("M", "D")], w1: T.In[T.bf16, ("D", "F")], b1: T.In[T.f32, ("F",)],
                       w2: T.In[T.bf16, ("F", "D")], b2: T.In[T.f32, ("D",)], y: T.Out[T.bf16, ("M", "D")]):
    M, D = x.shape
    F = w1.shape[1]
    rows, ds, fs = T.domain(0, M), T.domain(0, D), T.domain(0, F)
    h = T.cast(T.gelu(T.matmul(x[rows, ds], w1[ds, fs], init=b1[fs])), T.bf16)
    y[rows, ds] = T.cast(T.matmul(h, w2[fs, ds], init=b2[ds]), T.bf16)


KERNEL = mlp_gelu_two_layer


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    M, D, F = shape["M"], shape["D"], shape["F"]
    return dict(x=rng.standard_normal((M, D)).astype(np.float32),
                w1=(rng.standard_normal((D, F)) / np.sqrt(max(D, 1))).astype(np.float32),
                b1=(0.1 * rng.standard_normal(F)).astype(np.float32),
                w2=(rng.standard_normal((F, D)) / np.sqrt(max(F, 1))).astype(np.float32),
                b2=(0.1 * rng.standard_normal(D)).astype(np.float32))


def reference(x, w1, b1, w2, b2):
    from math import erf
    a = x.astype(np.float64) @ w1.astype(np.float64) + b1
    g = 0.5 * a * (1.0 + np.vectorize(erf)(a / np.sqrt(2.0))) if a.size else a
    h = _bf16(g.astype(np.float32)).astype(np.float64)
    return dict(y=h @ w2.astype(np.float64) + b2)


def peer(x, w1, b1, w2, b2):
    import torch
    h = torch.nn.functional.gelu((x @ w1).float() + b1).to(torch.bfloat16)
    return dict(y=((h @ w2).float() + b2).to(torch.bfloat16))


def OPS(shape):
    M, D, F = shape["M"], shape["D"], shape["F"]
    return 4 * M * D * F, 2 * (2 * M * D + 2 * D * F)


TEST_SHAPES = [dict(M=1, D=1, F=1), dict(M=5, D=7, F=13), dict(M=33, D=17, F=70)]
BENCH_SHAPE = dict(M=8192, D=1024, F=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"
