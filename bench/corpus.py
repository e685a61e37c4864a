"""The corpus on a GPU: every bench/corpus kernel at its bench shape against its torch peer, eager and under
torch.compile, in one process, correctness first. Writes one JSON (and a JSON line per kernel as it ends,
so a run cut short keeps what ran): --out and --lines, by default corpus.json and corpus.jsonl in $OUT where
it is set, else in a new temporary folder (printed at the end); never bench/results/corpus.json unless named
(the published GPU table; a --cpu-smoke run refuses it).

    python3 bench/corpus.py [--only NAME,NAME] [--skip NAME,...] [--out FILE] [--lines FILE]
                            [--no-compile] [--budget-s S] [--jobs N] [--cpu-smoke]
                            [--compile-s S] [--call-s S] [--lock-s S]
    python3 bench/corpus.py --variants [--only NAME,NAME] [--budget-s S] [--kernel-s S] [--out FILE]

Per kernel: (1) the tessel kernel at the largest test shape against the NumPy reference; (2) at the bench
shape against the eager peer (BENCH_TOLERANCE, else TOLERANCE); (3) medians of CUDA-event timings
(triton.testing.do_bench) of the tessel call, the eager peer and torch.compile(peer). Ratios are peer
time / tessel time (above 1: tessel is faster); the summary's geomean is over kernels that ran correctly
against torch.compile. A kernel's failure is recorded and the run goes on.

No kernel holds the GPU for long: a function one call of which takes over 20 ms is timed with a few single
calls, one over --call-s (default 2) once (the record's `too_slow`; `timing` says how each was timed);
torch.compile's first call of a peer past --compile-s (default 90) leaves the peer eager; with --jobs N the
parent kills a worker still in torch.compile 15 s after that (the peer then timed eager in a new worker) or
holding the GPU lock past --lock-s (default a quarter of --budget-s, 60 to 600 s; recorded failed), and gives the lock back.

--variants (issue 47): no timings; per kernel, the call's default binding and every declared parameter
moved alone to each other candidate (then all at their smallest, all at their largest: the bindings of
bench/corpus/variants.py), each launched at the largest test shape against the NumPy reference and at
the bench shape against the eager peer. Bindings the resource model refuses are listed, not run. Writes
one JSON line per kernel (--lines) and the whole to --out (default corpus-variants.json beside the lines).
"""
import argparse
import json
import math
import os
import pathlib
import sys
import tempfile
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
# The published GPU table (README, bench/corpus/RESULTS.md): written only when --out names it.
PUBLISHED = HERE / "results" / "corpus.json"
sys.path.insert(0, str(HERE / "corpus"))
import _harness as H  # noqa: E402


def _torch_inputs(inputs: dict, mod, device: str) -> dict:
    import numpy as np
    import torch
    out = {}
    specs = {p.name: p for p in H.params(mod)}
    for k, v in inputs.items():
        if isinstance(v, np.ndarray):
            # a copy, always (as _harness.torch_args): on the CPU from_numpy would share the array, and a peer
            # that updates its inputs in place would change the arrays later calls start from
            t = torch.tensor(np.ascontiguousarray(v)).to(device)
            if specs[k].kind == "view" and specs[k].spec.dtype.name == "bf16":
                t = t.to(torch.bfloat16)
            elif specs[k].kind == "view" and specs[k].spec.dtype.name in H._TORCH_F8:
                t = t.to(getattr(torch, H._TORCH_F8[specs[k].spec.dtype.name]))
            out[k] = t
        else:
            out[k] = v
    return out


def _close(got, want, tol, unrounded=None, fields=None, scores=None) -> tuple[str | None, int]:
    """(None or why `got` disagrees with the peer's `want`, how many tie flips were let pass).
    `unrounded`: an array, a function giving one (called only when some element is off), or None.
    `fields`: the file's FIELDS[name] (a packed output's integer fields, see TIE_ULPS) or None.
    `scores`: like `unrounded`, for an index output (see ARG_SCORES). Every element within `tol`, except that an
    integer output may differ by one step where `unrounded` (the file's value before rounding, see
    TIE_ULPS) shows that the two sides round a near-tie apart, and an index output may name another
    index where `scores` shows that both name a near-best score (_arg_ties)."""
    import torch
    if fields is not None:  # compare the values packed into the integers, each with the tie rule
        got, want = fields(got.detach()), fields(want.detach())
    g, w = got.detach().double(), want.detach().double()
    if g.shape != w.shape:
        return f"shape {tuple(g.shape)} vs peer {tuple(w.shape)}", 0
    if math.isinf(tol["atol"]):  # no value check (119's peer draws its own random numbers): isclose would
        return None, 0            # compute inf * 0 = NaN for a zero element and call every such pair apart
    bad = ~torch.isclose(g, w, rtol=tol["rtol"], atol=tol["atol"], equal_nan=True)
    flips = 0
    if unrounded is not None and not got.is_floating_point() and not want.is_floating_point() and bool(bad.any()):
        if callable(unrounded):  # the value before rounding, drawn only when an integer element is off
            unrounded = unrounded()
        tie = _tie_flips(g, w, torch.as_tensor(unrounded, dtype=torch.float64).to(g.device))
        flips = int((bad & tie).sum())
        bad &= ~tie
    if scores is not None and not got.is_floating_point() and not want.is_floating_point() and bool(bad.any()):
        if callable(scores):  # the candidates' scores, drawn only when an index is off
            scores = scores()
        tie = _arg_ties(g, w, torch.as_tensor(scores, dtype=torch.float64).to(g.device), tol)
        flips += int((bad & tie).sum())
        bad &= ~tie
    n = int(bad.sum())
    if n:
        at = tuple(int(i) for i in bad.nonzero()[0])
        return f"{n} of {bad.numel()} differ from the peer; first at {at}: {float(g[at])} vs {float(w[at])}", flips
    return None, flips


