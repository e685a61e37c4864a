"""A softmax maximum joined with a value free of the keys (gpt-oss's attention sinks: m = maximum(max(s), sink),
the sink's exp(sink - m) in the denominator only; corpus 251_attention_sinks; issue 41): kir-online-folds builds
the exact two-pass folds with the final maximum maximum(fold, sink) under source numerics, and under
relaxed_normalization one online fold whose components are rescaled to that maximum after it (the scores
computed once), so the member is a blocked attention fold
(tile products), not one element-by-element program per query. Checked through the generated Triton
(TRITON_INTERPRET=1) against NumPy and the KIR interpreter at odd shapes (one key, primes, a block and one)."""
import math
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


def _sinks(q, k, v, sinks, out):
    H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    for h, i in T.parallel(T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[h, keys, dims], q[h, i, dims]) * 0.5
        s = T.where(T.indices(keys) <= i, s, -math.inf)
        m = T.maximum(sinks[h], T.max(s))                 # the join, operands in the other order
        e = T.exp(s - m)
        den = T.sum(e) + T.exp(sinks[h] - m)              # written before the product
        out[h, i, dims] = T.vecmat(e, v[h, keys, dims]) / den


Q = T.In[T.f32, ("H", "S", "D")]
@tessel.kernel
def sink_attention(q: Q, k: Q, v: Q, sinks: T.In[T.f32, ("H",)], out: T.Out[T.f32, ("H", "S", "D")]):
    _sinks(q, k, v, sinks, out)


@tessel.kernel(numerics="relaxed_normalization")
def sink_attention_relaxed(q: Q, k: Q, v: Q, sinks: T.In[T.f32, ("H",)], out: T.Out[T.f32, ("H", "S", "D")]):
    _sinks(q, k, v, sinks, out)


def _reference(q, k, v, sinks):
    S = q.shape[1]
    s = np.einsum("hid,hjd->hij", q.astype(np.float64), k.astype(np.float64)) * 0.5
    s = np.where(np.tril(np.ones((S, S), bool)), s, -np.inf)
    sk = sinks.astype(np.float64)[:, None, None]
    m = np.maximum(s.max(-1, keepdims=True), sk) if S else sk
    e = np.exp(s - m)
    return np.einsum("hij,hjd->hid", e, v.astype(np.float64)) / (e.sum(-1, keepdims=True) + np.exp(sk - m))


@pytest.mark.parametrize("kernel", [sink_attention, sink_attention_relaxed])
def test_a_joined_maximum_is_a_blocked_fold(kernel):
    src = kernel.source()
    assert "tl.dot(" in src  # the scores and P.V as tile products, not per-query loops


@pytest.mark.parametrize("H,S,D", [(1, 1, 1), (2, 7, 3), (1, 65, 5)])
def test_sink_attention_matches_numpy(H, S, D, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(2510 + S)
    q, k, v = (rng.standard_normal((H, S, D)).astype(np.float32) for _ in range(3))
    sinks = (3.0 * rng.standard_normal(H)).astype(np.float32)  # some above every score, some below
    want = _reference(q, k, v, sinks)
    for kernel in (sink_attention, sink_attention_relaxed):
        out = torch.empty((H, S, D), dtype=torch.float32)
        kernel(torch.tensor(q), torch.tensor(k), torch.tensor(v), torch.tensor(sinks), out)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5, err_msg=kernel.name)
    ref = sink_attention.run_interp({"H": H, "S": S, "D": D}, inputs=dict(q=q, k=k, v=v, sinks=sinks))
    np.testing.assert_allclose(np.asarray(ref["out"]), want, rtol=1e-4, atol=1e-5)
