"""A row normalized by its own summary whose values come from a contraction with an initial value
(kir-row-parallels, RowParallels.cpp): the classifier head probs = softmax(X @ W + b) with the bias
as the matmul's init= (bench/corpus/138_classifier_head) and with the bias added after the product
(138_classifier_head_b), and a per-row dot product with an initial value scaling a normalized row
(every result axis of the contraction a member: the member's dot product plus its initial value).
With init= the store used to stay at kernel level (one program per element, each recomputing its
row's logits); now both spellings become the same parallel over the rows.

Each kernel runs on the KIR interpreter against NumPy, on the pgpu interpreter after the shared
pipeline against the KIR interpreter (shuffled order, small and default blocks), and through Triton
under TRITON_INTERPRET=1, at odd shapes (M = 0, 1; K = 0, 1, primes, non-multiples of every block;
C = 1, primes). f16 operands: Triton's CPU interpreter contracts bf16 wrongly (triton-lang/triton#11584).
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import program_bindings  # noqa: E402
from interp_cli import close, run_cli, tessel_opt  # noqa: E402

F16 = T.f16


def _head_init(x: T.In[F16, ("M", "K")], w: T.In[F16, ("K", "C")], b: T.In[T.f32, ("C",)],
               probs: T.Out[T.f32, ("M", "C")]):
    rows, ks, classes = T.domain(0, x.shape[0]), T.domain(0, x.shape[1]), T.domain(0, w.shape[1])
    logits = T.matmul(x[rows, ks], w[ks, classes], acc_dtype=T.f32, init=b[classes])
    e = T.exp(logits - T.max(logits, axis=1))
    probs[rows, classes] = e / T.sum(e, axis=1)


def _head_after(x: T.In[F16, ("M", "K")], w: T.In[F16, ("K", "C")], b: T.In[T.f32, ("C",)],
                probs: T.Out[T.f32, ("M", "C")]):
    rows, ks, classes = T.domain(0, x.shape[0]), T.domain(0, x.shape[1]), T.domain(0, w.shape[1])
    logits = T.matmul(x[rows, ks], w[ks, classes], acc_dtype=T.f32) + b[classes]
    e = T.exp(logits - T.max(logits, axis=1))
    probs[rows, classes] = e / T.sum(e, axis=1)


def _scaled_rows(x: T.In[F16, ("M", "K")], w: T.In[F16, ("K",)], b: T.In[T.f32, ("M",)],
                 e: T.In[T.f32, ("M", "C")], probs: T.Out[T.f32, ("M", "C")]):
    rows, ks, cols = T.domain(0, x.shape[0]), T.domain(0, x.shape[1]), T.domain(0, e.shape[1])
    d = T.matvec(x[rows, ks], w[ks], acc_dtype=T.f32, init=b[rows])
    probs[rows, cols] = e[rows, cols] / T.sum(e[rows, cols], axis=1) * d


KERNELS = {
    "head_init": tessel.kernel(name="ir_head_init")(_head_init),
    "head_after": tessel.kernel(name="ir_head_after")(_head_after),
    "scaled_rows": tessel.kernel(name="ir_scaled_rows")(_scaled_rows),
}


def reference(name, inputs):
    x, w, b = (inputs[n].astype(np.float64) for n in ("x", "w", "b"))
    if name == "scaled_rows":
        ev = inputs["e"].astype(np.float64)
        return {"probs": ev / ev.sum(axis=1, keepdims=True) * (x @ w + b)[:, None]}
    z = x @ w + b
    p = np.exp(z - z.max(axis=1, keepdims=True))
    return {"probs": p / p.sum(axis=1, keepdims=True)}


def draw(name, shape, seed):
    rng = np.random.default_rng(seed)
    M, K, C = shape["M"], shape["K"], shape["C"]
    if name == "scaled_rows":
        return {"x": rng.standard_normal((M, K)).astype(np.float16),
                "w": (rng.standard_normal(K) / np.sqrt(max(K, 1))).astype(np.float16),
                "b": rng.standard_normal(M).astype(np.float32),
                "e": rng.uniform(0.5, 1.5, (M, C)).astype(np.float32)}
    return {"x": rng.standard_normal((M, K)).astype(np.float16),
            "w": (rng.standard_normal((K, C)) * (2.0 / np.sqrt(max(K, 1)))).astype(np.float16),
            "b": rng.standard_normal(C).astype(np.float32)}


SHAPES = [dict(M=1, K=1, C=1), dict(M=3, K=37, C=13), dict(M=2, K=67, C=17), dict(M=5, K=0, C=7),
          dict(M=0, K=5, C=3), dict(M=7, K=31, C=1), dict(M=4, K=97, C=131)]


@pytest.mark.parametrize("name", list(KERNELS))
def test_row_parallel_and_interpreters_agree(tessel_bin, tmp_path, name):
    kernel = KERNELS[name]
    source = kernel._write(tmp_path, None)
    # The store became a parallel over the rows (with init= it used to stay at kernel level).
    rows = tessel_opt(tessel_bin, source, "-kir-row-parallels")
    assert "kir.parallel" in rows, rows
    program = tmp_path / f"{kernel.name}-pgpu.mlir"
    tessel_opt(tessel_bin, source, "--tessel-pipeline=stop-after=realize-folds", "-o", str(program))
    for i, shape in enumerate(SHAPES):
        inputs = draw(name, shape, seed=i)
        kir = run_cli(tessel_bin, tmp_path, source, shape, inputs, ["--stage", "kir"], f"kir{i}")
        close(kir, reference(name, inputs), f"KIR interpreter at {shape}")
        for params, what in program_bindings(program.read_text()):
            got = run_cli(tessel_bin, tmp_path, program, shape, inputs,
                          ["--order", "shuffle", *[f"--param={k}={v}" for k, v in params.items()]],
                          f"pgpu{i}-{what}")
            close(got, kir, f"pgpu interpreter ({what}) at {shape}")


@pytest.mark.parametrize("name", list(KERNELS))
def test_triton(name):
    import torch
    kernel = KERNELS[name]
    for i, shape in enumerate([dict(M=3, K=37, C=13), dict(M=5, K=130, C=67), dict(M=1, K=1, C=1)]):
        inputs = draw(name, shape, seed=10 + i)
        want = reference(name, inputs)
        out = torch.full((shape["M"], shape["C"]), float("nan"), dtype=torch.float32)
        args = [torch.from_numpy(inputs[n]) for n in ("x", "w", "b", "e") if n in inputs]
        kernel.launch(*args, out)
        close({"probs": out.double().numpy()}, want, f"Triton at {shape}")
