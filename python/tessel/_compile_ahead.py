"""Compiling tuning candidates ahead of the search (seed 003: the runner compiles in parallel).

Each candidate's generated module has a `<kernel>_warmup` entry that compiles, without launching,
exactly the specialization its launch would. `ProcessPool` runs those entries in fresh worker
processes started as `python -m tessel._worker` (a forked CUDA context is unusable, and a spawned
multiprocessing worker would re-run the caller's script) on stand-ins of the arguments, so Triton writes each
kernel to its on-disk cache and the parent's first launch of the candidate only loads it.
`compile_on_threads` is the in-process alternative (Triton's asynchronous compile mode). Both are
only optimizations: any failure leaves the serial path to compile, and to report, that candidate.
"""
from __future__ import annotations

import importlib.util
import os
import pickle
import sys
import time

from . import _finder, _worker


class StandIn:
    """What Triton's warmup reads of a tensor argument (dtype, shape, strides, data pointer, device),
    picklable, so a worker compiles the caller's specialization (pointer alignment included) without
    the tensor's memory."""

    def __init__(self, t):
        self.dtype, self.shape, self.device = t.dtype, tuple(t.shape), t.device
        self._strides, self._pointer, self._size = tuple(t.stride()), t.data_ptr(), t.element_size()

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    def data_ptr(self):
        return self._pointer

    def element_size(self):  # the wrapper's tensor-descriptor (TMA) alignment check reads it
        return self._size


_modules: dict = {}  # per worker: generated file path -> module, loaded once


def compile_in_worker(path: str, module_name: str, entry: str, args, scalars: dict, device):
    """Worker side: runs the warmup `entry` of the module at `path`, loaded under the parent's module
    name, so the function Triton compiles is the parent's by name and source. Returns the wall-clock
    span of the compile."""
    started = time.time()
    if device is not None:
        import torch
        torch.cuda.set_device(device)
    module = _modules.get(path)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _modules[path] = module
    getattr(module, entry)(*args, **scalars)
    return started, time.time()


def warm_job(warm, tensors, scalars: dict) -> tuple:
    """The picklable job of one candidate: where its warmup entry is, and its arguments as stand-ins."""
    cuda = [t.device.index for t in tensors if getattr(t, "is_cuda", False)]
    return (warm.__globals__["__file__"], warm.__module__, warm.__name__, [StandIn(t) for t in tensors],
            dict(scalars), cuda[0] if cuda else None)


class WorkerLost(RuntimeError):
    """A compile worker exited (or could not start) while it had a job: the pool stops compiling ahead."""


