"""pgpu-split-contractions: a tiled contraction whose output has few tiles and whose reduced axis is long
(corpus 135's Gram matrix X^T X of a tall X; for now only a product of one view with itself) runs its K loop
as SPLIT_K chunks, one program each; each chunk stores its partial tiles to workspace and the tile's last
arrival adds them in chunk order, then runs the epilogue (the same bits on every run at one binding).

Checked against the KIR interpreter through the generated Triton under TRITON_INTERPRET=1 at odd shapes
(reduced extents 0, 1 and primes; output extents that are no multiple of the tile; more chunks than K
steps), and the call default: split where the tiles are few and the K steps many, not for a GEMM with many
tiles nor a short K; a GEMM of two views is not split (yet).
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)


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


def linear(name):
    """A GEMM of two views: not split for now (the pass splits a product of one view with itself)."""
    import tessel
    import tessel.language as T

    @tessel.kernel(name=name)
    def kernel(a: T.In[T.f16, ("M", "K")], w: T.In[T.f16, ("K", "N")], y: T.Out[T.f32, ("M", "N")]):
        M, K = a.shape
        N = w.shape[1]
        rows, cols = T.domain(0, M), T.domain(0, N)
        y[rows, cols] = T.matmul(a[rows, :], w[:, cols], acc_dtype=T.f32)
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


def test_gemm_of_two_views_is_not_split(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    text = linear("linear_ir").source()
    assert "SPLIT_K" not in text and text.count("tl.dot(") == 1


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
