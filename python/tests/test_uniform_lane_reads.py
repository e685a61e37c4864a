"""A K loop's read whose lane coordinate is k // G is one value a row per trip (UniformLaneReads.cpp, a
pgpu-reuse-input-reads helper).

Group-quantized weights (corpus 80, GPTQ int4: scales[n, k // 128] and zeros[n, k // 128] in the K loop)
read a [TILE_1, TILE_K] tile of the same TILE_1 values each trip, one scalar load per lane. When every
TILE_K candidate divides G, a trip's lanes lie in one group: the read becomes a [TILE_1] vector at
iv // G broadcast along the lanes. Differential: Triton under TRITON_INTERPRET=1 against the KIR
interpreter on random inputs at odd shapes (M, N 1 and primes; K one group, several, and a partial last
group) and several TILE_K bindings (one trip a group, several trips a group). Must not fire: a group
some TILE_K candidate does not divide (G = 32 against TILE_K 64 and 128) keeps the [TILE_1, TILE_K] read."""
import os
import re

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import launch_agrees, split_k_branches  # noqa: E402


def _grouped(group):
    @tessel.kernel
    def grouped(x: T.In[T.f16, ("M", "K")], w: T.In[T.i8, ("N", "K")], scales: T.In[T.f16, ("N", "G")],
                zeros: T.In[T.i8, ("N", "G")], y: T.Out[T.f32, ("M", "N")]):
        M, K = x.shape
        N = w.shape[0]
        rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
        k = T.indices(ks)
        g = k // group
        wf = T.cast(T.cast(w[cols, ks], T.i32) - T.cast(zeros[cols, g], T.i32), T.f16) * scales[cols, g]
        y[rows, cols] = T.matmul(x[rows, ks], wf, transpose_rhs=True)
    return grouped


G128 = _grouped(128)
G32 = _grouped(32)


def _kernel_body(src, name):
    start = src.index(f"def _{name}_kernel(")
    return src[start:src.index("\n\n\n", start)]


def _group_coordinate(body, view):
    """The definition of the group coordinate (second coordinate) of the read of `view`."""
    line = next(l for l in body.split("\n") if f"tl.load({view} +" in l)
    var = re.search(rf"\((v\d+)\) \* {view}_stride1", line).group(1)
    return next(l.strip() for l in body.split("\n") if l.strip().startswith(f"{var} = "))


def test_group_scales_are_read_once_a_trip():
    body = _kernel_body(G128.source(), "grouped")
    unsplit, split = split_k_branches(body)
    assert split is not None  # the chunk's loop too: each trip starts at a multiple of TILE_K
    for branch in (unsplit, split):
        for view in ("scales", "zeros"):
            assert re.fullmatch(r"v\d+ = v\d+ // 128", _group_coordinate(branch, view)), view  # iv // 128, a scalar


def test_must_not_fire_when_a_trip_may_cross_a_group():
    """A trip may span two groups of 32: no scalar group coordinate a trip (the uniform read does not fire);
    the Triton serializer reads the trip's groups as one run ([rows, P/32] values, repeated in registers)."""
    body = _kernel_body(G32.source(), "grouped")
    for branch in filter(None, split_k_branches(body)):
        for view in ("scales", "zeros"):
            line = next(l for l in branch.split("\n") if f"tl.load({view} +" in l)
            assert "_runs = " in line and re.search(r"tl\.arange\(0, \d+\) \+ v\d+ // 32", line), view


def _inputs(m, n, k, group, rng):
    g = -(-k // group)
    return dict(x=rng.standard_normal((m, k)).astype(np.float16),
                w=rng.integers(0, 16, (n, k), dtype=np.int8),
                scales=rng.uniform(0.05, 0.2, (n, g)).astype(np.float16),
                zeros=rng.integers(0, 16, (n, g), dtype=np.int8))


BINDINGS = [None, {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16}, {"TILE_0": 16, "TILE_1": 32, "TILE_K": 64},
            {"TILE_0": 32, "TILE_1": 16, "TILE_K": 128},
            # the split branch (pgpu-split-contractions): k 384 is 24 trips of 16 in 4 chunks of 6, k 200 13
            # trips (a last chunk of 1), k 1 one chunk; trips of 64: k 200 in 2 chunks of 2 (the last partial)
            {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "SPLIT_K": 4},
            {"TILE_0": 16, "TILE_1": 16, "TILE_K": 64, "SPLIT_K": 2}]


@pytest.mark.parametrize("kernel,group", [(G128, 128), (G32, 32)])
@pytest.mark.parametrize("m,n,k", [(1, 1, 128), (3, 7, 384), (5, 13, 200), (2, 3, 1)])
def test_grouped_gemm_agrees_with_the_interpreter(kernel, group, m, n, k, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 1000 + n * 10 + k + group)
    inputs = _inputs(m, n, k, group, rng)
    want = kernel.run_interp(shapes={}, inputs=inputs)["y"]
    launch_agrees(kernel, inputs, (m, n), want, BINDINGS, rtol=2e-2, atol=2e-2)
