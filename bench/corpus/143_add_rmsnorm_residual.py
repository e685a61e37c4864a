"""Fused add + RMSNorm that also writes the residual: r = x + res; out = r * rsqrt(mean(r^2) + eps) * w; writes both r and out, bf16 [M, N], w bf16 [N], eps 1e-6. M16384 N4096. Peer: torch.compile of the formula."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def add_rmsnorm_residual(x: T.In[T.bf16, ("M", "N")], res: T.In[T.bf16, ("M", "N")],
                         w: T.In[T.bf16, ("N",)], r: T.Out[T.bf16, ("M", "N")],
                         out: T.Out[T.bf16, ("M", "N")], eps: T.f32):
    M, N = x.shape
    cols = T.domain(0, N)
    nf = T.cast(N, T.f32)
    wf = T.cast(w[cols], T.f32)
    for m in T.parallel(T.domain(0, M)):
        s = x[m, cols] + res[m, cols]            # bf16 add (computed in f32, rounded once)
        r[m, cols] = s
        sf = T.cast(s, T.f32)
        out[m, cols] = T.cast(sf * T.rsqrt(T.sum(sf * sf) / nf + eps) * wf, T.bf16)


KERNEL = add_rmsnorm_residual


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    M, N = shape["M"], shape["N"]
    return dict(x=rng.standard_normal((M, N)).astype(np.float32),
                res=rng.standard_normal((M, N)).astype(np.float32),
                w=(1.0 + 0.1 * rng.standard_normal(N)).astype(np.float32),
                eps=1e-6)


def reference(x, res, w, eps):
    r = _bf16((x.astype(np.float64) + res).astype(np.float32))
    rf = r.astype(np.float64)
    out = rf / np.sqrt((rf * rf).mean(axis=1, keepdims=True) + np.float32(eps)) * w
    return {"r": r, "out": _bf16(out.astype(np.float32))}


def peer(x, res, w, eps):
    import torch
    r = x + res
    rf = r.float()
    out = (rf * torch.rsqrt(rf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)
    return {"r": r, "out": out}


TEST_SHAPES = [dict(M=1, N=1), dict(M=3, N=127), dict(M=17, N=1031)]
BENCH_SHAPE = dict(M=16384, N=4096)
TOLERANCE = dict(rtol=1e-2, atol=1e-2)
PEER = "torch.compile"
SKIP = {"triton": "bf16 arithmetic: Triton's CPU interpreter computes it on the bit patterns (triton-lang/triton PR #10945)"}
