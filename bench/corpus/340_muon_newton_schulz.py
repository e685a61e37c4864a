"""One Muon Newton-Schulz step (the quintic iteration of the Muon optimizer's orthogonalization): for a
batch of matrices X bf16 [B, M, N] (M <= N), A = X X^T, Bm = b*A + c*(A A), X' = a*X + Bm X with (a, b, c)
= (3.4445, -4.7750, 2.0315), f32 accumulation (the products' operands bf16, as Muon runs in bf16: A and Bm
are rounded to bf16 where they enter a product), output bf16 [B, M, N]. B16 M1024 N4096.
Peer: torch.compile (cuBLAS bmm)."""
import numpy as np
import tessel
import tessel.language as T

NS_A, NS_B, NS_C = 3.4445, -4.7750, 2.0315


@tessel.kernel
def muon_newton_schulz(X: T.In[T.bf16, ("B", "M", "N")], Y: T.Out[T.bf16, ("B", "M", "N")]):
    B, M, N = X.shape
    bs, ms, ns = T.domain(0, B), T.domain(0, M), T.domain(0, N)
    x = X[bs, ms, ns]
    A = T.matmul(x, x, transpose_rhs=True)                       # f32 [B, M, M]
    Ab = T.cast(A, T.bf16)
    Bm = NS_B * A + NS_C * T.matmul(Ab, Ab)                      # f32 [B, M, M]
    Y[bs, ms, ns] = T.cast(NS_A * T.cast(x, T.f32) + T.matmul(T.cast(Bm, T.bf16), x), T.bf16)


KERNEL = muon_newton_schulz


def _bf16(a):
    import _harness
    return _harness._round_bf16(np.asarray(a, np.float32)).astype(np.float64)


def inputs(shape, rng):
    B, M, N = shape["B"], shape["M"], shape["N"]
    x = rng.standard_normal((B, M, N))
    norm = np.sqrt((x * x).sum(axis=(1, 2), keepdims=True)) + 1e-7   # Muon's Frobenius normalization
    return dict(X=(x / norm).astype(np.float32))


def reference(X):
    x = X.astype(np.float64)
    A = x @ np.swapaxes(x, 1, 2)
    Ab = _bf16(A)
    Bm = NS_B * A + NS_C * (Ab @ Ab)
    return dict(Y=_bf16(NS_A * x + _bf16(Bm) @ x))


def peer(X):
    import torch
    A = torch.bmm(X, X.mT).float()                 # bf16 operands, f32 accumulation inside cuBLAS
    Ab = A.to(torch.bfloat16)
    Bm = NS_B * A + NS_C * torch.bmm(Ab, Ab).float()
    return dict(Y=(NS_A * X.float() + torch.bmm(Bm.to(torch.bfloat16), X).float()).to(torch.bfloat16))


def OPS(shape):
    B, M, N = shape["B"], shape["M"], shape["N"]
    return B * (4 * M * M * N + 2 * M * M * M), 4 * B * M * N


TEST_SHAPES = [dict(B=1, M=1, N=1), dict(B=2, M=5, N=13), dict(B=3, M=17, N=67)]
BENCH_SHAPE = dict(B=16, M=1024, N=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-3)
PEER = "torch.compile"
