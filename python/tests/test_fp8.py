"""FP8 element types (`T.f8e4m3` = torch.float8_e4m3fn, `T.f8e5m2` = torch.float8_e5m2): conversions
bit-exact against torch's on every f16 and bf16 bit pattern and a large random and edge sample of
f32 (and f64, which converts through f32 as torch does), arithmetic computed in f32 and rounded once,
constants, bitcasts, on the KIR interpreter, the pgpu interpreter (`tessel run --stage pgpu`) and the
generated Triton under TRITON_INTERPRET=1 (docs/language.md, Element types and Conversions)."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from tessel._errors import CompileError  # noqa: E402

from conftest import BUILD  # noqa: E402

F8 = {"e4": torch.float8_e4m3fn, "e5": torch.float8_e5m2}


@tessel.kernel
def quantize(x: T.In[T.f32, ("N",)], qa: T.Out[T.f8e4m3, ("N",)], qb: T.Out[T.f8e5m2, ("N",)],
             a: T.Out[T.f32, ("N",)], b: T.Out[T.f32, ("N",)], ba: T.Out[T.i8, ("N",)], bb: T.Out[T.i8, ("N",)]):
    n = T.domain(0, x.shape[0])
    v = x[n]
    e4 = T.cast(v, T.f8e4m3)
    e5 = T.cast(v, T.f8e5m2)
    qa[n] = e4
    qb[n] = e5
    a[n] = T.cast(e4, T.f32)
    b[n] = T.cast(e5, T.f32)
    ba[n] = T.bitcast(e4, T.i8)
    bb[n] = T.bitcast(e5, T.i8)


@tessel.kernel
def quantize_narrow(h: T.In[T.f16, ("N",)], g: T.In[T.bf16, ("N",)], d: T.In[T.f64, ("N",)],
                    ha: T.Out[T.f32, ("N",)], hb: T.Out[T.f32, ("N",)], ga: T.Out[T.f32, ("N",)],
                    gb: T.Out[T.f32, ("N",)], da: T.Out[T.f32, ("N",)], db: T.Out[T.f32, ("N",)]):
    n = T.domain(0, h.shape[0])
    ha[n] = T.cast(T.cast(h[n], T.f8e4m3), T.f32)
    hb[n] = T.cast(T.cast(h[n], T.f8e5m2), T.f32)
    ga[n] = T.cast(T.cast(g[n], T.f8e4m3), T.f32)
    gb[n] = T.cast(T.cast(g[n], T.f8e5m2), T.f32)
    da[n] = T.cast(T.cast(d[n], T.f8e4m3), T.f32)
    db[n] = T.cast(T.cast(d[n], T.f8e5m2), T.f32)


@tessel.kernel
def f8_math(p: T.In[T.f8e4m3, ("N",)], q: T.In[T.f8e5m2, ("N",)], s: T.Out[T.f8e4m3, ("N",)],
            t: T.Out[T.f8e5m2, ("N",)], c: T.Out[T.i1, ("N",)], m: T.Out[T.f8e4m3, ("N",)]):
    n = T.domain(0, p.shape[0])
    x, y = p[n], q[n]
    s[n] = x * x + T.f8e4m3(0.5)                  # each op in f32, rounded once to e4m3
    t[n] = y / T.cast(x, T.f8e5m2) - y            # e5m2 overflows to inf, e4m3 to NaN
    c[n] = x < T.cast(y, T.f8e4m3)
    m[n] = T.where(x > 0, T.maximum(x, T.f8e4m3(-3.0)), T.sqrt(T.abs(x)))


def same_float(got, want):
    got, want = np.asarray(got, np.float32), np.asarray(want, np.float32)
    return (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))


def assert_same(got, want, x, what):
    ok = same_float(got, want)
    bad = np.nonzero(~ok)[0]
    assert bad.size == 0, f"{what}: {bad.size} differ, at x={np.asarray(x)[bad][:6]} got {np.asarray(got)[bad][:6]} " \
                          f"want {np.asarray(want)[bad][:6]}"


def canonical_nan(bits, dt):
    """FP8 bit patterns (int8) with every NaN as 0x7F: a NaN's sign and payload are kept no more than
    IEEE conversions promise (torch keeps the sign; the interpreters too, the GPU may not)."""
    bits = np.asarray(bits).astype(np.int8).copy()
    nan = torch.from_numpy(bits).view(dt).float().isnan().numpy()
    bits[nan] = 0x7F
    return bits


def torch_bits(t):
    return canonical_nan(t.view(torch.int8).numpy(), t.dtype)


def f32_sample(n=200_000, seed=0):
    """Random f32 bit patterns (every exponent), the edges of both ranges, and every FP8 value, the
    ties between neighbours and one f32 ulp either side of each tie."""
    rng = np.random.default_rng(seed)
    rand = rng.integers(0, 1 << 32, size=n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 448.0, 449.0, 464.0, 465.0, 480.0, 1e6, -448.0, -449.0,
                      -464.0, -1e6, 57344.0, 61439.0, 61440.0, 65536.0, 1e38, 2.0 ** -6, 2.0 ** -9, 2.0 ** -10,
                      3 * 2.0 ** -11, 2.0 ** -14, 2.0 ** -16, 2.0 ** -17, 3 * 2.0 ** -18, 1e-45, 1.0625, 1.1875],
                     dtype=np.float32)
    values = []
    for dt in F8.values():
        v = torch.arange(256, dtype=torch.uint8).view(dt).float().numpy()
        v = np.sort(v[np.isfinite(v)])
        mids = (v[1:].astype(np.float64) + v[:-1]) / 2
        values += [v, mids.astype(np.float32)]
        m32 = mids.astype(np.float32)
        values += [np.nextafter(m32, np.float32(np.inf)), np.nextafter(m32, np.float32(-np.inf))]
    return np.concatenate([edges, rand, *values]).astype(np.float32)


def every_half():
    return np.arange(1 << 16, dtype=np.uint16).view(np.float16)


def every_bf16():
    return torch.from_numpy(np.arange(1 << 16, dtype=np.uint16).view(np.int16)).view(torch.bfloat16)


def run_pgpu(kernel, tmp_path, inputs):
    """The pgpu interpreter: the kernel's KIR constructed into pgpu and run (`tessel run --stage pgpu`)."""
    source = tmp_path / f"{kernel.name}.mlir"
    source.write_text(kernel.kir())
    n = next(iter(inputs.values())).shape[0]
    cmd = [str(BUILD / "bin" / "tessel"), "run", str(source), "--stage", "pgpu", "--shape", f"N={n}",
           "--out", str(tmp_path / "pgpu")]
    for k, v in inputs.items():
        np.save(tmp_path / f"{k}.npy", v)
        cmd += ["--in", f"{k}={tmp_path / f'{k}.npy'}"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return {p.name[:-4]: np.load(p) for p in (tmp_path / "pgpu").glob("*.npy") if not p.name.endswith(".in.npy")}


def run_triton(x):
    n = x.size
    xt = torch.from_numpy(x)
    outs = dict(qa=torch.empty(n, dtype=F8["e4"]), qb=torch.empty(n, dtype=F8["e5"]), a=torch.empty(n),
                b=torch.empty(n), ba=torch.empty(n, dtype=torch.int8), bb=torch.empty(n, dtype=torch.int8))
    quantize(xt, **outs)
    return outs


def check_quantize(out, x, where):
    xt = torch.from_numpy(x)
    for key, dt in (("a", F8["e4"]), ("b", F8["e5"])):
        ref = xt.to(dt)
        assert_same(out[key], ref.float().numpy(), x, f"{where} f32 -> {dt} -> f32")
        got_bits = canonical_nan(out["b" + key], dt)
        want_bits = torch_bits(ref)
        bad = np.nonzero(got_bits != want_bits)[0]
        assert bad.size == 0, f"{where} bits of {dt}: at x={x[bad][:6]} got {got_bits[bad][:6]} want {want_bits[bad][:6]}"
        q = out["q" + key]
        q = q.float().numpy() if isinstance(q, torch.Tensor) else q  # the interpreters write FP8 views as f32
        assert_same(q, ref.float().numpy(), x, f"{where} stored {dt}")


@pytest.mark.parametrize("sample", ["every_f16", "f32"])
def test_conversions_on_the_kir_interpreter(sample):
    x = every_half().astype(np.float32) if sample == "every_f16" else f32_sample()
    check_quantize(quantize.run_interp({"N": x.size}, inputs={"x": x}), x, "kir")


@pytest.mark.parametrize("sample", ["every_f16", "f32"])
def test_conversions_on_the_pgpu_interpreter(sample, tmp_path):
    x = every_half().astype(np.float32) if sample == "every_f16" else f32_sample(20_000, 1)
    check_quantize(run_pgpu(quantize, tmp_path, {"x": x}), x, "pgpu")


@pytest.mark.parametrize("sample", ["every_f16", "f32"])
def test_conversions_through_triton(sample, tmp_path, monkeypatch):
    """The generated module's FP8 conversions (under TRITON_INTERPRET=1 its NumPy helpers: Triton 3.6's
    interpreter rounds FP8 half-up and maps NaN, inf and overflow to finite values)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = every_half().astype(np.float32) if sample == "every_f16" else f32_sample(20_000, 2)
    check_quantize(run_triton(x), x, "triton")


def narrow_inputs():
    h = every_half()
    g = every_bf16()
    rng = np.random.default_rng(3)
    d = np.concatenate([rng.standard_normal(65536 - 4) * np.exp2(rng.integers(-20, 18, 65536 - 4)),
                        # just past an FP8 tie in f64, the tie in f32: torch (and tessel) round twice
                        [1.0625 + 2.0 ** -40, 1.0625 - 2.0 ** -40, 464.0 + 2.0 ** -30, 61440.0 - 2.0 ** -20]])
    return h, g, d


def check_narrow(out, h, g, d, where):
    srcs = {"h": torch.from_numpy(h), "g": g, "d": torch.from_numpy(d)}
    for src, t in srcs.items():
        for key, dt in (("a", F8["e4"]), ("b", F8["e5"])):
            want = t.to(dt).float().numpy()
            assert_same(out[src + key], want, t.float().numpy(), f"{where} {t.dtype} -> {dt}")


def test_f16_bf16_f64_sources_on_the_kir_interpreter():
    h, g, d = narrow_inputs()
    out = quantize_narrow.run_interp({"N": h.size}, inputs={"h": h, "g": g.float().numpy(), "d": d})
    check_narrow(out, h, g, d, "kir")


def test_f16_bf16_f64_sources_on_the_pgpu_interpreter(tmp_path):
    h, g, d = narrow_inputs()
    check_narrow(run_pgpu(quantize_narrow, tmp_path, {"h": h, "g": g.float().numpy(), "d": d}), h, g, d, "pgpu")


def test_f16_bf16_f64_sources_through_triton(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    h, g, d = narrow_inputs()
    outs = {k: torch.empty(h.size) for k in ("ha", "hb", "ga", "gb", "da", "db")}
    quantize_narrow(torch.from_numpy(h), g, torch.from_numpy(d), **outs)
    check_narrow({k: v.numpy() for k, v in outs.items()}, h, g, d, "triton")


def math_inputs(n, seed):
    """FP8 operands at the ranges' edges (largest finite, subnormals, +-0, NaN; e5m2 +-inf) and random."""
    g = torch.Generator().manual_seed(seed)
    p = torch.randint(0, 256, (n,), generator=g, dtype=torch.uint8).view(F8["e4"])
    q = torch.randint(0, 256, (n,), generator=g, dtype=torch.uint8).view(F8["e5"])
    edge4 = torch.tensor([448.0, -448.0, 2.0 ** -9, -(2.0 ** -9), 0.0, -0.0, float("nan"), 2.0 ** -6])
    edge5 = torch.tensor([57344.0, float("inf"), 2.0 ** -16, -(2.0 ** -16), -0.0, 0.0, -float("inf"), float("nan")])
    k = min(n, edge4.numel())
    p[:k] = edge4[:k].to(F8["e4"])
    q[:k] = edge5[:k].to(F8["e5"])
    return p, q


def math_reference(p, q):
    """torch's FP8 values computed in f32 and rounded to FP8 after every operation."""
    e4, e5 = F8["e4"], F8["e5"]
    r4 = lambda v: v.to(e4).float()  # noqa: E731
    r5 = lambda v: v.to(e5).float()  # noqa: E731
    x, y = p.float(), q.float()
    s = r4(r4(x * x) + 0.5)
    t = r5(r5(y / r5(x)) - y)
    c = x < r4(y)
    m = torch.where(x > 0, torch.maximum(x, torch.tensor(-3.0)), r4(torch.sqrt(x.abs())))
    return {"s": s, "t": t, "c": c, "m": m}


def check_math(out, p, q, where):
    want = math_reference(p, q)
    for key in ("s", "t", "m"):
        got = out[key]
        got = got.float().numpy() if isinstance(got, torch.Tensor) else got
        assert_same(got, want[key].numpy(), p.float().numpy(), f"{where} {key}")
    assert (np.asarray(out["c"]).astype(bool) == want["c"].numpy()).all(), where


@pytest.mark.parametrize("n", [1, 13, 1031])
def test_arithmetic_on_the_interpreters(n, tmp_path):
    p, q = math_inputs(n, n)
    inputs = {"p": p.float().numpy(), "q": q.float().numpy()}
    check_math(f8_math.run_interp({"N": n}, inputs=inputs), p, q, "kir")
    check_math(run_pgpu(f8_math, tmp_path, inputs), p, q, "pgpu")


@pytest.mark.parametrize("n", [1, 13, 1031])
def test_arithmetic_through_triton(n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    p, q = math_inputs(n, n)
    outs = dict(s=torch.empty(n, dtype=F8["e4"]), t=torch.empty(n, dtype=F8["e5"]), c=torch.empty(n, dtype=torch.bool),
                m=torch.empty(n, dtype=F8["e4"]))
    f8_math(p, q, **outs)
    check_math(outs, p, q, "triton")


def test_random_fp8_inputs_are_fp8_values():
    """The interpreter draws random FP8 inputs on the FP8 grid (rounded from the usual magnitudes)."""
    out = f8_math.run_interp({"N": 37}, seed=4)
    for key, dt in (("p.in", F8["e4"]), ("q.in", F8["e5"])):
        v = torch.from_numpy(out[key])
        assert torch.equal(v.to(dt).float(), v) and (v != 0).all()


def test_constants_round_like_torch_and_reject_out_of_range():
    @tessel.kernel
    def consts(y: T.Out[T.f32, ("N",)]):
        n = T.domain(0, y.shape[0])
        y[n] = T.cast(T.f8e4m3(449.0), T.f32) + T.cast(T.f8e5m2(2.5e-5), T.f32) + T.zeros(n) + \
            T.cast(T.f8e5m2(float("inf")), T.f32) * 0.0
    text = consts.kir()
    assert "arith.constant 448.0 : f8E4M3FN" in text and "arith.constant 0x7C : f8E5M2" in text
    assert "arith.constant 3.0517578125e-05 : f8E5M2" in text  # 2^-15 (subnormal), as torch rounds 2.5e-5

    for value, dtype, why in ((1e6, T.f8e4m3, "out of range for f8e4m3"), (float("inf"), T.f8e4m3, "no infinities"),
                              (61440.0, T.f8e5m2, "out of range for f8e5m2")):
        @tessel.kernel
        def bad(y: T.Out[T.f32, ("N",)]):
            n = T.domain(0, y.shape[0])
            y[n] = T.cast(dtype(value), T.f32) + T.zeros(n)
        with pytest.raises(CompileError, match=why):
            bad.kir()


def test_views_check_the_torch_dtype(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = torch.ones(4)
    outs = dict(qa=torch.empty(4, dtype=F8["e5"]), qb=torch.empty(4, dtype=F8["e5"]), a=torch.empty(4),
                b=torch.empty(4), ba=torch.empty(4, dtype=torch.int8), bb=torch.empty(4, dtype=torch.int8))
    with pytest.raises(TypeError, match="float8_e4m3fn"):
        quantize(x, **outs)


@pytest.mark.parametrize("target,message", [("cutile", "cuTile has no tile element type for f8E4M3FN"),
                                            ("ptx", "8-bit float values are not selected yet")])
def test_providers_without_fp8_reject_at_the_op(target, message, tmp_path):
    source = tmp_path / "q.mlir"
    source.write_text(quantize.kir())
    res = subprocess.run([str(BUILD / "bin" / "tessel"), "compile", str(source), f"--target={target}"],
                         capture_output=True, text=True)
    assert res.returncode != 0 and message in res.stderr and "test_fp8.py:" in res.stderr, res.stderr


def test_fp8_reductions_are_rejected_by_triton():
    @tessel.kernel
    def total(x: T.In[T.f8e4m3, ("M", "N")], y: T.Out[T.f8e4m3, ("M",)]):
        for i in T.parallel(T.domain(0, x.shape[0])):
            y[i] = T.sum(x[i, T.domain(0, x.shape[1])])
    with pytest.raises(CompileError, match="FP8 reductions, scans and atomics are not spelled by the triton provider"):
        total.source("triton")


def test_modules_without_fp8_have_no_fp8_helpers():
    @tessel.kernel
    def plain(x: T.In[T.f16, ("N",)], y: T.Out[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = T.cast(x[n], T.f32)
    assert "_to_f8" not in plain.source("triton")
