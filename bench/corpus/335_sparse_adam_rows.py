"""Lazy Adam step on the rows of an embedding table that a batch touched (torch.optim.SparseAdam, as
recommendation models and large-vocabulary embeddings train with sparse gradients): the gradient is a
coalesced sparse tensor, grad_values f32 [NNZ, D] for the distinct rows indices i64 [NNZ] of the table
param f32 [V, D]; only those rows of param and of the moments exp_avg, exp_avg_sq f32 [V, D] change (in
place): with g the row's gradient, m' = m + (1 - beta1) * (g - m), v' = v + (1 - beta2) * (g^2 - v), and
param -= step_size * m' / (sqrt(v') + eps), step_size = lr * sqrt(1 - beta2^step) / (1 - beta1^step) for
the step count step (already incremented; runtime f32 lr, beta1, beta2, eps, i32 step). Every other row
keeps its values. V1000000 D128 NNZ65536 (a 1M-row embedding, 64k distinct ids a batch). Peer:
torch.optim.SparseAdam.step."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def sparse_adam(param: T.InOut[T.f32, ("V", "D")], exp_avg: T.InOut[T.f32, ("V", "D")],
                exp_avg_sq: T.InOut[T.f32, ("V", "D")], indices: T.In[T.i64, ("NNZ",)],
                grad_values: T.In[T.f32, ("NNZ", "D")], lr: T.f32, beta1: T.f32, beta2: T.f32, eps: T.f32,
                step: T.i32):
    NNZ, D = grad_values.shape
    dims = T.domain(0, D)
    t = T.cast(step, T.f32)
    step_size = lr * T.sqrt(1.0 - beta2 ** t) / (1.0 - beta1 ** t)
    for i in T.parallel(T.domain(0, NNZ)):
        r = indices[i]
        g = grad_values[i, dims]
        m = exp_avg[r, dims]
        v = exp_avg_sq[r, dims]
        m_new = m + (1.0 - beta1) * (g - m)
        v_new = v + (1.0 - beta2) * (g * g - v)
        exp_avg[r, dims] = m_new
        exp_avg_sq[r, dims] = v_new
        param[r, dims] = param[r, dims] - step_size * (m_new / (T.sqrt(v_new) + eps))


KERNEL = sparse_adam


def inputs(shape, rng):
    V, D, NNZ = shape["V"], shape["D"], shape["NNZ"]
    return dict(param=rng.standard_normal((V, D)).astype(np.float32),
                exp_avg=(rng.standard_normal((V, D)) * 0.01).astype(np.float32),
                exp_avg_sq=(rng.random((V, D)) * 1e-4).astype(np.float32),
                indices=np.sort(rng.permutation(V)[:NNZ]).astype(np.int64),
                grad_values=(rng.standard_normal((NNZ, D)) * 0.1).astype(np.float32),
                lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, step=int(rng.integers(1, 50)))


def reference(param, exp_avg, exp_avg_sq, indices, grad_values, lr, beta1, beta2, eps, step):
    p, m, v = (a.astype(np.float64) for a in (param, exp_avg, exp_avg_sq))
    g = grad_values.astype(np.float64)
    mi, vi = m[indices], v[indices]
    m[indices] = mi + (1 - beta1) * (g - mi)
    v[indices] = vi + (1 - beta2) * (g * g - vi)
    step_size = lr * np.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
    p[indices] -= step_size * m[indices] / (np.sqrt(v[indices]) + eps)
    return dict(param=p, exp_avg=m, exp_avg_sq=v)


def peer(param, exp_avg, exp_avg_sq, indices, grad_values, lr, beta1, beta2, eps, step):
    import torch
    p = torch.nn.Parameter(param, requires_grad=True)
    opt = torch.optim.SparseAdam([p], lr=lr, betas=(beta1, beta2), eps=eps)
    opt.state[p] = dict(step=step - 1, exp_avg=exp_avg, exp_avg_sq=exp_avg_sq)
    p.grad = torch.sparse_coo_tensor(indices[None, :], grad_values, tuple(param.shape)).coalesce()
    with torch.no_grad():
        opt.step()
    return dict(param=p.data, exp_avg=exp_avg, exp_avg_sq=exp_avg_sq)


def OPS(shape):
    n = shape["NNZ"] * shape["D"]
    return 14 * n, 4 * 7 * n + 8 * shape["NNZ"]


TEST_SHAPES = [dict(V=1, D=1, NNZ=1), dict(V=31, D=7, NNZ=13), dict(V=97, D=37, NNZ=41)]
BENCH_SHAPE = dict(V=1000000, D=128, NNZ=65536)
TOLERANCE = dict(rtol=1e-5, atol=1e-6)
PEER = "torch"
