"""pgpu-narrow-fold-ranges on a union of intervals (bench/corpus/76, streaming attention with sinks: key k
visible to query i when k <= i and (k < sinks or k + window > i)). The mask's and/or tree in normal form
is a list of branches, each an intersection of bounds on k; the fold visits the key tiles of each
branch only (sorted by their first tile, selects where the order is a run-time fact), all true inside
one branch without the mask, mixed at its edges, and skips the tiles in no branch.

Each kernel runs against a NumPy reference on the KIR interpreter, the pgpu interpreter after the shared
pipeline (16-wide query and key tiles, programs in shuffled order), and Triton under TRITON_INTERPRET=1,
at S = 1, 37, 67 with windows and sinks at 0, 1, small, middle and past S (f16: Triton's CPU interpreter
contracts bf16 wrongly, triton-lang/triton#11584). A row that sees no key is NaN, as written.
"""
import math
import os
import re
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from interp_cli import close_with_nans as close, draw_f16_qkv as draw, masked_attention as reference, run_o as run  # noqa: E402

F16 = T.f16


def _sink_window(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "S", "D")],
                 v: T.In[F16, ("B", "H", "S", "D")], o: T.Out[F16, ("B", "H", "S", "D")],
                 scale: T.f32, a: T.i32, c: T.i32):
    """Causal, the first c keys (sinks) and the last a keys (window): two branches, one from key 0."""
    B, H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    W, SINK = T.cast(a, T.index), T.cast(c, T.index)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        kpos = T.indices(keys)
        visible = (kpos <= i) & ((kpos < SINK) | (kpos + W > i))
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where(visible, s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), F16)


def _block_or_future(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "S", "D")],
                     v: T.In[F16, ("B", "H", "S", "D")], o: T.Out[F16, ("B", "H", "S", "D")],
                     scale: T.f32, a: T.i32, c: T.i32):
    """Keys a <= k < a + c (a global block anywhere) or k > i: neither branch starts at key 0, and which
    comes first depends on a and the query block (the branches are sorted at run time)."""
    B, H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    lo, n = T.cast(a, T.index), T.cast(c, T.index)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        kpos = T.indices(keys)
        visible = ((kpos >= lo) & (kpos < lo + n)) | (kpos > i)
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where(visible, s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), F16)


def _four_branches(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "S", "D")],
                   v: T.In[F16, ("B", "H", "S", "D")], o: T.Out[F16, ("B", "H", "S", "D")],
                   scale: T.f32, a: T.i32, c: T.i32):
    """(k < a or k > i) and (k <= i + 3 or k >= c): four branches, three of them sorted by selects."""
    B, H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    x, y = T.cast(a, T.index), T.cast(c, T.index)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        kpos = T.indices(keys)
        visible = ((kpos < x) | (kpos > i)) & ((kpos <= i + 3) | (kpos >= y))
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where(visible, s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), F16)


def _padded_sink_window(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "S", "D")],
                        v: T.In[F16, ("B", "H", "S", "D")], keep: T.In[T.i32, ("B", "S")],
                        o: T.Out[F16, ("B", "H", "S", "D")], scale: T.f32, a: T.i32, c: T.i32):
    """The sink window under a padding mask read from memory: the whole mask is not ranged, its or is
    (an operand of the ands); the loaded flags stay in every fold."""
    B, H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    W, SINK = T.cast(a, T.index), T.cast(c, T.index)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        kpos = T.indices(keys)
        visible = (keep[b, keys] != 0) & (kpos <= i) & ((kpos < SINK) | (kpos + W > i))
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where(visible, s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), F16)


PADDED = tessel.kernel(name="iu_padded_sink_window")(_padded_sink_window)


def visible_of(name, S, a, c):
    qi, ki = np.arange(S)[:, None], np.arange(S)[None, :]
    if name == "sink_window":
        return (ki <= qi) & ((ki < c) | (ki + a > qi))
    if name == "block_or_future":
        return ((ki >= a) & (ki < a + c)) | (ki > qi)
    return ((ki < a) | (ki > qi)) & ((ki <= qi + 3) | (ki >= c))


FNS = {"sink_window": _sink_window, "block_or_future": _block_or_future, "four_branches": _four_branches}
KERNELS = {(name, numerics): tessel.kernel(name=f"iu_{name}_{numerics[:3]}", numerics=numerics)(fn)
           for name, fn in FNS.items() for numerics in ("source", "relaxed_normalization")}


