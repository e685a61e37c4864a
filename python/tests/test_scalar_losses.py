"""A kernel-level scalar loss beside its elementwise gradient (bench/corpus/97_mse_loss_grad: loss =
mean((p - t)^2) as [1], grad = 2 (p - t) / N): construction launches two segments, the loss's one
instance and the gradient's members. pgpu-refine-mapping blocks the gradient's segment like a sole
elementwise group (BLOCK_P members a program), whatever segment shares the launch; pgpu-form-blocking
makes the loss's blocks a region fold; pgpu-fold-in-walks then folds it inside the gradient's walk:
each program's blocks also add into a carried [BLOCK] summary (one read of p and t for both), the
program stores its reduced scalar at [p] of workspace [WALK_PARTIALS], and the last arrival loads
the scalars 1024 at a time and reduces them in program order (deterministic). A loss alone (no walk
beside it) is cut by pgpu-split-folds into FOLD_SPLIT segments instead.

Differential: at N over 0, 1, 2, 127, 2053 (prime) and 4099 (non-multiples of every block size), the
pgpu interpreter in shuffled program order computes what the KIR interpreter computes, at several
bindings (BLOCK_P, BLOCK; FOLD_SPLIT 1 to 1024 where the split applies: capped at the tile count,
empty segments); the generated Triton under TRITON_INTERPRET=1 too, bit-identically on a second call.
"""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T

PIPELINE = ["--tessel-pipeline=stop-after=realize-folds"]


@tessel.kernel
def mse_grad(pred: T.In[T.f32, ("N",)], target: T.In[T.f32, ("N",)],
             loss: T.Out[T.f32, (1,)], grad: T.Out[T.f32, ("N",)]):
    N = pred.shape[0]
    elems = T.domain(0, N)
    nf = T.cast(N, T.f32)
    diff = pred[elems] - target[elems]
    loss[0] = T.sum(diff * diff) / nf
    grad[elems] = 2.0 * diff / nf


@tessel.kernel
def sum_squares(x: T.In[T.f32, ("N",)], total: T.Out[T.f32, (1,)]):
    """A kernel-level scalar reduction alone."""
    N = x.shape[0]
    elems = T.domain(0, N)
    total[0] = T.sum(x[elems] * x[elems])


@tessel.kernel
def peak_and_total(x: T.In[T.f32, ("N",)], peak: T.Out[T.f32, (1,)]):
    """A kernel-level maximum: the segments' scalars combine by max, -inf past FOLD_SPLITS."""
    N = x.shape[0]
    elems = T.domain(0, N)
    peak[0] = T.max(x[elems] * 3.0 - 1.0)


SIZES = [0, 1, 2, 127, 2053, 4099]


def run_both(tessel_bin, tmp_path, kernel, n, seed, binding):
    """(KIR outputs' folder, pgpu program text, pgpu outputs' folder) of `kernel` at N = n: the KIR
    interpreter, and the pgpu interpreter after the shared pipeline with `binding`, shuffled programs."""
    source = kernel._write(tmp_path, {})
    shape = f"N={n}"
    kir = tmp_path / "kir"
    subprocess.run([str(tessel_bin), "run", str(source), "--stage", "kir", "--shape", shape, "--seed", str(seed),
                    "--out", str(kir)], check=True, capture_output=True)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    out = tmp_path / "pgpu"
    res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--seed", str(seed), "--order",
                          "shuffle", "--out", str(out), *[f"--param={k}={v}" for k, v in binding.items()]],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return kir, program.read_text(), out


def close(got, want):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("block", [64, 512])
@pytest.mark.parametrize("block_p", [256, 2048])
@pytest.mark.parametrize("n", SIZES)
def test_blocked_gradient_beside_loss_matches_kir(tessel_bin, tmp_path, n, block_p, block):
    kir, text, out = run_both(tessel_bin, tmp_path, mse_grad, n, 3, {"BLOCK_P": block_p, "BLOCK": block})
    # The gradient's segment is blocked (BLOCK_P members a program, not one) and folds the loss in
    # its walk: one scalar a program to workspace, the last arrival combining them; no second segment.
    assert 'pgpu.param "BLOCK_P"' in text
    assert 'pgpu.workspace_extent "WALK_PARTIALS"' in text and "pgpu.last_program" in text
    assert "pgpu.region_fold" not in text and text.count("pgpu.execution_group") == 1
    grad = np.load(kir / "grad.npy")
    assert n == 0 or np.all(grad != 0)
    close(np.load(out / "grad.npy"), grad)
    close(np.load(out / "loss.npy"), np.load(kir / "loss.npy"))


