"""More suite kernels on the reference interpreter, against independent NumPy references.

Same scheme as test_interp_suite.py: each kernel in examples/kir runs through `tessel run` at odd
shapes (0 and 1 where legal, primes, 129, 1000) and two seeds; the inputs the kernel saw come back
as NAME.in.npy (inout views too) and its outputs as NAME.npy. References are computed in float64
from those inputs.
"""
import itertools

import numpy as np
import pytest

from conftest import SEEDS, run_kernel


def f32(x):
    """A scalar as `tessel run --scalar` will round it (f32), and its exact text."""
    x = np.float32(x)
    return x, repr(float(x))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("scale", [0.5, -1.75])
@pytest.mark.parametrize("n", [0, 1, 7, 129, 1000])
def test_vector_add(tessel_bin, root, tmp_path, n, scale, seed):
    s, text = f32(scale)
    a = run_kernel(tessel_bin, root, tmp_path, "vector_add.mlir", {"N": n}, seed, scalars={"scale": text})
    x, y = a["x.in"].astype(np.float64), a["y.in"].astype(np.float64)
    ref = np.maximum(x + y, 0.0) * np.float64(s)
    assert a["z"].shape == (n,) and a["z"].dtype == np.float32
    np.testing.assert_allclose(a["z"], ref, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("m,n", [(0, 5), (1, 1), (5, 7), (13, 129), (3, 1000), (2, 0)])
def test_rmsnorm(tessel_bin, root, tmp_path, m, n, seed):
    eps, text = f32(1e-5)
    a = run_kernel(tessel_bin, root, tmp_path, "rmsnorm.mlir", {"M": m, "N": n}, seed, scalars={"eps": text})
    x, w = a["x.in"].astype(np.float64), a["w.in"].astype(np.float64)
    assert a["y"].shape == (m, n)
    if n == 0:
        return
    ref = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + np.float64(eps)) * w
    np.testing.assert_allclose(a["y"], ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("m,c", [(0, 3), (1, 1), (4, 1), (7, 13), (37, 129), (5, 1000)])
def test_cross_entropy(tessel_bin, root, tmp_path, m, c, seed):
    a = run_kernel(tessel_bin, root, tmp_path, "cross_entropy.mlir", {"M": m, "C": c}, seed)
    logits, target = a["logits.in"].astype(np.float64), a["target.in"]
    assert target.dtype == np.int32 and ((target >= 0) & (target < c)).all()
    mx = logits.max(axis=1, keepdims=True) if m else np.zeros((0, 1))
    lse = (mx + np.log(np.exp(logits - mx).sum(axis=1, keepdims=True)))[:, 0]
    ref = lse - logits[np.arange(m), target]
    assert a["loss"].shape == (m,) and a["loss"].dtype == np.float32
    np.testing.assert_allclose(a["loss"], ref, rtol=1e-5, atol=1e-5)
    if c == 1:
        assert not a["loss"].any(), "one class: the loss is exactly 0"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("m,n", [(0, 3), (1, 1), (3, 5), (4, 129), (2, 1000), (3, 0)])
def test_cummax(tessel_bin, root, tmp_path, m, n, seed):
    a = run_kernel(tessel_bin, root, tmp_path, "cummax.mlir", {"M": m, "N": n}, seed)
    x = a["x.in"]
    assert a["y"].shape == (m, n)
    np.testing.assert_array_equal(a["y"], np.maximum.accumulate(x, axis=1) if n else x)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("m,k", [(0, 5), (1, 1), (7, 13), (129, 31), (3, 1000), (5, 0)])
def test_gemv(tessel_bin, root, tmp_path, m, k, seed):
    a = run_kernel(tessel_bin, root, tmp_path, "gemv.mlir", {"M": m, "K": k}, seed)
    assert a["a.in"].dtype == np.float16 and a["x.in"].dtype == np.float16
    ref = a["a.in"].astype(np.float64) @ a["x.in"].astype(np.float64)
    assert a["y"].shape == (m,) and a["y"].dtype == np.float32
    np.testing.assert_allclose(a["y"], ref, rtol=1e-5, atol=1e-5 * max(k, 1))
    if k == 0:
        assert not a["y"].any(), "an empty contraction gives zeros"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("b,m,n,k", [(0, 3, 2, 5), (1, 1, 1, 1), (3, 7, 5, 13), (2, 5, 3, 129), (1, 2, 3, 1000),
                                     (2, 3, 4, 0)])
def test_batched_gemm(tessel_bin, root, tmp_path, b, m, n, k, seed):
    a = run_kernel(tessel_bin, root, tmp_path, "batched_gemm.mlir", {"B": b, "M": m, "N": n, "K": k}, seed)
    ref = np.einsum("bmk,bkn->bmn", a["a.in"].astype(np.float64), a["b.in"].astype(np.float64))
    assert a["c"].shape == (b, m, n) and a["c"].dtype == np.float32
    np.testing.assert_allclose(a["c"], ref, rtol=1e-5, atol=1e-5 * max(k, 1))
    if k == 0:
        assert not a["c"].any(), "an empty contraction gives zeros"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("m,n", [(0, 3), (3, 0), (1, 1), (1, 7), (13, 129), (3, 1000)])
def test_transpose(tessel_bin, root, tmp_path, m, n, seed):
    a = run_kernel(tessel_bin, root, tmp_path, "transpose.mlir", {"M": m, "N": n}, seed)
    assert a["out"].shape == (n, m)
    np.testing.assert_array_equal(a["out"], a["x.in"].T)


EMBEDDING_SHAPES = [(1, 0, 3), (1, 1, 1), (5, 37, 7), (3, 4, 0), (129, 13, 129), (17, 1000, 5)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("v,t,d", EMBEDDING_SHAPES)
def test_embedding_gather(tessel_bin, root, tmp_path, v, t, d, seed):
    a = run_kernel(tessel_bin, root, tmp_path, "embedding.mlir:embedding_gather", {"V": v, "T": t, "D": d}, seed)
    ids = a["ids.in"]
    assert ids.dtype == np.int32 and ((ids >= 0) & (ids < v)).all()
    assert a["out"].shape == (t, d)
    np.testing.assert_array_equal(a["out"], a["table.in"][ids])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("v,t,d", EMBEDDING_SHAPES)
def test_embedding_scatter_add(tessel_bin, root, tmp_path, v, t, d, seed):
    a = run_kernel(tessel_bin, root, tmp_path, "embedding.mlir:embedding_scatter_add", {"V": v, "T": t, "D": d},
                   seed)
    ids = a["ids.in"]
    assert ids.dtype == np.int32 and ((ids >= 0) & (ids < v)).all()
    if t > v:
        assert len(np.unique(ids)) < t, "repeated ids are exercised"
    ref = a["grad_table.in"].astype(np.float64)
    np.add.at(ref, ids, a["grad_out.in"].astype(np.float64))
    assert a["grad_table"].shape == (v, d)
    np.testing.assert_allclose(a["grad_table"], ref, rtol=1e-6, atol=1e-5)
    untouched = np.setdiff1d(np.arange(v), ids)
    np.testing.assert_array_equal(a["grad_table"][untouched], a["grad_table.in"][untouched])


def linear_attention_reference(q, k, v):
    """Direct O(T^2) causal linear attention with phi(x) = max(x, 0) + 1, and the final state."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    pq, pk = np.maximum(q, 0) + 1, np.maximum(k, 0) + 1
    t = q.shape[2]
    scores = np.einsum("bhtd,bhsd->bhts", pq, pk) * np.tril(np.ones((t, t)))
    out = np.zeros(v.shape)
    if t:
        out = (scores @ v) / scores.sum(axis=-1, keepdims=True)
    return out, np.einsum("bhtd,bhte->bhde", pk, v), pk.sum(axis=2)


@pytest.mark.parametrize("segments", ["one", "random", "3"])
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("b,h,t,d,e", [(1, 1, 1, 1, 1), (2, 3, 17, 4, 3), (1, 2, 129, 8, 5), (1, 1, 1000, 3, 2),
                                       (1, 2, 5, 7, 0), (0, 2, 3, 2, 2),
                                       (1, 1, 0, 4, 3)])
def test_linear_attention(tessel_bin, root, tmp_path, b, h, t, d, e, seed, segments):
    a = run_kernel(tessel_bin, root, tmp_path, "linear_attention.mlir", {"B": b, "H": h, "T": t, "D": d, "E": e},
                   seed, extra=["--segments", segments])
    o, s, z = linear_attention_reference(a["Q.in"], a["K.in"], a["V.in"])
    assert a["O"].shape == (b, h, t, e) and a["S_OUT"].shape == (b, h, d, e) and a["Z_OUT"].shape == (b, h, d)
    np.testing.assert_allclose(a["O"], o, rtol=1e-4, atol=1e-6)
    # S sums T signed terms, so an entry near 0 carries an absolute error growing with T.
    np.testing.assert_allclose(a["S_OUT"], s, rtol=1e-4, atol=2e-6 * max(t, 1))
    np.testing.assert_allclose(a["Z_OUT"], z, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_linear_attention_segmentations_agree(tessel_bin, root, tmp_path, seed):
    """The author's summarize/combine/apply laws hold: segmentations agree with each other."""
    shapes = {"B": 2, "H": 2, "T": 131, "D": 5, "E": 3}
    runs = [run_kernel(tessel_bin, root, tmp_path, "linear_attention.mlir", shapes, seed, extra=["--segments", seg])
            for seg in ("one", "random", "3", "131")]
    for x, y in itertools.combinations(runs, 2):
        np.testing.assert_array_equal(x["Q.in"], y["Q.in"])
        np.testing.assert_allclose(x["O"], y["O"], rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(x["S_OUT"], y["S_OUT"], rtol=1e-4, atol=2e-6 * shapes["T"])
        np.testing.assert_allclose(x["Z_OUT"], y["Z_OUT"], rtol=1e-4, atol=1e-6)
