"""Row sums of a matrix product's row without a maximum (kir-online-folds, RowSumChains.cpp; issue 41):
a LayerNorm of `x @ W^T + b + residual` over the last axis (bench/corpus/189_linear_residual_layernorm:
the mean, then the sum of squares about it, then the normalized store), an RMS-normalized product (one
sum), and a chain of three sums (the third reads both earlier results). Each sum becomes a region fold
over the row's tiles in order (every pass recomputes the product's tile), the store recomputes the row
after them.

Each kernel runs on the KIR interpreter against NumPy, on the pgpu interpreter after the shared
pipeline against the KIR interpreter (shuffled order; default blocks, and the smallest blocks with
FOLD_SPLIT at its largest), and through Triton under TRITON_INTERPRET=1, at odd shapes (M = 0, 1;
K = 0, 1, primes, non-multiples of every block; N = 1, primes). f16 operands: Triton's CPU interpreter
contracts bf16 wrongly (triton-lang/triton#11584).
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from interp_cli import close, run_cli, tessel_opt  # noqa: E402
from conftest import program_bindings  # noqa: E402

F16 = T.f16


def _layernorm(x: T.In[F16, ("M", "K")], w: T.In[F16, ("N", "K")], b: T.In[T.f32, ("N",)],
               r: T.In[T.f32, ("M", "N")], g: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M", "N")], eps: T.f32):
    rows, cols, ks = T.domain(0, x.shape[0]), T.domain(0, w.shape[0]), T.domain(0, x.shape[1])
    nf = T.cast(w.shape[0], T.f32)
    h = T.matmul(x[rows, ks], w[cols, ks], transpose_rhs=True, acc_dtype=T.f32, init=b[cols]) + r[rows, cols]
    mean = T.sum(h, axis=1) / nf
    d = h - mean
    rstd = T.rsqrt(T.sum(d * d, axis=1) / nf + eps)
    y[rows, cols] = d * rstd * g[cols]


def _layernorm_kn(x: T.In[F16, ("M", "K")], w: T.In[F16, ("K", "N")], b: T.In[T.f32, ("N",)],
                  r: T.In[T.f32, ("M", "N")], g: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M", "N")], eps: T.f32):
    # The weight [K, N] (the row's axis second: the folds slice it through a kir.transpose).
    rows, cols, ks = T.domain(0, x.shape[0]), T.domain(0, w.shape[1]), T.domain(0, x.shape[1])
    nf = T.cast(w.shape[1], T.f32)
    h = T.matmul(x[rows, ks], w[ks, cols], acc_dtype=T.f32) + b[cols]
    mean = T.sum(h, axis=1) / nf
    d = h - mean
    y[rows, cols] = d * T.rsqrt(T.sum(d * d, axis=1) / nf + eps) + r[rows, cols]


def _rms(x: T.In[F16, ("M", "K")], w: T.In[F16, ("N", "K")], b: T.In[T.f32, ("N",)],
         r: T.In[T.f32, ("M", "N")], g: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M", "N")], eps: T.f32):
    rows, cols, ks = T.domain(0, x.shape[0]), T.domain(0, w.shape[0]), T.domain(0, x.shape[1])
    h = T.matmul(x[rows, ks], w[cols, ks], transpose_rhs=True, acc_dtype=T.f32)
    y[rows, cols] = h * T.rsqrt(T.sum(h * h, axis=1) / T.cast(w.shape[0], T.f32) + eps) * g[cols]


def _three(x: T.In[F16, ("M", "K")], w: T.In[F16, ("N", "K")], b: T.In[T.f32, ("N",)],
           r: T.In[T.f32, ("M", "N")], g: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M", "N")], eps: T.f32):
    rows, cols, ks = T.domain(0, x.shape[0]), T.domain(0, w.shape[0]), T.domain(0, x.shape[1])
    h = T.matmul(x[rows, ks], w[cols, ks], transpose_rhs=True, acc_dtype=T.f32, init=b[cols])
    s1 = T.sum(h, axis=1)
    s2 = T.sum(T.abs(h - s1 * eps), axis=1)
    s3 = T.sum(h * g[cols] + s2 - s1, axis=1)
    y[rows, cols] = h * s3 + s2 + r[rows, cols]


KERNELS = {
    "layernorm": tessel.kernel(name="prs_layernorm")(_layernorm),
    "layernorm_kn": tessel.kernel(name="prs_layernorm_kn")(_layernorm_kn),
    "rms": tessel.kernel(name="prs_rms")(_rms),
    "three": tessel.kernel(name="prs_three")(_three),
}
SUMS = {"layernorm": 2, "layernorm_kn": 2, "rms": 1, "three": 3}
EPS = 1e-3


def reference(name, inputs):
    x, w, b, r, g = (inputs[n].astype(np.float64) for n in ("x", "w", "b", "r", "g"))
    N = w.shape[0]
    if name == "layernorm":
        h = x @ w.T + b + r
        d = h - h.sum(axis=1, keepdims=True) / N
        return {"y": d / np.sqrt((d * d).sum(axis=1, keepdims=True) / N + EPS) * g}
    if name == "layernorm_kn":
        h = x @ w.T + b
        d = h - h.sum(axis=1, keepdims=True) / N
        return {"y": d / np.sqrt((d * d).sum(axis=1, keepdims=True) / N + EPS) + r}
    if name == "rms":
        h = x @ w.T
        return {"y": h / np.sqrt((h * h).sum(axis=1, keepdims=True) / N + EPS) * g}
    h = x @ w.T + b
    s1 = h.sum(axis=1, keepdims=True)
    s2 = np.abs(h - s1 * np.float32(EPS)).sum(axis=1, keepdims=True)
    s3 = (h * g + s2 - s1).sum(axis=1, keepdims=True)
    return {"y": h * s3 + s2 + r}


def draw(shape, seed):
    rng = np.random.default_rng(seed)
    M, K, N = shape["M"], shape["K"], shape["N"]
    return {"x": rng.standard_normal((M, K)).astype(np.float16),
            "w": (rng.standard_normal((N, K)) / np.sqrt(max(K, 1))).astype(np.float16),
            "b": (0.5 * rng.standard_normal(N)).astype(np.float32),
            "r": rng.standard_normal((M, N)).astype(np.float32),
            "g": (1.0 + 0.1 * rng.standard_normal(N)).astype(np.float32)}


def given(name, inputs):
    """The kernel's inputs: layernorm_kn reads the weight as [K, N]."""
    if name != "layernorm_kn":
        return inputs
    return {**inputs, "w": np.ascontiguousarray(inputs["w"].T)}


