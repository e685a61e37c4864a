"""Causal depthwise 1-D convolution with state update for decoding: new_state = concat(state[:, :, 1:], x[:, :, None]); y = sum_k new_state[:, :, k] * w[:, k] + bias, state f32 [B, C, 4] (updated in place), x f32 [B, C], w f32 [C, 4], y f32 [B, C]. B256 C8192. Peer: torch.compile."""
import numpy as np
import torch
import tessel
import tessel.language as T


@tessel.kernel
def causal_conv1d_update(state: T.InOut[T.f32, ("B", "C", 4)], x: T.In[T.f32, ("B", "C")],
                         w: T.In[T.f32, ("C", 4)], bias: T.In[T.f32, ("C",)], y: T.Out[T.f32, ("B", "C")]):
    B, C = x.shape
    chans = T.domain(0, C)
    for b in T.parallel(T.domain(0, B)):
        win = [state[b, chans, 1], state[b, chans, 2], state[b, chans, 3], x[b, chans]]   # the new state
        acc = bias[chans]
        for k in range(4):
            acc = acc + win[k] * w[chans, k]
        y[b, chans] = acc
        for k in range(4):
            state[b, chans, k] = win[k]


KERNEL = causal_conv1d_update


def inputs(shape, rng):
    B, C = shape["B"], shape["C"]
    return dict(state=rng.standard_normal((B, C, 4)).astype(np.float32), x=rng.standard_normal((B, C)).astype(np.float32),
                w=rng.standard_normal((C, 4)).astype(np.float32), bias=rng.standard_normal(C).astype(np.float32))


def reference(state, x, w, bias):
    ns = np.concatenate([state[:, :, 1:], x[:, :, None]], axis=2)
    y = (ns.astype(np.float64) * w.astype(np.float64)).sum(-1) + bias
    return dict(state=ns, y=y.astype(np.float32))


def peer(state, x, w, bias):
    ns = torch.cat([state[:, :, 1:], x[:, :, None]], dim=2)
    state.copy_(ns)
    return dict(state=state, y=(ns * w).sum(-1) + bias)


TEST_SHAPES = [dict(B=1, C=1), dict(B=3, C=127), dict(B=17, C=1031)]
BENCH_SHAPE = dict(B=256, C=8192)
TOLERANCE = dict(rtol=1e-5, atol=1e-5)
PEER = "torch.compile"
