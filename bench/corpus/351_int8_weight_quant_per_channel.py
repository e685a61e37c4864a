"""Per-output-channel symmetric int8 weight quantization (W8A16 / W8A8 checkpoints): W f16 [K, N] with K
rows of input features; per column n, scale[n] = max_k |W[k, n]| / 127 (1 where that maximum is 0), and
q[k, n] = round-half-even(W[k, n] / scale[n]) clamped to [-127, 127] as i8 (f32 math); outputs q i8 [K, N]
and scale f32 [N]. K8192 N8192. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def int8_weight_quant(w: T.In[T.f16, ("K", "N")], q: T.Out[T.i8, ("K", "N")], scale: T.Out[T.f32, ("N",)]):
    K, N = w.shape
    ks = T.domain(0, K)
    for n in T.parallel(T.domain(0, N)):
        col = T.cast(w[ks, n], T.f32)
        amax = T.max(T.abs(col))
        s = T.where(amax > 0.0, amax / 127.0, 1.0)
        scale[n] = s
        q[ks, n] = T.cast(T.minimum(T.maximum(T.round(col / s), -127.0), 127.0), T.i8)


KERNEL = int8_weight_quant


def inputs(shape, rng):
    K, N = shape["K"], shape["N"]
    w = rng.standard_normal((K, N)) * rng.uniform(0.01, 0.2, N)
    if K and N >= 3:
        w[:, 1] = 0.0                                         # an all-zero column: scale 1
        w[:, 2] = np.round(w[:, 2] * 128) / 128               # scale 1/64: odd multiples of 1/128 are ties
        w[0, 2] = 127 / 64
    return dict(w=w.astype(np.float16))


def _scaled(w):
    w32 = w.astype(np.float32)
    amax = np.abs(w32).max(axis=0) if w.shape[0] else np.zeros(w.shape[1], np.float32)
    s = np.where(amax > 0, amax / np.float32(127.0), np.float32(1.0)).astype(np.float32)
    return w32 / s, s


def reference(w):
    v, s = _scaled(w)
    return dict(q=np.clip(np.rint(v), -127, 127).astype(np.int8), scale=s)


def peer(w):
    import torch
    wf = w.float()
    amax = wf.abs().amax(dim=0)
    s = torch.where(amax > 0, amax / 127.0, torch.ones_like(amax))
    return dict(q=torch.round(wf / s).clamp(-127, 127).to(torch.int8), scale=s)


UNROUNDED = {"q": lambda w: _scaled(w)[0]}


def OPS(shape):
    K, N = shape["K"], shape["N"]
    return 4 * K * N, 3 * K * N + 4 * N


TEST_SHAPES = [dict(K=0, N=5), dict(K=1, N=1), dict(K=7, N=3), dict(K=31, N=67), dict(K=133, N=129)]
BENCH_SHAPE = dict(K=8192, N=8192)
TOLERANCE = dict(rtol=1e-6, atol=0.0)
PEER = "torch.compile"
