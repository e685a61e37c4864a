"""T.min / T.max over index values (positions, index-cast data) and over i32 / i64 data give the same
results through the generated Triton (TRITON_INTERPRET=1) as the KIR interpreter and NumPy (issue 47; the
corpus's 239_speculative_accept): index lanes are 32-bit in every generated kernel, so the identity of a
min / max over index values is the int32 limit (python/tessel/_types.py int_min / int_max; the providers
spell an i64-limit index constant as the int32 one), never INT64_MAX in int32 lanes. Odd shapes, an empty
row (N = 0: every reduction is its identity), rows with no hit (the where's fallback wins)."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

I32_MAX, I32_MIN = 2**31 - 1, -2**31
I64_MAX, I64_MIN = 2**63 - 1, -2**63
OUTS = ["first", "last", "lo", "hi", "lo_all", "hi_all", "lo64", "hi64"]


@tessel.kernel
def index_extremes(x: T.In[T.i32, ("B", "N")], y: T.In[T.i64, ("B", "N")], t: T.In[T.i32, ("B",)],
                   first: T.Out[T.i32, ("B",)], last: T.Out[T.i32, ("B",)], lo: T.Out[T.i32, ("B",)],
                   hi: T.Out[T.i32, ("B",)], lo_all: T.Out[T.i32, ("B",)], hi_all: T.Out[T.i32, ("B",)],
                   lo64: T.Out[T.i64, ("B",)], hi64: T.Out[T.i64, ("B",)]):
    B, N = x.shape
    ns = T.domain(0, N)
    for b in T.parallel(T.domain(0, B)):
        hit = x[b, ns] > t[b]
        pos = T.indices(ns)
        first[b] = T.cast(T.min(T.where(hit, pos, N)), T.i32)       # first hit, N if none
        last[b] = T.cast(T.max(T.where(hit, pos, -1)), T.i32)       # last hit, -1 if none
        xi = T.cast(x[b, ns], T.index)
        lo[b] = T.cast(T.min(T.where(hit, xi, 1000)), T.i32)        # index-cast data
        hi[b] = T.cast(T.max(T.where(hit, xi, -1000)), T.i32)
        lo_all[b] = T.cast(T.min(xi), T.i32)                        # the identity itself when N = 0
        hi_all[b] = T.cast(T.max(xi), T.i32)
        lo64[b] = T.min(y[b, ns])                                   # i64 data keeps the i64 limits
        hi64[b] = T.max(y[b, ns])


def expected(x, y, t):
    B, N = x.shape
    hit = x > t[:, None]
    pos = np.broadcast_to(np.arange(N), (B, N))
    lo32 = lambda a: a.min(axis=1) if N else np.full(B, I32_MAX)  # noqa: E731  (empty: the identity)
    hi32 = lambda a: a.max(axis=1) if N else np.full(B, I32_MIN)  # noqa: E731
    return {"first": lo32(np.where(hit, pos, N)), "last": hi32(np.where(hit, pos, -1)),
            "lo": lo32(np.where(hit, x, 1000)), "hi": hi32(np.where(hit, x, -1000)),
            "lo_all": lo32(x), "hi_all": hi32(x),
            "lo64": y.min(axis=1) if N else np.full(B, I64_MAX), "hi64": y.max(axis=1) if N else np.full(B, I64_MIN)}


@pytest.mark.parametrize("B,N", [(1, 1), (3, 0), (2, 7), (5, 131), (3, 601)])
def test_index_min_max_through_triton(B, N, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(4700 + B * 1000 + N)
    x = rng.integers(-500, 500, (B, N)).astype(np.int32)
    y = (rng.integers(-2**40, 2**40, (B, N)) * 4096).astype(np.int64)   # beyond 32 bits
    t = rng.integers(300, 520, B).astype(np.int32)                      # some rows have no hit
    t[0] = 600
    outs = {k: torch.empty(B, dtype=torch.int64 if k.endswith("64") else torch.int32) for k in OUTS}
    index_extremes(torch.tensor(x), torch.tensor(y), torch.tensor(t), *(outs[k] for k in OUTS))
    ref = index_extremes.run_interp({"B": B, "N": N}, inputs={"x": x, "y": y, "t": t})
    want = expected(x, y, t)
    for k in OUTS:
        np.testing.assert_array_equal(np.asarray(ref[k]), want[k], err_msg=f"interp {k}")
        np.testing.assert_array_equal(outs[k].numpy(), want[k], err_msg=f"triton {k}")


def test_index_identities_are_int32_limits():
    src = index_extremes.source()
    body = src[src.index("@triton.jit"):]
    assert "9223372036854775807" not in body.replace("tl.full([], 9223372036854775807, tl.int64)", "")
    assert "2147483647" in body and "-2147483648" in body
