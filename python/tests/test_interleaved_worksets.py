"""Interleaved writes of one view from sibling worksets (issue 41/42): a GPT-J rotary embedding writes
out[.., 2i] and out[.., 2i + 1] in two statements, one workset each. Their coordinates differ modulo 2 for
any two members, so pgpu-flatten-worksets runs them as one workset (each pair read once, not once per
statement); writes that may meet (2i and 2i + 2) keep the two worksets in order. Checked against NumPy on
the KIR interpreter and through Triton under TRITON_INTERPRET=1 at odd shapes (one pair, odd pair counts,
walks ending mid-block, none)."""
import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import numpy as np
import pytest

import tessel
import tessel.language as T


@tessel.kernel
def rope_pairs(x: T.In[T.f32, ("R", "D")], cos: T.In[T.f32, ("R", "D2")], sin: T.In[T.f32, ("R", "D2")],
               out: T.Out[T.f32, ("R", "D")]):
    pairs = T.domain(0, cos.shape[1])
    ev = 2 * T.indices(pairs)
    for r in T.parallel(T.domain(0, x.shape[0])):
        x0, x1 = x[r, ev], x[r, ev + 1]
        c, s = cos[r, pairs], sin[r, pairs]
        out[r, ev] = x0 * c - x1 * s
        out[r, ev + 1] = x1 * c + x0 * s


@tessel.kernel
def shifted_pairs(x: T.In[T.f32, ("R", "D")], out: T.Out[T.f32, ("R", "D")]):
    # Must stay two worksets: out[r, 2i + 2] of the second statement is out[r, 2(i + 1)] of the first.
    pairs = T.domain(0, x.shape[1] // 2 - 1)
    ev = 2 * T.indices(pairs)
    for r in T.parallel(T.domain(0, x.shape[0])):
        out[r, ev] = x[r, ev]
        out[r, ev + 2] = -x[r, ev + 1]


def _rope(x, c, s):
    out = np.empty_like(x, dtype=np.float64)
    x0, x1 = x[:, 0::2].astype(np.float64), x[:, 1::2].astype(np.float64)
    out[:, 0::2] = x0 * c - x1 * s
    out[:, 1::2] = x1 * c + x0 * s
    return out


@pytest.mark.parametrize("r,d2", [(1, 1), (3, 5), (7, 67), (0, 3)])
def test_rope_pairs(r, d2):
    import torch
    rng = np.random.default_rng(r * 100 + d2)
    x = rng.standard_normal((r, 2 * d2)).astype(np.float32)
    c, s = (rng.standard_normal((r, d2)).astype(np.float32) for _ in range(2))
    want = _rope(x, c, s)
    got = rope_pairs.run_interp(shapes={"R": r, "D": 2 * d2, "D2": d2}, inputs=dict(x=x, cos=c, sin=s))
    np.testing.assert_allclose(got["out"], want, rtol=1e-5, atol=1e-5)
    t = torch.full((r, 2 * d2), float("nan"))
    rope_pairs(*(torch.from_numpy(v) for v in (x, c, s)), t)
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-5, atol=1e-5)


def test_one_workset_reads_each_pair_once():
    # One walk (its full blocks and its tail: two loops) reading each pair once: two reads of x a loop;
    # the meeting writes keep a walk a statement (two loops each), the first's pair read in both.
    pgpu = rope_pairs.pgpu()
    assert "pgpu.foreach" not in pgpu
    assert pgpu.count("pgpu.for ") == 2 and pgpu.count("pgpu.gather %x") == 4, pgpu
    src = shifted_pairs.pgpu()
    assert src.count("pgpu.for ") == 4, src


def test_meeting_writes_keep_their_order():
    import torch
    x = np.random.default_rng(5).standard_normal((3, 11)).astype(np.float32)
    want = np.full_like(x, np.nan)
    n = 11 // 2 - 1
    want[:, 0:2 * n:2] = x[:, 0:2 * n:2]
    want[:, 2:2 * n + 2:2] = -x[:, 1:2 * n:2]
    t = torch.full((3, 11), float("nan"))
    shifted_pairs(torch.from_numpy(x), t)
    np.testing.assert_array_equal(t.numpy(), want)
