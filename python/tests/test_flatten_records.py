"""A region fold whose summary is a record reaches the same blocked pgpu as the fold written with one
component per field (kir-flatten-records; issue 41: canonical forms, not spellings). A row logsumexp
(`lse[m] = st.m + log(st.s)`) and the online softmax of examples/online_softmax.py, both record folds:

  * each constructs exactly as its tuple spelling, with no record left; the logsumexp's fold is a
    pgpu.region_fold stepping BLOCK_N members (tiles, not the unit segments of before);
  * the generated Triton under TRITON_INTERPRET=1 matches the KIR interpreter (which runs the record
    fold as written, random segmentations) and a NumPy reference at odd shapes (M, N in 1, 3, 127,
    1031 for the logsumexp; the online softmax, still element-wise, at the smaller ones).
"""
import importlib
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

CONSTRUCT = ["--tessel-pipeline=stop-after=construct"]


@tessel.fn
def lse_summarize(s):
    mx = T.max(s)
    return T.record(m=mx, s=T.sum(T.exp(s - mx)))


@tessel.fn
def lse_combine(a, b):
    mx = T.maximum(a.m, b.m)
    # exp(m - mx) with m == mx taken as 1, so that two empty summaries (m = -inf) stay empty.
    wa = T.where(a.m == mx, 1.0, T.exp(a.m - mx))
    wb = T.where(b.m == mx, 1.0, T.exp(b.m - mx))
    return T.record(m=mx, s=a.s * wa + b.s * wb)


