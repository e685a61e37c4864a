"""Region folds over a contraction whose paired axis is longer than its block (kir-to-pgpu,
ContractLoops.cpp): per row n, logits = W[vocab, ks] . x[n, ks] folded into a row summary, the
shape of fused linear cross-entropy (bench/corpus/116) and of any "matvec per row, then a row
reduction of the product". The axis ks is only reduced, so where K > BLOCK_K the workset keeps its
fragment form: each contraction is a pgpu.for over TILE_K blocks of ks (a GEMM's K loop) inside the
fold's summarizer, no longer the element-wise construction. The per-row target logit
W[labels[n], ks] . x[n, ks] is a lane's own dot product (kir.extract of its rank-0 result).

Each kernel runs on the KIR interpreter against NumPy, on the pgpu interpreter after the shared
pipeline against the KIR interpreter (looped variant: K > BLOCK_K; fragment variant: K <= BLOCK_K;
split folds), and through Triton under TRITON_INTERPRET=1 in both variants, at odd shapes (K = 0, 1,
primes, non-multiples of every block; N = 0; V = 1). f16 operands: Triton's CPU interpreter contracts
bf16 wrongly (triton-lang/triton#11584).
"""
import os
import re
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from interp_cli import close, realize_folds, run_cli  # noqa: E402

F16 = T.f16


def _flce(x: T.In[F16, ("N", "K")], w: T.In[F16, ("V", "K")], labels: T.In[T.i64, ("N",), T.Range(0, "V")],
          loss: T.Out[T.f32, ("N",)]):
    N, K = x.shape
    V = w.shape[0]
    vocab, ks = T.domain(0, V), T.domain(0, K)
    for n in T.parallel(T.domain(0, N)):
        logits = T.matvec(w[vocab, ks], x[n, ks])
        mx = T.max(logits)
        lse = mx + T.log(T.sum(T.exp(logits - mx)))
        target = T.dot(w[labels[n], ks], x[n, ks])
        loss[n] = lse - target


def _row_lse(x: T.In[F16, ("N", "K")], w: T.In[F16, ("V", "K")], out: T.Out[T.f32, ("N",)]):
    N, K = x.shape
    vocab, ks = T.domain(0, w.shape[0]), T.domain(0, K)
    for n in T.parallel(T.domain(0, N)):
        z = T.matvec(w[vocab, ks], x[n, ks])
        m = T.max(z)
        out[n] = m + T.log(T.sum(T.exp(z - m)))


def _row_max(x: T.In[F16, ("N", "K")], w: T.In[F16, ("V", "K")], out: T.Out[T.f32, ("N",)]):
    N, K = x.shape
    vocab, ks = T.domain(0, w.shape[0]), T.domain(0, K)
    for n in T.parallel(T.domain(0, N)):
        out[n] = T.max(T.matvec(w[vocab, ks], x[n, ks]))


KERNELS = {
    "flce": tessel.kernel(name="cl_flce")(_flce),
    "row_lse": tessel.kernel(name="cl_row_lse")(_row_lse),
    "row_lse_relaxed": tessel.kernel(name="cl_row_lse_relaxed", numerics="relaxed_normalization")(_row_lse),
    "row_max": tessel.kernel(name="cl_row_max")(_row_max),  # a maximum alone: one fold (kir-online-folds)
}


def reference(name, inputs):
    z = inputs["x"].astype(np.float64) @ inputs["w"].astype(np.float64).T
    mx = z.max(axis=1) if z.shape[1] else np.full(z.shape[0], -np.inf)
    if name == "row_max":
        return {"out": mx}
    with np.errstate(invalid="ignore", divide="ignore"):
        lse = mx + np.log(np.exp(z - mx[:, None]).sum(axis=1))
    if name == "flce":
        return {"loss": lse - z[np.arange(len(inputs["labels"])), inputs["labels"]]}
    return {"out": lse}


def draw(name, shape, seed):
    rng = np.random.default_rng(seed)
    N, K, V = shape["N"], shape["K"], shape["V"]
    inputs = {"x": rng.standard_normal((N, K)).astype(np.float16),
              "w": (rng.standard_normal((V, K)) / np.sqrt(max(K, 1))).astype(np.float16)}
    if name == "flce":
        inputs["labels"] = rng.integers(0, V, N).astype(np.int64)
    return inputs


