"""pgpu-narrow-selected-reads (NarrowSelectedReads.cpp): a read whose lanes a select discards reads only the
lanes the select keeps, so a length-masked row (`T.where(t < lengths[b], x[b, keys], -inf)`, corpus 187) reads
no key past its length. Against the KIR interpreter: the pgpu interpreter after the whole pipeline (shuffled
order) at a BLOCK covering the row (the staged single-block path) and one that does not (the blocked walks), and
the generated Triton under TRITON_INTERPRET=1, at odd shapes (B = 1, T = 1, primes, not multiples of any block)
with lengths 0, T, 1 and random, on NaN-free random rows. A read also observed outside the select keeps its
validity.
"""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import pass_remarks  # noqa: E402


@tessel.kernel
def masked_rows(x: T.In[T.f32, ("B", "R", "T")], lengths: T.In[T.i32, ("B",)],
                out: T.Out[T.f32, ("B", "R", "T")], seen: T.Out[T.f32, ("B", "R")]):
    B, R, Tk = x.shape
    keys = T.domain(0, Tk)
    for b, r in T.parallel(T.domain(0, B), T.domain(0, R)):
        valid = T.indices(keys) < T.cast(lengths[b], T.index)
        s = T.where(valid, x[b, r, keys] * 2.0, -float("inf"))
        e = T.where(valid, T.exp(s - T.max(s)), 0.0)
        den = T.sum(e)
        out[b, r, keys] = T.where(den > 0.0, e / den, 0.0)
        # must not narrow: this read is summed whole, its masked lanes observed
        seen[b, r] = T.sum(x[b, r, keys] + 1.0)


OUTS = ("out", "seen")
SHAPES = [dict(B=1, R=1, T=1), dict(B=4, R=3, T=5), dict(B=4, R=2, T=127), dict(B=5, R=3, T=131),
          dict(B=4, R=1, T=1031)]
SHAPE_ID = lambda s: "-".join(f"{k}{v}" for k, v in s.items())  # noqa: E731


def make_inputs(shapes, seed):
    rng = np.random.default_rng(seed)
    B, R, Tk = shapes["B"], shapes["R"], shapes["T"]
    lengths = rng.integers(0, Tk + 1, size=B).astype(np.int32)
    lengths[0] = Tk                       # every key
    if B > 1:
        lengths[1] = 0                    # none: the row gives zeros
    if B > 2:
        lengths[2] = 1
    return dict(x=rng.standard_normal((B, R, Tk)).astype(np.float32), lengths=lengths)


def reference(x, lengths):
    Tk = x.shape[2]
    valid = (np.arange(Tk)[None, :] < lengths[:, None])[:, None, :]
    s = np.where(valid, 2.0 * x.astype(np.float64), -np.inf)
    mx = s.max(-1, keepdims=True)
    e = np.where(valid, np.exp(s - np.where(np.isfinite(mx), mx, 0.0)), 0.0)
    den = e.sum(-1, keepdims=True)
    return dict(out=np.where(den > 0, e / np.where(den > 0, den, 1.0), 0.0), seen=(x.astype(np.float64) + 1).sum(-1))


def run(tessel_bin, src, stage, shapes, inputs, tmp, params=None):
    out = tmp / f"{stage}-{'-'.join(f'{k}{v}' for k, v in (params or {}).items())}"
    args = [str(tessel_bin), "run", str(src), "--stage", stage, "--seed", "3", "--out", str(out),
            "--shape", ",".join(f"{k}={v}" for k, v in shapes.items())]
    for k, v in inputs.items():
        np.save(tmp / f"{k}.npy", v)
        args += ["--in", f"{k}={tmp / f'{k}.npy'}"]
    if stage == "pgpu":
        args += ["--order", "shuffle", *[f"--param={k}={v}" for k, v in (params or {}).items()]]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return {n: np.load(out / f"{n}.npy") for n in OUTS}


@pytest.mark.parametrize("shapes", SHAPES, ids=SHAPE_ID)
def test_pgpu_matches_kir(tessel_bin, tmp_path, shapes):
    src = tmp_path / "k.mlir"
    src.write_text(masked_rows.kir())
    inputs = make_inputs(shapes, shapes["T"] + 5)
    ref = run(tessel_bin, src, "kir", shapes, inputs, tmp_path)
    want = reference(**inputs)
    for n in OUTS:
        np.testing.assert_allclose(ref[n], want[n], rtol=1e-5, atol=1e-5, err_msg=f"kir {n}")
    for block in (64, 2048):  # blocked walks; one block covering the row (the staged path)
        got = run(tessel_bin, src, "pgpu", shapes, inputs, tmp_path, {"BLOCK": block})
        for n in OUTS:
            np.testing.assert_allclose(got[n], ref[n], rtol=1e-5, atol=1e-6, err_msg=f"pgpu BLOCK={block} {n}")


@pytest.mark.parametrize("shapes", SHAPES[:4], ids=SHAPE_ID)
def test_triton_matches_kir(shapes, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    inputs = make_inputs(shapes, shapes["T"] + 9)
    ref = masked_rows.run_interp(shapes, inputs=inputs)
    B, R, Tk = shapes["B"], shapes["R"], shapes["T"]
    outs = {"out": torch.empty(B, R, Tk), "seen": torch.empty(B, R)}
    masked_rows(torch.from_numpy(inputs["x"]), torch.from_numpy(inputs["lengths"]), **outs)
    for n, v in outs.items():
        np.testing.assert_allclose(v.numpy(), ref[n], rtol=1e-5, atol=1e-6, err_msg=n)


def test_the_masked_read_is_narrowed_and_the_summed_one_is_not(tessel_bin, tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(masked_rows.kir())
    remarks = pass_remarks(tessel_bin, src, "pgpu-narrow-selected-reads")
    taken = [r for r in remarks if r.startswith("the read's validity takes")]
    # the staged path's read and the blocked walks' mixed blocks; CSE gives the staged path one read of x
    assert taken, remarks
    src_text = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=source"], capture_output=True,
                              text=True, check=True).stdout
    loads = [ln for ln in src_text.splitlines() if "tl.load(x +" in ln]
    # some read of x keeps only the row's extent mask (the whole-row sum reads every key)
    assert loads and len(taken) < len(loads), (taken, loads)
