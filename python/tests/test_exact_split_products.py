"""An f32 operand against a widened bf16 operand in a product over a range (`T.vecmat(p, T.cast(v, T.f32))`
with p computed in f32, `T.vecmat(a[m, ks], T.cast(b[ks, cols], T.f32))`): under the default numerics the f32 tile is split
exactly into three bf16 parts and each is a tensor-core product with the bf16 tile (pgpu-form-tiles for
contraction nests, kir-to-pgpu for region folds; seed 000 §8: the products are exact, the sum's order the
implementation's), where before the product was an f32 FMA loop (99_sigmoid_attention ran 0.08x its peer).
The parts sum exactly to the f32 values, so the result keeps f32 accuracy: checked against NumPy (float64)
at a tolerance a bf16 rounding of the f32 operand (relative 2^-9) would fail, on the KIR interpreter and
through Triton under TRITON_INTERPRET=1 at odd shapes (1, primes, non-multiples of the tiles)."""
import os
import pathlib
import re
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench" / "corpus"))
from _harness import interpreter_bf16_dot  # noqa: E402
from conftest import split_k_branches  # noqa: E402

interpreter_bf16_dot()  # Triton 3.6's interpreter multiplies bf16 bit patterns in tl.dot (upstream)


@tessel.kernel
def sigmoid_weights(q: T.In[T.bf16, ("B", "S", "D")], k: T.In[T.bf16, ("B", "S", "D")],
                    v: T.In[T.bf16, ("B", "S", "D")], out: T.Out[T.f32, ("B", "S", "D")], bias: T.f32):
    B, S, D = q.shape
    keys, dims = T.domain(0, S), T.domain(0, D)
    for b, i in T.parallel(T.domain(0, B), T.domain(0, S)):
        p = T.sigmoid(T.matvec(k[b, keys, dims], q[b, i, dims]) * 0.125 + bias)
        out[b, i, dims] = T.vecmat(p, T.cast(v[b, keys, dims], T.f32))


@tessel.kernel
def softmax_weights(q: T.In[T.bf16, ("S", "D")], k: T.In[T.bf16, ("T", "D")], v: T.In[T.bf16, ("T", "D")],
                    out: T.Out[T.f32, ("S", "D")]):
    S, D = q.shape
    keys, dims = T.domain(0, k.shape[0]), T.domain(0, D)
    for i in T.parallel(T.domain(0, S)):
        s = T.matvec(k[keys, dims], q[i, dims]) * 0.25
        e = T.exp(s - T.max(s))
        out[i, dims] = T.vecmat(e, T.cast(v[keys, dims], T.f32)) / T.sum(e)


@tessel.kernel
def mixed_matmul(a: T.In[T.f32, ("M", "K")], b: T.In[T.bf16, ("K", "N")], c: T.Out[T.f32, ("M", "N")]):
    M, K = a.shape
    ks, cols = T.domain(0, K), T.domain(0, b.shape[1])
    for m in T.parallel(T.domain(0, M)):
        c[m, cols] = T.vecmat(a[m, ks], T.cast(b[ks, cols], T.f32))


@tessel.kernel
def mixed_matmul_f16(a: T.In[T.f32, ("M", "K")], b: T.In[T.f16, ("K", "N")], c: T.Out[T.f32, ("M", "N")]):
    M, K = a.shape
    ks, cols = T.domain(0, K), T.domain(0, b.shape[1])
    for m in T.parallel(T.domain(0, M)):
        c[m, cols] = T.vecmat(a[m, ks], T.cast(b[ks, cols], T.f32))


def _bf16(x):
    return torch.tensor(x, dtype=torch.float32).to(torch.bfloat16).float().numpy()


def _dots(src):
    return re.findall(r"tl\.dot\([^\n]*", src)