SHAPES = [dict(N=1, K=1, V=1), dict(N=5, K=17, V=37), dict(N=19, K=40, V=131), dict(N=3, K=0, V=5),
          dict(N=0, K=7, V=3), dict(N=33, K=97, V=67)]
# (params, what): small blocks so that K > BLOCK_K takes the looped variant (TILE_K-wide K blocks),
# K <= BLOCK_K the fragment one; FOLD_SPLIT cuts the last fold across programs.
BINDINGS = [({"BLOCK_N": 16, "BLOCK_V": 16, "BLOCK_K": 16, "TILE_K": 16}, "looped"),
            ({"BLOCK_N": 16, "BLOCK_V": 32, "BLOCK_K": 16, "TILE_K": 32, "FOLD_SPLIT": 4}, "looped-split"),
            ({"BLOCK_N": 32, "BLOCK_V": 16, "BLOCK_K": 128, "TILE_K": 16}, "fragment")]


@pytest.mark.parametrize("name", list(KERNELS))
def test_interpreters_agree(tessel_bin, tmp_path, name):
    kernel = KERNELS[name]
    source, program = realize_folds(tessel_bin, tmp_path, kernel)
    text = program.read_text()
    assert "pgpu.contract" in text and '"TILE_K"' in text, text[:2000]
    for i, shape in enumerate(SHAPES):
        inputs = draw(name, shape, seed=i)
        kir = run_cli(tessel_bin, tmp_path, source, shape, inputs, ["--stage", "kir"], f"kir{i}")
        if shape["N"]:
            close(kir, reference(name, inputs), f"KIR interpreter at {shape}")
        for params, what in BINDINGS:
            got = run_cli(tessel_bin, tmp_path, program, shape, inputs,
                          ["--order", "shuffle", *[f"--param={k}={v}" for k, v in params.items()]],
                          f"pgpu{i}-{what}")
            close(got, kir, f"pgpu interpreter ({what}) at {shape}")


@pytest.mark.parametrize("name", ["flce", "row_lse", "row_lse_relaxed"])
@pytest.mark.parametrize("params", [None, {"BLOCK_N": 16, "BLOCK_V": 16, "BLOCK_K": 16, "TILE_K": 16}],
                         ids=["defaults", "looped"])
def test_triton(name, params):
    import torch
    kernel = KERNELS[name]
    for i, shape in enumerate([dict(N=5, K=17, V=37), dict(N=19, K=300, V=70), dict(N=1, K=0, V=3)]):
        inputs = draw(name, shape, seed=10 + i)
        want = reference(name, inputs)
        out = torch.full((shape["N"],), float("nan"), dtype=torch.float32)
        args = [torch.from_numpy(inputs[n]) for n in ("x", "w", "labels") if n in inputs]
        kernel.launch(*args, out, params=params)
        close({next(iter(want)): out.double().numpy()}, want, f"Triton ({params}) at {shape}")


@pytest.mark.parametrize("name", ["flce", "row_lse"])
def test_triton_phased_kept_tiles(name):
    """pgpu-split-folds' phased pair (the maximum's fold split in a first phase, then the split fold of
    exp(s - max) sums): with K > BLOCK_K both folds compute the same product tile by one K loop, so
    the first phase keeps each segment's tile in workspace [FOLD_POINTS, FOLD_TILES, BLOCK_N, BLOCK_V]
    and the second loads it instead of running its K loop again (the GEMM once, not twice). Triton
    under TRITON_INTERPRET=1 at odd shapes: V = 37 in 3 tiles over FOLD_SPLIT 4 (an empty segment),
    V = 131 in 9 (uneven), K prime and past several TILE_K blocks, N = 0, V = 1."""
    import torch
    kernel = KERNELS[name]
    params = {"BLOCK_N": 16, "BLOCK_V": 16, "BLOCK_K": 16, "TILE_K": 16, "FOLD_SPLIT": 4}
    for i, shape in enumerate([dict(N=5, K=17, V=37), dict(N=19, K=53, V=131), dict(N=0, K=7, V=3),
                               dict(N=2, K=33, V=1)]):
        inputs = draw(name, shape, seed=20 + i)
        want = reference(name, inputs)
        out = torch.full((shape["N"],), float("nan"), dtype=torch.float32)
        args = [torch.from_numpy(inputs[n]) for n in ("x", "w", "labels") if n in inputs]
        kernel.launch(*args, out, params=params)
        close({next(iter(want)): out.double().numpy()}, want, f"Triton (kept tiles) at {shape}")


