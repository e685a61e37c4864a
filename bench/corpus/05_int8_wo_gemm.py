"""Int8 weight-only GEMM: Y = X·dequant(Wq), X bf16 [M,K], Wq int8 [K,N] with per-column scales
[N] (bf16), dequant(Wq)[k,n] = Wq[k,n]·scale[n], Y bf16. M=16 and M=4096, NxK = 4096x4096.
Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def int8_weight_gemm(x: T.In[T.bf16, ("M", "K")],
                     wq: T.In[T.i8, ("K", "N")],
                     scale: T.In[T.bf16, ("N",)],
                     y: T.Out[T.bf16, ("M", "N")]):
    w = T.cast(wq[:, :], T.bf16)                       # int8 -> bf16 is exact
    acc = T.matmul(x[:, :], w, acc_dtype=T.f32)        # the scale is per column: apply it after
    y[:, :] = T.cast(acc * T.cast(scale[:], T.f32), T.bf16)


KERNEL = int8_weight_gemm
CONSTEXPRS = {}


def inputs(shape, rng):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return {
        "x": rng.standard_normal((M, K)).astype(np.float32),
        "wq": rng.integers(-127, 128, size=(K, N), dtype=np.int8),
        "scale": (rng.uniform(0.5, 1.5, size=N) / (127.0 * np.sqrt(K))).astype(np.float32),
    }


def reference(x, wq, scale):
    w = wq.astype(np.float64) * scale.astype(np.float64)[None, :]
    return {"y": x.astype(np.float64) @ w}


def peer(x, wq, scale):
    return {"y": x @ (wq.to(x.dtype) * scale)}


TEST_SHAPES = [dict(M=1, N=1, K=1), dict(M=16, N=131, K=67), dict(M=3, N=65, K=257),
               dict(M=45, N=100, K=129)]
BENCH_SHAPE = dict(M=16, N=4096, K=4096)     # the description's other size: M=4096
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
SKIP = {"triton": ("triton path under TRITON_INTERPRET=1 (interp passes): Triton 3.6.0's interpreter computes bf16 arithmetic on the uint16 bit patterns (here the dequantization's bf16 multiply; triton-lang/triton PR #10945 closed unmerged), so the tl.dot operand is garbage; the harness's fix of the bf16 tl.dot (#11584, _harness.interpreter_bf16_dot) does not reach it")}
PEER = "torch.compile"


def OPS(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return 2 * M * N * K, 2 * M * K + K * N + 2 * N + 2 * M * N
