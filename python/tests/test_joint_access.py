"""Index tensors that share an axis index a view jointly (issue 42 item 1; docs/language.md, "Reading and
writing views"): `cache[blk, slot, dims]` with `blk` and `slot` over the tokens reads one cache row per
token (NumPy's advanced indexing, pairing by axis identity), where index tensors over different axes still
make an outer product. A domain coordinate over a paired axis joins the pair (`logits[rows, labels[rows]]`
picks one element per row). Checked on the KIR interpreter and through the Triton provider under
TRITON_INTERPRET=1 against NumPy at odd shapes, with repeated and out-of-order block ids; scatters and
scatter-reduces pair the same way; atomics refuse pairs at the author's line."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def paged_copy(cache: T.In[T.f32, ("NB", "BS", "D")], table: T.In[T.i32, ("MB",)],
               y: T.Out[T.f32, ("L", "D")]):
    BS = cache.shape[1]
    toks, dims = T.domain(0, y.shape[0]), T.domain(0, cache.shape[2])
    t = T.indices(toks)
    y[toks, dims] = cache[table[t // BS], t % BS, dims]


@tessel.kernel
def pick(logits: T.In[T.f32, ("M", "V")], labels: T.In[T.i32, ("M",)], out: T.Out[T.f32, ("M",)]):
    rows = T.domain(0, logits.shape[0])
    out[rows] = logits[rows, labels[rows]]


@tessel.kernel
def diag_outer(x: T.In[T.f32, ("N", "N")], d2: T.Out[T.f32, ("N",)], full: T.Out[T.f32, ("N", "M")],
               c: T.In[T.i32, ("M",)]):
    N = x.shape[0]
    d, m = T.domain(0, N), T.domain(0, c.shape[0])
    i = T.indices(d)
    d2[d] = x[i, i] * 2.0                  # paired: the diagonal
    full[d, m] = x[i, c[m]]                # different axes: an outer product


@tessel.kernel
def broadcast_pair(x: T.In[T.f32, ("A", "B")], r: T.In[T.i32, ("S",)], q: T.In[T.i32, ("S", "K")],
                   y: T.Out[T.f32, ("S", "K")]):
    S, K = q.shape
    s, k = T.domain(0, S), T.domain(0, K)
    y[s, k] = x[r[s], q[s, k]]             # r over (s) pairs with q over (s, k): r spread over k


@tessel.kernel
def unpage(y: T.In[T.f32, ("L", "D")], table: T.In[T.i32, ("MB",)], cache: T.InOut[T.f32, ("NB", "BS", "D")],
           acc: T.InOut[T.f32, ("NB", "BS", "D")]):
    BS = cache.shape[1]
    toks, dims = T.domain(0, y.shape[0]), T.domain(0, y.shape[1])
    t = T.indices(toks)
    blk = table[t // BS]
    cache[blk, t % BS, dims] = y[toks, dims]
    T.scatter_reduce(acc, (blk, t % BS, dims), y[toks, dims], combine="add")


def _both(kernel, shapes, inputs, want, outs):
    """The KIR interpreter and the generated Triton (TRITON_INTERPRET=1) against `want`."""
    got = kernel.run_interp(shapes=shapes, scalars={}, inputs=inputs)
    for name, w in want.items():
        np.testing.assert_allclose(got[name], w, rtol=1e-6, atol=1e-6, err_msg=f"interpreter: {name}")
    args = {n: torch.tensor(v) for n, v in inputs.items()}
    args.update({n: torch.full(shape, float("nan")) for n, shape in outs.items()})
    kernel(**args)
    for name, w in want.items():
        np.testing.assert_allclose(args[name].numpy(), w, rtol=1e-6, atol=1e-6, err_msg=f"triton: {name}")


@pytest.mark.parametrize("NB,BS,D,L", [(1, 1, 1, 1), (7, 4, 5, 13), (5, 3, 17, 11), (3, 16, 2, 0)])
def test_paged_rows(NB, BS, D, L, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(NB * 100 + L)
    MB = max(1, -(-L // BS))
    cache = rng.standard_normal((NB, BS, D)).astype(np.float32)
    table = rng.integers(0, NB, size=MB).astype(np.int32)   # repeated and out of order
    t = np.arange(L)
    _both(paged_copy, dict(NB=NB, BS=BS, D=D, L=L, MB=MB), dict(cache=cache, table=table),
          dict(y=cache[table[t // BS], t % BS]), dict(y=(L, D)))


@pytest.mark.parametrize("M,V", [(1, 1), (13, 7), (31, 101)])
def test_domain_joins_the_pair(M, V, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(M)
    logits = rng.standard_normal((M, V)).astype(np.float32)
    labels = rng.integers(0, V, M).astype(np.int32)
    _both(pick, dict(M=M, V=V), dict(logits=logits, labels=labels), dict(out=logits[np.arange(M), labels]),
          dict(out=(M,)))


@pytest.mark.parametrize("N,M", [(1, 1), (6, 5)])
def test_same_axis_pairs_other_axes_multiply(N, M, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(N)
    x = rng.standard_normal((N, N)).astype(np.float32)
    c = rng.integers(0, N, M).astype(np.int32)
    _both(diag_outer, dict(N=N, M=M), dict(x=x, c=c),
          dict(d2=2 * np.diag(x), full=x[np.arange(N)[:, None], c[None, :]]), dict(d2=(N,), full=(N, M)))


def test_pair_broadcasts_to_the_union_of_axes(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(5)
    A, B, S, K = 7, 11, 5, 3
    x = rng.standard_normal((A, B)).astype(np.float32)
    r = rng.integers(0, A, S).astype(np.int32)
    q = rng.integers(0, B, (S, K)).astype(np.int32)
    _both(broadcast_pair, dict(A=A, B=B, S=S, K=K), dict(x=x, r=r, q=q), dict(y=x[r[:, None], q]),
          dict(y=(S, K)))


@pytest.mark.parametrize("NB,BS,D,L", [(1, 1, 1, 1), (4, 3, 5, 11)])
def test_paired_scatters(NB, BS, D, L, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(L)
    MB = -(-L // BS)
    table = rng.permutation(NB)[:MB].astype(np.int32)        # distinct blocks: unique destinations
    y = rng.standard_normal((L, D)).astype(np.float32)
    cache = rng.standard_normal((NB, BS, D)).astype(np.float32)
    acc = rng.standard_normal((NB, BS, D)).astype(np.float32)
    t = np.arange(L)
    want_cache, want_acc = cache.copy(), acc.copy()
    want_cache[table[t // BS], t % BS] = y
    np.add.at(want_acc, (table[t // BS], t % BS), y)
    got = unpage.run_interp(shapes=dict(L=L, D=D, MB=MB, NB=NB, BS=BS), scalars={},
                            inputs=dict(y=y, table=table, cache=cache, acc=acc))
    np.testing.assert_allclose(got["cache"], want_cache, rtol=1e-6)
    np.testing.assert_allclose(got["acc"], want_acc, rtol=1e-6)
    tc, ta = torch.tensor(cache), torch.tensor(acc)
    unpage(torch.tensor(y), torch.tensor(table), tc, ta)
    np.testing.assert_allclose(tc.numpy(), want_cache, rtol=1e-6)
    np.testing.assert_allclose(ta.numpy(), want_acc, rtol=1e-6)


def test_atomics_refuse_pairs_at_the_line():
    @tessel.kernel
    def counts(ids: T.In[T.i32, ("N",)], hist: T.InOut[T.i32, ("B", "B")]):
        d = T.domain(0, ids.shape[0])
        i = ids[d]
        T.atomic_add(hist, (i, i), 1)
    with pytest.raises(tessel.CompileError) as e:
        counts.kir()
    assert "index jointly" in str(e.value) and "test_joint_access.py" in str(e.value)


def test_pairs_in_another_order_are_refused():
    @tessel.kernel
    def crossed(x: T.In[T.f32, ("A", "B")], p: T.In[T.i32, ("S", "K")], q: T.In[T.i32, ("K", "S")],
                y: T.Out[T.f32, ("S", "K")]):
        s, k = T.domain(0, p.shape[0]), T.domain(0, p.shape[1])
        y[s, k] = x[p[s, k], q[k, s]]
    with pytest.raises(tessel.CompileError) as e:
        crossed.kir()
    assert "in another order" in str(e.value)
