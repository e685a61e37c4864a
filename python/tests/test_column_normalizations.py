"""pgpu-tile-column-reductions on column normalizations: a program per column (`for n in T.parallel(N)`)
whose body reduces the column and walks it again to write it (`y[rows, n] = e / T.sum(e)`, a softmax over
the first axis; a standardization; a scaling by a per-column factor) owns a block of BLOCK_C columns and
walks the rows in [BLOCK_R, BLOCK_C] tiles: each reduction a loop of tiles reduced along BLOCK_R after it,
the write a loop of tiles (before: one column per program, every read and write one element per row). A
cumulative sum down the columns walks the rows in order, each tile scanned along BLOCK_R with one running
sum per column carried from tile to tile (where the provider spells a scan of a 2-d tile: Triton).

Differential: at column extents 0, 1, primes and non-multiples of every block, the pgpu interpreter (at
several BLOCK_R x BLOCK_C bindings) and the generated Triton under TRITON_INTERPRET=1 (declared defaults
and a small tile) compute what the KIR interpreter computes.
"""
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


@tessel.kernel
def softmax_columns(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    rows = T.domain(0, M)
    for n in T.parallel(T.domain(0, N)):
        col = x[rows, n]
        e = T.exp(col - T.max(col))
        y[rows, n] = e / T.sum(e)


@tessel.kernel
def standardize_columns(x: T.In[T.f32, ("B", "M", "N")], y: T.Out[T.f32, ("B", "M", "N")],
                        mean: T.Out[T.f32, ("B", "N")]):
    """Batched, two passes (mean, then the variance about it), a second output per column."""
    B, M, N = x.shape
    rows = T.domain(0, M)
    count = T.cast(T.maximum(M, 1), T.f32)
    for b in T.parallel(T.domain(0, B)):
        for n in T.parallel(T.domain(0, N)):
            col = x[b, rows, n]
            mu = T.sum(col) / count
            d = col - mu
            mean[b, n] = mu
            y[b, rows, n] = d * T.rsqrt(T.sum(d * d) / count + 1e-5)


@tessel.kernel
def scale_columns(x: T.In[T.f32, ("M", "N")], w: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M", "N")]):
    """No reduction: each column scaled by its own factor."""
    M, N = x.shape
    rows = T.domain(0, M)
    for n in T.parallel(T.domain(0, N)):
        y[rows, n] = x[rows, n] * w[n]


@tessel.kernel
def cumsum_columns(x: T.In[T.f32, ("M", "N")], w: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M", "N")]):
    """A scan down the columns (each column its own running sum), of a value computed per element."""
    M, N = x.shape
    rows = T.domain(0, M)
    for n in T.parallel(T.domain(0, N)):
        y[rows, n] = T.cumsum(x[rows, n] * w[n])


CASES = [
    (softmax_columns, {"M": 1, "N": 1}),
    (softmax_columns, {"M": 0, "N": 13}),       # empty columns: nothing written
    (softmax_columns, {"M": 3, "N": 0}),        # no columns: no programs
    (softmax_columns, {"M": 37, "N": 33}),
    (softmax_columns, {"M": 131, "N": 129}),
    (standardize_columns, {"B": 1, "M": 1, "N": 1}),
    (standardize_columns, {"B": 2, "M": 17, "N": 13}),
    (standardize_columns, {"B": 3, "M": 131, "N": 37}),
    (scale_columns, {"M": 1, "N": 1}),
    (scale_columns, {"M": 37, "N": 129}),
    (scale_columns, {"M": 131, "N": 17}),
    (cumsum_columns, {"M": 1, "N": 1}),
    (cumsum_columns, {"M": 0, "N": 5}),
    (cumsum_columns, {"M": 37, "N": 129}),
    (cumsum_columns, {"M": 131, "N": 17}),
]
IDS = [f"{k.name}-{'-'.join(f'{a}{v}' for a, v in s.items())}" for k, s in CASES]


def atol(kernel):
    """A running sum of up to 131 values near 1 regrouped (seed 000 §8): ~eps * sum |x| apart."""
    return 3e-5 if kernel is cumsum_columns else 1e-6


def tiles(r, c):
    return {"BLOCK_R": r, "BLOCK_C": c}


def run_triton_pgpu(tessel_bin, kernel, shapes, params):
    """The pgpu interpreter on the program the pipeline builds for the Triton provider (its capabilities:
    a scan along an axis of a 2-d tile), stopped before the provider's legalization."""
    with tempfile.TemporaryDirectory() as tmp:
        kir = kernel._write(pathlib.Path(tmp), {})
        pgpu, out = os.path.join(tmp, "pgpu.mlir"), os.path.join(tmp, "out")
        opt = [str(tessel_bin.parent / "tessel-opt"), str(kir), "--tessel-pipeline=provider=triton stop-after=realize-folds",
               "-o", pgpu]
        res = subprocess.run(opt, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(opt)}\n{res.stderr}"
        cmd = [str(tessel_bin), "run", f"{pgpu}:{kernel.name}", "--seed", "5", "--out", out,
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items())] + [f"--param={k}={v}" for k, v in params.items()]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        return {p[:-4]: np.load(os.path.join(out, p)) for p in os.listdir(out)}


@pytest.mark.parametrize("tile", [(2, 16), (16, 128), (4, 32)])
@pytest.mark.parametrize("kernel,shapes", CASES, ids=IDS)
def test_pgpu_matches_kir(tessel_bin, kernel, shapes, tile):
    ref = run_stage(tessel_bin, kernel, shapes, "kir", {}, {})
    if kernel is cumsum_columns:  # tiled where the provider spells a 2-d scan: the Triton provider's program
        got = run_triton_pgpu(tessel_bin, kernel, shapes, tiles(*tile))
    else:
        got = run_stage(tessel_bin, kernel, shapes, "pgpu", tiles(*tile), {})
    assert ref.keys() == got.keys()
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=atol(kernel), err_msg=name)


@pytest.mark.parametrize("binding", [None, (4, 16)], ids=["defaults", "4x16"])
@pytest.mark.parametrize("kernel,shapes", CASES, ids=IDS)
def test_triton_matches_kir(kernel, shapes, binding, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = kernel.run_interp(shapes, seed=5)
    views = [p for p in kernel.params() if p.kind == "view"]
    args = []
    for p in views:
        if f"{p.name}.in" in ref:
            args.append(torch.from_numpy(np.array(ref[f"{p.name}.in"])))
        else:  # an output: 7 where nothing is written
            args.append(torch.from_numpy(np.full_like(np.asarray(ref[p.name]), 7)))
    if binding is None:
        kernel(*args)
    else:
        kernel._launcher({}, tiles(*binding))(*args)
    for p, t in zip(views, args):
        if p.name in ref:
            np.testing.assert_allclose(t.numpy(), ref[p.name], rtol=1e-5, atol=atol(kernel), err_msg=p.name)


@pytest.mark.parametrize("kernel", [softmax_columns, standardize_columns, scale_columns, cumsum_columns],
                         ids=lambda k: k.name)
def test_column_blocks_not_columns(kernel):
    """The generated Triton reads and writes [BLOCK_R, BLOCK_C] tiles (the declared defaults 16 x 128),
    a program owns BLOCK_C columns (its count divides the columns by BLOCK_C), no [1, BLOCK] tile of one
    column remains, and the reductions are loops (no fold split: the write pass would be the last
    arrival's alone)."""
    src = kernel.source("triton")
    body = src[src.index(f"def _{kernel.name}_kernel"):]
    body = body[:body.index("\n\n\n")]
    assert re.search(r"tl\.store\(y \+ .*\[16, 128\]|_desc\d\.store\(", body) or "[16, 128]" in body, body
    assert not re.search(r"\[1, \d+\]", body), body
    assert "FOLD_SPLIT" not in src
    programs = src[src.index(f"def {kernel.name}_PROGRAMS"):]
    assert "p['BLOCK_C']" in programs[:programs.index("\n\n\n")]
    stores = re.findall(r"tl\.store\(y \+ \(v\d+\) \* y_stride\d+ \+ \(v\d+\) \* y_stride\d+", body)
    assert stores or "_desc" in body, body
    if kernel is cumsum_columns:  # each trip scans its tile down the rows, the carry one sum per column
        assert re.search(r"tl\.associative_scan\(v\d+, 0, _", body), body
