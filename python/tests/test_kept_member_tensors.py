"""Squeeze-and-excitation in one member per image (corpus 249_squeeze_excitation; issue 41): the gate a =
sigmoid(w2 @ relu(w1 @ sum(x, pixels))) spread over the pixels by the store. kir-row-parallels keeps the nested
reduction and contraction per member (buffers over the images and their domain, written once, read back), so
the store no longer recomputes every channel's sum for each element. Checked through the generated Triton
(TRITON_INTERPRET=1) against NumPy and the KIR interpreter at odd shapes; a single level (a channel's sum
spread over its pixels) must not be kept."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
@tessel.kernel
def se_gate(x: T.In[T.f32, ("N", "C", "P")], w1: T.In[T.f32, ("R", "C")], w2: T.In[T.f32, ("C", "R")],
            out: T.Out[T.f32, ("N", "C", "P")]):
    N, C, P = x.shape
    chans, reds, pix = T.domain(0, C), T.domain(0, w1.shape[0]), T.domain(0, P)
    for n in T.parallel(T.domain(0, N)):
        s = T.sum(x[n, chans, pix], axis=1)
        h = T.maximum(T.matvec(w1[reds, chans], s), 0.0)
        a = T.sigmoid(T.matvec(w2[chans, reds], h))
        out[n, chans, pix] = x[n, chans, pix] * T.broadcast(a, over=(chans, pix), dims=[0])


@tessel.kernel
def center_channels(x: T.In[T.f32, ("N", "C", "P")], out: T.Out[T.f32, ("N", "C", "P")]):
    N, C, P = x.shape
    chans, pix = T.domain(0, C), T.domain(0, P)
    for n in T.parallel(T.domain(0, N)):
        m = T.sum(x[n, chans, pix], axis=1)
        out[n, chans, pix] = x[n, chans, pix] - T.broadcast(m, over=(chans, pix), dims=[0])


def _se(x, w1, w2):
    s = x.astype(np.float64).sum(2)
    h = np.maximum(s @ w1.T.astype(np.float64), 0.0)
    a = 1.0 / (1.0 + np.exp(-(h @ w2.T.astype(np.float64))))
    return x * a[:, :, None]


def test_the_gate_is_kept_per_member():
    assert se_gate.source().count("tl.debug_barrier(") >= 1        # buffers written, then read, per image
    assert center_channels.source().count("tl.debug_barrier(") == 0


@pytest.mark.parametrize("N,C,R,P", [(1, 1, 1, 1), (2, 7, 3, 5), (3, 13, 2, 37)])
def test_se_gate_matches_numpy(N, C, R, P, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(2490 + C * 10 + P)
    x = rng.standard_normal((N, C, P)).astype(np.float32)
    w1 = (rng.standard_normal((R, C)) / np.sqrt(C)).astype(np.float32)
    w2 = (rng.standard_normal((C, R)) / np.sqrt(R)).astype(np.float32)
    want = _se(x, w1, w2)
    out = torch.empty((N, C, P), dtype=torch.float32)
    se_gate(torch.tensor(x), torch.tensor(w1), torch.tensor(w2), out)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
    ref = se_gate.run_interp({"N": N, "C": C, "R": R, "P": P}, inputs=dict(x=x, w1=w1, w2=w2))
    np.testing.assert_allclose(np.asarray(ref["out"]), want, rtol=1e-4, atol=1e-5)
