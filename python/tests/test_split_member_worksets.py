"""A parallel member's chain of worksets across programs, one phase each (pgpu-split-member-worksets; seed
000 §5, §4.4): a member whose tensors are kept in workspace, each computed from the ones before (a
squeeze-excitation's channel means, hidden vector, gate, then the scaled writes), runs each workset's range
in MEMBER_SPLITS slices, one program each, a phase waiting for the point's count of the ones before
(members whose first phase walks more than 16384 elements, where the device would be underfilled).
Checked at odd shapes (empty, one element, primes, non-multiples of every block) on random inputs against
NumPy, the KIR interpreter, the pgpu interpreter in forward, reverse and shuffled order at several
MEMBER_SPLIT bindings, and Triton under TRITON_INTERPRET=1 called twice (the second call starts from the
counts the first returned to zero).
"""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
from conftest import call_twice_against  # noqa: E402
from interp_cli import provider_program, run_seeded  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def squeeze_gate(x: T.In[T.f32, ("N", "C", "H", "W")], w1: T.In[T.f32, ("CR", "C")], b1: T.In[T.f32, ("CR",)],
                 w2: T.In[T.f32, ("C", "CR")], b2: T.In[T.f32, ("C",)], out: T.Out[T.f32, ("N", "C", "H", "W")]):
    # four phases a sample: the channel means, the hidden vector, the gate, the scaled writes
    N, C, H, W = x.shape
    CR = w1.shape[0]
    chans, reds, hs, ws = T.domain(0, C), T.domain(0, CR), T.domain(0, H), T.domain(0, W)
    for n in T.parallel(T.domain(0, N)):
        s = T.sum(x[n, chans, hs, ws], axis=(1, 2)) / T.cast(H * W, T.f32)
        h = T.matvec(w1[reds, chans], s) + b1[reds]
        h = h * T.sigmoid(h)
        a = T.sigmoid(T.matvec(w2[chans, reds], h) + b2[chans])
        out[n, chans, hs, ws] = x[n, chans, hs, ws] * a


@tessel.kernel
def center_channels(x: T.In[T.f32, ("N", "C", "H", "W")], out: T.Out[T.f32, ("N", "C", "H", "W")]):
    # must not be split: the sample's mean of means is a reduction beside the worksets (a top-level
    # structured op: pgpu-split-member-reductions' kind), which no phase holds
    N, C, H, W = x.shape
    chans, hs, ws = T.domain(0, C), T.domain(0, H), T.domain(0, W)
    for n in T.parallel(T.domain(0, N)):
        s = T.sum(x[n, chans, hs, ws], axis=(1, 2)) / T.cast(H * W, T.f32)
        g = T.sum(s) / T.cast(C, T.f32)
        out[n, chans, hs, ws] = (x[n, chans, hs, ws] - s) * g


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def _want(kernel, ins):
    x = ins["x.in"].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = x.mean(axis=(2, 3))
    if kernel is center_channels:
        with np.errstate(invalid="ignore", divide="ignore"):
            g = s.mean(axis=1)
        return {"out": (x - s[:, :, None, None]) * g[:, None, None, None]}
    h = s @ ins["w1.in"].astype(np.float64).T + ins["b1.in"]
    h = h * _sigmoid(h)
    a = _sigmoid(h @ ins["w2.in"].astype(np.float64).T + ins["b2.in"])
    return {"out": x * a[:, :, None, None]}


# members whose first phase walks at most 16384 elements run unsplit (MEMBER_SPLITS = 1); the rest split
SHAPES = [dict(N=0, C=3, CR=2, H=5, W=3), dict(N=1, C=1, CR=1, H=1, W=1), dict(N=3, C=13, CR=2, H=11, W=17),
          dict(N=2, C=37, CR=5, H=23, W=29), dict(N=1, C=3, CR=1, H=97, W=61), dict(N=2, C=17, CR=3, H=0, W=5)]
CASES = [(squeeze_gate, s) for s in SHAPES]