# A quantized output (an integer view the file rounds a float into) may differ from the peer by one step
# where the exact value lies within TIE_ULPS f32 ulps of a rounding tie (k + 1/2): two correct f32
# computations of that value (torch divides by a CPU scalar as a multiply by its reciprocal, takes rsqrt
# where the reference divides by a sqrt, sums in another order) differ by a few ulps, so either neighbour
# of the tie is a correct rounding. Everywhere else integers must agree exactly. The file declares the
# value before rounding as UNROUNDED[name](**inputs) (NumPy, the reference's own computation, the output's
# shape); an output it does not declare stays exact. The record counts the flips let pass (tie_flips).
# An output that packs several rounded integers into one (two 4-bit values a byte) declares FIELDS[name]:
# a function from the output tensor to its integer fields (torch, a trailing axis of fields); both sides
# are compared field by field, and UNROUNDED[name] then has the fields' shape. Inductor divides f32 with
# Triton's `/` (div.full.f32, 2 ulps; torch._inductor.config.eager_numerics.division_rounding is off by
# default) where tessel and eager torch divide correctly rounded: at an exact tie (bf16 data, scale
# absmax / 7) the compiled peer's quotient lands an ulp off and rounds the other way.
TIE_ULPS = 32


def _tie_flips(g, w, u):
    """Where the integers g and w (float64 tensors) are the two neighbours of a tie that the exact value u
    lies within TIE_ULPS f32 ulps of."""
    import torch
    near = torch.floor(u) + 0.5                       # the tie between floor(u) and floor(u) + 1
    _, e = torch.frexp(torch.abs(u))                  # |u| = m * 2**e, m in [0.5, 1): an f32 ulp is 2**(e - 24)
    close = torch.abs(u - near) <= TIE_ULPS * torch.exp2(e.double() - 24)
    lo, hi = torch.minimum(g, w), torch.maximum(g, w)
    return close & (hi - lo == 1) & (lo == torch.floor(u))


# An index output (an argmin or argmax over candidates) may name another candidate than the peer's where
# the two candidates' exact scores agree within the file's bench tolerance, the one its value outputs are
# held to: the sides compute the scores in f32 in different ways (171_kmeans_assign's peer torch.cdist
# takes x.x + c.c - 2 x.c through a matrix product, the kernel sums (c - x)^2), so near-ties order either
# way. The file declares the scores as ARG_SCORES[name](**inputs) (NumPy, the reference's computation, the
# output's shape plus a last axis over the candidates); the flips are counted (tie_flips) and both
# indices must name a score within that tolerance of the best one. An undeclared index output stays exact.
def _arg_ties(g, w, s, tol):
    """Where the indices g and w (float64 tensors) both name a score of s (the candidates on its last
    axis) within `tol` of the best score, each picking the best (lowest or highest) in its own rounding."""
    import torch
    k = s.shape[-1]
    inside = (g >= 0) & (g < k) & (w >= 0) & (w < k)
    gi, wi = g.clamp(0, k - 1).long().unsqueeze(-1), w.clamp(0, k - 1).long().unsqueeze(-1)
    sg, sw = s.gather(-1, gi).squeeze(-1), s.gather(-1, wi).squeeze(-1)

    def close(a, b):
        return torch.isclose(a, b, rtol=tol["rtol"], atol=tol["atol"])
    lo, hi = s.amin(-1), s.amax(-1)  # an argmin's best, an argmax's
    return inside & close(sg, sw) & ((close(sg, lo) & close(sw, lo)) | (close(sg, hi) & close(sw, hi)))


def _arg_scores(mod, name, inputs):
    """A function giving the file's candidate scores behind index output `name` at these inputs, or None
    (see _arg_ties)."""
    fn = (getattr(mod, "ARG_SCORES", None) or {}).get(name)
    if fn is None:
        return None
    import numpy as np
    return lambda: np.asarray(fn(**inputs), dtype=np.float64)


def _fields(mod, name):
    """The file's FIELDS[name] (see TIE_ULPS), or None."""
    return (getattr(mod, "FIELDS", None) or {}).get(name)


