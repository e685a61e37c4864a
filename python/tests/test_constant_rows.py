"""Reductions over a range of constant length (a batched small-matrix matvec's row: A [B, 64, 64]): the
blocked range [0, k) is covered by k, so pgpu-form-blocking declares BLOCK `covers = "k"` and a call's
default binds the smallest candidate holding k, ROWS then packing rows into [ROWS, BLOCK] tiles (corpus
161 at B = 65536: 4,194,304 programs of one 64-element row in a 512-lane block before; 65,536 programs
of one [64, 64] matrix after).

Differential: for k = 13, 64 and 67 (below, at and above a block size) and B = 0, 1, 3 and 37, the
pgpu interpreter at BLOCK x ROWS 64x1, 64x4, 128x2 and 64x64, and the generated Triton under
TRITON_INTERPRET=1 at the call's defaults, compute what the KIR interpreter computes on random inputs.
"""
import functools
import os
import pathlib
import re
import subprocess
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T

from interp_cli import run_stage


def jacobi(k):
    """One Jacobi step x' = (b - (A x - diag(A) x)) / diag(A) for a batch of k x k systems."""
    @tessel.kernel(name=f"jacobi_{k}")
    def step(A: T.In[T.f32, ("B", k, k)], b: T.In[T.f32, ("B", k)], x: T.In[T.f32, ("B", k)],
             out: T.Out[T.f32, ("B", k)]):
        nb = A.shape[0]
        rows, cols = T.domain(0, k), T.domain(0, k)
        r = T.indices(rows)
        for n in T.parallel(T.domain(0, nb)):
            ax = T.matvec(A[n, rows, cols], x[n, cols])
            diag = A[n, r, r]
            out[n, rows] = (b[n, rows] - (ax - diag * x[n, rows])) / diag
    return step


def row_max(k):
    """The largest |A[n, r, c]| of each row (a max reduction over a constant row)."""
    @tessel.kernel(name=f"row_max_{k}")
    def rmax(A: T.In[T.f32, ("B", k, k)], out: T.Out[T.f32, ("B", k)]):
        nb = A.shape[0]
        rows, cols = T.domain(0, k), T.domain(0, k)
        for n in T.parallel(T.domain(0, nb)):
            out[n, rows] = T.max(T.abs(A[n, rows, cols]), axis=1)
    return rmax


KERNELS = {(f, k): f(k) for f in (jacobi, row_max) for k in (13, 64, 67)}
CASES = [(kern, {"B": nb}) for kern in KERNELS.values() for nb in (0, 1, 3, 37)]
IDS = [f"{k.name}-B{s['B']}" for k, s in CASES]


def inputs_for(kernel, shapes):
    """Diagonally dominant systems (the Jacobi step divides by the diagonal)."""
    k = int(kernel.name.rsplit("_", 1)[1])
    rng = np.random.default_rng(3)
    A = rng.standard_normal((shapes["B"], k, k)).astype(np.float32)
    A[:, np.arange(k), np.arange(k)] += np.float32(k)
    out = {"A": A}
    if kernel.name.startswith("jacobi"):
        out["b"] = rng.standard_normal((shapes["B"], k)).astype(np.float32)
        out["x"] = rng.standard_normal((shapes["B"], k)).astype(np.float32)
    return out


@functools.lru_cache(maxsize=None)
def declared(tessel_bin, kernel):
    """The parameter names the pgpu program the interpreter runs declares (`tessel compile --emit=pgpu`), once
    per kernel."""
    with tempfile.TemporaryDirectory() as tmp:
        path = kernel._write(pathlib.Path(tmp), {})
        res = subprocess.run([str(tessel_bin), "compile", f"{path}:{kernel.name}", "--emit=pgpu"], capture_output=True,
                             text=True)
        assert res.returncode == 0, res.stderr
        return set(re.findall(r'#pgpu.param<"(\w+)"', res.stdout))


@pytest.mark.parametrize("binding", [(64, 1), (64, 4), (128, 2), (64, 64)], ids=lambda b: f"BLOCK{b[0]}-ROWS{b[1]}")
@pytest.mark.parametrize("kernel,shapes", CASES, ids=IDS)
def test_pgpu_matches_kir(tessel_bin, kernel, shapes, binding):
    inputs = inputs_for(kernel, shapes)
    ref = run_stage(tessel_bin, kernel, shapes, "kir", {}, inputs)  # once per case (interp_cli)
    params = {n: v for n, v in (("BLOCK", binding[0]), ("ROWS", binding[1])) if n in declared(tessel_bin, kernel)}
    got = run_stage(tessel_bin, kernel, shapes, "pgpu", params, inputs)
    assert ref.keys() == got.keys()
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("kernel,shapes", CASES, ids=IDS)
def test_triton_call_defaults_match_kir(kernel, shapes, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    inputs = inputs_for(kernel, shapes)
    ref = kernel.run_interp(shapes, seed=5, inputs=inputs)
    views = [p for p in kernel.params() if p.kind == "view"]
    args = [torch.from_numpy(inputs[p.name]) if p.name in inputs else torch.full(ref["out"].shape, float("nan"))
            for p in views]
    kernel(*args)
    np.testing.assert_allclose(args[-1].numpy(), ref["out"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("k,block", [(13, 16), (64, 64), (67, 128)])
def test_constant_row_covers_block(k, block):
    """BLOCK covers the constant row; at corpus 161's batch (B = 65536) the call binds the smallest
    candidate holding it and packs rows, so the launch is not one program per row."""
    torch = pytest.importorskip("torch")
    kernel = KERNELS[(jacobi, k)]
    src = kernel.source("triton")
    line = next(ln for ln in src.splitlines() if ln.startswith(f"{kernel.name}_COVERS = "))
    assert eval(line.split(" = ", 1)[1]) == {"BLOCK": str(k)}
    B = 65536
    A = torch.empty((B, k, k), device="meta")
    v = torch.empty((B, k), device="meta")
    chosen = kernel.call_defaults(A, v, v, torch.empty_like(v))
    assert chosen["BLOCK"] == block
    assert chosen["ROWS"] > 1
