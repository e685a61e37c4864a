"""Values with several consumers are computed once (issue 41 item 1, seed 002 §3.4): a contraction read
several times by its epilogue, or by several stores over the same coordinates, holds one K loop and tiles
as one GEMM whose epilogue computes every output. Checked against NumPy on the KIR interpreter and through
Triton under TRITON_INTERPRET=1 at odd shapes."""
import math
import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import numpy as np
import pytest

import tessel
import tessel.language as T
from conftest import split_k_branches


@tessel.kernel(optimization_remarks=True)
def gemm_gelu(a: T.In[T.f32, ("M", "K")], b: T.In[T.f32, ("K", "N")], bias: T.In[T.f32, ("N",)],
              c: T.Out[T.f32, ("M", "N")]):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    acc = T.matmul(a[rows, ks], b[ks, cols]) + bias[cols]
    c[rows, cols] = T.gelu(acc, approximate="tanh")


@tessel.kernel(optimization_remarks=True)
def two_outputs(a: T.In[T.f32, ("M", "K")], b: T.In[T.f32, ("K", "N")], c: T.Out[T.f32, ("M", "N")],
                d: T.Out[T.f32, ("M", "N")]):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    acc = T.matmul(a[rows, ks], b[ks, cols])
    c[rows, cols] = acc
    d[rows, cols] = T.relu(acc) * acc


@tessel.kernel(optimization_remarks=True)
def transposed_output(a: T.In[T.f32, ("M", "K")], b: T.In[T.f32, ("K", "N")], c: T.Out[T.f32, ("M", "N")],
                      d: T.Out[T.f32, ("N", "M")]):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    acc = T.matmul(a[rows, ks], b[ks, cols])
    c[rows, cols] = acc
    d[cols, rows] = T.transpose(acc)


