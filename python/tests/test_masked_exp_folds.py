"""kir-online-folds with masked exponentials (issue 41): attention whose weights are written
`p = T.where(keep, T.exp(s - T.max(s)), 0.0)` (either side of the `where`; the mask any boolean tensor over
the keys, a block mask read through index tensors included; the scores masked with -inf at the same members
or not) is a masked summary: the masked members contribute nothing to the sums and the product, and the
attention stays on the fold path under both numerics (the exact two-pass folds under "source", the online
fold under "relaxed_normalization").

Each kernel runs against a NumPy reference of its own source (f64, the same order of operations: a row
whose mask admits nothing gives what the source says, 0 where it guards the division, NaN where it divides
0 by 0) on the KIR interpreter (as traced and as rewritten, its folds cut into random slices) and through
Triton under TRITON_INTERPRET=1, at odd shapes: S = T = 1, T not a multiple of the block mask's block or of
any BLOCK_*, primes, rows with no kept key. f16 (Triton's CPU interpreter contracts bf16 wrongly,
triton-lang/triton#11584).
"""
import math
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

from interp_cli import rewritten, run_kir, views_of  # noqa: E402

F16 = T.f16
BLK = 8


def block_sparse_fn(q: T.In[F16, ("B", "S", "D")], k: T.In[F16, ("B", "T", "D")], v: T.In[F16, ("B", "T", "D")],
                    bm: T.In[T.bool_, ("B", "SB", "TB")], o: T.Out[F16, ("B", "S", "D")], scale: T.f32):
    """bench/corpus/190's spelling: the block mask gathered through index tensors, the scores and the
    exponentials masked by it, the division guarded."""
    B, S, D = q.shape
    keys, dims = k.domain(1), T.domain(0, D)
    for b, i in T.parallel(T.domain(0, B), T.domain(0, S)):
        kept = bm[b, i // BLK, T.indices(keys) // BLK]
        s = T.matvec(k[b, keys, dims], q[b, i, dims]) * scale
        s = T.where(kept, s, -math.inf)
        p = T.where(kept, T.exp(s - T.max(s)), 0.0)
        den = T.sum(p)
        acc = T.vecmat(T.cast(p, F16), v[b, keys, dims])
        o[b, i, dims] = T.cast(T.where(den > 0.0, acc / den, 0.0), F16)


def dropped_fn(q: T.In[F16, ("B", "S", "D")], k: T.In[F16, ("B", "T", "D")], v: T.In[F16, ("B", "T", "D")],
               drop: T.In[T.bool_, ("B", "S", "T")], o: T.Out[F16, ("B", "S", "D")],
               lse: T.Out[T.f32, ("B", "S")], scale: T.f32):
    """A mask loaded over the keys on the other side of the `where`, the scores unmasked (the maximum
    over every key), the division not guarded: a row with every key dropped is 0 / 0 = NaN, its lse -inf."""
    B, S, D = q.shape
    keys, dims = k.domain(1), T.domain(0, D)
    for b, i in T.parallel(T.domain(0, B), T.domain(0, S)):
        s = T.matvec(k[b, keys, dims], q[b, i, dims]) * scale
        m = T.max(s)
        p = T.where(drop[b, i, keys], 0.0, T.exp(s - m))
        l = T.sum(p)
        acc = T.vecmat(T.cast(p, F16), v[b, keys, dims])
        o[b, i, dims] = T.cast(acc / l, F16)
        lse[b, i] = m + T.log(l)


def lengths_fn(q: T.In[F16, ("B", "S", "D")], k: T.In[F16, ("B", "T", "D")], v: T.In[F16, ("B", "T", "D")],
               lengths: T.In[T.i32, ("B",)], o: T.Out[F16, ("B", "S", "D")], scale: T.f32):
    """A length mask computed from the key positions (187's mask) on attention, the division unguarded."""
    B, S, D = q.shape
    keys, dims = k.domain(1), T.domain(0, D)
    for b, i in T.parallel(T.domain(0, B), T.domain(0, S)):
        valid = T.indices(keys) < T.cast(lengths[b], T.index)
        s = T.where(valid, T.matvec(k[b, keys, dims], q[b, i, dims]) * scale, -math.inf)
        p = T.where(valid, T.exp(s - T.max(s)), 0.0)
        acc = T.vecmat(T.cast(p, F16), v[b, keys, dims])
        o[b, i, dims] = T.cast(acc / T.sum(p), F16)


def attention(q, k, v, scale, keep, mask_scores, guard):
    """The sources' arithmetic in f64: keep [B, S, T] admits a key; masked scores are -inf there."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    s = np.einsum("bqd,bkd->bqk", q, k) * scale
    if mask_scores:
        s = np.where(keep, s, -np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = s.max(-1, keepdims=True)
        p = np.where(keep, np.exp(s - m), 0.0)
        den = p.sum(-1)
        o = np.einsum("bqk,bkd->bqd", p, v) / den[..., None]
        if guard:
            o = np.where(den[..., None] > 0, o, 0.0)
        return o, m[..., 0] + np.log(den)


def case_block_sparse(S, Tk, D, rng):
    SB, TB = -(-S // BLK), -(-Tk // BLK)
    bm = rng.random((2, SB, TB)) < 0.4
    bm[0, 0, :] = False                                    # a query block with no kept key block
    bm[-1, -1, -1] = True
    keep = bm.repeat(BLK, 1).repeat(BLK, 2)[:, :S, :Tk]
    return block_sparse_fn, dict(B=2, S=S, T=Tk, D=D, SB=SB, TB=TB), {"bm": bm}, {}, \
        lambda x, sc: attention(x["q"], x["k"], x["v"], sc["scale"], keep, True, True)[:1]


def case_dropped(S, Tk, D, rng):
    drop = rng.random((2, S, Tk)) < 0.5
    drop[0, 0, :] = True                                   # a row with every key dropped
    return dropped_fn, dict(B=2, S=S, T=Tk, D=D), {"drop": drop}, {}, \
        lambda x, sc: attention(x["q"], x["k"], x["v"], sc["scale"], ~drop, False, False)


def case_lengths(S, Tk, D, rng):
    lengths = np.array([0, max(1, (2 * Tk) // 3)], dtype=np.int32)   # batch 0 admits no key
    keep = np.broadcast_to(np.arange(Tk)[None, None, :] < lengths[:, None, None], (2, S, Tk))
    return lengths_fn, dict(B=2, S=S, T=Tk, D=D), {"lengths": lengths}, {}, \
        lambda x, sc: attention(x["q"], x["k"], x["v"], sc["scale"], keep, True, False)[:1]


CASES = {"block_sparse": case_block_sparse, "dropped": case_dropped, "lengths": case_lengths}
SHAPES = [(1, 1, 16), (37, 67, 24), (19, 131, 16)]
NUMERICS = ["source", "relaxed_normalization"]


def close(got, want, what):
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{what}: NaN positions")
    np.testing.assert_allclose(got, want, rtol=2e-2, atol=2e-2, err_msg=what)


def build(name, numerics, S, Tk, D):
    rng = np.random.default_rng(S * 131 + Tk * 7 + D)
    fn, shape, masks, extra, ref = CASES[name](S, Tk, D, rng)
    kernel = tessel.kernel(name=f"mx_{name}_{numerics[:3]}", numerics=numerics)(fn)
    inputs = {}
    for n, ext in views_of(kernel)[0]:
        inputs[n] = masks[n] if n in masks else rng.standard_normal([shape[e] for e in ext]).astype(np.float16)
    scalars = {"scale": 1.0 / math.sqrt(D), **extra}
    return kernel, shape, inputs, scalars, ref(inputs, scalars)


@pytest.mark.parametrize("S,Tk,D", SHAPES, ids=[f"S{S}-T{Tk}-D{D}" for S, Tk, D in SHAPES])
@pytest.mark.parametrize("numerics", NUMERICS)
@pytest.mark.parametrize("name", list(CASES))
def test_masked_exp_folds(tessel_bin, tmp_path, name, numerics, S, Tk, D):
    import torch
    kernel, shape, inputs, scalars, want = build(name, numerics, S, Tk, D)

    traced, folded = rewritten(tessel_bin, tmp_path, kernel)
    assert "kir.region_fold" not in traced
    assert folded.count("kir.region_fold sources") == (2 if numerics == "source" else 1), folded
    assert "kir.unary exp" not in folded.split("kir.region_fold")[0]
    for text, segments in ((traced, "one"), (folded, "one"), (folded, "random"), (folded, "3")):
        got = run_kir(tessel_bin, tmp_path, text, kernel, shape, inputs, scalars, segments)
        for g, w in zip(got, want):
            close(g, w, f"KIR interpreter, segments={segments}")

    outs = views_of(kernel)[1]
    args = [torch.from_numpy(np.ascontiguousarray(inputs[n])) for n, _ in views_of(kernel)[0]]
    results = [torch.full([shape[e] for e in ext], float("nan"),
                          dtype=torch.float32 if n == "lse" else torch.float16) for n, ext in outs]
    kernel(*args, *results, **scalars)
    for r, w in zip(results, want):
        close(r.double().numpy(), w, "Triton (TRITON_INTERPRET=1)")


@pytest.mark.parametrize("numerics", NUMERICS)
def test_block_sparse_is_tiled(tessel_bin, tmp_path, numerics):
    """The folds are constructed on fragments: blocks of query rows, the scores and P.V tile products."""
    kernel, *_ = build("block_sparse", numerics, 37, 67, 24)
    src = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(src),
                          "--tessel-pipeline=stop-after=construct"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    blocked = [ln for ln in res.stdout.splitlines() if "pgpu.region_fold" in ln and "!pgpu.fragment<f32, [BLOCK_S" in ln]
    if numerics == "source":  # pass 1 the maxima of BLOCK_S rows; pass 2 their sums and P.V tiles
        assert any("-> (!pgpu.fragment<f32, [BLOCK_S]>) summarize" in ln for ln in blocked), blocked
        assert any("-> (!pgpu.fragment<f32, [BLOCK_S]>, !pgpu.fragment<f32, [BLOCK_S, BLOCK_D]>) summarize" in ln
                   for ln in blocked), blocked
    else:  # one online fold: (ok, m, l, acc) per block of rows
        assert blocked and all("!pgpu.fragment<i1, [BLOCK_S]>" in ln for ln in blocked), blocked
    assert "pgpu.contract" in res.stdout
