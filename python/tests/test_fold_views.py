"""Region folds whose source has the folded axis second (kir-online-folds' transposed views): a
classifier head softmax(X @ W + b) over the classes with W [K, C] (class axis second, as torch's
`x @ w` is written; bench/corpus/138), the bias as the product's init= or added after, and a per-row
logsumexp of `T.vecmat(x[n, ks], w[ks, vocab])`. kir-online-folds slices W through a kir.transpose
with the class axis first (transposed back in the summarizers); kir-to-pgpu's fold worksets read the
transpose pair as W itself, so each logits tile [BLOCK_M, BLOCK_C] is one tile product (a K loop of
them where K > BLOCK_K), never the element-wise construction.

Each kernel runs on the KIR interpreter against NumPy, on the pgpu interpreter after the shared
pipeline against the KIR interpreter (looped K, split folds, K in one block), and through Triton
under TRITON_INTERPRET=1, at odd shapes (C = 1, primes, K = 0 and K not a multiple of TILE_K, M = 0).
f16 operands: Triton's CPU interpreter contracts bf16 wrongly (triton-lang/triton#11584).
"""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
import interp_cli  # noqa: E402
from interp_cli import realize_folds, run_cli  # noqa: E402

F16 = T.f16


def _head_init(x: T.In[F16, ("M", "K")], w: T.In[F16, ("K", "C")], b: T.In[T.f32, ("C",)],
               probs: T.Out[T.f32, ("M", "C")]):
    rows, ks, classes = T.domain(0, x.shape[0]), T.domain(0, x.shape[1]), T.domain(0, w.shape[1])
    logits = T.matmul(x[rows, ks], w[ks, classes], acc_dtype=T.f32, init=b[classes])
    e = T.exp(logits - T.max(logits, axis=1))
    probs[rows, classes] = e / T.sum(e, axis=1)


def _head_add(x: T.In[F16, ("M", "K")], w: T.In[F16, ("K", "C")], b: T.In[T.f32, ("C",)],
              probs: T.Out[T.f32, ("M", "C")]):
    rows, ks, classes = T.domain(0, x.shape[0]), T.domain(0, x.shape[1]), T.domain(0, w.shape[1])
    logits = T.matmul(x[rows, ks], w[ks, classes], acc_dtype=T.f32) + b[classes]
    e = T.exp(logits - T.max(logits, axis=1))
    probs[rows, classes] = e / T.sum(e, axis=1)


def _row_lse(x: T.In[F16, ("M", "K")], w: T.In[F16, ("K", "C")], out: T.Out[T.f32, ("M",)]):
    ks, classes = T.domain(0, x.shape[1]), T.domain(0, w.shape[1])
    for n in T.parallel(T.domain(0, x.shape[0])):
        z = T.vecmat(x[n, ks], w[ks, classes])
        m = T.max(z)
        out[n] = m + T.log(T.sum(T.exp(z - m)))


KERNELS = {
    "head_init": tessel.kernel(name="fv_head_init")(_head_init),
    "head_add": tessel.kernel(name="fv_head_add")(_head_add),
    "row_lse": tessel.kernel(name="fv_row_lse")(_row_lse),
    # the online fold (one pass) slices the same view
    "row_lse_relaxed": tessel.kernel(name="fv_row_lse_relaxed", numerics="relaxed_normalization")(_row_lse),
}


