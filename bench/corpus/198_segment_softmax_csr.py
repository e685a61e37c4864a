"""Graph-attention edge softmax: scores [E] f32 grouped into segments by CSR offsets [S+1] i32 (segment s is
scores[offsets[s]:offsets[s+1]]; lengths vary and may be 0); out [E] = softmax within each segment.
S=100000 segments of random lengths averaging 40 (E ~ 4M). Peer: torch.compile (torch_scatter-style:
segment max via scatter_reduce amax, exp, segment sum via index_add_, divide)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def segment_softmax_csr(scores: T.In[T.f32, ("E",)], offsets: T.In[T.i32, ("S1",)],
                        out: T.Out[T.f32, ("E",)]):
    E = scores.shape[0]
    S = offsets.shape[0] - 1
    edges = T.domain(0, E)
    for s in T.parallel(T.domain(0, S)):
        seg = edges[offsets[s]:offsets[s + 1]]           # may be empty
        v = scores[seg]
        e = T.exp(v - T.max(v))
        out[seg] = e / T.sum(e)


KERNEL = segment_softmax_csr
CONSTEXPRS = {}


def inputs(shape, rng):
    S, E = shape["S"], shape["E"]
    assert shape["S1"] == S + 1
    lens = rng.multinomial(E, rng.dirichlet(np.full(S, 1.0))) if S > 1 else np.array([E])
    if S > 2:                                            # an empty segment in every test
        lens[1] += lens[0]
        lens[0] = 0
    return dict(scores=(3.0 * rng.standard_normal(E)).astype(np.float32),
                offsets=np.concatenate([[0], np.cumsum(lens)]).astype(np.int32))


def reference(scores, offsets):
    out = np.zeros(scores.shape[0])
    s = scores.astype(np.float64)
    for a, b in zip(offsets[:-1], offsets[1:]):
        if b > a:
            e = np.exp(s[a:b] - s[a:b].max())
            out[a:b] = e / e.sum()
    return dict(out=out)


def peer(scores, offsets):
    import torch
    S = offsets.shape[0] - 1
    seg = torch.repeat_interleave(torch.arange(S, device=scores.device), (offsets[1:] - offsets[:-1]).long(),
                                  output_size=scores.shape[0])
    mx = torch.full((S,), float("-inf"), device=scores.device).scatter_reduce(0, seg, scores, "amax")
    e = torch.exp(scores - mx[seg])
    den = torch.zeros(S, device=scores.device).index_add_(0, seg, e)
    return dict(out=e / den[seg])


def _shape(S, E):
    return dict(S=S, S1=S + 1, E=E)


TEST_SHAPES = [_shape(1, 1), _shape(1, 0), _shape(7, 29), _shape(97, 1031), _shape(13, 2053)]
BENCH_SHAPE = _shape(100000, 4000000)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.compile"


def OPS(shape):
    E, S = shape["E"], shape["S"]
    return 4 * E, 4 * (3 * E + S + 1)
