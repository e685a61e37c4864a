"""Slices in contractions: paired axes combine as binary operands do (docs/language.md "Slices combine
by position"): a runtime-offset slice `ks[k0:k0 + 16]` pairs with `T.domain(0, 16)`; axes that do not
pair are an error in the author's terms (their expression, both axes' domains and lengths, the fix),
never an SSA id."""
import numpy as np
import pytest

import tessel
import tessel.language as T
from _misuse import expect_error

BLK = 16  # tl.dot needs operand sides of at least 16


@tessel.kernel
def bsr_slices(crow: T.In[T.i32, ("MB1",)], col: T.In[T.i32, ("NNZB",)], values: T.In[T.f32, ("NNZB", 16, 16)],
               b: T.In[T.f32, ("K", "N")], out: T.Out[T.f32, ("M", "N")]):
    """Block-sparse times dense, reading B's rows of a block as a slice of its row domain."""
    MB = crow.shape[0] - 1
    M, N = out.shape
    blk = T.domain(0, 16)
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, b.shape[0])
    for mb in T.parallel(T.domain(0, MB)):
        acc = T.zeros((blk, cols), T.f32)
        for e in T.domain(0, values.shape[0])[crow[mb]:crow[mb + 1]]:
            k0 = T.cast(col[e], T.index) * 16
            acc = acc + T.matmul(values[e, blk, blk], b[ks[k0:k0 + 16], cols], acc_dtype=T.f32)
        out[rows[mb * 16:mb * 16 + 16], cols] = acc


