"""Math with the accuracy KIR requires (seed 000 §7; types §5): tanh, erf, gelu, sigmoid, log1p, expm1
and pow on the KIR interpreter against float64 NumPy, and the Triton provider's libdevice spellings
under TRITON_INTERPRET=1 against the KIR interpreter, at odd shapes and over wide input ranges
(large negative arguments, signed zeros, the poles of log1p) rather than tessel run's default draws.
"""
import math
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def math_f32(x: T.In[T.f32, ("N",)], u: T.In[T.f32, ("N",)], th: T.Out[T.f32, ("N",)],
             ef: T.Out[T.f32, ("N",)], ge: T.Out[T.f32, ("N",)], gt: T.Out[T.f32, ("N",)],
             sg: T.Out[T.f32, ("N",)], lp: T.Out[T.f32, ("N",)], em: T.Out[T.f32, ("N",)],
             pw: T.Out[T.f32, ("N",)]):
    n = T.domain(0, x.shape[0])
    v, w = x[n], u[n]
    th[n] = T.tanh(v)
    ef[n] = T.erf(v)
    ge[n] = T.gelu(v)
    gt[n] = T.gelu(v, approximate="tanh")
    sg[n] = T.sigmoid(v)
    lp[n] = T.log1p(w)
    em[n] = T.expm1(v)
    pw[n] = T.pow(T.abs(v), w)


@tessel.kernel
def math_narrow(x: T.In[T.f16, ("N",)], b: T.In[T.bf16, ("N",)], th: T.Out[T.f16, ("N",)],
                lp: T.Out[T.f16, ("N",)], sg: T.Out[T.bf16, ("N",)], pw: T.Out[T.bf16, ("N",)]):
    n = T.domain(0, x.shape[0])
    v, w = x[n], b[n]
    th[n] = T.tanh(v)
    lp[n] = T.log1p(T.abs(v))
    sg[n] = T.sigmoid(w)
    pw[n] = T.pow(T.abs(w), w)


