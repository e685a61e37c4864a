"""Call defaults that fill the device (Kernel._fill_programs; issue 41, corpus 05 and 07 on the H200): a
skinny product's row tile shrinks to what its extent needs, its column tile until the programs fill three
quarters of the multiprocessors, and its K tile and pipeline deepen; a large GEMM keeps its declared
defaults. Shapes only (meta tensors), and one check of the filled binding through Triton under
TRITON_INTERPRET=1."""
import os
import re

import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


def _defaults(kernel):
    src = kernel.source()
    line = next(l for l in src.split("\n") if "_PARAMS = {" in l)
    return {k: int(v) for k, v in re.findall(r"'([A-Z_0-9]+)': \(\[[^\]]*\], (\d+)\)", line)}


def _meta(*shape):
    return torch.empty(shape, dtype=torch.bfloat16, device="meta")


@tessel.kernel
def linear(x: T.In[T.bf16, ("B", "K")], w: T.In[T.bf16, ("N", "K")], y: T.Out[T.bf16, ("B", "N")]):
    rows, cols = T.domain(x.shape[0]), T.domain(w.shape[0])
    y[rows, cols] = T.cast(T.matmul(x[rows, :], w[cols, :], transpose_rhs=True), T.bf16)


def test_a_decode_gemv_fills_the_device():
    got = linear.call_defaults(_meta(1, 14336), _meta(4096, 14336), _meta(1, 4096))
    assert (got["TILE_0"], got["TILE_1"], got["TILE_K"], got["STAGES"], got["WARPS"]) == (16, 32, 128, 4, 4), got
    # 16 rows: the same tiles (one 16-row tile covers them). 100 rows keep 128-row tiles (narrower ones
    # add programs), then the widest tile halves in turn: 128x256 (16 programs), 128x128 (32), 64x128 (64),
    # 64x64 (128 of 132)
    assert linear.call_defaults(_meta(16, 4096), _meta(4096, 4096), _meta(16, 4096))["TILE_1"] == 32
    wide = linear.call_defaults(_meta(100, 4096), _meta(4096, 4096), _meta(100, 4096))
    assert (wide["TILE_0"], wide["TILE_1"]) == (64, 64), wide


def test_a_large_gemm_keeps_its_declared_defaults():
    got = linear.call_defaults(_meta(4096, 4096), _meta(11008, 4096), _meta(4096, 11008))
    declared = _defaults(linear)
    assert {k: got[k] for k in declared} == declared, got


@tessel.kernel
def shared_weight(x: T.In[T.bf16, ("B", "M", "K")], w: T.In[T.bf16, ("K", "N")], y: T.Out[T.bf16, ("B", "M", "N")]):
    for b in T.parallel(T.domain(0, x.shape[0])):
        y[b, :, :] = T.cast(T.matmul(x[b, :, :], w[:, :], acc_dtype=T.f32), T.bf16)


def test_tiles_narrow_to_their_axes_in_a_space_of_several_axes():
    # A batch of 256 [56, 576] activations against one [576, 64] weight (a convolution's implicit GEMM
    # shape): program axes b x M tiles x N tiles. The 128 x 256 declared tiles cover 56 and 64 with one
    # tile each; 64 x 64 gives the same 256 programs. The count of the probe that finds which parameters
    # tile programs (every extent 2**13 times larger) is compared past the resident-program cap. A batch
    # of 32 (32 programs) then halves both tiles to fill the multiprocessors (128 programs).
    got = shared_weight.call_defaults(_meta(256, 56, 576), _meta(576, 64), _meta(256, 56, 64))
    assert (got["TILE_1"], got["TILE_2"], got["TILE_K"], got["STAGES"]) == (64, 64, 128, 4), got
    got = shared_weight.call_defaults(_meta(32, 56, 576), _meta(576, 64), _meta(32, 56, 64))
    assert (got["TILE_1"], got["TILE_2"]) == (32, 32), got


@tessel.kernel
def linear16(x: T.In[T.f16, ("B", "K")], w: T.In[T.f16, ("N", "K")], y: T.Out[T.f16, ("B", "N")]):
    rows, cols = T.domain(x.shape[0]), T.domain(w.shape[0])
    y[rows, cols] = T.cast(T.matmul(x[rows, :], w[cols, :], transpose_rhs=True), T.f16)


def test_skinny_defaults_agree_with_the_reference_through_triton(tmp_path, monkeypatch):
    """The filled binding computes the product (Triton under TRITON_INTERPRET=1; f16: the interpreter's
    tl.dot multiplies bf16 bit patterns, triton-lang/triton#11584)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    g = torch.Generator().manual_seed(3)
    for b, n, k in ((1, 67, 300), (3, 131, 257)):
        x = torch.randn(b, k, generator=g).to(torch.float16)
        w = torch.randn(n, k, generator=g).to(torch.float16)
        y = torch.full((b, n), float("nan"), dtype=torch.float16)
        d = linear16.call_defaults(x, w, y)
        assert d["TILE_0"] == 16 and d["TILE_K"] == 128, d
        linear16(x, w, y)
        want = x.double() @ w.double().t()
        assert torch.allclose(y.double(), want, rtol=2e-2, atol=2e-2 * want.abs().max().item())
