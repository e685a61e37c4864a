"""CPU checks of compiling tuning candidates ahead on worker processes (`python -m tessel._worker`).

Workers run module-level functions of tune_fakes.py (a worker imports them by name from the parent's
sys.path). A job that
raises, hangs or kills its worker must only send its candidate back to the serial path, quickly, and
no worker may outlive the search. The last test compiles a real candidate with Triton in a worker
(a fake CUDA driver stands in for the GPU: Triton compiles for sm_90 without one) and shows that the
parent's launch path then finds it in Triton's on-disk cache.
"""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "examples"))

from tessel import _compile_ahead, _tune  # noqa: E402
from tune_fakes import WarmedFake as _WarmedFake, fake_cuda_driver as _fake_cuda_driver, job as _job  # noqa: E402


def test_compiled_and_failing_jobs(tmp_path):
    pool = _compile_ahead.ProcessPool(2, timeout_s=120.0, job=_job)
    pool.submit("a", ("ok", str(tmp_path / "a")))
    pool.submit("raise", ("raise",))
    pool.submit("b", ("ok", str(tmp_path / "b")))
    pool.submit("a", ("ok", str(tmp_path / "again")))   # submitted once only
    assert pool.wait("a") and pool.wait("b")
    assert not pool.wait("raise")
    assert not pool.wait("never submitted")
    workers = list(pool.processes)
    stats = pool.close()
    assert {(tmp_path / n).read_text() for n in "ab"} <= {str(p.pid) for p in workers}
    assert all(int((tmp_path / n).read_text()) != os.getpid() for n in "ab")
    assert not (tmp_path / "again").exists()
    assert (stats["submitted"], stats["compiled"], stats["failed"], stats["timed_out"]) == (3, 2, 1, 0)
    assert stats["first_error"] == "RuntimeError: no compiler here"
    assert stats["mode"] == "process" and stats["workers"] == 2 and stats["compile_wall_s"] >= 0


def test_a_hanging_job_times_out_and_its_worker_does_not_outlive_the_pool(tmp_path):
    pool = _compile_ahead.ProcessPool(2, timeout_s=3.0, job=_job)
    marker = tmp_path / "hang"
    pool.submit("hang", ("hang", str(marker)))
    deadline = time.monotonic() + 120
    while not marker.exists() and time.monotonic() < deadline:  # the job is running in its worker
        time.sleep(0.05)
    started = time.monotonic()
    assert not pool.wait("hang")
    assert time.monotonic() - started < 10  # the 3 s timeout, not the job's 120 s (slack for a loaded machine)
    hung = next(p for p in pool.processes if p.pid == int(marker.read_text()))
    stats = pool.close()
    assert hung.poll() is not None
    assert stats["timed_out"] == 1 and stats["compiled"] == 0 and "TimeoutError" in stats["first_error"]


def test_a_search_deadline_before_the_jobs_timeout_gives_the_job_up_without_failing_it(tmp_path):
    # The search's budget ends while a candidate still compiles: wait() says None (not compiled, not
    # failed: the search skips it instead of compiling it again on the serial path), well before the
    # job's own 120 s timeout; close() stops the worker.
    pool = _compile_ahead.ProcessPool(2, timeout_s=120.0, job=_job)
    marker = tmp_path / "hang"
    pool.submit("hang", ("hang", str(marker)))
    started = time.monotonic()
    assert pool.wait("hang", deadline=started + 1.0) is None
    assert time.monotonic() - started < 10
    hung = [p for p in pool.processes]
    stats = pool.close()
    assert all(p.poll() is not None for p in hung)
    assert stats["failed"] == 0 and stats["compiled"] == 0


def test_a_worker_that_dies_ends_compiling_ahead_without_waiting_for_the_timeout(tmp_path):
    pool = _compile_ahead.ProcessPool(2, timeout_s=60.0, job=_job)
    pool.submit("die", ("die",))
    started = time.monotonic()
    assert not pool.wait("die")
    pool.submit("later", ("ok", str(tmp_path / "later")))
    assert not pool.wait("later")
    assert time.monotonic() - started < 30
    stats = pool.close()
    assert stats["failed"] == 1 and "WorkerLost" in stats["first_error"] and "status 3" in stats["first_error"]


def test_stand_ins_carry_what_a_warmup_reads():
    torch = pytest.importorskip("torch")
    x = torch.empty(6, 40)[:, 3:]
    s = _compile_ahead.StandIn(x)
    assert (s.dtype, s.shape, s.stride(), s.stride(1), s.data_ptr(), s.device) == \
        (x.dtype, (6, 37), (40, 1), 1, x.data_ptr(), x.device)
    import pickle
    assert pickle.loads(pickle.dumps(s)).stride() == (40, 1)


def _tune_fake(tmp_path, monkeypatch, body="pass"):
    torch = pytest.importorskip("torch")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # other tests set it for the whole session
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setenv("MARKS", str(marks))
    x, y = torch.ones(37), torch.empty(37)
    fake = _WarmedFake(tmp_path, y, body)
    best, report = _tune.tune(fake, [x, y], {}, {}, timer=lambda fn: (fn(), 1.0)[1], verbose=False,
                              compile_workers=2)
    return best, report, marks


