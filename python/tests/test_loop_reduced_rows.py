"""A row reduced in every trip of an author loop (pgpu-stage-rows) against the KIR interpreter.

A bisection on a per-row threshold (sparsemax's: sum(max(x - mid, 0)) compared with 1, corpus 277) and a
fixed-point iteration that reduces the row only inside its loop. Where the row fits one block
(0 < N <= BLOCK) the staged path reads the row once before the author loop; longer rows keep a blocked
loop, and its read, in every trip. Both paths must compute what the KIR interpreter computes at lengths
0, 1, primes, BLOCK and past it, in the pgpu interpreter and in the generated Triton (TRITON_INTERPRET=1).
"""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from test_stage_rows import run  # noqa: E402


@tessel.kernel
def bisect_rows(z: T.In[T.f32, ("N", "V")], y: T.Out[T.f32, ("N", "V")]):
    N, V = z.shape
    cols = T.domain(0, V)
    for n in T.parallel(T.domain(0, N)):
        row = z[n, cols]
        hi = T.max(row)
        lo = hi - 1.0
        for _ in T.domain(0, 12):
            mid = (lo + hi) * 0.5
            if T.sum(T.maximum(row - mid, 0.0)) > 1.0:
                lo = mid
            else:
                hi = mid
        y[n, cols] = T.maximum(row - (lo + hi) * 0.5, 0.0)


@tessel.kernel
def fixed_point_rows(x: T.In[T.f32, ("M", "N")], t: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        s = 0.0
        for _ in T.domain(0, 5):
            s = 0.5 * s + 0.01 * T.sum(T.tanh(row - s))
        t[m] = s


KERNELS = [(bisect_rows, "N", "V"), (fixed_point_rows, "M", "N")]
IDS = [k[0].name for k in KERNELS]
LENGTHS = [0, 1, 37, 64, 67]


def spec_of(kernel, tmp_path):
    return f"{kernel._write(tmp_path, {})}:{kernel.name}"


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("kernel,rows,length", KERNELS, ids=IDS)
def test_loop_reduced_rows_match_kir(tessel_bin, tmp_path, kernel, rows, length, n):
    spec, shapes = spec_of(kernel, tmp_path), {rows: 3, length: n}
    ref = run(tessel_bin, spec, shapes, {}, "kir", {})
    got = run(tessel_bin, spec, shapes, {}, "pgpu", {"BLOCK": 64})
    assert ref.keys() == got.keys()
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("kernel,rows,length", KERNELS, ids=IDS)
def test_staged_row_is_read_before_the_author_loop(tessel_bin, tmp_path, kernel, rows, length):
    res = subprocess.run([str(tessel_bin), "compile", spec_of(kernel, tmp_path), "--emit=pgpu"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    view = "%z" if kernel is bisect_rows else "%x"
    staged, rest = res.stdout.split("pgpu.if", 1)[1].split("} else {", 1)
    before, loop = staged.split("step %c1", 1)
    assert before.count(f"pgpu.load {view}") == 1 and f"pgpu.load {view}" not in loop
    # past one block the author loop keeps its blocked loop and the read in every trip
    assert f"pgpu.load {view}" in rest.split("step %c1", 1)[1]


@pytest.mark.parametrize("n", [1, 37, 67])
@pytest.mark.parametrize("kernel,rows,length", KERNELS, ids=IDS)
def test_loop_reduced_rows_through_triton(kernel, rows, length, n, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = kernel.run_interp({rows: 3, length: n}, seed=7)
    ins = {k[:-3]: torch.from_numpy(np.array(v)) for k, v in ref.items() if k.endswith(".in")}
    outs = {k: torch.empty(np.shape(v), dtype=torch.float32) for k, v in ref.items() if not k.endswith(".in")}
    names = kernel.fn.__code__.co_varnames[:kernel.fn.__code__.co_argcount]
    kernel._launcher({}, {"BLOCK": 64})(*[ins[p] if p in ins else outs[p] for p in names])
    for k, v in outs.items():
        np.testing.assert_allclose(v.numpy(), ref[k], rtol=1e-5, atol=1e-6, err_msg=k)
