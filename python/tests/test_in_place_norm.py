"""An in-place update after a whole-view reduction of the same view (clip-grad-norm: a global norm, then
`g[:] = g * coef`; corpus 39). Seed 000 §8: no barrier across program instances. A plain sum is phased
(PhasedSums.cpp: its chunks' segment, then the statements using it and the update, each instance after a
wait for every earlier instance); otherwise the update runs whole in the last program instance, after
every other instance, its whole-view scalars computed once before its first store, and a later statement
using those scalars (the stored norm) runs before the update, in the parallel segments. Checked against NumPy on the KIR interpreter and through Triton under
TRITON_INTERPRET=1 at odd shapes, plus what must stay refused."""
import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import numpy as np
import pytest

import tessel
import tessel.language as T


@tessel.kernel(optimization_remarks=True)
def clip_norm(grad: T.InOut[T.f32, ("N",)], total: T.Out[T.f32, (1,)], max_norm: T.f32):
    g = grad[:]
    norm = T.sqrt(T.sum(g * g))
    coef = T.minimum(max_norm / (norm + 1e-6), 1.0)
    grad[:] = g * coef
    total[0] = norm


@tessel.kernel
def center_in_place(p: T.InOut[T.f32, ("M", "N")], inv_count: T.f32):
    x = p[:, :]
    p[:, :] = x - T.sum(x) * inv_count


@tessel.kernel
def joined_after(p: T.InOut[T.f32, ("N",)], q: T.Out[T.f32, ("N",)]):
    x = p[:]
    s = T.sum(x)
    p[:] = x / s
    q[:] = p[:] + s          # joined to the update (same coordinates): p[:] is the value just stored


@tessel.kernel
def before_and_after(p: T.InOut[T.f32, ("N",)], q: T.Out[T.f32, ("N",)]):
    x = p[:]
    s = T.sum(x)
    p[:] = x / s
    for i in T.parallel(T.domain(0, p.shape[0])):
        q[i] = p[i] + s      # s read p before the update, this loop reads it after: no one order


@tessel.kernel
def other_element(p: T.InOut[T.f32, ("N",)]):
    x = p[:]
    p[:] = x * T.sum(x) + p[0]   # every element reads element 0, which one instance writes


def _clip_want(g, max_norm):
    g64 = g.astype(np.float64)
    norm = np.sqrt((g64 * g64).sum())
    return g64 * min(max_norm / (norm + 1e-6), 1.0), norm


@pytest.mark.parametrize("n", [0, 1, 2, 127, 509, 1031, 4099])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])           # clipped, and coef == 1
def test_clip_norm(n, max_norm):
    import torch
    rng = np.random.default_rng(n)
    g = rng.standard_normal(n).astype(np.float32)
    want, norm = _clip_want(g, max_norm)
    out = clip_norm.run_interp(shapes={"N": n}, inputs=dict(grad=g.copy()), scalars=dict(max_norm=max_norm),
                               order="shuffle")
    np.testing.assert_allclose(out["grad"], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["total"], [norm], rtol=1e-5, atol=1e-6)
    tg, tt = torch.from_numpy(g.copy()), torch.zeros(1)
    clip_norm(tg, tt, max_norm=max_norm)
    np.testing.assert_allclose(tg.numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tt.numpy(), [norm], rtol=1e-5, atol=1e-6)


def test_clip_norm_runs_in_phases():
    # One launch: the norm's chunks in a segment of their own (atomic adds into a workspace), the norm's
    # store and the update after a wait for every earlier instance (PhasedSums.cpp); the last program only
    # returns the workspace to zero.
    text = clip_norm.compile("pgpu")
    assert text.count("pgpu.program_space") == 1
    head, last = text.split("pgpu.last_program", 1)
    assert "order acquire" in head and "pgpu.store" in head
    assert "pgpu.store" not in last and "pgpu.buffer_store" in last


def test_a_rank_2_sum_runs_in_the_last_program():
    # Not phased (a rank-2 sum): the update in the last program (a ticket), its sum before the element loop.
    text = center_in_place.compile("pgpu")
    assert text.count("pgpu.program_space") == 1
    last = text[text.index("pgpu.last_program"):]
    assert "order acquire" not in text and "pgpu.store" in last


@pytest.mark.parametrize("m,n", [(1, 1), (3, 7), (5, 131)])
def test_center_in_place(m, n):
    import torch
    rng = np.random.default_rng(m * n)
    p = rng.standard_normal((m, n)).astype(np.float32)
    want = p.astype(np.float64) - p.astype(np.float64).mean()
    out = center_in_place.run_interp(shapes={"M": m, "N": n}, inputs=dict(p=p.copy()),
                                     scalars=dict(inv_count=1.0 / (m * n)), order="reverse")
    np.testing.assert_allclose(out["p"], want, rtol=1e-5, atol=1e-5)
    tp = torch.from_numpy(p.copy())
    center_in_place(tp, inv_count=1.0 / (m * n))
    np.testing.assert_allclose(tp.numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [1, 2, 257])
def test_joined_after_the_update(n):
    import torch
    p = np.random.default_rng(n).uniform(0.5, 1.5, n).astype(np.float32)
    s = p.astype(np.float64).sum()
    want_p = p / s
    tp, tq = torch.from_numpy(p.copy()), torch.zeros(n)
    joined_after(tp, tq)
    np.testing.assert_allclose(tp.numpy(), want_p, rtol=1e-5)
    np.testing.assert_allclose(tq.numpy(), want_p + s, rtol=1e-5)


def test_read_before_and_after_the_update_is_refused():
    with pytest.raises(tessel.CompileError, match="both before and after its in-place update"):
        before_and_after.compile("pgpu")


def test_in_place_reading_other_elements_is_refused():
    with pytest.raises(tessel.CompileError, match="writes a view that values before the worksets read"):
        other_element.compile("pgpu")
