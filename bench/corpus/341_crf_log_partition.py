"""Linear-chain CRF log-partition (the forward algorithm of a CRF tagging head): emissions f32 [B, T, L],
transitions f32 [L, L] (transitions[i, j]: from label i to label j), lengths i32 [B] (1 <= len <= T);
alpha_0[j] = emissions[b, 0, j]; alpha_t[j] = logsumexp_i(alpha_{t-1}[i] + transitions[i, j]) +
emissions[b, t, j] for t < len; logZ[b] = logsumexp_j(alpha_{len-1}[j]), f32 [B]. B512 T256 L32.
Peer: torch.compile of the loop over t."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def crf_log_partition(emissions: T.In[T.f32, ("B", "T", "L")], transitions: T.In[T.f32, ("L", "L")],
                      lengths: T.In[T.i32, ("B",)], logZ: T.Out[T.f32, ("B",)]):
    B, NT, L = emissions.shape
    labs = T.domain(0, L)
    trans = transitions[labs, labs]                                   # [i, j]
    for b in T.parallel(T.domain(0, B)):
        alpha = emissions[b, 0, labs]
        for t in T.domain(1, lengths[b]):
            s = T.broadcast(alpha, over=(labs, labs), dims=[0]) + trans     # alpha[i] + trans[i, j]
            m = T.max(s, axis=0)                                            # over i, for each j
            lse = m + T.log(T.sum(T.exp(s - T.broadcast(m, over=(labs, labs), dims=[1])), axis=0))
            alpha = lse + emissions[b, t, labs]
        mx = T.max(alpha)
        logZ[b] = mx + T.log(T.sum(T.exp(alpha - mx)))


KERNEL = crf_log_partition


def inputs(shape, rng):
    B, NT, L = shape["B"], shape["T"], shape["L"]
    return dict(emissions=rng.standard_normal((B, NT, L)).astype(np.float32),
                transitions=(0.5 * rng.standard_normal((L, L))).astype(np.float32),
                lengths=rng.integers(1, NT + 1, B).astype(np.int32) if NT else np.zeros(B, np.int32))


def _lse(a, axis):
    m = a.max(axis=axis, keepdims=True)
    return (m + np.log(np.exp(a - m).sum(axis=axis, keepdims=True))).squeeze(axis)


def reference(emissions, transitions, lengths):
    e, tr = emissions.astype(np.float64), transitions.astype(np.float64)
    out = np.zeros(e.shape[0])
    for b in range(e.shape[0]):
        alpha = e[b, 0]
        for t in range(1, int(lengths[b])):
            alpha = _lse(alpha[:, None] + tr, 0) + e[b, t]
        out[b] = _lse(alpha, 0)
    return dict(logZ=out)


def peer(emissions, transitions, lengths):
    import torch
    alpha = emissions[:, 0]
    for t in range(1, emissions.shape[1]):
        nxt = torch.logsumexp(alpha[:, :, None] + transitions[None], dim=1) + emissions[:, t]
        alpha = torch.where((t < lengths)[:, None], nxt, alpha)
    return dict(logZ=torch.logsumexp(alpha, dim=1))


def OPS(shape):
    B, NT, L = shape["B"], shape["T"], shape["L"]
    return 4 * B * NT * L * L, 4 * B * NT * L + 4 * L * L + 8 * B


TEST_SHAPES = [dict(B=1, T=1, L=1), dict(B=3, T=7, L=5), dict(B=11, T=29, L=19)]
BENCH_SHAPE = dict(B=512, T=256, L=32)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "torch.compile"
XFAIL = {"triton": "kir-to-pgpu: this 'kir.broadcast' reads the carried tensor across positions (a reduction, "
                   "scan, broadcast, transpose or extract of it); a runtime loop carries a tensor only when its "
                   "body is elementwise along the carried axes"}
