"""A kernel-level runtime `for` carrying tensors over the kernel's domains, its body pure tensor math
with contractions (KIRToPGPU.cpp replayableFor; CarriedTensors.cpp): the block-scaled GEMM spelling of
bench/corpus/185, `acc = acc + T.matmul(a[rows, kk], b[cols, kk], transpose_rhs=True) * sa[rows, kb] *
sb[cols, kb]` over K blocks. It is replayed in the store's workset, each output element running the loop
over the blocks with its accumulator element (seed 000 §5), in the source's order of operations; then
pgpu-form-tiles runs that loop once per output tile, carrying a tile (test_kernel_level_loop_tiles.py).
Against NumPy (float64, the same per-block grouping) and the KIR interpreter on random inputs at odd
shapes (KB = 0 and 1, M and N of 1, primes, not multiples of any block):

  * the pgpu interpreter after the whole shared pipeline (`tessel run --stage pgpu`, shuffled order),
    at two bindings of the tile (or block) parameters;
  * the generated Triton under TRITON_INTERPRET=1 on torch tensors (the smaller shapes).

A kernel-level loop that stores is still refused (its effects are outside any workset), and so is one
whose next carry reads the carry at another position.
"""
import os
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import run_stage as run_tessel  # noqa: E402

BW = 5  # a prime block width: K = KB * BW is a multiple of no power-of-two block


@tessel.kernel
def block_scaled(a: T.In[T.f32, ("M", "K")], b: T.In[T.f32, ("N", "K")],
                 sa: T.In[T.f32, ("M", "KB")], sb: T.In[T.f32, ("N", "KB")],
                 out: T.Out[T.f32, ("M", "N")]):
    M, K = a.shape
    N = b.shape[0]
    KB = sa.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    acc = T.full((rows, cols), 0.0, T.f32)
    for kb in T.domain(0, KB):
        kk = ks[kb * BW:kb * BW + BW]
        part = T.matmul(a[rows, kk], b[cols, kk], transpose_rhs=True, acc_dtype=T.f32)
        acc = acc + part * sa[rows, kb] * sb[cols, kb]
    out[rows, cols] = acc


@tessel.kernel
def decayed_sum(x: T.In[T.f32, ("T", "M", "N")], d: T.In[T.f32, ("T",)], y: T.Out[T.f32, ("M", "N")]):
    """No contraction: an elementwise recurrence over time on a [M, N] carry, read after the loop."""
    TT, M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    h = T.full((rows, cols), 1.0, T.f32)
    for t in T.domain(0, TT):
        h = h * d[t] + x[t, rows, cols]
    y[rows, cols] = h * 2.0


def block_scaled_reference(a, b, sa, sb):
    out = np.zeros((a.shape[0], b.shape[0]))
    for kb in range(sa.shape[1]):
        blk = slice(kb * BW, (kb + 1) * BW)
        part = a[:, blk].astype(np.float64) @ b[:, blk].astype(np.float64).T
        out += part * sa[:, kb][:, None] * sb[:, kb][None, :]
    return out


