"""Region folds over a key domain whose bounds vary across the lanes (issue 42, corpus 221): a packed
token t folds its own sequence's keys `toks[start(t):t + 1]`, start(t) the largest sequence boundary at
or before t (a search over cu_seqlens). The tokens are the lanes (the innermost axis, the heads, would
give each lane its own key rows: a batched contraction), the fold walks the union of a block's ranges
and each lane masks what lies outside its own; pgpu-narrow-fold-ranges bounds the loaded starts by their
minimum and maximum over the lanes. Must not fire: a sequence per lane (both bounds loaded,
cu[b]:cu[b + 1]) keeps one member per program.

Each kernel runs against a NumPy reference on the KIR interpreter, on the pgpu interpreter after the
shared pipeline with 16-wide tiles, and through Triton under TRITON_INTERPRET=1, at odd shapes:
sequences of 0 and 1 tokens, one sequence, prime totals, lengths no multiple of any block.
"""
import math
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from interp_cli import run_three_ways  # noqa: E402


def make_varlen_causal(numerics):
    @tessel.kernel(name=f"lane_varlen_causal_{numerics}", numerics=numerics)
    def varlen_causal(q: T.In[T.f32, ("TOTAL", "H", "D")], k: T.In[T.f32, ("TOTAL", "H", "D")],
                      v: T.In[T.f32, ("TOTAL", "H", "D")], cu_seqlens: T.In[T.i32, ("NSEQ1",)],
                      o: T.Out[T.f32, ("TOTAL", "H", "D")], scale: T.f32):
        TOTAL, H, D = q.shape
        toks, dims = T.domain(0, TOTAL), T.domain(0, D)
        bounds = cu_seqlens[T.domain(0, cu_seqlens.shape[0])]
        for t, h in T.parallel(toks, T.domain(0, H)):
            start = T.max(T.where(bounds <= T.cast(t, T.i32), bounds, 0))
            keys = toks[start:t + 1]
            s = T.matvec(k[keys, h, dims], q[t, h, dims]) * scale
            p = T.exp(s - T.max(s))
            o[t, h, dims] = T.vecmat(p, v[keys, h, dims]) / T.sum(p)
    return varlen_causal


@tessel.kernel
def seq_per_lane(q: T.In[T.f32, ("B", "H", "D")], k: T.In[T.f32, ("TT", "H", "D")],
                 v: T.In[T.f32, ("TT", "H", "D")], cu: T.In[T.i32, ("B1",)], o: T.Out[T.f32, ("B", "H", "D")]):
    B, H, D = q.shape
    toks, dims = T.domain(0, k.shape[0]), T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        keys = toks[cu[b]:cu[b + 1]]
        s = T.matvec(k[keys, h, dims], q[b, h, dims])
        p = T.exp(s - T.max(s))
        o[b, h, dims] = T.vecmat(p, v[keys, h, dims]) / T.sum(p)


def varlen_reference(q, k, v, cu, scale):
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    o = np.full(q.shape, np.nan)
    for lo, hi in zip(cu[:-1], cu[1:]):
        for t in range(lo, hi):
            s = np.einsum("hd,khd->hk", q[t], k[lo:t + 1]) * scale
            p = np.exp(s - s.max(-1, keepdims=True))
            o[t] = np.einsum("hk,khd->hd", p, v[lo:t + 1]) / p.sum(-1)[:, None]
    return o


VARLEN = [  # H, D, sequence lengths (TOTAL their sum)
    (1, 1, [1]),
    (2, 5, [0, 1, 5, 17]),           # an empty sequence and one of a single token
    (1, 17, [37]),                   # one sequence, a prime total
    (3, 24, [16, 0, 1, 36]),         # a block's worth, then one spanning lanes blocks of 16
    (2, 40, [33, 20, 0, 18]),        # 71 tokens: prime, no multiple of any block
]