def test_construction_loops_over_k(tessel_bin, tmp_path):
    """After construction: the fragment variant under `K <= BLOCK_K` (the row block loaded once, before
    the folds), then the looped variant: inside each fold's summarizer a pgpu.for stepping by TILE_K
    whose body loads the [BLOCK_N, TILE_K] row block and the [BLOCK_V, TILE_K] weight tile and
    accumulates their pgpu.contract into a [BLOCK_N, BLOCK_V] carry; the target logit a gather per
    lane, a product and a row reduction per TILE_K block. No element-wise fallback remains."""
    kernel = tessel.kernel(name="cl_flce_remarks", optimization_remarks=True)(_flce)
    source = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source),
                          "--tessel-pipeline=stop-after=construct"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    text, remarks = res.stdout, res.stderr
    assert "constructed element by element" not in remarks, remarks
    assert "each contraction over it is a loop over blocks of it" in remarks, remarks
    assert "pgpu.range_reduce" not in text  # no element-wise construction anywhere
    looped = text[text.index("} else {"):]
    loops = re.findall(r'(%\w+) = pgpu.param "TILE_K" : index\n\s*%\w+ = pgpu.for %\w+ to %\w+ step (%\w+) '
                       r'iter_args\(%\w+ : (.*?)\)', looped)
    assert loops and all(param == step for param, step, _ in loops), loops
    loops = [carry for _, _, carry in loops]
    # two folds' logits tiles and the target's per-lane dot
    assert loops.count("!pgpu.fragment<f32, [BLOCK_N, BLOCK_V]>") == 2, loops
    assert loops.count("!pgpu.fragment<f32, [BLOCK_N]>") == 1, loops
    assert re.search(r"pgpu.contract .*!pgpu.fragment<f16, \[BLOCK_N, TILE_K\]>, "
                     r"!pgpu.fragment<f16, \[TILE_K, BLOCK_V\]>", looped), looped
    assert re.search(r"pgpu.gather %w\[.*-> !pgpu.fragment<f16, \[BLOCK_N, TILE_K\]>", looped), looped


def test_mixed_free_axis_keeps_fallback(tessel_bin, tmp_path):
    """Must not fire: an axis that a contraction reduces but that is also free elsewhere (attention's
    head dim: q . k reduces it, p @ v keeps it) is no loop axis; its workset keeps the guarded fragment
    form and the element-wise fallback, and declares no TILE_ parameter."""
    @tessel.kernel(name="cl_attention_rows")
    def attn(q: T.In[F16, ("S", "D")], k: T.In[F16, ("T", "D")], v: T.In[F16, ("T", "D")],
             o: T.Out[F16, ("S", "D")]):
        keys, dims = T.domain(0, k.shape[0]), T.domain(0, q.shape[1])
        for i in T.parallel(T.domain(0, q.shape[0])):
            s = T.matvec(k[keys, dims], q[i, dims])
            p = T.exp(s - T.max(s))
            o[i, dims] = T.cast(T.vecmat(T.cast(p, F16), v[keys, dims]) / T.sum(p), F16)

    source = attn._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source),
                          "--tessel-pipeline=stop-after=construct"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert '"TILE_' not in res.stdout and "pgpu.range_reduce" in res.stdout  # the fallback stays



@tessel.kernel(name="cl_scores")
def _scores(q: T.In[F16, ("B", "S", "D")], k: T.In[F16, ("B", "T", "D")], p: T.Out[F16, ("B", "S", "T")],
            scale: T.f32):
    bs, rows = T.domain(0, q.shape[0]), T.domain(0, q.shape[1])
    keys, dims = T.domain(0, k.shape[1]), T.domain(0, q.shape[2])
    s = T.matmul(q[bs, rows, dims], k[bs, keys, dims], transpose_rhs=True) * scale
    e = T.exp(s - T.max(s, axis=2))
    p[bs, rows, keys] = T.cast(e / T.sum(e, axis=2), F16)


