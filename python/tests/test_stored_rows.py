"""A row softmax over a contraction's scores, written out (bench/corpus/58_bmm_softmax_scores_b's
spelling: P[b, i, :] = softmax(scale * K[b] q[b, i]), no V): kir-online-folds turns the maximum and the
sum into region folds (two under source numerics, one online fold under relaxed_normalization) and
recomputes the row for the store after them; construction runs that store as a traversal of the keys of
its own, in BLOCK_T tiles (the scores a tile product per block of query rows), never the row whole.

The kernel-level spelling (bench/corpus/58_bmm_softmax_scores: a batched T.matmul and a softmax over
its last axis) and a softmax down the columns of an unbatched product become that form first
(kir-row-parallels), and are checked the same way.

Each kernel runs against a NumPy reference on the KIR interpreter (as traced and as rewritten, its folds
cut into random slices), through the pgpu interpreter after the shared pipeline with 16-wide blocks
(and a head dim over its block: the element-wise fallback), and through Triton under TRITON_INTERPRET=1,
at odd shapes (S, T in 1, 7, 129; D 16 and 64), with a causal mask that leaves whole rows masked (their
maximum is -inf: every exponential of the source is NaN, and so is the row).
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
from interp_cli import run_kir, views_of  # noqa: E402

F16 = T.f16


@tessel.kernel(name="sr_scores")
def scores(q: T.In[F16, ("B", "S", "D")], k: T.In[F16, ("B", "T", "D")], p: T.Out[F16, ("B", "S", "T")],
           scale: T.f32):
    B, S, D = q.shape
    keys, dims = T.domain(0, k.shape[1]), T.domain(0, D)
    for b, i in T.parallel(T.domain(0, B), T.domain(0, S)):
        s = T.matvec(k[b, keys, dims], q[b, i, dims]) * scale
        e = T.exp(s - T.max(s))
        p[b, i, keys] = T.cast(e / T.sum(e), F16)


@tessel.kernel(name="sr_lagged_lse")
def lagged_lse(q: T.In[F16, ("B", "S", "D")], k: T.In[F16, ("B", "T", "D")], p: T.Out[T.f32, ("B", "S", "T")],
               lse: T.Out[T.f32, ("B", "S")], scale: T.f32, lag: T.i32):
    """Key j visible to query i when j + lag <= i: the first `lag` rows see no key (maximum -inf, the
    source's row NaN); the row's logsumexp beside it."""
    B, S, D = q.shape
    keys, dims = T.domain(0, k.shape[1]), T.domain(0, D)
    kpos = T.indices(keys)
    for b, i in T.parallel(T.domain(0, B), T.domain(0, S)):
        s = T.matvec(k[b, keys, dims], q[b, i, dims]) * scale
        s = T.where(kpos + T.cast(lag, T.index) <= i, s, -math.inf)
        m = T.max(s)
        e = T.exp(s - m)
        l = T.sum(e)
        p[b, i, keys] = e / l
        lse[b, i] = m + T.log(l)


@tessel.kernel(name="sr_kernel_level")
def kernel_level(q: T.In[F16, ("B", "S", "D")], k: T.In[F16, ("B", "T", "D")], p: T.Out[F16, ("B", "S", "T")],
                 scale: T.f32):
    """bench/corpus/58_bmm_softmax_scores' spelling: a kernel-level batched matmul and a softmax over its
    last axis; kir-row-parallels makes it the member-per-row form above."""
    B, S, D = q.shape
    bs, rows, keys, dims = T.domain(0, B), T.domain(0, S), T.domain(0, k.shape[1]), T.domain(0, D)
    s = T.matmul(q[bs, rows, dims], k[bs, keys, dims], transpose_rhs=True) * scale
    e = T.exp(s - T.max(s, axis=2))
    p[bs, rows, keys] = T.cast(e / T.sum(e, axis=2), F16)


@tessel.kernel(name="sr_columns")
def columns(k: T.In[F16, ("T", "D")], q: T.In[F16, ("D", "S")], p: T.Out[T.f32, ("T", "S")]):
    """The softmax runs down the columns (axis 0) of an unbatched product K @ Q: the member is the column."""
    keys, dims, cols = T.domain(0, k.shape[0]), T.domain(0, k.shape[1]), T.domain(0, q.shape[1])
    s = T.matmul(k[keys, dims], q[dims, cols])
    e = T.exp(s - T.max(s, axis=0))
    p[keys, cols] = e / T.sum(e, axis=0)


def reference(q, k, scale, lag=None):
    """NumPy in f64, the source's order of operations (NaN rows where nothing is visible)."""
    q, k = np.asarray(q, np.float64), np.asarray(k, np.float64)
    s = np.einsum("bsd,btd->bst", q, k) * scale
    if lag is not None:
        qi, kj = np.arange(q.shape[1])[:, None], np.arange(k.shape[1])[None, :]
        s = np.where(kj + lag <= qi, s, -np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = s.max(-1, keepdims=True)
        e = np.exp(s - m)
        l = e.sum(-1, keepdims=True)
        return [e / l] if lag is None else [e / l, (m + np.log(l))[..., 0]]


SHAPES = [(1, 1, 16), (7, 129, 64), (129, 7, 16), (7, 7, 64), (129, 129, 16)]


def draw(kernel, shape, seed):
    rng = np.random.default_rng(seed)
    ins, _ = views_of(kernel)
    return {n: rng.standard_normal([shape[e] for e in ext]).astype(np.float16) for n, ext in ins}


def case(name, S, T_, D):
    shape = dict(B=2, S=S, T=T_, D=D)
    if name == "scores":
        return scores, shape, {}, lambda x, sc: reference(**x, scale=sc["scale"])
    if name == "kernel_level":
        return kernel_level, shape, {}, lambda x, sc: reference(**x, scale=sc["scale"])
    if name == "columns":
        def ref(x, sc):
            return [reference(x["q"].T[None], x["k"][None], 1.0)[0][0].T]
        return columns, dict(T=T_, D=D, S=S), {}, ref
    lag = min(S, 3)
    return lagged_lse, shape, {"lag": lag}, lambda x, sc: reference(**x, scale=sc["scale"], lag=lag)


def rewritten(tessel_bin, tmp_path, kernel):
    src = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(src), "-kir-row-parallels", "-kir-online-folds"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return src.read_text(), res.stdout


def close(got, want, what):
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{what}: NaN positions")
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=2e-3, err_msg=what)


@pytest.mark.parametrize("S,T_,D", SHAPES, ids=[f"S{S}-T{t}-D{D}" for S, t, D in SHAPES])
@pytest.mark.parametrize("name", ["scores", "lagged_lse", "kernel_level", "columns"])
def test_stored_rows(tessel_bin, tmp_path, name, S, T_, D):
    import torch
    kernel, shape, extra, ref = case(name, S, T_, D)
    inputs = draw(kernel, shape, seed=S * 7 + T_ * 3 + D)
    scalars = {"scale": 1.0 / math.sqrt(D), **extra} if kernel is not columns else {}
    want = ref(inputs, scalars)

    traced, folded = rewritten(tessel_bin, tmp_path, kernel)
    assert "kir.region_fold" not in traced
    assert folded.count("kir.region_fold sources") == 2, folded
    assert ("kir.parallel" in traced) == (kernel in (scores, lagged_lse)) and "kir.parallel" in folded
    # The store reads the row recomputed after both folds, with their results.
    after = folded.split("kir.region_fold sources")[-1].split("} combine {")[-1]
    assert "kir.contract" in after and "kir.unary exp" in after and "kir.store" in after
    for text, segments in ((traced, "one"), (folded, "one"), (folded, "random"), (folded, "3")):
        got = run_kir(tessel_bin, tmp_path, text, kernel, shape, inputs, scalars, segments)
        for g, w in zip(got, want):
            close(g, w, f"KIR interpreter, segments={segments}")

    _, outs = views_of(kernel)
    args = [torch.from_numpy(inputs[n]) for n, _ in views_of(kernel)[0]]
    results = [torch.full([shape[e] for e in ext], float("nan"),
                          dtype=torch.float16 if kernel in (scores, kernel_level) else torch.float32)
               for n, ext in outs]
    kernel(*args, *results, **scalars)
    for r, w in zip(results, want):
        close(r.double().numpy(), w, "Triton (TRITON_INTERPRET=1)")


def test_relaxed_is_one_online_fold(tessel_bin, tmp_path):
    """With the permission, the maximum and the sum are one online fold; the store still recomputes
    the row after it, and the KIR interpreter agrees with the reference on random slices."""
    kernel = tessel.kernel(name="sr_scores_relaxed", numerics="relaxed_normalization")(scores.fn)
    traced, folded = rewritten(tessel_bin, tmp_path, kernel)
    assert folded.count("kir.region_fold sources") == 1 and "-> (i1, f32, f32)" in folded
    shape = dict(B=2, S=7, T=129, D=16)
    inputs = draw(kernel, shape, seed=5)
    scalars = {"scale": 0.25}
    want = reference(**inputs, scale=0.25)
    for segments in ("one", "random", "3"):
        got = run_kir(tessel_bin, tmp_path, folded, kernel, shape, inputs, scalars, segments)
        close(got[0], want[0], f"relaxed, segments={segments}")


def test_traversal_remarks(tessel_bin, tmp_path):
    """The choice is said where it is made: the KIR rewrite at the loop, the store's traversal at the
    store; the store's pgpu is a loop stepping by BLOCK_T with a contraction of a block of query rows."""
    kernel = tessel.kernel(name="sr_scores_remarks", optimization_remarks=True)(scores.fn)
    src = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(src),
                          "--tessel-pipeline=stop-after=construct"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "store(s) over the axis read the row with the summary, so the row is recomputed" in res.stderr
    assert "this store over a region fold's domain is a traversal of its own after the folds" in res.stderr
    text = res.stdout
    loop = re.search(r"pgpu\.for \S+ to \S+ step (%\w+) \{", text)
    assert loop, text
    assert f'{loop.group(1)} = pgpu.param "BLOCK_T"' in text, text
    tail = text[loop.start():]
    assert "pgpu.contract" in tail and "!pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>" in tail and "pgpu.store" in tail


@pytest.mark.parametrize("path", ["examples/softmax.py", "bench/corpus/13_log_softmax.py"])
def test_rows_from_memory_are_untouched(tessel_bin, tmp_path, root, path):
    """A row read from memory and stored as its softmax is no contraction: it keeps its row path under
    either numerics (nothing folded, nothing recomputed)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("sr_" + re.sub(r"\W", "_", path), root / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernels = [x for x in vars(module).values() if isinstance(x, tessel.Kernel)]
    assert kernels
    for kernel in kernels:
        for numerics in ("source", "relaxed_normalization"):
            k = tessel.kernel(name=kernel.name + "_" + numerics[:3], numerics=numerics)(kernel.fn)
            traced, folded = rewritten(tessel_bin, tmp_path, k)
            assert "kir.region_fold" not in folded and folded.count("kir.reduce") == traced.count("kir.reduce")


PGPU_CASES = [("scores", 7, 129, 64, {"BLOCK_D": 64}),     # D = BLOCK_D: the unmasked variant
              ("kernel_level", 37, 41, 24, {"BLOCK_D": 32}),
              ("columns", 19, 23, 16, {"BLOCK_D": 16}),
              ("scores", 37, 41, 24, {"BLOCK_D": 32}),
              ("scores", 9, 20, 24, {"BLOCK_D": 16}),      # D > BLOCK_D: the element-wise fallback
              ("lagged_lse", 37, 29, 16, {"BLOCK_D": 16}),
              ("lagged_lse", 7, 1, 16, {"BLOCK_D": 32})]


@pytest.mark.parametrize("name,S,T_,D,params", PGPU_CASES, ids=[f"{c[0]}-S{c[1]}-T{c[2]}-D{c[3]}" for c in PGPU_CASES])
def test_pgpu_after_shared_pipeline(tessel_bin, tmp_path, name, S, T_, D, params):
    """After the shared pipeline with 16-wide query and key blocks, the pgpu interpreter agrees with the
    KIR interpreter on the same inputs."""
    kernel, shape, extra, _ = case(name, S, T_, D)
    source = kernel._write(tmp_path, None)
    args = ["--shape", ",".join(f"{n}={x}" for n, x in shape.items()), "--seed", "4"]
    for n, x in ({"scale": 1.0 / math.sqrt(D), **extra} if kernel is not columns else {}).items():
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


@tessel.kernel(name="sr_softmax_kernel_level")
def softmax_kernel_level(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    """A row softmax read from memory, written at kernel level: the parallel over rows (the row path)."""
    rows, cols = T.domain(0, x.shape[0]), T.domain(0, x.shape[1])
    v = x[rows, cols]
    e = T.exp(v - T.max(v, axis=1))
    y[rows, cols] = e / T.sum(e, axis=1)


@tessel.kernel(name="sr_middle_axis")
def middle_axis(x: T.In[T.f32, ("A", "N", "C")], y: T.Out[T.f32, ("A", "N", "C")]):
    """Normalized over the middle axis: the members are the first and the last."""
    a, n, c = T.domain(0, x.shape[0]), T.domain(0, x.shape[1]), T.domain(0, x.shape[2])
    v = x[a, n, c]
    y[a, n, c] = v / T.sum(v, axis=1)


@pytest.mark.parametrize("shape", [(1, 1, 1), (3, 7, 5), (2, 129, 3)], ids=lambda s: "x".join(map(str, s)))
def test_kernel_level_rows(tessel_bin, tmp_path, shape):
    """kir-row-parallels on rows that are no contraction's: a kernel-level softmax and a normalization
    over a middle axis become parallels (members at the member's index) and match NumPy through Triton."""
    import torch
    for kernel, members in ((softmax_kernel_level, 1), (middle_axis, 2)):
        traced, folded = rewritten(tessel_bin, tmp_path, kernel)
        assert "kir.parallel" not in traced and "kir.region_fold" not in folded
        par = re.search(r"kir\.parallel (.*) \{", folded)
        assert par and par.group(1).count("%") == members, folded
    rng = np.random.default_rng(sum(shape))
    A, N, C = shape
    x = rng.standard_normal((A * C, N)).astype(np.float32)
    y = torch.full(x.shape, float("nan"))
    softmax_kernel_level(torch.from_numpy(x), y)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    np.testing.assert_allclose(y.numpy(), e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)
    x3 = (rng.random((A, N, C)) + 0.5).astype(np.float32)
    y3 = torch.full(x3.shape, float("nan"))
    middle_axis(torch.from_numpy(x3), y3)
    np.testing.assert_allclose(y3.numpy(), x3 / x3.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)
