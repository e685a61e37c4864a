"""A matrix product's row wider than one tile computes its product once (pgpu-keep-fold-tiles, issue 41):
under source numerics a softmax of `x @ W + b` (bench/corpus/138_classifier_head: C = 1000 classes) or a
LayerNorm of `x @ W^T + b + r` (189) is a maximum (mean) fold, a sum (variance) fold and the store loop,
each recomputing every [BLOCK_M, BLOCK_N] tile with its own K loop where the row spans several tiles. The
pass runs the product's K loop once per tile in a loop before the folds, keeps the tiles in workspace
[KEEP_PROGRAMS, KEEP_TILES, BLOCK_M, BLOCK_N] and has the second fold and the store load them; the first
fold's segment summaries are computed by that loop from the tile it holds and kept beside it (one pass
over the tiles fewer).

Each kernel runs on the KIR interpreter against NumPy and on the pgpu interpreter after the shared
pipeline against the KIR interpreter (shuffled program order), at odd shapes (N = 1, 17, 33, 257, 1000;
M = 0, 1, primes; K = 0, 1 and not a multiple of TILE_K) with BLOCK_N = 16 (several segments: the kept
tiles) and TILE_K = 16 (a K loop), and through Triton under TRITON_INTERPRET=1 at its call defaults with
N and K past the widest BLOCK_N and BLOCK_K (the folds' path with a K loop: tiles kept). f16 operands: Triton's CPU interpreter
contracts bf16 wrongly (triton-lang/triton#11584). Must not fire: a fused linear cross-entropy's folds
over the vocabulary (nothing stores the row: its tiles are the logits it exists not to write).
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from interp_cli import close, interpreters_agree, tessel_opt  # noqa: E402

F16 = T.f16


def _classifier(x: T.In[F16, ("M", "K")], w: T.In[F16, ("K", "N")], b: T.In[T.f32, ("N",)],
                y: T.Out[T.f32, ("M", "N")]):
    rows, cols, ks = T.domain(0, x.shape[0]), T.domain(0, w.shape[1]), T.domain(0, x.shape[1])
    z = T.matmul(x[rows, ks], w[ks, cols], acc_dtype=T.f32, init=b[cols])
    e = T.exp(z - T.max(z, axis=1))
    y[rows, cols] = e / T.sum(e, axis=1)


def _layernorm(x: T.In[F16, ("M", "K")], w: T.In[F16, ("N", "K")], b: T.In[T.f32, ("N",)],
               r: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    rows, cols, ks = T.domain(0, x.shape[0]), T.domain(0, w.shape[0]), T.domain(0, x.shape[1])
    nf = T.cast(w.shape[0], T.f32)
    h = T.matmul(x[rows, ks], w[cols, ks], transpose_rhs=True, acc_dtype=T.f32, init=b[cols]) + r[rows, cols]
    mean = T.sum(h, axis=1) / nf
    d = h - mean
    y[rows, cols] = d * T.rsqrt(T.sum(d * d, axis=1) / nf + 1e-3)


def _cross_entropy(h: T.In[F16, ("M", "K")], w: T.In[F16, ("N", "K")], loss: T.Out[T.f32, ("M",)]):
    vocab, ks = T.domain(0, w.shape[0]), T.domain(0, h.shape[1])
    for m in T.parallel(T.domain(0, h.shape[0])):
        logits = T.matvec(w[vocab, ks], h[m, ks])
        mx = T.max(logits)
        loss[m] = mx + T.log(T.sum(T.exp(logits - mx)))


KERNELS = {"classifier": tessel.kernel(name="kt_classifier")(_classifier),
           "layernorm": tessel.kernel(name="kt_layernorm")(_layernorm)}
VIEWS = {"classifier": ("x", "w", "b"), "layernorm": ("x", "w", "b", "r")}


def draw(shape, seed, name):
    rng = np.random.default_rng(seed)
    M, K, N = shape["M"], shape["K"], shape["N"]
    w = (rng.standard_normal((K, N)) * (2.0 / np.sqrt(max(K, 1)))).astype(np.float16)
    inputs = {"x": rng.standard_normal((M, K)).astype(np.float16),
              "w": w if name == "classifier" else np.ascontiguousarray(w.T),
              "b": (0.5 * rng.standard_normal(N)).astype(np.float32),
              "r": rng.standard_normal((M, N)).astype(np.float32)}
    return {n: inputs[n] for n in VIEWS[name]}


def reference(name, inputs):
    x, w, b = (inputs[n].astype(np.float64) for n in ("x", "w", "b"))
    h = (x @ w if name == "classifier" else x @ w.T) + b
    if name == "classifier":
        e = np.exp(h - h.max(axis=1, keepdims=True)) if h.size else h
        return {"y": e / e.sum(axis=1, keepdims=True)}
    h = h + inputs["r"]
    d = h - h.mean(axis=1, keepdims=True) if h.size else h
    return {"y": d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-3)}


SHAPES = [dict(M=1, K=1, N=1), dict(M=3, K=37, N=17), dict(M=5, K=131, N=33), dict(M=2, K=19, N=257),
          dict(M=7, K=23, N=1000), dict(M=0, K=5, N=40), dict(M=3, K=0, N=17), dict(M=13, K=16, N=16)]


@pytest.mark.parametrize("name", list(KERNELS))
def test_one_product_per_row(tessel_bin, tmp_path, name):
    """Where the tiles are kept, one K loop per form of the x tile computes the product (the kept loop's):
    the second fold and the store load it; the first fold (the maximum, the mean) is summarized by the
    kept loop from the tile it computed and loads its [BLOCK_M] summaries, not the tiles."""
    source = KERNELS[name]._write(tmp_path, None)
    before = tessel_opt(tessel_bin, source, "--tessel-pipeline=stop-after=form-blocking")
    after = tessel_opt(tessel_bin, source, "--tessel-pipeline=stop-after=stage-rows")
    assert "pgpu.workspace_extent \"KEEP_TILES\"" in after, after
    tile, summary = "-> !pgpu.fragment<f32, [BLOCK_M, BLOCK_N]>", "-> !pgpu.fragment<f32, [BLOCK_M]>"
    stores = [line for line in after.splitlines() if "pgpu.buffer_store" in line]
    assert len(stores) == 2 and "KEEP_TILES, BLOCK_M, BLOCK_N]" in stores[0] and "KEEP_TILES, BLOCK_M]" in stores[1], after
    loads = [line for line in after.splitlines() if "pgpu.buffer_load" in line]
    # Two passes (the second fold and the store) load the kept tile, the first fold its summaries: of the
    # three contractions of the form of the x tile with a K loop, the kept loop's one remains (-2); the
    # other forms and the staged paths pgpu-stage-folds adds (+3, one per form) keep theirs.
    assert sum(tile in line for line in loads) == 2 and sum(summary in line for line in loads) == 1, after
    assert after.count("pgpu.contract") == before.count("pgpu.contract") + 3 - 2, (before, after)


@pytest.mark.parametrize("name", list(KERNELS))
def test_kept_tiles_and_interpreters_agree(tessel_bin, tmp_path, name):
    kernel = KERNELS[name]
    source = kernel._write(tmp_path, None)
    program = tmp_path / f"{kernel.name}-pgpu.mlir"
    tessel_opt(tessel_bin, source, "--tessel-pipeline=stop-after=realize-folds", "-o", str(program))
    assert "KEEP_TILES" in program.read_text()
    interpreters_agree(tessel_bin, tmp_path, source, program, SHAPES, lambda shape, i: draw(shape, i, name),
                       lambda inputs: reference(name, inputs),
                       [{"BLOCK_N": 16, "BLOCK_K": 16, "TILE_K": 16}, {"BLOCK_N": 32, "BLOCK_M": 16, "TILE_K": 16},
                        # split folds where K fits BLOCK_K, one program a point where the tiles are kept
                        {"BLOCK_N": 16, "BLOCK_K": 16, "TILE_K": 16, "FOLD_SPLIT": 2}])


def test_not_kept_without_a_stored_row(tessel_bin, tmp_path):
    """A cross-entropy's folds over the vocabulary store no row: nothing is kept."""
    kernel = tessel.kernel(name="kt_cross_entropy")(_cross_entropy)
    source = kernel._write(tmp_path, None)
    after = tessel_opt(tessel_bin, source, "--tessel-pipeline=stop-after=stage-rows")
    assert "KEEP_TILES" not in after and "pgpu.buffer_store" not in after, after


@pytest.mark.parametrize("name", list(KERNELS))
def test_triton(name):
    import torch
    kernel = KERNELS[name]
    for i, shape in enumerate([dict(M=3, K=300, N=300), dict(M=5, K=520, N=257), dict(M=1, K=1, N=513),
                               dict(M=70, K=259, N=260)]):
        inputs = draw(shape, seed=10 + i, name=name)
        if shape["K"] > 256:  # past every BLOCK_N and BLOCK_K candidate: the K loop's tiles are kept
            meta = [torch.empty(inputs[n].shape, dtype=torch.from_numpy(inputs[n]).dtype, device="meta")
                    for n in VIEWS[name]]
            got = kernel.call_defaults(*meta, torch.empty(shape["M"], shape["N"], device="meta"))
            assert got["BLOCK_N"] < shape["N"] and got["BLOCK_K"] < shape["K"], got
        want = reference(name, inputs)
        out = torch.full((shape["M"], shape["N"]), float("nan"), dtype=torch.float32)
        args = [torch.from_numpy(inputs[n]) for n in VIEWS[name]]
        kernel.launch(*args, out)
        close({"y": out.double().numpy()}, want, f"Triton at {shape}")


@pytest.mark.parametrize("name", list(KERNELS))
def test_split_only_where_folds_split(name):
    """pgpu-split-folds splits the folds of the path whose K fits one BLOCK_K tile; the kept path's folds
    (K past it) run whole, so there FOLD_SPLITS is 1 (no programs without work): the call's default
    FOLD_SPLIT splits a launch of few row blocks (32 at M = 4096) only where K fits one tile."""
    import torch
    kernel = KERNELS[name]

    def defaults(M, K, N):
        shapes = {"x": (M, K), "w": (K, N) if name == "classifier" else (N, K), "b": (N,), "r": (M, N)}
        dtypes = {"x": torch.float16, "w": torch.float16, "b": torch.float32, "r": torch.float32}
        meta = [torch.empty(shapes[n], dtype=dtypes[n], device="meta") for n in VIEWS[name]]
        return kernel.call_defaults(*meta, torch.empty(M, N, device="meta"))

    kept = defaults(4096, 4096, 1024)
    assert kept["BLOCK_K"] < 4096 and kept["BLOCK_N"] < 1024 and kept["FOLD_SPLIT"] == 1, kept
    short = defaults(4096, 64, 1024)
    assert short["BLOCK_K"] >= 64 and short["BLOCK_N"] < 1024 and short["FOLD_SPLIT"] > 1, short
