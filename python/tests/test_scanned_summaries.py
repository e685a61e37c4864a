"""Row summaries a later parallel scans (kir-row-parallels' ScannedSummaries.cpp, issue 41; corpus 323's
top-2 gating with capacity): each token's argmax over the experts, written at kernel level, is read by a
parallel over the experts whose member counts, in token order, the tokens routed to it (a cumsum of
`first == e`). Replayed, every step of that scan recomputed the token's argmax (unblockable, one token per
step); now a parallel over the tokens computes each argmax once into a buffer that the experts' segment
(phased: kir-to-pgpu's phaseFinalizations, waiting for the tokens) scans in blocks. Lit:
kir-row-parallels-scanned-summaries.mlir, phased-buffer-scans.mlir.

Triton under TRITON_INTERPRET=1 against NumPy at odd shapes (one expert, primes, an empty token axis
under TESSEL_DEEP), ties broken to the lowest expert as the interpreter says.
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel(name="ss_top1_capacity")
def top1_capacity(logits: T.In[T.f32, ("T", "E")], capacity: T.i32, slot: T.InOut[T.i32, ("T",)]):
    NT, E = logits.shape
    toks, experts = T.domain(0, NT), T.domain(0, E)
    _, first = T.argmax(logits[toks, experts], axis=1)
    cap = T.cast(capacity, T.index)
    for e in T.parallel(experts):
        mine = first == e
        pos = T.cumsum(T.where(mine, 1, 0, dtype=T.i32)) - 1
        base = T.cast(e * cap, T.i32)
        T.store(slot, (toks,), T.where(pos < capacity, base + pos, -1), valid=mine)


def reference(logits, capacity):
    NT, E = logits.shape
    first = logits.argmax(1)
    out = np.empty(NT, np.int32)
    seen = np.zeros(E, np.int64)
    for t in range(NT):
        e = first[t]
        out[t] = e * capacity + seen[e] if seen[e] < capacity else -1
        seen[e] += 1
    return out


DEEP = os.environ.get("TESSEL_DEEP") == "1"
SHAPES = [(0, 3), (1, 1), (37, 1), (53, 7), (131, 8)] if DEEP else [(1, 1), (13, 3)]


@pytest.mark.parametrize("NT,E", SHAPES)
def test_triton_top1_capacity(NT, E):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    rng = np.random.default_rng(NT * 100 + E)
    logits = (2.0 * rng.standard_normal((NT, E))).astype(np.float32)
    if NT > 2 and E > 1:
        logits[1, :] = logits[1, 0]  # a tie: the lowest expert is chosen
        logits[2, 1:] = logits[2, 1]
    capacity = max(1, NT // max(E, 1) // 2)
    slot = torch.full((NT,), 12345, dtype=torch.int32)
    top1_capacity(torch.from_numpy(logits), slot, capacity=capacity)
    np.testing.assert_array_equal(slot.numpy(), reference(logits, capacity))


def test_the_argmax_is_computed_once():
    src = top1_capacity.source()
    # The tokens' segment computes the argmaxes (a reduce of values and positions) into a buffer; the
    # experts' segment waits for it, then scans the buffer in blocks, never reading the logits.
    tokens, experts = src.split("while _go", 1)
    experts = experts.split("\ndef ", 1)[0]
    assert "tl.reduce((" in tokens and "logits +" in tokens
    assert "logits +" not in experts and "tl.associative_scan(" in experts