@tessel.kernel
def peak_and_scaled(x: T.In[T.f32, ("N",)], peak: T.Out[T.f32, (1,)], y: T.Out[T.f32, ("N",)]):
    """A kernel-level maximum beside an elementwise output of the same input."""
    N = x.shape[0]
    elems = T.domain(0, N)
    peak[0] = T.max(x[elems] * 3.0 - 1.0)
    y[elems] = x[elems] * 2.0


@pytest.mark.parametrize("block_p", [256, 2048])
@pytest.mark.parametrize("n", [1, 2, 127, 2053, 4099])
def test_walk_max_beside_output_matches_kir(tessel_bin, tmp_path, n, block_p):
    """The programs' maxima combine by max, -inf past the programs (partials loaded 1024 at a time)."""
    kir, text, out = run_both(tessel_bin, tmp_path, peak_and_scaled, n, 9, {"BLOCK_P": block_p, "BLOCK": 64})
    assert 'pgpu.workspace_extent "WALK_PARTIALS"' in text
    np.testing.assert_array_equal(np.load(out / "peak.npy"), np.load(kir / "peak.npy"))
    np.testing.assert_array_equal(np.load(out / "y.npy"), np.load(kir / "y.npy"))


def test_walk_partials_past_one_block(tessel_bin, tmp_path):
    """1031 programs (BLOCK_P 256): the last arrival loads the partials in two [1024] blocks, the second
    masked past 1031. The loss is checked against the float64 mean: the KIR interpreter's sequential
    f32 sum drifts by ~1e-4 relative at this length, the programs' partial sums much less."""
    n = 256 * 1030 + 5
    kir, text, out = run_both(tessel_bin, tmp_path, mse_grad, n, 11, {"BLOCK_P": 256, "BLOCK": 256})
    close(np.load(out / "grad.npy"), np.load(kir / "grad.npy"))
    d = np.load(kir / "pred.in.npy").astype(np.float64) - np.load(kir / "target.in.npy").astype(np.float64)
    np.testing.assert_allclose(np.load(out / "loss.npy"), [np.mean(d * d)], rtol=2e-6)
    (tmp_path / "peak").mkdir()
    kir, text, out = run_both(tessel_bin, tmp_path / "peak", peak_and_scaled, n, 12, {"BLOCK_P": 256, "BLOCK": 256})
    np.testing.assert_array_equal(np.load(out / "peak.npy"), np.load(kir / "peak.npy"))


@tessel.kernel
def shifted_loss(x: T.In[T.f32, ("N",)], loss: T.Out[T.f32, (1,)], y: T.Out[T.f32, ("N",)]):
    """A loss over x[1:] beside an output over all of x: the fold's range is not the walk's (not
    folded in the walk; pgpu-split-folds cuts the loss instead)."""
    N = x.shape[0]
    loss[0] = T.sum(x[T.domain(1, N)])
    y[T.domain(0, N)] = x[T.domain(0, N)] + 1.0


@pytest.mark.parametrize("n", [2, 127, 2053])
def test_shifted_loss_stays_split(tessel_bin, tmp_path, n):
    kir, text, out = run_both(tessel_bin, tmp_path, shifted_loss, n, 5, {"BLOCK_P": 256, "BLOCK": 64, "FOLD_SPLIT": 4})
    assert "WALK_PARTIALS" not in text and 'pgpu.workspace_extent "FOLD_SPLITS"' in text
    close(np.load(out / "loss.npy"), np.load(kir / "loss.npy"))
    np.testing.assert_array_equal(np.load(out / "y.npy"), np.load(kir / "y.npy"))


@pytest.mark.parametrize("split", [1, 4, 256])
@pytest.mark.parametrize("n", SIZES)
def test_split_scalar_sum_matches_kir(tessel_bin, tmp_path, n, split):
    """A kernel-level sum alone: its one point's blocks cut into FOLD_SPLIT segments (up to 1024)."""
    kir, text, out = run_both(tessel_bin, tmp_path, sum_squares, n, 6, {"BLOCK": 64, "FOLD_SPLIT": split})
    assert "pgpu.last_program" in text and '"FOLD_SPLIT", [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]' in text
    close(np.load(out / "total.npy"), np.load(kir / "total.npy"))


