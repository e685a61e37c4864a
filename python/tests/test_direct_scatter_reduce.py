"""T.scatter_reduce at scalar and domain coordinates only (issue 41, corpus 313): a point's row added at its
loaded voxel id, `T.scatter_reduce(sums, (v, chans), feats[p, chans], combine="add")` with `v = voxel_id[p]`
in a T.parallel. KIR's kir.scatter_reduce is the indexed form (it wants an index-tensor coordinate); the
frontend writes this one as the relaxed kir.atomic_rmw whose old value is unused, the same write
(docs/language.md, Scatter-reduce and atomics). Checked against the KIR interpreter and NumPy through
Triton under TRITON_INTERPRET=1 at odd shapes (0 and 1 points, primes, duplicates, dropped points, rows
never hit); a combine that is no single atomic, and valid=, are refused with what to write instead.
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel(name="dsr_row_add")
def row_add(feats: T.In[T.f32, ("NP", "C")], vid: T.In[T.i32, ("NP",)], sums: T.InOut[T.f32, ("V", "C")]):
    chans = T.domain(0, feats.shape[1])
    for p in T.parallel(T.domain(0, feats.shape[0])):
        v = vid[p]
        if v >= 0:
            T.scatter_reduce(sums, (v, chans), feats[p, chans], combine="add")


@tessel.kernel(name="dsr_elem_max")
def elem_max(x: T.In[T.i32, ("N",)], idx: T.In[T.i32, ("N",), T.Range(0, "S")], best: T.InOut[T.i32, ("S",)]):
    for i in T.parallel(T.domain(0, x.shape[0])):
        T.scatter_reduce(best, (idx[i],), x[i], combine="max")


@tessel.kernel(name="dsr_indexed")
def indexed(x: T.In[T.f32, ("N",)], idx: T.In[T.i32, ("N",), T.Range(0, "S")], out: T.InOut[T.f32, ("S",)]):
    rows = T.domain(0, x.shape[0])
    T.scatter_reduce(out, (T.index_relation(idx, rows),), x[rows], combine="add")


def _torch_run(kernel, views):
    import torch
    tensors = [torch.tensor(np.ascontiguousarray(v)) for v in views]
    kernel(*tensors)
    return [t.numpy() for t in tensors]


def test_direct_coordinates_become_one_relaxed_atomic():
    kir = row_add.kir()
    assert "kir.atomic_rmw add" in kir and "order relaxed" in kir and "kir.scatter_reduce" not in kir
    assert "kir.atomic_rmw max" in elem_max.kir()
    # Must not fire: an index-tensor coordinate keeps the indexed kir.scatter_reduce.
    assert "kir.scatter_reduce" in indexed.kir() and "kir.atomic_rmw" not in indexed.kir()
    assert "tl.atomic_add(" in row_add.source("triton")


# NP, C, V: no points, one point into one voxel, primes with many duplicates, rows never hit, C past a block.
@pytest.mark.parametrize("np_,c,v", [(0, 3, 5), (1, 1, 1), (37, 3, 11), (131, 5, 97), (263, 67, 7)])
def test_row_add_matches_interpreter_and_numpy(np_, c, v):
    rng = np.random.default_rng(np_ * 1009 + c * 31 + v)
    feats = rng.standard_normal((np_, c)).astype(np.float32)
    vid = rng.integers(0, v, np_).astype(np.int32)
    vid[rng.random(np_) < 0.2] = -1                       # dropped points
    sums = rng.standard_normal((v, c)).astype(np.float32)  # rows never hit keep these
    want = row_add.run_interp(shapes={"NP": np_, "C": c, "V": v}, inputs={"feats": feats, "vid": vid, "sums": sums})
    got = _torch_run(row_add, [feats, vid, sums])[2]
    ref = sums.astype(np.float64)
    keep = vid >= 0
    np.add.at(ref, vid[keep], feats[keep].astype(np.float64))
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(want["sums"], ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n,s", [(1, 1), (211, 7), (1031, 131)])
def test_elem_max_matches_interpreter_and_numpy(n, s):
    rng = np.random.default_rng(n + s)
    x = rng.integers(-2**31, 2**31 - 1, n).astype(np.int32)
    idx = rng.integers(0, s, n).astype(np.int32)
    best = rng.integers(-2**31, 2**31 - 1, s).astype(np.int32)
    want = elem_max.run_interp(shapes={"N": n, "S": s}, inputs={"x": x, "idx": idx, "best": best})["best"]
    got = _torch_run(elem_max, [x, idx, best])[2]
    ref = best.copy()
    np.maximum.at(ref, idx, x)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(want, ref)


def test_no_single_atomic_is_refused_with_what_to_write():
    with pytest.raises(Exception, match=r"one relaxed atomic, so combine= is one of .*got mul.*read and store"):
        @tessel.kernel(name="dsr_mul")
        def mul(x: T.In[T.f32, ("N",)], idx: T.In[T.i32, ("N",), T.Range(0, "S")], out: T.InOut[T.f32, ("S",)]):
            for i in T.parallel(T.domain(0, x.shape[0])):
                T.scatter_reduce(out, (idx[i],), x[i], combine="mul")
        mul.kir()
    with pytest.raises(Exception, match=r"valid= masks index-tensor coordinates.*`if`"):
        @tessel.kernel(name="dsr_valid")
        def valid(x: T.In[T.f32, ("N", "C")], idx: T.In[T.i32, ("N",), T.Range(0, "S")],
                  out: T.InOut[T.f32, ("S", "C")]):
            chans = T.domain(0, x.shape[1])
            for i in T.parallel(T.domain(0, x.shape[0])):
                T.scatter_reduce(out, (idx[i], chans), x[i, chans], combine="add", valid=x[i, chans] > 0.0)
        valid.kir()
