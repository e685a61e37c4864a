"""Sums over an axis that a later contraction over that axis reads are one region fold (kir-chained-folds):
non-causal linear attention written with T.contract / T.sum (kv = phi(K)^T V, z = sum phi(K), then
phi(Q) @ kv / phi(Q) . z) and a Gram projection Y = X (X^T X) compute the sums once per member, as the
explicit region_fold spelling does, instead of per output element. Checked against NumPy (float64) on the
KIR interpreter and through Triton under TRITON_INTERPRET=1 at odd shapes (S = 0, 1, primes, D not a
multiple of a tile)."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from tessel import _cli  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench" / "corpus"))
from _harness import interpreter_bf16_dot  # noqa: E402

interpreter_bf16_dot()  # Triton 3.6's interpreter multiplies bf16 bit patterns in tl.dot (upstream)


def phi(x):
    return T.where(x > 0.0, x, T.expm1(x)) + 1.0


@tessel.kernel
def linear_attention(Q: T.In[T.bf16, ("B", "H", "S", "D")], K: T.In[T.bf16, ("B", "H", "S", "D")],
                     V: T.In[T.bf16, ("B", "H", "S", "E")], O: T.Out[T.f32, ("B", "H", "S", "E")]):
    B, H, S, D = Q.shape
    seq, dims, vdims = T.domain(0, S), T.domain(0, D), T.domain(0, V.shape[3])
    for b, h in T.parallel(T.domain(0, B), T.domain(0, H)):
        pk = phi(T.cast(K[b, h, seq, dims], T.f32))
        kv = T.contract(pk, T.cast(V[b, h, seq, vdims], T.f32), reduce=((0, 0),))
        z = T.sum(pk, axis=0)
        pq = phi(T.cast(Q[b, h, seq, dims], T.f32))
        O[b, h, seq, vdims] = T.matmul(pq, kv) / T.broadcast_to(T.matvec(pq, z), T.matmul(pq, kv), dims=[0])


@tessel.kernel
def gram_projection(X: T.In[T.f32, ("B", "N", "D")], Y: T.Out[T.f32, ("B", "N", "D")]):
    B, N, D = X.shape
    rows, dims = T.domain(0, N), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        x = X[b, rows, dims]
        g = T.contract(x, x, reduce=((0, 0),))          # [D, D]
        Y[b, rows, dims] = T.matmul(x, g)


@tessel.kernel
def stored_summary(K: T.In[T.f32, ("B", "S", "D")], V: T.In[T.f32, ("B", "S", "D")],
                   KV: T.Out[T.f32, ("B", "D", "D")]):
    B, S, D = K.shape
    seq, dims = T.domain(0, S), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        KV[b, dims, dims] = T.contract(K[b, seq, dims], V[b, seq, dims], reduce=((0, 0),))


@tessel.kernel
def gathered_gram(K: T.In[T.f32, ("S", "D")], IDX: T.In[T.i32, ("B", "S")], Q: T.In[T.f32, ("B", "S", "D")],
                  O: T.Out[T.f32, ("B", "S", "D")]):
    S, D = K.shape
    seq, dims = T.domain(0, S), T.domain(0, D)
    for b in T.parallel(T.domain(0, IDX.shape[0])):
        k = K[IDX[b, seq], dims]                          # rows gathered per member
        O[b, seq, dims] = T.matmul(Q[b, seq, dims], T.contract(k, k, reduce=((0, 0),)))


@tessel.kernel
def transposed_keys(KT: T.In[T.f32, ("B", "D", "S")], V: T.In[T.f32, ("B", "S", "D")],
                    Q: T.In[T.f32, ("B", "S", "D")], O: T.Out[T.f32, ("B", "S", "D")]):
    B, D, S = KT.shape
    seq, dims = T.domain(0, S), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        kv = T.contract(KT[b, dims, seq], V[b, seq, dims], reduce=((1, 0),))   # the sequence at axes 1 and 0
        O[b, seq, dims] = T.matmul(Q[b, seq, dims], kv)


@tessel.kernel
def head_sums(X: T.In[T.f32, ("B", "S", "H", "D")], O: T.Out[T.f32, ("B", "S", "H")]):
    B, S, H, D = X.shape
    seq, heads, dims = T.domain(0, S), T.domain(0, H), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        x = X[b, seq, heads, dims]
        z = T.sum(x, axis=0)                                              # [H, D], read by a batched product
        O[b, seq, heads] = T.contract(x, z, reduce=((2, 1),), batch=((1, 0),))


def _after_kir_passes(kernel) -> str:
    opt = os.path.join(os.path.dirname(_cli.find_tessel()), "tessel-opt")
    res = subprocess.run([opt, "-", "--tessel-pipeline=stop-after=annotate-origins"], input=kernel.kir(),
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout


def _bf16(a):
    return torch.tensor(a).to(torch.bfloat16).float().numpy()


def _phi(x):
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0))) + 1.0


@pytest.mark.parametrize("B,H,S,D,E", [(1, 1, 1, 1, 1), (1, 2, 7, 3, 5), (2, 1, 37, 17, 16), (1, 1, 131, 16, 33),
                                       (1, 1, 0, 4, 4)])
def test_linear_attention_sums_once(B, H, S, D, E, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(S * 31 + D)
    q, k = (_bf16(rng.standard_normal((B, H, S, D)).astype(np.float32)) for _ in range(2))
    v = _bf16(rng.standard_normal((B, H, S, E)).astype(np.float32))
    pq, pk = _phi(q.astype(np.float64)), _phi(k.astype(np.float64))
    want = np.einsum("bhsd,bhde->bhse", pq, np.einsum("bhsd,bhse->bhde", pk, v.astype(np.float64)))
    want /= np.einsum("bhsd,bhd->bhs", pq, pk.sum(2))[..., None]
    got = linear_attention.run_interp(shapes=dict(B=B, H=H, S=S, D=D, E=E), inputs=dict(Q=q, K=k, V=v))["O"]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    o = torch.full((B, H, S, E), float("nan"))
    to = lambda a: torch.tensor(a).to(torch.bfloat16)  # noqa: E731
    linear_attention(to(q), to(k), to(v), o)
    np.testing.assert_allclose(o.numpy(), want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("B,N,D", [(1, 1, 1), (2, 13, 5), (1, 67, 17), (3, 0, 3)])
def test_gram_projection_sums_once(B, N, D, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(N + D)
    x = rng.standard_normal((B, N, D)).astype(np.float32)
    x64 = x.astype(np.float64)
    want = np.einsum("bnd,bde->bne", x64, np.einsum("bnd,bne->bde", x64, x64))
    got = gram_projection.run_interp(shapes=dict(B=B, N=N, D=D), inputs=dict(X=x))["Y"]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    y = torch.full((B, N, D), float("nan"))
    gram_projection(torch.tensor(x), y)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-3)


def test_chained_sums_become_one_fold():
    text = _after_kir_passes(linear_attention)
    assert text.count("kir.region_fold") == 1, "kv and z should be one fold over the sequence"
    assert "kir.region_fold" in _after_kir_passes(gram_projection)
    src = linear_attention.source("triton")
    assert "tl.dot(" in src


def test_stored_summary_is_not_folded():
    # A contraction stored as it is has no later traversal of its axis: the tile path keeps it.
    assert "kir.region_fold" not in _after_kir_passes(stored_summary)


@pytest.mark.parametrize("B,S,D", [(1, 1, 1), (2, 11, 3), (3, 37, 17)])
def test_gathered_rows_sum_once(B, S, D, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    assert "kir.region_fold" in _after_kir_passes(gathered_gram)
    rng = np.random.default_rng(B * S * D)
    k = rng.standard_normal((S, D)).astype(np.float32)
    idx = rng.integers(0, S, (B, S)).astype(np.int32)     # repeated rows
    q = rng.standard_normal((B, S, D)).astype(np.float32)
    kg = k.astype(np.float64)[idx]
    want = np.einsum("bsd,bde->bse", q.astype(np.float64), np.einsum("bsd,bse->bde", kg, kg))
    got = gathered_gram.run_interp(shapes=dict(B=B, S=S, D=D), inputs=dict(K=k, IDX=idx, Q=q))["O"]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    o = torch.full((B, S, D), float("nan"))
    gathered_gram(torch.tensor(k), torch.tensor(idx), torch.tensor(q), o)
    np.testing.assert_allclose(o.numpy(), want, rtol=1e-4, atol=1e-3)


def test_axis_at_different_positions_is_not_folded(tmp_path, monkeypatch):
    # The sequence is axis 1 of KT and axis 0 of V: one fold cannot slice both along one axis.
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    assert "kir.region_fold" not in _after_kir_passes(transposed_keys)
    rng = np.random.default_rng(5)
    kt, v, q = (rng.standard_normal(sh).astype(np.float32) for sh in ((2, 5, 13), (2, 13, 5), (2, 13, 5)))
    want = np.einsum("bsd,bde->bse", q, np.einsum("bds,bse->bde", kt, v))
    o = torch.full((2, 13, 5), float("nan"))
    transposed_keys(torch.tensor(kt), torch.tensor(v), torch.tensor(q), o)
    np.testing.assert_allclose(o.numpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("B,S,H,D", [(1, 1, 1, 1), (2, 7, 3, 5), (1, 19, 2, 17)])
def test_sum_read_by_a_batched_product(B, S, H, D, tmp_path, monkeypatch):
    # The later product has a batch pair (the heads): construction builds this fold element by element
    # (a remark says so), not as tiles; the values must still be the reference's.
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    assert "kir.region_fold" in _after_kir_passes(head_sums)
    x = np.random.default_rng(S * D).standard_normal((B, S, H, D)).astype(np.float32)
    want = np.einsum("bshd,bhd->bsh", x.astype(np.float64), x.astype(np.float64).sum(1))
    got = head_sums.run_interp(shapes=dict(B=B, S=S, H=H, D=D), inputs=dict(X=x))["O"]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    o = torch.full((B, S, H), float("nan"))
    head_sums(torch.tensor(x), o)
    np.testing.assert_allclose(o.numpy(), want, rtol=1e-4, atol=1e-4)
