"""Mamba-2 SSD chunk states (mamba_ssm's _chunk_state_fwd): the state each chunk of CS time steps
contributes on its own, for x bf16 [B, L, H, P], Bm bf16 [B, L, G, N] (head h reads group h // (H / G)),
and the chunk cumsum kernel's dt, dA_cumsum f32 [B, H, NC, CS]: states[b, c, h, p, n] = sum over l of
x[b, t, h, p] * Bm[b, t, g, n] * exp(dA_cumsum[b, h, c, CS - 1] - dA_cumsum[b, h, c, l]) * dt[b, h, c, l]
with t = c * CS + l over the steps t < L (the last chunk is partial), the scaled Bm rounded to bf16 before
the product as the Triton kernel feeds its tensor cores, f32 accumulation; states f32 [B, NC, H, P, N].
B8 L4096 H80 P64 G1 N128 CS256 (Mamba2-2.7B). Peer: torch.compile of mamba_ssm's chunk_state_ref (einsum)."""
import numpy as np
import tessel
import tessel.language as T



@tessel.kernel
def ssd_chunk_state(x: T.In[T.bf16, ("B", "L", "H", "P")], Bm: T.In[T.bf16, ("B", "L", "G", "N")],
                    dt: T.In[T.f32, ("B", "H", "NC", "CS")], dA_cumsum: T.In[T.f32, ("B", "H", "NC", "CS")],
                    states: T.Out[T.f32, ("B", "NC", "H", "P", "N")]):
    B, L, H, P = x.shape
    G, N = Bm.shape[2], Bm.shape[3]
    NC, CS = dt.shape[2], dt.shape[3]
    steps, ps, ns = T.domain(0, CS), T.domain(0, P), T.domain(0, N)
    for b, c, h in T.parallel(T.domain(0, B), T.domain(0, NC), T.domain(0, H)):
        g = h // (H // G)
        t = c * CS + T.indices(steps)
        inside = t < L
        scale = T.exp(dA_cumsum[b, h, c, CS - 1] - dA_cumsum[b, h, c, steps]) * dt[b, h, c, steps]
        xs = T.load(x, (b, t, h, ps), valid=T.broadcast(inside, over=(steps, ps), dims=[0]), fill=0.0)
        bs = T.load(Bm, (b, t, g, ns), valid=T.broadcast(inside, over=(steps, ns), dims=[0]), fill=0.0)
        bw = T.cast(T.cast(bs, T.f32) * scale, T.bf16)
        states[b, c, h, ps, ns] = T.contract(xs, bw, reduce=((0, 0),), acc_dtype=T.f32)


KERNEL = ssd_chunk_state


def _bf16(a):
    a = np.ascontiguousarray(a, dtype=np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return u.astype(np.uint32).view(np.float32)


def inputs(shape, rng):
    B, L, H, P, G, N, NC, CS = (shape[k] for k in ("B", "L", "H", "P", "G", "N", "NC", "CS"))
    assert NC == -(-L // CS) and H % G == 0
    dt = np.log1p(np.exp(rng.standard_normal((B, H, NC, CS)) - 2.0)).astype(np.float32)
    t = np.arange(NC * CS).reshape(NC, CS)
    dt[:, :, t >= L] = 0.0
    A = -np.exp(rng.standard_normal(H) * 0.5)
    dA = np.cumsum(dt * A[None, :, None, None], axis=-1).astype(np.float32)
    return dict(x=rng.standard_normal((B, L, H, P)).astype(np.float32),
                Bm=rng.standard_normal((B, L, G, N)).astype(np.float32), dt=dt, dA_cumsum=dA)


def _pad(a, NC, CS):
    B, L = a.shape[:2]
    out = np.zeros((B, NC * CS) + a.shape[2:], a.dtype)
    out[:, :L] = a
    return out.reshape((B, NC, CS) + a.shape[2:])


def reference(x, Bm, dt, dA_cumsum):
    B, L, H, P = x.shape
    G = Bm.shape[2]
    NC, CS = dt.shape[2], dt.shape[3]
    xs = _pad(x, NC, CS)                                        # [B, NC, CS, H, P]
    bs = _pad(Bm, NC, CS)[:, :, :, np.arange(H) // (H // G)]    # [B, NC, CS, H, N]
    scale = np.exp(dA_cumsum[..., -1:] - dA_cumsum) * dt    # [B, H, NC, CS] (f32, as the kernel)
    bw = _bf16(bs * scale.transpose(0, 2, 3, 1)[..., None]).astype(np.float64)
    return dict(states=np.einsum("bclhp,bclhn->bchpn", xs.astype(np.float64), bw))


def peer(x, Bm, dt, dA_cumsum):
    import torch
    import torch.nn.functional as F
    B, L, H, P = x.shape
    G = Bm.shape[2]
    NC, CS = dt.shape[2], dt.shape[3]
    xs = F.pad(x, (0, 0, 0, 0, 0, NC * CS - L)).reshape(B, NC, CS, H, P)
    bs = F.pad(Bm, (0, 0, 0, 0, 0, NC * CS - L)).reshape(B, NC, CS, G, -1)
    bs = bs.repeat_interleave(H // G, dim=3)
    decay = torch.exp(dA_cumsum[..., -1:] - dA_cumsum) * dt
    return dict(states=torch.einsum("bclhn,bhcl,bclhp->bchpn", bs.float(), decay, xs.float()))


def OPS(shape):
    B, L, H, P, N = (shape[k] for k in ("B", "L", "H", "P", "N"))
    return 2 * B * L * H * P * N, 2 * B * L * (H * P + shape["G"] * N) + 8 * B * H * L + 4 * B * shape["NC"] * H * P * N


TEST_SHAPES = [dict(B=1, L=1, H=1, P=1, G=1, N=1, NC=1, CS=1), dict(B=1, L=7, H=2, P=5, G=1, N=3, NC=2, CS=4),
               dict(B=2, L=37, H=4, P=3, G=2, N=7, NC=3, CS=16),
               dict(B=1, L=0, H=2, P=3, G=1, N=2, NC=0, CS=4)]
BENCH_SHAPE = dict(B=8, L=4096, H=80, P=64, G=1, N=128, NC=16, CS=256)
TOLERANCE = dict(rtol=1e-2, atol=2e-2)   # a scaled Bm element may round to bf16 either way (exp differs in the last bits)
BENCH_TOLERANCE = dict(rtol=2e-2, atol=5e-2)
PEER = "torch.compile"
