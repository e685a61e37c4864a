"""Per-row summaries: multi-query decode written as one [H, T] score tile per sequence (all query heads
of a sequence against its shared keys, corpus 21_mqa_decode and 23_mla_decode), its softmax over the last
axis. kir-online-folds folds it as H independent online folds over the keys, one region fold whose summary
(m, l, acc) keeps the free leading axis H (source numerics: the exact two-pass form, [H] maxima then [H]
sums and the [H, D] accumulator). Before, the rank-2 maximum was refused and the kernel ran element by
element.

Each kernel runs against a NumPy reference (random, never zero inputs) on the KIR interpreter, on the pgpu
interpreter after the shared pipeline with 16-wide key tiles (several tiles and a masked tail) and free axes
64 then 16 wide, and through the Triton provider under TRITON_INTERPRET=1, at odd shapes: H = 1, 3, 5 and
17 (two 16-wide head blocks), T = 1 and primes, D no multiple of any block; both numerics settings.
"""
import math
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from interp_cli import make_mla, make_mqa  # noqa: E402

PIPELINE = ["--tessel-pipeline=stop-after=realize-folds"]


def softmax_rows(s):
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return p / p.sum(axis=-1, keepdims=True)


def remarks(kernel, tessel_bin, tmp_path):
    source = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stderr


def run_three_ways(kernel, tessel_bin, tmp_path, shapes, inputs, scalars, want, tol, numerics):
    err = remarks(kernel, tessel_bin, tmp_path)
    folded = "became one region fold (online summary" if numerics != "source" else "became two region folds"
    assert folded in err, err
    assert "region fold constructed on fragments" in err, err
    assert "constructed element by element" not in err, err
    got = kernel.run_interp(shapes=shapes, scalars=scalars, inputs=inputs)
    np.testing.assert_allclose(got["o"], want, **tol, err_msg="KIR interpreter")

    args = []
    for n, val in inputs.items():
        np.save(tmp_path / f"{n}.npy", val)
        args += ["--in", f"{n}={tmp_path / f'{n}.npy'}"]
    args += [a for n, val in scalars.items() for a in ("--scalar", f"{n}={val}")]
    source = kernel._write(tmp_path, None)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    declared = sorted(set(w.split('"')[1] for w in program.read_text().split("#pgpu.param<")[1:]))
    assert "BLOCK_T" in declared, declared
    shape = ",".join(f"{n}={val}" for n, val in shapes.items())
    for free in (64, 16):   # head and feature blocks 64 then 16 wide (H = 17: the element-wise branch)
        params = [f"--param={p}={16 if p == 'BLOCK_T' else free}" for p in declared if p.startswith("BLOCK_")]
        out = tmp_path / f"pgpu{free}"
        res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--order", "shuffle",
                              "--out", str(out), *args, *params], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        np.testing.assert_allclose(np.load(out / "o.npy"), want, **tol, err_msg=f"pgpu, free axes {free}")

    targs = {n: torch.tensor(val) for n, val in inputs.items()}
    targs["o"] = torch.full(want.shape, float("nan"), dtype=torch.float32)
    kernel(**targs, **scalars)
    np.testing.assert_allclose(targs["o"].numpy(), want, **tol, err_msg="triton")


MQA = [  # B, H, T, D
    (1, 1, 1, 1),
    (2, 3, 37, 5),        # prime T, D below every block
    (1, 5, 53, 24),       # T no multiple of any block, D past one 16-wide block
    (2, 17, 23, 40),      # two 16-wide head blocks, D past one 16-wide block
]


def _cases(shapes, name):
    """Each shape under both numerics; the source form (two folds walked element by element beside the
    tiled ones on the pgpu interpreter, 40-95 s a case) of the larger shapes is deep-tier: the smaller shapes
    run the same two-pass construction."""
    out = []
    for i, c in enumerate(shapes):
        for numerics in ("source", "relaxed_normalization"):
            marks = ([pytest.mark.deep(reason="the source form at a larger shape; the smaller shapes cover it")]
                     if numerics == "source" and i >= 2 else [])
            out.append(pytest.param(*c, numerics, marks=marks, id=f"{name(c)}-{numerics}"))
    return out


