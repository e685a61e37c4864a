"""Attention spellings that did not become blocked folds (issues 41, 43): a constant score scale
(kir-monotone-reductions moved max(0.125 * c) to max(c) * 0.125, hiding the softmax shift from
kir-online-folds: no fold, one element-by-element member per query), and two softmaxes over one key axis in
one member (differential attention, corpus 223: the first maximum took the second's computation for its own
and refused). Both are now blocked folds with tile products; checked through the generated Triton
(TRITON_INTERPRET=1) against NumPy and the KIR interpreter at odd shapes (one key, primes, a block and
one)."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

V = T.In[T.f32, ("S", "D")]


@tessel.kernel
def constant_scale(q: V, k: V, v: V, o: T.Out[T.f32, ("S", "D")]):
    S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    for i in T.parallel(T.domain(0, S)):
        s = T.matvec(k[keys, dims], q[i, dims]) * 0.125
        e = T.exp(s - T.max(s))
        o[i, dims] = T.vecmat(e, v[keys, dims]) / T.sum(e)


@tessel.kernel
def two_softmaxes(q1: V, q2: V, k1: V, k2: V, v: V, o: T.Out[T.f32, ("S", "D")], lam: T.f32):
    S, D = q1.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    for i in T.parallel(T.domain(0, S)):
        s1 = T.matvec(k1[keys, dims], q1[i, dims]) * lam
        p1 = T.exp(s1 - T.max(s1))
        o1 = T.vecmat(p1, v[keys, dims]) / T.sum(p1)
        s2 = T.matvec(k2[keys, dims], q2[i, dims])
        s2 = T.where(T.indices(keys) <= i, s2, -np.inf)     # the second one causal
        p2 = T.exp(s2 - T.max(s2))
        o2 = T.vecmat(p2, v[keys, dims]) / T.sum(p2)
        o[i, dims] = o1 - lam * o2


def _softmax_v(s, v):
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("kernel", [constant_scale, two_softmaxes])
def test_the_softmaxes_are_blocked_folds(kernel):
    src = kernel.source()
    assert "tl.dot(" in src  # the scores and P.V as tile products, not per-query loops


SHAPES = [(1, 1), (7, 3), (37, 5)]


@pytest.mark.parametrize("S,D", SHAPES)
def test_constant_scale_matches_numpy(S, D, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(1250 + S)
    q, k, v = (rng.standard_normal((S, D)).astype(np.float32) for _ in range(3))
    want = _softmax_v(q.astype(np.float64) @ k.T.astype(np.float64) * 0.125, v.astype(np.float64))
    out = torch.empty((S, D), dtype=torch.float32)
    constant_scale(torch.tensor(q), torch.tensor(k), torch.tensor(v), out)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
    ref = constant_scale.run_interp({"S": S, "D": D}, inputs=dict(q=q, k=k, v=v))
    np.testing.assert_allclose(np.asarray(ref["o"]), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("S,D", SHAPES)
def test_two_softmaxes_match_numpy(S, D, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(2230 + S)
    q1, q2, k1, k2, v = (rng.standard_normal((S, D)).astype(np.float32) for _ in range(5))
    lam = 0.8
    f = lambda a: a.astype(np.float64)  # noqa: E731
    s2 = np.where(np.tril(np.ones((S, S), bool)), f(q2) @ f(k2).T, -np.inf)
    want = _softmax_v(f(q1) @ f(k1).T * lam, f(v)) - lam * _softmax_v(s2, f(v))
    out = torch.empty((S, D), dtype=torch.float32)
    two_softmaxes(*(torch.tensor(a) for a in (q1, q2, k1, k2, v)), out, lam=lam)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
    ref = two_softmaxes.run_interp({"S": S, "D": D}, inputs=dict(q1=q1, q2=q2, k1=k1, k2=k2, v=v),
                                   scalars={"lam": lam})
    np.testing.assert_allclose(np.asarray(ref["o"]), want, rtol=1e-4, atol=1e-5)
