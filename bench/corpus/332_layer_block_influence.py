"""Block influence of every transformer layer from the cosine similarity of its input and output
activations (ShortGPT's BI metric, as layer-pruning and layer-skipping studies compute it over a
calibration batch): the residual stream was captured before the first layer and after each layer, hidden
bf16 [L + 1, T, D] (hidden[l] is layer l's input, hidden[l + 1] its output); for every token t,
cos[l, t] = <hidden[l, t], hidden[l + 1, t]> / max(|hidden[l, t]| * |hidden[l + 1, t]|, 1e-8) (f32
products and sums), and bi[l] = 1 - (1 / T) * sum over t of cos[l, t], f32 [L]. L32 T4096 D4096
(Llama-2-7B over a 4096-token calibration batch). Peer: torch.compile of F.cosine_similarity between the
shifted stacks, then the mean over the tokens."""
import numpy as np
import tessel
import tessel.language as T

EPS = 1e-8


@tessel.kernel
def block_influence(hidden: T.In[T.bf16, ("L1", "T", "D")], bi: T.Out[T.f32, ("L",)]):
    NT, D = hidden.shape[1], hidden.shape[2]
    L = bi.shape[0]
    toks, dims = T.domain(0, NT), T.domain(0, D)
    for l in T.parallel(T.domain(0, L)):
        a = T.cast(hidden[l, toks, dims], T.f32)
        b = T.cast(hidden[l + 1, toks, dims], T.f32)
        dot = T.sum(a * b, axis=1)
        na = T.sqrt(T.sum(a * a, axis=1))
        nb = T.sqrt(T.sum(b * b, axis=1))
        cos = dot / T.maximum(na * nb, EPS)
        bi[l] = 1.0 - T.sum(cos) / T.cast(NT, T.f32)


KERNEL = block_influence


def inputs(shape, rng):
    L1, NT, D = shape["L1"], shape["T"], shape["D"]
    assert shape["L"] == L1 - 1
    # a residual stream: each layer adds an update to its input
    h = np.empty((L1, NT, D), np.float32)
    if L1:
        h[0] = rng.standard_normal((NT, D))
        for l in range(1, L1):
            h[l] = h[l - 1] + rng.standard_normal((NT, D)) * (0.2 + 0.1 * l)
    return dict(hidden=h)


def reference(hidden):
    h = hidden.astype(np.float64)
    a, b = h[:-1], h[1:]
    cos = (a * b).sum(-1) / np.maximum(np.sqrt((a * a).sum(-1)) * np.sqrt((b * b).sum(-1)), EPS)
    return dict(bi=1.0 - cos.mean(-1) if h.shape[1] else np.full(h.shape[0] - 1, np.nan))


def peer(hidden):
    import torch
    h = hidden.float()
    cos = torch.nn.functional.cosine_similarity(h[:-1], h[1:], dim=-1, eps=EPS)
    return dict(bi=1.0 - cos.mean(-1))


def OPS(shape):
    n = shape["L1"] * shape["T"] * shape["D"]
    return 6 * n, 2 * n


TEST_SHAPES = [dict(L1=2, L=1, T=1, D=1), dict(L1=4, L=3, T=7, D=13), dict(L1=6, L=5, T=11, D=131)]
BENCH_SHAPE = dict(L1=33, L=32, T=4096, D=4096)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
