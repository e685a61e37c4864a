"""Integer `//` and `%` by zero give 0 (KIRDialect.md: floor division and its remainder; the interpreter's
rule): the Triton provider divides by 1 where a divisor that is not provably nonzero is 0 and selects 0
there (OpSpelling.cpp, provablyNonZero). Triton's own `//` and `%` are undefined by zero (on the GPU the
PTX division gives garbage; the CPU interpreter's NumPy happens to give 0, so the spelling is checked too).
A constant divisor keeps the plain spelling.

The kernel divides by a runtime tensor holding zeros, negatives and positives at odd lengths (0, 1, primes,
non-multiples of the block) through Triton under TRITON_INTERPRET=1 and the KIR interpreter, each against
NumPy."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel(name="zd_by_tensor")
def by_tensor(x: T.In[T.i32, ("N",)], d: T.In[T.i32, ("N",)], q: T.Out[T.i32, ("N",)], r: T.Out[T.i32, ("N",)]):
    n = T.domain(0, x.shape[0])
    q[n] = x[n] // d[n]
    r[n] = x[n] % d[n]


@tessel.kernel(name="zd_by_constant")
def by_constant(x: T.In[T.i32, ("N",)], q: T.Out[T.i32, ("N",)]):
    n = T.domain(0, x.shape[0])
    q[n] = x[n] // 7


def reference(x, d):
    """Floor quotient and remainder in int64, 0 where the divisor is 0."""
    x, d = x.astype(np.int64), d.astype(np.int64)
    safe = np.where(d == 0, 1, d)
    return np.where(d == 0, 0, x // safe), np.where(d == 0, 0, x % safe)


def draw(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-50, 50, size=n).astype(np.int32)
    d = rng.integers(-4, 5, size=n).astype(np.int32)  # about one in nine a zero
    if n:
        d[0] = 0
    return x, d


def test_a_divisor_that_may_be_zero_is_guarded():
    src = by_tensor.source()
    assert src.count(" == 0, tl.full([], 1, tl.int32), ") >= 2, src  # divide by 1 there, for // and %
    assert src.count(" == 0, tl.full([], 0, tl.int32), ") >= 2, src  # and select 0


def test_a_constant_divisor_keeps_the_plain_spelling():
    src = by_constant.source()
    assert " == 0, tl.full([], 1, tl.int32)" not in src, src


@pytest.mark.parametrize("n", [0, 1, 37, 131])
def test_zero_divisors_give_zero_through_triton_and_the_interpreter(n):
    torch = pytest.importorskip("torch")
    x, d = draw(n, seed=n)
    want_q, want_r = reference(x, d)
    got = by_tensor.run_interp({"N": n}, inputs={"x": x, "d": d})
    np.testing.assert_array_equal(got["q"], want_q, err_msg="KIR interpreter: //")
    np.testing.assert_array_equal(got["r"], want_r, err_msg="KIR interpreter: %")
    q = torch.full((n,), 99, dtype=torch.int32)
    r = torch.full((n,), 99, dtype=torch.int32)
    by_tensor(torch.from_numpy(x), torch.from_numpy(d), q, r)
    np.testing.assert_array_equal(q.numpy(), want_q, err_msg="Triton: //")
    np.testing.assert_array_equal(r.numpy(), want_r, err_msg="Triton: %")
