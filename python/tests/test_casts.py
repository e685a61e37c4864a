"""Float -> integer conversions (`T.cast(x, T.i32)`): truncation toward zero, saturation to the
target's range, NaN to 0 (docs/language.md, Conversions; KIR's kir.cast). The KIR interpreter and
the generated Triton (under TRITON_INTERPRET=1, where NumPy's casts give the most negative integer
for NaN and values out of range, and on a GPU, where PTX's cvt.rzi saturates only at 16 or 32 bits)
must agree at the values where those differ."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

SPECIAL = [np.nan, np.inf, -np.inf, -0.5, 2.5, -2.5, 0.5, -0.0, 1.9, -1.9, 127.5, 128.0, -128.5, -129.0,
           32767.9, 40000.0, -40000.0, 2147483520.0, 3e9, -3e9, 1e19, -1e19, 3.4e38, -3.4e38, 255.0, 7.0]


@tessel.kernel
def to_ints(x: T.In[T.f32, ("N",)], h: T.In[T.f16, ("N",)], a: T.Out[T.i8, ("N",)], b: T.Out[T.i16, ("N",)],
            c: T.Out[T.i32, ("N",)], d: T.Out[T.i64, ("N",)], e: T.Out[T.i32, ("N",)], f: T.Out[T.i8, ("N",)]):
    n = T.domain(0, x.shape[0])
    v = x[n]
    a[n] = T.cast(v, T.i8)
    b[n] = T.cast(v, T.i16)
    c[n] = T.cast(v, T.i32)
    d[n] = T.cast(v, T.i64)
    e[n] = T.cast(h[n], T.i32)
    f[n] = T.cast(h[n], T.i8)


def expected(v, dtype):
    """Truncate toward zero, saturate, NaN -> 0, in Python integers (exact at i64's bounds)."""
    info = np.iinfo(dtype)
    out = []
    for z in np.asarray(v, dtype=np.float64):
        if np.isnan(z):
            out.append(0)
        elif np.isinf(z):
            out.append(info.max if z > 0 else info.min)
        else:
            out.append(min(max(int(z), info.min), info.max))
    return np.array(out, dtype=dtype)


def inputs(n, seed):
    rng = np.random.default_rng(seed)
    x = np.array(SPECIAL, dtype=np.float32)
    x = np.concatenate([x, rng.uniform(-300, 300, size=n).astype(np.float32)])
    with np.errstate(over="ignore"):
        h = x.astype(np.float16)
    return x, h


WANT = {"a": np.int8, "b": np.int16, "c": np.int32, "d": np.int64, "e": np.int32, "f": np.int8}


def check(out, x, h):
    for name, dt in WANT.items():
        src = h.astype(np.float64) if name in "ef" else x.astype(np.float64)
        got = np.asarray(out[name]).astype(dt)
        want = expected(src, dt)
        bad = np.nonzero(got != want)[0]
        assert bad.size == 0, f"{name} ({np.dtype(dt).name}): at x={src[bad][:6]} got {got[bad][:6]} want {want[bad][:6]}"


@pytest.mark.parametrize("n", [0, 1, 13])
def test_float_to_int_on_the_interpreter(n):
    x, h = inputs(n, n)
    out = to_ints.run_interp(shapes={"N": x.size}, inputs={"x": x, "h": h})
    check(out, x, h)


@pytest.mark.parametrize("n", [0, 1, 13])
def test_float_to_int_through_triton_matches(n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x, h = inputs(n, n)
    outs = {k: torch.zeros(x.size, dtype=getattr(torch, np.dtype(dt).name)) for k, dt in WANT.items()}
    to_ints(torch.from_numpy(x), torch.from_numpy(h), *outs.values())
    check({k: v.numpy() for k, v in outs.items()}, x, h)
    ref = to_ints.run_interp(shapes={"N": x.size}, inputs={"x": x, "h": h})
    for k in WANT:
        np.testing.assert_array_equal(outs[k].numpy(), np.asarray(ref[k]).astype(WANT[k]))
