"""kir-online-folds (issue 41): attention written the natural way, one query row per parallel member
(scores over the keys, their maximum, exp(s - max), its sum and its vecmat with V), becomes one
region fold over the keys with the online-softmax summary, and from there goes down the blocked-fold
path like the suite's region-fold spelling (bench/attention_kernels.py).

The kernels are written in the corpus style (bench/corpus/42_sliding_window_attention.py), here with
numerics="relaxed_normalization", the permission the rewrite needs (seed 002 §1). Each runs against a
NumPy reference on the KIR interpreter (the kernel as traced and as rewritten, its fold cut into random
slices) and through Triton under TRITON_INTERPRET=1 at odd shapes; Triton's CPU interpreter computes
bf16 tl.dot wrongly, so the narrow type here is f16.
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


def make_causal(dt, numerics="relaxed_normalization"):
    @tessel.kernel(name="online_causal", numerics=numerics)
    def causal(q: T.In[dt, ("B", "H", "S", "D")], k: T.In[dt, ("B", "H", "S", "D")],
               v: T.In[dt, ("B", "H", "S", "D")], o: T.Out[dt, ("B", "H", "S", "D")], scale: T.f32):
        B, H, S, D = q.shape
        keys = T.domain(0, S)
        dims = T.domain(0, D)
        kpos = T.indices(keys)
        for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
            s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
            s = T.where(kpos <= i, s, -math.inf)
            p = T.exp(s - T.max(s))
            acc = T.vecmat(T.cast(p, dt), v[b, h, keys, dims])
            o[b, h, i, dims] = T.cast(acc / T.sum(p), dt)
    return causal


def make_window(dt, numerics="relaxed_normalization"):
    @tessel.kernel(name="online_window", numerics=numerics)
    def window_attention(q: T.In[dt, ("B", "H", "S", "D")], k: T.In[dt, ("B", "H", "S", "D")],
                         v: T.In[dt, ("B", "H", "S", "D")], o: T.Out[dt, ("B", "H", "S", "D")],
                         scale: T.f32, window: T.i32):
        B, H, S, D = q.shape
        keys = T.domain(0, S)
        dims = T.domain(0, D)
        kpos = T.indices(keys)
        W = T.cast(window, T.index)
        for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
            s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
            visible = (kpos <= i) & (i - kpos < W)
            s = T.where(visible, s, -math.inf)
            p = T.exp(s - T.max(s))
            acc = T.vecmat(T.cast(p, dt), v[b, h, keys, dims])
            o[b, h, i, dims] = T.cast(acc / T.sum(p), dt)
    return window_attention


def reference(q, k, v, scale, window=None):
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    S = q.shape[2]
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    qi, ki = np.arange(S)[:, None], np.arange(S)[None, :]
    visible = ki <= qi
    if window is not None:
        visible &= qi - ki < window
    s = np.where(visible, s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("bhqk,bhkd->bhqd", p / p.sum(-1, keepdims=True), v)


NP = {"f16": np.float16, "f32": np.float32}
CASES = [(S, D, dt) for S in (1, 5, 67) for D, dt in ((16, "f16"), (24, "f32"))]


def draw(S, D, dt, seed):
    rng = np.random.default_rng(seed)
    B, H = 1, 2
    return {n: rng.standard_normal((B, H, S, D)).astype(NP[dt]) for n in "qkv"}


def run_kir(tessel_bin, tmp_path, text, name, inputs, scalars, segments):
    """The KIR module `text` on the KIR interpreter, its folds cut by `segments`."""
    src = tmp_path / f"{name}-{segments}.mlir"
    src.write_text(text)
    args = [str(tessel_bin), "run", f"{src}:{name}", "--stage", "kir", "--segments", segments,
            "--out", str(tmp_path / f"out-{segments}")]
    B, H, S, D = inputs["q"].shape
    args += ["--shape", f"B={B},H={H},S={S},D={D}"]
    for n, x in inputs.items():
        np.save(tmp_path / f"{n}.npy", x)
        args += ["--in", f"{n}={tmp_path / f'{n}.npy'}"]
    for n, x in scalars.items():
        args += ["--scalar", f"{n}={x}"]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return np.load(tmp_path / f"out-{segments}" / "o.npy").astype(np.float64)


def rewritten(tessel_bin, tmp_path, kernel):
    """The kernel's KIR after kir-online-folds (tessel-opt on the traced module)."""
    src = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(src), "-kir-online-folds"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return src.read_text(), res.stdout


