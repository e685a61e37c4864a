"""Gumbel-max sampling from logits: token[b] = argmax_v(logits[b, v] / temperature - log(-log(u[b, v]))) with
u uniform in (0, 1) given as an f32 input [B, V], logits f32 [B, V], temperature a float scalar; int64 out [B]
(the first index on ties).
"""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def gumbel_sample(logits: T.In[T.f32, ("B", "V")], u: T.In[T.f32, ("B", "V")], token: T.Out[T.i64, ("B",)],
                  temperature: T.f32):
    B, V = logits.shape
    vocab = T.domain(0, V)
    for b in T.parallel(T.domain(0, B)):
        z = logits[b, vocab] / temperature - T.log(-T.log(u[b, vocab]))
        _, best = T.argmax(z, tie="lowest")
        token[b] = T.cast(best, T.i64)


KERNEL = gumbel_sample


def inputs(shape, rng):
    B, V = shape["B"], shape["V"]
    u = rng.random((B, V), dtype=np.float32)
    u = np.clip(u, np.float32(1e-7), np.float32(1 - 6e-8))     # strictly inside (0, 1)
    logits = (3 * rng.standard_normal((B, V))).astype(np.float32)
    if V >= 3:      # an exact tie in row 0: the first index (1) wins
        logits[0, :] = -10.0
        logits[0, 1:3] = 5.0
        u[0, 1:3] = 0.5
    return dict(logits=logits, u=u, temperature=0.7)


def reference(logits, u, temperature):
    z = logits / np.float32(temperature) - np.log(-np.log(u))      # f32, as the kernel computes
    return {"token": np.argmax(z, axis=1).astype(np.int64)}


def peer(logits, u, temperature):
    return {"token": (logits / temperature - (-u.log()).log()).argmax(dim=-1)}


TEST_SHAPES = [dict(B=1, V=1), dict(B=3, V=131), dict(B=5, V=4099)]
BENCH_SHAPE = dict(B=256, V=128256)
TOLERANCE = dict(rtol=0.0, atol=0.0)
PEER = "torch.compile"


def OPS(shape):
    B, V = shape["B"], shape["V"]
    return 5 * B * V, 8 * B * V + 8 * B
