"""AdamW step for bf16 parameters without an f32 master copy, rounding the updated weight to bf16
stochastically (as torchao's and several pure-bf16 training recipes do): with f32 moments m, v and a
bf16 gradient g, m = beta1 m + (1 - beta1) g, v = beta2 v + (1 - beta2) g^2, and the f32 update
p' = p - lr * (m / bc1 / (sqrt(v / bc2) + eps) + wd * p) (bc1, bc2 the bias corrections of this step);
p' is rounded to bf16 by adding 16 random bits to its f32 bit pattern and truncating the low 16 bits,
the random bits being the top 16 of Murmur3's 32-bit finalizer of (element index + seed * 0x9E3779B1)
mod 2^32. Flat buffers of N elements. N=100M. Peer: torch.compile of the same formula (torch's
fused AdamW rounds to nearest)."""
import numpy as np
import tessel
import tessel.language as T

M32 = 0xFFFFFFFF


@tessel.fn
def hash32(h):                      # h: i64 holding a value in [0, 2**32)
    h = ((h ^ (h >> 16)) * 0x85EBCA6B) & M32
    h = ((h ^ (h >> 13)) * 0xC2B2AE35) & M32
    return h ^ (h >> 16)


@tessel.kernel
def adamw_bf16_stochastic_round(param: T.InOut[T.bf16, ("N",)], grad: T.In[T.bf16, ("N",)],
                                exp_avg: T.InOut[T.f32, ("N",)], exp_avg_sq: T.InOut[T.f32, ("N",)],
                                lr: T.f32, beta1: T.f32, beta2: T.f32, eps: T.f32, wd: T.f32,
                                bc1: T.f32, bc2: T.f32, seed: T.i64):
    N = param.shape[0]
    elems = T.domain(0, N)
    g = T.cast(grad[elems], T.f32)
    p = T.cast(param[elems], T.f32)
    m = beta1 * exp_avg[elems] + (1.0 - beta1) * g
    v = beta2 * exp_avg_sq[elems] + (1.0 - beta2) * g * g
    exp_avg[elems] = m
    exp_avg_sq[elems] = v
    upd = p - lr * (m / bc1 / (T.sqrt(v / bc2) + eps) + wd * p)
    r = hash32((T.cast(T.indices(elems), T.i64) + seed * 0x9E3779B1) & M32) >> 16
    bits = T.bitcast(upd, T.i32) + T.cast(r, T.i32)
    param[elems] = T.cast(T.bitcast(bits & -65536, T.f32), T.bf16)


KERNEL = adamw_bf16_stochastic_round


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    N = shape["N"]
    step = 7
    b1, b2 = 0.9, 0.95
    return dict(param=(0.05 * rng.standard_normal(N)).astype(np.float32),
                grad=(0.01 * rng.standard_normal(N)).astype(np.float32),
                exp_avg=(0.001 * rng.standard_normal(N)).astype(np.float32),
                exp_avg_sq=(1e-5 * rng.random(N)).astype(np.float32),
                lr=3e-4, beta1=b1, beta2=b2, eps=1e-8, wd=0.1,
                bc1=1.0 - b1 ** step, bc2=1.0 - b2 ** step, seed=1234)


def _hash32(h):
    h = ((h ^ (h >> 16)) * 0x85EBCA6B) & M32
    h = ((h ^ (h >> 13)) * 0xC2B2AE35) & M32
    return h ^ (h >> 16)


def reference(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, wd, bc1, bc2, seed):
    f = np.float32
    g, p = grad.astype(f), param.astype(f)
    m = f(beta1) * exp_avg + (f(1) - f(beta1)) * g
    v = f(beta2) * exp_avg_sq + (f(1) - f(beta2)) * g * g
    upd = (p - f(lr) * (m / f(bc1) / (np.sqrt(v / f(bc2)) + f(eps)) + f(wd) * p)).astype(f)
    idx = np.arange(param.shape[0], dtype=np.int64)
    r = _hash32((idx + np.int64(seed) * 0x9E3779B1) & M32) >> 16
    bits = (upd.view(np.uint32).astype(np.int64) + r) & 0xFFFF0000
    return dict(param=bits.astype(np.uint32).view(np.float32), exp_avg=m, exp_avg_sq=v)


def peer(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, wd, bc1, bc2, seed):
    import torch
    g, p = grad.float(), param.float()
    exp_avg.mul_(beta1).add_((1 - beta1) * g)
    exp_avg_sq.mul_(beta2).add_((1 - beta2) * g * g)
    upd = p - lr * (exp_avg / bc1 / ((exp_avg_sq / bc2).sqrt() + eps) + wd * p)
    h = (torch.arange(param.numel(), device=param.device, dtype=torch.int64) + seed * 0x9E3779B1) & M32
    h = ((h ^ (h >> 16)) * 0x85EBCA6B) & M32
    h = ((h ^ (h >> 13)) * 0xC2B2AE35) & M32
    r = (h ^ (h >> 16)) >> 16
    bits = (upd.view(torch.int32).to(torch.int64) + r) & 0xFFFF0000
    param.copy_(bits.to(torch.int32).view(torch.float32).to(torch.bfloat16))
    return dict(param=param, exp_avg=exp_avg, exp_avg_sq=exp_avg_sq)


def OPS(shape):
    n = shape["N"]
    return 30 * n, 20 * n


TEST_SHAPES = [dict(N=1), dict(N=131), dict(N=4099),
               dict(N=0)]   # the last: no rows (check.py; CI runs the second)
BENCH_SHAPE = dict(N=100_000_000)
TOLERANCE = dict(rtol=1e-5, atol=1e-7)
BENCH_TOLERANCE = dict(rtol=8e-3, atol=1e-6)   # a GPU f32 division may round the update across a random threshold: one bf16 step
PEER = "torch.compile"
