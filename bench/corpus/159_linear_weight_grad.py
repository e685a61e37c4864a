"""Weight gradient of a linear layer: dW = dY^T X, dY bf16 [T, O], X bf16 [T, I], dW f32 [O, I] (f32 accumulate). T 65536 (tokens), O 1024, I 1024. Peer: torch.matmul(dY.t(), X) in f32 accumulate (.float() output)."""
import numpy as np
import torch
import tessel
import tessel.language as T


@tessel.kernel
def linear_weight_grad(dy: T.In[T.bf16, ("T", "O")], x: T.In[T.bf16, ("T", "I")],
                       dw: T.Out[T.f32, ("O", "I")]):
    NT, O = dy.shape
    I = x.shape[1]
    toks, outs, ins = T.domain(0, NT), T.domain(0, O), T.domain(0, I)
    dw[outs, ins] = T.contract(dy[toks, outs], x[toks, ins], reduce=((0, 0),), acc_dtype=T.f32)


KERNEL = linear_weight_grad


def inputs(shape, rng):
    return dict(dy=rng.standard_normal((shape["T"], shape["O"])).astype(np.float32),
                x=rng.standard_normal((shape["T"], shape["I"])).astype(np.float32))


def reference(dy, x):
    return dict(dw=(dy.astype(np.float64).T @ x.astype(np.float64)).astype(np.float32))


def peer(dy, x):
    return dict(dw=torch.matmul(dy.t(), x).float())

TEST_SHAPES = [dict(T=1, O=1, I=1), dict(T=37, O=5, I=19), dict(T=131, O=23, I=67)]
BENCH_SHAPE = dict(T=65536, O=1024, I=1024)
TOLERANCE = dict(rtol=1e-3, atol=1e-3)
# The peer's product comes back in bf16 (8 bits: 2^-9 relative rounding, and cuBLAS's bf16 path was 1-2 units
# in the last place off at T = 65536 on the H100); tessel's f32 sum is checked against NumPy at TEST_SHAPES.
# How each side is judged (bench/corpus.py): tessel against the f64 reference (`reference`) at the largest
# TEST_SHAPE with TOLERANCE, then tessel against the peer at BENCH_SHAPE with BENCH_TOLERANCE -- the peer is
# never held to the f64 product. At the bench shape |dW| reaches ~1300 (sums of 65536 products of N(0, 1)),
# where half a bf16 ulp is 4: the peer sat 3.9 off an f64 product on the H100 (s35), tessel's f32 sum 0.023.
# rtol 1e-2 is five times the peer's worst rounding (2^-9 = 0.2%), so a correct tessel result passes against
# any correctly rounded bf16 peer, and a wrong one still fails (a missing or doubled K chunk moves an element
# by a partial sum of T / SPLIT_K products: std 128 at SPLIT_K 4, against 2.56 allowed at |dW| = 256).
BENCH_TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.matmul(dY.t(), X).float()"