@pytest.mark.parametrize("B,H,TK,D,numerics", _cases(MQA, lambda c: f"B{c[0]}H{c[1]}T{c[2]}D{c[3]}"))
def test_mqa_rows(B, H, TK, D, numerics, tessel_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(B * 131 + H * 17 + TK * 7 + D)
    inputs = dict(q=rng.standard_normal((B, H, D)).astype(np.float32),
                  k=rng.standard_normal((B, TK, D)).astype(np.float32),
                  v=rng.standard_normal((B, TK, D)).astype(np.float32))
    scale = 1.0 / math.sqrt(D)
    q, k, v = (a.astype(np.float64) for a in inputs.values())
    want = np.einsum("bht,btd->bhd", softmax_rows(np.einsum("bhd,btd->bht", q, k) * scale), v)
    run_three_ways(make_mqa(numerics), tessel_bin, tmp_path, dict(B=B, H=H, T=TK, D=D), inputs,
                   dict(scale=scale), want, dict(rtol=1e-4, atol=1e-5), numerics)


@pytest.mark.parametrize("B,H,TK,DC,DR,numerics", _cases([(1, 1, 1, 3, 1), (2, 2, 5, 3, 2), (2, 5, 41, 19, 7)],
                                                          lambda c: "-".join(map(str, c))))
def test_mla_rows(B, H, TK, DC, DR, numerics, tessel_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(H * 31 + TK + DC)
    inputs = dict(qn=rng.standard_normal((B, H, DC)).astype(np.float32),
                  qr=rng.standard_normal((B, H, DR)).astype(np.float32),
                  c=rng.standard_normal((B, TK, DC)).astype(np.float32),
                  kr=rng.standard_normal((B, TK, DR)).astype(np.float32))
    qn, qr, c, kr = (a.astype(np.float64) for a in inputs.values())
    s = np.einsum("bhc,btc->bht", qn, c) + np.einsum("bhr,btr->bht", qr, kr)
    want = np.einsum("bht,btc->bhc", softmax_rows(s), c)
    run_three_ways(make_mla(numerics), tessel_bin, tmp_path, dict(B=B, H=H, T=TK, DC=DC, DR=DR), inputs, {},
                   want, dict(rtol=1e-4, atol=1e-5), numerics)


def test_max_over_heads_not_folded(tessel_bin, tmp_path, monkeypatch):
    """Must not fire: a softmax over the FIRST axis of the [H, T] tile (over the heads, for each key) is not
    a per-row summary over the keys; it stays two-pass and still matches the reference."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))

    @tessel.kernel(name="softmax_over_heads", numerics="relaxed_normalization", optimization_remarks=True)
    def over_heads(q: T.In[T.f32, ("B", "H", "D")], k: T.In[T.f32, ("B", "T", "D")], o: T.Out[T.f32, ("B", "T")]):
        B, H, D = q.shape
        heads, keys, dims = T.domain(0, H), k.domain(1), T.domain(0, D)
        for b in T.parallel(T.domain(0, B)):
            s = T.matmul(q[b, heads, dims], k[b, keys, dims], transpose_rhs=True)   # [H, T]
            p = T.exp(s - T.max(s, axis=0))
            o[b, keys] = T.sum(p, axis=0)
    err = remarks(over_heads, tessel_bin, tmp_path)
    assert "not a float maximum of a rank-1 tensor over its only axis or of a rank-2 tensor over its last axis" \
        in err, err
    rng = np.random.default_rng(5)
    B, H, TK, D = 2, 3, 11, 7
    inputs = dict(q=rng.standard_normal((B, H, D)).astype(np.float32),
                  k=rng.standard_normal((B, TK, D)).astype(np.float32))
    s = np.einsum("bhd,btd->bht", *(a.astype(np.float64) for a in inputs.values()))
    want = np.exp(s - s.max(axis=1, keepdims=True)).sum(axis=1)
    got = over_heads.run_interp(shapes=dict(B=B, H=H, T=TK, D=D), scalars={}, inputs=inputs)
    np.testing.assert_allclose(got["o"], want, rtol=1e-5, atol=1e-6)
    targs = {n: torch.tensor(val) for n, val in inputs.items()}
    targs["o"] = torch.full(want.shape, float("nan"), dtype=torch.float32)
    over_heads(**targs)
    np.testing.assert_allclose(targs["o"].numpy(), want, rtol=1e-5, atol=1e-6)