def test_tune_compiles_the_candidates_ahead_on_worker_processes(tmp_path, monkeypatch):
    best, report, marks = _tune_fake(tmp_path, monkeypatch)
    ahead = report["compile_ahead"]
    assert report["timed"] == 8 and not report["rejected"]
    # Every candidate but the default (checked before any is handed out) was compiled ahead.
    assert (ahead["submitted"], ahead["compiled"], ahead["failed"], ahead["timed_out"]) == (7, 7, 0, 0)
    seen = sorted(p.name for p in marks.iterdir())
    assert len(seen) == 7 and "cand_128_1" not in seen
    for p in marks.iterdir():
        pid, kind, shape, stride, same_pointer = p.read_text().split(" ", 4)
        assert int(pid) != os.getpid()
        assert (kind, shape, stride, same_pointer) == ("StandIn", "(37,)", "(1,)", "True")


def test_tune_falls_back_to_the_serial_path_when_every_worker_compile_fails(tmp_path, monkeypatch):
    best, report, marks = _tune_fake(tmp_path, monkeypatch, body='raise RuntimeError("ptxas died")')
    ahead = report["compile_ahead"]
    assert report["timed"] == 8 and not report["rejected"]
    assert (ahead["compiled"], ahead["failed"]) == (0, 7)
    assert ahead["first_error"] == "RuntimeError: ptxas died"


_UNGUARDED = """
import os, pathlib, torch
import tune_fakes
from tessel import _tune
with open(os.environ["RUNS"], "a") as f:   # no `if __name__ == "__main__":` guard around any of this
    f.write(f"{os.getpid()}\\n")
x, y = torch.ones(37), torch.empty(37)
fake = tune_fakes.WarmedFake(pathlib.Path(os.environ["WORK"]), y)
best, report = _tune.tune(fake, [x, y], {}, {}, timer=lambda fn: (fn(), 1.0)[1], verbose=False,
                          compile_workers=2)
print(report["compile_ahead"]["compiled"], report["timed"])
"""


def test_workers_never_rerun_an_unguarded_script(tmp_path):
    # A spawned multiprocessing worker imports the caller's script as its main module: an unguarded
    # body ran again in every worker (each of which tuned again). tessel's workers run its own entry
    # point, so the script's side effects happen once, and the workers still compile every candidate.
    pytest.importorskip("torch")
    script, runs, work, marks = tmp_path / "unguarded.py", tmp_path / "runs", tmp_path / "work", tmp_path / "marks"
    script.write_text(_UNGUARDED)
    work.mkdir()
    marks.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(RUNS=str(runs), WORK=str(work), MARKS=str(marks),
               PYTHONPATH=os.pathsep.join(str(ROOT / d) for d in ("python", "python/tests")))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["7", "8"]
    assert len(runs.read_text().splitlines()) == 1
    assert len(list(marks.iterdir())) == 7


def test_compile_ahead_is_off_under_the_interpreter_and_below_two_workers(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    fake = _WarmedFake(tmp_path, torch.empty(5))
    for workers, interpret in ((2, "1"), (1, "0")):
        monkeypatch.setenv("TRITON_INTERPRET", interpret)
        best, report = _tune.tune(fake, [torch.ones(5), torch.empty(5)], {}, {}, verbose=False,
                                  timer=lambda fn: (fn(), 1.0)[1], compile_workers=workers)
        assert "compile_ahead" not in report and report["timed"] == 8


_PARENT = """
import sys, torch, tune_fakes, matmul
tune_fakes.fake_cuda_driver()
args = [torch.empty(256, 256, dtype=torch.bfloat16) for _ in range(3)]
count = lambda: len(list(__import__("pathlib").Path(sys.argv[1]).iterdir()))
before = count()
matmul.matmul._warmup({}, eval(sys.argv[2]))(*args)   # compiled ahead: found in the cache
ahead = count()
matmul.matmul._warmup({}, eval(sys.argv[3]))(*args)   # not compiled ahead: a new entry
print(before, ahead, count())
"""


def test_a_worker_compile_is_a_cache_hit_for_the_parents_launch_path(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton.backends.nvidia.driver")
    import tessel
    import matmul
    for var, sub in (("TESSEL_CACHE", "tessel"), ("TRITON_CACHE_DIR", "triton")):
        (tmp_path / sub).mkdir()
        monkeypatch.setenv(var, str(tmp_path / sub))
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    kernel = tessel.kernel(matmul.matmul.fn)  # a fresh launcher cache, in this TESSEL_CACHE
    compiled = dict(TILE_0=64, TILE_1=32, TILE_K=32, GROUP_0=8, WARPS=4, STAGES=2)
    other = dict(compiled, TILE_1=64)
    args = [torch.empty(256, 256, dtype=torch.bfloat16) for _ in range(3)]
    pool = _compile_ahead.ProcessPool(2, timeout_s=240.0, initializer=_fake_cuda_driver)
    pool.submit("c", _compile_ahead.warm_job(kernel._warmup({}, compiled), args, {}))
    assert pool.wait("c"), pool.close()
    pool.close()
    kernel._warmup({}, other)  # its generated module, so the parent script only compiles with Triton
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(ROOT / d) for d in ("python", "examples", "python/tests")))
    r = subprocess.run([sys.executable, "-c", _PARENT, str(tmp_path / "triton"), repr(compiled), repr(other)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["1", "1", "2"]
