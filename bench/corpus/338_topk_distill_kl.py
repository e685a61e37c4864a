"""Sparse (top-k) knowledge-distillation loss against cached teacher logits (offline distillation as
Arcee's DistillKit, MiniPLM-style and "sparse logit" pipelines run it: the teacher's K most probable tokens
per position and their log-probabilities are stored once, and the student trains against them): for student
logits bf16 [N, V], the teacher's top-k token ids teacher_ids i32 [N, K] and their teacher log-probabilities
teacher_logprobs f32 [N, K] (log-softmax over the teacher's full vocabulary), with the student's
log-probabilities log q = log_softmax(logits[n, :]) (f32 math), loss[n] = sum over k of
exp(teacher_logprobs[n, k]) * (teacher_logprobs[n, k] - log q[teacher_ids[n, k]]), f32 [N] (the forward KL
restricted to the teacher's top k). N16384 V128256 K64 (Llama 3's vocabulary, a 16k-token micro-batch).
Peer: torch.compile of log_softmax, gather, and the weighted sum."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def topk_distill_kl(logits: T.In[T.bf16, ("N", "V")], teacher_ids: T.In[T.i32, ("N", "K"), T.Range(0, "V")],
                    teacher_logprobs: T.In[T.f32, ("N", "K")], loss: T.Out[T.f32, ("N",)]):
    N, V = logits.shape
    K = teacher_ids.shape[1]
    vocab, top = T.domain(0, V), T.domain(0, K)
    for n in T.parallel(T.domain(0, N)):
        z = T.cast(logits[n, vocab], T.f32)
        mx = T.max(z)
        lse = mx + T.log(T.sum(T.exp(z - mx)))
        tl = teacher_logprobs[n, top]
        zs = T.cast(logits[n, teacher_ids[n, top]], T.f32)
        loss[n] = T.sum(T.exp(tl) * (tl - (zs - lse)))


KERNEL = topk_distill_kl


def inputs(shape, rng):
    N, V, K = shape["N"], shape["V"], shape["K"]
    assert K <= V
    teacher = rng.standard_normal((N, V)) * 2.0
    ids = np.argsort(-teacher, axis=1, kind="stable")[:, :K]
    m = teacher.max(axis=1, keepdims=True) if V else 0.0
    tlp = teacher - (m + np.log(np.exp(teacher - m).sum(axis=1, keepdims=True)))
    student = teacher + rng.standard_normal((N, V))
    return dict(logits=student.astype(np.float32), teacher_ids=ids.astype(np.int32),
                teacher_logprobs=np.take_along_axis(tlp, ids, axis=1).astype(np.float32))


def reference(logits, teacher_ids, teacher_logprobs):
    z = logits.astype(np.float64)
    m = z.max(axis=1, keepdims=True)
    logq = z - (m + np.log(np.exp(z - m).sum(axis=1, keepdims=True)))
    lq = np.take_along_axis(logq, teacher_ids.astype(np.int64), axis=1)
    t = teacher_logprobs.astype(np.float64)
    return dict(loss=(np.exp(t) * (t - lq)).sum(axis=1))


def peer(logits, teacher_ids, teacher_logprobs):
    import torch
    logq = torch.log_softmax(logits.float(), dim=-1)
    lq = logq.gather(1, teacher_ids.long())
    t = teacher_logprobs
    return dict(loss=(t.exp() * (t - lq)).sum(dim=1))


def OPS(shape):
    N, V, K = shape["N"], shape["V"], shape["K"]
    return 4 * N * V + 5 * N * K, 2 * N * V + 8 * N * K + 4 * N


TEST_SHAPES = [dict(N=1, V=1, K=1), dict(N=5, V=37, K=7), dict(N=13, V=1031, K=64)]
BENCH_SHAPE = dict(N=16384, V=128256, K=64)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
