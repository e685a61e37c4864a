"""Chained products phased through kernel-level buffers (issue 41): a workset that computes a product from a
buffer an earlier workset wrote is a segment after a wait (construction), each segment's workset nest becomes
program axes (pgpu-flatten-worksets) and each segment is a tiled contraction (pgpu-form-tiles), instead of the
later products running whole in the last program instance.

The hand-phased form of one Muon Newton-Schulz step (corpus 340: A = X X^T, Bm = b A + c A A, X' = a X + Bm X,
each phase a T.parallel over the batch writing a T.buffer) and a two-phase chain are checked against the KIR
interpreter through the generated Triton under TRITON_INTERPRET=1 at odd shapes (M, N primes, 1, 0; B 0, 1, 3;
16-wide tiles: M = 37 is three row tiles with a partial one), called twice (the ticket returns to 0).
"""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench" / "corpus"))
from _harness import interpreter_bf16_dot  # noqa: E402

interpreter_bf16_dot()  # Triton 3.6's interpreter multiplies bf16 bit patterns in tl.dot (upstream)

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

NS_A, NS_B, NS_C = 3.4445, -4.7750, 2.0315


@tessel.kernel(name="phased_gram_chain")
def gram_chain(X: T.In[T.bf16, ("B", "M", "N")], Y: T.Out[T.bf16, ("B", "M", "N")]):
    B, M, N = X.shape
    bs, ms, ns, ks = T.domain(0, B), T.domain(0, M), T.domain(0, N), T.domain(0, M)
    W = T.buffer(over=(bs, ms, ks), dtype=T.f32, init=None)
    for b in T.parallel(bs):
        W[b, ms, ks] = T.matmul(X[b, ms, ns], X[b, ks, ns], transpose_rhs=True)
    for b in T.parallel(bs):
        Y[b, ms, ns] = T.cast(T.matmul(T.cast(W[b, ms, ks], T.bf16), X[b, ks, ns]), T.bf16)


@tessel.kernel(name="phased_newton_schulz")
def newton_schulz(X: T.In[T.bf16, ("B", "M", "N")], Y: T.Out[T.bf16, ("B", "M", "N")]):
    B, M, N = X.shape
    bs, ms, ns, ks = T.domain(0, B), T.domain(0, M), T.domain(0, N), T.domain(0, M)
    A = T.buffer(over=(bs, ms, ks), dtype=T.f32, init=None)
    Bm = T.buffer(over=(bs, ms, ks), dtype=T.f32, init=None)
    for b in T.parallel(bs):
        A[b, ms, ks] = T.matmul(X[b, ms, ns], X[b, ks, ns], transpose_rhs=True)
    for b in T.parallel(bs):
        a = A[b, ms, ks]
        ab = T.cast(a, T.bf16)
        Bm[b, ms, ks] = NS_B * a + NS_C * T.matmul(ab, ab)
    for b in T.parallel(bs):
        x = X[b, ms, ns]
        Y[b, ms, ns] = T.cast(NS_A * T.cast(x, T.f32) + T.matmul(T.cast(Bm[b, ms, ks], T.bf16), X[b, ks, ns]),
                              T.bf16)


def _remarks(tessel_bin, tmp_path, kernel):
    src = tmp_path / f"{kernel.name}.mlir"
    src.write_text(kernel.kir({}))
    res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=source", "--target=triton", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stderr


@pytest.mark.parametrize("kernel,phases", [(gram_chain, 2), (newton_schulz, 3)], ids=lambda k: getattr(k, "name", ""))
def test_every_phase_is_a_tiled_contraction(tessel_bin, tmp_path, kernel, phases):
    text = _remarks(tessel_bin, tmp_path, kernel)
    assert text.count("it is a segment after them, its instances waiting") == phases - 1, text
    for i in range(phases):
        assert f"pgpu-form-tiles: segment {i} of {phases}: tiled a contraction nest" in text, text
    assert "runs whole in the last program instance" not in text


@pytest.mark.parametrize("kernel", [gram_chain, newton_schulz], ids=lambda k: k.name)
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
    for _ in range(2):  # the second call sees the ticket the first returned to 0
        out = torch.full((B, M, N), float("nan"), dtype=torch.bfloat16)
        launch(arg, out)
        np.testing.assert_allclose(out.double().numpy(), want, rtol=2e-2, atol=2e-2)