def _run(tessel_bin, tmp_path, file, kernel, shape, order, split, stage=()):
    params = (f"MEMBER_SPLIT={split}",) if split else ()
    return run_seeded(tessel_bin, tmp_path, file, kernel, shape, order, params, stage)


@pytest.mark.parametrize("kernel,shape", CASES, ids=lambda c: getattr(c, "name", None) or
                         "-".join(f"{k}{v}" for k, v in c.items()))
def test_matches_numpy_and_interpreters(tessel_bin, tmp_path, kernel, shape):
    source, program = provider_program(tessel_bin, tmp_path, kernel)
    assert '"MEMBER_SPLIT"' in program.read_text()
    kir = _run(tessel_bin, tmp_path, source, kernel, shape, "forward", None, ("--stage", "kir"))
    for name, want in _want(kernel, kir).items():
        np.testing.assert_allclose(kir[name], want, rtol=1e-5, atol=1e-5, err_msg=name)
    for order, split in (("shuffle", None), ("forward", 2), ("reverse", 4), ("shuffle", 64), ("shuffle", 1)):
        got = _run(tessel_bin, tmp_path, program, kernel, shape, order, split)
        for name in _want(kernel, kir):
            np.testing.assert_allclose(got[name], kir[name], rtol=1e-5, atol=1e-5, err_msg=f"{name} {order} {split}")


def test_phases_wait_and_only_the_last_writes(tessel_bin, tmp_path):
    text = provider_program(tessel_bin, tmp_path, squeeze_gate, "form-tiles")[1].read_text()
    assert '"member_split"' in text
    split = text.split("pgpu.last_program", 1)[0]
    assert split.count("order acquire") == 3 and split.count("pgpu.atomic_rmw add") == 3
    # the view is written in the last phase only: after the third wait
    assert "pgpu.store" not in split.rsplit("order acquire", 1)[0].split('"member_split"', 1)[1]


def test_one_phase_is_not_split(tessel_bin, tmp_path):
    @tessel.kernel
    def plane_sums(x: T.In[T.f32, ("N", "C", "H")], s: T.Out[T.f32, ("N", "C")], t: T.Out[T.f32, ("N", "C")]):
        N, C, H = x.shape
        chans, hs = T.domain(0, C), T.domain(0, H)
        for n in T.parallel(T.domain(0, N)):
            s[n, chans] = T.sum(x[n, chans, hs], axis=1)
            t[n, chans] = T.max(x[n, chans, hs], axis=1)
    assert "member_split" not in provider_program(tessel_bin, tmp_path, plane_sums, "form-tiles")[1].read_text()


def test_a_reduction_beside_the_worksets_is_not_split(tessel_bin, tmp_path):
    assert "member_split" not in provider_program(tessel_bin, tmp_path, center_channels, "form-tiles")[1].read_text()


def _torch_inputs(kernel, shape, rng):
    N, C, CR, H, W = (shape[k] for k in ("N", "C", "CR", "H", "W"))
    f = lambda *s: torch.from_numpy(rng.standard_normal(s).astype(np.float32))  # noqa: E731
    x = f(N, C, H, W)
    if kernel is center_channels:
        return [x, torch.zeros(N, C, H, W)]
    return [x, f(CR, C), f(CR), f(C, CR), f(C), torch.zeros(N, C, H, W)]


NAMES = {squeeze_gate: ["x.in", "w1.in", "b1.in", "w2.in", "b2.in", "out"], center_channels: ["x.in", "out"]}


@pytest.mark.parametrize("kernel,shape", [(squeeze_gate, dict(N=1, C=1, CR=1, H=1, W=1)),
                                          (squeeze_gate, dict(N=2, C=19, CR=3, H=31, W=29))],
                         ids=lambda c: getattr(c, "name", None) or "-".join(f"{k}{v}" for k, v in c.items()))
def test_triton_twice_matches_numpy(kernel, shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(7)
    call_twice_against(kernel, lambda: _torch_inputs(kernel, shape, rng), NAMES[kernel],
                       lambda ins: _want(kernel, ins), rtol=1e-4, atol=1e-5)
