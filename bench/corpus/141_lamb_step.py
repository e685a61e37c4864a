"""LAMB optimizer step on one flat f32 parameter tensor (m, v updated with beta1 0.9, beta2 0.999, eps 1e-6, weight decay 0.01, bias correction with a runtime step count; update u = m_hat/(sqrt(v_hat)+eps) + wd*p; trust ratio = |p| / |u| (1 if either norm is 0); p -= lr * ratio * u). N 2^26. Peer: torch.compile of the formula."""
import numpy as np

import tessel
import tessel.language as T

BETA1, BETA2, EPS, WD = 0.9, 0.999, 1e-6, 0.01


@tessel.kernel
def lamb_step(param: T.InOut[T.f32, ("N",)], grad: T.In[T.f32, ("N",)], exp_avg: T.InOut[T.f32, ("N",)],
              exp_avg_sq: T.InOut[T.f32, ("N",)], lr: T.f32, step: T.i32):
    elems = T.domain(0, param.shape[0])
    t = T.cast(step, T.f32)
    bc1 = 1.0 - T.pow(T.f32(BETA1), t)
    bc2 = 1.0 - T.pow(T.f32(BETA2), t)
    g, p = grad[elems], param[elems]
    m = BETA1 * exp_avg[elems] + (1.0 - BETA1) * g
    v = BETA2 * exp_avg_sq[elems] + (1.0 - BETA2) * g * g
    exp_avg[elems] = m
    exp_avg_sq[elems] = v
    u = (m / bc1) / (T.sqrt(v / bc2) + EPS) + WD * p
    p_norm = T.sqrt(T.sum(p * p))
    u_norm = T.sqrt(T.sum(u * u))
    ratio = T.where((p_norm > 0.0) & (u_norm > 0.0), p_norm / u_norm, 1.0)
    param[elems] = p - lr * ratio * u


KERNEL = lamb_step


def inputs(shape, rng):
    N = shape["N"]
    return {"param": rng.standard_normal(N).astype(np.float32),
            "grad": (rng.standard_normal(N) * 0.1).astype(np.float32),
            "exp_avg": (rng.standard_normal(N) * 0.01).astype(np.float32),
            "exp_avg_sq": (rng.uniform(0.0, 1e-3, N)).astype(np.float32),
            "lr": 1e-3, "step": 7}


def reference(param, grad, exp_avg, exp_avg_sq, lr, step):
    p, g = param.astype(np.float64), grad.astype(np.float64)
    m = BETA1 * exp_avg + (1 - BETA1) * g
    v = BETA2 * exp_avg_sq + (1 - BETA2) * g * g
    u = (m / (1 - BETA1 ** step)) / (np.sqrt(v / (1 - BETA2 ** step)) + EPS) + WD * p
    pn, un = np.sqrt((p * p).sum()), np.sqrt((u * u).sum())
    ratio = pn / un if pn > 0 and un > 0 else 1.0
    return {"param": p - np.float32(lr) * ratio * u, "exp_avg": m, "exp_avg_sq": v}


def peer(param, grad, exp_avg, exp_avg_sq, lr, step):
    import torch
    exp_avg.mul_(BETA1).add_(grad, alpha=1 - BETA1)
    exp_avg_sq.mul_(BETA2).addcmul_(grad, grad, value=1 - BETA2)
    u = (exp_avg / (1 - BETA1 ** step)) / ((exp_avg_sq / (1 - BETA2 ** step)).sqrt() + EPS) + WD * param
    pn, un = param.norm(), u.norm()
    ratio = torch.where((pn > 0) & (un > 0), pn / un, torch.ones_like(pn))
    param.sub_(lr * ratio * u)
    return {"param": param, "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq}


def OPS(shape):
    N = shape["N"]
    return 20 * N, 7 * 4 * N


TEST_SHAPES = [dict(N=1), dict(N=127), dict(N=100003)]
BENCH_SHAPE = dict(N=2 ** 26)
TOLERANCE = dict(rtol=1e-4, atol=1e-6)
PEER = "torch.compile of the formula"
