"""Contractions whose left operand is free on several program axes (pgpu-form-tiles), against the KIR
interpreter.

A convolution written as per-tap contractions (corpus 35): y[n, oh, ow, :] = sum over taps of
x[n, oh + kh - 1, ow + kw - 1, :] (a gathered window, zero outside the image) contracted with the
tap's [C, OC] weights. The window is free on n, oh and ow, the weights on oc: the window is tiled
along ow, n and oh stay one member per program, and every tap's K loop continues the previous tap's
accumulator (an implicit GEMM, K = taps * C, one f32 accumulator). Also a batch of activations
against one weight matrix (x[b] @ w: x free on b and m). At odd shapes (1, primes, extents that are
not multiples of any tile, C and OC not multiples of 16) and several bindings, the pgpu interpreter
(shuffled program order) and the generated Triton under TRITON_INTERPRET=1 compute what the KIR
interpreter computes.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T


@tessel.kernel
def conv3x3(x: T.In[T.f16, ("N", "H", "W", "C")], w: T.In[T.f16, (3, 3, "C", "OC")],
            y: T.Out[T.f16, ("N", "H", "W", "OC")]):
    N, H, W, C = x.shape
    OC = w.shape[3]
    cols, chans, ochans = T.domain(0, W), T.domain(0, C), T.domain(0, OC)
    ow = T.indices(cols)
    for n, oh in T.parallel(T.domain(0, N), T.domain(0, H)):
        acc = T.zeros((cols, ochans))
        for kh in range(3):
            ih = oh + (kh - 1)
            for kw in range(3):
                iw = ow + (kw - 1)
                ok = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                xs = T.load(x, (n, ih, iw, chans), valid=ok, fill=0.0)
                acc = acc + T.matmul(xs, w[kh, kw, chans, ochans], acc_dtype=T.f32)
        y[n, oh, cols, ochans] = T.cast(acc, T.f16)


@tessel.kernel
def dilated_taps(x: T.In[T.f16, ("N", "W", "C")], w: T.In[T.f16, (3, "C", "OC")],
                 y: T.Out[T.f32, ("N", "W", "OC")]):
    # A one-dimensional convolution with dilation 2: taps at ow - 2, ow and ow + 2.
    N, W, C = x.shape
    OC = w.shape[2]
    cols, chans, ochans = T.domain(0, W), T.domain(0, C), T.domain(0, OC)
    ow = T.indices(cols)
    for n in T.parallel(T.domain(0, N)):
        acc = T.zeros((cols, ochans))
        for t in range(3):
            iw = ow + 2 * (t - 1)
            xs = T.load(x, (n, iw, chans), valid=(iw >= 0) & (iw < W), fill=0.0)
            acc = acc + T.matmul(xs, w[t, chans, ochans], acc_dtype=T.f32)
        y[n, cols, ochans] = acc


@tessel.kernel
def shared_weight(x: T.In[T.f16, ("B", "M", "K")], w: T.In[T.f16, ("K", "N")], y: T.Out[T.f32, ("B", "M", "N")]):
    for b in T.parallel(T.domain(0, x.shape[0])):
        y[b, :, :] = T.matmul(x[b, :, :], w[:, :], acc_dtype=T.f32)


# Per kernel: odd shapes, and bindings of its tile parameters (the window's tiled axis, the weights'
# free axis, k, the grouped traversal).
CASES = {
    "conv3x3": (conv3x3, [{"N": 1, "H": 1, "W": 1, "C": 1, "OC": 1}, {"N": 2, "H": 5, "W": 7, "C": 3, "OC": 5},
                          {"N": 1, "H": 13, "W": 37, "C": 17, "OC": 19}, {"N": 3, "H": 2, "W": 3, "C": 33, "OC": 20}],
                [{}, {"TILE_2": 16, "TILE_3": 16, "TILE_K": 16, "GROUP_2": 2},
                 {"TILE_2": 32, "TILE_3": 16, "TILE_K": 32, "GROUP_2": 1}]),
    "dilated_taps": (dilated_taps, [{"N": 1, "W": 1, "C": 1, "OC": 1}, {"N": 2, "W": 23, "C": 17, "OC": 7},
                                    {"N": 1, "W": 41, "C": 5, "OC": 33}],
                     [{}, {"TILE_1": 16, "TILE_2": 16, "TILE_K": 16, "GROUP_1": 2}]),
    "shared_weight": (shared_weight, [{"B": 1, "M": 1, "K": 1, "N": 1}, {"B": 3, "M": 19, "K": 37, "N": 23}],
                      [{}, {"TILE_1": 16, "TILE_2": 32, "TILE_K": 16, "GROUP_1": 2}]),
}
MATRIX = [(name, shapes, params) for name, (_, shapes_list, bindings) in CASES.items()
          for shapes in shapes_list for params in bindings]
TOL = dict(rtol=1e-2, atol=1e-2)


def ids(v):
    return "-".join(f"{k}{x}" for k, x in v.items()) or "defaults" if isinstance(v, dict) else str(v)


def run_pgpu(tessel_bin, path, shapes, params, seed):
    import tempfile
    with tempfile.TemporaryDirectory() as out:
        cmd = [str(tessel_bin), "run", str(path), "--stage", "pgpu", "--seed", str(seed), "--order", "shuffle",
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()), "--out", out]
        for k, v in params.items():
            cmd += ["--param", f"{k}={v}"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        return {p[:-4]: np.load(os.path.join(out, p)) for p in os.listdir(out) if not p.endswith(".in.npy")}


def test_windows_are_tiled():
    # Every tap becomes a pgpu.contract of a gathered [TILE_2, TILE_K] window tile; the taps share one
    # accumulator (no fragment addition left), and the Triton source spells each as tl.dot.
    text = conv3x3.pgpu()
    assert "pgpu.range_reduce" not in text, text
    assert text.count("pgpu.contract") == 9, text
    assert "pgpu.gather %x" in text and "-> !pgpu.fragment<f16, [TILE_2, TILE_K]>" in text, text
    assert "pgpu.binary add" not in "\n".join(l for l in text.splitlines() if "fragment<f32" in l), text
    assert conv3x3.source("triton").count("tl.dot(") >= 9
    for kernel in (dilated_taps, shared_weight):
        assert "pgpu.range_reduce" not in kernel.pgpu() and "pgpu.contract" in kernel.pgpu()


@pytest.mark.parametrize("name,shapes,params", MATRIX, ids=ids)
def test_pgpu_matches_kir(tessel_bin, tmp_path, name, shapes, params):
    kernel = CASES[name][0]
    path = tmp_path / "k.mlir"
    path.write_text(kernel.kir())
    ref = kernel.run_interp(shapes, seed=7)
    got = run_pgpu(tessel_bin, path, shapes, params, seed=7)
    (out,) = [k for k in got]
    np.testing.assert_allclose(got[out].astype(np.float64), ref[out].astype(np.float64), **TOL)


@pytest.mark.parametrize("name,shapes", [("conv3x3", {"N": 2, "H": 3, "W": 7, "C": 17, "OC": 5}),
                                         ("dilated_taps", {"N": 1, "W": 19, "C": 3, "OC": 17}),
                                         ("shared_weight", {"B": 2, "M": 17, "K": 29, "N": 5})], ids=ids)
def test_triton_matches_kir(tmp_path, monkeypatch, name, shapes):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = CASES[name][0]
    params = CASES[name][2][1]
    source = kernel.source("triton", None, params)
    assert "tl.dot(" in source
    ref = kernel.run_interp(shapes, seed=11)
    views = [p for p in kernel.params() if p.kind == "view"]
    args = [torch.from_numpy(np.array(ref[f"{p.name}.in"])) for p in views if p.spec.mode != "out"]
    (out,) = [p for p in views if p.spec.mode == "out"]
    y = torch.empty(ref[out.name].shape, dtype=torch.from_numpy(ref[out.name]).dtype)
    kernel._launcher(None, params)(*args, y)
    np.testing.assert_allclose(y.numpy().astype(np.float64), ref[out.name].astype(np.float64), **TOL)


@pytest.mark.parametrize("tile_k", [64, 128])
def test_gluon_spelling_compiles_for_sm90(tmp_path, monkeypatch, tile_k):
    # On sm_90 the default binding (GLUON 1) runs the warp-specialized spelling: the weight tiles stream
    # through a TMA ring, the window tiles are masked pointer loads in the consumer, the [pixels, OC]
    # output tile one TMA store whose origin (the channel tile's first column) only that store and the
    # streamed loads read. Compiled by Triton for sm_90 down to PTX and ptxas (no GPU needed).
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    binding = {"TILE_2": 64, "TILE_3": 64, "TILE_K": tile_k, "STAGES": 4, "WARPS": 4, "GLUON": 1}
    path = tmp_path / "conv3x3.py"
    path.write_text(conv3x3.source("triton", None, binding))
    shapes = {"views": {"x": [2, 7, 11, 64], "w": [3, 3, 64, 64], "y": [2, 7, 11, 64]}, "dtype": "float16"}
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    out = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "gluon_compile.py"), str(path),
                          "conv3x3", json.dumps(shapes)], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    assert facts["launched"] and facts["wgmma"] > 0 and facts["tma_loads"] > 0, facts
