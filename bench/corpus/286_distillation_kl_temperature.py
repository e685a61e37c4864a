"""Knowledge-distillation loss with a temperature (Hinton et al.; DistilBERT's and MiniLLM's logit
distillation): with p = softmax(teacher[n, :] / tau) and log q = log_softmax(student[n, :] / tau) over
the vocabulary, loss[0] = tau^2 * (1 / N) * sum_n sum_v p_v (log p_v - log q_v) (F.kl_div(..., 
reduction="batchmean", log_target=False) scaled by tau^2). Student and teacher logits bf16 [N, V], read
in f32. N=8192 tokens, V=32000. Peer: torch.compile of log_softmax, softmax and kl_div."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def distillation_kl_temperature(student: T.In[T.bf16, ("N", "V")], teacher: T.In[T.bf16, ("N", "V")],
                                loss: T.Out[T.f32, (1,)], tau: T.f32):
    N, V = student.shape
    rows, vocab = T.domain(0, N), T.domain(0, V)
    zs = T.cast(student[rows, vocab], T.f32) / tau
    zt = T.cast(teacher[rows, vocab], T.f32) / tau
    ms, mt = T.max(zs, axis=1), T.max(zt, axis=1)
    lse_s = ms + T.log(T.sum(T.exp(zs - ms), axis=1))
    lse_t = mt + T.log(T.sum(T.exp(zt - mt), axis=1))
    log_p = zt - lse_t
    log_q = zs - lse_s
    kl = T.sum(T.exp(log_p) * (log_p - log_q), axis=1)
    loss[0] = tau * tau * T.sum(kl) / T.cast(N, T.f32)


KERNEL = distillation_kl_temperature


def inputs(shape, rng):
    N, V = shape["N"], shape["V"]
    t = 3.0 * rng.standard_normal((N, V))
    return dict(student=(t + rng.standard_normal((N, V))).astype(np.float32), teacher=t.astype(np.float32),
                tau=2.0)


def _log_softmax(z):
    m = z.max(axis=1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=1, keepdims=True))


def reference(student, teacher, tau):
    lq = _log_softmax(student.astype(np.float64) / tau)
    lp = _log_softmax(teacher.astype(np.float64) / tau)
    kl = (np.exp(lp) * (lp - lq)).sum(axis=1)
    return dict(loss=np.array([tau * tau * kl.sum() / student.shape[0]]))


def peer(student, teacher, tau):
    import torch.nn.functional as F
    lq = F.log_softmax(student.float() / tau, dim=-1)
    p = F.softmax(teacher.float() / tau, dim=-1)
    return dict(loss=(F.kl_div(lq, p, reduction="batchmean") * tau * tau).reshape(1))


def OPS(shape):
    n = shape["N"] * shape["V"]
    return 12 * n, 4 * n


TEST_SHAPES = [dict(N=1, V=1), dict(N=3, V=131), dict(N=7, V=1031)]
BENCH_SHAPE = dict(N=8192, V=32000)
TOLERANCE = dict(rtol=1e-4, atol=1e-5)
PEER = "torch.compile"
