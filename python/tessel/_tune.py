"""The autotuner (seed 003): a closed search over the declared physical parameters.

The search space is exactly the `<kernel>_PARAMS` the serializer writes from the pgpu module's
parameter declarations; nothing else can be searched. Each candidate is compiled, run on fresh
copies of the caller's tensors and compared with the default candidate's result (a wrong
candidate is rejected, never chosen), then timed with CUDA events around CUDA-graph replays (median), so the host launch path
does not mask the device-time difference. The winner is stored
in an on-disk cache keyed by the kernel's KIR hash, the shape bucket, the device and the compiler
version, written atomically.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import statistics
import time


def shape_bucket(tensors) -> str:
    """Next power of two of every extent: nearby shapes share a winner."""
    dims = []
    for t in tensors:
        dims.append("x".join(str(1 << max(int(d) - 1, 0).bit_length()) for d in t.shape))
    return "|".join(dims)


def cache_key(kir_text: str, tensors, device_name: str, version: str) -> str:
    digest = hashlib.sha256(kir_text.encode()).hexdigest()[:20]
    return f"{digest}/{shape_bucket(tensors)}/{device_name}/{version}"


def load_cache(path) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        import warnings
        warnings.warn(f"tessel: ignoring an unreadable tuning cache {path}; it will be rewritten")
        return {}


_loaded: dict = {}


def lookup(path, key: str):
    """The stored winner for `key`, or None; the file is re-read only when it changes."""
    try:
        stamp = path.stat().st_mtime_ns
    except FileNotFoundError:
        return None
    cached = _loaded.get(str(path))
    if cached is None or cached[0] != stamp:
        cached = (stamp, load_cache(path))
        _loaded[str(path)] = cached
    return cached[1].get(key)


def store(path, key: str, params: dict) -> None:
    cache = load_cache(path)
    cache[key] = params
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(cache, indent=1, sort_keys=True))
    os.replace(tmp, path)  # atomic under concurrent processes


def _median_ms(torch, fn, reps: int, inner: int = 10) -> float:
    """Device time of one launch: `inner` launches captured in a CUDA graph and replayed, so the
    host launch path (which often costs more than a small kernel) does not hide the difference
    between candidates; median of `reps` replays. Falls back to timing plain launches."""
    fn()
    torch.cuda.synchronize()
    run, per = fn, 1
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            fn()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(inner):
                fn()
        graph.replay()
        torch.cuda.synchronize()
        run, per = graph.replay, inner
    except Exception:  # a launch that cannot be captured is timed as it is
        torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / per)
    return statistics.median(times)


def _rotation(torch, tensors, most: int = 8) -> int:
    """How many copies of the inputs to rotate through while timing: enough to cover twice the
    device's L2 when one set fits in it (at most `most`), else one."""
    if not tensors or not getattr(tensors[0], "is_cuda", False):
        return 1
    size = sum(t.numel() * t.element_size() for t in tensors)
    l2 = torch.cuda.get_device_properties(tensors[0].device).L2_cache_size
    if size == 0 or size >= l2:
        return 1
    return max(1, min(most, -(-2 * l2 // size)))


def _agrees(torch, got, want) -> bool:
    """Same result as the default candidate, up to the reassociation a different blocking of a
    floating-point reduction may do."""
    if not got.is_floating_point():
        return torch.equal(got, want)
    scale = want.abs().nan_to_num(posinf=0.0, neginf=0.0).max().item() if want.numel() else 0.0
    # A 16-bit output may round a differently associated sum to the neighbouring value: allow two of
    # its units in the last place, never less than 1e-4.
    tol = max(1e-4, 2 * torch.finfo(got.dtype).eps)
    return torch.allclose(got.float(), want.float(), rtol=tol, atol=tol * max(scale, 1.0), equal_nan=True)


def tune(kernel, tensors, scalars: dict, constexprs: dict, *, budget_s: float = 60.0, reps: int = 10,
         verbose: bool = True, timer=None, finalists: int = 3, keep_times: bool = False,
         compile_workers: int = 0) -> tuple[dict, dict]:
    """Searches the declared parameters of `kernel` for these tensors.

    Candidates whose estimated resources exceed the target (the generated `<kernel>_PRUNE`) are
    pruned before compiling, and counted by reason. The search is guided: a hill climb from the
    heuristic default (each step measures the one-index-step neighbours of the current best and
    moves to the fastest), then the remaining candidates nearest the best first, until `budget_s`.
    Each candidate is run on fresh copies of the inputs and compared with the default's result; a
    candidate that fails or differs is rejected and reported, never chosen. The best `finalists`
    are re-measured head to head before the winner is picked. With `compile_workers` >= 2 the next
    candidates are compiled ahead on that many threads (Triton's asynchronous compile mode; opt-in,
    not yet measured on the GPU). Returns (winner, report)."""
    import torch

    timer = timer or (lambda fn: _median_ms(torch, fn, reps))
    space = kernel._space(constexprs)
    names = sorted(space)
    default = {n: space[n][1] for n in names}

    def key(p):
        return tuple(p[n] for n in names)

    def distance(p, centre):
        return (sum(abs(space[n][0].index(p[n]) - space[n][0].index(centre[n])) for n in names),
                [space[n][0].index(p[n]) for n in names])

    grid = [dict(zip(names, values)) for values in itertools.product(*(space[n][0] for n in names))]
    prune = kernel._prune(constexprs) if hasattr(kernel, "_prune") else None
    pruned = {}
    viable = []
    for p in grid:
        why = prune(p) if prune is not None and p != default else None
        if why:
            pruned[why] = pruned.get(why, 0) + 1
        else:
            viable.append(p)
    viable_keys = {key(p) for p in viable}

    def run(params):
        copies = [t.clone() for t in tensors]
        kernel._launcher(constexprs, params)(*copies, **scalars)
        return copies

    rotation = _rotation(torch, tensors)
    report_rotation = rotation

    def measure(params):
        # Inputs that fit in L2 rotate through several copies, so each timed launch reads memory a
        # previous launch did not just leave in the cache.
        sets = [[t.clone() for t in tensors] for _ in range(rotation)]
        launch = kernel._launcher(constexprs, params)
        turn = [0]

        def once():
            copies = sets[turn[0] % len(sets)]
            turn[0] += 1
            launch(*copies, **scalars)
        return timer(once)

    started = time.monotonic()
    reference = run(default)
    report = {"candidates": len(grid), "pruned": pruned, "timed": 0, "rejected": [], "skipped_for_budget": 0,
              "strategy": "hill climb from the default, then nearest the best first",
              "rotating_input_sets": report_rotation}
    timed = []
    results = {}

    def visit(params):
        """Checks and times one candidate (once); its time, or None when rejected."""
        k = key(params)
        if k in results:
            return results[k]
        results[k] = None
        try:
            outs = run(params)
        except Exception as e:  # a candidate the provider cannot compile or run is rejected
            report["rejected"].append((params, f"{type(e).__name__}: {e}"))
            return None
        if not all(_agrees(torch, a, b) for a, b in zip(outs, reference)):
            report["rejected"].append((params, "result differs from the default candidate"))
            return None
        ms = measure(params)
        timed.append((ms, params))
        results[k] = ms
        report["timed"] += 1
        if verbose:
            best_ms, best = min(timed, key=lambda t: t[0])
            print(f"\rtessel.tune {kernel.name}: {report['timed']} timed, {sum(pruned.values())} pruned, "
                  f"{len(report['rejected'])} rejected, {len(viable) - len(results)} left; best {best} "
                  f"{best_ms:.4f} ms", end="", flush=True)
        return ms

    def out_of_time():
        return time.monotonic() - started > budget_s

    def compile_ahead(batch):
        """Compiles the next candidates on a thread pool (Triton's asynchronous compile mode) so the
        checking and timing that follow find them built. Only an optimization: any failure leaves the
        serial path to compile (and to report) each candidate."""
        batch = [p for p in batch if key(p) not in results]
        if (compile_workers < 2 or len(batch) < 2 or not hasattr(kernel, "_warmup")
                or not getattr(tensors[0], "is_cuda", False)):
            return
        try:
            from concurrent.futures import ThreadPoolExecutor
            from triton.runtime._async_compile import AsyncCompileMode
            with ThreadPoolExecutor(max_workers=min(compile_workers, len(batch))) as pool, \
                    AsyncCompileMode(pool, ignore_errors=True):
                for p in batch:
                    warm = kernel._warmup(constexprs, p)
                    if warm is not None:
                        warm(*tensors, **scalars)
            report["compiled_ahead"] = report.get("compiled_ahead", 0) + len(batch)
        except Exception as e:  # noqa: BLE001 - compiling ahead must never break tuning
            report["compile_ahead_error"] = f"{type(e).__name__}: {e}"[:200]

    # Hill climb: move to the fastest one-step neighbour while one improves.
    current = default

    def neighbours(p):
        for n in names:
            i = space[n][0].index(p[n])
            for j in (i - 1, i + 1):
                if 0 <= j < len(space[n][0]):
                    q = dict(p, **{n: space[n][0][j]})
                    if key(q) in viable_keys:
                        yield q

    while not out_of_time():
        current_ms = visit(current)
        around = [q for q in neighbours(current) if key(q) not in results]
        compile_ahead(around)
        step, step_ms = None, current_ms
        for q in around:
            if out_of_time():
                break
            ms = visit(q)
            if ms is not None and (step_ms is None or ms < step_ms):
                step, step_ms = q, ms
        if step is None:
            break
        current = step
    # Then everything else, nearest the best so far first.
    centre = min(timed, key=lambda t: t[0])[1] if timed else default
    rest = sorted((p for p in viable if key(p) not in results), key=lambda p: distance(p, centre))
    for i, params in enumerate(rest):
        if out_of_time():
            report["skipped_for_budget"] = len(rest) - i
            break
        if i % 16 == 0:
            compile_ahead(rest[i:i + 16])
        visit(params)
    if verbose:
        print()
        for params, why in report["rejected"]:
            print(f"tessel.tune {kernel.name}: rejected {params}: {why}")
    if keep_times:
        report["times"] = [(params, ms) for ms, params in timed]
    if not timed:
        report["winner_ms"] = None
        return default, report
    # Head to head: one noisy sample should not pick the winner.
    timed.sort(key=lambda t: t[0])
    final = sorted(((measure(params), params) for _, params in timed[:finalists]), key=lambda t: t[0])
    report["winner_ms"] = final[0][0]
    report["default_ms"] = next((ms for ms, p in timed if p == default), None)
    report["wall_s"] = round(time.monotonic() - started, 2)
    return final[0][1], report