def test_split_reaches_bf16_tensor_core_products():
    src = sigmoid_weights.source("triton")
    dots = _dots(src)
    # q.k, then the three parts of p against v: no f32 product left; twice (pgpu-stage-inner-k-loops: the
    # branch where the head dimension fits one TILE_K block, and the nested K loop past it)
    assert len(dots) == 8, dots
    assert not any('input_precision="ieee"' in d for d in dots), dots
    assert src.count("tl.bfloat16)") >= 3  # the three parts' casts
    # the shared-memory model counts the value tile the three parts' products read once, not three times
    # (which pruned TMA off), per branch: where the head dimension fits one K block, q's tile once and k's
    # and v's STAGES deep (the key loop is innermost); past it q's and k's tiles STAGES deep (the inner K
    # loop), v's one buffer (loaded in the key loop, which holds another loop: Triton pipelines innermost
    # loops only)
    staged = re.search(r"_staged := max\((.*?)\) <= ", src).group(1)
    one, nested = staged.split(", ")
    assert one.count("p['STAGES']") == 2 and "2 * p['TILE_3'] * p['TILE_2'] * p['STAGES']" in one, one
    assert "2 * p['TILE_1'] * p['TILE_K'] + " in one, one
    assert nested.count("p['STAGES']") == 2, nested
    assert nested.count("2 * p['TILE_3'] * p['TILE_2']") == 1, nested
    fold = softmax_weights.source("triton")
    assert not any('input_precision="ieee"' in d for d in _dots(fold)), _dots(fold)
    gemm = mixed_matmul.source("triton")
    assert len(_dots(gemm)) == 3 and not any("ieee" in d for d in _dots(gemm)), _dots(gemm)
    # must not split: an f16 value operand (f16's exponent range holds no f32 parts): one f32 product
    # (in each branch of the split-K choice: the chunk's loop keeps the contraction's precision)
    for branch in filter(None, split_k_branches(mixed_matmul_f16.source("triton"))):
        f16 = _dots(branch)
        assert len(f16) == 1 and 'input_precision="ieee"' in f16[0], f16


@pytest.mark.parametrize("B,S,D", [(1, 1, 1), (2, 17, 8), (1, 67, 13), (1, 130, 64)])
def test_sigmoid_weights(B, S, D, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(B * S * D)
    q, k, v = (_bf16(rng.standard_normal((B, S, D))) for _ in range(3))
    bias = -float(np.log(max(S, 2)))
    s = np.einsum("bid,bkd->bik", q.astype(np.float64), k) * 0.125 + bias
    want = np.einsum("bik,bkd->bid", 1 / (1 + np.exp(-s)), v)
    tol = dict(rtol=1e-5, atol=1e-5 * max(1.0, np.abs(want).max()))
    got = sigmoid_weights.run_interp(shapes=dict(B=B, S=S, D=D), scalars=dict(bias=bias),
                                     inputs=dict(q=q, k=k, v=v))["out"]
    np.testing.assert_allclose(got, want, **tol)
    out = torch.full((B, S, D), float("nan"))
    args = [torch.tensor(x).to(torch.bfloat16) for x in (q, k, v)]
    sigmoid_weights(*args, out, bias=bias)
    np.testing.assert_allclose(out.numpy(), want, **tol)


@pytest.mark.parametrize("S,Tk,D", [(1, 1, 16), (5, 37, 16), (17, 70, 32)])
def test_softmax_weights_fold(S, Tk, D, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(S * Tk)
    q, k, v = (_bf16(rng.standard_normal(sh)) for sh in ((S, D), (Tk, D), (Tk, D)))
    s = np.einsum("sd,td->st", q.astype(np.float64), k) * 0.25
    e = np.exp(s - s.max(-1, keepdims=True))
    want = e @ v / e.sum(-1, keepdims=True)
    out = torch.full((S, D), float("nan"))
    softmax_weights(*[torch.tensor(x).to(torch.bfloat16) for x in (q, k, v)], out)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("M,K,N", [(1, 1, 1), (0, 5, 3), (13, 67, 29), (70, 130, 33)])
def test_mixed_matmul(M, K, N, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(M * K * N + 1)
    a = rng.standard_normal((M, K)).astype(np.float32)
    a[:, ::7] *= 1e-30  # small values: their parts are bf16 normals still (exact)
    b = _bf16(rng.standard_normal((K, N)))
    want = a.astype(np.float64) @ b
    tol = dict(rtol=1e-5, atol=1e-5)
    got = mixed_matmul.run_interp(shapes=dict(M=M, K=K, N=N), inputs=dict(a=a, b=b))["c"]
    np.testing.assert_allclose(got, want, **tol)
    c = torch.full((M, N), float("nan"))
    mixed_matmul(torch.tensor(a), torch.tensor(b).to(torch.bfloat16), c)
    np.testing.assert_allclose(c.numpy(), want, **tol)


def test_mixed_matmul_nonfinite(tmp_path, monkeypatch):
    """inf and NaN in the f32 operand: the remainder after an infinite part is 0, so inf * b stays inf
    (not inf - inf = NaN), and NaN stays NaN, as the f32 products give."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    a = np.ones((3, 5), np.float32)
    a[0, 1] = np.inf
    a[1, 2] = np.nan
    a[2, 3] = 3.4e38  # past bf16's largest finite: its hi part is inf, as the f32 product 3e38 * 2 is
    b = np.full((5, 2), 2.0, np.float32)
    c = torch.full((3, 2), 0.0)
    mixed_matmul(torch.tensor(a), torch.tensor(b).to(torch.bfloat16), c)
    with np.errstate(over="ignore", invalid="ignore"):
        want = (a @ b).astype(np.float32)
    np.testing.assert_array_equal(c.numpy(), want)