# A float output whose peer computes a less exact formula than the file's (152_w8a16_gemm's peer rounds the
# dequantized weight to f16 before the product, about 0.016 of error at K 8192 where the output crosses
# zero, and the bench tolerance is relative to the output) declares REFEREE[name] = "why": where the kernel
# and the peer disagree past the bench tolerance, the NumPy reference at the bench shape decides, and each
# such element passes when the kernel's value is within the file's TOLERANCE (the test shapes' check, not
# the bench's 4x) of it. The record counts the elements the reference settled (refereed).
def _referee(mod, name, got, want, tol, inputs, memo: dict) -> tuple[str | None, int]:
    """(None or why `got` fails, how many of its elements off the peer the reference settled) for an output
    the file names in REFEREE (see above); memo holds the reference's outputs once drawn."""
    import torch
    if "ref" not in memo:
        memo["ref"] = H.expected(mod, inputs)
    g, w = got.detach().double(), want.detach().double()
    ref = torch.as_tensor(memo["ref"][name], dtype=torch.float64).to(g.device)
    if ref.shape != g.shape:
        return f"shape {tuple(g.shape)} vs reference {tuple(ref.shape)}", 0
    off_peer = ~torch.isclose(g, w, rtol=tol["rtol"], atol=tol["atol"], equal_nan=True)
    strict = mod.TOLERANCE
    off_ref = ~torch.isclose(g, ref, rtol=strict["rtol"], atol=strict["atol"], equal_nan=True)
    bad = off_peer & off_ref
    n = int(bad.sum())
    if n:
        at = tuple(int(i) for i in bad.nonzero()[0])
        return (f"{n} of {bad.numel()} differ from the peer and from the reference; first at {at}: "
                f"{float(g[at])} vs peer {float(w[at])}, reference {float(ref[at])}"), 0
    return None, int(off_peer.sum())


def _against_peer(mod, name, got, want, tol, inputs, memo: dict) -> tuple[str | None, int, int]:
    """(None or why, tie flips let pass, elements the reference settled) for output `name` at the bench
    shape: _close, then REFEREE's rule where the file declares it."""
    msg, flips = _close(got, want, tol, _unrounded(mod, name, inputs), _fields(mod, name),
                        scores=_arg_scores(mod, name, inputs))
    settled = 0
    if msg and name in (getattr(mod, "REFEREE", None) or {}):
        msg, settled = _referee(mod, name, got, want, tol, inputs, memo)
    return msg, flips, settled


def _unrounded(mod, name, inputs):
    """A function giving the file's value of output `name` before rounding at these inputs, or None (see
    TIE_ULPS)."""
    fn = (getattr(mod, "UNROUNDED", None) or {}).get(name)
    if fn is None:
        return None
    import numpy as np
    return lambda: np.asarray(fn(**inputs), dtype=np.float64)


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def acquire(self, *a, **k):
        return True

    def release(self):
        pass


_LOCK = _NoLock()
# --cpu-smoke: the whole script on the CPU (TRITON_INTERPRET=1) at each kernel's smallest test shape, timed
# with a wall clock: it checks the script and the files, not speed.
_SMOKE = os.environ.get("TESSEL_CORPUS_SMOKE") == "1"
DEVICE = "cpu" if _SMOKE else "cuda"
# One call of a function being timed (the tessel kernel, the eager or the compiled peer) is probed first.
# Past _SLOW_MS a call is long enough that do_bench's repetitions (five calls to estimate, then enough for
# 100 ms, on top of its warm-up) buy nothing: a few single calls are timed instead, within about
# _SLOW_BUDGET_S. Past --call-s (_CALL_S) the function is "too slow": the probe is its one timing. The
# tessel kernel's first call (Triton's JIT included) counts as that probe when it already took longer:
# 23_mla_decode's and 315's calls took seconds and do_bench held the GPU lock for 7+ minutes.
_SLOW_MS = 20.0
_SLOW_BUDGET_S = 2.0
_CALL_S = float(os.environ.get("TESSEL_CORPUS_CALL_S", "2"))
# A first call past this many times --call-s is the probe itself (not called again; see _timed_ms).
_REPROBE = 15


def _one_call_ms(fn) -> float:
    """One call of `fn`, timed to its end on the device (CUDA events; a wall clock on the CPU)."""
    if DEVICE == "cuda":
        import torch
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end)
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def _median_ms(fn):
    if not _SMOKE:
        from triton.testing import do_bench
        return do_bench(fn, warmup=25, rep=100, return_mode="median")
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return sorted(times)[1]


