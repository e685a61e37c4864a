"""Attention whose keys fit one key tile scores them once (pgpu-stage-folds on a chain of folds, issue 41):
under numerics = source the corpus spelling (bench/corpus/199, 203) is the exact two-pass form, a maximum fold
and then a fold of the sums and the product with V at that maximum, each scoring the keys again. When
0 < T <= BLOCK_T both folds run their one segment straight-line under a guard, the second pass's key
tile, scores (and bias tile) merged with the first's, so each program computes one Q.K^T and one P.V; the
else-branch keeps both folds for longer rows. The call default binds the key tile to the smallest
candidate holding T (ViT's 197 keys: 256) and, where that makes the walk one tile, the Triton spelling.

Each kernel runs on the KIR interpreter against NumPy and on the pgpu interpreter after the shared
pipeline against the KIR interpreter (shuffled order), at odd shapes (S, T = 1, primes, T = 257 past the
largest tile, S != T) with the key tile at 256 (the staged path up to T = 256, the folds past it) and at
16 (the folds), and through Triton under TRITON_INTERPRET=1 at its call defaults. f16 operands: Triton's
CPU interpreter contracts bf16 wrongly (triton-lang/triton#11584).
"""
import math
import os
import re

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from interp_cli import attention, run_cli, tessel_opt, two_pass_bias_attention  # noqa: E402

F16 = T.f16


bias_attention = two_pass_bias_attention("sa_bias")


@tessel.kernel(name="sa_lagged")
def lagged(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "S", "D")],
           v: T.In[F16, ("B", "H", "S", "D")], o: T.Out[F16, ("B", "H", "S", "D")],
           lse: T.Out[T.f32, ("B", "H", "S")], scale: T.f32, lag: T.i32):
    """Self-attention, key t visible to query i when t + lag <= i: the first `lag` rows see no key (their
    maximum is -inf and every exponential NaN, in the staged path as in the folds)."""
    B, H, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    kpos = T.indices(keys)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where(kpos + T.cast(lag, T.index) <= i, s, -math.inf)
        m = T.max(s)
        p = T.exp(s - m)
        l = T.sum(p)
        acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / l, F16)
        lse[b, h, i] = m + T.log(l)


def case_bias(S, T_, D, seed):
    rng = np.random.default_rng(seed)
    shape = dict(B=2, H=2, S=S, T=T_, D=D)
    inputs = {"q": rng.standard_normal((2, 2, S, D)).astype(np.float16),
              "k": rng.standard_normal((2, 2, T_, D)).astype(np.float16),
              "v": rng.standard_normal((2, 2, T_, D)).astype(np.float16),
              "bias": rng.standard_normal((2, S, T_)).astype(np.float32)}
    scalars = {"scale": 1.0 / math.sqrt(D)}
    o, _ = attention(inputs["q"], inputs["k"], inputs["v"], scalars["scale"], bias=inputs["bias"])
    return bias_attention, shape, inputs, scalars, {"o": o}


def case_lagged(S, T_, D, seed):
    rng = np.random.default_rng(seed)
    lag = min(S, 3)
    shape = dict(B=1, H=2, S=S, D=D)
    inputs = {n: rng.standard_normal((1, 2, S, D)).astype(np.float16) for n in ("q", "k", "v")}
    scalars = {"scale": 1.0 / math.sqrt(D), "lag": lag}
    qi, ki = np.arange(S)[:, None], np.arange(S)[None, :]
    o, lse = attention(inputs["q"], inputs["k"], inputs["v"], scalars["scale"], visible=ki + lag <= qi)
    return lagged, shape, inputs, scalars, {"o": o, "lse": lse}


CASES = {"bias": case_bias, "lagged": case_lagged}
# (S, T, D): one key; primes; T past the largest key tile (257: the folds under every binding); S != T.
SHAPES = [(1, 1, 16), (5, 131, 24), (37, 37, 16), (19, 257, 16), (23, 13, 32)]


def key_tile(program_text):
    """The key tile's parameter: the one pgpu-stage-folds made cover the walked extent."""
    found = re.findall(r'#pgpu\.param<"(BLOCK_[A-Z_]+)", \[[0-9, ]+\], [0-9]+, covers = "(T|S)">', program_text)
    assert len(found) == 1, found
    return found[0][0]


