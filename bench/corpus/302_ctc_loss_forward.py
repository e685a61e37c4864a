"""CTC loss, forward (torch.nn.functional.ctc_loss with blank 0 and reduction "none", as wav2vec2 / Whisper-
CTC / ASR fine-tuning computes it; torch's _ctc_loss also returns the alpha table its backward reads):
log_probs f32 [T, B, C] (log-softmax over C characters, time first), padded targets i32 [B, S] with
target_lengths i32 [B] (1 <= label <= C - 1) and input_lengths i32 [B]. For sequence b the extended label
sequence l' interleaves blanks with the L = target_lengths[b] labels (length 2L + 1: blank, y1, blank, y2,
..., blank); log_alpha[b, 0, s] = log_probs[0, b, l'[s]] for s < 2, and for t >= 1 log_alpha[b, t, s] =
logsumexp(alpha[t-1, s], alpha[t-1, s-1], and alpha[t-1, s-2] where l'[s] is a label different from
l'[s-2]) + log_probs[t, b, l'[s]]; entries past 2L + 1 or at t >= input_lengths[b] are -inf. nll[b] =
-logsumexp(log_alpha[b, T_b - 1, 2L], log_alpha[b, T_b - 1, 2L - 1]) (the second only when L > 0), with
T_b = input_lengths[b]. log_alpha f32 [B, T, S2] (S2 = 2 S + 1), nll f32 [B]. B64 T1000 C32 S200
(character-level ASR of 20 s utterances). Peer: F.ctc_loss (cuDNN / torch's CUDA kernel)."""
import math

import numpy as np
import tessel
import tessel.language as T

NEG = -math.inf


@tessel.fn
def logaddexp3(a, b, c):
    m = T.maximum(T.maximum(a, b), c)
    ms = T.where(m == NEG, 0.0, m)
    return ms + T.log(T.exp(a - ms) + T.exp(b - ms) + T.exp(c - ms))


@tessel.kernel
def ctc_forward(log_probs: T.In[T.f32, ("T", "B", "C")], targets: T.In[T.i32, ("B", "S")],
                input_lengths: T.In[T.i32, ("B",)], target_lengths: T.In[T.i32, ("B",)],
                nll: T.Out[T.f32, ("B",)], log_alpha: T.Out[T.f32, ("B", "T", "S2")]):
    Tn, B, C = log_probs.shape
    S2 = log_alpha.shape[2]
    ext = T.domain(0, S2)
    for b in T.parallel(T.domain(0, B)):
        s = T.indices(ext)
        L = 2 * T.cast(target_lengths[b], T.index) + 1
        Tb = T.cast(input_lengths[b], T.index)
        inside = s < L
        odd = (s % 2) == 1
        lab = T.load(targets, (b, s // 2), valid=odd & inside, fill=0)                 # l'[s]
        before = T.load(targets, (b, s // 2 - 1), valid=odd & inside & (s >= 3), fill=0)
        skip = odd & (s >= 3) & (lab != before)
        log_alpha[b, 0, ext] = T.where(inside & (s < 2), log_probs[0, b, lab], NEG)
        for t in T.domain(1, Tb):
            a0 = log_alpha[b, t - 1, ext]
            a1 = T.load(log_alpha, (b, t - 1, s - 1), valid=s >= 1, fill=NEG)
            a2 = T.load(log_alpha, (b, t - 1, s - 2), valid=skip, fill=NEG)
            log_alpha[b, t, ext] = T.where(inside, logaddexp3(a0, a1, a2) + log_probs[t, b, lab], NEG)
        for t in T.domain(Tb, Tn):
            log_alpha[b, t, ext] = T.full((ext,), NEG, T.f32)
        last = log_alpha[b, Tb - 1, L - 1]
        prev = log_alpha[b, Tb - 1, L - 2] if L >= 2 else T.f32(NEG)
        nll[b] = -logaddexp3(last, prev, T.f32(NEG))


KERNEL = ctc_forward


def inputs(shape, rng):
    Tn, B, C, S, S2 = shape["T"], shape["B"], shape["C"], shape["S"], shape["S2"]
    assert S2 == 2 * S + 1 and C >= 2
    x = rng.standard_normal((Tn, B, C))
    lp = x - np.log(np.exp(x).sum(axis=2, keepdims=True))
    il = rng.integers(max(1, Tn // 2), Tn + 1, size=B)
    il[0] = Tn
    tl = np.minimum(rng.integers(0, S + 1, size=B), (il - 1) // 2)       # feasible: 2L + 1 <= T_b
    tgt = rng.integers(1, C, size=(B, S))
    if S >= 2 and tl[0] >= 2:
        tgt[0, 1] = tgt[0, 0]                                               # a repeated label: no skip
    return dict(log_probs=lp.astype(np.float32), targets=tgt.astype(np.int32),
                input_lengths=il.astype(np.int32), target_lengths=tl.astype(np.int32))


def _lse(*xs):
    m = max(xs)
    return m if m == -np.inf else m + math.log(sum(math.exp(x - m) for x in xs))


def reference(log_probs, targets, input_lengths, target_lengths):
    Tn, B, C = log_probs.shape
    S2 = 2 * targets.shape[1] + 1
    lp = log_probs.astype(np.float64)
    alpha = np.full((B, Tn, S2), -np.inf)
    nll = np.zeros(B)
    for b in range(B):
        L = 2 * int(target_lengths[b]) + 1
        ext = [0] * L
        for i in range(int(target_lengths[b])):
            ext[2 * i + 1] = int(targets[b, i])
        for s in range(min(2, L)):
            alpha[b, 0, s] = lp[0, b, ext[s]]
        for t in range(1, int(input_lengths[b])):
            for s in range(L):
                terms = [alpha[b, t - 1, s]] + ([alpha[b, t - 1, s - 1]] if s >= 1 else [])
                if s >= 3 and s % 2 == 1 and ext[s] != ext[s - 2]:
                    terms.append(alpha[b, t - 1, s - 2])
                alpha[b, t, s] = _lse(*terms) + lp[t, b, ext[s]]
        Tb = int(input_lengths[b])
        nll[b] = -_lse(alpha[b, Tb - 1, L - 1], alpha[b, Tb - 1, L - 2] if L >= 2 else -np.inf)
    return dict(nll=nll, log_alpha=alpha)


def peer(log_probs, targets, input_lengths, target_lengths):
    import torch
    nll, _ = torch.ops.aten._ctc_loss(log_probs, targets.long(), input_lengths.long(), target_lengths.long(),
                                          0, False)
    # torch's alpha table is its backward's scratch: it computes only the band of entries that can reach the
    # end (the others stay uninitialized) and is 2 max(target_lengths) + 1 wide, so only the loss is compared
    return dict(nll=nll)


def OPS(shape):
    B, Tn, S2 = shape["B"], shape["T"], shape["S2"]
    return 12 * B * Tn * S2, 4 * B * Tn * S2 * 3 + 4 * Tn * B * shape["C"]


TEST_SHAPES = [dict(T=1, B=1, C=2, S=1, S2=3), dict(T=13, B=3, C=5, S=4, S2=9), dict(T=41, B=2, C=7, S=11, S2=23)]
BENCH_SHAPE = dict(T=1000, B=64, C=32, S=200, S2=401)
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
PEER = "F.ctc_loss"
