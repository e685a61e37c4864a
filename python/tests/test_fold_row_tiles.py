"""Region folds with no contraction (issue 41, canonical forms): a row statistic written as a
T.region_fold (logsumexp as a record or tuple of (max, rescaled sum), a sum and sum of squares) is
constructed one row per program, its fold over BLOCK_N-wide row blocks (the row path's BLOCK
candidates, default 512), instead of BLOCK_M lanes of rows in [BLOCK_M, BLOCK_N] tiles. Against the
KIR interpreter on random nonzero inputs (random KIR segmentations):

  * the pgpu interpreter after the shared pipeline (shuffled program order) at one row, prime row
    counts, rows of 0 and 1 columns, columns no multiple of any block, at BLOCK_N 64 and 512 and
    FOLD_SPLIT 1, 2 and 4 (pgpu-split-folds on a row fold: uneven and empty segments);
  * the generated Triton under TRITON_INTERPRET=1, at its defaults and at small blocks with a split;
  * the constructed program: no lanes, the row-block parameter; a fold with a contraction keeps them.
"""
import math
import os
import subprocess

import numpy as np
import pytest

import tessel
import tessel.language as T

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

PIPELINE = ["--tessel-pipeline=stop-after=realize-folds"]


@tessel.fn
def lse_summary(s):
    mx = T.max(s)
    return T.record(m=mx, den=T.sum(T.exp(s - mx)))


@tessel.fn
def lse_combine(a, b):
    mx = T.maximum(a.m, b.m)
    wa = T.where(a.m == mx, 1.0, T.exp(a.m - mx))
    wb = T.where(b.m == mx, 1.0, T.exp(b.m - mx))
    return T.record(m=mx, den=a.den * wa + b.den * wb)