def _timed_ms(fn, known_ms: float | None = None) -> tuple[float, str]:
    """(milliseconds of one call of `fn`, how it was timed). `known_ms`: a call already timed (the first
    call, Triton's JIT compile at the bench shape included), taken as the probe when it is past
    _REPROBE x --call-s (30 s); a first call between --call-s and that is mostly the JIT compile (seconds for a large
    kernel on a machine compiling six at once: s47 recorded 249, 280, 235 and 349 at 3-8 s a call that
    way), so it is called again. See _SLOW_MS."""
    slow_first = known_ms is not None and known_ms > _REPROBE * _CALL_S * 1e3
    probe = known_ms if slow_first else _one_call_ms(fn)
    if probe > _CALL_S * 1e3:
        return probe, f"once: too slow: one call took {probe / 1e3:.1f} s"
    if probe <= _SLOW_MS:
        return _median_ms(fn), "median" if _SMOKE else "do_bench"
    reps = max(2, min(10, int(_SLOW_BUDGET_S * 1e3 / probe)))
    times = sorted(_one_call_ms(fn) for _ in range(reps))
    return times[(reps - 1) // 2], f"median of {reps} single calls (one took {probe:.1f} ms)"


def _sync():
    import torch
    if DEVICE == "cuda":
        torch.cuda.synchronize()


# Seconds torch.compile's first call of a peer may take (--compile-s): Inductor unrolls a peer's Python
# loop over time or over tensors (224's recurrence, 311's tensor list) for minutes while it holds the GPU
# lock, and no other kernel of the run is timed meanwhile. Past it the peer is timed eager. Two guards:
# _time_limit in the worker (a signal, which a compile may swallow or not see while it runs C code), and
# with --jobs N the parent (_watch), which kills a worker still in torch.compile _KILL_GRACE_S later, gives
# the GPU lock back and runs the kernel again with its peer eager (311's compile held the lock past the
# signal's limit).
_COMPILE_S = float(os.environ.get("TESSEL_CORPUS_COMPILE_S", "90"))
_KILL_GRACE_S = 15.0


class _time_limit:
    """Raises TimeoutError in the main thread after `seconds`, and again every second after until the
    block ends (a compile that catches the first one gets the next); SIGALRM, a no-op off the main thread."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def _raise(self, *_):
        raise TimeoutError(f"torch.compile's first call took over {self.seconds:g} s (--compile-s)")

    def __enter__(self):
        import signal
        import threading
        self.armed = threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGALRM")
        if self.armed:
            self.old = signal.signal(signal.SIGALRM, self._raise)
            signal.setitimer(signal.ITIMER_REAL, self.seconds, 1.0)
        return self

    def __exit__(self, *exc):
        if self.armed:
            import signal
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)
        return False


# With --jobs N: the GPU lock (_LOCK), the note of its holder (_HOLDER: a file, "NAME PHASE since HH:MM:SS"
# then a JSON line with the worker's pid and times, read by the parent's _watch) and the lock that makes
# writing the note and releasing the GPU lock one step for the parent (_META).
_HOLDER = None
_META = _NoLock()


def _init_worker(lock, holder=None, meta=None):
    global _LOCK, _HOLDER, _META
    _LOCK, _HOLDER, _META = lock, holder, meta or _NoLock()


_held = {}


def _note(name: str | None, phase: str = ""):
    """Writes the holder's note (None: clears it); with _META held."""
    if not _HOLDER:
        return
    if name is None:
        pathlib.Path(_HOLDER).write_text("")
        return
    now = time.time()
    if _held.get("name") != name:
        _held.update(name=name, since=now)
    line = json.dumps({"name": name, "phase": phase, "pid": os.getpid(), "since": _held["since"], "phase_t": now})
    pathlib.Path(_HOLDER).write_text(f"{name} {phase} since {time.strftime('%H:%M:%S')}\n{line}\n")


def _holding(name: str, phase: str):
    """Note which kernel holds the GPU lock, in which phase: a run whose budget ends names it, and the
    parent's _watch ends a phase that runs past its limit."""
    with _META:
        _note(name, phase)


class _gpu:
    """`with _gpu(name, phase)`: the GPU lock held, its holder noted; the note cleared and the lock given
    back in one step under _META (the parent kills a holder only under _META, so the lock of a worker it
    killed is still held)."""

    def __init__(self, name: str, phase: str):
        self.name, self.phase = name, phase

    def __enter__(self):
        _LOCK.acquire()
        _held.clear()
        _holding(self.name, self.phase)
        return self

    def __exit__(self, *exc):
        with _META:
            _note(None)
            _LOCK.release()
        return False


def _alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie, killed and not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError, ProcessLookupError):
        return False


def lock_default(budget_s: float | None) -> float:
    """--lock-s's default: a quarter of the run's budget, at least 60 s and at most 600 s."""
    return 600.0 if budget_s is None else min(600.0, max(60.0, budget_s / 4))


def _watch(holder, lock, meta, compile_s: float, lock_s: float, now: float | None = None):
    """The parent's guard (--jobs N): when the note in `holder` shows a worker in torch.compile for longer
    than compile_s + _KILL_GRACE_S, or holding the GPU lock for longer than lock_s, kills that worker,
    gives the lock back and returns the note ({name, phase, pid, since, phase_t, first}); else None."""
    import signal
    with meta:
        try:
            lines = pathlib.Path(holder).read_text().splitlines()
            note = json.loads(lines[1])
        except (OSError, IndexError, ValueError):
            return None
        now = time.time() if now is None else now
        over_compile = note["phase"] == "torch.compile" and now - note["phase_t"] > compile_s + _KILL_GRACE_S
        if not over_compile and now - note["since"] <= lock_s:
            return None
        note["first"] = lines[0]
        try:
            os.kill(note["pid"], signal.SIGKILL)
        except ProcessLookupError:
            pass
        end = time.time() + 60
        while _alive(note["pid"]) and time.time() < end:
            time.sleep(0.05)
        if not _alive(note["pid"]):  # one stuck in the driver past a minute keeps the lock: nothing else is safe
            pathlib.Path(holder).write_text("")
            try:
                lock.release()
            except ValueError:  # not held after all (released too many times)
                pass
        return note


