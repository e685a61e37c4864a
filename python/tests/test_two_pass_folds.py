"""kir-online-folds under numerics = source (the default): attention written one query row per parallel
member (the corpus spelling, bench/corpus/17, 18, 20, 42, 43, 44) becomes the exact two-pass form as two
region folds over the keys, the maximum first and then the reductions of exp(s - max) with the final
maximum, both constructed on fragments (blocks of query rows, tl.dot per key tile).

Each kernel runs against a NumPy reference on the KIR interpreter (as traced and as rewritten, its folds
cut into random slices) and through Triton under TRITON_INTERPRET=1 at odd shapes (S = 1, 37, 67; D not a
power of two), with causal, window and prefix masks that leave tiles fully masked, and a mask that leaves
whole rows masked (their maximum is -inf: every exponential of the source is NaN, and so is the row).
The corpus kernels are bf16, which Triton's CPU interpreter contracts wrongly (triton-lang/triton#11584);
these are the same spellings in f16.
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
from interp_cli import attention, rewritten, run_kir, views_of  # noqa: E402

F16 = T.f16


@tessel.kernel(name="tp_causal_lse")
def causal_lse(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "S", "D")],
               v: T.In[F16, ("B", "H", "S", "D")], o: T.Out[F16, ("B", "H", "S", "D")],
               lse: T.Out[T.f32, ("B", "H", "S")], scale: T.f32):
    B, H, S, D = q.shape
    keys = T.domain(0, S)
    dims = T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where(T.indices(keys) <= i, s, -math.inf)
        m = T.max(s)
        p = T.exp(s - m)
        l = T.sum(p)
        acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / l, F16)
        lse[b, h, i] = m + T.log(l)


@tessel.kernel(name="tp_window")
def window(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "S", "D")],
           v: T.In[F16, ("B", "H", "S", "D")], o: T.Out[F16, ("B", "H", "S", "D")],
           scale: T.f32, w: T.i32):
    B, H, S, D = q.shape
    keys = T.domain(0, S)
    dims = T.domain(0, D)
    kpos = T.indices(keys)
    W = T.cast(w, T.index)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where((kpos <= i) & (i - kpos < W), s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), F16)


@tessel.kernel(name="tp_softcap_prefix")
def softcap_prefix(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "S", "D")],
                   v: T.In[F16, ("B", "H", "S", "D")], o: T.Out[F16, ("B", "H", "S", "D")],
                   scale: T.f32, softcap: T.f32, prefix: T.i32):
    B, H, S, D = q.shape
    keys = T.domain(0, S)
    dims = T.domain(0, D)
    kpos = T.indices(keys)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = softcap * T.tanh(s / softcap)
        s = T.where((kpos < T.cast(prefix, T.index)) | (kpos <= i), s, -math.inf)
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), F16)


@tessel.kernel(name="tp_gqa")
def gqa(q: T.In[F16, ("B", "HQ", "S", "D")], k: T.In[F16, ("B", "HKV", "T", "D")],
        v: T.In[F16, ("B", "HKV", "T", "D")], o: T.Out[F16, ("B", "HQ", "S", "D")], scale: T.f32):
    B, HQ, S, D = q.shape
    group = HQ // k.shape[1]
    keys = k.domain(2)
    dims = T.domain(0, D)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, HQ), T.domain(0, S)):
        kvh = h // group
        s = T.matvec(k[b, kvh, keys, dims], q[b, h, i, dims]) * scale
        p = T.exp(s - T.max(s))
        acc = T.vecmat(T.cast(p, F16), v[b, kvh, keys, dims])
        o[b, h, i, dims] = T.cast(acc / T.sum(p), F16)


@tessel.kernel(name="tp_lagged")
def lagged(q: T.In[F16, ("B", "H", "S", "D")], k: T.In[F16, ("B", "H", "S", "D")],
           v: T.In[F16, ("B", "H", "S", "D")], o: T.Out[F16, ("B", "H", "S", "D")],
           lse: T.Out[T.f32, ("B", "H", "S")], scale: T.f32, lag: T.i32):
    """Key k visible to query i when k + lag <= i: the first `lag` rows see no key (maximum -inf)."""
    B, H, S, D = q.shape
    keys = T.domain(0, S)
    dims = T.domain(0, D)
    kpos = T.indices(keys)
    L = T.cast(lag, T.index)
    for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * scale
        s = T.where(kpos + L <= i, s, -math.inf)
        m = T.max(s)
        p = T.exp(s - m)
        l = T.sum(p)
        acc = T.vecmat(T.cast(p, F16), v[b, h, keys, dims])
        o[b, h, i, dims] = T.cast(acc / l, F16)
        lse[b, h, i] = m + T.log(l)


def case_causal_lse(S, D):
    qi, ki = np.arange(S)[:, None], np.arange(S)[None, :]
    return causal_lse, dict(B=1, H=2, S=S, D=D), {}, lambda x, sc: attention(**x, scale=sc["scale"], visible=ki <= qi)


def case_window(S, D):
    w = max(1, S // 5)
    qi, ki = np.arange(S)[:, None], np.arange(S)[None, :]
    vis = (ki <= qi) & (qi - ki < w)
    return window, dict(B=1, H=2, S=S, D=D), {"w": w}, lambda x, sc: attention(**x, scale=sc["scale"], visible=vis)[:1]


def case_softcap_prefix(S, D):
    prefix = S // 3
    qi, ki = np.arange(S)[:, None], np.arange(S)[None, :]
    vis = (ki < prefix) | (ki <= qi)
    return softcap_prefix, dict(B=2, H=1, S=S, D=D), {"softcap": 2.0, "prefix": prefix}, \
        lambda x, sc: attention(**x, scale=sc["scale"], visible=vis, softcap=2.0)[:1]


def case_gqa(S, D):
    return gqa, dict(B=1, HQ=4, HKV=2, S=max(1, S // 2), T=S, D=D), {}, lambda x, sc: attention(**x, scale=sc["scale"])[:1]


def case_lagged(S, D):
    lag = min(S, 5)
    qi, ki = np.arange(S)[:, None], np.arange(S)[None, :]
    return lagged, dict(B=1, H=1, S=S, D=D), {"lag": lag}, \
        lambda x, sc: attention(**x, scale=sc["scale"], visible=ki + lag <= qi)


CASES = {"causal_lse": case_causal_lse, "window": case_window, "softcap_prefix": case_softcap_prefix,
         "gqa": case_gqa, "lagged": case_lagged}
SHAPES = [(1, 16), (37, 24), (67, 16)]


def draw(kernel, shape, seed):
    rng = np.random.default_rng(seed)
    ins, _ = views_of(kernel)
    return {n: rng.standard_normal([shape[e] for e in ext]).astype(np.float16) for n, ext in ins}


def close(got, want, what):
    # Same NaN positions (rows with no visible key), values to f16 rounding elsewhere.
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{what}: NaN positions")
    np.testing.assert_allclose(got, want, rtol=2e-2, atol=2e-2, err_msg=what)


@pytest.mark.parametrize("S,D", SHAPES, ids=[f"S{S}-D{D}" for S, D in SHAPES])
@pytest.mark.parametrize("name", list(CASES))
def test_two_pass_folds(tessel_bin, tmp_path, name, S, D):
    import torch
    kernel, shape, extra, ref = CASES[name](S, D)
    inputs = draw(kernel, shape, seed=S * 7 + D)
    scalars = {"scale": 1.0 / math.sqrt(D), **extra}
    want = ref(inputs, scalars)

    traced, folded = rewritten(tessel_bin, tmp_path, kernel)
    assert "kir.region_fold" not in traced
    assert folded.count("kir.region_fold sources") == 2, folded
    assert "kir.unary exp" not in folded.split("kir.region_fold")[0]
    for text, segments in ((traced, "one"), (folded, "one"), (folded, "random"), (folded, "3")):
        got = run_kir(tessel_bin, tmp_path, text, kernel, shape, inputs, scalars, segments)
        for g, w in zip(got, want):
            close(g, w, f"KIR interpreter, segments={segments}")

    _, outs = views_of(kernel)
    args = [torch.from_numpy(inputs[n]) for n, _ in views_of(kernel)[0]]
    results = [torch.full([shape[e] for e in ext], float("nan"),
                          dtype=torch.float32 if n == "lse" else torch.float16) for n, ext in outs]
    kernel(*args, *results, **scalars)
    for r, w in zip(results, want):
        close(r.double().numpy(), w, "Triton (TRITON_INTERPRET=1)")


def test_construction_is_blocked(tessel_bin, tmp_path):
    """Both folds are constructed on fragments (a pgpu.region_fold stepping by a BLOCK_* tile over a
    block of query rows, the contractions structured), and the window's all-false tiles are skipped in
    both (pgpu-narrow-fold-ranges)."""
    kernel = tessel.kernel(name="tp_window_remarks", optimization_remarks=True)(window.fn)
    src = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(src),
                          "--tessel-pipeline=stop-after=construct"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    blocked = [ln for ln in lines if "pgpu.region_fold" in ln and "!pgpu.fragment<f32, [BLOCK_S" in ln]
    assert any("-> (!pgpu.fragment<f32, [BLOCK_S]>) summarize" in ln for ln in blocked), blocked  # pass 1: m
    assert any("[BLOCK_S, BLOCK_D]" in ln for ln in blocked), blocked                 # pass 2: l, acc
    assert "pgpu.contract" in res.stdout
    res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=pgpu"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "became two region folds (exact two-pass, source numerics" in res.stderr
    narrowed = [ln for ln in res.stderr.splitlines() if "pgpu-narrow-fold-ranges" in ln and "skipped" in ln]
    assert len(narrowed) >= 2 and all("2 all-false interval(s) skipped" in ln for ln in narrowed), narrowed


def test_relaxed_stays_one_fold(tessel_bin, tmp_path):
    """With the permission, the same kernel is the one online fold, as before."""
    kernel = tessel.kernel(name="tp_window_relaxed", numerics="relaxed_normalization")(window.fn)
    _, folded = rewritten(tessel_bin, tmp_path, kernel)
    assert folded.count("kir.region_fold sources") == 1 and "-> (i1, f32, f32, tensor<?xf32>)" in folded


@pytest.mark.parametrize("path", ["examples/softmax.py", "bench/corpus/13_log_softmax.py",
                                  "bench/corpus/41_row_logsumexp.py"])
def test_rows_without_contraction_are_untouched(tessel_bin, tmp_path, root, path):
    """A row read from memory, its maximum, exp-sum and an elementwise store or logsumexp is no fold
    with a contraction: under source numerics kir-online-folds leaves it as written."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("row_" + re.sub(r"\W", "_", path), root / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernels = [x for x in vars(module).values() if isinstance(x, tessel.Kernel)]
    assert kernels
    for kernel in kernels:
        traced, folded = rewritten(tessel_bin, tmp_path, kernel)
        assert "kir.region_fold" not in folded and folded.count("kir.reduce") == traced.count("kir.reduce")