def bindings(kernel):
    """Two bindings of the kernel's blocking parameters: the tiles of a tiled loop (pgpu-form-tiles), or
    the one block parameter of a per-element program."""
    src = kernel.compile("pgpu")
    if '#pgpu.param<"TILE_0"' in src:  # TILE_K only where a block is a K loop (not one block covering it)
        declared = lambda binding: {k: v for k, v in binding.items() if f'#pgpu.param<"{k}"' in src}  # noqa: E731
        return [declared({"TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "GROUP_0": 2}),
                declared({"TILE_0": 32, "TILE_1": 64, "TILE_K": 32, "GROUP_0": 1, "PERSIST": 2})]
    names = [p for p in ("BLOCK", "BLOCK_P") if f'#pgpu.param<"{p}"' in src]
    assert len(names) == 1, names
    return [{names[0]: v} for v in (64, 512)]


# (M, N, KB, whether Triton runs it too: one program per element on the CPU interpreter is slow)
GEMM_SHAPES = [(1, 1, 0, True), (1, 1, 1, True), (3, 7, 2, True), (2, 13, 3, True), (37, 11, 1, False),
               (5, 67, 4, False)]


@pytest.mark.parametrize("M,N,KB,triton", GEMM_SHAPES, ids=[f"M{m}N{n}KB{kb}" for m, n, kb, _ in GEMM_SHAPES])
def test_block_scaled_loop_matches_kir(tessel_bin, M, N, KB, triton):
    rng = np.random.default_rng(M * 31 + N * 7 + KB)
    K = KB * BW
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((N, K)).astype(np.float32)
    sa = rng.uniform(0.01, 0.11, size=(M, KB)).astype(np.float32)
    sb = rng.uniform(0.01, 0.11, size=(N, KB)).astype(np.float32)
    want = block_scaled_reference(a, b, sa, sb)
    shape = dict(M=M, N=N, K=K, KB=KB)
    inputs = {"a": a, "b": b, "sa": sa, "sb": sb}
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_tessel(tessel_bin, block_scaled, "kir", shape, inputs, tmp) / "out.npy")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg="kir")
        for params in bindings(block_scaled):
            got = np.load(run_tessel(tessel_bin, block_scaled, "pgpu", shape, inputs, tmp, params) / "out.npy")
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"pgpu {params}")
    if triton:
        import torch
        out = torch.full((M, N), float("nan"))
        block_scaled(*[torch.from_numpy(inputs[k]) for k in ("a", "b", "sa", "sb")], out)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6, err_msg="triton")


RECURRENCE_SHAPES = [dict(T=0, M=1, N=3), dict(T=1, M=1, N=1), dict(T=7, M=3, N=13), dict(T=3, M=5, N=67)]


@pytest.mark.parametrize("shape", RECURRENCE_SHAPES, ids=[f"T{s['T']}M{s['M']}N{s['N']}" for s in RECURRENCE_SHAPES])
def test_elementwise_kernel_level_loop_matches_kir(tessel_bin, shape):
    rng = np.random.default_rng(shape["T"] * 5 + shape["N"])
    x = rng.standard_normal((shape["T"], shape["M"], shape["N"])).astype(np.float32)
    d = rng.uniform(0.5, 0.99, size=shape["T"]).astype(np.float32)
    h = np.ones((shape["M"], shape["N"]))
    for t in range(shape["T"]):
        h = h * np.float64(d[t]) + x[t]
    want = h * 2.0
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_tessel(tessel_bin, decayed_sum, "kir", shape, {"x": x, "d": d}, tmp) / "y.npy")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg="kir")
        for params in bindings(decayed_sum):
            got = np.load(run_tessel(tessel_bin, decayed_sum, "pgpu", shape, {"x": x, "d": d}, tmp, params)
                          / "y.npy")
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"pgpu {params}")
    import torch
    y = torch.full((shape["M"], shape["N"]), float("nan"))
    decayed_sum(torch.from_numpy(x), torch.from_numpy(d), y)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-6, err_msg="triton")


def test_kernel_level_loop_that_stores_is_refused():
    @tessel.kernel
    def stores(x: T.In[T.f32, ("T", "N")], y: T.Out[T.f32, ("T", "N")]):
        TT, N = x.shape
        cols = T.domain(0, N)
        h = T.zeros(cols)
        for t in T.domain(0, TT):
            h = h + x[t, cols]
            y[t, cols] = h

    with pytest.raises(tessel.CompileError, match="neither a launch-time fact nor a pure value read"):
        stores.source("triton")


def test_kernel_level_loop_reading_the_carry_elsewhere_is_refused():
    @tessel.kernel
    def shifted(x: T.In[T.f32, ("N", "N")], y: T.Out[T.f32, ("N",)]):
        N = x.shape[0]
        cols = T.domain(0, N)
        h = T.zeros(cols)
        for t in T.domain(0, N):
            h = h + x[t, cols] * h[t]
        y[cols] = h

    with pytest.raises(tessel.CompileError, match="reads the carried tensor across positions"):
        shifted.source("triton")


