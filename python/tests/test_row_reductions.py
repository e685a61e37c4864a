"""Kernel-level reductions over rows spread across programs (pgpu-split-row-reductions, issue 41).

Several kernel-level reductions over the same rows (a count of kept rows and sums of per-row losses,
each row's value itself a logsumexp: bench/corpus/183_cross_entropy_zloss), or one whose element is
a row reduction, ran in one program that walked every row once per reduction. The pass cuts the rows
into FOLD_SPLITS contiguous slices, one program each; each program stores its partials to workspace
and the last arrival merges them in program order with each reduction's combine, then computes the
scalar expression (`sum / count`) and stores it. One launch, deterministic bits at one binding.

Differential: the pgpu interpreter in shuffled program order against the KIR interpreter at N over 0,
1, 2, primes and non-multiples of every block size, several FOLD_SPLIT bindings (1, more programs
than rows, fewer), all rows ignored (0 / 0: NaN both ways); the generated Triton under
TRITON_INTERPRET=1, bit-identical on a second call. Must not fire: a workset after the reductions
that reads their scalar (an elementwise output scaled by the sum stays in the one program).

A row whose statistics reduce several axes (a sample's sums over C x H x W, corpus 247's Dice loss)
is sliced too: max(rows, 1) * FOLD_SPLITS programs, each a row's slice of the flattened walks, the
last arrival merging each row's slices before the row's expression. Differential at N = 0, 1 and odd
C, H, W (an empty walk, one member, primes), FOLD_SPLIT 1, 4 and 1024 (more slices than members).
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
def ce_zloss(logits: T.In[T.f32, ("N", "V")], labels: T.In[T.i32, ("N",)], loss: T.Out[T.f32, (1,)]):
    """Mean cross-entropy plus a z-loss over the rows whose label is not -100."""
    N, V = logits.shape
    rows, vocab = T.domain(0, N), T.domain(0, V)
    z = logits[rows, vocab]
    mx = T.max(z, axis=1)
    lse = mx + T.log(T.sum(T.exp(z - mx), axis=1))
    lab = labels[rows]
    kept = lab != -100
    target = logits[rows, T.where(kept, lab, 0)]
    n_kept = T.sum(T.where(kept, 1.0, 0.0, dtype=T.f32))
    ce = T.sum(T.where(kept, lse - target, 0.0))
    zl = T.sum(T.where(kept, lse * lse, 0.0))
    loss[0] = (ce + 1e-4 * zl) / n_kept


@tessel.kernel
def peak_row_sum(x: T.In[T.f32, ("N", "V")], peak: T.Out[T.f32, (1,)]):
    """One kernel-level maximum whose element is a row sum (a nested reduction)."""
    N, V = x.shape
    rows, cols = T.domain(0, N), T.domain(0, V)
    peak[0] = T.max(T.sum(x[rows, cols], axis=1))


@tessel.kernel
def ratio(x: T.In[T.f32, ("N",)], out: T.Out[T.f32, (1,)]):
    """Two flat kernel-level reductions of one range (a sum and a minimum) and their ratio."""
    N = x.shape[0]
    elems = T.domain(0, N)
    s = T.sum(x[elems] * x[elems])
    m = T.min(x[elems])
    out[0] = m / (s + 1.0)


@tessel.kernel
def scaled_rows(x: T.In[T.f32, ("N", "V")], y: T.Out[T.f32, ("N",)]):
    """Must not fire: a workset after the reductions reads their scalar."""
    N, V = x.shape
    rows, cols = T.domain(0, N), T.domain(0, V)
    r = T.sum(x[rows, cols], axis=1)
    total = T.sum(r * r)
    y[rows] = r / (total + 1.0)


@tessel.kernel
def sample_overlap(x: T.In[T.f32, ("N", "C", "H", "W")], t: T.In[T.f32, ("N", "C", "H", "W")],
                   out: T.Out[T.f32, (1,)]):
    """Per sample: sum(x * t) over its channels and pixels against sum(x) + sum(t); their ratio summed."""
    N, C, H, W = x.shape
    ns, cs, hs, ws = T.domain(0, N), T.domain(0, C), T.domain(0, H), T.domain(0, W)
    a = T.exp(-abs(x[ns, cs, hs, ws]))
    b = t[ns, cs, hs, ws]
    both = T.sum(a * b, axis=(1, 2, 3))
    each = T.sum(a, axis=(1, 2, 3)) + T.sum(b * b, axis=(1, 2, 3))
    out[0] = T.sum((both + 1.0) / (each + 1.0))


@tessel.kernel
def two_losses(x: T.In[T.f32, ("N", "V")], y: T.In[T.f32, ("N", "V")], a: T.Out[T.f32, (1,)],
               b: T.Out[T.f32, (1,)]):
    """Two kernel-level outputs, each its own segment of the launch's dispatch chain (corpus 274's
    `loss[0]` and `clip_frac[0]`): a mean of per-row masked means, and a masked fraction over both axes
    divided by the total count (a sum of row counts)."""
    N, V = x.shape
    rows, cols = T.domain(0, N), T.domain(0, V)
    w = T.where(y[rows, cols] > 0.0, 1.0, 0.0, dtype=T.f32)
    count = T.sum(w, axis=1)
    a[0] = T.sum(T.sum(x[rows, cols] * w, axis=1) / T.maximum(count, 1.0)) / T.cast(N, T.f32)
    big = T.where(x[rows, cols] > 0.5, 1.0, 0.0, dtype=T.f32)
    b[0] = T.sum(big * w) / T.maximum(T.sum(count), 1.0)


@tessel.kernel
def two_axes(x: T.In[T.f32, ("N", "V")], a: T.Out[T.f32, (1,)], b: T.Out[T.f32, (1,)]):
    """Two kernel-level segments over different rows (corpus 256: the load-balance loss over experts,
    the z-loss over tokens): a sum over the rows of row maxima, a sum over the columns of column
    maxima; each segment splits its own rows."""
    N, V = x.shape
    rows, cols = T.domain(0, N), T.domain(0, V)
    a[0] = T.sum(T.max(x[rows, cols], axis=1))
    b[0] = T.sum(T.max(x[rows, cols], axis=0))


def run_both(tessel_bin, tmp_path, kernel, shape, seed, binding, inputs=()):
    """(KIR outputs' folder, pgpu program text, pgpu outputs' folder) of `kernel` at `shape`: the KIR
    interpreter, and the pgpu interpreter after the shared pipeline with `binding`, shuffled programs."""
    source = kernel._write(tmp_path, {})
    given = [a for name, path in inputs for a in ("--in", f"{name}={path}")]
    kir = tmp_path / "kir"
    subprocess.run([str(tessel_bin), "run", str(source), "--stage", "kir", "--shape", shape, "--seed", str(seed),
                    "--out", str(kir), *given], check=True, capture_output=True)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    out = tmp_path / "pgpu"
    res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--seed", str(seed), "--order",
                          "shuffle", "--out", str(out), *given, *[f"--param={k}={v}" for k, v in binding.items()]],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return kir, program.read_text(), out


def close(got, want, rtol=1e-5):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol, atol=1e-5,
                               equal_nan=True)


def labels_file(tmp_path, n, v, ignored, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, max(v, 1), size=n).astype(np.int32)
    labels[rng.random(n) < ignored] = -100
    path = tmp_path / "labels.npy"
    np.save(path, labels)
    return [("labels", path)]


@pytest.mark.parametrize("split", [1, 4, 1024])
@pytest.mark.parametrize("n,v", [(0, 5), (1, 1), (2, 7), (13, 127), (61, 129), (131, 67)])
def test_ce_zloss_rows_split_matches_kir(tessel_bin, tmp_path, n, v, split):
    given = labels_file(tmp_path, n, v, 0.25, n + v)
    kir, text, out = run_both(tessel_bin, tmp_path, ce_zloss, f"N={n},V={v}", 3, {"BLOCK": 64, "FOLD_SPLIT": split},
                              given)
    # The rows are the programs' (an axis `fold_split`), the partials merged by the last arrival.
    assert 'roles ["fold_split"]' in text and "pgpu.last_program" in text
    assert '#pgpu.param<"FOLD_SPLIT", [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192], 1>' in text
    want = np.load(kir / "loss.npy")
    assert n == 0 or np.isfinite(want).all() or not (np.load(given[0][1]) != -100).any()
    close(np.load(out / "loss.npy"), want)


@pytest.mark.parametrize("split", [1, 8])
@pytest.mark.parametrize("n", [1, 17])
def test_ce_zloss_all_rows_ignored(tessel_bin, tmp_path, n, split):
    """Every label -100: the count is 0 and the loss 0 / 0 (NaN) in both interpreters."""
    given = labels_file(tmp_path, n, 31, 1.1, 7)
    kir, text, out = run_both(tessel_bin, tmp_path, ce_zloss, f"N={n},V=31", 5, {"BLOCK": 64, "FOLD_SPLIT": split},
                              given)
    assert np.isnan(np.load(kir / "loss.npy")).all()
    assert np.isnan(np.load(out / "loss.npy")).all()


@pytest.mark.parametrize("split", [2, 1024])
@pytest.mark.parametrize("n,v", [(1, 1), (3, 127), (97, 65)])
def test_max_of_row_sums_split(tessel_bin, tmp_path, n, v, split):
    kir, text, out = run_both(tessel_bin, tmp_path, peak_row_sum, f"N={n},V={v}", 4, {"BLOCK": 64, "FOLD_SPLIT": split})
    assert 'roles ["fold_split"]' in text
    close(np.load(out / "peak.npy"), np.load(kir / "peak.npy"))


@pytest.mark.parametrize("split", [1, 16, 1024])
@pytest.mark.parametrize("n", [0, 1, 2, 127, 2053, 4099])
def test_two_flat_reductions_split(tessel_bin, tmp_path, n, split):
    kir, text, out = run_both(tessel_bin, tmp_path, ratio, f"N={n}", 6, {"BLOCK": 64, "FOLD_SPLIT": split})
    assert 'roles ["fold_split"]' in text and text.count("pgpu.last_program") == 1
    close(np.load(out / "out.npy"), np.load(kir / "out.npy"))


@pytest.mark.parametrize("split", [1, 4, 1024])
@pytest.mark.parametrize("n,v", [(0, 3), (1, 1), (17, 131)])
def test_chain_segments_split(tessel_bin, tmp_path, n, v, split):
    """Both kernel-level segments of the chain split (each its own ticket), one FOLD_SPLITS for both."""
    kir, text, out = run_both(tessel_bin, tmp_path, two_losses, f"N={n},V={v}", 8, {"BLOCK": 64, "FOLD_SPLIT": split})
    assert text.count('roles ["fold_split"]') == 2 and text.count("pgpu.last_program") == 2, text
    for name in ("a", "b"):
        close(np.load(out / f"{name}.npy"), np.load(kir / f"{name}.npy"))


@pytest.mark.parametrize("split", [1, 4, 1024])
@pytest.mark.parametrize("n,v", [(1, 1), (2, 67), (37, 5)])
def test_chain_segments_of_different_rows_split(tessel_bin, tmp_path, n, v, split):
    """Each segment its own FOLD_SPLITS (FOLD_SPLITS, FOLD_SPLITS_1) from its own rows."""
    kir, text, out = run_both(tessel_bin, tmp_path, two_axes, f"N={n},V={v}", 9, {"BLOCK": 64, "FOLD_SPLIT": split})
    assert text.count('roles ["fold_split"]') == 2 and '"FOLD_SPLITS_1"' in text, text
    for name in ("a", "b"):
        close(np.load(out / f"{name}.npy"), np.load(kir / f"{name}.npy"))


@pytest.mark.parametrize("n", [0, 1, 37])
def test_workset_reading_the_scalar_is_not_split(tessel_bin, tmp_path, n):
    kir, text, out = run_both(tessel_bin, tmp_path, scaled_rows, f"N={n},V=29", 2, {"BLOCK": 64})
    assert "pgpu-split-row-reductions" not in text and 'roles ["fold_split"]' not in text
    close(np.load(out / "y.npy"), np.load(kir / "y.npy"))


@pytest.mark.parametrize("n,v", [(1, 1), (17, 1031), (61, 99)])
@pytest.mark.parametrize("split", [4, 1024])
def test_triton_ce_zloss_matches_kir(tmp_path, monkeypatch, n, v, split):
    """The generated Triton under TRITON_INTERPRET=1: FOLD_SPLITS programs, the same bits twice."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    params = {"BLOCK": 64, "FOLD_SPLIT": split}
    src = ce_zloss.source("triton", {}, params)
    assert "_grid = (1, 1, 1)" not in src
    rng = np.random.default_rng(n)
    lab = rng.integers(0, v, size=n).astype(np.int32)
    lab[rng.random(n) < 0.25] = -100
    ref = ce_zloss.run_interp({"N": n, "V": v}, {}, {}, seed=9, inputs={"labels": lab})
    logits, labels = (torch.from_numpy(np.array(ref[k])) for k in ("logits.in", "labels.in"))
    launch = ce_zloss._launcher({}, params)
    first = None
    for _ in range(2):
        loss = torch.full((1,), float("nan"), dtype=torch.float32)
        launch(logits, labels, loss)
        close(loss.numpy(), np.asarray(ref["loss"], np.float32), rtol=1e-4)
        if first is None:
            first = loss.clone()
        else:
            assert torch.equal(first, loss) or (torch.isnan(first).all() and torch.isnan(loss).all())