def bench_one(name: str, compile_peer: bool) -> dict:
    """One kernel. With --jobs N several run at once: drawing inputs and tessel's compile overlap; all GPU
    work (Triton's JIT, Inductor's first call, checks, timings) holds one lock, one kernel at a time."""
    import torch

    mod = H.load(name)
    rec = {"name": name, "peer": getattr(mod, "PEER", "")}
    if getattr(mod, "XFAIL", None):
        rec["xfail"] = mod.XFAIL
    # (1) against the NumPy reference at the largest test shape, first: the check draws the test shape's
    # inputs, and a file whose inputs() keeps the shape for its peer (101_sorted_segment_sum_b's out extent
    # S) must see the bench shape's last -- else its peer indexes past its output (a device-side assert
    # that poisons every later kernel of the run).
    small = max(mod.TEST_SHAPES, key=lambda s: math.prod(s.values()))
    # Seconds by phase (waits for the GPU lock apart): where a run's budget goes.
    phases = rec["phases_s"] = {"wait": 0.0}
    t0 = time.time()
    with _gpu(name, "check"):
        phases["wait"] += time.time() - t0
        t0 = time.time()
        msg = H.check(mod, small, 1, "triton", DEVICE)
        phases["check"] = time.time() - t0
    rec["reference_check"] = msg or "ok"
    if msg:
        rec["error"] = f"reference check at {small}: {msg}"
        return rec
    # Outside the lock: drawing the bench inputs (NumPy: seconds at the bench shapes) and tessel's compile
    # to source (CPU work), once. Everything that touches the GPU (copies, Triton's JIT, Inductor's first
    # call, checks, timings) holds the lock, so no other kernel's work overlaps a timing.
    shape = dict(min(mod.TEST_SHAPES, key=lambda s: math.prod(s.values())) if _SMOKE else mod.BENCH_SHAPE)
    rec["shape"] = shape
    t0 = time.time()
    inputs = H.draw(mod, shape, seed=2)
    phases["draw"] = time.time() - t0
    t0 = time.time()
    mod.KERNEL.source(constexprs=getattr(mod, "CONSTEXPRS", {}) or None)
    phases["source"] = time.time() - t0
    t0 = time.time()
    with _gpu(name, "bench calls"):
        phases["wait"] += time.time() - t0
        t_lock = time.time()
        views, kw = H.torch_args(mod, shape, inputs, DEVICE)
        tin = _torch_inputs(inputs, mod, DEVICE)
        t0 = time.time()
        mod.KERNEL(*views, **kw)
        _sync()
        first_s = time.time() - t0
        rec["first_call_s"] = round(first_s, 2)
        # (2) at the bench shape against the peer: the first call's outputs (its views were made from the
        # drawn arrays, which stay on the host untouched), so a kernel whose one call takes seconds is not
        # called again for the check; the timings below call it on these views again (an InOut kernel,
        # 38_adamw's param and moments, keeps updating them: the peer check is done by then).
        ours = H.outputs_of(mod, views)
        compiled = None
        # A peer its author names as eager (a Python loop over time) is timed as written: Inductor would
        # unroll the loop and not finish compiling.
        if compile_peer and not str(getattr(mod, "PEER", "")).lower().startswith("eager"):
            try:
                _holding(name, "torch.compile")
                compiled = torch.compile(mod.peer)
                t0 = time.time()
                with _time_limit(_COMPILE_S):
                    compiled(**tin)
                    _sync()
                rec["compile_s"] = round(time.time() - t0, 1)
            except Exception as e:  # a peer that does not compile is recorded, not fatal
                compiled = None
                rec["compile_error"] = f"{type(e).__name__}: {str(e)[:300]}"
        _holding(name, "peer check")
        # The peer on fresh inputs: torch.compile's first call above ran it on `tin`, and a peer that
        # updates its inputs in place (50_fused_add_rmsnorm_inplace's residual.add_) would add twice.
        # The compiled peer where there is one: an eager FlexAttention peer materializes the whole score
        # matrix (115_chunked_local_attention at S 8192: 32 GiB), and compiled is what the author names.
        # Its call is under the compile limit too (a guard that fails on fresh tensors compiles again).
        tin = _torch_inputs(inputs, mod, DEVICE)
        theirs = None
        if compiled is not None:
            try:
                with _time_limit(_COMPILE_S):
                    theirs = compiled(**_torch_inputs(inputs, mod, DEVICE))
                    _sync()
            except TimeoutError as e:
                compiled = None
                rec["compile_error"] = f"{type(e).__name__}: {str(e)[:300]} (its second call)"
        if theirs is None:
            theirs = mod.peer(**_torch_inputs(inputs, mod, DEVICE))
        tol = getattr(mod, "BENCH_TOLERANCE", None) or {k: 4 * v for k, v in mod.TOLERANCE.items()}
        memo = {}
        for k, want in theirs.items():
            if k not in ours:
                continue
            msg, flips, settled = _against_peer(mod, k, ours[k], want, tol, inputs, memo)
            if flips:
                rec.setdefault("tie_flips", {})[k] = flips
            if settled:
                rec.setdefault("refereed", {})[k] = settled
            if msg:
                rec["error"] = f"bench shape, output {k}: {msg}"
                return rec
        rec["peer_check"] = "ok"
        phases["calls_and_peer_check"] = time.time() - t_lock
        t0 = time.time()
        _holding(name, "timings")
        # (3) timings
        # (bounded: see _SLOW_MS; rec["timing"] says how each was timed, rec["too_slow"] names a kernel
        # timed once)
        how = rec["timing"] = {}
        rec["tessel_ms"], how["tessel"] = _timed_ms(lambda: mod.KERNEL(*views, **kw), first_s * 1e3)
        if how["tessel"].startswith("once: "):
            rec["too_slow"] = how["tessel"][len("once: "):]
        try:
            rec["eager_ms"], how["eager"] = _timed_ms(lambda: mod.peer(**tin))
        except torch.OutOfMemoryError as e:  # recorded; the compiled peer still compares
            rec["eager_error"] = f"OutOfMemoryError: {str(e)[:120]}"
            torch.cuda.empty_cache()
        if compiled is not None:
            rec["compile_ms"], how["compile"] = _timed_ms(lambda: compiled(**tin))
        phases["timing"] = time.time() - t0
    rec["phases_s"] = {k: round(v, 1) for k, v in phases.items()}
    if "eager_ms" in rec:
        rec["vs_eager"] = rec["eager_ms"] / rec["tessel_ms"]
    if "compile_ms" in rec:
        rec["vs_compile"] = rec["compile_ms"] / rec["tessel_ms"]
    rec["vs_best_peer"] = min(rec.get("eager_ms", math.inf), rec.get("compile_ms", math.inf)) / rec["tessel_ms"]
    if hasattr(mod, "OPS"):
        flops, nbytes = mod.OPS(shape)
        s = rec["tessel_ms"] * 1e-3
        rec["tessel_tflops"], rec["tessel_gbps"] = flops / s / 1e12, nbytes / s / 1e9
    return rec


