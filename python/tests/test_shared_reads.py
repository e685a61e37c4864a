"""Reads shared between loops and rounds (pgpu-fuse-contract-loops, pgpu-reuse-input-reads).

A sum of two contractions over one k range whose operands come from one read of a packed weight (the
second spelling of corpus 80, GPTQ int4: the low and high nibbles of a byte are the even and odd k) ran
as two K loops, each reading the weight: now one loop reads it once and takes both products. A staged row
reduced, stored and reduced again (corpus 15, top-k: each round stores its winner) read its row once per
round: now once. Differential: Triton under TRITON_INTERPRET=1 against the KIR interpreter on random
inputs at odd shapes (1, primes, extents that are no multiple of any tile or block) and several bindings
(one K block and many; the staged path and the blocked one). Must not fire: two contractions that share
no read keep their two loops."""
import math
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

GROUP = 4


@tessel.kernel
def nibble_gemm(x: T.In[T.f16, ("M", "K")], wq: T.In[T.i8, ("N", "KH")],
                scales: T.In[T.f16, ("N", "G")], zeros: T.In[T.i8, ("N", "G")],
                y: T.Out[T.f16, ("M", "N")]):
    M, K = x.shape
    N, KH = wq.shape
    rows, cols, pairs = T.domain(0, M), T.domain(0, N), T.domain(0, KH)
    j = T.indices(pairs)
    byte = T.cast(wq[cols, pairs], T.i32)
    g = (2 * j) // GROUP
    zero = T.cast(zeros[cols, g], T.i32) & 255
    sc = scales[cols, g]
    w_even = T.cast((byte & 15) - zero, T.f16) * sc
    w_odd = T.cast(((byte >> 4) & 15) - zero, T.f16) * sc
    acc = (T.matmul(x[rows, 2 * j], w_even, transpose_rhs=True)
           + T.matmul(x[rows, 2 * j + 1], w_odd, transpose_rhs=True))
    y[rows, cols] = T.cast(acc, T.f16)


@tessel.kernel
def two_weights(x: T.In[T.f16, ("M", "K")], a: T.In[T.f16, ("N", "K")], b: T.In[T.f16, ("N", "K")],
                e: T.In[T.f16, ("M", "K")], y: T.Out[T.f32, ("M", "N")]):
    M, K = x.shape
    N = a.shape[0]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    y[rows, cols] = (T.matmul(x[rows, ks], a[cols, ks], transpose_rhs=True)
                     + T.matmul(e[rows, ks], b[cols, ks], transpose_rhs=True))


TOPK = 3


@tessel.kernel
def topk_rows(x: T.In[T.f32, ("M", "N")], values: T.Out[T.f32, ("M", "K")],
              indices: T.Out[T.i64, ("M", "K")]):
    M, N = x.shape
    cols = T.domain(0, N)
    pos = T.indices(cols)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        for j in range(TOPK):
            v, i = T.argmax(row, axis=0, tie="lowest")
            values[m, j] = v
            indices[m, j] = T.cast(i, T.i64)
            row = T.where(pos == i, -math.inf, row)


def _kernel_body(src, name):
    start = src.index(f"def _{name}_kernel(")
    return src[start:src.index("\n\n\n", start)]


def test_nibble_products_share_one_k_loop():
    body = _kernel_body(nibble_gemm.source(), "nibble_gemm")
    assert body.count("tl.dot(") == 2
    assert body.count("tl.load(wq +") == 1  # the packed bytes read once a block, for both products
    assert sum(1 for l in body.split("\n") if l.strip().startswith("for ") and "range(0," in l) == 1


def test_must_not_fire_without_a_shared_read():
    body = _kernel_body(two_weights.source(), "two_weights")
    assert body.count("tl.dot(") == 2
    assert sum(1 for l in body.split("\n") if l.strip().startswith("for ") and "range(0," in l) == 2


def _nibble_inputs(m, n, kh, rng):
    g = -(-2 * kh // GROUP)
    return dict(x=rng.standard_normal((m, 2 * kh)).astype(np.float16),
                wq=rng.integers(-128, 128, (n, kh), dtype=np.int8),
                scales=rng.uniform(0.05, 0.2, (n, g)).astype(np.float16),
                zeros=rng.integers(1, 16, (n, g), dtype=np.int8))


NIBBLE_BINDINGS = [None, {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16}, {"TILE_0": 32, "TILE_1": 16, "TILE_K": 32}]


@pytest.mark.parametrize("m,n,kh", [(1, 1, 1), (3, 13, 37), (17, 5, 7)])
def test_nibble_gemm_agrees_with_the_interpreter(m, n, kh, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 100 + n * 10 + kh)
    inputs = _nibble_inputs(m, n, kh, rng)
    want = nibble_gemm.run_interp(shapes={}, inputs=inputs)["y"].astype(np.float64)
    for params in NIBBLE_BINDINGS:
        y = torch.full((m, n), float("nan"), dtype=torch.float16)
        args = [torch.from_numpy(v) for v in inputs.values()] + [y]
        if params is None:
            nibble_gemm(*args)
        else:
            nibble_gemm.launch(*args, params=params)
        np.testing.assert_allclose(y.double().numpy(), want, rtol=2e-2, atol=2e-2, err_msg=str(params))


@pytest.mark.parametrize("k", [1, 19])
def test_two_weights_agree_with_the_interpreter(k, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    m, n = 5, 7
    rng = np.random.default_rng(k)
    inputs = dict(x=rng.standard_normal((m, k)).astype(np.float16), a=rng.standard_normal((n, k)).astype(np.float16),
                  b=rng.standard_normal((n, k)).astype(np.float16), e=rng.standard_normal((m, k)).astype(np.float16))
    want = two_weights.run_interp(shapes={}, inputs=inputs)["y"]
    y = torch.full((m, n), float("nan"))
    two_weights(*[torch.from_numpy(v) for v in inputs.values()], y)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-2, atol=1e-2)


def test_topk_staged_row_is_read_once():
    src = topk_rows.source(params={"BLOCK": 128})
    body = _kernel_body(src, "topk_rows")
    start = body.index("    if _G0:")
    staged = body[start:body.index("\n    else:", start)]  # the staged branch (its own TMA switch inside)
    assert staged.count("tl.load(x +") == 1  # one read of the row for all TOPK rounds
    assert staged.count("_desc0.load(") <= 1


# Rows that fit one block (BLOCK 64 / 256: the staged path) and rows that do not (BLOCK 64 for 127 and
# 131: the blocked path), with several rows a program where the call packs them.
TOPK_BINDINGS = [None, {"BLOCK": 64}, {"BLOCK": 256}]


@pytest.mark.parametrize("m,n", [(1, 1), (3, 2), (29, 61), (5, 131)])
def test_topk_rows_agree_with_the_interpreter(m, n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 1000 + n)
    x = rng.standard_normal((m, n)).astype(np.float32)
    x[:, ::7] = x[:, :1]  # ties: the lowest index wins
    want = topk_rows.run_interp(shapes={"K": TOPK}, inputs=dict(x=x))
    for params in TOPK_BINDINGS:
        values = torch.full((m, TOPK), float("nan"))
        indices = torch.full((m, TOPK), -7, dtype=torch.int64)
        if params is None:
            topk_rows(torch.from_numpy(x), values, indices)
        else:
            topk_rows.launch(torch.from_numpy(x), values, indices, params=params)
        np.testing.assert_array_equal(values.numpy(), want["values"], err_msg=str(params))
        np.testing.assert_array_equal(indices.numpy(), want["indices"], err_msg=str(params))
