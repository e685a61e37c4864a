"""Rows that are blocks of a wider row (a per-(row, block) reduction: corpus 103's absmax quantization over
blocks of 128 columns). Each member (m, j) reduces x[m, W j : min(W j + W, N)], a slice of constant width W
clipped to the row: pgpu-form-blocking's BLOCK covers "W" (the call default binds the smallest block holding
W), and pgpu-pack-rows packs ROWS such members a program although its staged test 0 < n(m, j) <= BLOCK
depends on the member: the program takes the [ROWS, BLOCK] path when every member it owns passes, and runs
each member's own test (staged or blocked) in a loop otherwise (an empty block, NB past ceil(N / W)).
Differential: Triton under TRITON_INTERPRET=1 against the KIR interpreter on random inputs at odd shapes
(N = 1, 127, 129, 401; M = 1, 3, 37; a block count with an empty last block), at the call's defaults and at
bindings that take the packed path (BLOCK >= W), the per-member loop (BLOCK < W: blocked rows) and programs
that end past the last member."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

W = 128


@tessel.kernel
def block_absmax(x: T.In[T.f32, ("M", "N")], q: T.Out[T.f32, ("M", "N")], scale: T.Out[T.f32, ("M", "NB")]):
    M, N = x.shape
    NB = scale.shape[1]
    cols = T.domain(0, N)
    for m, j in T.parallel(T.domain(0, M), T.domain(0, NB)):
        lo = j * W
        blk = cols[lo:T.minimum(lo + W, N)]
        xb = x[m, blk]
        s = T.maximum(T.max(T.abs(xb)) / 127.0, 1e-12)
        scale[m, j] = s
        q[m, blk] = T.minimum(T.maximum(T.round(xb / s), -127.0), 127.0)


@tessel.kernel
def block_mean(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")], mean: T.Out[T.f32, ("M", "NB")]):
    M, N = x.shape
    NB = mean.shape[1]
    cols = T.domain(0, N)
    for m, j in T.parallel(T.domain(0, M), T.domain(0, NB)):
        lo = j * 32
        blk = cols[lo:T.minimum(lo + 32, N)]
        xb = x[m, blk]
        mu = T.sum(xb) / 32.0
        mean[m, j] = mu
        y[m, blk] = xb - mu


def _params(kernel):
    return next(line for line in kernel.source().split("\n") if "_PARAMS = {" in line)


def _covers(kernel):
    return next(line for line in kernel.source().split("\n") if "_COVERS = {" in line)


def test_blocks_of_constant_width_cover_it_and_pack():
    assert "'ROWS': ([1, 2, 4, 8, 16, 32, 64, 128], 1)" in _params(block_absmax)
    assert _covers(block_absmax).endswith("{'BLOCK': '128'}")
    assert _covers(block_mean).endswith("{'BLOCK': '32'}")


def test_call_defaults_take_row_tiles_of_the_block():
    x = torch.empty((8192, 7168), device="meta")
    got = block_absmax.call_defaults(x, x, torch.empty((8192, 56), device="meta"))
    # [32, 128] tiles (4096 elements): 14336 programs instead of 458752 programs of one block.
    assert got["BLOCK"] == 128 and got["ROWS"] == 32, got
    few = torch.empty((3, 401), device="meta")
    got = block_absmax.call_defaults(few, few, torch.empty((3, 4), device="meta"))
    assert got["BLOCK"] == 128 and got["ROWS"] == 1, got  # 12 members: a program each


# The call's defaults; the packed path with programs past the last member (ROWS 4, 16); BLOCK smaller
# than the block width (each member's blocked path, in the program's loop).
BINDINGS = [None, {"ROWS": 4, "BLOCK": 128}, {"ROWS": 16, "BLOCK": 256}, {"ROWS": 8, "BLOCK": 64}]


def _blocks(n, width, extra):
    return -(-n // width) + extra


@pytest.mark.parametrize("extra", [0, 1])  # 1: an empty last block (NB past ceil(N / W)), kept ragged
@pytest.mark.parametrize("n", [1, 127, 129, 401])
@pytest.mark.parametrize("m", [1, 3, 37])
def test_block_absmax_agrees_with_the_interpreter(m, n, extra, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    nb = _blocks(n, W, extra)
    rng = np.random.default_rng(m * 1000 + n * 10 + extra)
    x = (rng.standard_normal((m, n)) * rng.uniform(0.01, 10.0, (m, 1))).astype(np.float32)
    want = block_absmax.run_interp(shapes={"NB": nb}, inputs=dict(x=x))
    for params in BINDINGS:
        q, scale = torch.full((m, n), float("nan")), torch.full((m, nb), float("nan"))
        args = (torch.from_numpy(x), q, scale)
        if params is None:
            block_absmax(*args)
        else:
            block_absmax.launch(*args, params=params)
        np.testing.assert_array_equal(scale.numpy(), want["scale"], err_msg=str(params))
        np.testing.assert_array_equal(q.numpy(), want["q"], err_msg=str(params))


@pytest.mark.parametrize("extra", [0, 2])
@pytest.mark.parametrize("m,n", [(1, 1), (5, 31), (13, 33), (37, 97)])
def test_block_mean_agrees_with_the_interpreter(m, n, extra, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    nb = _blocks(n, 32, extra)
    rng = np.random.default_rng(m * 100 + n + extra)
    x = rng.standard_normal((m, n)).astype(np.float32)
    want = block_mean.run_interp(shapes={"NB": nb}, inputs=dict(x=x))
    for params in [None, {"ROWS": 8, "BLOCK": 64}, {"ROWS": 2, "BLOCK": 64}]:
        y, mean = torch.full((m, n), float("nan")), torch.full((m, nb), float("nan"))
        args = (torch.from_numpy(x), y, mean)
        if params is None:
            block_mean(*args)
        else:
            block_mean.launch(*args, params=params)
        np.testing.assert_allclose(mean.numpy(), want["mean"], rtol=1e-5, atol=1e-6, err_msg=str(params))
        np.testing.assert_allclose(y.numpy(), want["y"], rtol=1e-5, atol=1e-6, err_msg=str(params))


def test_corpus_block_absmax_quant_packed_bindings(tmp_path, monkeypatch):
    """corpus 103 itself (bf16 in, int8 and f32 out) at its bench binding's ROWS and BLOCK (and a blocked
    one), exact against its NumPy reference: round half to even, the ragged last block."""
    import sys
    import pathlib
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    corpus = pathlib.Path(__file__).resolve().parents[2] / "bench" / "corpus"
    sys.path.insert(0, str(corpus))
    try:
        import _harness as H
    finally:
        sys.path.remove(str(corpus))
    mod = H.load("103_block_absmax_quant")
    for shape in [dict(M=5, N=401, NB=4), dict(M=37, N=256, NB=2)]:
        inp = H.draw(mod, shape, 7)
        want = H.expected(mod, inp)
        for params in [{"ROWS": 32, "BLOCK": 128, "WARPS": 4}, {"ROWS": 8, "BLOCK": 64}]:
            x = torch.from_numpy(inp["x"]).to(torch.bfloat16)
            q = torch.full((shape["M"], shape["N"]), 99, dtype=torch.int8)
            s = torch.full((shape["M"], shape["NB"]), float("nan"))
            mod.KERNEL.launch(x, q, s, params=params)
            np.testing.assert_array_equal(s.numpy(), want["scale"].astype(np.float32), err_msg=str(params))
            np.testing.assert_array_equal(q.numpy(), want["q"], err_msg=str(params))