@pytest.mark.parametrize("split", [2, 16, 1024])
@pytest.mark.parametrize("n", SIZES)
def test_split_max_combines_segment_scalars(tessel_bin, tmp_path, n, split):
    """A kernel-level max cut into FOLD_SPLIT segments: each stores its lanes' max as one scalar at
    [point, segment] and the last arrival reduces the FOLD_SPLITS scalars as one [1024] fragment (the
    identity, -inf, past FOLD_SPLITS and in empty segments)."""
    kir, text, out = run_both(tessel_bin, tmp_path, peak_and_total, n, 8, {"BLOCK": 64, "FOLD_SPLIT": split})
    assert "!pgpu.buffer<f32, [FOLD_POINTS, FOLD_SPLITS], workspace>" in text
    assert "!pgpu.fragment<f32, [1024]>" in text
    np.testing.assert_array_equal(np.load(out / "peak.npy"), np.load(kir / "peak.npy"))  # max: exact


@pytest.mark.parametrize("n", [1, 127, 4099])
@pytest.mark.parametrize("split", [4, 1024])
def test_triton_split_max_matches_kir(tmp_path, monkeypatch, n, split):
    """The generated Triton of the split max under TRITON_INTERPRET=1: one masked [1024] load of the
    segments' scalars in the last arrival, no walk of [BLOCK] summaries."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    params = {"BLOCK": 64, "FOLD_SPLIT": split}
    src = peak_and_total.source("triton", {}, params)
    assert "tl.arange(0, 1024)" in src and "cache_modifier='.cg'" in src
    ref = peak_and_total.run_interp({"N": n}, {}, {}, seed=9)
    x = torch.from_numpy(np.array(ref["x.in"]))
    launch = peak_and_total._launcher({}, params)
    for _ in range(2):
        peak = torch.full((1,), float("nan"), dtype=torch.float32)
        launch(x, peak)
        np.testing.assert_array_equal(peak.numpy(), np.asarray(ref["peak"], np.float32))


@pytest.mark.parametrize("n", [1, 127, 4099])
@pytest.mark.parametrize("block_p", [256, 2048])
def test_triton_loss_and_gradient_match_kir(tmp_path, monkeypatch, n, block_p):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    params = {"BLOCK_P": block_p, "BLOCK": 64}
    src = mse_grad.source("triton", {}, params)
    ref = mse_grad.run_interp({"N": n}, {}, {}, seed=4)
    pred, target = (torch.from_numpy(np.array(ref[k])) for k in ("pred.in", "target.in"))
    launch = mse_grad._launcher({}, params)
    first = None
    for _ in range(2):
        loss = torch.full((1,), float("nan"), dtype=torch.float32)
        grad = torch.full((n,), float("nan"), dtype=torch.float32)
        launch(pred, target, loss, grad)
        close(grad.numpy(), ref["grad"])
        close(loss.numpy(), ref["loss"])
        if first is None:
            first = loss.clone()
        assert torch.equal(first, loss)  # the same association on every call: deterministic
    # One walk reads pred and target once for the gradient and the loss.
    assert src.count("tl.load(pred +") == 2  # the walk's full blocks and its masked tail
    assert "tl.atomic_add" in src


def test_split_default_for_one_point():
    """The corpus bench shape (N = 64M): a loss alone takes a FOLD_SPLIT of about 8 programs a
    multiprocessor (1024 on 132: its segments' scalars combine in one block)."""
    torch = pytest.importorskip("torch")
    big = 64 * 1024 * 1024
    views = lambda n: (torch.empty((n,), device="meta"), torch.empty((n,), device="meta"),
                       torch.empty((1,), device="meta"), torch.empty((n,), device="meta"))
    # The loss beside its gradient is folded in the gradient's walk: nothing to split.
    assert "FOLD_SPLIT" not in mse_grad.call_defaults(*views(big))
    assert sum_squares.call_defaults(torch.empty((big,), device="meta"),
                                     torch.empty((1,), device="meta"))["FOLD_SPLIT"] == 1024