@tessel.kernel
def nested_steps(x: T.In[T.f32, ("A", "B", "M", "N")], d: T.In[T.f32, ("A",)], y: T.Out[T.f32, ("M", "N")]):
    """A loop nest carrying one [M, N] tensor: steps and their sub-steps, the inner range growing with
    the outer index (a triangle), the outer step decaying the carry after its inner loop."""
    A, B, M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    h = T.full((rows, cols), 0.5, T.f32)
    for a in T.domain(0, A):
        for b in T.domain(0, T.minimum(a + 1, B)):
            h = h * 0.75 + x[a, b, rows, cols]
        h = h * d[a]
    y[rows, cols] = h - 1.0


NESTED_SHAPES = [dict(A=0, B=2, M=1, N=3), dict(A=3, B=0, M=2, N=1), dict(A=1, B=1, M=1, N=1),
                 dict(A=4, B=3, M=3, N=13), dict(A=2, B=5, M=5, N=67)]


@pytest.mark.parametrize("shape", NESTED_SHAPES, ids=[f"A{s['A']}B{s['B']}M{s['M']}N{s['N']}" for s in NESTED_SHAPES])
def test_nested_kernel_level_loops_carrying_a_tensor(tessel_bin, shape):
    """Issue 47 (hostile inputs on kernel-level loops): an inner kir.for taking the outer loop's carried
    tensor as its own carry was refused ('reads the carried tensor across positions (a reduction, scan
    or fold of it)', which it does not); it is elementwise along the same axes and now runs as a pgpu.for
    nest per position, against NumPy on the KIR and pgpu interpreters and Triton (TRITON_INTERPRET=1)."""
    rng = np.random.default_rng(shape["A"] * 11 + shape["B"] * 3 + shape["N"])
    x = rng.standard_normal((shape["A"], shape["B"], shape["M"], shape["N"])).astype(np.float32)
    d = rng.uniform(0.5, 0.99, size=shape["A"]).astype(np.float32)
    h = np.full((shape["M"], shape["N"]), 0.5)
    for a in range(shape["A"]):
        for b in range(min(a + 1, shape["B"])):
            h = h * 0.75 + x[a, b]
        h = h * np.float64(d[a])
    want = h - 1.0
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_tessel(tessel_bin, nested_steps, "kir", shape, {"x": x, "d": d}, tmp) / "y.npy")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg="kir")
        # The nested loops run once per element (one program each): no block parameter to bind.
        declared = '#pgpu.param<' in nested_steps.compile("pgpu")
        for params in bindings(nested_steps) if declared else [{}]:
            got = np.load(run_tessel(tessel_bin, nested_steps, "pgpu", shape, {"x": x, "d": d}, tmp, params)
                          / "y.npy")
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"pgpu {params}")
    import torch
    y = torch.full((shape["M"], shape["N"]), float("nan"))
    nested_steps(torch.from_numpy(x), torch.from_numpy(d), y)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-6, err_msg="triton")


def test_nested_loop_reducing_the_carry_is_refused():
    """The inner loop may take the carry only as its own carry: a reduction of it inside is refused."""
    @tessel.kernel
    def inner_sum(x: T.In[T.f32, ("A", "B", "N")], y: T.Out[T.f32, ("N",)]):
        A, B, N = x.shape
        cols = T.domain(0, N)
        h = T.zeros(cols)
        for a in T.domain(0, A):
            g = h * 2.0
            for b in T.domain(0, B):
                g = g + x[a, b, cols] * T.sum(h)
            h = g
        y[cols] = h

    with pytest.raises(tessel.CompileError, match="uses the carried tensor inside its region other than through"):
        inner_sum.source("triton")
