"""Updates of a view in place through index tensors (issue 42).

- Even/odd lanes rotated in place (corpus 163): `a, c = q[m, 2p], q[m, 2p + 1]`, then both scattered back.
  The in-place group (InPlaceStores.cpp) joins gathers and scatters whose coordinates name one element per
  position (a nonzero multiple of the indices) and never meet (2p, 2p + 1): one element loop gathers both,
  then scatters both. Before: refused ("used after a store to the same view"). Must not fire: a read at
  2p + 2 (what position p + 1 writes) is still refused.
- Repetition penalty (corpus 128): `v = logits[b, toks]; logits[b, toks] = f(v)` with a token twice in
  `toks`. KIR reads every element before any write (one penalty per distinct token); the constructed
  kernel read and wrote each position on its own, spread over chunks and program instances, so a repeat
  read the other's write (the H100 penalized one twice; TRITON_INTERPRET=1 does too where a row crosses a
  chunk). Now staged (StagedScatters.cpp): the member's values to workspace first, then every write.
  Must not fire: a scatter through repeated ids of values read from another view.
Differential: Triton under TRITON_INTERPRET=1 and the pgpu interpreter with shuffled iteration order against
the KIR interpreter, random inputs at odd shapes."""
import os

import numpy as np
import pytest

from interp_cli import realize_folds, run_cli

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def rotate_pairs(q: T.InOut[T.f32, ("M", "D")], w: T.In[T.f32, ("H",)]):
    M, D = q.shape
    pairs = T.domain(0, w.shape[0])
    ev = 2 * T.indices(pairs)
    for m in T.parallel(T.domain(0, M)):
        a, b = q[m, ev], q[m, ev + 1]
        q[m, ev] = a * w[pairs] - b
        q[m, ev + 1] = a + b * w[pairs]  # a and b are what q held before the even lanes were written


@tessel.kernel
def penalty(logits: T.InOut[T.f32, ("B", "V")], prev: T.In[T.i64, ("B", "L"), T.Range(0, "V")], p: T.f32):
    B, V = logits.shape
    hist = T.domain(0, prev.shape[1])
    for b in T.parallel(T.domain(0, B)):
        toks = prev[b, hist]
        v = logits[b, toks]
        logits[b, toks] = T.where(v > 0.0, v / p, v * p)


@tessel.kernel
def copy_rows(dst: T.InOut[T.f32, ("B", "V")], src: T.In[T.f32, ("B", "V")],
              prev: T.In[T.i64, ("B", "L"), T.Range(0, "V")]):
    B, V = dst.shape
    hist = T.domain(0, prev.shape[1])
    for b in T.parallel(T.domain(0, B)):
        toks = prev[b, hist]
        dst[b, toks] = src[b, toks] * 2.0  # a repeat writes an equal value and reads nothing written


ROTATE_SHAPES = [(1, 0), (1, 1), (3, 7), (2, 129), (5, 1031)]


@pytest.mark.parametrize("m,h", ROTATE_SHAPES)
def test_pairs_rotated_in_place_agree_with_the_interpreter(m, h, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 10007 + h)
    q = rng.standard_normal((m, 2 * h)).astype(np.float32)
    w = rng.standard_normal(h).astype(np.float32)
    want = rotate_pairs.run_interp(shapes=dict(M=m, D=2 * h, H=h), inputs=dict(q=q, w=w))["q"]
    a, b = q[:, 0::2].astype(np.float64), q[:, 1::2].astype(np.float64)
    ref = np.empty_like(q, dtype=np.float64)
    ref[:, 0::2], ref[:, 1::2] = a * w - b, a + b * w
    np.testing.assert_allclose(want, ref, rtol=1e-5, atol=1e-5)
    got = torch.from_numpy(q.copy())
    rotate_pairs(got, torch.from_numpy(w))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("m,h", [(3, 7), (2, 129)])
def test_pairs_rotated_in_place_in_shuffled_order(m, h, tessel_bin, tmp_path):
    """The pgpu program after realize-folds, its parallel iterations in shuffled order: each position reads
    and writes only its own two elements, so any order gives the interpreter's values."""
    rng = np.random.default_rng(m + 31 * h)
    inputs = dict(q=rng.standard_normal((m, 2 * h)).astype(np.float32), w=rng.standard_normal(h).astype(np.float32))
    source, program = realize_folds(tessel_bin, tmp_path, rotate_pairs)
    shape = dict(M=m, D=2 * h, H=h)
    want = run_cli(tessel_bin, tmp_path, f"{source}:rotate_pairs", shape, inputs, ["--stage", "kir"], "kir")
    for seed in (1, 2, 3):
        got = run_cli(tessel_bin, tmp_path, program, shape, inputs, ["--order", "shuffle", "--seed", str(seed)],
                      f"shuffle{seed}")
        np.testing.assert_allclose(got["q"], want["q"], rtol=1e-6, atol=1e-6)


def test_a_read_of_another_positions_pair_is_refused():
    @tessel.kernel
    def next_pair(q: T.InOut[T.f32, ("M", "D")], w: T.In[T.f32, ("H",)]):
        M, D = q.shape
        pairs = T.domain(0, w.shape[0])
        ev = 2 * T.indices(pairs)
        for m in T.parallel(T.domain(0, M)):
            a, b = q[m, ev], q[m, ev + 2]  # 2p + 2: the even lane position p + 1 writes
            q[m, ev] = a - b
            q[m, ev + 1] = a + b
    with pytest.raises(tessel.CompileError, match="used after a store to the same view"):
        next_pair.source()


