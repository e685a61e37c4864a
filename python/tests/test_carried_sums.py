"""A loop adding a contraction to its carry is one contraction over the flattened members
(FlattenCarriedSums.cpp, a pgpu-form-tiles helper).

A block-sparse (BSR) product, `acc = acc + T.matmul(values[e, blk, blk], b[col[e] * BS + blk, cols])`
over a block row's nonzero blocks e (corpus 140), was constructed as a loop over e per output element,
which form-tiles could not block: every output element summed its blocks' BS-wide rows one element at a
time. Now the loop is one sum over t in [0, n * BS) (e = lo + t / BS, k = t % BS) and tiles: a TILE_K
loop with tl.dot. Differential: Triton under TRITON_INTERPRET=1 against the KIR interpreter on random
inputs at odd shapes (one block row, empty block rows, N = 1 and primes, block sizes 3 and 4 that TILE_K
lanes cross), at the call defaults and small tiles, with a zero accumulator and one started from an
input (the loop's init added to the flattened sum)."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import launch_agrees  # noqa: E402


def _bsr(bs):
    @tessel.kernel
    def bsr(crow: T.In[T.i32, ("MB1",)], col: T.In[T.i32, ("NNZB",)], values: T.In[T.f16, ("NNZB", bs, bs)],
            b: T.In[T.f16, ("K", "N")], out: T.Out[T.f16, ("M", "N")]):
        MB = crow.shape[0] - 1
        M, N = out.shape
        blocks = T.domain(0, values.shape[0])
        blk = T.domain(0, bs)
        rows, cols = T.domain(0, M), T.domain(0, N)
        for mb in T.parallel(T.domain(0, MB)):
            acc = T.zeros((blk, cols), T.f32)
            for e in blocks[crow[mb]:crow[mb + 1]]:
                kb = T.cast(col[e], T.index) * bs + T.indices(blk)
                acc = acc + T.matmul(values[e, blk, blk], b[kb, cols], acc_dtype=T.f32)
            out[rows[mb * bs:mb * bs + bs], cols] = T.cast(acc, T.f16)
    return bsr


def _bsr_from(bs):
    @tessel.kernel
    def bsr_from(crow: T.In[T.i32, ("MB1",)], col: T.In[T.i32, ("NNZB",)], values: T.In[T.f16, ("NNZB", bs, bs)],
                 b: T.In[T.f16, ("K", "N")], c: T.In[T.f32, ("M", "N")], out: T.Out[T.f32, ("M", "N")]):
        MB = crow.shape[0] - 1
        M, N = out.shape
        blocks = T.domain(0, values.shape[0])
        blk = T.domain(0, bs)
        rows, cols = T.domain(0, M), T.domain(0, N)
        for mb in T.parallel(T.domain(0, MB)):
            acc = c[rows[mb * bs:mb * bs + bs], cols]
            for e in blocks[crow[mb]:crow[mb + 1]]:
                kb = T.cast(col[e], T.index) * bs + T.indices(blk)
                acc = acc + T.matmul(values[e, blk, blk], b[kb, cols], acc_dtype=T.f32)
            out[rows[mb * bs:mb * bs + bs], cols] = acc
    return bsr_from


BSR = {3: _bsr(3), 4: _bsr(4)}
BSR_FROM = {4: _bsr_from(4)}


def _inputs(bs, mb, kb, n, density, rng):
    """A BSR matrix of mb x kb blocks (each nonzero with probability `density`, at least one overall)."""
    mask = rng.random((mb, kb)) < density
    if not mask.any():
        mask[rng.integers(mb), rng.integers(kb)] = True
    rb, cb = np.nonzero(mask)
    crow = np.zeros(mb + 1, np.int32)
    np.add.at(crow, rb + 1, 1)
    return dict(crow=np.cumsum(crow).astype(np.int32), col=cb.astype(np.int32),
                values=(rng.standard_normal((len(cb), bs, bs)) / 2).astype(np.float16),
                b=rng.standard_normal((kb * bs, n)).astype(np.float16))


def _kernel_body(src, name):
    start = src.index(f"def _{name}_kernel(")
    return src[start:src.index("\n\n\n", start)]


def test_bsr_product_is_a_tiled_contraction():
    body = _kernel_body(BSR[4].source(), "bsr")
    assert "tl.dot(" in body
    assert "tl.sum(" not in body  # no per-element sums over a block's row


BINDINGS = [None, {"TILE_1": 16, "TILE_2": 16, "TILE_K": 16}, {"TILE_1": 16, "TILE_2": 32, "TILE_K": 32}]


@pytest.mark.parametrize("bs", [3, 4])
@pytest.mark.parametrize("mb,kb,n,density", [(1, 1, 1, 1.0), (3, 2, 7, 0.5), (5, 7, 37, 0.3), (2, 5, 131, 0.4)])
def test_bsr_agrees_with_the_interpreter(bs, mb, kb, n, density, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(bs * 10000 + mb * 1000 + kb * 100 + n)
    inputs = _inputs(bs, mb, kb, n, density, rng)
    kernel = BSR[bs]
    want = kernel.run_interp(shapes={"M": mb * bs}, inputs=inputs)["out"].astype(np.float64)
    dense = np.zeros((mb * bs, kb * bs))
    for r in range(mb):
        for e in range(inputs["crow"][r], inputs["crow"][r + 1]):
            c = inputs["col"][e]
            dense[r * bs:(r + 1) * bs, c * bs:(c + 1) * bs] += inputs["values"][e]
    np.testing.assert_allclose(want, dense @ inputs["b"].astype(np.float64), rtol=2e-2, atol=2e-2)
    launch_agrees(kernel, inputs, (mb * bs, n), want, BINDINGS, rtol=1e-2, atol=1e-2, dtype=torch.float16)


@pytest.mark.parametrize("mb,kb,n,density", [(1, 1, 1, 1.0), (4, 3, 13, 0.4)])
def test_bsr_from_an_accumulator_agrees_with_the_interpreter(mb, kb, n, density, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(mb * 100 + n)
    inputs = _inputs(4, mb, kb, n, density, rng)
    inputs["c"] = rng.standard_normal((mb * 4, n)).astype(np.float32)
    kernel = BSR_FROM[4]
    assert "tl.dot(" in _kernel_body(kernel.source(), "bsr_from")
    want = kernel.run_interp(shapes={"M": mb * 4}, inputs=inputs)["out"]
    launch_agrees(kernel, inputs, (mb * 4, n), want, BINDINGS, rtol=1e-3, atol=1e-3)
