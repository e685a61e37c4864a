"""`//` and `%` on index values are floor division and its remainder on every provider (docs/language.md;
issue 47, found by the DSL fuzzer): Triton's // and % truncate, so the Triton provider spells index
quotients and remainders with floor semantics unless the dividend is provably non-negative and the divisor
positive (pgpu IndexSign.h), where the two agree and construction's address arithmetic keeps Triton's
operators. Checked through the generated Triton under TRITON_INTERPRET=1 against the KIR interpreter and
NumPy's floor semantics, on random nonzero inputs at odd shapes with dividends and divisors of both signs
(all four combinations) and exact multiples."""
import os
import re

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

SHAPES = [1, 2, 7, 13, 67]
OUTS = ["q", "r", "qs", "rs", "qn", "rn", "qm", "rm"]


@tessel.kernel
def index_div(a: T.In[T.i32, ("M",)], b: T.In[T.i32, ("M",)], q: T.Out[T.i32, ("M",)], r: T.Out[T.i32, ("M",)],
              qs: T.Out[T.i32, ("M",)], rs: T.Out[T.i32, ("M",)], qn: T.Out[T.i32, ("M",)],
              rn: T.Out[T.i32, ("M",)], qm: T.Out[T.i32, ("M",)], rm: T.Out[T.i32, ("M",)]):
    M = a.shape[0]
    for m in T.parallel(T.domain(0, M)):
        x = T.cast(a[m], T.index)
        y = T.cast(b[m], T.index)
        q[m] = T.cast(x // y, T.i32)               # loaded operands: any signs
        r[m] = T.cast(x % y, T.i32)
        qs[m] = T.cast((m - 5) // 3, T.i32)        # a shifted coordinate by a positive constant
        rs[m] = T.cast((m - 5) % 3, T.i32)
        qn[m] = T.cast(m // (0 - 3), T.i32)        # a non-negative coordinate by a negative divisor
        rn[m] = T.cast(m % (0 - 3), T.i32)
        qm[m] = T.cast((m + M) // 4, T.i32)        # non-negative operands: Triton's own operators
        rm[m] = T.cast((m + M) % 4, T.i32)


def operands(n, seed):
    rng = np.random.default_rng(seed)
    a = (rng.integers(1, 60, n) * rng.choice([-1, 1], n)).astype(np.int32)
    b = (rng.integers(1, 9, n) * rng.choice([-1, 1], n)).astype(np.int32)
    # every sign combination, and exact multiples of each (quotient exact, remainder 0)
    fixed = [(-7, 2), (7, -2), (-7, -2), (7, 2), (-6, 3), (6, -3), (-6, -3), (6, 3), (-1, 7), (1, -7)]
    for i, (x, y) in enumerate(fixed[:n]):
        a[i], b[i] = x, y
    return a, b


@pytest.mark.parametrize("n", SHAPES)
def test_index_division_floors_through_triton(n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    a, b = operands(n, 4700 + n)
    outs = {k: torch.empty(n, dtype=torch.int32) for k in OUTS}
    index_div(torch.tensor(a), torch.tensor(b), *(outs[k] for k in OUTS))
    ref = index_div.run_interp({"M": n}, inputs={"a": a, "b": b})
    m = np.arange(n)
    want = {"q": np.floor_divide(a, b), "r": np.mod(a, b), "qs": (m - 5) // 3, "rs": (m - 5) % 3,
            "qn": m // -3, "rn": m % -3, "qm": (m + n) // 4, "rm": (m + n) % 4}
    for k in OUTS:
        np.testing.assert_array_equal(np.asarray(ref[k]), want[k], err_msg=f"interp {k}")
        np.testing.assert_array_equal(outs[k].numpy(), want[k], err_msg=f"triton {k}")


def test_only_possibly_negative_operands_take_the_floor_spelling():
    src = index_div.source()
    body = src[src.index("@triton.jit"):]
    # the element loop is emitted twice (whole blocks, then the masked tail): q, r, qs, rs, qn, rn are
    # floor-adjusted in each; qm and rm, and construction's block count (a clamped extent by BLOCK),
    # keep Triton's // and %
    assert body.count("tl.where(((") == 12
    plain = re.findall(r"^\s+v\d+ = v\d+ (//|%) v\d+$", body, re.M)
    assert plain.count("//") == 3 and plain.count("%") == 2, plain