def check(tessel_bin, tmp_path, kernel, S, D, dt, window):
    import torch
    inputs = draw(S, D, dt, seed=S * 31 + D)
    scale = 1.0 / math.sqrt(D)
    scalars = {"scale": scale, **({"window": window} if window is not None else {})}
    want = reference(inputs["q"], inputs["k"], inputs["v"], scale, window)
    tol = dict(rtol=2e-2, atol=2e-2) if dt == "f16" else dict(rtol=1e-4, atol=1e-4)

    traced, folded = rewritten(tessel_bin, tmp_path, kernel)
    assert "kir.region_fold" not in traced and "kir.region_fold" in folded
    assert "kir.unary exp" not in folded.split("kir.region_fold")[0]  # the two-pass rows are gone
    for text, segments in ((traced, "one"), (folded, "one"), (folded, "random"), (folded, "3")):
        got = run_kir(tessel_bin, tmp_path, text, kernel.name, inputs, scalars, segments)
        np.testing.assert_allclose(got, want, **tol, err_msg=f"KIR interpreter, segments={segments}")

    views = [torch.from_numpy(inputs[n]) for n in "qkv"]
    o = torch.full_like(views[0], float("nan"))
    kernel(*views, o, **scalars)
    np.testing.assert_allclose(o.double().numpy(), want, **tol, err_msg="Triton (TRITON_INTERPRET=1)")


@pytest.mark.parametrize("S,D,dt", CASES, ids=[f"S{S}-D{D}-{dt}" for S, D, dt in CASES])
def test_causal_rows_become_one_fold(tessel_bin, tmp_path, S, D, dt):
    check(tessel_bin, tmp_path, make_causal(getattr(T, dt)), S, D, dt, None)


@pytest.mark.parametrize("S,D,dt", CASES, ids=[f"S{S}-D{D}-{dt}" for S, D, dt in CASES])
def test_sliding_window_rows_become_one_fold(tessel_bin, tmp_path, S, D, dt):
    check(tessel_bin, tmp_path, make_window(getattr(T, dt)), S, D, dt, max(1, S // 3))


@pytest.mark.parametrize("make", [make_causal, make_window], ids=["causal", "window"])
def test_construction_is_blocked(tessel_bin, tmp_path, make):
    """After the rewrite the fold is constructed on fragments: a pgpu.region_fold whose step is a
    BLOCK_* tile (kir-to-pgpu), its contractions kept structured."""
    src = make(T.f16)._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(src),
                          "--tessel-pipeline=stop-after=construct"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    folds = [ln for ln in lines if "pgpu.region_fold" in ln]
    assert folds, res.stdout

    def step_of(fold):
        step = re.search(r"step (%\w+)", fold).group(1)
        return next(ln for ln in lines if ln.strip().startswith(step + " ="))

    # The blocked fold steps by a tile parameter (pgpu.param "BLOCK_..."), its summary carried per lane
    # of a block of query rows; the other one is the element-wise fallback when D exceeds its block.
    blocked = [f for f in folds if "BLOCK_" in step_of(f)]
    assert blocked and all("!pgpu.fragment<f32, [BLOCK_" in f for f in blocked), folds
    assert "pgpu.contract" in res.stdout
    # After the shared pipeline (kernel.pgpu()) the fold is its loops over key tiles, the online summary
    # (ok, m, l, acc over [rows, D]) carried per block of query rows.
    realized = make(T.f16).pgpu()
    assert re.search(r"pgpu\.for .* iter_args\(.*!pgpu\.fragment<f32, \[BLOCK_S, BLOCK_D\]>", realized), realized


def test_band_is_narrowed(tessel_bin, tmp_path):
    """The sliding window's all-false tiles (keys after the query, keys before the window) are not
    traversed: pgpu-narrow-fold-ranges proves a masked tile's summary is the identity, as for the
    suite's runtime_window_attention."""
    kernel = tessel.kernel(name="online_window_remarks", numerics="relaxed_normalization",
                           optimization_remarks=True)(make_window(T.f16).fn)
    src = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=pgpu"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "kir-online-folds: a maximum and 2 reduction(s) over one axis became one region fold" in res.stderr
    narrowed = [ln for ln in res.stderr.splitlines() if "pgpu-narrow-fold-ranges" in ln and "skipped" in ln]
    assert narrowed and all("2 all-false interval(s) skipped" in ln for ln in narrowed), narrowed


def test_source_numerics_keep_two_passes(tessel_bin, tmp_path):
    """numerics = source (the default) does not permit the online form's rounding: the two passes stay
    two (the exact two-pass region folds, test_two_pass_folds.py), with no online summary."""
    kernel = make_causal(T.f32, numerics=None)
    traced, folded = rewritten(tessel_bin, tmp_path, kernel)
    assert folded.count("kir.region_fold sources") == 2
    assert "-> (i1, f32" not in folded  # no (ok, m, ...) online summary