@tessel.kernel
def plain_math(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
    n = T.domain(0, x.shape[0])
    y[n] = T.exp(x[n]) + T.sqrt(T.abs(x[n]))


def _erf(a):
    return np.vectorize(math.erf)(a)


def _reference(x, u):
    x, u = x.astype(np.float64), u.astype(np.float64)
    with np.errstate(all="ignore"):
        return {
            "th": np.tanh(x), "ef": _erf(x), "ge": 0.5 * x * (1 + _erf(x / math.sqrt(2))),
            "gt": 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
            "sg": 1 / (1 + np.exp(-x)), "lp": np.log1p(u), "em": np.expm1(x), "pw": np.power(np.abs(x), u),
        }


def _inputs(n, seed):
    """Wide-range arguments: |x| up to 40 (sigmoid and expm1 underflow and saturate there), exact
    zeros of both signs, u in (-1, 6] with -1 itself (log1p's pole) and values next to 0."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * rng.choice([0.01, 1.0, 8.0, 40.0], n)).astype(np.float32)
    u = rng.uniform(-0.999, 6.0, n).astype(np.float32)
    for i, (xv, uv) in enumerate([(-0.0, -1.0), (0.0, 1e-7), (-35.0, -0.5), (1e-6, 0.0)][:n]):
        x[i], u[i] = xv, uv
    return x, u


def _ulps(got, want):
    """Distance in f32 units in the last place from the nearest-even f32 of `want` (overflow to an
    infinity agrees with an infinity)."""
    with np.errstate(over="ignore"):
        want = want.astype(np.float32)
    got, want = got.astype(np.float64), want.astype(np.float64)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    spacing = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(same, 0.0, np.abs(got - want) / spacing)


# f32 library bounds (CUDA math, types §5): tanh 2, erf 2, log1p 1, expm1 1, pow 4 ULP; the
# interpreter rounds the float64 result once. The composites (gelu, sigmoid) compound their steps.
ULPS = {"th": 2, "ef": 2, "lp": 1, "em": 1, "pw": 4}


@pytest.mark.parametrize("n", [1, 37, 129])
def test_interpreter_meets_the_accuracy_contract(n):
    x, u = _inputs(n, seed=n)
    out = math_f32.run_interp({}, inputs={"x": x, "u": u})
    ref = _reference(x, u)
    for name, bound in ULPS.items():
        assert _ulps(out[name], ref[name]).max() <= bound, name
    # gelu's 1 + erf(x / sqrt(2)) cancels for x << 0 in f32, as torch's does: absolute error there
    assert _ulps(out["sg"], ref["sg"]).max() <= 3, "sg"  # subnormal results included
    for name in ("ge", "gt"):
        np.testing.assert_allclose(out[name], ref[name], rtol=2e-6, atol=1e-6, err_msg=name)
    assert out["lp"][0] == -np.inf if n >= 1 else True  # log1p(-1)
    assert np.signbit(out["th"][0]) and out["th"][0] == 0.0  # tanh(-0) = -0


@pytest.mark.parametrize("n", [1, 37, 129])
def test_triton_libdevice_spelling_matches_the_interpreter(n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x, u = _inputs(n, seed=100 + n)
    out = math_f32.run_interp({}, inputs={"x": x, "u": u})
    xs, us = torch.from_numpy(x), torch.from_numpy(u)
    results = {k: torch.empty(n) for k in ("th", "ef", "ge", "gt", "sg", "lp", "em", "pw")}
    math_f32(xs, us, **results)
    for name, t in results.items():
        if name in ("ge", "gt"):  # composites: rounding differences amplified where 1 + erf cancels
            np.testing.assert_allclose(t.numpy(), out[name], rtol=1e-5, atol=1e-6, err_msg=name)
        else:  # libdevice's own bounds on the GPU; under the interpreter the same functions in float64
            assert _ulps(t.numpy(), out[name]).max() <= 4, name


def test_narrow_dtypes_compute_in_f32_and_round_once(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    n = 37
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(n) * 4).astype(np.float16)
    b = (rng.standard_normal(n) * 4).astype(np.float32)  # widened bf16 values (exact below)
    b = torch.from_numpy(b).to(torch.bfloat16)
    out = math_narrow.run_interp({}, inputs={"x": x, "b": b.float().numpy()})
    res = {"th": torch.empty(n, dtype=torch.float16), "lp": torch.empty(n, dtype=torch.float16),
           "sg": torch.empty(n, dtype=torch.bfloat16), "pw": torch.empty(n, dtype=torch.bfloat16)}
    math_narrow(torch.from_numpy(x), b, **res)
    for name, t in res.items():
        # one rounding of a value within a few f32 ULP: equal, or one step of the narrow format apart
        np.testing.assert_allclose(t.float().numpy(), out[name].astype(np.float32),
                                   rtol=2 ** -7 if t.dtype == torch.bfloat16 else 2 ** -10, err_msg=name)


def test_source_imports_libdevice_only_when_used():
    source = math_f32.source("triton")
    for spelled in ("libdevice.tanh(", "libdevice.erf(", "libdevice.log1p(", "libdevice.expm1(",
                    "libdevice.pow(", "tl.div_rn(1.0, 1.0 + libdevice.exp("):
        assert spelled in source, spelled
    assert "from triton.language.extra import libdevice" in source
    narrow = math_narrow.source("triton")
    assert "tl.cast(libdevice.tanh(tl.cast(" in narrow and "tl.float16)" in narrow
    plain = plain_math.source("triton")  # tl.* spells these: no libdevice prelude
    assert "tl.exp(" in plain and "libdevice" not in plain


def test_gelu_rejects_an_unknown_approximation():
    @tessel.kernel
    def bad_gelu(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = T.gelu(x[n], approximate="fast")

    with pytest.raises(tessel.CompileError, match="approximate= must be 'none' or 'tanh'"):
        bad_gelu.kir()


@tessel.kernel
def math_scalars(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)], s: T.f32):
    n = T.domain(0, x.shape[0])
    y[n] = x[n] * T.tanh(s) + T.pow(x[n], 2.0) + T.erf(T.f32(0.5)) + T.sigmoid(s)


def test_scalar_and_constant_operands(tmp_path, monkeypatch):
    """libdevice of a runtime scalar (a Python float under the interpreter) and of constants."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = np.random.default_rng(1).uniform(0.25, 2.0, 37).astype(np.float32)
    ref = math_scalars.run_interp({}, scalars={"s": 0.3}, inputs={"x": x})
    y = torch.empty(37)
    math_scalars(torch.from_numpy(x), y, s=0.3)
    np.testing.assert_allclose(y.numpy(), ref["y"], rtol=1e-6, atol=1e-6)
    assert "libdevice.tanh(s)" in math_scalars.source("triton")


_AOT = """
import inspect, sys
sys.path.insert(0, sys.argv[1])
import triton, gen
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
views = dict(arg.split("=") for arg in sys.argv[3:])
jit = getattr(gen, sys.argv[2])
signature = {}
for p in inspect.signature(jit.fn).parameters.values():
    signature[p.name] = views.get(p.name, "i32")
out = triton.compile(ASTSource(fn=jit, signature=signature, constexprs={}), target=GPUTarget("cuda", 90, 32))
print("compiled", "ptx" in out.asm)
print(out.asm["ttir"])
"""


@pytest.mark.parametrize("kernel,views,symbols", [
    ("math_f32", {n: "*fp32" for n in ("x", "u", "th", "ef", "ge", "gt", "sg", "lp", "em", "pw")},
     ["__nv_tanhf", "__nv_erff", "__nv_log1pf", "__nv_expm1f", "__nv_powf", "__nv_expf"]),
    ("math_narrow", {"x": "*fp16", "b": "*bf16", "th": "*fp16", "lp": "*fp16", "sg": "*bf16", "pw": "*bf16"},
     ["__nv_tanhf", "__nv_log1pf", "__nv_expf", "__nv_powf"]),
])
def test_generated_math_compiles_for_sm90_with_cuda_libdevice(kernel, views, symbols, tmp_path):
    """The generated module's generic libdevice resolves to CUDA's when Triton compiles it (no GPU
    needed: Triton's own ptxas), and each kind calls the libdevice function of its f32 bound."""
    import subprocess
    import sys
    k = globals()[kernel]
    (tmp_path / "gen.py").write_text(k.source("triton"))
    env = {key: v for key, v in os.environ.items() if key != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, "-c", _AOT, str(tmp_path), f"_{kernel}_kernel"] +
                       [f"{n}={t}" for n, t in views.items()], capture_output=True, text=True, env=env, timeout=600)
    if r.returncode and "ptxas" in r.stderr and "not found" in r.stderr:
        pytest.skip("no ptxas for the CUDA backend here")
    assert r.returncode == 0 and "compiled True" in r.stdout, r.stderr[-3000:]
    for symbol in symbols:
        assert f'symbol = "{symbol}"' in r.stdout, symbol


