"""Scans as values (ScanValues.cpp, issue 42 item 3): a kir.scan whose results feed pointwise math
before their store is constructed as one pgpu.range_scan per line whose emit region computes the
stored value from each prefix, in place; several scans combined in one stored value are one range
scan of all their components; pgpu-form-blocking then makes it a blocked fragment scan with a carry
(tl.associative_scan over BLOCK lanes). Against the KIR interpreter and a float64 NumPy reference
on random nonzero inputs at odd shapes (a scan axis of length 1, primes, lengths that are not a
multiple of any block), through:

  * the pgpu interpreter after the whole shared pipeline (`tessel run --stage pgpu`, shuffled
    program order) at two BLOCK bindings;
  * the generated Triton under TRITON_INTERPRET=1 on torch tensors.

Linear recurrences (pair-state affine scans) are tested with |a| > 1 and with denormal drives.
The end-to-end case is a Mamba selective scan written naturally: per (b, d) channel a [L, 16] state
recurrence h_t = exp(dt_t A[d, :]) h_{t-1} + dt_t B_t x_t read out as y_t = sum_n C_t[n] h_t[n] +
D[d] x_t, whose reduction over the state axis (static extent 16) holds the 16 lines as components of
one blocked scan.
"""
import math
import os
import pathlib
import subprocess
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.fn
def affine(a1: T.f32, b1: T.f32, a2: T.f32, b2: T.f32):
    # h -> a1 h + b1, then h -> a2 h + b2
    return a1 * a2, a2 * b1 + b2


@tessel.kernel
def scaled_cumsum(x: T.In[T.f32, ("M", "N")], w: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M", "N")]):
    """A prefix sum scaled per column and shifted before its store."""
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m, cols] = T.cumsum(x[m, cols]) * w[cols] + 1.0