def close(got, want, what):
    for n, w in want.items():
        np.testing.assert_array_equal(np.isnan(got[n]), np.isnan(w), err_msg=f"{what}: {n} NaN positions")
        np.testing.assert_allclose(got[n], w, rtol=2e-2, atol=2e-2, err_msg=f"{what}: {n}")


def scalar_args(scalars):
    return [f"--scalar={n}={x}" for n, x in scalars.items()]


@pytest.mark.parametrize("name", list(CASES))
def test_staged_and_interpreters_agree(tessel_bin, tmp_path, name):
    kernel = CASES[name](1, 1, 16, 0)[0]
    source = kernel._write(tmp_path, None)
    program = tmp_path / f"{kernel.name}-pgpu.mlir"
    tessel_opt(tessel_bin, source, "--tessel-pipeline=stop-after=realize-folds", "-o", str(program))
    text = program.read_text()
    tile = key_tile(text)
    blocks = {p for p in re.findall(r'"(BLOCK_[A-Z_]+)"', text)} - {tile}
    for i, (S, T_, D) in enumerate(SHAPES):
        if name == "lagged" and T_ != S:
            continue
        _, shape, inputs, scalars, want = CASES[name](S, T_, D, seed=i)
        kir = run_cli(tessel_bin, tmp_path, source, shape, inputs, ["--stage", "kir", *scalar_args(scalars)],
                      f"kir{i}")
        close(kir, want, f"KIR interpreter at {shape}")
        for width in (256, 16):  # the staged path (up to T = 256), the folds
            params = {p: 16 for p in blocks} | {tile: width}
            got = run_cli(tessel_bin, tmp_path, program, shape, inputs,
                          ["--order", "shuffle", *scalar_args(scalars),
                           *[f"--param={k}={v}" for k, v in params.items()]], f"pgpu{i}-{width}")
            close(got, kir, f"pgpu interpreter ({tile}={width}) at {shape}")


@pytest.mark.parametrize("name", list(CASES))
def test_scores_once_in_the_staged_path(tessel_bin, tmp_path, name):
    """Each staged branch holds two contractions (the scores Q.K^T once, then P.V) where the folds it
    guards hold three (the scores in both passes), and the bias tile is read once where the folds read it
    twice: per form of the fold pair with tile products (D = BLOCK_D, D < BLOCK_D) one guard, 2
    contractions and 1 bias read more, the folds staying in the else-branches (the element-wise form,
    D > BLOCK_D, steps by 1: no declared tile, not staged)."""
    kernel = CASES[name](1, 1, 16, 0)[0]
    source = kernel._write(tmp_path, None)
    before = tessel_opt(tessel_bin, source, "--tessel-pipeline=stop-after=form-blocking")
    after = tessel_opt(tessel_bin, source, "--tessel-pipeline=stop-after=stage-rows")
    forms = before.count("pgpu.contract") // 3
    assert forms >= 1 and before.count("pgpu.contract") == 3 * forms
    assert after.count("pgpu.region_fold") == before.count("pgpu.region_fold")
    assert after.count("pgpu.contract") - before.count("pgpu.contract") == 2 * forms, after
    assert after.count("pgpu.if ") - before.count("pgpu.if ") == forms, after
    if name == "bias":
        def reads(text):  # the bias tile's f32 [BLOCK_S, BLOCK_T] reads
            return len(re.findall(r"pgpu\.load [^\n]* valid %\w+ : !pgpu\.fragment<i1, \[BLOCK_S, BLOCK_T\]> fill "
                                  r"%\w+ : f32", text))
        assert reads(before) == 2 * forms and reads(after) - reads(before) == forms, after


def meta_args(kernel, sizes):
    import torch
    out = []
    for p in kernel.params():
        if p.kind == "view":
            dt = torch.float32 if p.spec.dtype.mlir == "f32" else torch.float16
            out.append(torch.empty([sizes[e] for e in p.spec.extents], dtype=dt, device="meta"))
    return out


CALL_DEFAULTS = [("lagged", 197, None), ("lagged", 64, 64), ("lagged", 100, 128), ("lagged", 2048, None),
                 ("bias", 100, 128), ("bias", 197, 256), ("bias", 2048, None)]


