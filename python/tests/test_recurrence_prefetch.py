"""Recurrences walked one step at a time (issue 41, corpus 25 EMA): a unit-step pgpu.for carrying a state
whose body loads a fragment independent of the state, from a view it does not write, is spelled
tl.range(..., num_stages=STAGES) so that Triton issues the next iterations' loads ahead of the state's
chain (Triton.h, prefetchesRecurrence); the launch's num_stages alone pipelines only loads feeding tl.dot.
The spelling, then each kernel against the KIR interpreter through Triton under TRITON_INTERPRET=1 at odd
shapes (one step, one lane, primes past every block), at STAGES 1, the default and 6."""
import os
import pathlib
import re
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

# scalar_state, row_sums and no_carry are the kernels recurrence-prefetch.mlir is made from (one source).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "test" / "Target" / "Triton" / "Inputs"))
from recurrences import no_carry, row_sums, scalar_state  # noqa: E402


@tessel.kernel
def ema(x: T.In[T.f32, ("B", "T", "C")], decay: T.In[T.f32, ("C",)], y: T.Out[T.f32, ("B", "T", "C")]):
    B, TT, C = x.shape
    chans = T.domain(0, C)
    a = decay[chans]
    for b in T.parallel(T.domain(0, B)):
        h = T.zeros(chans)
        for t in T.domain(0, TT):
            h = a * h + (1.0 - a) * x[b, t, chans]
            y[b, t, chans] = h


@tessel.kernel
def two_states(x: T.In[T.f32, ("B", "T", "C")], y: T.Out[T.f32, ("B", "T", "C")],
               m: T.Out[T.f32, ("B", "C")]):
    # Two carries, one a running maximum stored at every step; two loads a step (x at t and at T-1-t).
    B, TT, C = x.shape
    chans = T.domain(0, C)
    for b in T.parallel(T.domain(0, B)):
        h = T.zeros(chans)
        top = T.zeros(chans) - 1.0e30
        for t in T.domain(0, TT):
            h = 0.75 * h + x[b, t, chans] - 0.25 * x[b, TT - 1 - t, chans]
            top = T.maximum(top, h)
            y[b, t, chans] = h
            m[b, chans] = top


def _unit_loops(src: str) -> list:
    """The spelled heads of the kernel's unit-step loops."""
    return re.findall(r"for v\d+ in (?:tl\.)?range\(0, v\d+, 1(?:, num_stages=\d+)?\):", src)


@pytest.mark.parametrize("kernel", [ema, scalar_state, two_states])
def test_recurrences_are_prefetched(kernel):
    loops = _unit_loops(kernel.source())
    assert loops and all("tl.range(" in l and l.endswith(", num_stages=3):") for l in loops), loops
    staged = _unit_loops(kernel.source(params={"STAGES": 5}))
    assert staged and all(l.endswith(", num_stages=5):") for l in staged), staged


@pytest.mark.parametrize("kernel", [row_sums, no_carry])
def test_other_loops_are_not(kernel):
    # row_sums: its step's body walks C in blocks (a nested loop); no_carry: no state to wait for. Where C fits
    # one block, pgpu-stage-rows runs row_sums' C walk once in each step (its staged path): that time loop is
    # then innermost and pipelined like the scalar case; the looped path's time loop is not.
    loops = _unit_loops(kernel.source())
    plain = [l for l in loops if "num_stages" not in l]
    assert plain and len(loops) - len(plain) == (1 if kernel is row_sums else 0), loops


def _meta(shape):
    return torch.empty(shape, dtype=torch.float32, device="meta")


def test_few_programs_deepen_the_pipeline():
    # Corpus 25's bench shape: B*C = 8192 lanes in 128 programs of 64, each 4096 steps of 256 bytes.
    got = ema.call_defaults(_meta((8, 4096, 1024)), _meta((1024,)), _meta((8, 4096, 1024)))
    assert (got["BLOCK_P"], got["STAGES"]) == (64, 6), got
    # 65536 programs: their loads already fill the multiprocessors, the declared depth stays.
    got = ema.call_defaults(_meta((4096, 64, 1024)), _meta((1024,)), _meta((4096, 64, 1024)))
    assert got.get("STAGES", 3) == 3, got


def test_other_loops_keep_the_declared_depth():
    got = no_carry.call_defaults(_meta((8, 4096, 1024)), _meta((8, 4096, 1024)))
    assert got.get("STAGES", 3) == 3, got


def _ema_ref(x, decay):
    a = decay.astype(np.float64)
    h = np.zeros((x.shape[0], x.shape[2]))
    y = np.empty(x.shape)
    for t in range(x.shape[1]):
        h = a * h + (1.0 - a) * x[:, t, :].astype(np.float64)
        y[:, t, :] = h
    return y


SHAPES = [(1, 1, 1), (2, 37, 13), (3, 5, 67), (1, 131, 5), (2, 3, 1031)]
STAGES = [None, {"STAGES": 1}, {"STAGES": 6}]


@pytest.mark.parametrize("shape", SHAPES)
def test_ema_agrees_with_the_interpreter(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape).astype(np.float32)
    decay = rng.uniform(0.5, 0.999, size=(shape[2],)).astype(np.float32)
    want = ema.run_interp(shapes={}, inputs=dict(x=x, decay=decay))["y"]
    np.testing.assert_allclose(want, _ema_ref(x, decay), rtol=1e-4, atol=1e-5)
    for params in STAGES:
        y = torch.full(shape, float("nan"))
        if params is None:
            ema(torch.from_numpy(x), torch.from_numpy(decay), y)
        else:
            ema.launch(torch.from_numpy(x), torch.from_numpy(decay), y, params=params)
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(1, 1), (3, 37), (67, 5), (2, 131)])
def test_scalar_state_agrees_with_the_interpreter(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    want = scalar_state.run_interp(shapes={}, inputs=dict(x=x))["y"]
    for params in STAGES:
        y = torch.full(shape, float("nan"))
        if params is None:
            scalar_state(torch.from_numpy(x), y)
        else:
            scalar_state.launch(torch.from_numpy(x), y, params=params)
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 37, 13), (1, 7, 131)])
def test_two_states_agree_with_the_interpreter(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    want = two_states.run_interp(shapes={}, inputs=dict(x=x))
    for params in STAGES:
        y, m = torch.full(shape, float("nan")), torch.full((shape[0], shape[2]), float("nan"))
        if params is None:
            two_states(torch.from_numpy(x), y, m)
        else:
            two_states.launch(torch.from_numpy(x), y, m, params=params)
        np.testing.assert_allclose(y.numpy(), want["y"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(m.numpy(), want["m"], rtol=1e-5, atol=1e-6)
