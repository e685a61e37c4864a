"""pgpu-stage-operands: a GEMM whose row operand is computed in its K loop (corpus 45's silu(g) * u, 113's
rmsnorm(x) * g) computes it once, in first-phase programs that store it to workspace, and the contraction's
programs load it after waiting for them (one launch), instead of recomputing it for every tile of N.

Checked against the KIR interpreter through the generated Triton under TRITON_INTERPRET=1 at odd shapes
(empty, one row, primes, non-multiples of every tile, a single N tile where the launch keeps the original
walk), called twice (the tickets return to 0), and the pass's remarks: it fires for both prologues and not
for a plain GEMM. A chained product's operand (corpus 272's gelu(x @ W1 + b1), an inner K loop in the outer
one) is staged where its recomputation costs more than the workspace round trip, not where K is short.
A batched chain (X X^T X per batch member, the Gram product Muon's Newton-Schulz step starts with) stages
the inner product per batch member: the workspace holds B blocks of rows.
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


@tessel.kernel(name="staged_swiglu")
def swiglu(g: T.In[T.bf16, ("M", "F")], u: T.In[T.bf16, ("M", "F")], w: T.In[T.bf16, ("F", "N")],
           y: T.Out[T.f32, ("M", "N")]):
    M, F = g.shape
    N = w.shape[1]
    rows, cols, fs = T.domain(0, M), T.domain(0, N), T.domain(0, F)
    gf = T.cast(g[rows, fs], T.f32)
    h = T.cast(gf * T.sigmoid(gf) * T.cast(u[rows, fs], T.f32), T.bf16)
    y[rows, cols] = T.matmul(h, w[fs, cols])


@tessel.kernel(name="staged_rmsnorm")
def rmsnorm(x: T.In[T.bf16, ("M", "K")], s: T.In[T.bf16, ("K",)], w: T.In[T.bf16, ("K", "N")],
            y: T.Out[T.f32, ("M", "N")]):
    M, K = x.shape
    N = w.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    xf = T.cast(x[rows, ks], T.f32)
    rstd = T.rsqrt(T.sum(xf * xf, axis=1) / T.cast(K, T.f32) + 1e-6)
    xn = T.cast(xf * rstd * T.cast(s[ks], T.f32), T.bf16)
    y[rows, cols] = T.matmul(xn, w[ks, cols])


@tessel.kernel(name="staged_plain")
def plain(a: T.In[T.bf16, ("M", "K")], w: T.In[T.bf16, ("K", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, K = a.shape
    N = w.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    y[rows, cols] = T.matmul(a[rows, ks], w[ks, cols])


@tessel.kernel(name="staged_mlp")
def mlp(x: T.In[T.bf16, ("M", "D")], w1: T.In[T.bf16, ("D", "F")], b1: T.In[T.f32, ("F",)],
        w2: T.In[T.bf16, ("F", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, D = x.shape
    F, N = w1.shape[1], w2.shape[1]
    rows, ds, fs, cols = T.domain(0, M), T.domain(0, D), T.domain(0, F), T.domain(0, N)
    h = T.cast(T.gelu(T.matmul(x[rows, ds], w1[ds, fs], init=b1[fs])), T.bf16)
    y[rows, cols] = T.matmul(h, w2[fs, cols])


@tessel.kernel(name="staged_short_mlp")
def short_mlp(x: T.In[T.bf16, ("M", 16)], w1: T.In[T.bf16, (16, "F")], w2: T.In[T.bf16, ("F", "N")],
              y: T.Out[T.f32, ("M", "N")]):
    M = x.shape[0]
    F, N = w1.shape[1], w2.shape[1]
    rows, ds, fs, cols = T.domain(0, M), T.domain(0, 16), T.domain(0, F), T.domain(0, N)
    h = T.cast(T.gelu(T.matmul(x[rows, ds], w1[ds, fs])), T.bf16)
    y[rows, cols] = T.matmul(h, w2[fs, cols])


@tessel.kernel(name="staged_batched_gram")
def batched_gram(x: T.In[T.bf16, ("B", "M", "N")], y: T.Out[T.f32, ("B", "M", "N")]):
    B, M, N = x.shape
    bs, ms, ns, ks = T.domain(0, B), T.domain(0, M), T.domain(0, N), T.domain(0, M)
    a = T.cast(T.matmul(x[bs, ms, ns], x[bs, ks, ns], transpose_rhs=True), T.bf16)  # [B, M, M]
    y[bs, ms, ns] = T.matmul(a, x[bs, ks, ns])


SMALL = {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16}


def _remarks(tessel_bin, tmp_path, kernel):
    """The pass's remarks when the Triton provider compiles `kernel` (the pass needs its workspace and
    acquire/release hand-off)."""
    import subprocess
    src = tmp_path / f"{kernel.name}.mlir"
    src.write_text(kernel.kir({}))
    res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=source", "--target=triton", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    tag = "pgpu-stage-operands: "
    return [ln.split(tag, 1)[1] for ln in res.stderr.splitlines() if tag in ln]


def test_fires_on_prologues_not_on_a_plain_gemm(tessel_bin, tmp_path):
    for kernel in (swiglu, rmsnorm):
        assert any("computed once in a first phase" in r for r in _remarks(tessel_bin, tmp_path, kernel)), kernel.name
    assert any("loaded, not computed" in r for r in _remarks(tessel_bin, tmp_path, plain))
    assert "OPERAND_PHASES" not in plain.source()


@pytest.mark.parametrize("kernel,names", [(swiglu, ("g", "u", "w")), (rmsnorm, ("x", "s", "w"))],
                         ids=["swiglu", "rmsnorm"])
@pytest.mark.parametrize("shape", [(0, 5, 7), (1, 1, 1), (19, 37, 67), (33, 20, 5)],
                         ids=lambda s: "x".join(map(str, s)))
def test_matches_kir_through_triton(tmp_path, monkeypatch, kernel, names, shape):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    M, K, N = shape
    dims = {"M": M, "N": N, ("F" if kernel is swiglu else "K"): K}
    ref = kernel.run_interp(dims, None, None, seed=3)
    args = [torch.from_numpy(np.array(ref[f"{n}.in"])).to(torch.bfloat16) for n in names]
    want = np.array(ref["y"]).astype(np.float64)
    launch = kernel._launcher({}, SMALL)
    for _ in range(2):  # the second call sees the tickets the first returned to 0
        out = torch.full((M, N), float("nan"), dtype=torch.float32)
        launch(*args, out)
        np.testing.assert_allclose(out.double().numpy(), want, rtol=2e-2, atol=2e-2)


def test_chained_product_staged_unless_k_is_short(tessel_bin, tmp_path):
    assert any("computed once in a first phase" in r for r in _remarks(tessel_bin, tmp_path, mlp))
    assert any("chained contraction's K (16) is too short" in r for r in _remarks(tessel_bin, tmp_path, short_mlp))
    assert "OPERAND_PHASES" not in short_mlp.source()


@pytest.mark.parametrize("shape,staged", [((0, 97, 37, 67), False), ((1, 97, 37, 67), True),
                                          ((17, 97, 37, 67), True), ((13, 101, 70, 13), False),
                                          ((5, 7, 13, 67), False)],
                         ids=lambda s: "x".join(map(str, s)) if isinstance(s, tuple) else str(s))
def test_chained_product_matches_kir_through_triton(tmp_path, monkeypatch, shape, staged):
    """[M, D, F, N]: D and F primes or non-multiples of the tiles; N = 67 is five tiles of 16, where the
    cost rule stages for D = 97 ((5 - 1) * 2 * 97 FLOPs against (5 + 1) * 2 * 64 bytes) and not for D = 7;
    N = 13 is one tile (recomputed); M = 0 launches nothing. `staged`: the launch allocates the operand's
    workspace [M, F padded to 128] (bf16)."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    M, D, F, N = shape
    rng = np.random.default_rng(5)  # scaled as a layer's weights, so that bf16 rounding stays within tolerance
    given = dict(x=rng.standard_normal((M, D)), w1=rng.standard_normal((D, F)) / np.sqrt(D),
                 b1=0.1 * rng.standard_normal(F), w2=rng.standard_normal((F, N)) / np.sqrt(F))
    args = [torch.from_numpy(given[n]).to(torch.float32 if n == "b1" else torch.bfloat16) for n in given]
    ref = mlp.run_interp({}, inputs={n: a.float().numpy() for n, a in zip(given, args)})
    want = np.array(ref["y"]).astype(np.float64)
    launch = mlp._launcher({}, dict(SMALL, TILE_2=16))  # several F tiles and K chunks a row tile
    sizes, empty = [], torch.empty

    def recording(*a, **k):
        if k.get("dtype") is torch.bfloat16:
            sizes.append(a[0])
        return empty(*a, **k)
    monkeypatch.setattr(torch, "empty", recording)
    for _ in range(2):  # the second call sees the tickets the first returned to 0
        out = torch.full((M, N), float("nan"), dtype=torch.float32)
        launch(*args, out)
        np.testing.assert_allclose(out.double().numpy(), want, rtol=2e-2, atol=2e-2)
    assert any(n == M * -(-F // 128) * 128 for n in sizes if n) == staged, sizes


@pytest.mark.parametrize("shape,staged", [((1, 1, 1), False), ((2, 5, 13), False), ((3, 17, 131), True),
                                          ((2, 37, 97), True), ((0, 17, 131), False), ((3, 0, 131), False)],
                         ids=lambda s: "x".join(map(str, s)) if isinstance(s, tuple) else str(s))
def test_batched_chain_matches_kir_through_triton(tmp_path, monkeypatch, shape, staged):
    """[B, M, N]: the operand cast(x[b] x[b]^T) depends on the batch coordinate besides its row tile, so
    each batch member's rows are staged in their own block of the workspace [B * M, M padded to 128]
    (bf16). 16-wide tiles: N = 131 is nine column tiles, where the chained cost rule stages ((9 - 1) * 2 *
    131 FLOPs against (9 + 1) * 2 * 64 bytes), as N = 97 (seven); N = 13 is one tile (recomputed), and
    M = 1 one column tile; B = 0 or M = 0 launch nothing."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    B, M, N = shape
    rng = np.random.default_rng(7)
    x = rng.standard_normal((B, M, N)) / np.sqrt(max(N, 1))  # rows of norm about 1: A's entries stay O(1)
    arg = torch.from_numpy(x).to(torch.bfloat16)
    ref = batched_gram.run_interp({}, inputs={"x": arg.float().numpy()})
    want = np.array(ref["y"]).astype(np.float64)
    launch = batched_gram._launcher({}, {"TILE_1": 16, "TILE_2": 16, "TILE_3": 16, "TILE_K": 16})
    sizes, empty = [], torch.empty

    def recording(*a, **k):
        if k.get("dtype") is torch.bfloat16:
            sizes.append(a[0])
        return empty(*a, **k)
    monkeypatch.setattr(torch, "empty", recording)
    for _ in range(2):  # the second call sees the tickets the first returned to 0
        out = torch.full((B, M, N), float("nan"), dtype=torch.float32)
        launch(arg, out)
        np.testing.assert_allclose(out.double().numpy(), want, rtol=2e-2, atol=2e-2)
    assert any(n == B * M * -(-M // 128) * 128 for n in sizes if n) == staged, sizes


def test_batched_chain_staged(tessel_bin, tmp_path):
    assert any("computed once in a first phase" in r for r in _remarks(tessel_bin, tmp_path, batched_gram))
