"""A read whose last coordinate is k // 2 over a K loop's lanes reads each element twice (packed 4-bit
pairs: corpus 80's wq[n, k // 2]; a RoPE table's cos[s, d // 2]). The Triton serializer loads the pairs
once and repeats them in registers (PairedLaneReads.h: tl.join + tl.reshape), selecting the fill at the
odd lane past a lane bound. Differential: Triton under TRITON_INTERPRET=1 against the KIR interpreter on
random inputs at odd shapes (K odd, so the last byte's high nibble lies past the bound; 1; primes; 0
rows) and several bindings (TILE_K 16, 64, 128; the split-K branch, whose chunks start at multiples of
TILE_K). k // 2 on the view's outer axis (corpus 57's wq[k // 2, n]) reads each byte row once too.
Runs: a coordinate (s * k) // G, s dividing G, is one element for each run of G / s lanes (k // 4 of 2-bit
values; corpus 80_b's zero points zeros[n, (2 * j) // G] over the byte axis j): read once a run and
repeated (broadcast + reshape), where the run and the trip divide one another."""
import os
import re

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import launch_agrees, split_k_branches  # noqa: E402


@tessel.kernel
def nibbles(x: T.In[T.f16, ("M", "K")], wq: T.In[T.i8, ("N", "KH")], scales: T.In[T.f16, ("N",)],
            y: T.Out[T.f32, ("M", "N")]):
    M, K = x.shape
    N = wq.shape[0]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    k = T.indices(ks)
    byte = T.cast(wq[cols, k // 2], T.i32)
    nib = (byte >> T.cast(4 * (k % 2), T.i32)) & 15
    w = T.cast(nib - 8, T.f16) * scales[cols]
    y[rows, cols] = T.matmul(x[rows, ks], w, transpose_rhs=True)


@tessel.kernel
def crumbs(x: T.In[T.f16, ("M", "K")], wq: T.In[T.i8, ("N", "KQ")], y: T.Out[T.f32, ("M", "N")]):
    M, K = x.shape
    N = wq.shape[0]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    k = T.indices(ks)
    bits = (T.cast(wq[cols, k // 4], T.i32) >> T.cast(2 * (k % 4), T.i32)) & 3
    y[rows, cols] = T.matmul(x[rows, ks], T.cast(bits - 2, T.f16), transpose_rhs=True)


@tessel.kernel
def rows_packed(x: T.In[T.f16, ("M", "K")], wq: T.In[T.i8, ("KH", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, K = x.shape
    N = wq.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    k = T.indices(ks)
    nib = (T.cast(wq[k // 2, cols], T.i32) >> T.cast(4 * (k % 2), T.i32)) & 15
    y[rows, cols] = T.matmul(x[rows, ks], T.cast(nib - 8, T.f16))


def _kernel_body(src, name):
    start = src.index(f"def _{name}_kernel(")
    return src[start:src.index("\n\n\n", start)]


def test_packed_pairs_are_read_once():
    body = _kernel_body(nibbles.source(), "nibbles")
    unsplit, split = split_k_branches(body)
    assert split is not None
    for branch in (unsplit, split):
        pairs = [l.strip() for l in branch.split("\n") if "_pairs = tl.load(wq +" in l]
        assert len(pairs) == 1, branch
        assert re.search(r"\(tl.arange\(0, 32\) \+ v\d+ // 2\)\[None, :\], \[\d+, 32\]\)", pairs[0])  # TILE_K 64
        assert "tl.reshape(tl.join(" in branch
        # the lane bound k < K over the pairs: a unit-stride run against K - K // 2 (ceil(K / 2)), which
        # Triton's axis analysis proves constant over aligned runs (the read vectorizes and pipelines)
        assert re.search(r"\(tl.arange\(0, 32\) \+ v\d+ // 2\) < \(\((v\d+)\) - \(\1\) // 2\)", pairs[0]), pairs[0]
        assert "* 2 +" not in pairs[0]


@tessel.kernel
def byte_groups(x: T.In[T.f16, ("M", "K")], wq: T.In[T.i8, ("N", "KH")], zeros: T.In[T.i8, ("N", "G")],
                y: T.Out[T.f32, ("M", "N")]):
    """80_b's spelling at a small group (32 k, 16 bytes): even and odd k two products over the byte axis."""
    M, K = x.shape
    N, KH = wq.shape
    rows, cols, pairs = T.domain(0, M), T.domain(0, N), T.domain(0, KH)
    j = T.indices(pairs)
    byte = T.cast(wq[cols, pairs], T.i32)
    zero = T.cast(zeros[cols, (2 * j) // 32], T.i32)
    w_even = T.cast((byte & 15) - zero, T.f16)
    w_odd = T.cast(((byte >> 4) & 15) - zero, T.f16)
    y[rows, cols] = (T.matmul(x[rows, 2 * j], w_even, transpose_rhs=True)
                     + T.matmul(x[rows, 2 * j + 1], w_odd, transpose_rhs=True))


@tessel.kernel
def evens(x: T.In[T.f16, ("M", "K")], w: T.In[T.f16, ("N", "KH")], y: T.Out[T.f32, ("M", "N")]):
    """x's even columns only, KH = ceil(K / 2): at K odd the last lane's odd column is past x's extent."""
    M = x.shape[0]
    N, KH = w.shape
    rows, cols, pairs = T.domain(0, M), T.domain(0, N), T.domain(0, KH)
    j = T.indices(pairs)
    y[rows, cols] = T.matmul(x[rows, 2 * j], w[cols, pairs], transpose_rhs=True)


def test_must_not_fire():
    assert "_pairs = " not in crumbs.source()


@tessel.kernel
def rows_grouped(x: T.In[T.f16, ("M", "K")], wq: T.In[T.i8, ("KH", "N")], scales: T.In[T.f16, ("NG", "N")],
                 zeros: T.In[T.f16, ("NG", "N")], y: T.Out[T.f32, ("M", "N")]):
    """Corpus 57's spelling at group 32: bytes along K (the view's outer axis), group zeros and scales."""
    M, K = x.shape
    N = wq.shape[1]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    k = T.indices(ks)
    nib = (wq[k // 2, cols] >> (T.cast(k % 2, T.i8) * 4)) & 0xF
    g = k // 32
    w = (T.cast(nib, T.f16) - zeros[g, cols]) * scales[g, cols]
    y[rows, cols] = T.matmul(x[rows, ks], w)


def test_outer_pairs_are_read_per_lane():
    """wq[k // 2, n]: k / 2 on the view's outer axis is not read as pairs (the join across the tile's slow
    axis is a layout conversion a tile: corpus 57 ran 1.65x slower so on an H100); each byte row is read
    per lane (a repeated, cached vector read), and the dequantized weight, zeroed past K before the
    contraction, is the K loop's one tl.where a trip."""
    for kernel, name in ((rows_packed, "rows_packed"), (rows_grouped, "rows_grouped")):
        body = _kernel_body(kernel.source(params={"TILE_0": 16, "TILE_1": 32, "TILE_K": 64}), name)
        unsplit, split = split_k_branches(body)
        for branch in (unsplit, split) if split is not None else (unsplit,):
            assert "_pairs" not in branch and "tl.join" not in branch, branch
            assert len([l for l in branch.split("\n") if "= tl.load(wq + (v" in l]) == 1, branch
            if kernel is rows_grouped:  # the K loop's tile selects (the preamble's scalar ones aside)
                assert len(re.findall(r"= tl\.where\(v\d+, v\d+, v\d+\)\n", branch)) == 1, branch


def test_runs_are_read_once():
    """At TILE_K 64 bytes a trip: (2 * j) // 32 is 4 values, each over 16 lanes; k // 4 of 2-bit values at
    TILE_K 64: 16 values over 4 lanes."""
    body = _kernel_body(byte_groups.source(params={"TILE_0": 16, "TILE_1": 16, "TILE_K": 64}), "byte_groups")
    runs = [l.strip() for l in body.split("\n") if "_runs = tl.load(zeros +" in l]
    assert runs and all("(tl.arange(0, 4) + v" in r and " // 16)" in r for r in runs), body
    assert "tl.broadcast_to(" in body and "_runs[:, :, None], [16, 4, 16]), [16, 64])" in body
    body = _kernel_body(crumbs.source(params={"TILE_0": 16, "TILE_1": 16, "TILE_K": 64}), "crumbs")
    assert "_runs[:, :, None], [16, 16, 4]), [16, 64])" in body, body


def test_even_and_odd_columns_are_one_run():
    """x[rows, 2 * j] and x[rows, 2 * j + 1]: the contiguous run 2 * iv + [0, 2 TILE_K), masked by x's
    extent too, split into even and odd columns (InterleavedLaneRead)."""
    body = _kernel_body(byte_groups.source(params={"TILE_0": 16, "TILE_1": 16, "TILE_K": 64}), "byte_groups")
    runs = [l.strip() for l in body.split("\n") if "_run = tl.load(x +" in l]
    assert len(runs) >= 2 and all("(tl.arange(0, 128) + 2 * v" in r and "< _extent_K)" in r for r in runs), body
    assert re.search(r"(v\d+) = \1_even\n", body) and re.search(r"(v\d+) = \1_odd\n", body), body
    assert " * 2 + " not in body and "x + (v" not in body  # no stride-2 read of x is left


def _inputs(kernel, m, n, k, rng):
    x = rng.standard_normal((m, k)).astype(np.float16)
    if kernel is nibbles:
        return dict(x=x, wq=rng.integers(-128, 128, (n, (k + 1) // 2), dtype=np.int8),
                    scales=rng.uniform(0.05, 0.2, (n,)).astype(np.float16))
    if kernel is crumbs:
        return dict(x=x, wq=rng.integers(-128, 128, (n, (k + 3) // 4), dtype=np.int8))
    if kernel is byte_groups:  # k counts bytes here (K = 2 k)
        return dict(x=rng.standard_normal((m, 2 * k)).astype(np.float16),
                    wq=rng.integers(-128, 128, (n, k), dtype=np.int8),
                    zeros=rng.integers(0, 16, (n, (2 * k + 31) // 32), dtype=np.int8))
    if kernel is rows_grouped:
        return dict(x=x, wq=rng.integers(-128, 128, ((k + 1) // 2, n), dtype=np.int8),
                    scales=rng.uniform(0.05, 0.2, ((k + 31) // 32, n)).astype(np.float16),
                    zeros=rng.integers(0, 16, ((k + 31) // 32, n)).astype(np.float16))
    return dict(x=x, wq=rng.integers(-128, 128, ((k + 1) // 2, n), dtype=np.int8))


BINDINGS = [None, {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16}, {"TILE_0": 16, "TILE_1": 32, "TILE_K": 64},
            {"TILE_0": 32, "TILE_1": 16, "TILE_K": 128},
            # the split branch: k 257 is 17 trips of 16 in 4 chunks (the last partial, its last byte's
            # high nibble past K); trips of 64 in 2 chunks
            {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "SPLIT_K": 4},
            {"TILE_0": 16, "TILE_1": 16, "TILE_K": 64, "SPLIT_K": 2}]


@pytest.mark.parametrize("kernel", [nibbles, crumbs, rows_packed, rows_grouped])
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (1, 1, 2), (3, 7, 131), (5, 13, 257), (2, 3, 64), (0, 3, 5)])
def test_packed_gemm_agrees_with_the_interpreter(kernel, m, n, k, tmp_path, monkeypatch):
    if kernel is rows_grouped and k in (2, 64) and not os.environ.get("TESSEL_DEEP"):
        pytest.skip("deep tier: rows_grouped at k 2 and 64 (k 1, 131, 257 and 5 run the same reads)")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    inputs = _inputs(kernel, m, n, k, rng)
    want = kernel.run_interp(shapes={}, inputs=inputs)["y"]
    launch_agrees(kernel, inputs, (m, n), want, BINDINGS, rtol=2e-2, atol=2e-2)


@tessel.kernel
def scaled_rows(x: T.In[T.f32, ("R", "D")], c: T.In[T.f32, ("R", "D2")], y: T.Out[T.f32, ("R", "D")]):
    """A row's norm, then each lane scaled by its pair's table entry (163_qk_rmsnorm_rope_b's cos[s, d // 2]):
    rank-1 lanes of the row's walk."""
    R, D = x.shape
    dims = T.domain(0, D)
    d = T.indices(dims)
    for r in T.parallel(T.domain(0, R)):
        xv = x[r, dims]
        inv = T.rsqrt(T.sum(xv * xv) / T.cast(D, T.f32) + 1.0)
        y[r, dims] = xv * inv * c[r, d // 2] + T.cast(d % 2, T.f32)


RUN_BINDINGS = [None, {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16}, {"TILE_0": 16, "TILE_1": 32, "TILE_K": 64},
                {"TILE_0": 32, "TILE_1": 16, "TILE_K": 128}]


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (3, 7, 131), (2, 5, 64), (0, 3, 5)])
def test_byte_groups_agree_with_the_interpreter(m, n, k, tmp_path, monkeypatch):
    """Runs of 16 byte lanes at TILE_K 16 (one a trip), 64 (4) and 128 (8), KH odd: the last run partial."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    inputs = _inputs(byte_groups, m, n, k, rng)
    want = byte_groups.run_interp(shapes={}, inputs=inputs)["y"]
    launch_agrees(byte_groups, inputs, (m, n), want, RUN_BINDINGS, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (3, 5, 131), (2, 3, 64), (0, 3, 5)])
def test_evens_agree_with_the_interpreter(m, n, k, tmp_path, monkeypatch):
    """K odd: the run's last odd column lies past x (masked by its extent)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    inputs = dict(x=rng.standard_normal((m, k)).astype(np.float16),
                  w=rng.standard_normal((n, (k + 1) // 2)).astype(np.float16))
    want = evens.run_interp(shapes={}, inputs=inputs)["y"]
    launch_agrees(evens, inputs, (m, n), want, RUN_BINDINGS[:3], rtol=2e-2, atol=2e-2)


def test_table_pairs_are_read_once():
    body = _kernel_body(scaled_rows.source(), "scaled_rows")
    pairs = [l.strip() for l in body.split("\n") if "_pairs = tl.load(c +" in l]
    assert pairs and all(re.search(r"tl.arange\(0, \d+\) \+ v\d+ // 2\)", p) for p in pairs), body


@pytest.mark.parametrize("r,d", [(1, 1), (1, 2), (3, 131), (2, 1030), (0, 4), (5, 4099)])
@pytest.mark.parametrize("params", [None, {"BLOCK": 64}, {"BLOCK": 256}])
def test_table_rows_agree_with_the_interpreter(r, d, params, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(r * 10000 + d)
    inputs = dict(x=rng.standard_normal((r, d)).astype(np.float32),
                  c=rng.standard_normal((r, (d + 1) // 2)).astype(np.float32))
    want = scaled_rows.run_interp(shapes={}, inputs=inputs)["y"]
    launch_agrees(scaled_rows, inputs, (r, d), want, [params], rtol=1e-5, atol=1e-5)
