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


def _agrees(torch, got, want) -> bool:
    """Same result as the default candidate, up to the reassociation a different blocking of a
    floating-point reduction may do."""
    if not got.is_floating_point():
        return torch.equal(got, want)
    scale = want.abs().nan_to_num(posinf=0.0, neginf=0.0).max().item() if want.numel() else 0.0
    return torch.allclose(got.float(), want.float(), rtol=1e-4, atol=1e-4 * max(scale, 1.0), equal_nan=True)


def tune(kernel, tensors, scalars: dict, constexprs: dict, *, budget_s: float = 60.0, reps: int = 10,
         verbose: bool = True) -> dict:
    """Searches the declared parameters of `kernel` for these tensors; returns the winner."""
    import torch

    space = kernel._space(constexprs)
    names = sorted(space)
    default = {n: space[n][1] for n in names}
    grid = [dict(zip(names, values)) for values in itertools.product(*(space[n][0] for n in names))]
    grid.sort(key=lambda p: p != default)  # the heuristic default first

    def run(params):
        copies = [t.clone() for t in tensors]
        kernel._launcher(constexprs, params)(*copies, **scalars)
        return copies

    reference = run(default)
    started, best, best_ms = time.monotonic(), default, float("inf")
    done = rejected = 0
    for params in grid:
        if time.monotonic() - started > budget_s:
            break
        try:
            outs = run(params)
        except Exception as e:  # a candidate the provider cannot compile is rejected, not chosen
            rejected += 1
            if verbose:
                print(f"tessel.tune {kernel.name}: {params} rejected: {type(e).__name__}: {e}")
            continue
        if not all(_agrees(torch, a, b) for a, b in zip(outs, reference)):
            rejected += 1
            if verbose:
                print(f"tessel.tune {kernel.name}: {params} rejected: result differs from the default")
            continue
        copies = [t.clone() for t in tensors]
        launch = kernel._launcher(constexprs, params)
        ms = _median_ms(torch, lambda: launch(*copies, **scalars), reps)
        done += 1
        if ms < best_ms:
            best, best_ms = params, ms
        if verbose:
            print(f"\rtessel.tune {kernel.name}: {done} timed, {rejected} rejected, best {best} "
                  f"{best_ms:.4f} ms", end="", flush=True)
    if verbose:
        print()
    return best