@pytest.mark.parametrize("split", [1, 4, 1024])
@pytest.mark.parametrize("shape", ["N=0,C=2,H=3,W=3", "N=1,C=1,H=1,W=1", "N=2,C=3,H=5,W=7", "N=3,C=2,H=13,W=31",
                                   "N=5,C=1,H=0,W=3"])
def test_sample_statistics_sliced_match_kir(tessel_bin, tmp_path, shape, split):
    kir, text, out = run_both(tessel_bin, tmp_path, sample_overlap, shape, 8, {"BLOCK": 64, "FOLD_SPLIT": split})
    # One walk per program (a row's slice of the flattened C x H x W), the slices merged per row.
    assert 'roles ["fold_split"]' in text and text.count("pgpu.last_program") == 1
    close(np.load(out / "out.npy"), np.load(kir / "out.npy"))


def test_triton_sample_statistics_sliced(tmp_path, monkeypatch):
    """The generated Triton under TRITON_INTERPRET=1: rows * FOLD_SPLITS programs, one walk each."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    params = {"BLOCK": 64, "FOLD_SPLIT": 4}
    src = sample_overlap.source("triton", {}, params)
    assert "_grid = (1, 1, 1)" not in src
    shape = {"N": 3, "C": 2, "H": 5, "W": 13}
    ref = sample_overlap.run_interp(shape, {}, {}, seed=9)
    x, t = (torch.from_numpy(np.array(ref[k])) for k in ("x.in", "t.in"))
    launch = sample_overlap._launcher({}, params)
    first = None
    for _ in range(2):
        out = torch.full((1,), float("nan"), dtype=torch.float32)
        launch(x, t, out)
        close(out.numpy(), np.asarray(ref["out"], np.float32), rtol=1e-4)
        first = out.clone() if first is None else first
        assert torch.equal(first, out)
