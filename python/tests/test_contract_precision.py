"""Explicit operand precision of contractions (issue 16; KIR_ContractPrecision, T.contract precision=):

  * the rounding itself, value by value (ties both signs, NaN, inf, the overflow to inf, subnormals):
    a K = 1 contraction against 1.0 returns tf32(a), from the KIR interpreter and from the generated
    Triton under TRITON_INTERPRET=1, bit for bit against NumPy's cvt.rna.tf32.f32;
  * a matmul at odd shapes, precision tf32 and tf32x3: the KIR interpreter against a float64 product
    of the rounded operands, and the generated Triton against the KIR interpreter;
  * linear attention's region scan (bench/linear_attention.py's f32_tf32 / f32_tf32x3) at odd shapes,
    both realizations: the generated Triton against the KIR interpreter (random segments);
  * the same scan with the normalizer's matvec at that precision too (the construction's products
    of rounded operands and a reduce) through the pgpu interpreter after the shared pipeline, in the
    fragment form and the element-wise fallback (D above BLOCK_D).

Triton's CPU interpreter ignores tl.dot's input_precision (np.matmul in f32), but the generated
source rounds the operands itself (and spells tf32x3 as three products of the split parts), so the
interpreter computes exactly the defined products: the comparisons are at f32's summation-order
tolerance, and each also checks that the result is NOT the IEEE one (the rounding took place).
"""
import os

import numpy as np
import pytest

from conftest import load_bench

import tessel
import tessel.language as T

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)