class ProcessPool:
    """Compiles candidates ahead on `workers` processes started through tessel's own entry point
    (`python -m tessel._worker`, see _worker.py), so the caller's script is never re-run in them.
    `submit` queues a candidate's job; `wait` blocks until it is compiled (True), or says the serial
    path must compile it (False): the job raised, lost its worker, or ran past `timeout_s` since it
    was submitted. A worker that dies breaks the pool: later jobs go to the serial path at once."""

    def __init__(self, workers: int, timeout_s: float = 300.0, initializer=None, job=compile_in_worker):
        self.workers, self.timeout_s, self.initializer, self.job = workers, timeout_s, initializer, job
        self.processes: list = []  # subprocess.Popen of each worker
        self.broken, self.closing = False, False
        self.queue = None  # (future, payload) jobs not yet taken by a worker; None: one per worker stops it
        self.serving: list = []  # the thread that feeds each worker
        self.pending: dict = {}  # key -> (future, submitted at)
        self.seen: set = set()
        self.spans: list = []
        self.stats = {"mode": "process", "workers": workers, "submitted": 0, "compiled": 0, "failed": 0,
                      "timed_out": 0, "waited_s": 0.0, "compile_wall_s": 0.0}

    def submit(self, key, job_args: tuple) -> None:
        if key in self.seen or self.broken:
            return
        self.seen.add(key)
        try:
            if self.queue is None:
                self._start()
            from concurrent.futures import Future
            future = Future()
            self.queue.put((future, pickle.dumps((self.job, tuple(job_args)), protocol=pickle.HIGHEST_PROTOCOL)))
            self.pending[key] = (future, time.monotonic())
            self.stats["submitted"] += 1
        except Exception as e:  # noqa: BLE001 - a pool that cannot start stops here; unpicklable jobs too
            self._note(e)
            if self.queue is None or not self.processes:
                self.broken = True

    def _start(self) -> None:
        import queue
        import subprocess
        import threading
        # The worker imports jobs' functions (and tessel itself) from where this process does, in the
        # same order (its sys.path, and a toolchain's folder, `_cutile.toolchain`), then from the folder
        # tessel came from and the PYTHONPATH this process has now.
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(os.environ)
        paths = _finder.search_path() + [package_root] + env.get("PYTHONPATH", "").split(os.pathsep)
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(p for p in paths if p))
        self.queue = queue.Queue()
        for _ in range(self.workers):
            process = subprocess.Popen([sys.executable, "-m", "tessel._worker"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, env=env)
            self.processes.append(process)
            _worker.write_message(process.stdin, [self.initializer])
            thread = threading.Thread(target=self._serve, args=(process,), daemon=True,
                                      name=f"tessel-compile-worker-{process.pid}")
            thread.start()
            self.serving.append(thread)

    def _serve(self, process) -> None:
        """Feeds one worker jobs from the queue, one at a time, and settles their futures."""
        future = None
        try:
            hello = _worker.read_message(process.stdout)
            if hello is None or not hello[1]:
                raise hello[2] if hello is not None else self._lost(process)
            while True:
                item = self.queue.get()
                if item is None or self.closing:
                    return
                future, payload = item
                if not future.set_running_or_notify_cancel():
                    future = None
                    continue
                _worker.write_message(process.stdin, (0, payload))
                reply = _worker.read_message(process.stdout)
                if reply is None:
                    raise self._lost(process)
                (future.set_result if reply[1] else future.set_exception)(reply[2])
                future = None
        except BaseException as e:  # noqa: BLE001 - a lost worker breaks the pool: every waiting job fails now
            if self.closing:
                return
            self.broken = True
            if future is not None and not future.done():
                future.set_exception(e)
            self._fail_queued(e)

    def _lost(self, process) -> WorkerLost:
        try:
            status = process.wait(5)
        except Exception:  # noqa: BLE001 - still running: its pipe broke
            status = None
        return WorkerLost(f"compile worker {process.pid} exited" + (f" with status {status}" if status is not None else ""))

    def _fail_queued(self, e) -> None:
        import queue
        while True:
            try:
                item = self.queue.get_nowait()
            except queue.Empty:
                return
            if item is not None and item[0].set_running_or_notify_cancel():
                item[0].set_exception(e)

    def wait(self, key, deadline: float | None = None) -> bool | None:
        """`deadline` (time.monotonic()), when given and earlier than the job's own timeout, bounds the
        wait: None when the job is still running then (it stays pending; the caller gives it up)."""
        entry = self.pending.pop(key, None)
        if entry is None:
            return False
        future, submitted = entry
        started = time.monotonic()
        limit = submitted + self.timeout_s
        by_deadline = deadline is not None and deadline < limit
        try:
            self.spans.append(future.result(timeout=max(0.0, (deadline if by_deadline else limit) - started)))
            self.stats["compiled"] += 1
            return True
        except Exception as e:  # noqa: BLE001 - the serial path compiles it and reports its errors
            from concurrent.futures import TimeoutError as Timeout
            if isinstance(e, Timeout) and by_deadline:
                self.pending[key] = entry  # still compiling: close() counts or stops it
                return None
            self.stats["timed_out" if isinstance(e, Timeout) else "failed"] += 1
            self._note(e)
            return False
        finally:
            self.stats["waited_s"] += time.monotonic() - started

    def close(self) -> dict:
        """Stops the workers (killing any still compiling, so none outlives the search) and returns
        the statistics: jobs compiled (also those the search never reached), failed, timed out, the
        search's time spent waiting and the wall time the pool spent compiling."""
        for future, _ in self.pending.values():
            if future.done() and not future.cancelled() and future.exception() is None:
                self.spans.append(future.result())
                self.stats["compiled"] += 1
        self.stats["unfinished"] = sum(not f.done() for f, _ in self.pending.values())
        self.closing = True
        for future, _ in self.pending.values():
            future.cancel()
        if self.queue is not None:
            for _ in self.serving:
                self.queue.put(None)
        for p in self.processes:
            if p.poll() is None:
                p.kill()
        for p in self.processes:
            try:
                p.wait(5)
            except Exception:  # noqa: BLE001 - a worker the kernel has not reaped yet; nothing else to do
                pass
            for stream in (p.stdin, p.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
        for thread in self.serving:
            thread.join(5)
        if self.spans:
            self.stats["compile_wall_s"] = round(max(e for _, e in self.spans) - min(s for s, _ in self.spans), 2)
        self.stats["waited_s"] = round(self.stats["waited_s"], 2)
        return self.stats

    def _note(self, e) -> None:
        self.stats.setdefault("first_error", f"{type(e).__name__}: {e}"[:200])


def compile_on_threads(warms, tensors, scalars: dict, workers: int) -> int:
    """Compiles the candidates' warmup entries on a thread pool in Triton's asynchronous compile
    mode; returns how many were submitted. Raises whatever Triton raises (callers fall back)."""
    from concurrent.futures import ThreadPoolExecutor
    from triton.runtime._async_compile import AsyncCompileMode
    with ThreadPoolExecutor(max_workers=min(workers, len(warms))) as pool, \
            AsyncCompileMode(pool, ignore_errors=True):
        for warm in warms:
            warm(*tensors, **scalars)
    return len(warms)
