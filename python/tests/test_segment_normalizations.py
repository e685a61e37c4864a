"""pgpu-interchange-invariant-walks on per-segment normalizations over CSR offsets: graph g owns the rows
ptr[g] .. ptr[g+1]-1 and its rows are written normalized by per-column statistics over the segment
(GraphNorm: `out[mine, feats] = (xs - mean) * rsqrt(var + eps)`). Construction walks the rows outside and
the columns inside and computes each column's statistics again for every row of its segment (O(rows^2) a
segment); after the pass the columns are outside, the statistics once per column, and the rows' walk and
the statistics are [BLOCK_R, BLOCK_C] tiles, one program per (segment, column block).

Differential: at segment sizes 0 (empty segments), 1, primes and non-multiples of every block, the pgpu
interpreter (several BLOCK_R x BLOCK_C bindings) and the generated Triton under TRITON_INTERPRET=1
compute what the KIR interpreter and a NumPy reference compute.
"""
import os
import re

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T

from interp_cli import interpreters_agree, realize_folds


@tessel.kernel
def segment_norm(x: T.In[T.f32, ("N", "F")], ptr: T.In[T.i64, ("G1",)], w: T.In[T.f32, ("F",)],
                 out: T.Out[T.f32, ("N", "F")]):
    """The segment count from ptr's extent (G1 - 1), no scalar."""
    N, F = x.shape
    G1 = ptr.shape[0]
    nodes, feats = T.domain(0, N), T.domain(0, F)
    for g in T.parallel(T.domain(0, G1 - 1)):
        lo, hi = ptr[g], ptr[g + 1]
        mine = nodes[lo:hi]
        cnt = T.maximum(T.cast(hi - lo, T.f32), 1.0)
        xs = x[mine, feats]
        c = xs - T.sum(xs, axis=0) / cnt
        out[mine, feats] = w[feats] * c * T.rsqrt(T.sum(c * c, axis=0) / cnt + 1e-5)


def draw(shape, i):
    rng = np.random.default_rng(7 + i)
    n, g = shape["N"], shape["G1"] - 1
    cuts = np.sort(rng.integers(0, n + 1, size=g - 1))
    ptr = np.concatenate([[0], cuts, [n]]).astype(np.int64)  # sizes 0 included where cuts repeat
    return {"x": (rng.standard_normal((n, shape["F"])) * 2 + 0.5).astype(np.float32), "ptr": ptr,
            "w": rng.standard_normal(shape["F"]).astype(np.float32)}


def reference(inp):
    x, ptr, w = inp["x"].astype(np.float64), inp["ptr"], inp["w"].astype(np.float64)
    out = np.zeros_like(x)
    for g in range(len(ptr) - 1):
        xs = x[ptr[g]:ptr[g + 1]]
        if len(xs):
            c = xs - xs.mean(axis=0)
            out[ptr[g]:ptr[g + 1]] = w * c / np.sqrt((c * c).mean(axis=0) + 1e-5)
    return {"out": out}


SHAPES = [dict(N=0, F=3, G1=3), dict(N=1, F=1, G1=2), dict(N=13, F=5, G1=4), dict(N=37, F=131, G1=3),
          dict(N=211, F=37, G1=12)]


def test_pgpu_matches_kir(tessel_bin, tmp_path):
    source, program = realize_folds(tessel_bin, tmp_path, segment_norm)
    text = program.read_text()
    assert "pgpu.foreach" not in text and "BLOCK_R" in text, text  # tiled: no scalar walk remains
    interpreters_agree(tessel_bin, tmp_path, source, program, SHAPES, draw, reference,
                       [{"BLOCK_R": 2, "BLOCK_C": 16}, {"BLOCK_R": 16, "BLOCK_C": 128}, {"BLOCK_R": 4, "BLOCK_C": 32}])


def test_one_program_per_segment_and_column_block():
    """The generated Triton: a program per (segment, block of BLOCK_C columns); the statistics and the
    write are loops over [BLOCK_R, BLOCK_C] tiles of the segment's rows (no loop over single rows)."""
    src = segment_norm.source("triton")
    body = src[src.index("def _segment_norm_kernel"):]
    body = body[:body.index("\n\n\n")]
    assert "[16, 128]" in body, body
    assert not re.search(r"for v\d+ in range\(0, v\d+\):", body), body  # no walk of single rows
    assert len(re.findall(r"tl\.load\(x \+", body)) <= 6, body  # two statistics and the write (with tails)


def test_triton_matches_reference(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    for i, shape in enumerate(SHAPES):
        inp = draw(shape, i)
        out = torch.full((shape["N"], shape["F"]), 7.0)
        segment_norm(torch.from_numpy(inp["x"]), torch.from_numpy(inp["ptr"]), torch.from_numpy(inp["w"]), out)
        np.testing.assert_allclose(out.numpy(), reference(inp)["out"], rtol=1e-4, atol=1e-4, err_msg=str(shape))
