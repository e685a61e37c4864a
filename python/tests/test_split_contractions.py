"""pgpu-split-contractions: a tiled contraction whose output has few tiles and whose reduced axis is long
(corpus 135's Gram matrix X^T X of a tall X, 159's weight gradient dY^T X, a GEMM of few rows with a huge K)
runs its K loop
as SPLIT_K chunks, one program each; each chunk stores its partial tiles to workspace and the tile's last
arrival adds them in chunk order, then runs the epilogue (the same bits on every run at one binding).

Checked against the KIR interpreter through the generated Triton under TRITON_INTERPRET=1 at odd shapes
(reduced extents 0, 1 and primes; output extents that are no multiple of the tile; more chunks than K
steps, empty chunks), GEMMs of two views with a bias and relu epilogue in f16, bf16 and f32 operands, and the
call default: split where the tiles are few and the K steps many (then the deepest pipeline that fits), not for
a GEMM with many tiles nor a short K.
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


def gram(name):
    """Corpus 135's spelling: G = X^T X."""
    import tessel
    import tessel.language as T

    @tessel.kernel(name=name)
    def kernel(x: T.In[T.f16, ("N", "D")], g: T.Out[T.f32, ("D", "D")]):
        N, D = x.shape
        rows, dims = T.domain(0, N), T.domain(0, D)
        g[dims, dims] = T.contract(x[rows, dims], x[rows, dims], reduce=((0, 0),), acc_dtype=T.f32)
    return kernel


def gram_epilogue(name):
    """A Gram matrix with an epilogue: y = f16(relu(X^T X * 0.5 + bias)) (the epilogue runs in the last arrival)."""
    import tessel
    import tessel.language as T

    @tessel.kernel(name=name)
    def kernel(x: T.In[T.f16, ("N", "D")], bias: T.In[T.f32, ("D",)], y: T.Out[T.f16, ("D", "D")]):
        N, D = x.shape
        rows, dims = T.domain(0, N), T.domain(0, D)
        acc = T.contract(x[rows, dims], x[rows, dims], reduce=((0, 0),), acc_dtype=T.f32)
        y[dims, dims] = T.cast(T.maximum(acc * 0.5 + bias[dims], 0.0), T.f16)
    return kernel


def linear(name, dtype="f16"):
    """A GEMM of two views with a bias and relu epilogue: y = relu(A W + bias), f32 accumulate."""
    import tessel
    import tessel.language as T
    t = getattr(T, dtype)

    @tessel.kernel(name=name)
    def kernel(a: T.In[t, ("M", "K")], w: T.In[t, ("K", "N")], bias: T.In[T.f32, ("N",)],
               y: T.Out[T.f32, ("M", "N")]):
        M, K = a.shape
        N = w.shape[1]
        rows, cols = T.domain(0, M), T.domain(0, N)
        acc = T.matmul(a[rows, :], w[:, cols], acc_dtype=T.f32)
        y[rows, cols] = T.maximum(acc + bias[cols], 0.0)
    return kernel


def weight_grad(name):
    """Corpus 159's spelling: dW = dY^T X (two views, the reduced axis the rows of both)."""
    import tessel
    import tessel.language as T

    @tessel.kernel(name=name)
    def kernel(dy: T.In[T.bf16, ("T", "O")], x: T.In[T.bf16, ("T", "I")], dw: T.Out[T.f32, ("O", "I")]):
        NT, O = dy.shape
        I = x.shape[1]
        toks, outs, ins = T.domain(0, NT), T.domain(0, O), T.domain(0, I)
        dw[outs, ins] = T.contract(dy[toks, outs], x[toks, ins], reduce=((0, 0),), acc_dtype=T.f32)
    return kernel


SMALL = {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16}