def scalars_at(S):
    """(a, c) pairs: 0, 1, a small and a middle value, past S."""
    small, mid = max(2, S // 5), S // 2 + 1
    return sorted({(0, 0), (1, 1), (small, 4), (1, mid), (S + 3, S + 2)})


INTERP_CASES = [(name, numerics, S, D) for name in FNS for numerics in ("source", "relaxed_normalization")
                for S, D in ((1, 16), (37, 7))]


@pytest.mark.parametrize("name,numerics,S,D", INTERP_CASES,
                         ids=[f"{c[0]}-{c[1][:3]}-S{c[2]}-D{c[3]}" for c in INTERP_CASES])
def test_interpreters(tessel_bin, tmp_path, name, numerics, S, D):
    """KIR interpreter and the pgpu interpreter after the shared pipeline (16-wide tiles: S = 37 has two
    full tiles and a tail; shuffled programs) against NumPy at every pair of scalars_at(S)."""
    kernel = KERNELS[(name, numerics)]
    shape = dict(B=1, H=1, S=S, D=D)
    source = kernel._write(tmp_path, None)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source),
                          "--tessel-pipeline=stop-after=realize-folds", "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    text = program.read_text()
    binding = [(p, 16) for p in sorted(set(re.findall(r'"(BLOCK_[A-Z_]+)"', text)))]
    for j, (a, c) in enumerate(scalars_at(S)):
        inputs = draw(shape, seed=S * 11 + D + j)
        scalars = {"scale": 1.0 / math.sqrt(D), "a": a, "c": c}
        want = reference(**inputs, scale=scalars["scale"], visible=visible_of(name, S, a, c))
        (tmp_path / f"kir{j}").mkdir()
        got = run(tessel_bin, source, ["--stage", "kir"], shape, inputs, scalars, tmp_path / f"kir{j}" / "o")
        close(got, want, f"KIR interpreter, a={a} c={c}")
        (tmp_path / f"pgpu{j}").mkdir()
        got = run(tessel_bin, program, ["--order", "shuffle"], shape, inputs, scalars,
                  tmp_path / f"pgpu{j}" / "o", binding)
        close(got, want, f"pgpu interpreter, a={a} c={c}")


TRITON_CASES = [("sink_window", "relaxed_normalization", 67, 16), ("block_or_future", "source", 67, 16),
                ("four_branches", "source", 67, 16)]


@pytest.mark.parametrize("name,numerics,S,D", TRITON_CASES, ids=[f"{c[0]}-{c[1][:3]}-S{c[2]}" for c in TRITON_CASES])
def test_triton(name, numerics, S, D):
    """Through Triton under TRITON_INTERPRET=1 at the default tiles (64 keys: S = 67 has a full tile and
    a tail), every pair of scalars_at(S)."""
    import torch
    kernel = KERNELS[(name, numerics)]
    shape = dict(B=2, H=1, S=S, D=D)
    for j, (a, c) in enumerate(scalars_at(S)):
        inputs = draw(shape, seed=S * 13 + D + j)
        scale = 1.0 / math.sqrt(D)
        want = reference(**inputs, scale=scale, visible=visible_of(name, S, a, c))
        o = torch.full((2, 1, S, D), float("nan"), dtype=torch.float16)
        kernel(*(torch.from_numpy(inputs[n]) for n in "qkv"), o, scale=scale, a=a, c=c)
        close(o.double().numpy(), want, f"Triton (TRITON_INTERPRET=1), a={a} c={c}")


@pytest.mark.parametrize("name,branches,sorted_", [("sink_window", 2, False), ("block_or_future", 2, True),
                                                   ("four_branches", 4, True)])
def test_remarks(tessel_bin, tmp_path, name, branches, sorted_):
    """Both folds of the source form narrow the mask as a union of intervals and skip the tiles in no
    branch; branches that do not start at key 0 are sorted by selects on their bounds."""
    kernel = tessel.kernel(name=f"iu_{name}_remarks", optimization_remarks=True)(FNS[name])
    src = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=pgpu"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    narrowed = [ln for ln in res.stderr.splitlines() if "pgpu-narrow-fold-ranges" in ln and "skipped" in ln]
    assert len(narrowed) >= 2, res.stderr
    for ln in narrowed:
        assert f"a union of {branches} intervals narrowed branch by branch" in ln, ln
        assert "1 all-false interval(s) skipped" in ln, ln
    before = tmp_path / "before.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(src), "--tessel-pipeline=stop-after=narrow-predicates",
                          "-o", str(before)], capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(before), "-pgpu-narrow-fold-ranges"],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    added = len(re.findall(r"pgpu\.select .* : i1, index", opt.stdout)) - \
        len(re.findall(r"pgpu\.select .* : i1, index", before.read_text()))
    assert (added > 0) == sorted_, added


