"""Every derived backward that bench/vjp_check.py times on the GPU, checked here on the CPU at odd shapes
against torch autograd in float64 of the same inputs (issue 45): the suite's examples (softmax, layernorm,
rmsnorm, the f16 GEMM with bias and sigmoid, the bf16 matmul, the fused pointwise add), every float input
differentiated, with the bench's tolerances (f16/bf16 operands within 1e-2 of the largest cotangent, f32
within 1e-3). The derived kernels run through Triton under TRITON_INTERPRET=1 (vjp_check.check, the GPU
run's own code); the bf16 matmul on the KIR interpreter (Triton's CPU interpreter computes bf16 products
wrong upstream, the forward's too). Shapes: one element, primes, non-multiples of every tile, no rows
(M = 0) and an empty contraction (K = 0: the GEMM's cotangents of a and b are empty, d_bias the column
sum of dc * sigmoid'(bias))."""
import importlib.util
import os
import pathlib

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")
pytest.importorskip("triton")

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("vjp_check", ROOT / "bench" / "vjp_check.py")
vjp_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vjp_check)

NAMES = sorted(vjp_check.forwards(torch))
SHAPES = [dict(M=1, N=1, K=1), dict(M=7, N=13, K=5), dict(M=37, N=131, K=67), dict(M=0, N=5, K=3),
          dict(M=5, N=3, K=0), dict(M=3, N=600, K=17)]


def ids(shape):
    return "x".join(str(v) for v in shape.values())


def low_precision(name):
    return any(d == "bf16" for _, d in vjp_check.forwards(torch)[name][1].values())


def test_every_bench_kernel_is_covered():
    """The bench's list and this file's agree: a kernel added to vjp_check.py is checked here too."""
    assert NAMES == ["gemm", "layernorm", "matmul", "rmsnorm", "softmax", "vector_add"]


@pytest.mark.parametrize("shape", SHAPES, ids=ids)
@pytest.mark.parametrize("name", [n for n in NAMES if not low_precision(n)])
def test_derived_backward_through_triton_matches_torch_f64(name, shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    if name == "vector_add":
        shape = dict(N=shape["M"] * shape["N"] + shape["K"])  # one axis: 2, 96, 4914, 3, 15, 1817
    gen = torch.Generator().manual_seed(sum(shape.values()))
    vjp_check.check(torch, name, "cpu", [shape], gen)  # raises with the cotangent and its error


@pytest.mark.parametrize("shape", SHAPES, ids=ids)
def test_bf16_matmul_backward_on_the_interpreter_matches_torch_f64(shape):
    """dA = dC B^T and dB = A^T dC in bf16 products with an f32 accumulator, rounded once to bf16."""
    derived = vjp_check.load("matmul").vjp(("a", "b"))
    got = derived.run_interp(shapes=shape, seed=sum(shape.values()))
    t = {k: torch.tensor(got[f"{k}.in"].astype(np.float64), requires_grad=True) for k in ("a", "b")}
    (t["a"] @ t["b"]).backward(torch.tensor(got["d_c.in"].astype(np.float64)))
    for k in ("a", "b"):
        want = t[k].grad.numpy()
        assert got[f"d_{k}"].shape == want.shape
        if want.size:
            err = np.abs(got[f"d_{k}"].astype(np.float64) - want).max()
            assert err <= 1e-2 * (np.abs(want).max() + 1), f"d_{k} at {shape}: max error {err:.3g}"


@pytest.mark.parametrize("name", [n for n in NAMES if not low_precision(n)])
def test_autograd_function_matches_torch_f64(name, tmp_path, monkeypatch):
    """The same kernels through `tessel.autograd` (forward and derived backward as torch operators), at the
    bench's odd check shape, against torch autograd in float64 (vjp_check.check_autograd)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    shape = dict(N=4919) if name == "vector_add" else dict(M=37, N=131, K=67)
    f = vjp_check.autograd_function(torch, name)
    vjp_check.check_autograd(torch, name, f, "cpu", shape, torch.Generator().manual_seed(5))
