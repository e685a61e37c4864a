"""FOLD_SPLIT's call default for a phased split (pgpu-split-folds under numerics="source": the row
maximum's fold split in a first phase, 2 * FOLD_SPLITS programs a point) on a batched softmax of
scores that is written out, P[b] = softmax(scale * Q[b] K[b]^T) (bench/corpus/58's shape): the split
shortens only the maximum and sum passes, while the store pass over every key tile (the [BLOCK_S, T]
block of P, the kernel's whole output) runs in the point's last arrival alone. Where the row blocks
already hold three quarters of the multiprocessors (`Kernel._fold_split`, the fill `_fill_programs`
uses) the call takes no split: B32 S512 at 128-row blocks was 128 row blocks on 132 multiprocessors,
launched as 512 programs, three of each block's four waiting or done before its store pass.
A launch of few row blocks still splits. Both paths stay exact: the generated Triton under
TRITON_INTERPRET=1 against NumPy at odd shapes (1, primes, keys past one tile), at the call's defaults
(split: few row blocks), unsplit (the bench shape's path: three passes over the keys in one program)
and with a split of 16-row, 16-key tiles pinned.
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel(name="psf_scores_softmax")
def scores_softmax(q: T.In[T.f16, ("B", "S", "D")], k: T.In[T.f16, ("B", "T", "D")],
                   p: T.Out[T.f16, ("B", "S", "T")], scale: T.f32):
    B, S, D = q.shape
    bs, rows, keys, dims = T.domain(0, B), T.domain(0, S), T.domain(0, k.shape[1]), T.domain(0, D)
    s = T.matmul(q[bs, rows, dims], k[bs, keys, dims], transpose_rhs=True) * scale
    e = T.exp(s - T.max(s, axis=2))
    p[bs, rows, keys] = T.cast(e / T.sum(e, axis=2), T.f16)


def _meta(B, S, Tk, D):
    torch = pytest.importorskip("torch")
    return (torch.empty((B, S, D), dtype=torch.float16, device="meta"),
            torch.empty((B, Tk, D), dtype=torch.float16, device="meta"),
            torch.empty((B, S, Tk), dtype=torch.float16, device="meta"))


def test_split_default_follows_the_fill():
    """Row blocks (B * S / BLOCK_S at the call's BLOCK_S) holding three quarters of the 132
    multiprocessors (99) take no phased split; fewer take the smallest split that fills them. Some
    batch sizes land in [99, 132), where the rule before took 2."""
    banded = 0
    for B in (32, 26, 25, 24, 13, 12, 4):
        d = scores_softmax.call_defaults(*_meta(B, 512, 512, 64), scale=0.125)
        rows = B * -(-512 // d["BLOCK_S"])
        want = 1 if 4 * rows >= 3 * 132 else next(c for c in (2, 4, 8, 16, 32, 64) if rows * c >= 132)
        banded += 99 <= rows < 132
        assert d["FOLD_SPLIT"] == want, (rows, d)
    assert banded, "no batch size lands in the band the rule moves"


@pytest.mark.parametrize("params", [None, {"FOLD_SPLIT": 1}, {"FOLD_SPLIT": 2, "BLOCK_S": 16, "BLOCK_T": 16}],
                         ids=["defaults", "unsplit", "split"])
def test_triton_exact(params):
    import torch
    rng = np.random.default_rng(7)
    for B, S, Tk, D in ((1, 1, 1, 1), (2, 3, 37, 7), (1, 17, 131, 16)):
        q = rng.standard_normal((B, S, D)).astype(np.float16)
        k = rng.standard_normal((B, Tk, D)).astype(np.float16)
        scale = 1.0 / np.sqrt(D)
        s = np.einsum("bsd,btd->bst", q.astype(np.float64), k.astype(np.float64)) * scale
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        want = e / e.sum(axis=-1, keepdims=True)
        p = torch.full((B, S, Tk), float("nan"), dtype=torch.float16)
        scores_softmax.launch(torch.from_numpy(q), torch.from_numpy(k), p, scale=float(scale), params=params)
        np.testing.assert_allclose(p.double().numpy(), want, rtol=1e-2, atol=2e-3,
                                   err_msg=f"{params} at B{B} S{S} T{Tk} D{D}")


def test_store_walk_splits_at_its_last_full_block():
    """pgpu-narrow-predicates splits the store pass over the keys (a walk whose product tiles are fresh
    each iteration, no GEMM k loop) at its last full key block: the full blocks store P masked by the
    rows only, which Triton writes as whole vectors. The partial block's store reuses the full blocks'
    staging in the resource model, so the fold keeps its GEMM tile (128 rows, 8 warps)."""
    import re
    src = scores_softmax.source("triton")
    params = re.search(r"psf_scores_softmax_PARAMS = (\{.*\})", src).group(1)
    assert "'BLOCK_S': ([16, 32, 64, 128, 256], 128)" in params and "'WARPS': ([1, 2, 4, 8, 16], 8)" in params, params
    # The unsplit path's store pass: a loop over the full key blocks whose store mask has no key term,
    # then the partial block's loop.
    stores = re.findall(r"tl\.store\(p \+ .*mask=(v\d+)\)", src)
    masks = dict(re.findall(r"(v\d+) = (.*)", src))
    rows_only = [m for m in stores if masks.get(m, "").startswith("tl.broadcast_to(")]
    assert rows_only, "no store of P masked by its rows alone"