@tessel.kernel
def record_lse(x: T.In[T.f32, ("M", "N")], lse: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        stats = T.region_fold(sources=x[m, cols], axis=0, identity=T.record(m=-math.inf, den=0.0),
                              summarize=lse_summary, combine=lse_combine, operands=())
        lse[m] = stats.m + T.log(stats.den)


@tessel.fn
def moments(s, shift):
    d = s - shift
    return T.sum(d), T.sum(d * d)


@tessel.fn
def add_pairs(a1, b1, a2, b2):
    return a1 + a2, b1 + b2


@tessel.kernel
def row_variance(x: T.In[T.f32, ("M", "N")], shift: T.f32, var: T.Out[T.f32, ("M",)]):
    """A tuple summary with a runtime scalar operand; an empty row is (0, 0): var 0."""
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        s1, s2 = T.region_fold(sources=x[m, cols], axis=0, identity=(0.0, 0.0), summarize=moments,
                               combine=add_pairs, operands=(shift,))
        n = T.maximum(T.cast(N, T.f32), 1.0)
        mean = s1 / n
        var[m] = s2 / n - mean * mean


KERNELS = {"record_lse": (record_lse, "lse", {}), "row_variance": (row_variance, "var", {"shift": 0.25})}

SHAPES = [{"M": 1, "N": 1}, {"M": 3, "N": 127}, {"M": 5, "N": 1031}, {"M": 17, "N": 64}, {"M": 2, "N": 0},
          {"M": 1, "N": 4099}]


def shape_arg(shapes):
    return ",".join(f"{k}={v}" for k, v in shapes.items())


def test_row_fold_call_defaults_cover_the_row():
    """As the row path's BLOCK: the call's BLOCK_N covers N (one tile, the row read once) where a
    candidate does, and FOLD_SPLIT spreads a few long rows over the multiprocessors."""
    torch = pytest.importorskip("torch")
    for (m, n), want in (((8192, 8191), {"BLOCK_N": 8192}), ((64, 1031), {"BLOCK_N": 2048}),
                         ((1, 100000), {"FOLD_SPLIT": 64})):
        x, y = torch.empty(m, n), torch.empty(m)
        got = record_lse._fact_params({}, [x, y]) or {}
        assert {k: got.get(k) for k in want} == want, (m, n, got)


@pytest.mark.parametrize("split", [1, 2, 4])
@pytest.mark.parametrize("block", [64, 512])
@pytest.mark.parametrize("shapes", SHAPES, ids=shape_arg)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_row_fold_matches_kir(tessel_bin, tmp_path, name, shapes, block, split):
    kernel, out, scalars = KERNELS[name]
    if name == "record_lse" and shapes["N"] == 0:
        pytest.skip("an empty row's logsumexp is -inf - inf (checked by the variance kernel)")
    source = kernel._write(tmp_path, None)
    shape = shape_arg(shapes)
    sc = [a for k, v in scalars.items() for a in ("--scalar", f"{k}={v}")]
    kir = tmp_path / "kir"
    subprocess.run([str(tessel_bin), "run", str(source), "--stage", "kir", "--shape", shape, "--seed", "5",
                    "--segments=random", "--out", str(kir), *sc], check=True, capture_output=True)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    text = program.read_text()
    assert "BLOCK_M" not in text and '"BLOCK_N", [64, 128, 256, 512, 1024' in text, text
    res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--seed", "5", "--order",
                          "shuffle", "--out", str(tmp_path / "pgpu"), *sc, f"--param=BLOCK_N={block}",
                          f"--param=FOLD_SPLIT={split}"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    want, got = np.load(kir / f"{out}.npy"), np.load(tmp_path / "pgpu" / f"{out}.npy")
    assert np.isfinite(want).all()
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("params", [None, {"BLOCK_N": 64, "FOLD_SPLIT": 4}], ids=["defaults", "block64-split4"])
@pytest.mark.parametrize("shapes", [{"M": 1, "N": 1}, {"M": 3, "N": 127}, {"M": 7, "N": 1031}, {"M": 2, "N": 0}],
                         ids=shape_arg)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_triton_row_fold_matches_kir(tmp_path, monkeypatch, name, shapes, params):
    torch = pytest.importorskip("torch")
    if name == "record_lse" and shapes["N"] == 0:
        pytest.skip("an empty row's logsumexp is -inf - inf")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel, out, scalars = KERNELS[name]
    ref = kernel.run_interp(shapes, scalars, None, seed=3, segments="random")
    x = torch.from_numpy(np.array(ref["x.in"]))
    y = torch.full((shapes["M"],), float("nan"), dtype=torch.float32)
    launch = kernel._launcher({}, params)
    for _ in range(2):  # a checked call, then a planned one
        launch(x, y, **scalars)
        np.testing.assert_allclose(y.double().numpy(), np.array(ref[out]).astype(np.float64), rtol=2e-5, atol=2e-5)


def test_row_fold_has_no_lanes_and_a_contraction_keeps_them(tmp_path):
    """A fold with no contraction owns one row per program (no lanes); a fold whose summarize holds a
    contraction (a query row's scores against a key tile) keeps BLOCK_M lanes and 64-wide tiles."""
    text = record_lse.compile("pgpu")
    assert '#pgpu.param<"BLOCK_N", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">' in text
    assert "BLOCK_M" not in text

    @tessel.fn
    def dsum(k, q):
        return T.sum(T.contract(q, k, reduce=((0, 1),), acc_dtype=T.f32))

    @tessel.fn
    def add(a, b):
        return a + b

    @tessel.kernel
    def score_sum(q: T.In[T.f32, ("M", "D")], k: T.In[T.f32, ("N", "D")], y: T.Out[T.f32, ("M",)]):
        M, D = q.shape
        N = k.shape[0]
        dd = T.domain(0, D)
        for m in T.parallel(T.domain(0, M)):
            y[m] = T.region_fold(sources=k[T.domain(0, N), dd], axis=0, identity=0.0, summarize=dsum, combine=add,
                                 operands=(q[m, dd],))

    text = score_sum.compile("pgpu")
    assert '#pgpu.param<"BLOCK_M", [16, 32, 64, 128, 256], 64>' in text
    assert '#pgpu.param<"BLOCK_N", [16, 32, 64, 128, 256], 64>' in text