def test_gluon_compiles_for_sm90(tmp_path, monkeypatch):
    """On the GPU the default binding (GLUON=1) runs the warp-specialized Gluon spelling: with four
    branches (twelve key-tile folds per softmax pass, bounds sorted by selects) its loader and consumer
    still compile for sm_90 down to ptxas, with TMA copies and wgmma (gluon_compile.py, launch intercepted)."""
    pytest.importorskip("torch")
    import json
    import sys
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    src = KERNELS[("four_branches", "source")].source("triton")
    assert "'GLUON': ([0, 1], 1)" in src
    path = tmp_path / "four_branches.py"
    path.write_text(src)
    shapes = {"dtype": "float16", "views": {n: [1, 2, 67, 128] for n in ("q", "k", "v", "o")},
              "scalars": {"scale": 0.088, "a": 5, "c": 40}}
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    out = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "gluon_compile.py"),
                          str(path), "iu_four_branches_sou", json.dumps(shapes)], env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    assert facts["launched"] and facts["wgmma"] > 0 and facts["tma_loads"] > 0, facts


def _padded_inputs(shape, seed):
    inputs = draw(shape, seed)
    rng = np.random.default_rng(seed + 1)
    inputs["keep"] = (rng.random((shape["B"], shape["S"])) < 0.8).astype(np.int32)  # a fifth of keys padded
    return inputs


def _padded_visible(S, a, c, keep):
    return visible_of("sink_window", S, a, c)[None, None] & (keep[:, None, None, :] != 0)


def test_padded_interpreters(tessel_bin, tmp_path):
    """The padded sink window on the KIR and pgpu interpreters (16-wide tiles, shuffled programs), S = 37."""
    shape = dict(B=2, H=1, S=37, D=7)
    source = PADDED._write(tmp_path, None)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source),
                          "--tessel-pipeline=stop-after=realize-folds", "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    binding = [(p, 16) for p in sorted(set(re.findall(r'"(BLOCK_[A-Z_]+)"', program.read_text())))]
    for j, (a, c) in enumerate([(1, 1), (7, 4), (40, 0)]):
        inputs = _padded_inputs(shape, seed=j)
        scalars = {"scale": 1.0 / math.sqrt(7), "a": a, "c": c}
        keep = inputs["keep"]
        want = reference(inputs["q"], inputs["k"], inputs["v"], scalars["scale"], _padded_visible(37, a, c, keep))
        for stage, src, args in (("kir", source, ["--stage", "kir"]), ("pgpu", program, ["--order", "shuffle"])):
            (tmp_path / f"{stage}{j}").mkdir()
            got = run(tessel_bin, src, args, shape, inputs, scalars, tmp_path / f"{stage}{j}" / "o",
                      binding if stage == "pgpu" else ())
            close(got, want, f"{stage} interpreter, a={a} c={c}")


def test_padded_triton_and_remarks(tessel_bin, tmp_path):
    """Triton under TRITON_INTERPRET=1 at S = 67 (64-key tiles); both folds narrow the or as a union of two
    intervals beside the diagonal and keep the loaded flags."""
    import torch
    shape = dict(B=2, H=1, S=67, D=16)
    for j, (a, c) in enumerate([(1, 1), (13, 4), (70, 0)]):
        inputs = _padded_inputs(shape, seed=10 + j)
        scale = 0.25
        want = reference(inputs["q"], inputs["k"], inputs["v"], scale, _padded_visible(67, a, c, inputs["keep"]))
        o = torch.full((2, 1, 67, 16), float("nan"), dtype=torch.float16)
        PADDED(*(torch.from_numpy(inputs[n]) for n in ("q", "k", "v", "keep")), o, scale=scale, a=a, c=c)
        close(o.double().numpy(), want, f"Triton (TRITON_INTERPRET=1), a={a} c={c}")
    kernel = tessel.kernel(name="iu_padded_remarks", optimization_remarks=True)(_padded_sink_window)
    src = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=pgpu"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    narrowed = [ln for ln in res.stderr.splitlines() if "pgpu-narrow-fold-ranges" in ln and "skipped" in ln]
    assert len(narrowed) >= 2, res.stderr
    for ln in narrowed:
        assert "a union of 2 intervals narrowed branch by branch" in ln, ln