@pytest.mark.parametrize("numerics", ["source", "relaxed_normalization"])
@pytest.mark.parametrize("H,D,lens", VARLEN, ids=[f"H{c[0]}D{c[1]}L{'-'.join(map(str, c[2]))}" for c in VARLEN])
def test_varlen_causal(H, D, lens, numerics, tessel_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(sum(lens) * 13 + D)
    total = sum(lens)
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    inputs = {n: rng.standard_normal((total, H, D)).astype(np.float32) for n in ("q", "k", "v")}
    inputs["cu_seqlens"] = cu
    scale = 1.0 / math.sqrt(D)
    want = varlen_reference(inputs["q"], inputs["k"], inputs["v"], cu, scale)
    run_three_ways(make_varlen_causal(numerics), tessel_bin, tmp_path, dict(TOTAL=total, H=H, D=D, NSEQ1=len(cu)),
                   inputs, dict(scale=scale), "o", want, dict(rtol=1e-4, atol=1e-5), how="BLOCK_TOTAL lanes")


@pytest.mark.parametrize("B,H,D,lens", [(1, 1, 1, [1]), (3, 2, 5, [0, 1, 29]), (4, 1, 17, [16, 3, 40, 1])])
def test_sequence_per_lane_keeps_one_member(B, H, D, lens, tessel_bin, tmp_path, monkeypatch):
    """Both bounds loaded (each b its own sequence, disjoint ranges): no lane axis of b."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(B * 5 + D)
    tt = sum(lens)
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    inputs = dict(q=rng.standard_normal((B, H, D)).astype(np.float32),
                  k=rng.standard_normal((tt, H, D)).astype(np.float32),
                  v=rng.standard_normal((tt, H, D)).astype(np.float32), cu=cu)
    want = np.empty((B, H, D))
    with np.errstate(invalid="ignore", divide="ignore"):
        for b in range(B):
            kk, vv = (inputs[n][cu[b]:cu[b + 1]].astype(np.float64) for n in ("k", "v"))
            s = np.einsum("hd,khd->hk", inputs["q"][b].astype(np.float64), kk)
            p = np.exp(s - s.max(-1, keepdims=True, initial=-np.inf))
            want[b] = np.einsum("hk,khd->hd", p, vv) / p.sum(-1)[:, None]     # no keys: 0 / 0 = NaN
    run_three_ways(seq_per_lane, tessel_bin, tmp_path, dict(B=B, H=H, D=D, TT=tt, B1=B + 1), inputs, {}, "o", want,
                   dict(rtol=1e-4, atol=1e-5), how="one member per program")


@tessel.kernel
def listed_keys(q: T.In[T.f32, ("B", "H", "S", "D")], k: T.In[T.f32, ("B", "N", "D")],
                v: T.In[T.f32, ("B", "N", "D")], idx: T.In[T.i32, ("B", "S", "K"), T.Range(0, "N")],
                o: T.Out[T.f32, ("B", "H", "S", "D")]):
    B, H, S, D = q.shape
    dims, sel = T.domain(0, D), T.domain(0, idx.shape[2])
    for b, h, s in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        keys = idx[b, s, sel]                          # the keys query s lists, shared by its heads
        sc = T.matvec(k[b, keys, dims], q[b, h, s, dims])
        p = T.exp(sc - T.max(sc))
        o[b, h, s, dims] = T.vecmat(p, v[b, keys, dims]) / T.sum(p)


@pytest.mark.parametrize("B,H,S,N,D,K", [(1, 1, 1, 1, 1, 1), (2, 3, 5, 7, 17, 4), (1, 17, 3, 29, 5, 19)])
def test_heads_are_lanes_where_queries_list_keys(B, H, S, N, D, K, tessel_bin, tmp_path, monkeypatch):
    """The innermost axis (the queries s) would give each lane its own listed keys: the heads, which share
    them, are the lanes (one gathered key tile per (b, s) for a block of heads)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(H * 7 + K)
    inputs = dict(q=rng.standard_normal((B, H, S, D)).astype(np.float32),
                  k=rng.standard_normal((B, N, D)).astype(np.float32),
                  v=rng.standard_normal((B, N, D)).astype(np.float32),
                  idx=rng.integers(0, N, (B, S, K)).astype(np.int32))
    bi = np.arange(B)[:, None, None]
    kk, vv = inputs["k"].astype(np.float64)[bi, inputs["idx"]], inputs["v"].astype(np.float64)[bi, inputs["idx"]]
    sc = np.einsum("bhsd,bskd->bhsk", inputs["q"].astype(np.float64), kk)
    p = np.exp(sc - sc.max(-1, keepdims=True))
    want = np.einsum("bhsk,bskd->bhsd", p / p.sum(-1, keepdims=True), vv)
    run_three_ways(listed_keys, tessel_bin, tmp_path, dict(B=B, H=H, S=S, N=N, D=D, K=K), inputs, {}, "o", want,
                   dict(rtol=1e-4, atol=1e-5), how="BLOCK_H lanes")


@tessel.kernel
def causal_max_from_starts(q: T.In[T.f32, ("TOTAL", "H", "D")], k: T.In[T.f32, ("TOTAL", "H", "D")],
                           starts: T.In[T.i32, ("TOTAL",)], o: T.Out[T.f32, ("TOTAL", "H")]):
    TOTAL, H, D = q.shape
    toks, dims = T.domain(0, TOTAL), T.domain(0, D)
    for t, h in T.parallel(toks, T.domain(0, H)):
        keys = toks[starts[t]:t + 1]                   # a loaded start per token (may exceed t: no keys)
        o[t, h] = T.max(T.matvec(k[keys, h, dims], q[t, h, dims]))


@pytest.mark.parametrize("TOTAL,H,D", [(1, 1, 1), (23, 2, 5), (41, 3, 37)])
def test_loaded_starts_looped_contraction(TOTAL, H, D, tessel_bin, tmp_path, monkeypatch):
    """D only reduced by the contraction: past BLOCK_D the contraction loops over D blocks (the looped
    variant) with the lanes' ranges; starts past the token (an empty range: -inf) and negative ones
    (clamped to 0)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(TOTAL * 3 + D)
    t = np.arange(TOTAL)
    starts = (t - rng.integers(-2, 9, TOTAL)).astype(np.int32)
    inputs = dict(q=rng.standard_normal((TOTAL, H, D)).astype(np.float32),
                  k=rng.standard_normal((TOTAL, H, D)).astype(np.float32), starts=starts)
    want = np.full((TOTAL, H), -np.inf)
    for i in range(TOTAL):
        lo = max(int(starts[i]), 0)
        if lo <= i:
            want[i] = np.einsum("hd,khd->hk", inputs["q"][i].astype(np.float64),
                                inputs["k"][lo:i + 1].astype(np.float64)).max(-1)
    run_three_ways(causal_max_from_starts, tessel_bin, tmp_path, dict(TOTAL=TOTAL, H=H, D=D), inputs, {}, "o", want,
                   dict(rtol=1e-4, atol=1e-5), how="BLOCK_TOTAL lanes")
