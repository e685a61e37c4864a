"""Depthwise causal conv1d over packed variable-length sequences, with SiLU (Mamba-2's prefill with
causal_conv1d_fn(x, weight, bias, seq_idx=..., activation="silu"), as mamba_ssm and vLLM run it on
continuous-batching inputs): x bf16 [B, D, L] holds several sequences back to back along L, seq_idx i32
[B, L] (non-decreasing along L) names the sequence of each position, and a tap reaches back only within
its own sequence: out[b, d, t] = silu(bias[d] + sum over k < W of weight[d, k] * x[b, d, t - W + 1 + k])
where a term counts only when t - W + 1 + k >= 0 and seq_idx[b, t - W + 1 + k] == seq_idx[b, t] (zero
otherwise, as at the start of every sequence). weight f32 [D, 4], bias f32 [D], out bf16. B1 D8192 L16384
(one packed batch of prompts). Peer: causal_conv1d_fn with seq_idx (torch reference: a masked unfold)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def causal_conv1d_varlen(x: T.In[T.bf16, ("B", "D", "L")], weight: T.In[T.f32, ("D", 4)],
                         bias: T.In[T.f32, ("D",)], seq_idx: T.In[T.i32, ("B", "L")],
                         out: T.Out[T.bf16, ("B", "D", "L")]):
    B, D, L = x.shape
    W = 4
    ts = T.domain(0, L)
    for b, d in T.parallel(T.domain(0, B), T.domain(0, D)):
        t = T.indices(ts)
        mine = seq_idx[b, ts]
        acc = bias[d] + T.zeros(ts)
        for k in range(W):
            src = t + (k - (W - 1))
            ok = src >= 0
            xs = T.cast(T.load(x, (b, d, src), valid=ok, fill=0.0), T.f32)
            same = T.load(seq_idx, (b, src), valid=ok, fill=-1) == mine
            acc = acc + T.where(same, xs, 0.0) * weight[d, k]
        out[b, d, ts] = T.cast(acc * T.sigmoid(acc), T.bf16)


KERNEL = causal_conv1d_varlen


def inputs(shape, rng):
    B, D, L = shape["B"], shape["D"], shape["L"]
    seq = np.zeros((B, L), np.int32)
    for b in range(B):
        if L > 1:
            starts = np.sort(rng.choice(np.arange(1, L), size=min(L - 1, max(1, L // 5)), replace=False))
            if L > 3:
                starts = np.union1d(starts, [L - 1])      # a one-token sequence at the end
            seq[b, starts] = 1
        seq[b] = np.cumsum(seq[b])
    return dict(x=rng.standard_normal((B, D, L)).astype(np.float32),
                weight=(rng.standard_normal((D, 4)) * 0.5).astype(np.float32),
                bias=(rng.standard_normal(D) * 0.1).astype(np.float32), seq_idx=seq)


def reference(x, weight, bias, seq_idx):
    B, D, L = x.shape
    W = weight.shape[1]
    acc = np.broadcast_to(bias[None, :, None], (B, D, L)).astype(np.float64).copy()
    for k in range(W):
        sh = W - 1 - k
        xs = np.zeros((B, D, L))
        same = np.zeros((B, L), bool)
        if sh < L:
            xs[:, :, sh:] = x[:, :, :L - sh]
            same[:, sh:] = seq_idx[:, :L - sh] == seq_idx[:, sh:]
        acc += np.where(same[:, None, :], xs, 0.0) * weight[None, :, k, None]
    return dict(out=acc / (1.0 + np.exp(-acc)))


def peer(x, weight, bias, seq_idx):
    import torch
    import torch.nn.functional as F
    W = weight.shape[1]
    xp = F.pad(x.float(), (W - 1, 0))                                   # [B, D, L + W - 1]
    sp = F.pad(seq_idx, (W - 1, 0), value=-1)
    win = xp.unfold(2, W, 1)                                           # [B, D, L, W]
    same = sp.unfold(1, W, 1) == seq_idx[:, :, None]                   # [B, L, W]
    y = (win * same[:, None].float() * weight[None, :, None, :]).sum(-1) + bias[None, :, None]
    return dict(out=F.silu(y).to(torch.bfloat16))


def OPS(shape):
    n = shape["B"] * shape["D"] * shape["L"]
    return 12 * n, 4 * n + 4 * shape["B"] * shape["L"]


TEST_SHAPES = [dict(B=1, D=1, L=1), dict(B=2, D=3, L=13), dict(B=1, D=5, L=131)]
BENCH_SHAPE = dict(B=1, D=8192, L=16384)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "causal_conv1d_fn"
