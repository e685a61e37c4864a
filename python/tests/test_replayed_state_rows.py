"""A member that stores a tensor of rank >= 2 which a reduction keeping another axis also reads (Mamba-2's
state update, corpus 244: h' = h * exp(dt a) + outer(x dt, B) stored whole, y = sum_n h' C + D x): before,
construction replayed h' in the reduction's walk and again in the store's (the state read twice a
program, one (b, h) a program walking P rows one after the other). kir-row-parallels makes the axis that
nothing reduces (P) a member axis, so each member computes its row once (pgpu-stage-rows, pgpu-pack-rows:
[ROWS, BLOCK] row tiles) and pgpu-reuse-input-reads takes the row's second read of the written view. Checked
through the generated Triton (TRITON_INTERPRET=1) and the KIR interpreter against NumPy at odd shapes (0, 1,
primes, rows longer than one block). Must not fire: a column sum of the updated state (the axis left for
members is the innermost: the member keeps its axes), still right."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def state_update(state: T.InOut[T.f32, ("B", "P", "N")], x: T.In[T.f32, ("B", "P")], a: T.In[T.f32, ("B",)],
                 bm: T.In[T.f32, ("B", "N")], c: T.In[T.f32, ("B", "N")], y: T.Out[T.f32, ("B", "P")]):
    B, P, N = state.shape
    ps, ns = T.domain(0, P), T.domain(0, N)
    for b in T.parallel(T.domain(0, B)):
        s = state[b, ps, ns] * T.exp(a[b]) + T.outer(x[b, ps], bm[b, ns])
        state[b, ps, ns] = s
        y[b, ps] = T.sum(s * c[b, ns], axis=1) + x[b, ps]


@tessel.kernel
def column_sum_of_update(state: T.InOut[T.f32, ("B", "P", "N")], y: T.Out[T.f32, ("B", "N")], a: T.f32):
    B, P, N = state.shape
    ps, ns = T.domain(0, P), T.domain(0, N)
    for b in T.parallel(T.domain(0, B)):
        s = state[b, ps, ns] * a
        state[b, ps, ns] = s
        y[b, ns] = T.sum(s, axis=0)


def test_the_row_axis_becomes_a_member_axis():
    kir = state_update.compile("kir")  # after the KIR passes
    assert kir.count("kir.parallel") == 1 and "tensor<?x?xf32>" not in kir  # rows of N, (b, p) members
    assert "tensor<?x?xf32>" in column_sum_of_update.compile("kir")  # must not fire: the member keeps [P, N]


@pytest.mark.parametrize("B,P,N", [(1, 1, 1), (2, 0, 3), (3, 5, 7), (2, 13, 37), (1, 3, 1031)])
def test_state_update_matches_numpy(B, P, N, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(244 + B * 1000 + P * 10 + N)
    st = rng.standard_normal((B, P, N)).astype(np.float32)
    x = rng.standard_normal((B, P)).astype(np.float32)
    a = (-rng.random(B)).astype(np.float32)
    bm = rng.standard_normal((B, N)).astype(np.float32)
    c = rng.standard_normal((B, N)).astype(np.float32)
    s = st.astype(np.float64) * np.exp(a.astype(np.float64))[:, None, None] + x[:, :, None] * bm[:, None, :]
    want_y = (s * c[:, None, :]).sum(-1) + x
    stt, yt = torch.tensor(st.copy()), torch.empty(B, P)
    state_update(stt, torch.tensor(x), torch.tensor(a), torch.tensor(bm), torch.tensor(c), yt)
    ref = state_update.run_interp({"B": B, "P": P, "N": N},
                                  inputs={"state": st.copy(), "x": x, "a": a, "bm": bm, "c": c})
    for got_s, got_y in ((stt.numpy(), yt.numpy()), (np.asarray(ref["state"]), np.asarray(ref["y"]))):
        np.testing.assert_allclose(got_s, s, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(got_y, want_y, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("B,P,N", [(1, 1, 1), (2, 7, 5)])
def test_column_sum_of_update_still_right(B, P, N, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(2440 + B * 100 + P * 10 + N)
    st = rng.standard_normal((B, P, N)).astype(np.float32)
    s = st.astype(np.float64) * 0.5
    stt, yt = torch.tensor(st.copy()), torch.empty(B, N)
    column_sum_of_update(stt, yt, a=0.5)
    np.testing.assert_allclose(stt.numpy(), s, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(yt.numpy(), s.sum(1), rtol=1e-5, atol=1e-5)