@pytest.mark.parametrize("D", [7, 16, 40])
def test_store_traversal_in_looped_variant(tessel_bin, tmp_path, D):
    """Softmax scores written out (bench/corpus/58's spelling): the head dim is only reduced, so with
    D > BLOCK_D the two folds and the store's own traversal of the keys each loop over TILE_D blocks
    of it (the query block read per block inside the loops, not once before them); the pgpu
    interpreter agrees with the KIR interpreter in both variants."""
    source, program = realize_folds(tessel_bin, tmp_path, _scores)
    assert '"TILE_D"' in program.read_text()
    shape = dict(B=2, S=19, T=37, D=D)
    rng = np.random.default_rng(D)
    inputs = {"q": rng.standard_normal((2, 19, D)).astype(np.float16),
              "k": rng.standard_normal((2, 37, D)).astype(np.float16)}
    scalar = ["--scalar", "scale=0.3"]
    kir = run_cli(tessel_bin, tmp_path, source, shape, inputs, ["--stage", "kir", *scalar], "kir")
    got = run_cli(tessel_bin, tmp_path, program, shape, inputs,
                  ["--order", "shuffle", *scalar, *[f"--param={k}=16" for k in ("BLOCK_S", "BLOCK_T", "BLOCK_D",
                                                                              "TILE_D")]], "pgpu")
    np.testing.assert_allclose(got["p"], kir["p"], rtol=2e-3, atol=2e-3)


def test_reduced_only_fold_takes_gemm_tiles():
    """TritonLegalize's GEMM tile defaults (chooseContractionDefaults) read a contraction accumulating
    into a loop carry; the looped variant's K loops are such. A fold whose fresh tile product is only
    reduced (a logsumexp over the rows of x @ W^T, no contraction reads it) is a GEMM with a row
    epilogue and takes a GEMM's tile (128 rows, 128 keys, 8 warps; was the fold's 64x64 at 4 warps);
    attention's scores, which feed P.V, keep the fold's (lit reduced-product-tiles.mlir). A GEMM's
    own tile is unchanged."""
    flce = KERNELS["flce"].source("triton")
    params = re.search(r"cl_flce_PARAMS = (\{.*\})", flce).group(1)
    assert "'BLOCK_N': ([16, 32, 64, 128, 256], 128)" in params and \
        "'BLOCK_V': ([16, 32, 64, 128, 256], 128)" in params, params

    @tessel.kernel(name="cl_gemm")
    def gemm(a: T.In[F16, ("M", "K")], b: T.In[F16, ("K", "N")], c: T.Out[T.f32, ("M", "N")]):
        c[T.domain(0, a.shape[0]), T.domain(0, b.shape[1])] = T.matmul(
            a[T.domain(0, a.shape[0]), T.domain(0, a.shape[1])], b[T.domain(0, a.shape[1]), T.domain(0, b.shape[1])])

    params = re.search(r"cl_gemm_PARAMS = (\{.*\})", gemm.source("triton")).group(1)
    tiles = dict(re.findall(r"'(TILE_[01])': \(\[[0-9, ]+\], (\d+)\)", params))
    assert tiles and max(int(v) for v in tiles.values()) >= 128, params  # the GEMM sweep's tile


def test_phased_split_default_counts_points():
    """FOLD_SPLIT's call default for a phased split (pgpu-split-folds: the maximum's fold split in a
    first phase, 2 * FOLD_SPLITS programs a row block where split): the points are the row blocks
    (N / BLOCK_N, 128 rows), not the programs a split adds. N = 4096: 32 row blocks, 8 segments fill
    the 132 multiprocessors (read as plain, 3 * 32 programs a step would have kept 2); N = 256: 2 row
    blocks take the largest split. Row blocks holding three quarters of the multiprocessors (99 of 132)
    take no phased split (it would only shorten the folds' passes, by at most 132 / 99): N = 16384's
    128 blocks and N = 12672's 99 keep 1; N = 12544's 98 take 2."""
    torch = pytest.importorskip("torch")
    kernel = KERNELS["flce"]
    K, V = 4096, 32000
    for N, want in ((4096, 8), (16384, 1), (12672, 1), (12544, 2), (256, 64)):
        h = torch.empty((N, K), dtype=torch.float16, device="meta")
        w = torch.empty((V, K), dtype=torch.float16, device="meta")
        labels = torch.empty((N,), dtype=torch.int64, device="meta")
        loss = torch.empty((N,), dtype=torch.float32, device="meta")
        assert kernel.call_defaults(h, w, labels, loss).get("FOLD_SPLIT") == want, N
