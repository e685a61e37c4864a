"""pgpu-narrow-fold-ranges on a union of masks of one direction (bench/corpus/18, prefix-LM attention:
key k visible to query i when k < prefix, a runtime scalar, or k <= i). The union is one predicate: a
key tile is all true where either part is (below the larger of the diagonal's and the prefix's bounds)
and all false where both are (skipped). A union of both directions (k < prefix or k > i) is not
monotone: it is not one predicate but a union of two intervals (test_interval_unions.py).

Each kernel runs against a NumPy reference on the KIR interpreter, the pgpu interpreter after the
shared pipeline (16-wide query and key tiles, programs in shuffled order), and Triton under
TRITON_INTERPRET=1, at S = 1, 37, 67 (D = 7, 16, 24) with the prefix at 0, 1, a third of S, S and past S
(the interpreters at S = 1, 37; f16: Triton's CPU interpreter contracts bf16 wrongly, triton-lang/triton#11584), under both numerics.
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


def _prefix_lm(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "S", "D")],
               v: T.In[F16, ("B", "H", "S", "D")], o: T.Out[F16, ("B", "H", "S", "D")],
               scale: T.f32, prefix: T.i32):
    B, H, S, D = q.shape
    keys = T.domain(0, S)
    dims = T.domain(0, D)
    kpos = T.indices(keys)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where((kpos < T.cast(prefix, T.index)) | (kpos <= i), s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), F16)


def _suffix_or_future(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "S", "D")],
                      v: T.In[F16, ("B", "H", "S", "D")], o: T.Out[F16, ("B", "H", "S", "D")],
                      scale: T.f32, start: T.i32):
    """Suffix-true parts: key k visible when k >= i or k >= start (a global tail of keys)."""
    B, H, S, D = q.shape
    keys = T.domain(0, S)
    dims = T.domain(0, D)
    kpos = T.indices(keys)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where((kpos >= i) | (kpos >= T.cast(start, T.index)), s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), F16)


def _two_directions(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "S", "D")],
                    v: T.In[F16, ("B", "H", "S", "D")], o: T.Out[F16, ("B", "H", "S", "D")],
                    scale: T.f32, prefix: T.i32):
    """Not a union of one direction: k < prefix or k > i is true at both ends of the keys; it is a union
    of two intervals (test_interval_unions.py) (a row with prefix <= i = S - 1 sees no key: its maximum
    is -inf and the row NaN, as written)."""
    B, H, S, D = q.shape
    keys = T.domain(0, S)
    dims = T.domain(0, D)
    kpos = T.indices(keys)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where((kpos < T.cast(prefix, T.index)) | (kpos > i), s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), F16)


def visible_of(name, S, x):
    qi, ki = np.arange(S)[:, None], np.arange(S)[None, :]
    if name == "prefix_lm":
        return (ki < x) | (ki <= qi)
    if name == "suffix_or_future":
        return (ki >= qi) | (ki >= x)
    return (ki < x) | (ki > qi)


FNS = {"prefix_lm": (_prefix_lm, "prefix"), "suffix_or_future": (_suffix_or_future, "start"),
       "two_directions": (_two_directions, "prefix")}
KERNELS = {(name, numerics): tessel.kernel(name=f"ur_{name}_{numerics[:3]}", numerics=numerics)(fn)
           for name, (fn, _) in FNS.items() for numerics in ("source", "relaxed_normalization")}


def scalars_at(S):
    return sorted({0, 1, S // 3, S, S + 5})


INTERP_CASES = [(name, numerics, S, D) for name in FNS for numerics in ("source", "relaxed_normalization")
                for S, D in ((1, 16), (37, 7))]


@pytest.mark.parametrize("name,numerics,S,D", INTERP_CASES,
                         ids=[f"{c[0]}-{c[1][:3]}-S{c[2]}-D{c[3]}" for c in INTERP_CASES])
def test_interpreters(tessel_bin, tmp_path, name, numerics, S, D):
    """KIR interpreter and the pgpu interpreter after the shared pipeline (16-wide tiles: S = 37 has two
    full tiles and a tail; shuffled programs) against NumPy at every scalar of scalars_at(S)."""
    kernel = KERNELS[(name, numerics)]
    scalar = FNS[name][1]
    shape = dict(B=1, H=1, S=S, D=D)
    source = kernel._write(tmp_path, None)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source),
                          "--tessel-pipeline=stop-after=realize-folds", "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    text = program.read_text()
    binding = [(p, 16) for p in sorted(set(re.findall(r'"(BLOCK_[A-Z_]+)"', text)))]
    for j, x in enumerate(scalars_at(S)):
        inputs = draw(shape, seed=S * 11 + D + j)
        scalars = {"scale": 1.0 / math.sqrt(D), scalar: x}
        want = reference(**inputs, scale=scalars["scale"], visible=visible_of(name, S, x))
        (tmp_path / f"kir{j}").mkdir()
        got = run(tessel_bin, source, ["--stage", "kir"], shape, inputs, scalars, tmp_path / f"kir{j}" / "o")
        close(got, want, f"KIR interpreter, {scalar}={x}")
        (tmp_path / f"pgpu{j}").mkdir()
        got = run(tessel_bin, program, ["--order", "shuffle"], shape, inputs, scalars,
                  tmp_path / f"pgpu{j}" / "o", binding)
        close(got, want, f"pgpu interpreter, {scalar}={x}")


TRITON_CASES = [("prefix_lm", "source", 37, 24), ("prefix_lm", "source", 67, 16),
                ("prefix_lm", "relaxed_normalization", 67, 16), ("suffix_or_future", "source", 67, 16),
                ("two_directions", "source", 37, 16)]


@pytest.mark.parametrize("name,numerics,S,D", TRITON_CASES, ids=[f"{c[0]}-{c[1][:3]}-S{c[2]}" for c in TRITON_CASES])
def test_triton(name, numerics, S, D):
    """Through Triton under TRITON_INTERPRET=1 at the default tiles (64 keys: S = 67 has a full tile and
    a tail), every scalar of scalars_at(S)."""
    import torch
    kernel = KERNELS[(name, numerics)]
    scalar = FNS[name][1]
    shape = dict(B=2, H=1, S=S, D=D)
    for j, x in enumerate(scalars_at(S)):
        inputs = draw(shape, seed=S * 13 + D + j)
        scale = 1.0 / math.sqrt(D)
        want = reference(**inputs, scale=scale, visible=visible_of(name, S, x))
        o = torch.full((2, 1, S, D), float("nan"), dtype=torch.float16)
        kernel(*(torch.from_numpy(inputs[n]) for n in "qkv"), o, scale=scale, **{scalar: x})
        close(o.double().numpy(), want, f"Triton (TRITON_INTERPRET=1), {scalar}={x}")


@pytest.mark.parametrize("name,unions", [("prefix_lm", True), ("suffix_or_future", True),
                                         ("two_directions", False)])
def test_remarks(tessel_bin, tmp_path, name, unions):
    """Both folds of the source form narrow the union as one predicate and skip its all-false tiles; the
    two-direction union is not one predicate of one direction but a union of two intervals (the tiles in
    neither skipped)."""
    kernel = tessel.kernel(name=f"ur_{name}_remarks", optimization_remarks=True)(FNS[name][0])
    src = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=pgpu"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    narrowed = [ln for ln in res.stderr.splitlines() if "pgpu-narrow-fold-ranges" in ln and "skipped" in ln]
    assert len(narrowed) >= 2, res.stderr
    for ln in narrowed:
        if unions:
            assert "1 union(s) of one direction narrowed as one predicate" in ln, ln
            assert "1 all-false interval(s) skipped" in ln, ln
        else:
            assert "union(s)" not in ln and "a union of 2 intervals narrowed branch by branch" in ln, ln
            assert "1 all-false interval(s) skipped" in ln, ln