def _run(name: str, compile_peer: bool, note: dict | None = None) -> dict:
    """bench_one's record, an exception recorded; `note`: fields to add (why the peer runs eager)."""
    import torch
    t0 = time.time()
    try:
        rec = bench_one(name, compile_peer)
    except Exception as e:
        rec = {"name": name, "error": f"{type(e).__name__}: {str(e)[:500]}",
               "traceback": traceback.format_exc()[-2000:]}
    rec.update(note or {})
    rec["wall_s"] = round(time.time() - t0, 1)
    if DEVICE == "cuda":
        torch.cuda.empty_cache()
    return rec


def summary(records: list) -> dict:
    def geo(xs):
        return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None
    vc = [r["vs_compile"] for r in records if "vs_compile" in r]
    vb = [r["vs_best_peer"] for r in records if "vs_best_peer" in r]
    return {"kernels": len(records), "timed": len(vb), "failed": sum("error" in r for r in records),
            "geomean_vs_compile": geo(vc), "geomean_vs_best_peer": geo(vb),
            "below_0.8_vs_compile": sorted(r["name"] for r in records if r.get("vs_compile", 1) < 0.8)}


def variants_one(name: str, kernel_s: float) -> dict:
    """--variants for one kernel on the GPU: {"name", "results": [{label, verdict, detail, binding}]}."""
    import torch
    import variants as V
    mod = H.load(name)
    rec = {"name": name, "results": []}
    why = H.marked(mod, "SKIP", "triton") or H.marked(mod, "XFAIL", "triton")
    if why:
        rec["skipped"] = f"marked for the triton path: {why}"
        return rec
    cx = getattr(mod, "CONSTEXPRS", {}) or {}
    space = V.space_of(mod.KERNEL, cx)
    rec["space"] = {n: c for n, (c, _) in space.items()}
    small = max(mod.TEST_SHAPES, key=lambda s: math.prod(s.values()))
    shape = dict(min(mod.TEST_SHAPES, key=lambda s: math.prod(s.values())) if _SMOKE else mod.BENCH_SHAPE)
    s_inputs = H.draw(mod, small, 1)
    s_want = H.expected(mod, s_inputs)
    inputs = H.draw(mod, shape, seed=2)
    theirs = mod.peer(**_torch_inputs(inputs, mod, DEVICE))
    memo = {}  # the reference at the bench shape, drawn once where a REFEREE output needs it
    tol = getattr(mod, "BENCH_TOLERANCE", None) or {k: 4 * v for k, v in mod.TOLERANCE.items()}
    views, kw = H.torch_args(mod, shape, inputs, DEVICE)
    base = {n: int(v) for n, v in mod.KERNEL.call_defaults(*views, **kw).items()}
    start = time.time()
    for label, binding in V.moves(space, base):
        r = {"label": label, "binding": binding}
        rec["results"].append(r)
        if time.time() - start > kernel_s:
            r.update(verdict="budget", detail="not run: --kernel-s spent")
            continue
        why = V.refused(mod.KERNEL, cx, binding)
        if why:
            r.update(verdict="refused", detail=f"resource model: {why}")
            continue
        try:
            sv, skw = H.torch_args(mod, small, s_inputs, DEVICE)
            V.launch(mod, binding, sv, skw)
            got = {k: v.detach().float().cpu().numpy() if v.is_floating_point() else v.cpu().numpy()
                   for k, v in H.outputs_of(mod, sv).items()}
            msg = H.mismatch(mod, got, s_want)
            if msg:
                r.update(verdict="DIFFERS", detail=f"reference at {small}: {msg}")
                continue
            views, kw = H.torch_args(mod, shape, inputs, DEVICE)
            V.launch(mod, binding, views, kw)
            _sync()
            ours = H.outputs_of(mod, views)
            for k, want in theirs.items():
                if k in ours:
                    msg = _against_peer(mod, k, ours[k], want, tol, inputs, memo)[0]
                    if msg:
                        r.update(verdict="DIFFERS", detail=f"peer at the bench shape, output {k}: {msg}")
                        break
            else:
                r.update(verdict="ok")
        except Exception as e:  # noqa: BLE001: a crash is a finding; a device-side fault poisons the rest
            r.update(verdict="CRASH", detail=f"{type(e).__name__}: {str(e)[:400]}")
            if "device-side" in str(e) or "illegal memory" in str(e):
                rec["error"] = "a device-side fault: the process's CUDA context is gone; later kernels not run"
                break
    rec["wall_s"] = round(time.time() - start, 1)
    return rec


