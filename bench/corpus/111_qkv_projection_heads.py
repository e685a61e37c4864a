"""QKV projection with bias, split into heads: X [B*S, K] bf16, Wqkv [K, 3*H*D] bf16, bias [3*H*D] f32; writes Q, K, V each [B, H, S, D] bf16 (head-major). B2 S2048 H32 D128 K4096. Peer: torch.compile."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def qkv_projection_heads(x: T.In[T.bf16, ("BS", "K")], wqkv: T.In[T.bf16, ("K", "N3")], bias: T.In[T.f32, ("N3",)],
                         q: T.Out[T.bf16, ("B", "H", "S", "D")], k: T.Out[T.bf16, ("B", "H", "S", "D")],
                         v: T.Out[T.bf16, ("B", "H", "S", "D")]):
    BS, K = x.shape
    B, H, S, D = q.shape                          # BS == B * S, N3 == 3 * H * D
    HD = H * D
    rows, ks, hd = T.domain(0, BS), T.domain(0, K), T.domain(0, HD)
    cols = T.domain(0, wqkv.shape[1])
    r, c = T.indices(rows), T.indices(hd)
    for j, out in enumerate((q, k, v)):
        part = cols[j * HD:(j + 1) * HD]
        acc = T.matmul(x[rows, ks], wqkv[ks, part], init=bias[part])              # f32 [BS, HD]
        out[r // S, c // D, r % S, c % D] = T.cast(acc, T.bf16)


KERNEL = qkv_projection_heads


def _bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


# reference() and peer() see only the arrays, and X [B*S, K] and Wqkv [K, 3*H*D] do not say how B*S
# and 3*H*D split: inputs() records the shape it drew for them.
_SHAPE = {}


def inputs(shape, rng):
    B, S, H, D, K = shape["B"], shape["S"], shape["H"], shape["D"], shape["K"]
    _SHAPE.update(B=B, S=S, H=H, D=D)
    return {"x": rng.standard_normal((B * S, K)).astype(np.float32),
            "wqkv": (rng.standard_normal((K, 3 * H * D)) / np.sqrt(K)).astype(np.float32),
            "bias": rng.standard_normal(3 * H * D).astype(np.float32)}


def reference(x, wqkv, bias):
    B, S, H, D = (_SHAPE[k] for k in "BSHD")
    acc = _bf16((x.astype(np.float64) @ wqkv.astype(np.float64) + bias).astype(np.float32))
    heads = acc.reshape(B, S, 3, H, D).transpose(2, 0, 3, 1, 4)                 # [3, B, H, S, D]
    return {"q": heads[0], "k": heads[1], "v": heads[2]}


def peer(x, wqkv, bias):
    B, S, H, D = (_SHAPE[k] for k in "BSHD")
    qkv = (x @ wqkv).float() + bias
    heads = qkv.view(B, S, 3, H, D).permute(2, 0, 3, 1, 4).to(x.dtype)          # [3, B, H, S, D]
    return {"q": heads[0].contiguous(), "k": heads[1].contiguous(), "v": heads[2].contiguous()}


TEST_SHAPES = [dict(B=1, S=1, H=1, D=1, K=1, BS=1, N3=3), dict(B=2, S=3, H=2, D=5, K=7, BS=6, N3=30),
               dict(B=1, S=7, H=3, D=4, K=13, BS=7, N3=36)]
BENCH_SHAPE = dict(B=2, S=2048, H=32, D=128, K=4096, BS=4096, N3=12288)
TOLERANCE = dict(rtol=2e-2, atol=2e-2)
PEER = "torch.compile"
