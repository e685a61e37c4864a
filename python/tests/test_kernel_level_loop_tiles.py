"""A kernel-level runtime `for` carrying tensors, its body pure tensor math with a contraction, runs once
per output tile (pgpu-form-tiles' analyzeLoop / tileLoop; issues 41, 44): the block-scaled GEMM spelling of
bench/corpus/185 (`acc = acc + T.matmul(a[rows, kk], b[cols, kk], transpose_rhs=True) * sa[rows, kb] *
sb[cols // BN, kb]` over K blocks) carries a [TILE_0, TILE_1] accumulator; each trip's block product is a
tile product from a fresh zero tile, then scaled and added, in the source's order.

A block of constant width w <= 128 (`ks[kb * w:kb * w + w]`) is one block of lanes covering it: the trip's
product is one tile product (no K loop in the trip; the author loop is the innermost, which a provider
pipelines); a wider block is a K loop of TILE_K steps.

Differential at odd shapes (M, N of 1, primes, not multiples of any tile; KB = 0 and 1 trips; blocks of
40 (covered by one block of 64) and 136 (a K loop whose last step is partial), a scale block BN = 7),
f16 and FP8 (e4m3) operands, a loop carrying two accumulators (a scaled sum and a running maximum of
the same block products), and a loop that only sums the block products (they accumulate into the
carried tile), on random inputs, against a float64 NumPy reference with the same per-block grouping,
the KIR interpreter, the pgpu interpreter after the whole shared pipeline (shuffled order, two tile
bindings) and the generated Triton under TRITON_INTERPRET=1.
"""
import os
import re

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import run_stage  # noqa: E402

BW = 40     # K members per block: one block of 64 lanes covers it, and no TILE_K candidate divides it
WIDE = 136  # wider than one block (128): each block a K loop of TILE_K steps, its last one partial
BN = 7      # columns per scale block of b


def block_scaled(dtype, BW):
    @tessel.kernel
    def block_scaled_gemm(a: T.In[dtype, ("M", "K")], b: T.In[dtype, ("N", "K")],
                          sa: T.In[T.f32, ("M", "KB")], sb: T.In[T.f32, ("NB", "KB")],
                          out: T.Out[T.f32, ("M", "N")]):
        M, K = a.shape
        N = b.shape[0]
        KB = sa.shape[1]
        rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
        col_blk = T.indices(cols) // BN
        acc = T.full((rows, cols), 0.0, T.f32)
        for kb in T.domain(0, KB):
            kk = ks[kb * BW:kb * BW + BW]
            part = T.matmul(a[rows, kk], b[cols, kk], transpose_rhs=True, acc_dtype=T.f32)
            acc = acc + part * sa[rows, kb] * sb[col_blk, kb]
        out[rows, cols] = acc
    return block_scaled_gemm


def two_carries(BW):
    @tessel.kernel
    def two_carries(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("N", "K")], sa: T.In[T.f32, ("M", "KB")],
                    sb: T.In[T.f32, ("NB", "KB")], out: T.Out[T.f32, ("M", "N")]):
        """Two accumulators over one loop: a scaled sum of the block products and their running maximum."""
        M, K = a.shape
        N = b.shape[0]
        KB = sa.shape[1]
        rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
        acc = T.full((rows, cols), 0.0, T.f32)
        big = T.full((rows, cols), -1.0e30, T.f32)
        for kb in T.domain(0, KB):
            kk = ks[kb * BW:kb * BW + BW]
            part = T.matmul(a[rows, kk], b[cols, kk], transpose_rhs=True, acc_dtype=T.f32)
            acc = acc + part * sa[rows, kb]
            big = T.maximum(big, part)
        out[rows, cols] = acc + big * 0.5
    return two_carries


def carried_sum(BW):
    @tessel.kernel
    def carried_sum(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("N", "K")], sa: T.In[T.f32, ("M", "KB")],
                    sb: T.In[T.f32, ("NB", "KB")], out: T.Out[T.f32, ("M", "N")]):
        """Only a sum of the block products: each block's tile products accumulate into the carried tile."""
        M, K = a.shape
        N = b.shape[0]
        KB = sa.shape[1]
        rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
        acc = T.full((rows, cols), 0.0, T.f32)
        for kb in T.domain(0, KB):
            kk = ks[kb * BW:kb * BW + BW]
            acc = acc + T.matmul(a[rows, kk], b[cols, kk], transpose_rhs=True, acc_dtype=T.f32)
        out[rows, cols] = acc
    return carried_sum


# kind: (kernel, operand dtype, block width, what the trip computes)
CASES = {"f16": (block_scaled(T.f16, BW), torch.float16, BW, "scaled"),
         "e4m3": (block_scaled(T.f8e4m3, BW), torch.float8_e4m3fn, BW, "scaled"),
         "f16_wide": (block_scaled(T.f16, WIDE), torch.float16, WIDE, "scaled"),
         "e4m3_wide": (block_scaled(T.f8e4m3, WIDE), torch.float8_e4m3fn, WIDE, "scaled"),
         "two": (two_carries(BW), torch.float16, BW, "two"),
         "sum": (carried_sum(BW), torch.float16, BW, "sum"),
         "sum_wide": (carried_sum(WIDE), torch.float16, WIDE, "sum")}


