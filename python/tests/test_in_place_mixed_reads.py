"""A member that reads an InOut view and stores it back in place, where the stored value combines the
read's elements across positions through a tensor (a reduction or contraction to a tensor: the gated
delta rule's S <- S + k (v - S^T k)^T, corpus 243_gated_delta_decode; issue 47): construction realizes
the stored tensor element by element at the store, so later rows would read rows already stored. Refused
at the read with a located error (before: silently wrong Triton). Must not fire: a combination to a scalar
(a row's sum, realized before the store) and a pointwise in-place update, checked through the generated
Triton (TRITON_INTERPRET=1) against the KIR interpreter and NumPy at odd shapes."""
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
def normalize_rows(y: T.InOut[T.f32, ("B", "D")], z: T.Out[T.f32, ("B", "D")]):
    B, D = y.shape
    ds = T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        r = y[b, ds]
        y[b, ds] = r / (T.sum(T.abs(r)) + 1.0)
        z[b, ds] = r * 2.0


def test_a_tensor_combination_of_the_view_stored_back_is_refused():
    with pytest.raises(tessel.CompileError, match="combines its elements across positions") as e:
        delta_rule.source()
    msg = str(e.value)
    assert "test_in_place_mixed_reads.py:28:13" in msg and "note: the store" in msg  # located at the read


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
