"""Depthwise 1-D convolution over time on channels-last activations, "same" padding, with bias (the
convolution module of Conformer / FastConformer / wav2vec2-Conformer speech encoders, kernel 31, and of
Hyena-style short convolutions; the activations stay [B, T, C] between the attention and the feed-forward
blocks): for x bf16 [B, T, C], weights w f32 [KW, C] (one filter of odd width KW per channel) and bias f32
[C], out[b, t, c] = bias[c] + sum over k < KW of w[k, c] * x[b, t + k - KW // 2, c] (zero outside [0, T)),
f32 accumulation, out bf16 [B, T, C]. B16 T2048 C1024 KW31 (Conformer-Large on 80 s of audio after the 4x
subsampling). Peer: torch.compile of F.conv1d(groups=C) between transposes (what the Conformer module runs)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def depthwise_conv1d_nlc(x: T.In[T.bf16, ("B", "T", "C")], w: T.In[T.f32, ("KW", "C")],
                         bias: T.In[T.f32, ("C",)], out: T.Out[T.bf16, ("B", "T", "C")]):
    B, NT, C = x.shape
    KW = w.shape[0]
    pad = KW // 2
    chans = T.domain(0, C)
    for b, t in T.parallel(T.domain(0, B), T.domain(0, NT)):
        acc = bias[chans]
        for k in T.domain(0, KW):
            src = t + k - pad
            xv = T.load(x, (b, src, chans), valid=(src >= 0) & (src < NT), fill=0.0)
            acc = acc + w[k, chans] * T.cast(xv, T.f32)
        out[b, t, chans] = T.cast(acc, T.bf16)


KERNEL = depthwise_conv1d_nlc


def inputs(shape, rng):
    B, NT, C, KW = shape["B"], shape["T"], shape["C"], shape["KW"]
    return dict(x=rng.standard_normal((B, NT, C)).astype(np.float32),
                w=(rng.standard_normal((KW, C)) / np.sqrt(KW)).astype(np.float32),
                bias=rng.standard_normal(C).astype(np.float32))


def reference(x, w, bias):
    B, NT, C = x.shape
    KW = w.shape[0]
    pad = KW // 2
    xp = np.zeros((B, NT + 2 * pad, C))
    xp[:, pad:pad + NT] = x
    out = np.broadcast_to(bias.astype(np.float64), (B, NT, C)).copy()
    for k in range(KW):
        out += w[k].astype(np.float64) * xp[:, k:k + NT]
    return dict(out=out)


def peer(x, w, bias):
    import torch
    KW, C = w.shape
    y = torch.nn.functional.conv1d(x.transpose(1, 2).float(), w.t().unsqueeze(1), bias, padding=KW // 2,
                                   groups=C)
    return dict(out=y.transpose(1, 2).to(torch.bfloat16))


def OPS(shape):
    n = shape["B"] * shape["T"] * shape["C"]
    return 2 * n * shape["KW"], 4 * n


TEST_SHAPES = [dict(B=1, T=1, C=1, KW=1), dict(B=2, T=13, C=5, KW=3), dict(B=1, T=37, C=11, KW=31)]
BENCH_SHAPE = dict(B=16, T=2048, C=1024, KW=31)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