@tessel.kernel
def reverse_exclusive_gap(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")], z: T.Out[T.f32, ("M", "N")]):
    """An exclusive reverse scan used twice: stored as it is, and through pointwise math."""
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        s = T.cumsum(row, exclusive=True, reverse=True)
        y[m, cols] = s
        z[m, cols] = T.exp(-T.abs(s)) - row


@tessel.kernel
def running_mean(x: T.In[T.f32, ("M", "N")], w: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    """Two scans combined in one stored value: one range scan of both components."""
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m, cols] = T.cumsum(x[m, cols] * w[m, cols]) / T.cumsum(w[m, cols])


@tessel.kernel
def gated_recurrence(x: T.In[T.f32, ("B", "T", "C")], a: T.In[T.f32, ("B", "T", "C")],
                     g: T.In[T.f32, ("B", "T", "C")], y: T.Out[T.f32, ("B", "T", "C")]):
    """h_t = a_t h_{t-1} + x_t as a pair-state scan, gated and added to the input before its store."""
    B, TT, C = x.shape
    times = T.domain(0, TT)
    chans = T.domain(0, C)
    for b in T.parallel(T.domain(0, B)):
        xs = x[b, times, chans]
        _, h = T.scan((a[b, times, chans], xs), axis=0, identity=(1.0, 0.0), combine=affine)
        y[b, times, chans] = h * T.sigmoid(g[b, times, chans]) + xs


@tessel.kernel
def selective_scan(x: T.In[T.f32, ("B", "L", "D")], dt: T.In[T.f32, ("B", "L", "D")],
                   A: T.In[T.f32, ("D", 16)], Bm: T.In[T.f32, ("B", "L", 16)], Cm: T.In[T.f32, ("B", "L", 16)],
                   Dp: T.In[T.f32, ("D",)], y: T.Out[T.f32, ("B", "L", "D")]):
    """Mamba's selective scan (state size 16), the state never leaving the program."""
    B, L, D = x.shape
    times = T.domain(0, L)
    states = T.domain(0, 16)
    for b, d in T.parallel(T.domain(0, B), T.domain(0, D)):
        delta = T.broadcast(dt[b, times, d], over=(times, states), dims=[0])
        xs = x[b, times, d]
        decay = T.exp(delta * T.broadcast(A[d, states], over=(times, states), dims=[1]))
        drive = delta * T.broadcast(xs, over=(times, states), dims=[0]) * Bm[b, times, states]
        _, h = T.scan((decay, drive), axis=0, identity=(1.0, 0.0), combine=affine)
        y[b, times, d] = T.sum(Cm[b, times, states] * h, axis=1) + Dp[d] * xs


def run_stage(kernel, stage, shapes, inputs, tmp, params=None, provider=None):
    """`provider`: the pgpu program the pipeline builds for that provider (its capabilities: Triton tiles
    a scan along an axis of a 2-d fragment), stopped before its legalization, interpreted."""
    tmp = pathlib.Path(tmp)
    src = tmp / "k.mlir"
    src.write_text(kernel.kir({}))
    tessel_bin = pathlib.Path(os.environ.get("TESSEL_BUILD_DIR", pathlib.Path(__file__).parents[2] / "build")) / "bin" / "tessel"
    if provider:
        opt = [str(tessel_bin.parent / "tessel-opt"), str(src),
               f"--tessel-pipeline=provider={provider} stop-after=realize-folds", "-o", str(tmp / "p.mlir")]
        res = subprocess.run(opt, capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        src = tmp / f"p.mlir:{kernel.name}"
    out = tmp / f"{stage}-{provider}-{'-'.join(f'{k}{v}' for k, v in (params or {}).items())}"
    args = [str(tessel_bin), "run", str(src), *([] if provider else ["--stage", stage]), "--seed", "3", "--out", str(out),
            "--shape", ",".join(f"{k}={v}" for k, v in shapes.items())]
    if stage == "pgpu":
        args += ["--order", "shuffle", *[f"--param={k}={v}" for k, v in (params or {}).items()]]
    for k, v in inputs.items():
        np.save(tmp / f"{k}.npy", v)
        args += ["--in", f"{k}={tmp / f'{k}.npy'}"]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return out


def check(kernel, shapes, inputs, want, rtol, atol, blocks=(64, 512)):
    """KIR interpreter, pgpu interpreter after the pipeline (two BLOCKs), Triton: each against `want`."""
    import torch
    with tempfile.TemporaryDirectory() as tmp:
        got = run_stage(kernel, "kir", shapes, inputs, tmp)
        for name, w in want.items():
            np.testing.assert_allclose(np.load(got / f"{name}.npy"), w, rtol=rtol, atol=atol, err_msg=f"kir {name}")
        for block in blocks:  # a BLOCK, a binding ({"BLOCK_R": 2, "BLOCK_C": 16}: a tiled scan), None: no parameter
            got = (run_stage(kernel, "pgpu", shapes, inputs, tmp, block, provider="triton") if isinstance(block, dict)
                   else run_stage(kernel, "pgpu", shapes, inputs, tmp, {"BLOCK": block} if block else None))
            for name, w in want.items():
                np.testing.assert_allclose(np.load(got / f"{name}.npy"), w, rtol=rtol, atol=atol,
                                           err_msg=f"pgpu BLOCK={block} {name}")
    outs = {name: (torch.full(w.shape, float("nan")) if np.issubdtype(w.dtype, np.floating)
                   else torch.full(w.shape, -7, dtype=torch.from_numpy(w).dtype)) for name, w in want.items()}
    kernel(*[torch.from_numpy(v) for v in inputs.values()], *outs.values())
    for name, w in want.items():
        np.testing.assert_allclose(outs[name].numpy(), w, rtol=rtol, atol=atol, err_msg=f"triton {name}")


ROWS = [dict(M=1, N=1), dict(M=3, N=37), dict(M=2, N=131), dict(M=1, N=1031)]


@pytest.mark.parametrize("shape", ROWS, ids=[f"M{s['M']}N{s['N']}" for s in ROWS])
def test_pointwise_consumers_of_one_scan(shape):
    M, N = shape["M"], shape["N"]
    rng = np.random.default_rng(M * 1000 + N)
    x = rng.standard_normal((M, N)).astype(np.float32)
    w = rng.uniform(0.5, 2.0, N).astype(np.float32) * rng.choice([-1, 1], N).astype(np.float32)
    x64 = x.astype(np.float64)
    check(scaled_cumsum, shape, {"x": x, "w": w}, {"y": np.cumsum(x64, 1) * w + 1.0}, 1e-4, 1e-4)
    s = np.cumsum(x64[:, ::-1], 1)[:, ::-1] - x64
    check(reverse_exclusive_gap, shape, {"x": x}, {"y": s, "z": np.exp(-np.abs(s)) - x64}, 1e-4, 1e-4)


@pytest.mark.parametrize("shape", ROWS, ids=[f"M{s['M']}N{s['N']}" for s in ROWS])
def test_two_scans_in_one_value(shape):
    M, N = shape["M"], shape["N"]
    rng = np.random.default_rng(M * 7 + N)
    x = rng.standard_normal((M, N)).astype(np.float32)
    w = rng.uniform(0.5, 2.0, (M, N)).astype(np.float32)
    want = np.cumsum(x.astype(np.float64) * w, 1) / np.cumsum(w.astype(np.float64), 1)
    check(running_mean, shape, {"x": x, "w": w}, {"y": want}, 1e-4, 1e-5)


def recurrence(a, x):
    """h_t = a_t h_{t-1} + x_t along axis 1 (h_{-1} = 0), in float64."""
    h = np.zeros((a.shape[0],) + a.shape[2:])
    out = np.empty(a.shape)
    for t in range(a.shape[1]):
        h = a[:, t].astype(np.float64) * h + x[:, t]
        out[:, t] = h
    return out


RECURRENCES = [dict(B=1, T=1, C=1), dict(B=2, T=37, C=13), dict(B=1, T=131, C=5), dict(B=1, T=1031, C=3)]


@pytest.mark.parametrize("growing", [False, True], ids=["decaying", "growing"])
@pytest.mark.parametrize("shape", RECURRENCES, ids=[f"B{s['B']}T{s['T']}C{s['C']}" for s in RECURRENCES])
def test_gated_recurrence(shape, growing):
    """|a| > 1 on some steps (a growing, sign-flipping state), and denormal drives."""
    B, TT, C = shape["B"], shape["T"], shape["C"]
    rng = np.random.default_rng(B + TT * 3 + C)
    a = rng.uniform(0.5, 0.999, (B, TT, C)).astype(np.float32)
    if growing:  # a few steps with |a| in (1, 1.5], signs flipped: the state grows, but stays finite
        grow = rng.random((B, TT, C)) < 0.03
        a = np.where(grow, rng.uniform(1.0, 1.5, a.shape) * rng.choice([-1, 1], a.shape), a).astype(np.float32)
    x = rng.standard_normal((B, TT, C)).astype(np.float32)
    x = np.where(rng.random(x.shape) < 0.2, x * np.float32(1e-39), x).astype(np.float32)  # denormal drives
    g = rng.standard_normal((B, TT, C)).astype(np.float32)
    h = recurrence(a, x.astype(np.float64))
    want = h / (1.0 + np.exp(-g.astype(np.float64))) + x
    scale = max(1.0, float(np.abs(want).max()))
    check(gated_recurrence, shape, {"x": x, "a": a, "g": g}, {"y": want}, 2e-4, 1e-5 * scale)


def test_blocked_scan_in_the_triton_source():
    """The stored value is computed on each block of prefixes: one tl.associative_scan per block
    with its carry, the consumers' math after it, no element-at-a-time loop over the scan axis."""
    src = gated_recurrence.source("triton")
    body = src[src.index("def _gated_recurrence_kernel"):]
    body = body[:body.index("\n\n\n")]
    assert body.count("tl.associative_scan((") == 2  # full blocks, then the partial one
    assert "tl.sigmoid" in body or "exp" in body


@tessel.fn
def mul(a: T.f32, b: T.f32) -> T.f32:
    return a * b


@tessel.kernel
def sum_of_prefixes(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M",)]):
    """A sum along the scan's own axis of its prefixes (ScanReductions.cpp: one ordered walk)."""
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m] = T.sum(T.cumsum(x[m, cols]) * 2.0)


@tessel.kernel
def composite(sigma: T.In[T.f32, ("M", "N")], rgb: T.In[T.f32, ("M", "N", 3)], color: T.Out[T.f32, ("M", 3)],
              acc: T.Out[T.f32, ("M",)]):
    """Weights from an exclusive product scan, summed along its axis alone and against a [N, 3] tile
    (a kir.contract): volume rendering's compositing."""
    M, N = sigma.shape
    cols, chans = T.domain(0, N), T.domain(0, 3)
    for m in T.parallel(T.domain(0, M)):
        alpha = 1.0 - T.exp(-sigma[m, cols])
        w = T.scan(1.0 - alpha, axis=0, identity=1.0, combine=mul, exclusive=True) * alpha
        color[m, chans] = T.sum(w * rgb[m, cols, chans], axis=0)
        acc[m] = T.sum(w)


@tessel.fn
def larger(a: T.f32, b: T.f32) -> T.f32:
    return T.maximum(a, b)


@tessel.kernel
def rise_ahead(x: T.In[T.f32, ("M", "N")], best: T.Out[T.f32, ("M",)], at: T.Out[T.i32, ("M",)]):
    """The largest rise to a later maximum (a reverse exclusive cummax) and where it starts: an
    arg-reduction along the scan's axis, walked from the last member down."""
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        ahead = T.scan(row, axis=0, identity=-math.inf, combine=larger, exclusive=True, reverse=True)
        v, i = T.argmax(T.where(ahead > -math.inf, ahead - row, 0.0))
        best[m] = v
        at[m] = T.cast(i, T.i32)


WALK = (None, {})  # a serial walk declares no BLOCK: the shared pipeline, and Triton's before legalization


WALK_ROWS = [pytest.param(s, id=f"M{s['M']}N{s['N']}", marks=[pytest.mark.deep(
    reason="1031 serial steps under TRITON_INTERPRET=1, about 12 s")] if s["N"] > 1000 else []) for s in ROWS]


@pytest.mark.parametrize("shape", WALK_ROWS)
def test_reductions_along_the_scan_axis(shape):
    M, N = shape["M"], shape["N"]
    rng = np.random.default_rng(M * 31 + N)
    x = rng.standard_normal((M, N)).astype(np.float32)
    x64 = x.astype(np.float64)
    check(sum_of_prefixes, shape, {"x": x}, {"y": (np.cumsum(x64, 1) * 2.0).sum(1)}, 1e-4, 1e-3, WALK)
    sigma = (np.abs(rng.standard_normal((M, N))) * 0.3).astype(np.float32)
    rgb = rng.uniform(0.1, 1.0, (M, N, 3)).astype(np.float32)
    alpha = 1.0 - np.exp(-sigma.astype(np.float64))
    w = np.cumprod(np.concatenate([np.ones((M, 1)), 1.0 - alpha], 1), 1)[:, :N] * alpha
    check(composite, shape, {"sigma": sigma, "rgb": rgb},
          {"color": (w[:, :, None] * rgb).sum(1), "acc": w.sum(1)}, 1e-4, 1e-5, WALK)
    ahead = np.full((M, N), -np.inf, np.float32)
    if N > 1:
        ahead[:, :-1] = np.maximum.accumulate(x[:, ::-1], 1)[:, ::-1][:, 1:]
    rise = np.where(ahead > -np.inf, ahead - x, np.float32(0.0)).astype(np.float32)
    check(rise_ahead, shape, {"x": x}, {"best": rise.max(1), "at": rise.argmax(1).astype(np.int32)}, 0, 0, WALK)


def test_reduction_along_the_axis_of_a_two_line_scan_is_refused_at_its_line():
    @tessel.kernel
    def total_of_pair_prefixes(x: T.In[T.f32, ("M", "N", 2)], y: T.Out[T.f32, ("M", 2)]):
        M, N = x.shape[0], x.shape[1]
        cols, pair = T.domain(0, N), T.domain(0, 2)
        for m in T.parallel(T.domain(0, M)):
            y[m, pair] = T.sum(T.cumsum(x[m, cols, pair], axis=0), axis=0)

    with pytest.raises(tessel.CompileError, match=r"constructs a reduction along a scan's axis of its results "
                                                  r"\(a reduction \(T.sum") as e:
        total_of_pair_prefixes.source("triton")
    assert "test_scan_values.py" in str(e.value)


def selective_scan_reference(x, dt, A, Bm, Cm, Dp):
    x, dt, A, Bm, Cm, Dp = (v.astype(np.float64) for v in (x, dt, A, Bm, Cm, Dp))
    B, L, D = x.shape
    h = np.zeros((B, D, A.shape[1]))
    y = np.empty((B, L, D))
    for t in range(L):
        h = np.exp(dt[:, t, :, None] * A[None]) * h + (dt[:, t] * x[:, t])[:, :, None] * Bm[:, t, None, :]
        y[:, t] = np.einsum("bdn,bn->bd", h, Cm[:, t]) + Dp * x[:, t]
    return y


MAMBA = [dict(B=1, L=1, D=1), dict(B=2, L=37, D=3), dict(B=1, L=131, D=2), dict(B=1, L=1031, D=1)]


@pytest.mark.parametrize("growing", [False, True], ids=["stable", "growing"])
@pytest.mark.parametrize("shape", MAMBA, ids=[f"B{s['B']}L{s['L']}D{s['D']}" for s in MAMBA])
def test_selective_scan(shape, growing):
    """Stable A < 0 (Mamba's), or some A > 0 on short sequences (|exp(dt A)| > 1: a growing state);
    denormal inputs among the drives."""
    B, L, D = shape["B"], shape["L"], shape["D"]
    rng = np.random.default_rng(B * 100 + L + D)
    x = rng.standard_normal((B, L, D)).astype(np.float32)
    x = np.where(rng.random(x.shape) < 0.1, x * np.float32(1e-39), x).astype(np.float32)
    dt = rng.uniform(0.001, 0.1, (B, L, D)).astype(np.float32)
    A = -rng.uniform(0.5, 8.0, (D, 16)).astype(np.float32)
    if growing:
        A = np.where(rng.random(A.shape) < 0.25, -A * (8.0 / max(L, 8)), A).astype(np.float32)
    Bm = rng.standard_normal((B, L, 16)).astype(np.float32)
    Cm = rng.standard_normal((B, L, 16)).astype(np.float32)
    Dp = rng.standard_normal(D).astype(np.float32)
    want = selective_scan_reference(x, dt, A, Bm, Cm, Dp)
    scale = max(1.0, float(np.abs(want).max()))
    check(selective_scan, shape, {"x": x, "dt": dt, "A": A, "Bm": Bm, "Cm": Cm, "Dp": Dp}, {"y": want},
          2e-4, 2e-5 * scale)


DEEP = pytest.mark.skipif(not os.environ.get("TESSEL_DEEP"), reason="TESSEL_DEEP: three column blocks, ~10 s")
TILED = [pytest.param(dict(B=2, L=23, D=19), id="B2L23D19"), pytest.param(dict(B=1, L=1, D=17), id="B1L1D17"),
         pytest.param(dict(B=1, L=41, D=33), id="B1L41D33", marks=DEEP)]


@pytest.mark.parametrize("shape", TILED)
def test_selective_scan_tiled_along_channels(shape):
    """The channels (contiguous) are tiled with the time steps (pgpu-tile-column-reductions' scans):
    channel counts past one BLOCK_C and not a multiple of it (a partial column block), prime
    lengths (a partial row block after full ones), a single step; some |exp(dt A)| > 1. The pgpu
    interpreter at two tile bindings (BLOCK_R 2 and 8), then the Triton source at its call defaults."""
    B, L, D = shape["B"], shape["L"], shape["D"]
    rng = np.random.default_rng(B * 7 + L * 11 + D)
    x = rng.standard_normal((B, L, D)).astype(np.float32)
    dt = rng.uniform(0.001, 0.1, (B, L, D)).astype(np.float32)
    A = -rng.uniform(0.5, 8.0, (D, 16)).astype(np.float32)
    A = np.where(rng.random(A.shape) < 0.25, -A * (8.0 / max(L, 8)), A).astype(np.float32)
    Bm = rng.standard_normal((B, L, 16)).astype(np.float32)
    Cm = rng.standard_normal((B, L, 16)).astype(np.float32)
    Dp = rng.standard_normal(D).astype(np.float32)
    want = selective_scan_reference(x, dt, A, Bm, Cm, Dp)
    scale = max(1.0, float(np.abs(want).max()))
    check(selective_scan, shape, {"x": x, "dt": dt, "A": A, "Bm": Bm, "Cm": Cm, "Dp": Dp}, {"y": want},
          2e-4, 2e-5 * scale, blocks=({"BLOCK_R": 2, "BLOCK_C": 16}, {"BLOCK_R": 8, "BLOCK_C": 32}))


def test_selective_scan_is_one_blocked_scan():
    """The 16 state lines are 32 components of one tl.associative_scan per block (full blocks, then
    the partial one) along axis 0 of [BLOCK_R, BLOCK_C] tiles (time steps by contiguous channels, a
    program per block of channels), the readout computed on the block's prefixes; no loop over the
    time axis runs one element at a time."""
    src = selective_scan.source("triton")
    body = src[src.index("def _selective_scan_kernel"):]
    body = body[:body.index("\n\n\n")]
    scans = [ln for ln in body.splitlines() if "= tl.associative_scan((" in ln]
    assert len(scans) == 2 and all(ln.split("=")[0].count("v") == 32 for ln in scans), scans
    assert all("), 0, _selective_scan_combine" in ln for ln in scans), scans  # along the time steps
    assert "selective_scan_PARAMS = {'BLOCK_C'" in src and "'BLOCK_R'" in src
    assert body.count("for ") == 2  # the two loops over blocks of BLOCK_R time steps


def test_reduction_over_a_dynamic_axis_is_refused_at_its_line():
    @tessel.kernel
    def readout(a: T.In[T.f32, ("L", "N")], c: T.In[T.f32, ("L", "N")], y: T.Out[T.f32, ("R", "L")]):
        L, N = a.shape
        R = T.extent("R")
        times, states = T.domain(0, L), T.domain(0, N)
        for r in T.parallel(T.domain(0, R)):
            h = T.cumsum(a[times, states], axis=0)
            y[r, times] = T.sum(c[times, states] * h, axis=1)

    with pytest.raises(tessel.CompileError, match="when that axis has a static extent") as e:
        readout.source("triton")
    assert "test_scan_values.py" in str(e.value)


def meta_views(kernel, shape):
    import torch
    return [torch.empty([shape[e] if isinstance(e, str) else e for e in p.spec.extents], device="meta")
            for p in kernel.params() if p.kind == "view"]


def test_scan_registers_bound_the_default_block():
    """The resource model counts a fragment scan's components and prefixes (Resources.h, scanBytes):
    the 32-component selective scan at B8 L4096 D2048, tiled [BLOCK_R, BLOCK_C] along its contiguous
    channels (pgpu-tile-column-reductions), does not take the BLOCK_R covering L but a tile whose
    registers fit (32 x BLOCK_R x BLOCK_C <= 4096: [8, 16]); the two-component gated recurrence, its
    channels contiguous too, is tiled so as well and its binding fits."""
    shape = dict(B=8, L=4096, D=2048)
    chosen = selective_scan._fact_params({}, meta_views(selective_scan, shape))
    space = selective_scan._space({})
    binding = {**{n: d for n, (_, d) in space.items()}, **(chosen or {})}
    assert binding["BLOCK_R"] * binding["BLOCK_C"] * 32 <= 4096, binding
    assert selective_scan._prune({})(binding) is None, binding
    assert "return 'registers'" in selective_scan.source("triton").split("_PRUNE(p):")[1].split("return None")[0]
    chosen = gated_recurrence._fact_params({}, meta_views(gated_recurrence, dict(B=8, T=4096, C=64)))
    space = gated_recurrence._space({})
    binding = {**{n: d for n, (_, d) in space.items()}, **(chosen or {})}
    assert binding["BLOCK_R"] * binding["BLOCK_C"] * 2 <= 4096, binding
    assert gated_recurrence._prune({})(binding) is None, binding