def draw(kind, M, N, KB, seed):
    g = torch.Generator().manual_seed(seed)
    _, dtype, width, _ = CASES[kind]
    K, NB = KB * width, -(-N // BN)
    a = (torch.randn((M, K), generator=g) * 2).to(dtype)
    b = (torch.randn((N, K), generator=g) * 2).to(dtype)
    sa = torch.rand((M, KB), generator=g) * 0.1 + 0.01
    sb = torch.rand((NB, KB), generator=g) * 0.1 + 0.01
    return dict(a=a, b=b, sa=sa, sb=sb)


def reference(kind, a, b, sa, sb):
    _, _, BW, what = CASES[kind]
    a, b, sa, sb = (t.double().numpy() for t in (a, b, sa, sb))
    M, N, KB = a.shape[0], b.shape[0], sa.shape[1]
    acc = np.zeros((M, N))
    big = np.full((M, N), -1.0e30)
    for kb in range(KB):
        blk = slice(kb * BW, (kb + 1) * BW)
        part = a[:, blk] @ b[:, blk].T
        if what == "two":
            acc += part * sa[:, kb][:, None]
            big = np.maximum(big, part)
        elif what == "sum":
            acc += part
        else:
            acc += part * sa[:, kb][:, None] * sb[np.arange(N) // BN, kb][None, :]
    return acc + big * 0.5 if what == "two" else acc


def close(got, want, what):
    scale = np.abs(want).max() if want.size else 0.0
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * (scale + 1.0), err_msg=what)


def run_tessel(tessel_bin, kernel, stage, shape, inputs, tmp, params=None):
    """The kernel's `out` on a `tessel run` stage, its torch inputs saved as f32."""
    inputs = {k: v.float().numpy() for k, v in inputs.items()}
    return np.load(run_stage(tessel_bin, kernel, stage, shape, inputs, tmp, params) / "out.npy")


# (M, N, KB): trips 0 and 1, extents of 1, primes, none a multiple of any tile candidate
SHAPES = [(1, 1, 0), (1, 1, 1), (3, 7, 2), (37, 11, 1), (17, 67, 3), (130, 19, 2)]
BINDINGS = [{"TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "GROUP_0": 2},
            {"TILE_0": 32, "TILE_1": 64, "TILE_K": 32, "GROUP_0": 1, "PERSIST": 2}]


@pytest.mark.parametrize("kind", list(CASES))
def test_the_loop_carries_tiles(kind):
    """The whole pipeline's program: one loop over the blocks per tile carrying fragments, each block a
    tile product of the narrow operands (no per-element loop is left): one block of lanes covering a block
    of 40 (TILE_<k> = 64, no K loop in the trip: the author loop is the innermost), a K loop of TILE_K
    steps for a block of 136. A sum only accumulates into the carried tile."""
    kernel, dtype, width, what = CASES[kind]
    src = kernel.compile("pgpu")
    narrow = {torch.float16: "f16", torch.float8_e4m3fn: "f8E4M3FN"}[dtype]
    if width == WIDE:
        assert '#pgpu.param<"TILE_K"' in src
        k = "TILE_K"
    else:
        k = re.search(r'#pgpu.param<"(TILE_\d+)", \[64\], 64, covers = "40">', src).group(1)
    assert f"!pgpu.fragment<{narrow}, [TILE_0, {k}]>, !pgpu.fragment<{narrow}, [{k}, TILE_1]>" in src
    carries = 2 if what == "two" else 1
    tile = "!pgpu.fragment<f32, [TILE_0, TILE_1]>"
    lines = src.splitlines()
    loops = [line for line in lines if "pgpu.for %c0 to" in line and "step %c1 iter_args" in line]
    assert len(loops) == 1 and loops[0].count(tile) == 2 * carries, loops
    at = lines.index(loops[0])
    carry = re.match(r"\s*\^bb0\(%\w+: index, (%\w+):", lines[at + 1]).group(1)
    trip = lines[at + 2:]
    contract = next(i for i, line in enumerate(trip) if "pgpu.contract" in line)
    inner = [line for line in trip[:contract] if "pgpu.for" in line]
    if width == WIDE:
        assert inner and (f"iter_args({carry} :" in inner[0]) == (what == "sum"), inner
    else:
        assert not inner and (f", {carry} reduce(" in trip[contract]) == (what == "sum"), trip[contract]


@pytest.mark.parametrize("kind", list(CASES))
@pytest.mark.parametrize("M,N,KB", SHAPES, ids=[f"M{m}N{n}KB{kb}" for m, n, kb in SHAPES])
def test_matches_kir_and_pgpu(tessel_bin, tmp_path, kind, M, N, KB):
    inputs = draw(kind, M, N, KB, seed=M * 31 + N * 7 + KB)
    want = reference(kind, **inputs)
    kernel, _, width, _ = CASES[kind]
    shape = dict(M=M, N=N, K=KB * width, KB=KB, NB=-(-N // BN))
    close(run_tessel(tessel_bin, kernel, "kir", shape, inputs, tmp_path), want, "kir")
    for params in BINDINGS:
        if width != WIDE:
            params = {k: v for k, v in params.items() if k != "TILE_K"}  # one block covers each trip's slice
        got = run_tessel(tessel_bin, kernel, "pgpu", shape, inputs, tmp_path, params)
        close(got, want, f"pgpu {params}")


@pytest.mark.parametrize("kind", list(CASES))
@pytest.mark.parametrize("M,N,KB", [(1, 1, 0), (3, 7, 2), (37, 11, 1), (17, 67, 3)],
                         ids=lambda v: str(v))
def test_through_triton(tmp_path, monkeypatch, kind, M, N, KB):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    inputs = draw(kind, M, N, KB, seed=M * 5 + N + KB * 3)
    out = torch.full((M, N), float("nan"))
    CASES[kind][0](inputs["a"], inputs["b"], inputs["sa"], inputs["sb"], out)
    close(out.numpy(), reference(kind, **inputs), "triton")
