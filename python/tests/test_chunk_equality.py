"""Chunked attention written as the reference writes it (corpus 115's docstring and NumPy reference): query i
sees key j when j // C == i // C (and, causal, j <= i). pgpu-narrow-fold-ranges reads the equality of floor
quotients by one value C of every lane as the band it is, j in [m*C + min(C+1, 0), m*C + max(C-1, 0)] with
m = i // C (floor division: [m*C, m*C + C - 1] for C > 0, [m*C + C + 1, m*C] for C < 0), two bounds whose lane
ranges are those of m*C over the query block. So the key fold walks only the block's chunks: tiles before and
after them are skipped as all false, tiles inside them run without the test.

Spellings: causal (j <= i first), the quotients flipped (i // C == j // C), non-causal block-diagonal (the band's
upper bound skips the tiles after the chunk too), and a constant chunk (C = 3 spelled in both quotients).
Checked against the KIR interpreter (itself against NumPy) through the generated Triton under
TRITON_INTERPRET=1 at odd shapes and chunks (1, 3, 16, wider than the queries, negative ones), small tiles so
chunks cross tile boundaries.
"""
import math
import os
from conftest import pass_remarks

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

BAND = "1 equality(ies) of floor quotients read as their band (two bounds)"


def chunk_attention(name, spelling):
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
            if spelling == "causal":
                visible = (kpos <= i) & (kpos // C == i // C)
            elif spelling == "flipped":
                visible = (i // C == kpos // C) & (kpos <= i)
            elif spelling == "diagonal":
                visible = kpos // C == i // C
            else:  # a constant chunk
                visible = kpos // 3 == i // 3
            s = T.where(visible, s, -math.inf)
            p = T.exp(s - T.max(s))
            p = p / T.sum(p)
            o[b, h, i, dims] = T.cast(T.vecmat(p, T.cast(v[b, h, keys, dims], T.f32)), T.f16)
    return kernel


def remarks(tessel_bin, source):
    return pass_remarks(tessel_bin, source, "pgpu-narrow-fold-ranges")


@pytest.mark.parametrize("spelling", ["causal", "flipped", "diagonal", "constant"])
def test_chunk_equality_narrows_the_key_fold(tessel_bin, tmp_path, monkeypatch, spelling):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    got = remarks(tessel_bin, chunk_attention(f"chunk_eq_{spelling}", spelling)._write(tmp_path, {}))
    # Before, the equality was no predicate: "1 coordinate predicate(s) and 1 tail mask(s) ...; 1 all-false
    # interval(s) skipped" for the causal spellings (the keys from 0 walked), nothing for the diagonal one.
    assert any(BAND in r and "all-false interval(s) skipped" in r for r in got), got


def reference(q, k, v, chunk, spelling):
    S = q.shape[2]
    if S == 0:
        return np.zeros(q.shape)
    i, j = np.arange(S)[:, None], np.arange(S)[None, :]
    chunk = 3 if spelling == "constant" else chunk
    visible = (i // chunk == j // chunk) & ((j <= i) | (spelling in ("diagonal", "constant")))
    s = np.einsum("bhid,bhjd->bhij", q, k) * 0.25
    s = np.where(visible, s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


SMALL = {"BLOCK_S": 16, "BLOCK_S_": 16, "BLOCK_D": 16}


@pytest.fixture(scope="module", params=[("causal", SMALL), ("flipped", SMALL), ("diagonal", SMALL),
                                        ("constant", SMALL),
                                        ("causal", SMALL | {"BLOCK_S": 32, "FOLD_SPLIT": 2, "PAIR_BLOCKS": 2})],
                ids=["causal", "flipped", "diagonal", "constant", "split_paired"])
def attention(request, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("TESSEL_CACHE", str(tmp_path_factory.mktemp("cache")))
    spelling, params = request.param
    kernel = chunk_attention(f"chunk_eq_triton_{spelling}", spelling)
    yield kernel, kernel._launcher({}, params), spelling
    mp.undo()


@pytest.mark.parametrize("S", [0, 1, 13, 67])
def test_chunk_equality_matches_kir_through_triton(attention, S):
    torch = pytest.importorskip("torch")
    kernel, launch, spelling = attention
    shapes = {"B": 1, "H": 2, "S": S, "D": 16}
    for chunk in (1, 3, 16, S + 5, -1, -5, -16):
        ref = kernel.run_interp(shapes, {"chunk": chunk}, None, seed=5, segments="random")
        q, k, v = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("q", "k", "v"))
        want = np.array(ref["o"]).astype(np.float64)
        got = reference(*(t.double().numpy() for t in (q, k, v)), chunk, spelling)
        np.testing.assert_allclose(want, got, rtol=5e-3, atol=5e-3, err_msg=f"KIR vs NumPy, chunk={chunk}")
        out = torch.full((1, 2, S, 16), float("nan"), dtype=torch.float16)
        launch(q, k, v, out, chunk=chunk)
        np.testing.assert_allclose(out.double().numpy(), want, rtol=2e-3, atol=2e-3, err_msg=f"chunk={chunk}")
