"""Re-pad packed variable-length sequences (flash-attn's pad_input after a varlen kernel): tokens of B
sequences packed back to back, x [NT, H, D] bf16, sequence b holding rows cu_seqlens[b] ..
cu_seqlens[b + 1] - 1 (cu_seqlens int32 [B + 1], cu_seqlens[0] = 0, lengths at most S); out [B, S, H, D]
bf16 holds sequence b's tokens at positions 0..len-1 and zeros after. B64 S2048 H32 D128, lengths
uniform in [1, S]. Peer: torch (index_put into zeros, as flash_attn.bert_padding.pad_input)."""
import numpy as np
import tessel
import tessel.language as T


@tessel.kernel
def pad_varlen(x: T.In[T.bf16, ("NT", "H", "D")], cu_seqlens: T.In[T.i32, ("B1",)],
               out: T.InOut[T.bf16, ("B", "S", "H", "D")]):   # every element written (InOut: S reaches the reference)
    B, S, H, D = out.shape
    pos, heads, dims = T.domain(0, S), T.domain(0, H), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        start = T.cast(cu_seqlens[b], T.index)
        length = T.cast(cu_seqlens[b + 1], T.index) - start
        p = T.indices(pos)
        inside = T.broadcast(p < length, over=(pos, heads, dims), dims=[0])
        out[b, pos, heads, dims] = T.load(x, (start + p, heads, dims), valid=inside, fill=0.0)


KERNEL = pad_varlen


def inputs(shape, rng):
    B, S, NT = shape["B"], shape["S"], shape["NT"]
    lens = rng.integers(0, S + 1, B)
    lens = lens * NT // lens.sum() if lens.sum() > NT else lens   # scaled to fit the NT packed rows
    while lens.sum() > NT:
        lens[np.argmax(lens)] -= 1
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    return dict(x=rng.standard_normal((NT, shape["H"], shape["D"])).astype(np.float32), cu_seqlens=cu,
                out=np.full((B, S, shape["H"], shape["D"]), np.nan, np.float32))   # overwritten: it carries S


def reference(x, cu_seqlens, out):
    B, S = out.shape[:2]
    out = np.zeros((B, S) + x.shape[1:], np.float32)
    for b in range(B):
        n = cu_seqlens[b + 1] - cu_seqlens[b]
        out[b, :n] = x[cu_seqlens[b]:cu_seqlens[b + 1]]
    return dict(out=out)


def peer(x, cu_seqlens, out):
    import torch
    B, S = out.shape[:2]
    lens = (cu_seqlens[1:] - cu_seqlens[:-1]).long()
    mask = torch.arange(S, device=x.device)[None, :] < lens[:, None]
    out = torch.zeros((B, S) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
    out[mask] = x[:int(cu_seqlens[-1])]
    return dict(out=out)


def _shape(B, S, NT, H, D):
    return dict(B=B, B1=B + 1, S=S, NT=NT, H=H, D=D)


TEST_SHAPES = [_shape(1, 1, 1, 1, 1), _shape(3, 7, 13, 2, 5), _shape(5, 17, 61, 3, 16)]
BENCH_SHAPE = _shape(64, 2048, 64 * 1024, 32, 128)
TOLERANCE = dict(rtol=0, atol=0)
PEER = "torch"