@pytest.mark.parametrize("name, t, tile", CALL_DEFAULTS, ids=[f"{c[0]}-T{c[1]}" for c in CALL_DEFAULTS])
def test_call_default_holds_the_keys(tessel_bin, tmp_path, name, t, tile):
    """The key tile covers T where a candidate holds it within the resource model (not ViT's 197 keys
    in 256: that one-tile chained product is over the registers' budget, see
    test_chained_product_fits_the_registers), the walk is then one tile and the Triton spelling runs it (GLUON 0, where the kernel declares
    the Gluon spelling), the query tile narrowing where the resource model asks (the bias form's f32
    [BLOCK_S, 256] bias tile beside its scores); past every candidate the key tile keeps the fold's rule
    (smaller than T)."""
    kernel = CASES[name](1, 1, 16, 0)[0]
    args = meta_args(kernel, dict(B=64, H=12, S=t, T=t, D=64))
    got = kernel.call_defaults(*args, scale=0.125, **({"lag": 0} if name == "lagged" else {}))
    program = tessel_opt(tessel_bin, kernel._write(tmp_path, None), "--tessel-pipeline=stop-after=stage-rows")
    key = key_tile(program)
    prune = kernel._cache.get(kernel._declared("prune", {}, "triton"))
    assert prune is None or prune(got) is None, got
    if tile is None:
        assert got[key] < t, got
    else:
        assert got[key] == tile, got
        if "GLUON" in got:
            assert got["GLUON"] == 0, got


@pytest.mark.parametrize("name", list(CASES))
def test_triton(name):
    import torch
    for i, (S, T_, D) in enumerate([(1, 1, 16), (19, 37, 32), (5, 131, 64), (23, 13, 24), (3, 300, 16)]):
        if name == "lagged" and T_ != S:
            S = T_
        kernel, shape, inputs, scalars, want = CASES[name](S, T_, D, seed=20 + i)
        views = [p for p in kernel.params() if p.kind == "view"]
        args = [torch.from_numpy(inputs[p.name]) for p in views if p.spec.mode == "in"]
        outs = {p.name: torch.full([shape[e] for e in p.spec.extents], float("nan"),
                                   dtype=torch.float32 if p.spec.dtype.mlir == "f32" else torch.float16)
                for p in views if p.spec.mode == "out"}
        kernel(*args, *outs.values(), **scalars)
        close({n: t.double().numpy() for n, t in outs.items()}, want, f"Triton at {shape}")


CHAINED = [("lagged", 197, False, 64), ("bias", 197, True, 32), ("lagged", 131, False, 64),
           ("lagged", 64, True, 64), ("bias", 100, True, 64)]


@pytest.mark.parametrize("name, t, staged, rows", CHAINED, ids=[f"{c[0]}-T{c[1]}" for c in CHAINED])
def test_chained_product_fits_the_registers(tessel_bin, tmp_path, name, t, staged, rows):
    """The one-tile program holds the score tile, its f16 operand and P.V's accumulator at once (the
    resource model's chained product, Resources.cpp: 192 registers a thread, `<kernel>_PRUNE` says
    'chained registers'). Where only a 256-key tile holds T (T = 131, 197) the 64 x 256 binding at 4
    warps (128 + 64 + 32 registers) is over it: the key tile keeps its default and the folds run as
    passes (narrowing the query tile to 32 instead measured slower on the H100: ViT attention S = 197
    0.144 ms against 0.093 for the passes). Where 128 holds T (the bias form at T = 100: 64 + 32 + 32)
    and at T = 64 (32 + 16 + 32) the chain fits and the key tile holds the row. The bias form's 64 x 256
    binding is refused for its shared memory first: that narrows the query tile to 32 (as before), where
    the chain fits (64 + 32 + 16)."""
    kernel = CASES[name](1, 1, 16, 0)[0]
    args = meta_args(kernel, dict(B=64, H=12, S=t, T=t, D=64))
    got = kernel.call_defaults(*args, scale=0.125, **({"lag": 0} if name == "lagged" else {}))
    key = key_tile(tessel_opt(tessel_bin, kernel._write(tmp_path, None), "--tessel-pipeline=stop-after=stage-rows"))
    prune = kernel._cache.get(kernel._declared("prune", {}, "triton"))
    space = kernel._space({}, "triton")
    full = {**{n: d for n, (_, d) in space.items()}, **got}
    assert full["BLOCK_S"] == rows and full.get("WARPS", 4) == 4, got
    assert (full[key] >= t) == staged and prune(full) is None, got
    if not staged:
        assert prune({**full, key: 256}) in ("chained registers", "shared memory"), got
