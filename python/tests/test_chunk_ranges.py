"""Chunked local attention (Llama 4; corpus 115): query i sees key j when j <= i and j >= (i // C) * C, the
chunk C a runtime scalar. pgpu-narrow-fold-ranges ranges the lanes' chunk start (i // C) * C over a query
block (floor division and a product by one value of every lane are monotone in i), so the key fold walks
the chunk's tiles only: the tiles before the chunk's first key are skipped as all false, those between it
and the block's first query are all true, instead of every key from 0 with the chunk test in each tile.

The spelling is corpus 115's (a whole-row softmax of a matvec, not a region fold). Checked against the
KIR interpreter through the generated Triton under TRITON_INTERPRET=1 at odd shapes and chunks (1, 3, 16,
wider than the queries), small tiles so the chunks cross tile boundaries; and, with the mirrored chunk
i <= j <= (i // C) * C beside it, negative chunks ((i // C) * C then rounds i up: x // C is decreasing
in x, so the range's ends swap).
"""
import math
import os
from conftest import pass_remarks

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

ALL_FALSE = "2 all-false interval(s) skipped (identity proven)"


def chunked_attention(name, mirrored=False):
    """Corpus 115's spelling; `mirrored` also lets i see i <= j <= (i // C) * C (a negative chunk rounds i up)."""
    import tessel
    import tessel.language as T

    @tessel.kernel(name=name, numerics="relaxed_normalization")
    def kernel(q: T.In[T.f16, ("B", "H", "S", "D")], k: T.In[T.f16, ("B", "H", "S", "D")],
               v: T.In[T.f16, ("B", "H", "S", "D")], o: T.Out[T.f16, ("B", "H", "S", "D")], chunk: T.i32):
        B, H, S, D = q.shape
        keys, dims = T.domain(0, S), T.domain(0, D)
        kpos = T.indices(keys)
        C = T.cast(chunk, T.index)
        for b, h, i in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
            s = T.matvec(k[b, h, keys, dims], q[b, h, i, dims]) * 0.25
            c = (i // C) * C
            visible = (kpos <= i) & (kpos >= c)
            if mirrored:
                visible = visible | ((kpos >= i) & (kpos <= C * (i // C)))  # the chunk times on the left
            s = T.where(visible, s, -math.inf)
            p = T.exp(s - T.max(s))
            p = p / T.sum(p)
            o[b, h, i, dims] = T.cast(T.vecmat(p, T.cast(v[b, h, keys, dims], T.f32)), T.f16)
    return kernel


def remarks(tessel_bin, source):
    return pass_remarks(tessel_bin, source, "pgpu-narrow-fold-ranges")


def test_chunk_start_narrows_the_key_fold(tessel_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    got = remarks(tessel_bin, chunked_attention("chunk_remarks")._write(tmp_path, {}))
    # Before, the chunk test stayed in every tile: "1 coordinate predicate(s) ...; one predicate kept in
    # every interval: a term beside the tile positions has no lane range".
    assert any(r.startswith("2 coordinate predicate(s) and 1 tail mask(s)") and ALL_FALSE in r for r in got), got
    assert not any("no lane range" in r for r in got), got
    # The union of a chunk and its mirror (for a negative chunk) is narrowed as two intervals.
    got = remarks(tessel_bin, chunked_attention("chunk_mirrored_remarks", True)._write(tmp_path, {}))
    assert any("union" in r or "interval" in r for r in got) and not any("no lane range" in r for r in got), got


def reference(q, k, v, chunk, mirrored):
    S = q.shape[2]
    if S == 0:
        return np.zeros(q.shape)
    i, j = np.arange(S)[:, None], np.arange(S)[None, :]
    c = (i // chunk) * chunk
    visible = ((j <= i) & (j >= c)) | (mirrored & (j >= i) & (j <= c))
    s = np.einsum("bhid,bhjd->bhij", q, k) * 0.25
    s = np.where(visible, s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


SMALL = {"BLOCK_S": 16, "BLOCK_S_": 16, "BLOCK_D": 16}


# The narrowed key folds also under a split fold (each program's segment of the keys, then the merge) and
# paired query blocks.
@pytest.fixture(scope="module", params=[(False, SMALL), (True, SMALL),
                                        (False, SMALL | {"BLOCK_S": 32, "FOLD_SPLIT": 2, "PAIR_BLOCKS": 2})],
                ids=["chunk", "mirrored", "split_paired"])
def attention(request, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("TESSEL_CACHE", str(tmp_path_factory.mktemp("cache")))
    mirrored, params = request.param
    kernel = chunked_attention("chunk_triton", mirrored)
    yield kernel, kernel._launcher({}, params), mirrored
    mp.undo()


@pytest.mark.parametrize("S", [0, 1, 13, 67])
def test_chunked_attention_matches_kir_through_triton(attention, S):
    torch = pytest.importorskip("torch")
    kernel, launch, mirrored = attention
    shapes = {"B": 1, "H": 2, "S": S, "D": 16}
    for chunk in (1, 3, 16, S + 5) + ((-1, -5, -16) if mirrored else ()):
        ref = kernel.run_interp(shapes, {"chunk": chunk}, None, seed=5, segments="random")
        q, k, v = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("q", "k", "v"))
        want = np.array(ref["o"]).astype(np.float64)
        got = reference(*(t.double().numpy() for t in (q, k, v)), chunk, mirrored)
        np.testing.assert_allclose(want, got, rtol=5e-3, atol=5e-3, err_msg=f"KIR vs NumPy, chunk={chunk}")
        out = torch.full((1, 2, S, 16), float("nan"), dtype=torch.float16)
        launch(q, k, v, out, chunk=chunk)
        np.testing.assert_allclose(out.double().numpy(), want, rtol=2e-3, atol=2e-3, err_msg=f"chunk={chunk}")
