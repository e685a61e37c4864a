"""kir-stage-chained-products: a chain of contractions written as one kernel-level statement per batch member
(one Muon Newton-Schulz step, corpus 340: A = X X^T, Bm = b A + c A A, Y = a X + Bm X) is rewritten into the
hand-phased form of test_phased_products.py (a kernel-level buffer per staged product, one parallel over the
batch per phase), so construction tiles each product instead of replaying rows of A and A A per element.

Checked against the KIR interpreter through the pgpu interpreter (shuffled program order, smallest tiles)
and through the generated Triton under TRITON_INTERPRET=1 at odd shapes (M, N primes, 1, 0; B 0, 1, 3),
and the pass's remarks: it fires on the three-product chain and on A A alone (A read as a column operand),
not on a single batched GEMM with an epilogue.
"""
import os
import pathlib
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench" / "corpus"))
from _harness import interpreter_bf16_dot  # noqa: E402

interpreter_bf16_dot()  # Triton 3.6's interpreter multiplies bf16 bit patterns in tl.dot (upstream)

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import kir_and_pgpu, opt_remarks  # noqa: E402

NS_A, NS_B, NS_C = 3.4445, -4.7750, 2.0315


@tessel.kernel(name="chained_newton_schulz")
def newton_schulz(X: T.In[T.bf16, ("B", "M", "N")], Y: T.Out[T.bf16, ("B", "M", "N")]):
    B, M, N = X.shape
    bs, ms, ns = T.domain(0, B), T.domain(0, M), T.domain(0, N)
    x = X[bs, ms, ns]
    A = T.matmul(x, x, transpose_rhs=True)
    Ab = T.cast(A, T.bf16)
    Bm = NS_B * A + NS_C * T.matmul(Ab, Ab)
    Y[bs, ms, ns] = T.cast(NS_A * T.cast(x, T.f32) + T.matmul(T.cast(Bm, T.bf16), x), T.bf16)


@tessel.kernel(name="chained_gram_square")
def gram_square(X: T.In[T.bf16, ("B", "M", "N")], Y: T.Out[T.f32, ("B", "M", "M")]):
    B, M, N = X.shape
    bs, ms, ns = T.domain(0, B), T.domain(0, M), T.domain(0, N)
    x = X[bs, ms, ns]
    Ab = T.cast(T.matmul(x, x, transpose_rhs=True), T.bf16)
    Y[bs, ms, ms] = T.matmul(Ab, Ab) * 0.5


@tessel.kernel(name="chained_gemm_epilogue")
def gemm_epilogue(X: T.In[T.bf16, ("B", "M", "K")], W: T.In[T.bf16, ("B", "K", "N")], Y: T.Out[T.f32, ("B", "M", "N")]):
    B, M, K = X.shape
    N = W.shape[2]
    bs, ms, ks, ns = T.domain(0, B), T.domain(0, M), T.domain(0, K), T.domain(0, N)
    Y[bs, ms, ns] = T.tanh(T.matmul(X[bs, ms, ks], W[bs, ks, ns]))


@pytest.mark.parametrize("kernel,staged", [(newton_schulz, 2), (gram_square, 1), (gemm_epilogue, 0)],
                         ids=lambda k: getattr(k, "name", str(k)))
def test_remarks(tessel_bin, tmp_path, kernel, staged):
    err, _ = opt_remarks(tessel_bin, tmp_path, kernel, "-kir-stage-chained-products")
    assert err.count("kir-stage-chained-products: a later contraction reads this product") == staged, err
    assert "not staged" not in err, err


@pytest.mark.parametrize("kernel", [newton_schulz, gram_square], ids=lambda k: k.name)
@pytest.mark.parametrize("shapes", [dict(B=1, M=1, N=1), dict(B=3, M=5, N=13), dict(B=1, M=37, N=41),
                                    dict(B=0, M=3, N=4), dict(B=2, M=0, N=5)], ids=lambda s: "x".join(map(str, s.values())))
def test_matches_kir_through_pgpu(tessel_bin, tmp_path, kernel, shapes):
    kir, pgpu, text = kir_and_pgpu(tessel_bin, tmp_path, kernel, shapes, 11, "smallest")
    got = np.load(pgpu / "Y.npy").astype(np.float64)
    want = np.load(kir / "Y.npy").astype(np.float64)
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=2e-2, atol=2e-2 * scale)


@pytest.mark.parametrize("kernel", [newton_schulz, gram_square], ids=lambda k: k.name)
@pytest.mark.parametrize("shape", [(1, 1, 1), (3, 5, 13), (1, 37, 41), (0, 3, 4), (2, 0, 5)],
                         ids=lambda s: "x".join(map(str, s)))
def test_matches_kir_through_triton(tmp_path, monkeypatch, kernel, shape):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    B, M, N = shape
    rng = np.random.default_rng(M * 131 + N)
    x = rng.standard_normal((B, M, N))
    x /= np.sqrt((x * x).sum(axis=(1, 2), keepdims=True)) + 1e-7  # Muon's normalization: entries O(1)
    arg = torch.from_numpy(x).to(torch.bfloat16)
    want = np.array(kernel.run_interp({}, inputs={"X": arg.float().numpy()})["Y"]).astype(np.float64)
    launch = kernel._launcher({}, {"TILE_1": 16, "TILE_2": 16, "TILE_K": 16})
    dtype = torch.bfloat16 if kernel is newton_schulz else torch.float32
    oshape = (B, M, N) if kernel is newton_schulz else (B, M, M)
    for _ in range(2):  # the second call sees the ticket the first returned to 0
        out = torch.full(oshape, float("nan"), dtype=dtype)
        launch(arg, out)
        np.testing.assert_allclose(out.double().numpy(), want, rtol=2e-2, atol=2e-2)