def _gelu(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


SHAPES = [dict(M=1, N=1, K=1), dict(M=5, N=17, K=3), dict(M=67, N=33, K=131)]


def _inputs(shape, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((shape["M"], shape["K"])).astype(np.float32)
    b = (rng.standard_normal((shape["K"], shape["N"])) / math.sqrt(shape["K"])).astype(np.float32)
    return a, b


def test_epilogue_reads_the_accumulator_once():
    pgpu = gemm_gelu.pgpu()
    assert pgpu.count("pgpu.contract ") == 1, pgpu
    # one product in each branch of the split-K choice (the last arrival's epilogue reads the sum once)
    assert [b.count("tl.dot(") for b in split_k_branches(gemm_gelu.source())] == [1, 1]


def test_several_outputs_share_one_tile():
    assert two_outputs.pgpu().count("pgpu.contract ") == 1
    assert [b.count("tl.dot(") for b in split_k_branches(two_outputs.source())] == [1, 1]


def test_a_store_at_other_coordinates_is_not_joined(tmp_path):
    # d's elements sit at other coordinates than c's: each store is its own workset (the contraction
    # is replayed in the second), and nothing says they were joined.
    from tessel import _cli
    path = tmp_path / "k.mlir"
    path.write_text(transposed_output.kir())
    res = _cli.run_tessel(["compile", path, "--emit=pgpu"])
    assert res.returncode == 0, res.stderr
    assert "joins the workset" not in res.stderr
    assert "kept for" not in res.stderr


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s.values())))
def test_values(shape):
    import torch
    a, b = _inputs(shape, 1)
    bias = np.random.default_rng(2).standard_normal(shape["N"]).astype(np.float32)
    want = _gelu(a.astype(np.float64) @ b + bias)
    out = gemm_gelu.run_interp(shapes=shape, inputs=dict(a=a, b=b, bias=bias))
    np.testing.assert_allclose(out["c"], want, rtol=1e-4, atol=1e-4)
    c = torch.full((shape["M"], shape["N"]), float("nan"))
    gemm_gelu(torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(bias), c)
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-4, atol=1e-4)

    acc = a.astype(np.float64) @ b
    out = two_outputs.run_interp(shapes=shape, inputs=dict(a=a, b=b))
    np.testing.assert_allclose(out["c"], acc, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out["d"], np.maximum(acc, 0) * acc, rtol=1e-4, atol=1e-4)
    c, d = (torch.full((shape["M"], shape["N"]), float("nan")) for _ in range(2))
    two_outputs(torch.from_numpy(a), torch.from_numpy(b), c, d)
    np.testing.assert_allclose(c.numpy(), acc, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(d.numpy(), np.maximum(acc, 0) * acc, rtol=1e-4, atol=1e-4)

    out = transposed_output.run_interp(shapes=shape, inputs=dict(a=a, b=b))
    np.testing.assert_allclose(out["c"], acc, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out["d"], acc.T, rtol=1e-4, atol=1e-4)


# The transposed store is not tiled: one program per element of c and of d (2 x M x N programs, each a
# dot product over K), so at 67 x 33 x 131 its launch under TRITON_INTERPRET=1 takes minutes.
@pytest.mark.parametrize("shape", [*SHAPES[:2], pytest.param(SHAPES[2], marks=pytest.mark.deep(
    reason="4,422 programs under TRITON_INTERPRET=1; test_values runs this shape on the interpreters, "
           "the smaller shapes run the same Triton program"))], ids=lambda s: "x".join(map(str, s.values())))
def test_transposed_values(shape):
    import torch
    a, b = _inputs(shape, 1)
    acc = a.astype(np.float64) @ b
    c, d = torch.full((shape["M"], shape["N"]), float("nan")), torch.full((shape["N"], shape["M"]), float("nan"))
    transposed_output(torch.from_numpy(a), torch.from_numpy(b), c, d)
    np.testing.assert_allclose(c.numpy(), acc, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(d.numpy(), acc.T, rtol=1e-4, atol=1e-4)


@tessel.kernel
def scale_in_place(p: T.InOut[T.f32, ("N",)], q: T.InOut[T.f32, ("N",)], g: T.In[T.f32, ("N",)]):
    old = p[:]
    q[:] = g[:] * 2.0
    p[:] = old + q[:] * 0.5 + g[:]      # q[:] reads what the store above wrote


@tessel.kernel
def normalize_in_place(p: T.InOut[T.f32, ("N",)]):
    x = p[:]
    p[:] = x / T.sum(x)


@pytest.mark.parametrize("n", [1, 7, 1031])
def test_in_place_update(n):
    # Each element is read where it is written and used only elementwise: one workset of two stores,
    # the old p read before any store, q's second read the value just stored.
    import torch
    rng = np.random.default_rng(n)
    p, q, g = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    want_q = 2.0 * g
    want_p = p + 0.5 * want_q + g
    out = scale_in_place.run_interp(shapes={"N": n}, inputs=dict(p=p, q=q, g=g))
    np.testing.assert_allclose(out["q"], want_q, rtol=1e-6)
    np.testing.assert_allclose(out["p"], want_p, rtol=1e-6)
    tp, tq = torch.from_numpy(p.copy()), torch.from_numpy(q.copy())
    scale_in_place(tp, tq, torch.from_numpy(g))
    np.testing.assert_allclose(tq.numpy(), want_q, rtol=1e-6)
    np.testing.assert_allclose(tp.numpy(), want_p, rtol=1e-6)


@pytest.mark.parametrize("n", [1, 7, 1031])
def test_in_place_after_a_reduction(n):
    # p's sum reads every element: no instance may write p before all have read it, so the update runs
    # whole in the last program instance, its sum computed before its first store (test_in_place_norm).
    import torch
    p = np.random.default_rng(n).uniform(0.5, 1.5, n).astype(np.float32)
    want = p.astype(np.float64) / p.astype(np.float64).sum()
    tp = torch.from_numpy(p.copy())
    normalize_in_place(tp)
    np.testing.assert_allclose(tp.numpy(), want, rtol=1e-5)
