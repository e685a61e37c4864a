"""Attention over a window of neighbours that slides inward at the ends (NATTEN's 1-D neighbourhood: query i reads
keys [start, start + KS) with start = clamp(i - KS // 2, 0, L - KS); corpus 254_neighborhood_attention_1d;
issue 41): the window's start is the lane's coordinate plus an offset, clamped to program-uniform limits, so
kir-to-pgpu makes the queries the lanes and folds the union of the block's windows in key tiles (tile products,
each lane masking the keys outside its window) instead of one program per query. Checked through the generated
Triton (TRITON_INTERPRET=1) against NumPy and the KIR interpreter at odd shapes (L = KS, primes, a lane block
and more)."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

KS = 5


@tessel.kernel
def window_attention(q: T.In[T.f32, ("H", "L", "D")], k: T.In[T.f32, ("H", "L", "D")],
                     v: T.In[T.f32, ("H", "L", "D")], out: T.Out[T.f32, ("H", "L", "D")], scale: T.f32):
    H, L, D = q.shape
    keys, dims = T.domain(0, L), T.domain(0, D)
    for h, i in T.parallel(T.domain(0, H), T.domain(0, L)):
        start = T.minimum(T.maximum(i - KS // 2, 0), L - KS)
        win = keys[start:start + KS]
        s = T.matvec(k[h, win, dims], q[h, i, dims]) * scale
        e = T.exp(s - T.max(s))
        out[h, i, dims] = T.vecmat(e, v[h, win, dims]) / T.sum(e)


def _reference(q, k, v):
    H, L, D = q.shape
    out = np.zeros((H, L, D))
    for i in range(L):
        st = min(max(i - KS // 2, 0), L - KS)
        s = np.einsum("hd,hjd->hj", q[:, i].astype(np.float64), k[:, st:st + KS].astype(np.float64)) * 0.5
        e = np.exp(s - s.max(-1, keepdims=True))
        out[:, i] = np.einsum("hj,hjd->hd", e, v[:, st:st + KS]) / e.sum(-1, keepdims=True)
    return out


def test_the_window_is_a_lane_block_fold():
    src = window_attention.source()
    assert "tl.dot(" in src and "BLOCK_L" in src  # the queries are lanes; scores and P.V are tile products


@pytest.mark.parametrize("H,L,D", [(1, KS, 1), (2, 13, 3), (1, 67, 4)])
def test_window_attention_matches_numpy(H, L, D, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(2540 + L)
    q, k, v = (rng.standard_normal((H, L, D)).astype(np.float32) for _ in range(3))
    want = _reference(q, k, v)
    out = torch.empty((H, L, D), dtype=torch.float32)
    window_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v), out, scale=0.5)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
    ref = window_attention.run_interp({"H": H, "L": L, "D": D}, inputs=dict(q=q, k=k, v=v), scalars={"scale": 0.5})
    np.testing.assert_allclose(np.asarray(ref["out"]), want, rtol=1e-4, atol=1e-5)
