"""Fused AdamW step over a flat f32 parameter buffer (100M elements): with grad g, first and second
moments m, v and step count t (already incremented), param *= 1 - lr * wd; m = b1 m + (1 - b1) g;
v = b2 v + (1 - b2) g^2; param -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps), all in place.
Peer: torch.optim.AdamW(fused=True)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def adamw(param: T.InOut[T.f32, ("N",)],
          grad: T.In[T.f32, ("N",)],
          exp_avg: T.InOut[T.f32, ("N",)],
          exp_avg_sq: T.InOut[T.f32, ("N",)],
          lr: T.f32, beta1: T.f32, beta2: T.f32, eps: T.f32, weight_decay: T.f32, step: T.i32):
    t = T.cast(step, T.f32)
    bias_correction1 = 1.0 - beta1 ** t
    bias_correction2 = 1.0 - beta2 ** t
    step_size = lr / bias_correction1
    bc2_sqrt = T.sqrt(bias_correction2)

    g = grad[:]
    p = param[:] * (1.0 - lr * weight_decay)
    m = beta1 * exp_avg[:] + (1.0 - beta1) * g
    v = beta2 * exp_avg_sq[:] + (1.0 - beta2) * g * g
    exp_avg[:] = m
    exp_avg_sq[:] = v
    param[:] = p - step_size * m / (T.sqrt(v) / bc2_sqrt + eps)


KERNEL = adamw


def inputs(shape, rng):
    N = shape["N"]
    return {
        "param": rng.standard_normal(N).astype(np.float32),
        "grad": (0.1 * rng.standard_normal(N)).astype(np.float32),
        "exp_avg": (0.01 * rng.standard_normal(N)).astype(np.float32),
        "exp_avg_sq": (1e-4 * rng.random(N) + 1e-6).astype(np.float32),
        "lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.01, "step": 7,
    }


def reference(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, weight_decay, step):
    p, g = param.astype(np.float64), grad.astype(np.float64)
    m = beta1 * exp_avg.astype(np.float64) + (1 - beta1) * g
    v = beta2 * exp_avg_sq.astype(np.float64) + (1 - beta2) * g * g
    bc1, bc2 = 1 - beta1 ** step, 1 - beta2 ** step
    p = p * (1 - lr * weight_decay) - lr / bc1 * m / (np.sqrt(v) / np.sqrt(bc2) + eps)
    return {"param": p, "exp_avg": m, "exp_avg_sq": v}


def peer(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, weight_decay, step):
    import torch
    p, m, v = param.clone(), exp_avg.clone(), exp_avg_sq.clone()
    if p.is_cuda:
        steps = [torch.tensor(float(step), device=p.device)]
        torch._fused_adamw_([p], [grad], [m], [v], [], steps, amsgrad=False, lr=lr, beta1=beta1,
                            beta2=beta2, weight_decay=weight_decay, eps=eps, maximize=False)
    else:
        p.mul_(1 - lr * weight_decay)
        m.lerp_(grad, 1 - beta1)
        v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = (v.sqrt() / (1 - beta2 ** step) ** 0.5).add_(eps)
        p.addcdiv_(m, denom, value=-lr / (1 - beta1 ** step))
    return {"param": p, "exp_avg": m, "exp_avg_sq": v}


TEST_SHAPES = [dict(N=1), dict(N=127), dict(N=1031), dict(N=40009)]
BENCH_SHAPE = dict(N=100_000_000)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch.optim.AdamW(fused=True)"


def OPS(shape):
    n = shape["N"]
    return 16 * n, 4 * n * 4 + 3 * n * 4
