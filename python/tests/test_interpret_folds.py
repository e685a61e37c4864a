"""interpret_folds.py: the slice-at-a-time reduce and scan folds give the Triton interpreter's own results, bit
for bit, on random inputs (a (value, index) argmax with a tie-break, a record scan, a float fold whose order
shows in the last bits, odd extents, a whole-block reduce)."""
import os

os.environ["TRITON_INTERPRET"] = "1"

import numpy as np  # noqa: E402
import pytest  # noqa: E402

torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")
import triton.language as tl  # noqa: E402
from triton.runtime import interpreter  # noqa: E402

import interpret_folds  # noqa: E402


@triton.jit
def _argmax_combine(v1, i1, v2, i2):
    take = (v2 > v1) | ((v2 == v1) & (i2 < i1))
    return tl.where(take, v2, v1), tl.where(take, i2, i1)


@triton.jit
def _larger(a, b):
    return tl.where(b > a, b, a)


@triton.jit
def _affine_combine(a1, b1, a2, b2):
    # x -> a*x + b composed: a float fold whose rounding depends on the order of the steps
    return a1 * a2, b1 * a2 + b2


@triton.jit
def _folds(x_ptr, vals_ptr, idx_ptr, all_ptr, sa_ptr, sb_ptr, R: tl.constexpr, C: tl.constexpr,
           BR: tl.constexpr, BC: tl.constexpr, AXIS: tl.constexpr):
    r = tl.arange(0, BR)[:, None]
    c = tl.arange(0, BC)[None, :]
    mask = (r < R) & (c < C)
    x = tl.load(x_ptr + r * C + c, mask=mask, other=-1.0)
    i = (r * C + c).to(tl.int32)
    v, j = tl.reduce((x, i), AXIS, _argmax_combine)
    lane = tl.arange(0, BR if AXIS == 1 else BC)
    tl.store(vals_ptr + lane, v)
    tl.store(idx_ptr + lane, j)
    whole = tl.reduce(x, None, _larger)
    tl.store(all_ptr, whole)
    a, b = tl.associative_scan((x * 0.5 + 0.75, x), AXIS, _affine_combine)
    tl.store(sa_ptr + r * BC + c, a)
    tl.store(sb_ptr + r * BC + c, b)


def _run(x, R, C, BR, BC, axis):
    n = BR if axis == 1 else BC
    outs = [torch.empty(n), torch.empty(n, dtype=torch.int32), torch.empty(1), torch.empty(BR * BC),
            torch.empty(BR * BC)]
    _folds[(1,)](torch.from_numpy(x), *outs, R=R, C=C, BR=BR, BC=BC, AXIS=axis)
    return [o.numpy().copy() for o in outs]


@pytest.mark.parametrize("R,C,BR,BC", [(1, 1, 1, 1), (3, 7, 4, 8), (5, 13, 8, 16), (2, 33, 2, 64)])
@pytest.mark.parametrize("axis", [0, 1])
def test_slices_fold_as_the_interpreter_does(R, C, BR, BC, axis):
    rng = np.random.default_rng(R * 100 + C + axis)
    x = rng.standard_normal(R * C).astype(np.float32)
    x[rng.integers(0, R * C, size=max(1, R * C // 3))] = x[0]  # ties, so the index tie-break decides
    interpret_folds.install()
    fast = _run(x, R, C, BR, BC, axis)
    saved = interpreter.ReduceOps.generic_reduce, interpreter.ScanOps.generic_scan
    try:
        interpreter.ReduceOps.generic_reduce = interpret_folds.ORIGINAL["reduce"]
        interpreter.ScanOps.generic_scan = interpret_folds.ORIGINAL["scan"]
        slow = _run(x, R, C, BR, BC, axis)
    finally:
        interpreter.ReduceOps.generic_reduce, interpreter.ScanOps.generic_scan = saved
    for f, s in zip(fast, slow):
        assert f.dtype == s.dtype and f.tobytes() == s.tobytes()