def tf32(x):
    """cvt.rna.tf32.f32 in NumPy: to nearest, ties away from zero; NaN kept."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    r = (((bits + 0x1000) & 0xFFFFE000) & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, r)


def split(x):
    hi = tf32(x)
    with np.errstate(invalid="ignore"):
        lo = np.where(np.isfinite(hi), tf32(x - hi), np.float32(0))
    return hi, lo


def make_matmul(precision):
    @tessel.kernel(name=f"mm_{precision}")
    def mm(a: T.In[T.f32, ("M", "K")], b: T.In[T.f32, ("K", "N")], c: T.Out[T.f32, ("M", "N")]):
        M, K = a.shape
        N = b.shape[1]
        rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
        c[rows, cols] = T.matmul(a[rows, ks], b[ks, cols], precision=precision)
    return mm


def test_dsl_rejects_bad_precision():
    with pytest.raises(Exception, match="precision= is one of"):
        make_matmul("tf16").kir()

    @tessel.kernel
    def half(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("K", "N")], c: T.Out[T.f32, ("M", "N")]):
        rows, cols, ks = T.domain(0, a.shape[0]), T.domain(0, b.shape[1]), T.domain(0, a.shape[1])
        c[rows, cols] = T.matmul(a[rows, ks], b[ks, cols], precision="tf32")
    with pytest.raises(Exception, match="rounds f32 operands to TF32"):
        half.kir()


def test_default_spells_no_precision():
    assert " precision " not in make_matmul("ieee").kir()
    assert "precision tf32x3" in make_matmul("tf32x3").kir()


SPECIAL = np.array([
    1.0, 1.0 + 2.0**-11, -(1.0 + 2.0**-11),            # ties: away from zero
    1.0 + 2.0**-11 - 2.0**-23, 1.0 + 2.0**-11 + 2.0**-23,  # just below / above the tie
    1.0 + 3 * 2.0**-11,                                  # tie with an odd kept mantissa
    np.float32(3.4028235e38), -np.float32(3.4028235e38),  # rounds past TF32's largest finite: inf
    np.inf, -np.inf, 1e-40, -1e-40, 2.0**-149, 0.0, -0.0, 0.1, -0.1, 123456.789, np.pi,
], dtype=np.float32)


def test_tf32_rounding_kir_and_triton(monkeypatch, tmp_path):
    """c[i, j] = a[i, 0] * 1.0 under tf32: exactly tf32(a[i, 0]) (NaN excluded: NaN * 1 is NaN anyway)."""
    a = SPECIAL.reshape(-1, 1)
    b = np.ones((1, 17), np.float32)
    want = np.broadcast_to(tf32(a) + np.float32(0), (a.shape[0], 17))  # the sum starts at +0: -0 gives +0
    mm = make_matmul("tf32")
    got = mm.run_interp({}, inputs={"a": a, "b": b})["c"]
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    c = torch.empty(a.shape[0], 17)
    mm._launcher({}, {})(torch.from_numpy(a), torch.from_numpy(b), c)
    np.testing.assert_array_equal(c.numpy().view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("precision", ["tf32", "tf32x3"])
@pytest.mark.parametrize("M,N,K", [(37, 29, 45), (5, 19, 1), (16, 16, 33)])
def test_matmul_precision(monkeypatch, tmp_path, precision, M, N, K):
    rng = np.random.default_rng(M * N + K)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    mm = make_matmul(precision)
    got = mm.run_interp({}, inputs={"a": a, "b": b})["c"].astype(np.float64)
    ah, al = split(a)
    bh, bl = split(b)
    d = lambda x, y: x.astype(np.float64) @ y.astype(np.float64)  # noqa: E731
    want = d(ah, bh) if precision == "tf32" else d(al, bh) + d(ah, bl) + d(ah, bh)
    exact = d(a, b)
    scale = np.abs(a).max() * np.abs(b).max() * K
    np.testing.assert_allclose(got, want, rtol=0, atol=4e-7 * scale)
    if precision == "tf32":  # the rounding took place: far from the IEEE product
        assert np.abs(got - exact).max() > 1e-5 * scale
    else:  # about f32's accuracy
        np.testing.assert_allclose(got, exact, rtol=0, atol=4e-7 * scale)
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    src = mm.source("triton", {}, {})
    # Outside a region fold/scan the contraction is constructed element-wise, its products' operands
    # rounded by pointwise ops; pgpu-form-tiles re-forms a tf32 tile contraction from them. tf32x3's
    # three terms per k stay a blocked reduction of exact terms (no tl.dot).
    if precision == "tf32":
        assert 'input_precision="tf32")' in src and "_tf32(" in src
    else:
        assert "bitcast=True" in src and "tl.dot(" not in src
    c = torch.empty(M, N)
    mm._launcher({}, {})(torch.from_numpy(a), torch.from_numpy(b), c)
    np.testing.assert_allclose(c.numpy().astype(np.float64), got, rtol=0, atol=4e-7 * scale)


def bench_module(root):
    """bench/linear_attention.py (conftest.load_bench)."""
    return load_bench("linear_attention")


LA_CASES = [("f32_tf32", {"B": 1, "H": 2, "T": 48, "D": 7, "E": 5}, 1),
            ("f32_tf32", {"B": 1, "H": 1, "T": 32, "D": 16, "E": 16}, 2),
            ("f32_tf32x3", {"B": 1, "H": 2, "T": 37, "D": 7, "E": 5}, 1),
            ("f32_tf32x3", {"B": 1, "H": 1, "T": 48, "D": 16, "E": 16}, 2)]


@pytest.mark.parametrize("variant,shapes,chain", LA_CASES,
                         ids=[f"{v}-T{s['T']}D{s['D']}E{s['E']}-{'chained' if c == 2 else 'ordered'}"
                              for v, s, c in LA_CASES])
def test_linear_attention_precision(root, tmp_path, monkeypatch, variant, shapes, chain):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = bench_module(root).kernel_for(variant)
    precision = variant.split("_")[1]
    assert kernel.kir().count(f"precision {precision} ") == 4
    params = {"BLOCK_T": 16, "BLOCK_D": 16, "BLOCK_E": 16, "SCAN_CHAIN": chain}
    src = kernel.source("triton", {}, params)
    if precision == "tf32x3":
        assert "_dot_tf32x3(" in src and src.count('input_precision="tf32"') == 3
    else:
        assert src.count('input_precision="tf32"') >= 4
    # tf32 rounds the carried state where `emit` reads it, so the result depends on where the scan is
    # cut (at TF32's precision, as the semantics allow): the KIR run cuts where the tiles do (T / 16
    # segments of BLOCK_T = 16). tf32x3's split keeps f32's accuracy: random cuts.
    ref = kernel.run_interp(shapes, seed=3, segments=shapes["T"] // 16 if precision == "tf32" else "random")
    q, k, v = (np.array(ref[f"{n}.in"]) for n in ("Q", "K", "V"))
    B, H, T_, D, E = (shapes[n] for n in "BHTDE")
    o, s, z = torch.empty(B, H, T_, E), torch.empty(B, H, D, E), torch.empty(B, H, D)
    kernel._launcher({}, params)(*(torch.from_numpy(x) for x in (q, k, v)), o, s, z)
    for name, got in (("O", o), ("S_OUT", s), ("Z_OUT", z)):
        np.testing.assert_allclose(got.numpy().astype(np.float64), ref[name].astype(np.float64), rtol=1e-5,
                                   atol=1e-5, err_msg=name)
    # Not the IEEE result: the same inputs through the example's IEEE scan (tf32 only: tf32x3 is close).
    if precision == "tf32":
        ieee = bench_module(root).kernel_for("f32")
        o2 = torch.empty_like(o)
        ieee._launcher({}, params)(*(torch.from_numpy(x) for x in (q, k, v)), o2, torch.empty_like(s),
                                   torch.empty_like(z))
        assert (o2 - o).abs().max().item() > 1e-6


@pytest.mark.parametrize("precision", ["tf32", "tf32x3"])
@pytest.mark.parametrize("shapes", [{"B": 1, "H": 2, "T": 32, "D": 5, "E": 7},     # fragments
                                    {"B": 1, "H": 1, "T": 16, "D": 20, "E": 3}],   # element-wise fallback
                         ids=["fragments", "elementwise"])
def test_linear_attention_pgpu_interp(tessel_bin, root, tmp_path, precision, shapes):
    import subprocess
    kernel = bench_module(root)._precision_kernel(precision, normalizer_precision=precision)
    assert kernel.kir().count(f"precision {precision} ") == 5
    source = kernel._write(tmp_path, {})
    program = tmp_path / "program.mlir"
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), "--tessel-pipeline=stop-after=realize-folds"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    program.write_text(res.stdout)
    assert f"precision {precision} " in res.stdout
    # Cut where the program does, since tf32 rounds the carried state: T / 16 segments of BLOCK_T = 16
    # for fragments; the element-wise fallback takes one time step at a time (T segments).
    fallback = shapes["D"] > 16
    ref = kernel.run_interp(shapes, seed=5, segments=shapes["T"] if fallback else shapes["T"] // 16)
    out = tmp_path / "pgpu"
    res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()),
                          "--seed", "5", "--order", "shuffle", "--out", str(out), "--param=BLOCK_T=16",
                          "--param=BLOCK_D=16", "--param=BLOCK_E=16"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    for name in ("O", "S_OUT", "Z_OUT"):
        np.testing.assert_allclose(np.load(out / f"{name}.npy").astype(np.float64), ref[name].astype(np.float64),
                                   rtol=1e-5, atol=1e-5, err_msg=name)