def _bsr_inputs(MB, KB, N, nnzb, seed):
    rng = np.random.default_rng(seed)
    flat = np.sort(rng.choice(MB * KB, size=nnzb, replace=False))
    crow = np.zeros(MB + 1, np.int32)
    np.add.at(crow, flat // KB + 1, 1)
    return {"crow": np.cumsum(crow).astype(np.int32), "col": (flat % KB).astype(np.int32),
            "values": rng.standard_normal((nnzb, BLK, BLK)).astype(np.float32),
            "b": rng.standard_normal((KB * BLK, N)).astype(np.float32)}


def _bsr_reference(crow, col, values, b):
    MB = len(crow) - 1
    a = np.zeros((MB * BLK, b.shape[0]))
    for mb in range(MB):
        for e in range(crow[mb], crow[mb + 1]):
            a[mb * BLK:(mb + 1) * BLK, col[e] * BLK:(col[e] + 1) * BLK] = values[e]
    return a @ b.astype(np.float64)


# (MB, KB, N, NNZB): one block, odd column counts, a block row with no blocks (NNZB < MB), a full row.
BSR_SHAPES = [(1, 1, 1, 1), (3, 2, 7, 3), (5, 3, 13, 6), (2, 3, 17, 1), (1, 2, 5, 2)]


def _bsr_shapes(MB, KB, N, nnzb):
    return {"MB1": MB + 1, "NNZB": nnzb, "K": KB * BLK, "N": N, "M": MB * BLK}


@pytest.mark.parametrize("shape", BSR_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_runtime_slice_pairs_with_a_block_domain_on_the_interpreter(shape):
    ins = _bsr_inputs(*shape, seed=sum(shape))
    out = bsr_slices.run_interp(shapes=_bsr_shapes(*shape), inputs=ins)
    np.testing.assert_allclose(out["out"], _bsr_reference(**ins), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", BSR_SHAPES[:4], ids=lambda s: "x".join(map(str, s)))
def test_runtime_slice_pairs_with_a_block_domain_through_triton(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    torch = pytest.importorskip("torch")
    ins = _bsr_inputs(*shape, seed=sum(shape))
    out = torch.zeros((shape[0] * BLK, shape[2]), dtype=torch.float32)
    bsr_slices(*(torch.from_numpy(ins[n]) for n in ("crow", "col", "values", "b")), out)
    np.testing.assert_allclose(out.numpy(), _bsr_reference(**ins), rtol=1e-4, atol=1e-4)


@tessel.kernel
def dot_halves(x: T.In[T.f32, ("R", "D")], y: T.Out[T.f32, ("R",)]):
    """Each row's second half dotted with its first: a slice against a domain of the same length."""
    R, D = x.shape
    H = D // 2
    dims = T.domain(0, D)
    for r in T.parallel(T.domain(0, R)):
        y[r] = T.dot(x[r, dims[H:2 * H]], x[r, T.domain(0, H)])


@pytest.mark.parametrize("d", [0, 1, 2, 7, 13, 34])
def test_slice_pairs_with_a_domain_of_its_length_in_a_dot(d):
    out = dot_halves.run_interp(shapes={"R": 3, "D": d}, seed=d)
    x, h = out["x.in"].astype(np.float64), d // 2
    np.testing.assert_allclose(out["y"], (x[:, h:2 * h] * x[:, :h]).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_contraction_takes_the_slice_operand_as_is():
    """Pairing by position adds no op: the contraction reads the slice's load directly."""
    text = bsr_slices.kir()
    assert text.count("kir.contract") == 1 and "kir.subregion" in text, text


def test_misuse_i32_slice_bounds_in_a_contraction():
    """Corpus 140's first spelling: bounds computed in i32 are opaque, so the lengths do not compare;
    the error names the expression, both axes as written, and the spellings that work."""
    @tessel.kernel
    def k(col: T.In[T.i32, ("NNZB",)], values: T.In[T.f16, ("NNZB", 64, 64)], b: T.In[T.f16, ("K", "N")],
          out: T.Out[T.f32, ("NNZB", 64, "N")]):
        blk, cols, ks = T.domain(0, 64), T.domain(0, b.shape[1]), T.domain(0, b.shape[0])
        for e in T.parallel(T.domain(0, col.shape[0])):
            k0 = col[e] * 64
            out[e, blk, cols] = T.matmul(values[e, blk, blk], b[ks[k0:k0 + 64], cols])  # <- error
    err = expect_error(k, "`T.matmul(values[e, blk, blk], b[ks[k0:k0 + 64], cols])`: T.contract: reduce pair (1, 0) "
                          "has mismatched extents: lhs axis 1 is over [0, 64), rhs axis 0 over "
                          "[0, K)[col[e] * 64:k0 + 64]; [0, 64) has 64 members")
    assert "k0 = T.cast(col[e], T.index) * 64" in err.message, err
    assert "T.indices(blk)" in err.message, err
    assert "%" not in err.message and "@" not in err.message, err


def test_misuse_slice_of_another_length_names_the_loop_index():
    @tessel.kernel
    def k(a: T.In[T.f32, (64, 64)], b: T.In[T.f32, ("K", "N")], out: T.Out[T.f32, (64, "N")]):
        blk, ks, cols = T.domain(0, 64), T.domain(0, b.shape[0]), T.domain(0, b.shape[1])
        acc = T.zeros((blk, cols), T.f32)
        for kb in T.domain(0, b.shape[0] // 64):
            k0 = kb * 64
            acc = acc + T.matmul(a[blk, blk], b[ks[k0:k0 + 32], cols])  # <- error
        out[blk, cols] = acc
    err = expect_error(k, "rhs axis 0 over [0, K)[64*kb:64*kb + 32]; [0, 64) has 64 members, "
                          "[0, K)[64*kb:64*kb + 32] has 32 members")
    assert "%" not in err.message and "@" not in err.message, err


def test_misuse_batch_pair_of_different_domains():
    @tessel.kernel
    def k(a: T.In[T.f32, ("B", "M", "K")], b: T.In[T.f32, ("C", "K", "N")], c: T.Out[T.f32, ("B", "M", "N")]):
        B, M, K = a.shape
        C, _, N = b.shape
        db, dc, dm, dk, dn = T.domain(0, B), T.domain(0, C), T.domain(0, M), T.domain(0, K), T.domain(0, N)
        c[db, dm, dn] = T.contract(a[db, dm, dk], b[dc, dk, dn], reduce=((2, 1),), batch=((0, 0),))  # <- error
    expect_error(k, "T.contract: batch pair (0, 0) has mismatched extents: lhs axis 0 is over [0, B), rhs axis 0 "
                    "over [0, C); [0, B) has B members, [0, C) has C members")


def test_misuse_messages_name_parallel_indices_and_i32_bounds():
    """Bounds over a T.parallel index and i32 arithmetic read as written (`b`, `n[0] * 2`), never `%N@M`."""
    @tessel.kernel
    def k(n: T.In[T.i32, (1,)], x: T.In[T.f32, ("NI",)], y: T.Out[T.f32, ("NB", "NI")]):
        NI = x.shape[0]
        items = T.domain(0, NI)
        for b in T.parallel(T.domain(0, y.shape[0])):
            lo = n[0] * 2
            y[b, items] = x[items[b:NI]] + x[items[lo:NI]]  # <- error
    err = expect_error(k, "one operand is over ([0, NI)[b:NI]) and another over ([0, NI)[n[0] * 2:NI])")
    assert "%" not in err.message and "@" not in err.message, err
