"""Key masks over a key domain the member defines (issue 41/43, bench/corpus/300: tree attention for
speculative decoding). Sequence b's keys are `T.domain(0, P + N)`: a prefix of P = prefix_len[b] keys,
then the N tree keys, visible to tree query i where tree_mask[b, i, key - P]. The mask is the OR of a
position test and a mask read from memory, the read either masked (`T.load(.., valid=kp >= P)`) or at a
clamped coordinate, or over the cache's whole key axis with `kp < P + N` anded to the read. Before,
kir-online-folds refused the first two (a masked load over the axis; the key
positions feeding both the mask and the read's coordinates) and each tree query re-read K and V element
by element; over the whole axis, every tile up to S was visited. Now all fold over BLOCK-wide key tiles
shared by a block of tree queries, and the whole-axis spelling visits no tile past P + N.

Each kernel runs against a NumPy reference on the KIR interpreter, on the pgpu interpreter after the
shared pipeline with 16-wide key tiles, and through the Triton provider under TRITON_INTERPRET=1 at odd
shapes: one key and one tree token, no prefix, prefixes that are no multiple of a tile, several tiles.
"""
import math
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from interp_cli import run_three_ways  # noqa: E402


@tessel.kernel
def tree_masked_read(q: T.In[T.f32, ("B", "H", "N", "D")], k: T.In[T.f32, ("B", "H", "S", "D")],
                     v: T.In[T.f32, ("B", "H", "S", "D")], prefix_len: T.In[T.i32, ("B",)],
                     tree_mask: T.In[T.bool_, ("B", "N", "N")], out: T.Out[T.f32, ("B", "H", "N", "D")],
                     scale: T.f32):
    B, H, N, D = q.shape
    dims = T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, N)):
        P = T.cast(prefix_len[b], T.index)
        keys = T.domain(0, P + N)
        kp = T.indices(keys)
        in_tree = kp >= P
        vis = (~in_tree) | T.load(tree_mask, (b, i, kp - P), valid=in_tree, fill=False)
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where(vis, s, -math.inf)
        e = T.exp(s - T.max(s))
        out[b, h, i, dims] = T.vecmat(e, v[b, h, keys, dims]) / T.sum(e)


@tessel.kernel
def tree_clamped_read(q: T.In[T.f32, ("B", "H", "N", "D")], k: T.In[T.f32, ("B", "H", "S", "D")],
                      v: T.In[T.f32, ("B", "H", "S", "D")], prefix_len: T.In[T.i32, ("B",)],
                      tree_mask: T.In[T.bool_, ("B", "N", "N")], out: T.Out[T.f32, ("B", "H", "N", "D")],
                      scale: T.f32):
    B, H, N, D = q.shape
    dims = T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, N)):
        P = T.cast(prefix_len[b], T.index)
        keys = T.domain(0, P + N)
        kp = T.indices(keys)
        rel = T.minimum(T.maximum(kp, P) - P, N - 1)
        vis = (kp < P) | tree_mask[b, i, rel]
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where(vis, s, -math.inf)
        e = T.exp(s - T.max(s))
        out[b, h, i, dims] = T.vecmat(e, v[b, h, keys, dims]) / T.sum(e)


@tessel.kernel
def tree_whole_axis(q: T.In[T.f32, ("B", "H", "N", "D")], k: T.In[T.f32, ("B", "H", "S", "D")],
                    v: T.In[T.f32, ("B", "H", "S", "D")], prefix_len: T.In[T.i32, ("B",)],
                    tree_mask: T.In[T.bool_, ("B", "N", "N")], out: T.Out[T.f32, ("B", "H", "N", "D")],
                    scale: T.f32):
    """The keys are the cache's whole axis S; the mask bounds them to P + N (pgpu-narrow-fold-ranges skips
    the tiles past it: the tree's branch ands kp < P + N with the mask read)."""
    B, H, N, D = q.shape
    dims = T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, N)):
        P = T.cast(prefix_len[b], T.index)
        keys = T.domain(0, k.shape[2])
        kp = T.indices(keys)
        rel = T.minimum(T.maximum(kp, P) - P, N - 1)
        vis = (kp < P) | ((kp < P + N) & tree_mask[b, i, rel])
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where(vis, s, -math.inf)
        e = T.exp(s - T.max(s))
        out[b, h, i, dims] = T.vecmat(e, v[b, h, keys, dims]) / T.sum(e)


def reference(q, k, v, prefix_len, tree_mask, scale):
    B, H, N, D = q.shape
    out = np.zeros((B, H, N, D))
    for b in range(B):
        P = int(prefix_len[b])
        vis = np.concatenate([np.ones((N, P), bool), tree_mask[b]], axis=1)      # [N, P + N]
        s = np.einsum("hnd,hsd->hns", q[b].astype(np.float64), k[b, :, :P + N].astype(np.float64)) * scale
        s = np.where(vis[None], s, -np.inf)
        p = np.exp(s - s.max(-1, keepdims=True))
        out[b] = np.einsum("hns,hsd->hnd", p, v[b, :, :P + N]) / p.sum(-1)[..., None]
    return out


SHAPES = [  # B, H, N, S, D, prefix lengths
    (1, 1, 1, 1, 1, [0]),
    (2, 1, 3, 7, 5, [0, 4]),
    (3, 2, 5, 41, 17, [0, 36, 13]),                    # 41 keys = three 16-wide tiles, the last of 9
    (2, 1, 3, 37, 5, [16, 32]),                        # prefixes of whole tiles: pgpu-narrow-fold-ranges'
]                                                      # fold of the prefix (k >= P false) ends at P exactly


CASES = [(tree_masked_read, s) for s in SHAPES] + [(tree_clamped_read, SHAPES[-1])] + [
    (tree_whole_axis, (2, 1, 3, 61, 5, [2, 17]))]       # 61 keys: tiles past P + N = 5, 20 are skipped


@pytest.mark.parametrize("kernel,shape", CASES, ids=[f"{k.__name__}-B{c[0]}N{c[2]}S{c[3]}" for k, c in CASES])
def test_tree_attention_folds(kernel, shape, tessel_bin, tmp_path, monkeypatch):
    B, H, N, S, D, P = shape
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(B * 13 + S)
    tree = np.zeros((B, N, N), bool)
    for b in range(B):
        parent = [-1] + [int(rng.integers(0, j)) for j in range(1, N)]
        for j in range(N):
            a = j
            while a >= 0:
                tree[b, j, a] = True
                a = parent[a]
    inputs = dict(q=rng.standard_normal((B, H, N, D)).astype(np.float32),
                  k=rng.standard_normal((B, H, S, D)).astype(np.float32),
                  v=rng.standard_normal((B, H, S, D)).astype(np.float32),
                  prefix_len=np.array(P, np.int32), tree_mask=tree)
    scale = 1.0 / math.sqrt(D)
    want = reference(**inputs, scale=scale)
    run_three_ways(kernel, tessel_bin, tmp_path, dict(B=B, H=H, N=N, S=S, D=D), inputs, dict(scale=scale),
                   "out", want, dict(rtol=1e-4, atol=1e-5), how="BLOCK_N lanes")
