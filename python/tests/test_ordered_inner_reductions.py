"""pgpu-form-blocking: an inner reduction that reads along its enclosing reduction's axis contiguously
(a log-sum-exp over the classes c of an NCHW score map inside a sum over the pixels w) runs as an ordered
loop in each member, so the pixels are the lanes blocked; blocking the classes instead left a scalar loop
over the pixels (corpus 270, seconds on the GPU). Checked at odd shapes (empty, one element, primes,
non-multiples of every block) against NumPy on the KIR interpreter, the compiled pgpu program (several
BLOCK bindings) and Triton under TRITON_INTERPRET=1; a row-major reduction (classes contiguous) keeps
its classes blocked."""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def nchw_lse_sum(x: T.In[T.f32, ("N", "C", "H", "W")], out: T.Out[T.f32, (1,)]):
    N, C, H, W = x.shape
    v = x[T.domain(0, N), T.domain(0, C), T.domain(0, H), T.domain(0, W)]
    mx = T.max(v, axis=1)
    out[0] = T.sum(mx + T.log(T.sum(T.exp(v - mx), axis=1)))


@tessel.kernel
def nhwc_lse_sum(x: T.In[T.f32, ("N", "H", "W", "C")], out: T.Out[T.f32, (1,)]):
    # must not fire: the classes are the contiguous axis
    N, H, W, C = x.shape
    v = x[T.domain(0, N), T.domain(0, H), T.domain(0, W), T.domain(0, C)]
    mx = T.max(v, axis=3)
    out[0] = T.sum(mx + T.log(T.sum(T.exp(v - mx), axis=3)))


def _want(x):
    v = x.astype(np.float64)
    mx = v.max(axis=1)
    return np.array([(mx + np.log(np.exp(v - mx[:, None]).sum(axis=1))).sum()])


SHAPES = [dict(N=1, C=1, H=1, W=1), dict(N=2, C=3, H=5, W=7), dict(N=0, C=2, H=2, W=2),
          dict(N=2, C=3, H=0, W=5), dict(N=1, C=19, H=3, W=37)]
_ids = lambda s: "-".join(f"{k}{v}" for k, v in s.items())  # noqa: E731


def _run(tessel_bin, path, shape, out, *extra):
    cmd = [str(tessel_bin), "run", f"{path}:nchw_lse_sum", "--seed", "3", "--out", str(out),
           "--shape", ",".join(f"{k}={v}" for k, v in shape.items()), *extra]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
    return np.load(out / "out.npy"), np.load(out / "x.in.npy")


@pytest.mark.parametrize("shape", SHAPES, ids=_ids)
def test_pgpu_matches_kir_and_numpy(tessel_bin, tmp_path, shape):
    kir = tmp_path / "k.mlir"
    kir.write_text(nchw_lse_sum.kir())
    pgpu = tmp_path / "p.mlir"
    res = subprocess.run([str(tessel_bin), "compile", str(kir), "--target=triton", "--emit=pgpu", "-o", str(pgpu)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    want, x = _run(tessel_bin, kir, shape, tmp_path / "kir", "--stage", "kir")
    np.testing.assert_allclose(want, _want(x), rtol=1e-5, atol=1e-5)
    for block in (64, 2048):
        got, _ = _run(tessel_bin, pgpu, shape, tmp_path / f"pgpu{block}", "--param", f"BLOCK={block}",
                      "--order", "shuffle")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"BLOCK={block}")


@pytest.mark.skipif(not os.environ.get("TESSEL_DEEP"), reason="TESSEL_DEEP=1: the call's default FOLD_SPLIT "
                    "fills a GPU, a hundred programs under the interpreter (test_sliced_rows_through_triton binds it)")
@pytest.mark.parametrize("shape", [SHAPES[1], SHAPES[4]], ids=_ids)
def test_triton_matches_numpy(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = np.random.default_rng(7).standard_normal([shape[k] for k in "NCHW"]).astype(np.float32)
    out = torch.zeros(1)
    nchw_lse_sum(torch.from_numpy(x), out)
    np.testing.assert_allclose(out.numpy(), _want(x), rtol=1e-5, atol=1e-5)


def _source(tessel_bin, tmp_path, kernel):
    path = tmp_path / f"{kernel.name}.mlir"
    path.write_text(kernel.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(path), "--target=triton", "--emit=source", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout, res.stderr


def test_the_pixels_are_the_lanes(tessel_bin, tmp_path):
    src, remarks = _source(tessel_bin, tmp_path, nchw_lse_sum)
    assert "inner reduction(s) reading along this reduction's axis contiguously run as ordered loops" in remarks
    # the classes are a loop of single steps, each a [BLOCK] load of consecutive pixels
    assert ", 1, num_stages=" in src or ", 1):" in src


def test_contiguous_classes_stay_blocked(tessel_bin, tmp_path):
    _, remarks = _source(tessel_bin, tmp_path, nhwc_lse_sum)
    assert "run as ordered loops" not in remarks


@pytest.mark.parametrize("params", [dict(FOLD_SPLIT=1, BLOCK=64), dict(FOLD_SPLIT=2, BLOCK=64),
                                    dict(FOLD_SPLIT=4, BLOCK=2048)], ids=lambda p: f"S{p['FOLD_SPLIT']}-B{p['BLOCK']}")
def test_sliced_rows_through_triton(params, tmp_path):
    """pgpu-split-row-reductions slices each image's pixels into FOLD_SPLIT programs (their class loops
    inside): every binding agrees, one slice a block, several blocks a slice, empty slices."""
    import importlib.util
    src = nchw_lse_sum.source("triton", None, params)
    assert "pgpu-split-row-reductions" not in src
    path = tmp_path / "k.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("sliced_k", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for shape in ((2, 3, 5, 37), (1, 19, 1, 3)):
        x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
        out = torch.zeros(1)
        mod.nchw_lse_sum(torch.from_numpy(x), out)
        np.testing.assert_allclose(out.numpy(), _want(x), rtol=1e-5, atol=1e-5, err_msg=str(shape))


def test_the_pixels_are_sliced_across_programs(tessel_bin, tmp_path):
    _, remarks = _source(tessel_bin, tmp_path, nchw_lse_sum)
    assert "each row's reductions over several axes are cut into FOLD_SPLIT slices" in remarks
