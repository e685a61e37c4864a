"""Scatter-max and atomic max/min/xor into rows (issue 42): `T.scatter_reduce(..., combine="max")` and
`T.atomic_rmw("max", ...)` in a T.parallel (a row at a data-dependent destination, or one element)
agree with the KIR interpreter through Triton under TRITON_INTERPRET=1, at odd shapes (N 1, 211, 1031;
D 1, 13, 64; S 1, 7, 131: rows never hit, and many sources per destination), with NaNs of both signs
among the updates (a max or min propagates NaN, as the interpreter does; max_num ignores it).

The atomic is constructed as a pgpu.scatter_reduce (its old value is unused, its order relaxed) and
spelled tl.atomic_max/min/xor; tl.atomic_max/min order f32 as integers by sign, so the spelling makes
every NaN update +NaN (max) or -NaN (min). What is left is the sign of a zero when both zeros meet
(docs/language.md): compared as values here, -0.0 == +0.0.
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel(name="sa_scatter_max")
def scatter_max(x: T.In[T.f32, ("N", "D")], idx: T.In[T.i32, ("N",), T.Range(0, "S")],
                out: T.InOut[T.f32, ("S", "D")]):
    rows, dims = T.domain(0, x.shape[0]), T.domain(0, x.shape[1])
    T.scatter_reduce(out, (T.index_relation(idx, rows), dims), x[rows, dims], combine="max")


@tessel.kernel(name="sa_scatter_min")
def scatter_min(x: T.In[T.f32, ("N", "D")], idx: T.In[T.i32, ("N",), T.Range(0, "S")],
                out: T.InOut[T.f32, ("S", "D")]):
    rows, dims = T.domain(0, x.shape[0]), T.domain(0, x.shape[1])
    T.scatter_reduce(out, (T.index_relation(idx, rows), dims), x[rows, dims], combine="min")


@tessel.kernel(name="sa_scatter_max_num")
def scatter_max_num(x: T.In[T.f32, ("N", "D")], idx: T.In[T.i32, ("N",), T.Range(0, "S")],
                    out: T.InOut[T.f32, ("S", "D")]):
    rows, dims = T.domain(0, x.shape[0]), T.domain(0, x.shape[1])
    T.scatter_reduce(out, (T.index_relation(idx, rows), dims), x[rows, dims],
                     combine=lambda a, b: T.maximum(a, b, propagate_nan=False))


@tessel.kernel(name="sa_atomic_max_rows")
def atomic_max_rows(x: T.In[T.f32, ("N", "D")], idx: T.In[T.i32, ("N",), T.Range(0, "S")],
                    out: T.InOut[T.f32, ("S", "D")]):
    rows, dims = T.domain(0, x.shape[0]), T.domain(0, x.shape[1])
    for i in T.parallel(rows):
        T.atomic_rmw("max", out, (idx[i], dims), x[i, dims])


@tessel.kernel(name="sa_atomic_min_elems")
def atomic_min_elems(x: T.In[T.f32, ("N", "D")], idx: T.In[T.i32, ("N",), T.Range(0, "S")],
                     out: T.InOut[T.f32, ("S", "D")]):
    rows, dims = T.domain(0, x.shape[0]), T.domain(0, x.shape[1])
    for i, d in T.parallel(rows, dims):
        T.atomic_min(out, (idx[i], d), x[i, d])


@tessel.kernel(name="sa_atomic_int_rows")
def atomic_int_rows(k: T.In[T.i32, ("N", "D")], idx: T.In[T.i32, ("N",), T.Range(0, "S")],
                    hi: T.InOut[T.i32, ("S", "D")], bits: T.InOut[T.i32, ("S", "D")]):
    rows, dims = T.domain(0, k.shape[0]), T.domain(0, k.shape[1])
    for i in T.parallel(rows):
        T.atomic_max(hi, (idx[i], dims), k[i, dims])
        T.atomic_rmw("xor", bits, (idx[i], dims), k[i, dims])


FLOAT_KERNELS = [scatter_max, scatter_min, scatter_max_num, atomic_max_rows, atomic_min_elems]
# Every N, D and S of (1, 211, 1031) x (1, 13, 64) x (1, 7, 131) at least twice, chosen so that the
# cases the combine must get right all occur: every source into one row (S = 1), many duplicates
# (N >> S), rows never hit (S > N), one source, and lanes past a block (D = 13, 64).
SHAPES = [(1, 1, 1), (1, 64, 131), (1, 13, 7), (211, 13, 7), (211, 1, 131), (211, 64, 1),
          (1031, 64, 7), (1031, 13, 1), (1031, 1, 131)]


def float_inputs(n, d, s, rng, nans):
    x = rng.standard_normal((n, d)).astype(np.float32)
    if nans and n * d > 2:
        flat = x.reshape(-1)
        picks = rng.choice(flat.size, size=max(1, flat.size // 97), replace=False)
        half = len(picks) // 2
        flat[picks[:half]] = np.float32(np.nan)                                   # +NaN
        flat[picks[half:]] = np.array([0xFFC00000], np.uint32).view(np.float32)[0]  # -NaN
    idx = rng.integers(0, s, size=n).astype(np.int32)
    out = rng.standard_normal((s, d)).astype(np.float32)  # rows never hit keep these
    return {"x": x, "idx": idx, "out": out}


def run_triton(kernel, views):
    import torch
    tensors = [torch.tensor(np.ascontiguousarray(v)) for v in views]
    kernel(*tensors)
    return [t.numpy() for t in tensors]


@pytest.mark.parametrize("kernel", FLOAT_KERNELS, ids=lambda k: k.name)
@pytest.mark.parametrize("n,d,s", SHAPES)
def test_float_combines_match_interpreter(kernel, n, d, s):
    rng = np.random.default_rng(n * 10007 + d * 101 + s)
    inputs = float_inputs(n, d, s, rng, nans=(n, d, s) in {(211, 13, 7), (1031, 64, 131)})
    want = kernel.run_interp(shapes={"N": n, "D": d, "S": s}, inputs=inputs)["out"]
    got = run_triton(kernel, [inputs["x"], inputs["idx"], inputs["out"]])[2]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
    hit = np.zeros(s, bool)
    hit[inputs["idx"]] = True
    np.testing.assert_array_equal(got[~hit], inputs["out"][~hit])  # rows never hit are untouched


@pytest.mark.parametrize("n,d,s", [(1, 1, 1), (211, 13, 7), (1031, 64, 131)])
def test_integer_max_and_xor(n, d, s):
    rng = np.random.default_rng(n + d + s)
    k = rng.integers(-2**31, 2**31 - 1, size=(n, d)).astype(np.int32)
    idx = rng.integers(0, s, size=n).astype(np.int32)
    hi = rng.integers(-2**31, 2**31 - 1, size=(s, d)).astype(np.int32)
    bits = rng.integers(-2**31, 2**31 - 1, size=(s, d)).astype(np.int32)
    want = atomic_int_rows.run_interp(shapes={"N": n, "D": d, "S": s},
                                      inputs={"k": k, "idx": idx, "hi": hi, "bits": bits})
    got = run_triton(atomic_int_rows, [k, idx, hi, bits])
    np.testing.assert_array_equal(got[2], want["hi"])
    np.testing.assert_array_equal(got[3], want["bits"])
    ref_hi, ref_bits = hi.copy(), bits.copy()
    np.maximum.at(ref_hi, idx, k)
    np.bitwise_xor.at(ref_bits, idx, k)
    np.testing.assert_array_equal(got[2], ref_hi)
    np.testing.assert_array_equal(got[3], ref_bits)


def test_spellings():
    src = scatter_max.source("triton")
    assert "tl.atomic_max(" in src and "2143289344" in src and "tl.atomic_add(" not in src
    assert "-4194304" in scatter_min.source("triton")
    assert "tl.atomic_max(" in scatter_max_num.source("triton") and "2143289344" not in scatter_max_num.source("triton")
    assert "pgpu.scatter_reduce" in atomic_max_rows.pgpu() and "pgpu.atomic_rmw" not in atomic_max_rows.pgpu()


def test_used_old_value_is_refused_at_the_line():
    @tessel.kernel(name="sa_ticket")
    def ticket(cnt: T.InOut[T.i32, ("S",)], y: T.Out[T.i32, ("N",)]):
        for i in T.parallel(T.domain(0, y.shape[0])):
            y[i] = T.atomic_add(cnt, (0,), 1)

    with pytest.raises(Exception, match="whose old value is used"):
        ticket.source("triton")


def test_f16_max_is_refused():
    @tessel.kernel(name="sa_f16_max")
    def f16_max(x: T.In[T.f16, ("N",)], idx: T.In[T.i32, ("N",), T.Range(0, "S")], out: T.InOut[T.f16, ("S",)]):
        rows = T.domain(0, x.shape[0])
        T.scatter_reduce(out, (T.index_relation(idx, rows),), x[rows], combine="max")

    with pytest.raises(Exception, match="the combine is not one Triton atomic"):
        f16_max.source("triton")
