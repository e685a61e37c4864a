"""LoRA forward: Y = X·W + s·(X·A)·B, X [M,K], W [K,N], A [K,16], B [16,N], Y [M,N], all bf16
(s a runtime scale). 8192x4096x4096 (MxNxK). Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def lora_forward(x: T.In[T.bf16, ("M", "K")],
                 w: T.In[T.bf16, ("K", "N")],
                 lora_a: T.In[T.bf16, ("K", 16)],
                 lora_b: T.In[T.bf16, (16, "N")],
                 y: T.Out[T.bf16, ("M", "N")],
                 s: T.f32):
    xt = x[:, :]
    xa = T.cast(T.matmul(xt, lora_a[:, :], acc_dtype=T.f32), T.bf16)   # [M, 16], rounded like torch
    delta = T.matmul(xa, lora_b[:, :], acc_dtype=T.f32)                # [M, N]
    base = T.matmul(xt, w[:, :], acc_dtype=T.f32)                      # [M, N]
    y[:, :] = T.cast(base + delta * s, T.bf16)


KERNEL = lora_forward
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return {
        "x": rng.standard_normal((M, K)).astype(np.float32),
        "w": (rng.standard_normal((K, N)) / np.sqrt(K)).astype(np.float32),
        "lora_a": (rng.standard_normal((K, 16)) / np.sqrt(K)).astype(np.float32),
        "lora_b": (rng.standard_normal((16, N)) / 4.0).astype(np.float32),
        "s": 0.5,
    }


def reference(x, w, lora_a, lora_b, s):
    x = x.astype(np.float64)
    y = x @ w.astype(np.float64) + s * ((x @ lora_a.astype(np.float64)) @ lora_b.astype(np.float64))
    return {"y": y}


def peer(x, w, lora_a, lora_b, s):
    return {"y": x @ w + s * ((x @ lora_a) @ lora_b)}


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=3, N=131, K=67), dict(M=31, N=65, K=129),
               dict(M=67, N=97, K=100)]
BENCH_SHAPE = dict(M=8192, N=4096, K=4096)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K + 2 * M * 16 * (K + N), 2 * (M * K + K * N + 16 * (K + N) + M * N)
