"""bench/corpus.py's limits on one kernel's hold of the GPU, on the CPU with fake kernels and peers that sleep:

  - a function one call of which is slow is timed with a few single calls, and past --call-s once (the
    kernel's first call counts as that one): 23_mla_decode's and 315's calls took seconds and do_bench held
    the GPU lock for 7+ minutes;
  - torch.compile's limit holds when the compile swallows the first alarm (an `except Exception` on the
    way; 311's Inductor compile did), and with --jobs N the parent kills a worker still in torch.compile
    past the limit (a compile in C code sees no signal) and gives the GPU lock back;
  - a worker timing within the limits is left alone.

Cheap (about 3 s): no Triton, no tessel compile; the smoke switch is on (DEVICE cpu, wall clocks)."""
import importlib.util
import multiprocessing
import os
import pathlib
import time
from types import SimpleNamespace

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    """bench/corpus.py loaded with its CPU switch on (read at import)."""
    before = os.environ.get("TESSEL_CORPUS_SMOKE")
    os.environ["TESSEL_CORPUS_SMOKE"] = "1"
    try:
        spec = importlib.util.spec_from_file_location("_bench_corpus_limits", ROOT / "bench" / "corpus.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if before is None:
            os.environ.pop("TESSEL_CORPUS_SMOKE")
        else:
            os.environ["TESSEL_CORPUS_SMOKE"] = before
    assert module.DEVICE == "cpu"
    return module


class Sleeper:
    def __init__(self, seconds):
        self.seconds, self.calls = seconds, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        time.sleep(self.seconds)


def test_a_fast_call_takes_the_usual_median(bench, monkeypatch):
    monkeypatch.setattr(bench, "_SLOW_MS", 1000.0)  # a loaded machine's scheduling delay is no slow call
    fn = Sleeper(0.0)
    ms, how = bench._timed_ms(fn)
    assert how == "median" and fn.calls == 1 + 3


def test_a_slow_call_is_timed_with_a_few_single_calls(bench, monkeypatch):
    monkeypatch.setattr(bench, "_SLOW_MS", 5.0)
    monkeypatch.setattr(bench, "_SLOW_BUDGET_S", 0.06)
    fn = Sleeper(0.01)
    ms, how = bench._timed_ms(fn)
    assert how.startswith("median of ") and 2 <= fn.calls - 1 <= 10 and ms >= 10.0


def test_a_call_past_the_cap_is_timed_once(bench, monkeypatch):
    monkeypatch.setattr(bench, "_CALL_S", 0.02)
    fn = Sleeper(0.03)
    ms, how = bench._timed_ms(fn)
    assert fn.calls == 1 and ms >= 30.0 and how.startswith("once: too slow: one call took ")
    # a first call known to be far past the cap (15 times) is that one timing: no call at all
    ms, how = bench._timed_ms(fn, known_ms=4200.0)
    assert fn.calls == 1 and ms == 4200.0 and how == "once: too slow: one call took 4.2 s"
    # one just past it is mostly Triton's JIT at the bench shape: called again, that call the timing
    ms, how = bench._timed_ms(fn, known_ms=40.0)
    assert fn.calls == 2 and ms >= 30.0 and how.startswith("once: too slow: one call took ")
    fn.calls = 1
    # one known to be within it is not: the probe calls again (the first call includes the JIT)
    bench._timed_ms(fn, known_ms=1.0)
    assert fn.calls == 2


class FakeKernel(Sleeper):
    """y = 2 x, sleeping at each call; the parameters' surface _harness reads."""

    def params(self):
        f32 = SimpleNamespace(name="f32")
        return [SimpleNamespace(kind="view", name="x", spec=SimpleNamespace(mode="in", dtype=f32, extents=("N",))),
                SimpleNamespace(kind="view", name="y", spec=SimpleNamespace(mode="out", dtype=f32, extents=("N",)))]

    def source(self, *args, **kwargs):
        return ""

    def __call__(self, x, y):
        super().__call__()
        y.copy_(2 * x)


def _fake(monkeypatch, bench, kernel_s):
    mod = SimpleNamespace(__name__="fake", KERNEL=FakeKernel(kernel_s), PEER="torch", TEST_SHAPES=[dict(N=7)],
                          BENCH_SHAPE=dict(N=13), TOLERANCE=dict(rtol=1e-6, atol=1e-6),
                          inputs=lambda shape, rng: dict(x=rng.standard_normal(shape["N"])),
                          peer=lambda x: dict(y=2 * x))
    monkeypatch.setattr(bench.H, "load", lambda name: mod)
    monkeypatch.setattr(bench.H, "check", lambda *args, **kwargs: None)
    return mod


def test_a_kernel_past_the_cap_is_called_once(bench, monkeypatch):
    mod = _fake(monkeypatch, bench, 0.05)
    monkeypatch.setattr(bench, "_CALL_S", 0.02)
    rec = bench.bench_one("fake", compile_peer=False)
    assert "error" not in rec, rec.get("error")
    # the first call is checked against the peer; it is within 15 times the cap (the JIT compile, on a
    # GPU), so a second call is the one timing
    assert rec["peer_check"] == "ok" and mod.KERNEL.calls == 2
    assert rec["too_slow"].startswith("too slow: one call took ") and rec["tessel_ms"] >= 50.0
    assert rec["timing"]["tessel"] == "once: " + rec["too_slow"] and rec["timing"]["eager"] == "median"
    assert {"wait", "check", "draw", "source", "calls_and_peer_check", "timing"} <= set(rec["phases_s"])


def test_a_fast_kernel_is_not_marked(bench, monkeypatch):
    mod = _fake(monkeypatch, bench, 0.0)
    monkeypatch.setattr(bench, "_SLOW_MS", 1000.0)
    rec = bench.bench_one("fake", compile_peer=False)
    assert rec["peer_check"] == "ok" and "too_slow" not in rec and mod.KERNEL.calls == 1 + 1 + 3


def test_the_compile_limit_holds_when_the_first_alarm_is_swallowed(bench, monkeypatch):
    import torch
    _fake(monkeypatch, bench, 0.0)
    swallowed = []

    def compiled(**kwargs):  # a compile that catches the first TimeoutError and goes on
        end = time.time() + 20
        while time.time() < end:
            try:
                time.sleep(0.05)
            except TimeoutError as e:
                if swallowed:
                    raise
                swallowed.append(e)
        return {}

    monkeypatch.setattr(torch, "compile", lambda fn: compiled)
    monkeypatch.setattr(bench, "_COMPILE_S", 0.2)
    t0 = time.time()
    rec = bench.bench_one("fake", compile_peer=True)
    assert time.time() - t0 < 5 and len(swallowed) == 1
    assert rec["compile_error"].startswith("TimeoutError") and "compile_ms" not in rec and "eager_ms" in rec


def _holder_child(bench, lock, meta, holder, phase):
    """A worker that takes the GPU lock, notes `phase` and stays there (as in a compile's C code)."""
    bench._init_worker(lock, holder, meta)
    with bench._gpu("fake", "bench calls"):
        bench._holding("fake", phase)
        time.sleep(60)


def _start_holder(bench, tmp_path, phase):
    ctx = multiprocessing.get_context("fork")
    lock, meta = ctx.Lock(), ctx.Lock()
    holder = tmp_path / "corpus.holder"
    child = ctx.Process(target=_holder_child, args=(bench, lock, meta, str(holder), phase), daemon=True)
    child.start()
    end = time.time() + 10
    while phase not in (holder.read_text() if holder.exists() else "") and time.time() < end:
        time.sleep(0.02)
    return child, lock, meta, holder


def test_the_parent_kills_a_worker_stuck_in_torch_compile(bench, tmp_path):
    child, lock, meta, holder = _start_holder(bench, tmp_path, "torch.compile")
    try:
        assert not lock.acquire(timeout=0.1)
        # within the limit: left alone
        assert bench._watch(holder, lock, meta, compile_s=90, lock_s=600) is None
        killed = bench._watch(holder, lock, meta, compile_s=90, lock_s=600, now=time.time() + 90 + 16)
        assert killed["name"] == "fake" and killed["phase"] == "torch.compile" and killed["pid"] == child.pid
        assert killed["first"].startswith("fake torch.compile since ")
        child.join(10)
        assert not child.is_alive() and lock.acquire(timeout=1)  # the lock given back
        lock.release()
        assert holder.read_text() == ""
    finally:
        if child.is_alive():
            child.kill()


def test_the_parent_leaves_a_timing_worker_alone_until_the_lock_limit(bench, tmp_path):
    child, lock, meta, holder = _start_holder(bench, tmp_path, "timings")
    try:
        # long past the compile limit, but not in torch.compile: only --lock-s applies
        assert bench._watch(holder, lock, meta, compile_s=1, lock_s=600, now=time.time() + 300) is None
        assert child.is_alive() and not lock.acquire(timeout=0.1)
        killed = bench._watch(holder, lock, meta, compile_s=1, lock_s=600, now=time.time() + 601)
        assert killed["phase"] == "timings"
        child.join(10)
        assert not child.is_alive() and lock.acquire(timeout=1)
    finally:
        if child.is_alive():
            child.kill()


def test_the_lock_limit_is_a_quarter_of_the_budget(bench):
    # s48: 339 Sinkhorn's first calls held the GPU for 4 minutes of a 300 s run and 22 kernels never ran.
    assert bench.lock_default(None) == 600 and bench.lock_default(1e9) == 600
    assert bench.lock_default(300) == 75 and bench.lock_default(100) == 60