def reference(name, inputs):
    z = inputs["x"].astype(np.float64) @ inputs["w"].astype(np.float64)
    if "b" in inputs:
        z = z + inputs["b"]
    mx = z.max(axis=1) if z.shape[1] else np.full(z.shape[0], -np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        e = np.exp(z - mx[:, None])
        if name.startswith("head"):
            return {"probs": e / e.sum(axis=1, keepdims=True)}
        return {"out": mx + np.log(e.sum(axis=1))}


def draw(name, shape, seed):
    rng = np.random.default_rng(seed)
    M, K, C = shape["M"], shape["K"], shape["C"]
    inputs = {"x": rng.standard_normal((M, K)).astype(np.float16),
              "w": (rng.standard_normal((K, C)) * (2.0 / np.sqrt(max(K, 1)))).astype(np.float16)}
    if name.startswith("head"):
        inputs["b"] = rng.standard_normal(C).astype(np.float32)
    return inputs


def close(got, want, what):
    interp_cli.close(got, want, what, atol=2e-4)


SHAPES = [dict(M=1, K=1, C=1), dict(M=5, K=17, C=37), dict(M=19, K=40, C=131), dict(M=3, K=0, C=5),
          dict(M=0, K=7, C=3), dict(M=33, K=97, C=1)]
# (params, what): small blocks so that K > BLOCK_K takes the looped variant (TILE_K-wide K blocks),
# K <= BLOCK_K the fragment one; FOLD_SPLIT cuts the last fold across programs.
BINDINGS = [({"BLOCK_M": 16, "BLOCK_C": 16, "BLOCK_K": 16, "TILE_K": 16}, "looped"),
            ({"BLOCK_M": 16, "BLOCK_C": 32, "BLOCK_K": 16, "TILE_K": 32, "FOLD_SPLIT": 4}, "looped-split"),
            ({"BLOCK_M": 32, "BLOCK_C": 16, "BLOCK_K": 128, "TILE_K": 16}, "fragment")]


@pytest.mark.parametrize("name", list(KERNELS))
def test_interpreters_agree(tessel_bin, tmp_path, name):
    kernel = KERNELS[name]
    source, program = realize_folds(tessel_bin, tmp_path, kernel)
    text = program.read_text()
    assert "pgpu.contract" in text and '"TILE_K"' in text, text[:2000]
    for i, shape in enumerate(SHAPES):
        inputs = draw(name, shape, seed=i)
        kir = run_cli(tessel_bin, tmp_path, source, shape, inputs, ["--stage", "kir"], f"kir{i}")
        if shape["M"]:
            close(kir, reference(name, inputs), f"KIR interpreter at {shape}")
        for params, what in BINDINGS:
            got = run_cli(tessel_bin, tmp_path, program, shape, inputs,
                          ["--order", "shuffle", *[f"--param={k}={v}" for k, v in params.items()]],
                          f"pgpu{i}-{what}")
            close(got, kir, f"pgpu interpreter ({what}) at {shape}")


@pytest.mark.parametrize("name", list(KERNELS))
@pytest.mark.parametrize("params", [None, {"BLOCK_M": 16, "BLOCK_C": 16, "BLOCK_K": 16, "TILE_K": 16}],
                         ids=["defaults", "looped"])
def test_triton(name, params):
    import torch
    kernel = KERNELS[name]
    for i, shape in enumerate([dict(M=5, K=17, C=37), dict(M=19, K=300, C=70), dict(M=2, K=0, C=3)]):
        inputs = draw(name, shape, seed=10 + i)
        want = reference(name, inputs)
        key = next(iter(want))
        out = torch.full(want[key].shape, float("nan"), dtype=torch.float32)
        args = [torch.from_numpy(inputs[n]) for n in ("x", "w", "b") if n in inputs]
        kernel.launch(*args, out, params=params)
        close({key: out.double().numpy()}, want, f"Triton ({params}) at {shape}")


@pytest.mark.parametrize("name", ["head_init", "head_add"])
def test_construction_tile_products(tessel_bin, tmp_path, name):
    """After construction: no element-wise fallback; in the looped variant each logits tile is a
    pgpu.contract of the [BLOCK_M, TILE_K] row block and a [TILE_K, BLOCK_C] tile of W read in its
    own layout (no transpose left from the view), accumulated over a TILE_K loop."""
    kernel = tessel.kernel(name=f"fv_{name}_remarks", optimization_remarks=True)(
        _head_init if name == "head_init" else _head_add)
    source = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source),
                          "--tessel-pipeline=stop-after=construct"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    text, remarks = res.stdout, res.stderr
    assert "constructed element by element" not in remarks, remarks
    assert "became two region folds" in remarks, remarks
    assert "each contraction over it is a loop over blocks of it" in remarks, remarks
    assert "pgpu.range_reduce" not in text
    assert "pgpu.transpose" not in text, text
    assert "pgpu.contract" in text and "!pgpu.fragment<f16, [TILE_K, BLOCK_C]>" in text, text
