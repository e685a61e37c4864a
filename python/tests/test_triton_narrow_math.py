"""Triton-provider defects found by the DSL fuzzer (test/fuzz/dsl_fuzz.py), each against the KIR
interpreter and NumPy through the generated Triton under TRITON_INTERPRET=1, on random nonzero inputs at
odd shapes:

- T.exp/exp2/log/log2/sin/cos/floor/ceil on f16 raised Triton's "Expected dtype ['fp32', 'fp64'] but got
  fp16" (tl.* math takes fp32/fp64 only, on a GPU too): they compute in f32 and round once;
- integer `//` and `%` truncated (Triton's // and % are C's): -1 // 7 gave 0, -1 % 7 gave -1; tessel's are
  floor division and its remainder (docs/language.md), -1 and 6;
- `~mask` was `mask ^ 1`, an int32, which tl.store rejects as a mask;
- a nonzero bf16 constant (T.bf16(1.5)) raised "'InterpreterBuilder' object has no attribute 'get_bf16'"
  under TRITON_INTERPRET=1."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

SHAPES = [1, 2, 7, 13, 67]


@tessel.kernel
def f16_math(x: T.In[T.f16, ("N",)], e: T.Out[T.f16, ("N",)], l: T.Out[T.f16, ("N",)],
             s: T.Out[T.f16, ("N",)], r: T.Out[T.f16, ("N",)]):
    N = x.shape[0]
    d = T.domain(0, N)
    v = x[d]
    e[d] = T.exp(v) + T.exp2(v)
    l[d] = T.log(T.abs(v)) + T.log2(T.abs(v))
    s[d] = T.sin(v) * T.cos(v)
    r[d] = T.floor(v) - T.ceil(v * 3.0)


@pytest.mark.parametrize("n", SHAPES)
def test_f16_math_computes_in_f32_and_rounds_once(n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(n)
    x = (rng.uniform(0.1, 3.0, n) * rng.choice([-1.0, 1.0], n)).astype(np.float16)
    outs = {k: torch.empty(n, dtype=torch.float16) for k in "elsr"}
    f16_math(torch.tensor(x), outs["e"], outs["l"], outs["s"], outs["r"])
    ref = f16_math.run_interp({"N": n}, inputs={"x": x})
    x32 = x.astype(np.float32)
    f16 = np.float16
    want = {  # each T.* in f32, rounded to f16; the f16 additions round again
        "e": (np.exp(x32).astype(f16).astype(np.float32) + np.exp2(x32).astype(f16)).astype(f16),
        "l": (np.log(np.abs(x32)).astype(f16).astype(np.float32) + np.log2(np.abs(x32)).astype(f16)).astype(f16),
        "s": (np.sin(x32).astype(f16).astype(np.float32) * np.cos(x32).astype(f16)).astype(f16),
        "r": (np.floor(x32) - np.ceil((x32 * 3).astype(f16).astype(np.float32))).astype(f16),
    }
    for k in "elsr":
        got = outs[k].numpy()
        # one f16 ulp: the f32 library result may round to either neighbour of a value near a tie
        np.testing.assert_allclose(got, want[k], rtol=2 ** -10, atol=2 ** -14, err_msg=k)
        np.testing.assert_allclose(np.asarray(ref[k], dtype=np.float16), want[k], rtol=2 ** -10, atol=2 ** -14,
                                   err_msg=k)
    np.testing.assert_array_equal(outs["r"].numpy(), want["r"])  # floor/ceil are exact


def int_div_kernel(dtype):
    @tessel.kernel
    def int_div(a: T.In[dtype, ("N",)], b: T.In[dtype, ("N",)], q: T.Out[dtype, ("N",)],
                r: T.Out[dtype, ("N",)], q7: T.Out[dtype, ("N",)], r7: T.Out[dtype, ("N",)]):
        N = a.shape[0]
        d = T.domain(0, N)
        q[d] = a[d] // b[d]
        r[d] = a[d] % b[d]
        q7[d] = a[d] // 7
        r7[d] = a[d] % 7
    return int_div


@pytest.mark.parametrize("name", ["i8", "i32"])
@pytest.mark.parametrize("n", SHAPES)
def test_integer_division_floors(name, n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    npdt = {"i8": np.int8, "i32": np.int32}[name]
    k = int_div_kernel({"i8": T.i8, "i32": T.i32}[name])
    rng = np.random.default_rng(100 + n)
    a = (rng.integers(1, 100, n) * rng.choice([-1, 1], n)).astype(npdt)
    b = (rng.integers(1, 9, n) * rng.choice([-1, 1], n)).astype(npdt)
    a[0] = -1  # -1 // 7 == -1 and -1 % 7 == 6 (floor), not 0 and -1 (truncation)
    outs = [torch.empty(n, dtype=getattr(torch, {"i8": "int8", "i32": "int32"}[name])) for _ in range(4)]
    k(torch.tensor(a), torch.tensor(b), *outs)
    want = [np.floor_divide(a, b), np.mod(a, b), np.floor_divide(a, npdt(7)), np.mod(a, npdt(7))]
    ref = k.run_interp({"N": n}, inputs={"a": a, "b": b})
    for t, w, name_ in zip(outs, want, ["q", "r", "q7", "r7"]):
        np.testing.assert_array_equal(t.numpy(), w, err_msg=name_)
        np.testing.assert_array_equal(ref[name_], w, err_msg=name_)
    assert outs[2][0].item() == -1 and outs[3][0].item() == 6


@tessel.kernel
def bf16_constant(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
    N = x.shape[0]
    d = T.domain(0, N)
    y[d] = x[d] * T.cast(T.bf16(1.5), T.f32) + T.cast(T.bf16(0.0), T.f32)


@pytest.mark.parametrize("n", [1, 13])
def test_a_bf16_constant_runs_under_the_interpreter(n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = np.random.default_rng(n).uniform(0.5, 2.0, n).astype(np.float32)
    y = torch.empty(n)
    bf16_constant(torch.tensor(x), y)
    np.testing.assert_array_equal(y.numpy(), x * np.float32(1.5))
    src = bf16_constant.source()
    assert "tl.cast(tl.full([], 1.500000e+00, tl.float32), tl.bfloat16)" in src
    assert "tl.full([], 0.000000e+00, tl.bfloat16)" in src  # a zero is unchanged (get_null_value)


@tessel.kernel
def not_mask(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")], b: T.Out[T.bool_, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        y[m, cols] = 0.0
        T.store(y, (m, cols), row * 2.0, valid=~(row > 0.0) & (row > -1.0))
        b[m, cols] = ~(row > 0.5)


@pytest.mark.parametrize("m,n", [(1, 1), (3, 7), (13, 67)])
def test_logical_not_is_a_boolean_mask(m, n, tmp_path, monkeypatch):
    """`~mask` was spelled `mask ^ 1`, an int32 in Triton, which tl.store rejects as a mask ("Mask must
    have boolean scalar type", on a GPU too)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = np.random.default_rng(m + n).uniform(-2, 2, (m, n)).astype(np.float32)
    y, b = torch.empty(m, n), torch.empty(m, n, dtype=torch.bool)
    not_mask(torch.tensor(x), y, b)
    want = np.where((x <= 0) & (x > -1), x * 2, 0).astype(np.float32)
    np.testing.assert_array_equal(y.numpy(), want)
    np.testing.assert_array_equal(b.numpy(), ~(x > 0.5))
    ref = not_mask.run_interp({"M": m, "N": n}, inputs={"x": x})
    np.testing.assert_array_equal(ref["y"], want)
