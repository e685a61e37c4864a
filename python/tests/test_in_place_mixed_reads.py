"""A member that reads an InOut view and stores it back in place, where the stored value combines the
read's elements across positions through a tensor (a reduction or contraction to a tensor: the gated
delta rule's S <- S + k (v - S^T k)^T, corpus 243_gated_delta_decode; issue 47): construction realizes
the stored tensor element by element at the store, so later rows would read rows already stored. Where
another stored axis is reduced by nothing (the delta rule's value axis), kir-row-parallels makes it a member
axis (each member reads its own column before writing it): checked through the generated Triton
(TRITON_INTERPRET=1) against NumPy and the KIR interpreter at odd shapes. Where every stored axis is
combined, refused at the read with a located error (before s39: silently wrong Triton). Must not fire: a
combination to a scalar (a row's sum, realized before the store) and a pointwise in-place update."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def delta_rule(state: T.InOut[T.f32, ("B", "K", "V")], k: T.In[T.f32, ("B", "K")], v: T.In[T.f32, ("B", "V")]):
    B, K, V = state.shape
    ks, vs = T.domain(0, K), T.domain(0, V)
    for b in T.parallel(T.domain(0, B)):
        kk = k[b, ks]
        s = state[b, ks, vs]
        predicted = T.sum(s * kk, axis=0)
        state[b, ks, vs] = s + T.outer(kk, v[b, vs] - predicted)


@tessel.kernel
def both_axes_mixed(state: T.InOut[T.f32, ("B", "K", "V")]):
    B, K, V = state.shape
    ks, vs = T.domain(0, K), T.domain(0, V)
    for b in T.parallel(T.domain(0, B)):
        s = state[b, ks, vs]
        state[b, ks, vs] = s + T.outer(T.sum(s, axis=1), T.sum(s, axis=0))


@tessel.kernel
def normalize_rows(y: T.InOut[T.f32, ("B", "D")], z: T.Out[T.f32, ("B", "D")]):
    B, D = y.shape
    ds = T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        r = y[b, ds]
        y[b, ds] = r / (T.sum(T.abs(r)) + 1.0)
        z[b, ds] = r * 2.0


def test_a_combination_of_every_stored_axis_is_refused():
    with pytest.raises(tessel.CompileError, match="combines its elements across positions") as e:
        both_axes_mixed.source()
    msg = str(e.value)
    assert "test_in_place_mixed_reads.py:40:13" in msg and "note: the store" in msg  # located at the read


@pytest.mark.parametrize("B,K,V", [(1, 1, 1), (2, 5, 7), (3, 16, 13)])
def test_delta_rule_in_place_matches_numpy(B, K, V, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(2430 + B * 100 + K * 10 + V)
    st = rng.standard_normal((B, K, V)).astype(np.float32)
    k = rng.standard_normal((B, K)).astype(np.float32)
    v = rng.standard_normal((B, V)).astype(np.float32)
    s64 = st.astype(np.float64)
    want = s64 + k[:, :, None] * (v - np.einsum("bkv,bk->bv", s64, k))[:, None, :]
    stt = torch.tensor(st.copy())
    delta_rule(stt, torch.tensor(k), torch.tensor(v))
    ref = delta_rule.run_interp({"B": B, "K": K, "V": V}, inputs={"state": st.copy(), "k": k, "v": v})
    for got in (stt.numpy(), np.asarray(ref["state"])):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("B,D", [(1, 1), (3, 0), (2, 7), (5, 131)])
def test_scalar_combinations_in_place_still_right(B, D, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(4300 + B * 1000 + D)
    y = rng.standard_normal((B, D)).astype(np.float32)
    yt, zt = torch.tensor(y.copy()), torch.empty((B, D), dtype=torch.float32)
    normalize_rows(yt, zt)
    ref = normalize_rows.run_interp({"B": B, "D": D}, inputs={"y": y.copy()})
    want_y = y / (np.abs(y).sum(axis=1, keepdims=True) + 1.0)
    for got in (yt.numpy(), np.asarray(ref["y"])):
        np.testing.assert_allclose(got, want_y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(zt.numpy(), 2 * y, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ref["z"]), 2 * y, rtol=1e-6)