@tessel.kernel
def record_logsumexp(x: T.In[T.f32, ("M", "N")], lse: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        st = T.region_fold(sources=x[m, cols], axis=0, identity=T.record(m=-math.inf, s=0.0),
                           summarize=lse_summarize, combine=lse_combine)
        lse[m] = st.m + T.log(st.s)


@tessel.fn
def tuple_summarize(s):
    mx = T.max(s)
    return mx, T.sum(T.exp(s - mx))


@tessel.fn
def tuple_combine(m1, s1, m2, s2):
    mx = T.maximum(m1, m2)
    w1 = T.where(m1 == mx, 1.0, T.exp(m1 - mx))
    w2 = T.where(m2 == mx, 1.0, T.exp(m2 - mx))
    return mx, s1 * w1 + s2 * w2


@tessel.kernel
def tuple_logsumexp(x: T.In[T.f32, ("M", "N")], lse: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        mx, s = T.region_fold(sources=x[m, cols], axis=0, identity=(-math.inf, 0.0),
                              summarize=tuple_summarize, combine=tuple_combine)
        lse[m] = mx + T.log(s)


def online_softmax(root):
    if str(root / "examples") not in sys.path:
        sys.path.insert(0, str(root / "examples"))
    return importlib.import_module("online_softmax")


def constructed(tessel_bin, kernel, tmp_path):
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(kernel._write(tmp_path, {})), *CONSTRUCT],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    return opt.stdout


def assert_blocked(text):
    """One pgpu.region_fold whose step is the BLOCK_N parameter (tiles, not unit segments), and no
    record anywhere."""
    folds = re.findall(r"pgpu\.region_fold \S+ to \S+ step (%\w+)", text)
    assert len(folds) == 1, text
    assert re.search(rf'{re.escape(folds[0])} = pgpu\.param "BLOCK_N"', text), text
    assert "kir.record" not in text and "record<" not in text, text


def test_record_fold_is_blocked_like_its_tuple_spelling(tessel_bin, tmp_path):
    record = constructed(tessel_bin, record_logsumexp, tmp_path)
    assert_blocked(record)
    spelled = constructed(tessel_bin, tuple_logsumexp, tmp_path)
    # Same program up to the kernel's name and source locations.
    strip = lambda t: re.sub(r"(record|tuple)_logsumexp", "K", t)  # noqa: E731
    assert strip(record) == strip(spelled)


@tessel.fn
def softmax_summarize(s):
    mx = T.max(s)
    return mx, T.sum(T.exp(s - mx))


@tessel.fn
def softmax_combine(m1, d1, m2, d2):
    mx = T.maximum(m1, m2)
    w1 = T.where(m1 == mx, 1.0, T.exp(m1 - mx))
    w2 = T.where(m2 == mx, 1.0, T.exp(m2 - mx))
    return mx, d1 * w1 + d2 * w2


@tessel.kernel(numerics="relaxed_normalization")
def tuple_online_softmax(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        mx, den = T.region_fold(sources=row, axis=0, identity=(-math.inf, 0.0),
                                summarize=softmax_summarize, combine=softmax_combine)
        y[m, cols] = T.exp(row - mx) / den


def test_online_softmax_reaches_its_tuple_spelling(tessel_bin, root, tmp_path):
    """examples/online_softmax.py constructs exactly as its tuple spelling, with no record left. Its
    fold stays element-wise for a reason of its own (the row it folds is stored after the fold: 'a
    value over a fold's domain is used outside the fold'), which the tuple spelling shares."""
    record = constructed(tessel_bin, online_softmax(root).online_softmax, tmp_path)
    spelled = constructed(tessel_bin, tuple_online_softmax, tmp_path)
    assert "kir.record" not in record and "record<" not in record, record
    strip = lambda t: re.sub(r"(tuple_)?online_softmax", "K", t)  # noqa: E731
    assert strip(record) == strip(spelled)


def test_remarks_say_what_was_flattened(tessel_bin, tmp_path):
    kir = tmp_path / "k.mlir"
    kir.write_text(record_logsumexp.kir({}).replace("#kir.compile_options<>",
                                                    "#kir.compile_options<optimization_remarks = true>"))
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(kir), "-kir-flatten-records"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert ("kir-flatten-records: the region fold's component 0 !kir.record<m: f32, s: f32> folded as its "
            "fields") in res.stderr, res.stderr
    assert "kir.record" not in res.stdout and "kir.region_fold" in res.stdout


# M, N in 1, 3, 127, 1031, at the declared blocks; the CPU interpreter pays per program and per tile,
# so no shape has both extents past 127.
SHAPES = [(m, n) for m in (1, 3, 127, 1031) for n in (1, 3, 127, 1031) if min(m, n) <= 3 or max(m, n) <= 127]
# The online softmax folds element by element (see above), one interpreted scalar step per member.
SOFTMAX_SHAPES = [(1, 1), (1, 3), (3, 1), (3, 3), (1, 127), (127, 1)]


def run_triton(kernel, x, out_shape):
    out = torch.empty(out_shape, dtype=torch.float32)
    kernel(torch.from_numpy(x), out)
    return out.numpy()


@pytest.mark.parametrize("m,n", SHAPES, ids=[f"M{m}-N{n}" for m, n in SHAPES])
def test_logsumexp_matches_interpreter_and_numpy(m, n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = record_logsumexp.run_interp({"M": m, "N": n}, seed=5, segments="random")
    x = np.array(ref["x.in"])
    got = run_triton(record_logsumexp, x, (m,))
    np.testing.assert_allclose(got, ref["lse"], rtol=1e-5, atol=1e-5)
    x64 = x.astype(np.float64)
    want = np.log(np.exp(x64 - x64.max(axis=1, keepdims=True)).sum(axis=1)) + x64.max(axis=1)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("m,n", SOFTMAX_SHAPES, ids=[f"M{m}-N{n}" for m, n in SOFTMAX_SHAPES])
def test_online_softmax_matches_interpreter_and_numpy(root, m, n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    example = online_softmax(root)
    ref = example.online_softmax.run_interp({"M": m, "N": n}, seed=5, segments="random")
    x = np.array(ref["x.in"])
    got = run_triton(example.online_softmax, x, (m, n))
    np.testing.assert_allclose(got, ref["y"], rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(got.astype(np.float64), example.reference(x), rtol=1e-5, atol=1e-7)
