"""T.round: round half to even (torch.round, numpy.rint), the kir.unary kind `round`. Checked at ties (.5 of
even and odd integers, negative ones), signed zeros, NaN, infinities and values past the last
fractional binade, in f32, f16, bf16 and f64, on the KIR interpreter (against numpy.rint) and through
Triton under TRITON_INTERPRET=1 (against the interpreter, bit for bit)."""
import os

import numpy as np
import pytest

import tessel
import tessel.language as T

TIES = [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5, 0.49999997, -0.49999997, 0.50000006, 1.4999999, 2.5000002,
        -0.0, 0.0, -0.3, 0.3, 7.0, -7.0, 1e7 + 0.5, -1e7 - 0.5, 8388607.5, -8388607.5, 8388609.0, 1e20, -1e20,
        np.inf, -np.inf, np.nan, 1022.5, 1023.5, -1023.5, 126.5, 127.5, -127.5, 1e-40, -1e-40]


@tessel.kernel
def rounds(x: T.In[T.f32, ("N",)], h: T.In[T.f16, ("N",)], b: T.In[T.bf16, ("N",)], d: T.In[T.f64, ("N",)],
           rx: T.Out[T.f32, ("N",)], rh: T.Out[T.f16, ("N",)], rb: T.Out[T.bf16, ("N",)], rd: T.Out[T.f64, ("N",)],
           ix: T.Out[T.i32, ("N",)]):
    n = T.domain(0, x.shape[0])
    rx[n] = T.round(x[n])
    rh[n] = T.round(h[n])
    rb[n] = T.round(b[n])
    rd[n] = T.round(d[n])
    ix[n] = T.cast(T.round(x[n] * 0.5), T.i32)        # round before a float -> int cast
    for i in T.parallel(n):                            # scalars too
        rx[i] = T.round(x[i])


def inputs(extra, seed):
    rng = np.random.default_rng(seed)
    base = np.array(TIES, dtype=np.float64)
    rnd = rng.integers(-40, 40, size=extra) + rng.choice([0.5, 0.25, 0.75, 0.5], size=extra)
    v = np.concatenate([base, rnd])
    with np.errstate(over="ignore"):
        return {"x": v.astype(np.float32), "h": v.astype(np.float16), "b": v.astype(np.float32),
                "d": v.copy()}


def bits_equal(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    nan = np.isnan(a)
    return np.array_equal(nan, np.isnan(b)) and np.array_equal(a[~nan], b[~nan]) and \
        np.array_equal(np.signbit(a[~nan]), np.signbit(b[~nan]))


@pytest.mark.parametrize("extra", [0, 1, 29])
def test_round_half_even_on_the_interpreter(extra):
    ins = inputs(extra, extra)
    out = rounds.run_interp(shapes={"N": ins["x"].size}, inputs=ins)
    for o, i in (("rx", "x"), ("rh", "h"), ("rd", "d"), ("rb", "b")):
        src = np.asarray(out[f"{i}.in"], dtype=np.float64)  # what the kernel saw (bf16 rounded)
        assert bits_equal(out[o], np.rint(src)), (o, src, out[o])
    half = (np.asarray(out["x.in"], dtype=np.float32) * np.float32(0.5)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        want = np.where(np.isnan(half), 0, np.clip(np.rint(half), -2.0 ** 31, 2.0 ** 31 - 1))
    np.testing.assert_array_equal(out["ix"], want.astype(np.int64))


@pytest.mark.parametrize("extra", [0, 1, 29])
def test_round_through_triton_matches_the_interpreter(extra, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    torch = pytest.importorskip("torch")
    ins = inputs(extra, extra)
    ref = rounds.run_interp(shapes={"N": ins["x"].size}, inputs=ins)
    args = [torch.from_numpy(np.asarray(ref[f"{n}.in"])) for n in ("x", "h", "b", "d")]
    args[2] = args[2].to(torch.bfloat16)
    n = ins["x"].size
    outs = [torch.zeros(n, dtype=t) for t in (torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int32)]
    rounds(*args, *outs)
    for name, t in zip(("rx", "rh", "rb", "rd", "ix"), outs):
        got = t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()
        assert bits_equal(got, ref[name]) if name != "ix" else np.array_equal(got, ref[name]), (name, got, ref[name])


def test_round_needs_a_float():
    from _misuse import expect_error

    @tessel.kernel
    def k(x: T.In[T.i32, ("N",)], y: T.Out[T.i32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = T.round(x[n])  # <- error
    expect_error(k, "T.round needs a float operand, got i32")


@tessel.kernel
def round_rows(x: T.In[T.f32, ("M", "N")], h: T.In[T.f16, ("M", "N")], y: T.Out[T.f32, ("M", "N")],
               z: T.Out[T.f16, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m, cols] = T.round(x[m, cols])
        z[m, cols] = T.round(h[m, cols])


@pytest.mark.parametrize("shape", [dict(M=1, N=1), dict(M=3, N=7), dict(M=5, N=131)])
def test_round_rows_match_numpy(shape):
    out = round_rows.run_interp(shapes=shape, seed=shape["N"])
    for o, i in (("y", "x"), ("z", "h")):
        scaled = np.asarray(out[f"{i}.in"], dtype=np.float64)
        assert bits_equal(out[o], np.rint(scaled))


@pytest.mark.parametrize("target", ["ptx", "amdgpu"])
def test_round_is_selected_by_the_llvm_providers(target, tmp_path, monkeypatch):
    """kir.unary round is llvm.roundeven (PTX cvt.rni) in the PTX and AMDGPU providers."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    text = round_rows.source(target)
    assert text
    if target == "ptx":
        assert "cvt.rni.f32.f32" in text and "cvt.rni.f16.f16" in text


def test_round_is_rejected_by_cutile_at_the_op(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    with pytest.raises(tessel.CompileError, match="'round' \\(ties to even\\) is not spelled by the cuTile provider") as info:
        round_rows.source("cutile")
    assert info.value.file == __file__ and info.value.col == 22
