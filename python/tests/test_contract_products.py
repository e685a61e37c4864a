"""A float sum of a product with an outer-product axis is a contraction (kir-contract-products, issue 41):
attention written with `T.sum(q * k, axis=1)` and `T.sum(p * v, axis=0)` reaches the same region-fold and
tile path as the `T.matvec`/`T.vecmat` spelling (tl.dot in the generated Triton), and a paged decode whose
keys are read through a block table (paired index coordinates, issue 42) folds the gathered tiles.
Checked against NumPy (float64) on the KIR interpreter and through Triton under TRITON_INTERPRET=1 at odd
shapes; a row's sum of squares stays a reduction (no contraction in its KIR after the pass)."""
import os
import re
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from tessel import _cli  # noqa: E402


@tessel.kernel
def natural_attention(q: T.In[T.f16, ("B", "H", "S", "D")], k: T.In[T.f16, ("B", "H", "T", "D")],
                      v: T.In[T.f16, ("B", "H", "T", "D")], o: T.Out[T.f16, ("B", "H", "S", "D")], scale: T.f32):
    B, H, S, D = q.shape
    keys, dims = T.domain(0, k.shape[2]), T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.sum(T.cast(q[b, h, i, dims], T.f32) * T.cast(k[b, h, keys, dims], T.f32), axis=1) * scale
        p = T.exp(s - T.max(s))
        o[b, h, i, dims] = T.cast(T.sum(p * T.cast(v[b, h, keys, dims], T.f32), axis=0) / T.sum(p), T.f16)


@tessel.kernel
def paged_decode(q: T.In[T.f16, ("B", "H", "D")], k_cache: T.In[T.f16, ("NB", "BS", "H", "D")],
                 v_cache: T.In[T.f16, ("NB", "BS", "H", "D")], block_table: T.In[T.i32, ("B", "MB")],
                 seq_lens: T.In[T.i32, ("B",)], o: T.Out[T.f16, ("B", "H", "D")], scale: T.f32):
    B, H, D = q.shape
    BS = k_cache.shape[1]
    dims = T.domain(0, D)
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        t = T.indices(T.domain(0, seq_lens[b]))
        blk = block_table[b, t // BS]
        k = k_cache[blk, t % BS, h, dims]
        v = v_cache[blk, t % BS, h, dims]
        s = T.sum(T.cast(q[b, h, dims], T.f32) * T.cast(k, T.f32), axis=1) * scale
        p = T.exp(s - T.max(s))
        o[b, h, dims] = T.cast(T.sum(p * T.cast(v, T.f32), axis=0) / T.sum(p), T.f16)


@tessel.kernel
def row_norm(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M",)]):
    cols = T.domain(0, x.shape[1])
    for m in T.parallel(T.domain(0, x.shape[0])):
        row = x[m, cols]
        y[m] = T.sqrt(T.sum(row * row))


def _softmax_av(s, v):
    p = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("...t,...td->...d", p, v) / p.sum(-1, keepdims=True)


@pytest.mark.parametrize("B,H,S,Tk,D", [(1, 1, 1, 1, 16), (2, 3, 5, 37, 16), (1, 2, 17, 70, 32)])
def test_attention_spelled_with_sums(B, H, S, Tk, D, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(S * Tk)
    q, k, v = (rng.standard_normal(sh).astype(np.float16) for sh in ((B, H, S, D), (B, H, Tk, D), (B, H, Tk, D)))
    scale = 1 / np.sqrt(D)
    s = np.einsum("bhsd,bhtd->bhst", q.astype(np.float64), k.astype(np.float64)) * scale
    want = _softmax_av(s, v.astype(np.float64)[:, :, None])
    got = natural_attention.run_interp(shapes=dict(B=B, H=H, S=S, T=Tk, D=D), scalars=dict(scale=scale),
                                       inputs=dict(q=q, k=k, v=v))["o"]
    np.testing.assert_allclose(got.astype(np.float64), want, atol=2e-3, rtol=2e-3)
    o = torch.full((B, H, S, D), float("nan"), dtype=torch.float16)
    natural_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v), o, scale=float(scale))
    np.testing.assert_allclose(o.numpy().astype(np.float64), want, atol=2e-3, rtol=2e-3)


def test_sums_of_products_reach_tensor_core_tiles():
    source = natural_attention.source("triton")
    assert source.count("tl.dot(") >= 2, "the sums of products should be tile products"


def _after_kir_passes(kernel) -> str:
    opt = os.path.join(os.path.dirname(_cli.find_tessel()), "tessel-opt")
    res = subprocess.run([opt, "-", "--tessel-pipeline=stop-after=annotate-origins"], input=kernel.kir(),
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_row_sum_of_squares_stays_a_reduction():
    text = _after_kir_passes(row_norm)
    assert "kir.contract" not in text and re.search(r"kir\.reduce", text)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((7, 131)).astype(np.float32)
    got = row_norm.run_interp(shapes=dict(M=7, N=131), scalars={}, inputs=dict(x=x))["y"]
    np.testing.assert_allclose(got, np.sqrt((x.astype(np.float64) ** 2).sum(1)), rtol=1e-5)


@pytest.mark.parametrize("B,H,D,BS,NB,lens", [(2, 3, 16, 4, 9, [1, 13]), (3, 1, 8, 16, 5, [17, 1, 33])])
def test_paged_decode_folds_gathered_tiles(B, H, D, BS, NB, lens, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    text = _after_kir_passes(paged_decode)
    assert text.count("kir.region_fold") == 2 and text.count("joint = array<i64: -1, 0, -1, -1>") == 2
    rng = np.random.default_rng(len(lens))
    MB = max(-(-n // BS) for n in lens)
    q = rng.standard_normal((B, H, D)).astype(np.float16)
    kc, vc = (rng.standard_normal((NB, BS, H, D)).astype(np.float16) for _ in range(2))
    bt = rng.integers(0, NB, (B, MB)).astype(np.int32)        # repeated and out of order
    sl = np.array(lens, np.int32)
    scale = 1 / np.sqrt(D)
    want = np.zeros((B, H, D))
    for b in range(B):
        t = np.arange(sl[b])
        K, V = (c[bt[b, t // BS], t % BS].astype(np.float64).transpose(1, 0, 2) for c in (kc, vc))  # [H, T, D]
        want[b] = _softmax_av(np.einsum("hd,htd->ht", q[b].astype(np.float64), K) * scale, V)
    got = paged_decode.run_interp(shapes=dict(B=B, H=H, D=D, NB=NB, BS=BS, MB=MB), scalars=dict(scale=scale),
                                  inputs=dict(q=q, k_cache=kc, v_cache=vc, block_table=bt, seq_lens=sl))["o"]
    np.testing.assert_allclose(got.astype(np.float64), want, atol=2e-3, rtol=2e-3)