PGPU_CASES = [("causal_lse", 37, 24, {"BLOCK_D": 16}),    # D > BLOCK_D: the element-wise fallback
              ("causal_lse", 67, 16, {"BLOCK_D": 16}),    # D = BLOCK_D: the unmasked variant
              ("window", 67, 24, {"BLOCK_D": 32}),
              ("lagged", 37, 16, {"BLOCK_D": 16}),
              ("gqa", 37, 24, {"BLOCK_D": 32})]


@pytest.mark.parametrize("name,S,D,params", PGPU_CASES, ids=[f"{c[0]}-S{c[1]}-D{c[2]}" for c in PGPU_CASES])
def test_pgpu_after_shared_pipeline(tessel_bin, tmp_path, name, S, D, params):
    """After the shared pipeline (constructed, narrowed, realized as loops) with 16-wide query and key
    blocks, the pgpu interpreter agrees with the KIR interpreter on the same inputs."""
    kernel, shape, extra, _ = CASES[name](S, D)
    source = kernel._write(tmp_path, None)
    args = ["--shape", ",".join(f"{n}={x}" for n, x in shape.items()), "--seed", "4"]
    for n, x in {"scale": 1.0 / math.sqrt(D), **extra}.items():
        args += ["--scalar", f"{n}={x}"]
    kir = tmp_path / "kir"
    res = subprocess.run([str(tessel_bin), "run", str(source), "--stage", "kir", "--out", str(kir), *args],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source),
                          "--tessel-pipeline=stop-after=realize-folds", "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    text = program.read_text()
    assert "pgpu.contract" in text and "pgpu.region_fold" not in text
    binding = {p: 16 for p in re.findall(r'"(BLOCK_[A-Z_]+)"', text) if p != "BLOCK_D"} | params
    out = tmp_path / "pgpu"
    res = subprocess.run([str(tessel_bin), "run", str(program), "--order", "shuffle", "--out", str(out), *args,
                          *[f"--param={k}={v}" for k, v in binding.items()]], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    for n, _ in views_of(kernel)[1]:
        want, got = np.load(kir / f"{n}.npy").astype(np.float64), np.load(out / f"{n}.npy").astype(np.float64)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=n)
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3, err_msg=n)