def test_the_k_loop_is_split(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = gram("gram_ir")
    text = kernel.source()  # SPLIT_K = 1: the split branch is a constant-false if
    assert "'SPLIT_K': ([1, 2, 4, 8, 16, 32, 64], 1)" in text
    split = kernel.source(params={"SPLIT_K": 8})
    assert split.count("tl.dot(") == 2 and "tl.atomic" in split  # both loops; the last arrival's ticket


@pytest.fixture(scope="module", params=[2, 4, 64], ids=["split2", "split4", "split64"])
def gram_launch(request, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("TESSEL_CACHE", str(tmp_path_factory.mktemp("cache")))
    kernel = gram("gram_split")
    yield kernel, kernel._launcher({}, SMALL | {"SPLIT_K": request.param})
    mp.undo()


@pytest.mark.parametrize("N,D", [(0, 5), (1, 1), (13, 17), (67, 5), (131, 33)])
def test_gram_matches_kir_through_triton(gram_launch, N, D):
    torch = pytest.importorskip("torch")
    kernel, launch = gram_launch
    ref = kernel.run_interp({"N": N, "D": D}, None, None, seed=3)
    x = torch.from_numpy(np.array(ref["x.in"]))
    want = np.array(ref["g"]).astype(np.float64)
    x64 = x.double().numpy()
    np.testing.assert_allclose(want, x64.T @ x64, rtol=1e-4, atol=1e-3, err_msg="KIR vs NumPy")
    out = torch.full((D, D), float("nan"), dtype=torch.float32)
    launch(x, out)
    np.testing.assert_allclose(out.double().numpy(), want, rtol=1e-4, atol=1e-3)
    again = torch.full((D, D), float("nan"), dtype=torch.float32)
    launch(x, again)  # the tickets are reset by their last arrival: a second launch merges again
    assert torch.equal(out, again)


@pytest.mark.parametrize("split", [1, 4])
@pytest.mark.parametrize("N,D", [(0, 7), (1, 3), (97, 17)])
def test_gram_epilogue_matches_kir_through_triton(tmp_path, monkeypatch, split, N, D):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = gram_epilogue(f"gram_epilogue{split}")
    launch = kernel._launcher({}, SMALL | {"SPLIT_K": split})
    ref = kernel.run_interp({"N": N, "D": D}, None, None, seed=7)
    x, bias = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("x", "bias"))
    want = np.array(ref["y"]).astype(np.float64)
    x64 = x.double().numpy()
    got = np.maximum(x64.T @ x64 * 0.5 + bias.double().numpy()[None, :], 0.0)
    np.testing.assert_allclose(want, got, rtol=2e-3, atol=2e-3, err_msg="KIR vs NumPy")
    out = torch.full((D, D), float("nan"), dtype=torch.float16)
    launch(x, bias, out)
    np.testing.assert_allclose(out.double().numpy(), want, rtol=2e-3, atol=2e-3)


def test_gemm_of_two_views_is_split(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = linear("linear_ir")
    text = kernel.source()
    assert "'SPLIT_K': ([1, 2, 4, 8, 16, 32, 64], 1)" in text and text.count("tl.dot(") == 2
    # SPLIT_KS is a choice on the parameter alone: 1 at SPLIT_K = 1, which Triton folds.
    assert "tl.where(" in text


def _dtype(torch, name):
    return {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[name]


@pytest.fixture(scope="module", params=[(d, s) for d in ("f16", "bf16", "f32") for s in (1, 2, 4, 64)],
                ids=lambda p: f"{p[0]}-split{p[1]}")
def linear_launch(request, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("TESSEL_CACHE", str(tmp_path_factory.mktemp("cache")))
    dtype, split = request.param
    kernel = linear(f"linear_{dtype}_{split}", dtype)
    yield dtype, kernel, kernel._launcher({}, SMALL | {"SPLIT_K": split})
    mp.undo()


# K 0 (every chunk empty: relu(bias)), 1, primes; 129 is 9 steps of 16 (at SPLIT_K 4, chunks of 3 steps:
# the fourth is empty); M, N no multiple of the 16-wide tiles.
@pytest.mark.parametrize("M,K,N", [(3, 0, 5), (1, 1, 1), (17, 131, 33), (5, 129, 19), (16, 257, 2)])
def test_gemm_matches_kir_through_triton(linear_launch, M, K, N):
    torch = pytest.importorskip("torch")
    dtype, kernel, launch = linear_launch
    ref = kernel.run_interp({"M": M, "K": K, "N": N}, None, None, seed=11)
    a, w, bias = (torch.from_numpy(np.array(ref[f"{n}.in"]).astype(np.float32)).to(_dtype(torch, dtype))
                  if n != "bias" else torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("a", "w", "bias"))
    want = np.array(ref["y"]).astype(np.float64)
    got = np.maximum(a.double().numpy() @ w.double().numpy() + bias.double().numpy()[None, :], 0.0)
    np.testing.assert_allclose(want, got, rtol=1e-3, atol=1e-3, err_msg="KIR vs NumPy")
    out = torch.full((M, N), float("nan"), dtype=torch.float32)
    launch(a, w, bias, out)
    np.testing.assert_allclose(out.double().numpy(), want, rtol=1e-3, atol=1e-3)
    again = torch.full((M, N), float("nan"), dtype=torch.float32)
    launch(a, w, bias, again)  # the same bits on every run at one binding
    assert torch.equal(out, again)


@pytest.mark.parametrize("split", [1, 4])
@pytest.mark.parametrize("NT,O,I", [(0, 3, 5), (1, 1, 1), (211, 17, 23)])
def test_weight_grad_matches_kir_through_triton(tmp_path, monkeypatch, split, NT, O, I):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = weight_grad(f"weight_grad{split}")
    launch = kernel._launcher({}, SMALL | {"SPLIT_K": split})
    ref = kernel.run_interp({"T": NT, "O": O, "I": I}, None, None, seed=5)
    dy, x = (torch.from_numpy(np.array(ref[f"{n}.in"]).astype(np.float32)).to(torch.bfloat16) for n in ("dy", "x"))
    want = np.array(ref["dw"]).astype(np.float64)
    np.testing.assert_allclose(want, dy.double().numpy().T @ x.double().numpy(), rtol=1e-4, atol=1e-3,
                               err_msg="KIR vs NumPy")
    out = torch.full((O, I), float("nan"), dtype=torch.float32)
    launch(dy, x, out)
    np.testing.assert_allclose(out.double().numpy(), want, rtol=1e-4, atol=1e-3)


def test_call_default_splits_gemms(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    meta = dict(device="meta")
    # Corpus 159's bench shape: 64 tiles of 128 x 128 walking T = 65536 (1024 K steps): two chunks a tile,
    # one wave of 128 chunks on 132 multiprocessors (four, two waves, measured 0.319 against 0.234 ms).
    kernel = weight_grad("weight_grad_default")
    dy, x = (torch.empty((65536, 1024), dtype=torch.bfloat16, **meta) for _ in range(2))
    chosen = kernel.call_defaults(dy, x, torch.empty((1024, 1024), **meta))
    assert chosen["SPLIT_K"] == 2 and chosen["STAGES"] > kernel._space({})["STAGES"][1], chosen
    # A GEMM of few rows with a huge K (16 x 65536 x 256), and 512 x 512 x 65536, split.
    kernel = linear("linear_default")
    for m, k, n in ((16, 65536, 256), (512, 65536, 512)):
        a, w = torch.empty((m, k), dtype=torch.float16, **meta), torch.empty((k, n), dtype=torch.float16, **meta)
        bias, y = torch.empty((n,), **meta), torch.empty((m, n), **meta)
        chosen = kernel.call_defaults(a, w, bias, y)
        tiles = -(-m // chosen["TILE_0"]) * -(-n // chosen["TILE_1"])
        assert chosen["SPLIT_K"] > 1 and tiles * chosen["SPLIT_K"] <= 132, (m, k, n, chosen)  # one wave
    # A big GEMM keeps one chunk and the declared pipeline.
    a, w = (torch.empty((4096, 4096), dtype=torch.float16, **meta) for _ in range(2))
    bias, y = torch.empty((4096,), **meta), torch.empty((4096, 4096), **meta)
    chosen = kernel.call_defaults(a, w, bias, y)
    assert chosen["SPLIT_K"] == 1 and chosen["STAGES"] == kernel._space({})["STAGES"][1], chosen


def test_call_default_splits_few_tiles_with_long_k(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = gram("gram_default")
    # Corpus 135's bench shape: one 128 x 128 tile, 16384 K steps of 64 rows.
    x, g = torch.empty((1048576, 128), dtype=torch.float16, device="meta"), torch.empty((128, 128), device="meta")
    chosen = kernel.call_defaults(x, g)
    assert chosen["SPLIT_K"] == 64 and chosen["TILE_0"] == 128 and chosen["TILE_1"] == 128, chosen
    # A short reduced axis keeps one chunk (the tiles narrow to fill the device instead).
    x = torch.empty((256, 128), dtype=torch.float16, device="meta")
    assert kernel.call_defaults(x, g)["SPLIT_K"] == 1
    # Many output tiles (D = 4096: 1024 tiles of 128 x 128) keep one chunk.
    x, g = torch.empty((8192, 4096), dtype=torch.float16, device="meta"), torch.empty((4096, 4096), device="meta")
    assert kernel.call_defaults(x, g)["SPLIT_K"] == 1
    # A narrower tall X (D = 64: one tile) splits too.
    x, g = torch.empty((65536, 64), dtype=torch.float16, device="meta"), torch.empty((64, 64), device="meta")
    assert kernel.call_defaults(x, g)["SPLIT_K"] > 1