@tessel.kernel
def tanh_approx(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
    n = T.domain(0, x.shape[0])
    y[n] = T.tanh(x[n], approximate=True)


def test_approximate_tanh_is_ptx_tanh_approx(tmp_path, monkeypatch):
    """{approximate} tanh (relative error <= 2**-11, types §5.1): PTX tanh.approx.f32 through inline
    assembly on the GPU, NumPy under the interpreter; both within the bound of the KIR interpreter's
    11-bit model."""
    import subprocess
    import sys
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x, _ = _inputs(129, seed=7)
    ref = tanh_approx.run_interp({}, inputs={"x": x})
    y = torch.empty(129)
    tanh_approx(torch.from_numpy(x), y)
    np.testing.assert_allclose(y.numpy(), ref["y"], rtol=2 ** -10, atol=1e-38)
    (tmp_path / "gen.py").write_text(tanh_approx.source("triton"))
    script = _AOT + "print(out.asm['ptx'])\n"
    env = {key: v for key, v in os.environ.items() if key != "TRITON_INTERPRET"}
    r = subprocess.run([sys.executable, "-c", script, str(tmp_path), "_tanh_approx_kernel", "x=*fp32", "y=*fp32"],
                       capture_output=True, text=True, env=env, timeout=600)
    if r.returncode and "ptxas" in r.stderr and "not found" in r.stderr:
        pytest.skip("no ptxas for the CUDA backend here")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "tanh.approx.f32" in r.stdout and "__nv_tanhf" not in r.stdout


@tessel.kernel
def rounded_ops(a: T.In[T.f64, ("N",)], h: T.In[T.f16, ("N",)], b: T.In[T.bf16, ("N",)],
                c: T.In[T.bf16, ("N",)], ya: T.Out[T.f64, ("N",)], yh: T.Out[T.f16, ("N",)],
                yb: T.Out[T.bf16, ("N",)]):
    n = T.domain(0, a.shape[0])
    va, vh, vb, vc = a[n], h[n], b[n], c[n]
    ya[n] = va / (T.abs(va) + 1.0) + T.sqrt(T.abs(va)) + T.rsqrt(T.abs(va) + 1.0) + T.sigmoid(va)
    yh[n] = vh / (T.abs(vh) + 1.0) + T.sqrt(T.abs(vh)) + T.rsqrt(T.abs(vh) + 1.0)
    # (no bf16 constants: Triton 3.6's interpreter cannot make one)
    yb[n] = vb / vc + T.sqrt(T.abs(vb)) + T.rsqrt(T.abs(vc))


def test_division_and_square_root_round_in_every_float_type(tmp_path, monkeypatch):
    """tl.div_rn and tl.sqrt_rn take f32 only: f64 spells Triton's IEEE `/` and tl.sqrt, f16/bf16
    compute in f32 and round once; f64 and f16 match the interpreter, and all compile for sm_90."""
    import subprocess
    import sys
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(3)
    a = rng.standard_normal(37) * 4
    h = (rng.standard_normal(37) * 4).astype(np.float16)
    b = torch.from_numpy((rng.standard_normal(37) * 4).astype(np.float32)).to(torch.bfloat16)
    c = torch.from_numpy(rng.uniform(0.5, 4.0, 37).astype(np.float32)).to(torch.bfloat16)
    ref = rounded_ops.run_interp({}, inputs={"a": a, "h": h, "b": b.float().numpy(), "c": c.float().numpy()})
    out = {"ya": torch.empty(37, dtype=torch.float64), "yh": torch.empty(37, dtype=torch.float16),
           "yb": torch.empty(37, dtype=torch.bfloat16)}
    rounded_ops(torch.from_numpy(a), torch.from_numpy(h), b, c, **out)
    np.testing.assert_allclose(out["ya"].numpy(), ref["ya"], rtol=1e-12)
    np.testing.assert_allclose(out["yh"].float().numpy(), ref["yh"].astype(np.float32), rtol=2 ** -9)
    # yb is checked by compiling only: Triton 3.6's interpreter adds bf16 values as their raw bits.
    source = rounded_ops.source("triton")
    assert "tl.cast(tl.div_rn(tl.cast(" in source and "tl.sqrt(" in source
    (tmp_path / "gen.py").write_text(source)
    env = {key: v for key, v in os.environ.items() if key != "TRITON_INTERPRET"}
    views = ["a=*fp64", "h=*fp16", "b=*bf16", "c=*bf16", "ya=*fp64", "yh=*fp16", "yb=*bf16"]
    r = subprocess.run([sys.executable, "-c", _AOT, str(tmp_path), "_rounded_ops_kernel"] + views,
                       capture_output=True, text=True, env=env, timeout=600)
    if r.returncode and "ptxas" in r.stderr and "not found" in r.stderr:
        pytest.skip("no ptxas for the CUDA backend here")
    assert r.returncode == 0 and "compiled True" in r.stdout, r.stderr[-3000:]
