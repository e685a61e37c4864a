"""A matrix product's row held in one tile computes its product once (pgpu-stage-folds, issue 41): a
softmax of `x @ W^T + b` (bench/corpus/176_gemm_row_softmax: a maximum fold, a sum fold, the store) and a
LayerNorm of `x @ W^T + b + r` (189: mean and variance folds, the store) run their folds and the store
over one segment of BLOCK_N when 0 < N <= BLOCK_N, else recompute the row's tiles per fold as before.

Each kernel runs on the KIR interpreter against NumPy and on the pgpu interpreter after the shared
pipeline against the KIR interpreter (shuffled order), at odd shapes (N = 1, 17, 255, 257, 1000; M
primes; K not a multiple of 16) with BLOCK_N at 256 (the staged path up to N = 256, the folds past it)
and at 16 (the folds), and through Triton under TRITON_INTERPRET=1 at its call defaults. The call's
default binds BLOCK_N to the row where a candidate holds it, narrowing BLOCK_M until the resource
model keeps the tile in registers, and keeps the folds where none holds it. f16 operands: Triton's CPU
interpreter contracts bf16 wrongly (triton-lang/triton#11584).
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from interp_cli import close, interpreters_agree, tessel_opt  # noqa: E402

F16 = T.f16


def _softmax(x: T.In[F16, ("M", "K")], w: T.In[F16, ("N", "K")], b: T.In[T.f32, ("N",)],
             y: T.Out[T.f32, ("M", "N")]):
    rows, cols, ks = T.domain(0, x.shape[0]), T.domain(0, w.shape[0]), T.domain(0, x.shape[1])
    z = T.matmul(x[rows, ks], w[cols, ks], transpose_rhs=True, init=b[cols])
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


KERNELS = {"softmax": tessel.kernel(name="sf_softmax")(_softmax),
           "layernorm": tessel.kernel(name="sf_layernorm")(_layernorm)}


def reference(name, inputs):
    x, w, b = (inputs[n].astype(np.float64) for n in ("x", "w", "b"))
    h = x @ w.T + b
    if name == "softmax":
        e = np.exp(h - h.max(axis=1, keepdims=True)) if h.size else h
        return {"y": e / e.sum(axis=1, keepdims=True)}
    h = h + inputs["r"]
    d = h - h.mean(axis=1, keepdims=True) if h.size else h
    return {"y": d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-3)}


VIEWS = {"softmax": ("x", "w", "b"), "layernorm": ("x", "w", "b", "r")}


def draw(shape, seed, name="layernorm"):
    rng = np.random.default_rng(seed)
    M, K, N = shape["M"], shape["K"], shape["N"]
    inputs = {"x": rng.standard_normal((M, K)).astype(np.float16),
              "w": (rng.standard_normal((N, K)) / np.sqrt(max(K, 1))).astype(np.float16),
              "b": (0.5 * rng.standard_normal(N)).astype(np.float32),
              "r": rng.standard_normal((M, N)).astype(np.float32)}
    return {n: inputs[n] for n in VIEWS[name]}


SHAPES = [dict(M=1, K=1, N=1), dict(M=3, K=37, N=17), dict(M=5, K=131, N=255), dict(M=2, K=19, N=257),
          dict(M=7, K=23, N=1000), dict(M=0, K=5, N=3), dict(M=3, K=0, N=17)]


@pytest.mark.parametrize("name", list(KERNELS))
def test_staged_and_interpreters_agree(tessel_bin, tmp_path, name):
    kernel = KERNELS[name]
    source = kernel._write(tmp_path, None)
    staged = tessel_opt(tessel_bin, source, "--tessel-pipeline=stop-after=stage-rows")
    # One guarded single-segment path per form of the x tile (K in one block exactly, shorter, longer):
    # its folds are gone there, the BLOCK_N parameter covers N.
    assert '#pgpu.param<"BLOCK_N", [16, 32, 64, 128, 256], 64, covers = "N">' in staged, staged
    program = tmp_path / f"{kernel.name}-pgpu.mlir"
    tessel_opt(tessel_bin, source, "--tessel-pipeline=stop-after=realize-folds", "-o", str(program))
    interpreters_agree(tessel_bin, tmp_path, source, program, SHAPES, lambda shape, i: draw(shape, i, name),
                       lambda inputs: reference(name, inputs),
                       [{"BLOCK_N": 256, "BLOCK_M": 16}, {"BLOCK_N": 16, "BLOCK_K": 16, "TILE_K": 16}])


def test_one_product_in_the_staged_path(tessel_bin, tmp_path):
    """The staged branch computes the [BLOCK_M, BLOCK_N] product once: of the softmax's three passes
    (maximum, sum, store), one contraction (and one K loop where K is longer than BLOCK_K) remains."""
    source = KERNELS["softmax"]._write(tmp_path, None)
    before = tessel_opt(tessel_bin, source, "--tessel-pipeline=stop-after=form-blocking")
    after = tessel_opt(tessel_bin, source, "--tessel-pipeline=stop-after=stage-rows")
    assert before.count("pgpu.contract") == 9  # 3 passes x 3 forms of the x tile
    # The staged branches hold 3 contractions (one per form), the folds' else branches the 9 as before but
    # for the form with a K loop, whose tiles pgpu-keep-fold-tiles keeps: one product for its three passes.
    assert after.count("pgpu.contract") == 12 - 2, after
    assert after.count("pgpu.region_fold") == before.count("pgpu.region_fold")


@pytest.mark.parametrize("n, block_n", [(256, 256), (200, 256), (100, 128), (2048, None)])
def test_call_default_holds_the_row(n, block_n):
    """BLOCK_N covers N where a candidate holds it, BLOCK_M narrowing until the accumulator fits the
    registers (the resource model); past every candidate (N = 2048) the row keeps its folds."""
    import torch
    kernel = KERNELS["softmax"]
    m, k = 4096, 512
    args = [torch.empty(m, k, dtype=torch.float16, device="meta"), torch.empty(n, k, dtype=torch.float16, device="meta"),
            torch.empty(n, dtype=torch.float32, device="meta"), torch.empty(m, n, dtype=torch.float32, device="meta")]
    got = kernel.call_defaults(*args)
    prune = kernel._cache.get(kernel._declared("prune", {}, "triton"))
    if block_n is None:
        assert got["BLOCK_N"] < n
    else:
        assert got["BLOCK_N"] == block_n, got
        assert prune(got) is None, got


def test_call_default_keeps_a_warpgroup_tile():
    """At 176's bench shape (M=32768 K=1024 N=256, f16) the row held in BLOCK_N = 256 takes a program tile
    a warpgroup MMA runs (BLOCK_M >= 64: under it Triton spells mma.sync) with a pipeline of at least 3
    stages, the resource model admitting it (was 32x256 at 6 stages)."""
    import torch
    kernel = KERNELS["softmax"]
    m, k, n = 32768, 1024, 256
    args = [torch.empty(m, k, dtype=torch.float16, device="meta"), torch.empty(n, k, dtype=torch.float16, device="meta"),
            torch.empty(n, dtype=torch.float32, device="meta"), torch.empty(m, n, dtype=torch.float32, device="meta")]
    got = kernel.call_defaults(*args)
    prune = kernel._cache.get(kernel._declared("prune", {}, "triton"))
    assert got["BLOCK_N"] == 256 and got["BLOCK_M"] >= 64 and got["STAGES"] >= 3, got
    assert prune(got) is None, got


_SPACE = {"BLOCK_M": ([16, 32, 64, 128, 256], 128), "BLOCK_N": ([16, 32, 64, 128, 256], 64),
          "BLOCK_K": ([16, 32, 64, 128, 256], 128), "STAGES": ([1, 2, 3, 4, 5, 6], 6)}


def _narrow(limit):
    from tessel import _fold_tiles
    return _fold_tiles.narrow_beside(_SPACE, {"BLOCK_N": "N", "BLOCK_K": "K"}, {"N": 256, "K": 1024},
                                     {}, "BLOCK_N", 256, limit, ("BLOCK_M", "BLOCK_N", "BLOCK_K"))


def test_narrowing_gives_up_stages_before_rows_for_shared_memory():
    """Shared memory over the limit: the pipeline narrows to 3 stages before a tile drops under 64 (a
    K tile narrows to 64 where that alone fits); BLOCK_M keeps its 128 rows."""
    def limit(b):
        at = {**{p: d for p, (_, d) in _SPACE.items()}, **b}
        smem = 2 * at["STAGES"] * (at["BLOCK_M"] * at["BLOCK_K"] + at["BLOCK_K"] * at["BLOCK_N"])
        return "shared memory" if smem > 232448 else None
    got = _narrow(limit)
    assert got == {"BLOCK_K": 64, "STAGES": 4}, got


def test_narrowing_for_registers_keeps_the_pipeline():
    """Must not give up stages where registers are the limit (stages hold none): the row tile narrows."""
    def limit(b):
        at = {**{p: d for p, (_, d) in _SPACE.items()}, **b}
        return "registers" if at["BLOCK_M"] * at["BLOCK_N"] > 64 * 256 else None
    got = _narrow(limit)
    assert got == {"BLOCK_M": 64}, got


@pytest.mark.parametrize("name", list(KERNELS))
def test_triton(name):
    import torch
    kernel = KERNELS[name]
    for i, shape in enumerate([dict(M=3, K=37, N=17), dict(M=5, K=130, N=67), dict(M=1, K=1, N=1),
                               dict(M=2, K=20, N=257)]):
        inputs = draw(shape, seed=10 + i, name=name)
        want = reference(name, inputs)
        out = torch.full((shape["M"], shape["N"]), float("nan"), dtype=torch.float32)
        args = [torch.from_numpy(inputs[n]) for n in VIEWS[name]]
        kernel.launch(*args, out)
        close({"y": out.double().numpy()}, want, f"Triton at {shape}")
