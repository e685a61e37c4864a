"""A reduction (not a contraction) whose element body holds a contraction (pgpu-form-tiles' nests), against
the KIR interpreter.

A bias gradient of c = sigmoid(a·b + bias) (kir-vjp's d_bias, issue 45): d[n] = sum_m dy[m, n] s (1 - s),
the product recomputed per member m inside the column sum; a product's row maximum, row argmax (value
and index) and row logsumexp (two nests over the same product). Construction realizes the product per member of the enclosing reduction;
pgpu-form-tiles computes its [TILE_0, TILE_1] tile in one K loop per block of that member and reduces
the tile along it (sum, max, arg-max) into the carry. At no rows, one element, primes and extents that are not
multiples of any tile, at several bindings, the pgpu interpreter (shuffled program order) and the
generated Triton under TRITON_INTERPRET=1 compute what the KIR interpreter computes. f16 operands
(Triton's CPU interpreter's bf16 tl.dot is wrong upstream).
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import run_stage  # noqa: E402


@tessel.kernel
def activation_column_sum(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("K", "N")], bias: T.In[T.f32, ("N",)],
                          dy: T.In[T.f32, ("M", "N")], d: T.Out[T.f32, ("N",)]):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    s = T.sigmoid(T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.f32, init=bias[cols]))
    d[cols] = T.sum(dy[rows, cols] * s * (1.0 - s), axis=0)


@tessel.kernel
def product_row_max(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("K", "N")], out: T.Out[T.f32, ("M",)]):
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    out[rows] = T.max(T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.f32), axis=1)


@tessel.kernel
def product_row_argmax(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("K", "N")], out: T.Out[T.i32, ("M",)]):
    # An arg-reduction (value and index, the lowest index on ties) of a product's row.
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    _, i = T.argmax(T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.f32), axis=1)
    out[rows] = T.cast(i, T.i32)


@tessel.kernel
def product_row_logsumexp(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("K", "N")], out: T.Out[T.f32, ("M",)]):
    # Two nests over the same product: its row max, then the row's sum of exp(z - max).
    M, K = a.shape
    N = b.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    z = T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.f32)
    m = T.max(z, axis=1)
    out[rows] = m + T.log(T.sum(T.exp(z - m), axis=1))


KERNELS = {k.name: k for k in (activation_column_sum, product_row_max, product_row_argmax, product_row_logsumexp)}
OUT = {"activation_column_sum": "d", "product_row_max": "out", "product_row_argmax": "out",
       "product_row_logsumexp": "out"}
SHAPES = [dict(M=0, N=5, K=3), dict(M=1, N=1, K=1), dict(M=17, N=37, K=29), dict(M=41, N=23, K=53),
          dict(M=131, N=3, K=70)]
BINDINGS = [{}, {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16}, {"TILE_0": 32, "TILE_1": 64, "TILE_K": 32}]


def ids(v):
    return "-".join(f"{k}{x}" for k, x in v.items()) or "defaults"


def draw(name, shape, seed):
    rng = np.random.default_rng(seed)
    M, N, K = shape["M"], shape["N"], shape["K"]
    ins = {"a": rng.standard_normal((M, K)).astype(np.float16), "b": rng.standard_normal((K, N)).astype(np.float16)}
    if name == "activation_column_sum":
        ins["bias"] = rng.standard_normal(N).astype(np.float32)
        ins["dy"] = rng.standard_normal((M, N)).astype(np.float32)
    return ins


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_the_nest_is_tiled(name):
    """The product's [TILE_0, TILE_1] tile accumulates in a K loop and is reduced along the enclosing axis:
    nothing stays element by element."""
    text = KERNELS[name].pgpu()
    assert "pgpu.range_reduce" not in text and "pgpu.foreach" not in text, text
    assert "-> !pgpu.fragment<f32, [TILE_0, TILE_1]>" in text and "pgpu.contract" in text, text
    assert "axes [1] identity" in text, text


@pytest.mark.parametrize("params", BINDINGS, ids=ids)
@pytest.mark.parametrize("shape", SHAPES, ids=ids)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_pgpu_matches_kir(tessel_bin, tmp_path, name, shape, params):
    ins = draw(name, shape, seed=sum(shape.values()))
    kernel, out = KERNELS[name], OUT[name]
    ref = np.load(run_stage(tessel_bin, kernel, "kir", shape, ins, tmp_path) / f"{out}.npy")
    got = np.load(run_stage(tessel_bin, kernel, "pgpu", shape, ins, tmp_path, params) / f"{out}.npy")
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", SHAPES, ids=ids)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_triton_matches_kir(tessel_bin, tmp_path, monkeypatch, name, shape):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ins = draw(name, shape, seed=7 + sum(shape.values()))
    kernel, out = KERNELS[name], OUT[name]
    ref = np.load(run_stage(tessel_bin, kernel, "kir", shape, ins, tmp_path) / f"{out}.npy")
    params = {"TILE_0": 16, "TILE_1": 32, "TILE_K": 16}
    result = (torch.full(ref.shape, -1, dtype=torch.int32) if ref.dtype == np.int32
              else torch.full(ref.shape, float("nan"), dtype=torch.float32))
    args = [torch.from_numpy(ins[p.name]) if p.spec.mode == "in" else result
            for p in kernel.params() if p.kind == "view"]
    kernel._launcher(None, params)(*args)
    np.testing.assert_allclose(result.numpy(), ref, rtol=1e-4, atol=1e-4)