def output_paths(out, lines, variants):
    """(out, lines) of a run: those not given are corpus.json (corpus-variants.json for --variants) and
    corpus.jsonl in $OUT where it is set (the GPU machine's returned folder), else in a new temporary folder,
    so a run writes nothing into the tree unless told to. A CPU smoke run never overwrites the published GPU
    table."""
    if _SMOKE and out is not None and pathlib.Path(out).resolve() == PUBLISHED:
        raise SystemExit(f"--cpu-smoke does not write {PUBLISHED} (the GPU table): give another --out")
    folder = None
    if out is None or lines is None:
        folder = os.environ.get("OUT") or tempfile.mkdtemp(prefix="tessel-corpus-")
    return (out or os.path.join(folder, "corpus-variants.json" if variants else "corpus.json"),
            lines or os.path.join(folder, "corpus.jsonl"))


def variants_main(args):
    import torch
    names = H.resolve(filter(None, args.only.split(","))) if args.only else H.names()
    skip = set(H.resolve(filter(None, args.skip.split(","))))
    start, records = time.time(), []
    out = args.out
    for name in (n for n in names if n not in skip):
        if time.time() - start > args.budget_s:
            rec = {"name": name, "error": "not started: the run's budget was spent"}
        else:
            try:
                rec = variants_one(name, args.kernel_s)
            except Exception as e:  # noqa: BLE001
                rec = {"name": name, "error": f"{type(e).__name__}: {str(e)[:500]}"}
        records.append(rec)
        bad = [f"{r['label']}: {r['verdict']} {r.get('detail', '')}" for r in rec.get("results", [])
               if r["verdict"] in ("DIFFERS", "CRASH")]
        print(json.dumps({"name": name, "bindings": len(rec.get("results", [])), "bad": bad,
                          **{k: rec[k] for k in ("error", "skipped") if k in rec}}), flush=True)
        with open(args.lines, "a") as f:
            f.write(json.dumps(rec, default=str) + "\n")
        if DEVICE == "cuda":
            torch.cuda.empty_cache()
        if "device-side" in rec.get("error", ""):
            break
    pathlib.Path(out).parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as f:
        json.dump({"device": "cpu (smoke)" if _SMOKE else torch.cuda.get_device_name(), "kernels": records},
                  f, indent=1, default=str)
    failing = [r["name"] for r in records if "error" in r or any(
        x["verdict"] in ("DIFFERS", "CRASH") for x in r.get("results", []))]
    print(json.dumps({"kernels": len(records), "failing": failing}, indent=1))
    print(f"wrote {out} and {args.lines}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--skip", default="")
    ap.add_argument("--out", help="the run's JSON (default: corpus.json in $OUT, else in a new temporary folder)")
    ap.add_argument("--lines", help="a JSON line per kernel as it ends (default: corpus.jsonl, as --out)")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--budget-s", type=float, default=1e9, help="give up on kernels not done after this long")
    ap.add_argument("--jobs", type=int, default=1, help="kernels prepared at once (timed one at a time)")
    ap.add_argument("--cpu-smoke", action="store_true",
                    help="run on the CPU under TRITON_INTERPRET=1 at the smallest test shapes (checks the script)")
    ap.add_argument("--variants", action="store_true",
                    help="every declared parameter candidate, one at a time, checked (no timings)")
    ap.add_argument("--kernel-s", type=float, default=120.0, help="--variants: seconds per kernel")
    ap.add_argument("--compile-s", type=float, default=_COMPILE_S,
                    help="seconds torch.compile's first call of a peer may take; past it the peer is timed eager")
    ap.add_argument("--call-s", type=float, default=_CALL_S,
                    help="a function one call of which takes longer is timed once (reported too_slow)")
    ap.add_argument("--lock-s", type=float, default=None,
                    help="--jobs N: a worker holding the GPU lock longer is killed and its kernel recorded failed "
                         "(default: a quarter of --budget-s, 60 to 600 s)")
    args = ap.parse_args()
    if args.lock_s is None:
        # One kernel whose calls hold the GPU for minutes (s48: 339 Sinkhorn's first calls, 4 minutes) must not
        # starve the rest of a budgeted run: it is killed and recorded failed after a quarter of the budget.
        args.lock_s = lock_default(args.budget_s)
    # the spawned workers read these at import
    os.environ["TESSEL_CORPUS_COMPILE_S"] = str(args.compile_s)
    os.environ["TESSEL_CORPUS_CALL_S"] = str(args.call_s)
    if args.cpu_smoke and not _SMOKE:  # re-run with the switch in the environment, before torch/triton load
        os.environ.update(TESSEL_CORPUS_SMOKE="1", TRITON_INTERPRET="1")
        os.execv(sys.executable, [sys.executable] + sys.argv)
    args.out, args.lines = output_paths(args.out, args.lines, args.variants)
    if args.variants:
        return variants_main(args)
    import torch
    names = H.resolve(filter(None, args.only.split(","))) if args.only else H.names()
    skip = set(H.resolve(filter(None, args.skip.split(","))))
    names = [n for n in names if n not in skip]
    records = []

    def done(rec):
        records.append(rec)
        print(json.dumps({k: v for k, v in rec.items() if k != "traceback"}), flush=True)
        with open(args.lines, "a") as f:
            f.write(json.dumps(rec) + "\n")

    if args.jobs <= 1:
        start = time.time()
        for name in names:
            if time.time() - start > args.budget_s:
                done({"name": name, "error": "not started: the run's budget was spent"})
                continue
            done(_run(name, not args.no_compile))
    else:
        import multiprocessing as mp
        ctx = mp.get_context("spawn")
        holder = pathlib.Path(args.lines).with_suffix(".holder")
        holder.unlink(missing_ok=True)
        lock, meta = ctx.Lock(), ctx.Lock()
        with ctx.Pool(args.jobs, initializer=_init_worker, initargs=(lock, str(holder), meta),
                      maxtasksperchild=4) as pool:
            pending = {n: pool.apply_async(_run, (n, not args.no_compile)) for n in names}
            deadline = time.time() + args.budget_s
            # Records in the order kernels end, not the order they were given: one that hangs (a
            # generated kernel that never ends, a worker that died holding the GPU lock) must not hold
            # back the report of those that ended after it.
            while pending and time.time() < deadline:
                for name in [n for n, p in pending.items() if p.ready()]:
                    try:
                        done(pending.pop(name).get())
                    except Exception as e:  # a worker that died mid-task
                        done({"name": name, "error": f"{type(e).__name__}: {str(e)[:300]}"})
                killed = _watch(holder, lock, meta, args.compile_s, args.lock_s)
                if killed and killed["name"] in pending:  # its worker is gone (the pool starts another)
                    name = killed["name"]
                    del pending[name]
                    held_s = round(time.time() - killed["since"], 1)
                    if killed["phase"] == "torch.compile":  # again, with the peer eager
                        note = {"compile_error": f"killed: torch.compile's first call ran past --compile-s "
                                                 f"{args.compile_s:g} (+{_KILL_GRACE_S:g} s); the peer is timed eager"}
                        pending[name] = pool.apply_async(_run, (name, False, note))
                    else:
                        done({"name": name, "error": f"killed: it held the GPU lock for {held_s} s "
                                                     f"(--lock-s {args.lock_s:g}): {killed['first']}"})
                time.sleep(0.5)
            held = holder.read_text().split("\n")[0].strip() if holder.exists() else ""
            for name in pending:
                why = "not finished: the run's budget was spent"
                if held.split(" ")[0] == name:
                    why += f" (it held the GPU lock: {held})"
                elif held:
                    why += f" (the GPU lock was held by {held})"
                done({"name": name, "error": why})
            pool.terminate()
    records.sort(key=lambda r: r["name"])
    result = {"device": "cpu (smoke)" if _SMOKE else torch.cuda.get_device_name(), "torch": torch.__version__,
              "summary": summary(records), "kernels": records}
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result["summary"], indent=1))
    print(f"wrote {args.out} and {args.lines}", file=sys.stderr)


if __name__ == "__main__":
    main()