def _ids(rng, b, v, l):
    """Token ids with many repeats (a vocabulary of at most 3 where l allows), every row."""
    return rng.integers(0, min(v, 3), size=(b, l)).astype(np.int64)


def _penalized(logits, prev, p):
    out = logits.astype(np.float64)
    for b in range(out.shape[0]):
        t = np.unique(prev[b])
        v = out[b, t]
        out[b, t] = np.where(v > 0, v / np.float32(p), v * np.float32(p))
    return out


@pytest.mark.parametrize("b,v,l", [(1, 1, 3), (3, 5, 700), (2, 7, 13)])
def test_the_interpreter_penalizes_each_distinct_token_once(b, v, l):
    rng = np.random.default_rng(b * 100 + l)
    logits = (rng.standard_normal((b, v)) * 4).astype(np.float32)
    prev = _ids(rng, b, v, l)
    got = penalty.run_interp(shapes=dict(B=b, V=v, L=l), scalars=dict(p=1.3), inputs=dict(logits=logits, prev=prev))
    np.testing.assert_allclose(got["logits"], _penalized(logits, prev, 1.3), rtol=1e-6, atol=1e-6)


PENALTY_SHAPES = [(1, 1, 1), (1, 1, 3), (3, 5, 700), (2, 7, 13), (4, 1031, 257), (0, 5, 3), (2, 5, 0)]


@pytest.mark.parametrize("params", [None, {"BLOCK": 64}], ids=["defaults", "BLOCK64"])
@pytest.mark.parametrize("b,v,l", PENALTY_SHAPES, ids=lambda x: str(x))
def test_a_read_modify_write_through_repeated_ids_on_triton(b, v, l, params, tmp_path, monkeypatch):
    """Before: refused at the scatter (and before that, compiled, a token penalized twice under
    TRITON_INTERPRET=1 at B=3 V=5 L=700: rows crossing 512-lane chunks, ids in [0, 3)). After: staged
    (StagedScatters.cpp), every gather of the row into workspace before any write: one penalty per
    distinct token, rows of one chunk and of several (BLOCK 64: L = 257, 700 cross chunks), empty rows
    (L = 0) and no rows (B = 0)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(b * 100 + v + l)
    logits = (rng.standard_normal((b, v)) * 4).astype(np.float32)
    prev = _ids(rng, b, v, l)
    want = penalty.run_interp(shapes=dict(B=b, V=v, L=l), scalars=dict(p=1.3),
                              inputs=dict(logits=logits, prev=prev))["logits"]
    np.testing.assert_allclose(want, _penalized(logits, prev, 1.3), rtol=1e-6, atol=1e-6)
    got = torch.from_numpy(logits.copy())
    if params is None:
        penalty(got, torch.from_numpy(prev), p=1.3)
    else:
        penalty._launcher({}, params)(got, torch.from_numpy(prev), p=1.3)
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("b,v,l", [(3, 5, 700), (2, 7, 13)])
def test_a_read_modify_write_through_repeated_ids_in_shuffled_order(b, v, l, tessel_bin, tmp_path):
    """The pgpu program after realize-folds, its iterations in shuffled order: the staging loop's gathers
    all precede the writing loop within the member, so any order gives the interpreter's values."""
    rng = np.random.default_rng(b + 31 * l)
    inputs = dict(logits=(rng.standard_normal((b, v)) * 4).astype(np.float32), prev=_ids(rng, b, v, l))
    source, program = realize_folds(tessel_bin, tmp_path, penalty)
    shape = dict(B=b, V=v, L=l)
    extra = ["--scalar", "p=1.3"]
    want = run_cli(tessel_bin, tmp_path, f"{source}:penalty", shape, inputs, ["--stage", "kir", *extra], "kir")
    for seed in (1, 2, 3):
        got = run_cli(tessel_bin, tmp_path, program, shape, inputs,
                      ["--order", "shuffle", "--seed", str(seed), *extra], f"shuffle{seed}")
        np.testing.assert_array_equal(got["logits"], want["logits"])


def test_the_staged_scatter_in_source():
    """The Triton source stores the row's values to workspace, passes a CTA barrier, then reads them back
    and scatters: no write of logits before the barrier."""
    src = penalty.source("triton")
    body = src[src.index("def _penalty_kernel"):]
    body = body[:body.index("\n\n\n")]
    barrier = body.index("tl.debug_barrier()")
    assert "tl.store(logits" not in body[:barrier] and "tl.store(logits" in body[barrier:]


@pytest.mark.parametrize("b,v,l", [(1, 1, 1), (3, 5, 700), (2, 7, 13), (4, 1031, 257)])
def test_a_scatter_of_another_views_values_through_repeated_ids(b, v, l, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(b * 1000 + v + l)
    dst = rng.standard_normal((b, v)).astype(np.float32)
    src = rng.standard_normal((b, v)).astype(np.float32)
    prev = _ids(rng, b, v, l)
    want = copy_rows.run_interp(shapes=dict(B=b, V=v, L=l), inputs=dict(dst=dst, src=src, prev=prev))["dst"]
    got = torch.from_numpy(dst.copy())
    copy_rows(got, torch.from_numpy(src), torch.from_numpy(prev))
    np.testing.assert_array_equal(got.numpy(), want)