SHAPES = [dict(M=1, K=1, N=1), dict(M=3, K=37, N=13), dict(M=2, K=67, N=17), dict(M=5, K=0, N=7),
          dict(M=0, K=5, N=3), dict(M=7, K=31, N=1), dict(M=4, K=97, N=131)]


@pytest.mark.parametrize("name", list(KERNELS))
def test_folds_and_interpreters_agree(tessel_bin, tmp_path, name):
    kernel = KERNELS[name]
    source = kernel._write(tmp_path, None)
    folded = tessel_opt(tessel_bin, source, "-kir-row-parallels", "-kir-online-folds")
    assert folded.count("kir.region_fold") == SUMS[name], folded
    program = tmp_path / f"{kernel.name}-pgpu.mlir"
    tessel_opt(tessel_bin, source, "--tessel-pipeline=stop-after=realize-folds", "-o", str(program))
    for i, shape in enumerate(SHAPES):
        inputs = draw(shape, seed=i)
        scalars = ["--scalar", f"eps={EPS}"]
        kir = run_cli(tessel_bin, tmp_path, source, shape, given(name, inputs), ["--stage", "kir", *scalars], f"kir{i}")
        close(kir, reference(name, inputs), f"KIR interpreter at {shape}")
        for params, what in program_bindings(program.read_text()):
            got = run_cli(tessel_bin, tmp_path, program, shape, given(name, inputs),
                          ["--order", "shuffle", *scalars, *[f"--param={k}={v}" for k, v in params.items()]],
                          f"pgpu{i}-{what}")
            close(got, kir, f"pgpu interpreter ({what}) at {shape}")


@pytest.mark.parametrize("name", list(KERNELS))
def test_triton(name):
    import torch
    kernel = KERNELS[name]
    for i, shape in enumerate([dict(M=3, K=37, N=13), dict(M=5, K=130, N=67), dict(M=1, K=1, N=1)]):
        inputs = draw(shape, seed=10 + i)
        want = reference(name, inputs)
        out = torch.full((shape["M"], shape["N"]), float("nan"), dtype=torch.float32)
        args = [torch.from_numpy(given(name, inputs)[n]) for n in ("x", "w", "b", "r", "g")]
        kernel.launch(*args, out, eps=EPS)
        close({"y": out.double().numpy()}, want, f"Triton at {shape}")
