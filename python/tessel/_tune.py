"""The autotuner (seed 003): a closed search over the declared physical parameters.

The search space is exactly the `<kernel>_PARAMS` the serializer writes from the pgpu module's
parameter declarations (a caller may narrow it, never widen it); nothing else can be searched. Each
candidate is compiled (ahead, on worker processes, when asked), run on two sets of fresh random
inputs and compared with the default candidate's result or a reference function's (a wrong
candidate is rejected and reported, never chosen), then timed with CUDA events around CUDA-graph
replays (median), so the host launch path does not mask the device-time difference. The winner is
stored in an on-disk cache keyed by the kernel's KIR hash, the shape bucket, the device and the
compiler version (and the target, when it is not Triton), written atomically.

The provider is a declared choice too (seed 003: a backend-specific dimension enters as a declared
parameter, decided by measured time): `tune_providers` searches each available provider's own declared
parameters, checks every provider's candidates against the same expected outputs, measures the
providers' winners head to head and keeps the faster correct one (`target="auto"`).
"""
from __future__ import annotations

import collections
import hashlib
import itertools
import json
import os
import statistics
import sys
import time

from . import _compile_ahead

# The providers `target="auto"` chooses between; the first is the default choice (what an untuned call
# and a single-provider search use). TARGETS are what a kernel may be tuned and called for.
PROVIDERS = ("triton", "cutile", "ptx")
TARGETS = PROVIDERS + ("auto",)


def shape_bucket(tensors) -> str:
    """Next power of two of every extent: nearby shapes share a winner."""
    dims = []
    for t in tensors:
        dims.append("x".join(str(1 << max(int(d) - 1, 0).bit_length()) for d in t.shape))
    return "|".join(dims)


def cache_key(kir_text: str, tensors, device_name: str, version: str, target: str = "triton") -> str:
    """The tuning cache key: KIR hash, shape bucket, device, compiler version, and the target when it is
    not Triton (Triton's keys predate the other targets and stay as they were)."""
    if target not in TARGETS:
        raise ValueError(f"cache_key: target must be one of {', '.join(TARGETS)}; got {target!r}")
    digest = hashlib.sha256(kir_text.encode()).hexdigest()[:20]
    key = f"{digest}/{shape_bucket(tensors)}/{device_name}/{version}"
    return key if target == "triton" else f"{key}/{target}"


def _warn(message: str) -> None:
    import warnings
    warnings.warn(f"tessel: {message}", stacklevel=3)


def _short(value) -> str:
    """A cached value as a warning shows it: depth and length bounded (a cache file is any JSON)."""
    import reprlib
    return reprlib.repr(value)


def valid_entry(params, space: dict | None = None) -> str | None:
    """Why a cached winner is unusable, or None. An entry is {parameter name: int}; with the kernel's
    declared `space` ({name: (candidates, default)}) it must bind exactly the declared parameters to
    declared candidates."""
    if not isinstance(params, dict) or not params:
        return f"not a non-empty object of parameter bindings: {_short(params)}"
    for name, value in params.items():
        if not isinstance(name, str) or type(value) is not int:
            return f"binding {_short(name)}: {_short(value)} is not a name and an integer"
    if space is not None:
        if set(params) != set(space):
            return f"binds {sorted(params)}, the kernel declares {sorted(space)}"
        for name, value in params.items():
            if value not in space[name][0]:
                return f"{name} = {value} is not one of the declared candidates {space[name][0]}"
    return None


def valid_choice(entry, spaces=None) -> str | None:
    """Why a cached provider choice (the winner of `target="auto"`) is unusable, or None. An entry is
    {"provider": one of PROVIDERS, "params": {parameter name: int}}; with `spaces`, a function of a
    provider returning its declared space (or a string saying why that provider is unavailable here),
    the parameters must be that provider's declared ones."""
    if not isinstance(entry, dict) or set(entry) != {"provider", "params"}:
        return f"not a provider choice {{'provider': ..., 'params': ...}}: {_short(entry)}"
    provider = entry["provider"]
    if provider not in PROVIDERS:
        return f"provider {_short(provider)} is not one of {', '.join(PROVIDERS)}"
    space = None
    if spaces is not None:
        space = spaces(provider)
        if isinstance(space, str):
            return f"its provider '{provider}' is unavailable here ({space})"
    return valid_entry(entry["params"], space)


def _schema_issue(entry) -> str | None:
    """Why `entry` is neither a winner of one provider nor a provider choice, or None."""
    if isinstance(entry, dict) and "provider" in entry:
        return valid_choice(entry)
    return valid_entry(entry)


# The most a cache read takes in (bytes): a larger file is not one tessel wrote, and is ignored.
TUNING_LIMIT = 16 << 20
SOURCE_LIMIT = 64 << 20


class NotCached(OSError):
    """A cache path that holds no usable file: not a regular file (a FIFO, a device, a folder), or larger
    than the reader's limit. Reading it could block forever or exhaust memory; it is ignored instead."""


def read_cached(path, limit: int) -> bytes:
    """The bytes of the cache file at `path`, opened only when it is a regular file (after links) of at
    most `limit` bytes: NotCached otherwise, FileNotFoundError (an OSError) when absent. Opened
    non-blocking and checked again on the open file, so a file swapped for a FIFO in between cannot
    block the read."""
    import stat
    if not stat.S_ISREG(os.stat(path).st_mode):  # stat first: opening a device may itself act
        raise NotCached("not a regular file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotCached("not a regular file")
        if info.st_size > limit:
            raise NotCached(f"it holds {info.st_size} bytes, more than the {limit} a cache file may")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # grew since the fstat
                raise NotCached(f"it holds more than the {limit} bytes a cache file may")
        return b"".join(chunks)
    finally:
        os.close(fd)


def load_cache(path) -> dict:
    """The cache file's entries; a file that is not valid JSON, or not an object, counts as empty
    (with a warning naming the file and why) and is rewritten by the next store. So does one that
    is not a regular file or is larger than TUNING_LIMIT (never read: a FIFO would block, a device
    exhaust memory), and one nested past the JSON parser's recursion limit."""
    try:
        data = json.loads(read_cached(path, TUNING_LIMIT).decode())
    except FileNotFoundError:
        return {}
    except NotCached as e:
        _warn(f"ignoring the tuning cache {path}: {e}; it will be rewritten")
        return {}
    except RecursionError:
        _warn(f"ignoring a tuning cache {path} nested too deeply to parse; it will be rewritten")
        return {}
    except (OSError, ValueError) as e:
        _warn(f"ignoring an unreadable tuning cache {path} ({type(e).__name__}); it will be rewritten")
        return {}
    if not isinstance(data, dict):
        _warn(f"ignoring a tuning cache {path} that is not a JSON object; it will be rewritten")
        return {}
    return data


_loaded: dict = {}


def _cached(path, key: str, why_unusable):
    """The entry stored under `key` when `why_unusable(entry)` is None; else None (the file is re-read
    only when it changes). An unusable entry is ignored with one warning per entry and file version, so
    the caller runs the default and the next tune() re-tunes and overwrites it."""
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return None
    cached = _loaded.get(str(path))
    if cached is None or cached[0] != stamp:
        cached = (stamp, load_cache(path), set())
        _loaded[str(path)] = cached
    entry = cached[1].get(key)
    if entry is None:
        return None
    why = why_unusable(entry)
    if why:
        if key not in cached[2]:  # once per entry and file version
            cached[2].add(key)
            _warn(f"ignoring the cached tuning entry {key!r} in {path}: {why}; it will be re-tuned")
        return None
    return entry


def lookup(path, key: str, space: dict | None = None):
    """The stored winner of one provider for `key` ({parameter: int}), or None. An entry that fails
    `valid_entry` (against `space` when given) is ignored with a warning."""
    entry = _cached(path, key, lambda e: valid_entry(e, space))
    return None if entry is None else dict(entry)


def lookup_choice(path, key: str, spaces=None):
    """The stored provider choice for `key` ({"provider": ..., "params": {...}}), or None. An entry that
    fails `valid_choice` (against `spaces` when given: a provider unavailable here makes it unusable)
    is ignored with a warning."""
    entry = _cached(path, key, lambda e: valid_choice(e, spaces))
    return None if entry is None else {"provider": entry["provider"], "params": dict(entry["params"])}


class _Locked:
    """An exclusive advisory lock on PATH.lock (fcntl), so concurrent processes storing into one
    cache file serialize their read-modify-write instead of losing each other's entries."""

    def __init__(self, path):
        self.path = path.with_name(path.name + ".lock")
        self.fd = None

    def __enter__(self):
        import fcntl
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        import fcntl
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def write_atomic(path, text: str) -> None:
    """Writes `text` to `path` through a unique temporary file in its folder and a rename: readers
    see the old file or the whole new one, never a prefix, whichever thread or process writes."""
    import tempfile
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def store(path, key: str, params: dict) -> bool:
    """Records `params` (one provider's winner, or a provider choice) as the winner for `key` (locked
    read-modify-write, atomic replace). Entries that fail both schemas are dropped on the way. A cache
    that cannot be written is skipped with a warning; returns whether the entry was stored."""
    why = _schema_issue(params)
    if why:
        raise ValueError(f"tessel: refusing to cache an invalid tuning result: {why}")
    try:
        with _Locked(path):
            cache = {k: v for k, v in load_cache(path).items() if _schema_issue(v) is None}
            cache[key] = json.loads(json.dumps(params))
            write_atomic(path, json.dumps(cache, indent=1, sort_keys=True))
    except OSError as e:
        _warn(f"could not write the tuning cache {path} ({e.strerror or e}); the result is not cached")
        return False
    return True


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
    """Same result as the expected one, up to the reassociation a different blocking of a
    floating-point reduction may do. A 16-bit output may round a differently associated sum to the
    neighbouring value: two of its units in the last place (never less than 1e-4), relative to each
    element and to the largest expected magnitude."""
    if not got.is_floating_point():
        return torch.equal(got, want)
    scale = want.abs().nan_to_num(posinf=0.0, neginf=0.0).max().item() if want.numel() else 0.0
    tol = max(1e-4, 2 * torch.finfo(got.dtype).eps)
    return torch.allclose(got.float(), want.float(), rtol=tol, atol=tol * scale, equal_nan=True)


def _region(t):
    """`t`'s memory as a flat tensor from its first element (less its storage offset modulo 16) to its
    last, and the view's offset in that: a tensor made from such a region has `t`'s strides, overlaps
    and data-pointer alignment (which Triton specializes on)."""
    offset = t.storage_offset() % 16
    span = offset + 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride())) if t.numel() else 0
    return t.as_strided((span,), (1,), t.storage_offset() - offset), offset


def _copy(t):
    """A copy of `t` laid out like it."""
    region, offset = _region(t)
    return region.clone().as_strided(t.shape, t.stride(), offset)


def _typical_magnitude(torch, t) -> float:
    """Median |x| of at most 4096 evenly spaced elements of `t` (within [1e-3, 1e3], in case they are
    uninitialized memory), or 1 when none is finite and nonzero."""
    flat = t.detach().reshape(-1)
    sample = flat[::max(1, flat.numel() // 4096)].float().abs()
    sample = sample[torch.isfinite(sample) & (sample > 0)]
    return min(max(sample.median().item(), 1e-3), 1e3) if sample.numel() else 1.0


def fresh_inputs(torch, tensors, modes, seed: int) -> list:
    """One set of fresh arguments laid out like the caller's tensors. Floating-point views the kernel
    reads get random values that are never zero (magnitude in [0.25, 1] of the caller's typical one,
    random sign), so a candidate cannot pass by the luck of the caller's data; floating-point views it
    only writes are filled with NaN and integer ones with the most negative value, so an element a
    candidate skips shows. Integer and bool views it reads keep the caller's values: they may be
    indices, which random values would push out of range."""
    gen = torch.Generator(device=tensors[0].device if tensors else "cpu")
    gen.manual_seed(seed)
    fresh = []
    for t, mode in zip(tensors, modes):
        region, offset = _region(t)
        n, dev = region.numel(), t.device
        if t.is_floating_point() and mode != "out":
            magnitude = torch.rand(n, generator=gen, device=dev) * 0.75 + 0.25
            sign = torch.randint(0, 2, (n,), generator=gen, device=dev) * 2 - 1
            flat = (magnitude * sign * _typical_magnitude(torch, t)).to(t.dtype)
        elif t.is_floating_point():
            flat = torch.full((n,), float("nan"), dtype=t.dtype, device=dev)
        elif mode == "out" and t.dtype != torch.bool:
            flat = torch.full((n,), torch.iinfo(t.dtype).min, dtype=t.dtype, device=dev)
        else:
            flat = region.clone()
        fresh.append(flat.as_strided(t.shape, t.stride(), offset))
    return fresh


def provider_launcher(kernel, constexprs: dict, params, target: str = "triton"):
    """`kernel`'s launcher of one binding on `target`. Kernels that only know Triton (the tests' stand-ins)
    are asked without a target."""
    if target == "triton":
        return kernel._launcher(constexprs, params)
    return kernel._launcher(constexprs, params, target)


def _provider_space(kernel, constexprs: dict, target: str) -> dict:
    return kernel._space(constexprs) if target == "triton" else kernel._space(constexprs, target)


def _provider_prune(kernel, constexprs: dict, target: str):
    if not hasattr(kernel, "_prune"):
        return None
    return kernel._prune(constexprs) if target == "triton" else kernel._prune(constexprs, target)


class _TooSlow(RuntimeError):
    """A candidate's checked launch was orders of magnitude slower than the fastest one checked."""


class _Checker:
    """Runs candidates on two fresh input sets made once per search and compares what they write with
    the expected outputs: the `reference` function's on the same inputs when one is given (so the
    default is checked too), else the default candidate's on `target` (for a search over providers, the
    first provider's default: every provider's candidates are checked against the same outputs)."""

    def __init__(self, torch, kernel, tensors, scalars: dict, constexprs: dict, default: dict, reference,
                 target: str = "triton"):
        self.torch, self.kernel, self.scalars, self.constexprs = torch, kernel, scalars, constexprs
        self.target = target
        # Views the kernel may write: all of them when the kernel does not say (a test's fake).
        views = kernel._views() if hasattr(kernel, "_views") else [(f"#{i}", "inout") for i in range(len(tensors))]
        self.names = [name for name, mode in views if mode != "in"]
        self.outputs = [i for i, (_, mode) in enumerate(views) if mode != "in"]
        self.sets = [fresh_inputs(torch, tensors, [mode for _, mode in views], seed) for seed in (1, 2)]
        if reference is None:
            self.expected = self.run(default)
            self.against = "the default candidate" + ("" if target == "triton" else f" on {target}")
        else:
            inputs = [i for i, (_, mode) in enumerate(views) if mode != "out"]
            self.expected = [self._referenced(reference, [s[i] for i in inputs]) for s in self.sets]
            self.against = "the reference"

    def _referenced(self, reference, inputs) -> list:
        want = reference(*inputs)
        want = list(want) if isinstance(want, (tuple, list)) else [want]
        shapes = [tuple(self.sets[0][i].shape) for i in self.outputs]
        if [tuple(w.shape) for w in want] != shapes:
            raise ValueError(f"tune: the reference returned shapes {[tuple(w.shape) for w in want]}; the kernel "
                             f"writes {', '.join(self.names)} of shapes {shapes}")
        return want

    # A candidate whose launch on the second set (compiled by then) takes this many times the fastest
    # such launch seen so far, and over SLOW_MARGIN_S more, is rejected without timing it: the timer's
    # repetitions of a launch orders of magnitude slower would outlast the search's budget.
    SLOW_FACTOR, SLOW_MARGIN_S = 50.0, 0.5
    fastest_s = None

    def run(self, params, target: str | None = None) -> list:
        """The candidate's outputs on each fresh set (each run on copies: the sets stay fresh)."""
        launch = provider_launcher(self.kernel, self.constexprs, params, target or self.target)
        results = []
        for n, inputs in enumerate(self.sets):
            args = [_copy(t) for t in inputs]
            if n == 1:
                self._synchronize(args)
            started = time.monotonic()
            launch(*args, **self.scalars)
            if n == 1:
                self._synchronize(args)
                took = time.monotonic() - started
                fastest = self.fastest_s
                self.fastest_s = took if fastest is None else min(fastest, took)
                if fastest is not None and took > max(self.SLOW_FACTOR * fastest, fastest + self.SLOW_MARGIN_S):
                    raise _TooSlow(f"its launch took {took:.3f} s against {fastest:.4f} s for the fastest "
                                   f"candidate checked so far; not timed")
            results.append([args[i] for i in self.outputs])
        return results

    def _synchronize(self, args) -> None:
        if any(getattr(t, "is_cuda", False) for t in args):
            self.torch.cuda.synchronize()

    def why_wrong(self, params, target: str | None = None):
        """Why the candidate (on `target`, else the checker's) is rejected (it fails, or an output
        differs), or None."""
        try:
            got = self.run(params, target)
        except Exception as e:  # a candidate the provider cannot compile or run is rejected
            return f"{type(e).__name__}: {e}"
        for n, (outs, wants) in enumerate(zip(got, self.expected), 1):
            for name, a, b in zip(self.names, outs, wants):
                if not _agrees(self.torch, a, b):
                    return f"result '{name}' differs from {self.against} on fresh input set {n}"
        return None


def restrict(space: dict, domain: dict | None) -> dict:
    """The declared space narrowed to `domain` ({name: values}). A heuristic default outside the
    narrowed values moves to the nearest of them (by position in the declared domain, the smaller on a
    tie). Names and values outside the declaration are an error: the search space stays closed."""
    space = dict(space)
    for name, values in (domain or {}).items():
        if name not in space:
            raise ValueError(f"tune: domain names '{name}', which is not a declared parameter; expected one of "
                             f"{', '.join(sorted(space))}")
        declared, default = space[name]
        values = list(values) if isinstance(values, (list, tuple, set, frozenset, range)) else [values]
        outside = [v for v in values if v not in declared]
        if outside or not values:
            raise ValueError(f"tune: domain of '{name}' " + (f"has {outside[0]!r}" if outside else "is empty") +
                             f"; expected values from its declared domain {list(declared)}")
        kept = [v for v in declared if v in values]
        at = declared.index(default)
        space[name] = (kept, min(kept, key=lambda v: (abs(declared.index(v) - at), declared.index(v))))
    return space


def provider_domain(domain: dict | None, target: str, space: dict) -> dict | None:
    """The part of a search over providers' `domain` that narrows `target`'s declared `space`: a key
    naming a provider holds that provider's own domain ({"cutile": {"OCCUPANCY": [2]}}); any other key is
    a parameter, applied to every provider that declares it."""
    if not domain:
        return None
    own = {n: v for n, v in domain.items() if n not in PROVIDERS and n in space}
    nested = domain.get(target) or {}
    if not isinstance(nested, dict):
        raise ValueError(f"tune: domain['{target}'] must be a dict of parameter values, got {nested!r}")
    own.update(nested)
    return own or None


class _Candidates:
    """`target`'s declared space narrowed to `domain`, its heuristic default, and why a binding is left out
    (None: viable), decided one binding at a time and remembered. A space of millions of bindings
    (attention's eleven parameters: 7.56 million) is never listed whole by a search: `nearest` walks the
    viable bindings outward from a centre, and the search examines only what its budget reaches."""

    def __init__(self, kernel, constexprs: dict, domain: dict | None, target: str, tensors):
        space = _provider_space(kernel, constexprs, target)
        if tensors is not None and hasattr(kernel, "_call_defaults"):
            call = (kernel._call_defaults(constexprs, tensors) if target == "triton"
                    else kernel._call_defaults(constexprs, tensors, target))
            space = {n: (c, call.get(n, d)) for n, (c, d) in space.items()}
            # ROWS (pgpu-pack-rows) is searched around the call's default, unless the domain names it.
            rows = (kernel._rows_searched(constexprs, tensors, target, call)
                    if hasattr(kernel, "_rows_searched") and "ROWS" not in (domain or {}) else None)
            if rows:
                space["ROWS"] = (rows, call["ROWS"])
        self.space = restrict(space, domain)
        self.names = sorted(self.space)
        self.default = {n: self.space[n][1] for n in self.names}
        self.total = 1
        for n in self.names:
            self.total *= len(self.space[n][0])
        self._prune = _provider_prune(kernel, constexprs, target)
        # On this call's views, a binding whose launch takes an element-wise branch kept beside a contracting
        # one (a head size past BLOCK_D) runs a different algorithm, orders of magnitude slower: one such
        # launch at attention's bench shape outlasted a whole search's budget. Such bindings are left out
        # where the default does not take that branch (then the tiled one is available to every candidate
        # that covers). The parameters only those branches use then do not change the kernel a launch runs:
        # they keep their defaults (and are counted as pruned under the same reason).
        elementwise = None
        if tensors is not None and hasattr(kernel, "_elementwise"):
            elementwise = kernel._elementwise(constexprs, tensors, target)
            if elementwise is not None and elementwise(self.default) is not False:
                elementwise = None
        self._elementwise = elementwise
        self._fixed = ({n for n in getattr(elementwise, "only", ()) if n in self.space}
                       if elementwise is not None else set())
        self._why = {}

    def key(self, p: dict) -> tuple:
        return tuple(p[n] for n in self.names)

    def why(self, p: dict):
        """The reason `p` is left out, or None when it is a candidate (the default always is)."""
        k = self.key(p)
        if k not in self._why:
            why = None
            if p != self.default:
                why = self._prune(p) if self._prune is not None else None
                if not why and self._elementwise is not None and (
                        self._elementwise(p) or any(p[n] != self.default[n] for n in self._fixed)):
                    why = "element-wise branch"
            self._why[k] = why or None
        return self._why[k]

    def decided(self) -> int:
        """How many bindings have been decided."""
        return len(self._why)

    def pruned(self) -> dict:
        """The bindings decided so far that were left out, counted by reason."""
        counts = {}
        for why in self._why.values():
            if why:
                counts[why] = counts.get(why, 0) + 1
        return counts

    def all(self) -> tuple[list, dict]:
        """(viable, pruned): every binding decided, in declaration order."""
        viable = []
        for values in itertools.product(*(self.space[n][0] for n in self.names)):
            p = dict(zip(self.names, values))
            if self.why(p) is None:
                viable.append(p)
        return viable, self.pruned()

    def nearest(self, centre: dict):
        """The viable bindings by distance from `centre` (the sum over parameters of how many declared
        values apart they are), then by their positions in the declared domains: the order of sorting them
        all by that key, generated one distance at a time."""
        sizes = [len(self.space[n][0]) for n in self.names]
        at = [self.space[n][0].index(centre[n]) for n in self.names]
        reach = [max(a, s - 1 - a) for a, s in zip(at, sizes)]
        tail = [sum(reach[i:]) for i in range(len(sizes) + 1)]

        def vectors(i, left):
            if i == len(sizes):
                if left == 0:
                    yield ()
                return
            for j in range(sizes[i]):
                d = abs(j - at[i])
                if d <= left and left - d <= tail[i + 1]:
                    for rest in vectors(i + 1, left - d):
                        yield (j,) + rest

        for distance in range(tail[0] + 1):
            for v in vectors(0, distance):
                p = {n: self.space[n][0][j] for n, j in zip(self.names, v)}
                if self.why(p) is None:
                    yield p


def candidates(kernel, constexprs: dict, domain: dict | None = None, target: str = "triton", tensors=None) -> tuple:
    """(space, default, viable, pruned): `target`'s declared space narrowed to `domain`, its heuristic
    default (this call's, when `tensors` are given: covering defaults from their shapes), the
    candidates within the target's estimated limits (the generated `<kernel>_PRUNE`), and how many
    were pruned, by reason. The default is never pruned: it is what runs untuned. Lists every binding:
    `tune` walks a space past _LISTED bindings instead (`_Candidates.nearest`)."""
    c = _Candidates(kernel, constexprs, domain, target, tensors)
    viable, pruned = c.all()
    return c.space, c.default, viable, pruned


# A search lists a space of at most this many bindings whole (exact pruned counts, every candidate
# ordered up front); past it, it walks outward from its centre and decides only the bindings it reaches.
_LISTED = 50_000


def _measurer(torch, kernel, tensors, scalars: dict, constexprs: dict, timer):
    """measure(params, target) -> the timer's ms for one binding. Inputs that fit in L2 rotate through
    several copies, so each timed launch reads memory a previous launch did not just leave in the cache."""
    rotation = _rotation(torch, tensors)

    def measure(params, target="triton"):
        sets = [[t.clone() for t in tensors] for _ in range(rotation)]
        launch = provider_launcher(kernel, constexprs, params, target)
        turn = [0]

        def once():
            copies = sets[turn[0] % len(sets)]
            turn[0] += 1
            launch(*copies, **scalars)
        return timer(once)
    measure.rotation = rotation
    return measure


def tune(kernel, tensors, scalars: dict, constexprs: dict, *, budget_s: float = 60.0, reps: int = 10,
         verbose: bool = True, timer=None, finalists: int = 3, keep_times: bool = False,
         compile_workers: int = 0, compile_pool: str = "process", domain: dict | None = None,
         reference=None, target: str = "triton", check: _Checker | None = None) -> tuple[dict, dict]:
    """Searches the declared parameters of `kernel` on provider `target` (narrowed to `domain` when
    given) for these tensors.

    Candidates whose estimated resources exceed the target (the generated `<kernel>_PRUNE`) are
    pruned before compiling, and counted by reason. The search is guided: a hill climb from the
    heuristic default (each step measures the one-index-step neighbours of the current best and
    moves to the fastest), then the remaining candidates nearest the best first, until `budget_s`.
    Each candidate is run on two fresh random input sets and compared with the default's result
    there, or with `reference(*input views)`'s when given; a candidate that fails or differs is
    rejected and reported, never chosen. Survivors are timed on copies of the caller's tensors, and
    the best `finalists` re-measured head to head before the winner is picked. With
    `compile_workers` >= 2 the next candidates are compiled ahead on that many worker processes
    (`compile_pool="process"`, `python -m tessel._worker`) or threads (`"threads"`); only Triton
    candidates have a compile-only entry. `check`, a `_Checker` made by the caller, replaces the default
    one (`tune_providers` checks every provider against one). Returns (winner, report)."""
    import torch

    if compile_pool not in ("process", "threads"):
        raise ValueError(f"tune: compile_pool is 'process' or 'threads', got {compile_pool!r}")
    if target not in PROVIDERS:
        raise ValueError(f"tune: target must be one of {', '.join(PROVIDERS)} (tune_providers chooses between "
                         f"them); got {target!r}")
    timer = timer or (lambda fn: _median_ms(torch, fn, reps))
    space_ = _Candidates(kernel, constexprs, domain, target, tensors)
    space, default, names, key = space_.space, space_.default, space_.names, space_.key
    # Listed: every binding decided up front (exact pruned counts); walked: decided as the search reaches it.
    listed = space_.total <= _LISTED
    viable, pruned = space_.all() if listed else (None, {})

    def is_viable(p):
        return space_.why(p) is None

    def nearest(centre):
        """The viable bindings not yet visited, nearest `centre` first."""
        return (p for p in space_.nearest(centre) if key(p) not in results)

    def left():
        return len(viable) - len(results) if listed else space_.total - space_.decided()
    timing = _measurer(torch, kernel, tensors, scalars, constexprs, timer)

    def measure(params):
        return timing(params, target)

    started = time.monotonic()
    # A one-line progress display (candidates tried, best so far, time left) on a terminal only.
    progress = verbose and sys.stderr.isatty()
    check = check or _Checker(torch, kernel, tensors, scalars, constexprs, default, reference, target)
    report = {"candidates": space_.total, "pruned": pruned, "timed": 0, "rejected": [],
              "skipped_for_budget": 0, "strategy": "hill climb from the default, then nearest the best first",
              "checked_on": f"{len(check.sets)} fresh random input sets against {check.against}",
              "rotating_input_sets": timing.rotation, "checking_s": 0.0}
    if target != "triton":
        report["target"] = target
    if domain:
        report["domain"] = {n: space[n][0] for n in names}
    timed = []
    results = {}
    ahead = _CompileAhead(kernel, tensors, scalars, constexprs, compile_workers if target == "triton" else 0,
                          compile_pool)

    def visit(params):
        """Checks and times one candidate (once); its time, or None when rejected."""
        k = key(params)
        if k in results:
            return results[k]
        results[k] = None
        if ahead.wait(k, started + budget_s) is None:
            # Still compiling when the budget ran out: not checked, not timed (compiling it here would
            # take at least as long again).
            report["skipped_for_budget"] += 1
            return None
        checking = time.monotonic()
        why = check.why_wrong(params, target)
        report["checking_s"] += time.monotonic() - checking
        if why:
            report["rejected"].append((params, why))
            return None
        ms = measure(params)
        timed.append((ms, params))
        results[k] = ms
        report["timed"] += 1
        if progress:
            best_ms, best = min(timed, key=lambda t: t[0])
            remaining = max(0.0, budget_s - (time.monotonic() - started))
            print(f"\r\033[Ktessel.tune {kernel.name}{'' if target == 'triton' else ' on ' + target}: "
                  f"{report['timed']} tried, {left()} left, {remaining:.0f} s left; "
                  f"best {best_ms:.4f} ms {best}", end="", file=sys.stderr, flush=True)
        return ms

    def out_of_time():
        return time.monotonic() - started > budget_s

    # The first moves go where the resource model puts the large differences: parameters that size
    # fragments, then warps; pipeline and ordering switches after them.
    first = ([] if not hasattr(kernel, "_first_moves") else
             list(kernel._first_moves(constexprs) if target == "triton" else kernel._first_moves(constexprs, target)))
    moves = sorted(names, key=lambda n: first.index(n) if n in first else len(first))

    def neighbours(p):
        for n in moves:
            i = space[n][0].index(p[n])
            for j in (i - 1, i + 1):
                if 0 <= j < len(space[n][0]):
                    q = dict(p, **{n: space[n][0][j]})
                    if is_viable(q):
                        yield q

    try:
        # Hill climb: move to the fastest one-step neighbour while one improves.
        current = default
        while not out_of_time():
            current_ms = visit(current)
            around = [q for q in neighbours(current) if key(q) not in results]
            ahead.submit([(key(q), q) for q in around])
            if ahead.pool is not None:  # keep the workers busy: later steps look near here too
                ahead.submit([(key(p), p) for p in itertools.islice(nearest(current), ahead.lookahead)])
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
        rest, window = nearest(centre), collections.deque()
        for i in itertools.count():
            window.extend(itertools.islice(rest, max(1, ahead.lookahead) - len(window)))
            if not window:
                break
            if out_of_time():
                # Listed: the viable candidates not reached; walked: every binding not yet decided.
                report["skipped_for_budget"] = len(window) + (sum(1 for _ in rest) if listed else left())
                break
            if ahead.window(i):
                ahead.submit([(key(p), p) for p in itertools.islice(window, ahead.lookahead)])
            visit(window.popleft())
    finally:
        if ahead.used:
            report["compile_ahead"] = ahead.close()
    report["checking_s"] = round(report["checking_s"], 2)
    if not listed:
        # Walked, not listed: the pruned counts are over the bindings the search decided.
        report["pruned"], report["decided"] = space_.pruned(), space_.decided()
    if progress:
        print(file=sys.stderr)
    if verbose:
        for params, why in report["rejected"]:
            print(f"tessel.tune {kernel.name}: rejected {target} {params}: {why}", file=sys.stderr)
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


def tune_providers(kernel, tensors, scalars: dict, constexprs: dict, providers, *, budget_s: float = 60.0,
                   reps: int = 10, verbose: bool = True, timer=None, finalists: int = 3, rounds: int = 5,
                   compile_workers: int = 0, compile_pool: str = "process", domain: dict | None = None,
                   reference=None) -> tuple[dict, dict]:
    """The provider as a declared choice (seed 003; `target="auto"`): searches each of `providers`'s
    declared parameters in turn (`tune`, each with an equal share of what is left of `budget_s`), every
    candidate checked against the same expected outputs (`reference`'s, else the first provider's
    default's), then measures the providers' winners head to head, alternating (each round starting
    with the next provider), `rounds` times each,
    and keeps the one of least median time (the earlier provider on a tie). A provider none of whose
    candidates was correct is not chosen (one warning says why).

    `domain` narrows each provider's space: a key naming a provider holds its own domain, any other key
    a parameter of every provider declaring it (a name no provider declares is an error). Returns
    ({"provider": name, "params": winner}, report); report["providers"] holds each search's report."""
    import torch

    providers = list(providers)
    if not providers or any(p not in PROVIDERS for p in providers) or len(set(providers)) != len(providers):
        raise ValueError(f"tune_providers: providers must be distinct names from {', '.join(PROVIDERS)}; "
                         f"got {providers!r}")
    spaces = {p: _provider_space(kernel, constexprs, p) for p in providers}
    for name in (domain or {}):
        if name not in PROVIDERS and not any(name in space for space in spaces.values()):
            raise ValueError(f"tune: domain names '{name}', which no provider declares; expected one of "
                             f"{', '.join(sorted(set().union(*spaces.values())))} or a provider name")
    domains = {p: provider_domain(domain, p, spaces[p]) for p in providers}
    timer = timer or (lambda fn: _median_ms(torch, fn, reps))
    started = time.monotonic()
    first = providers[0]
    default = {n: d for n, (_, d) in restrict(spaces[first], domains[first]).items()}
    check = _Checker(torch, kernel, tensors, scalars, constexprs, default, reference, first)
    reports, winners = {}, {}
    for i, provider in enumerate(providers):
        share = max(0.0, (budget_s - (time.monotonic() - started)) / (len(providers) - i))
        best, report = tune(kernel, tensors, scalars, constexprs, budget_s=share, reps=reps, verbose=verbose,
                            timer=timer, finalists=finalists, compile_workers=compile_workers,
                            compile_pool=compile_pool, domain=domains[provider], target=provider, check=check)
        reports[provider] = report
        if report.get("timed"):
            winners[provider] = report["winner"] = best
        elif report["rejected"] and not report["skipped_for_budget"]:
            _warn(f"kernel '{kernel.name}': target='auto' keeps no {provider} candidate: every one was rejected "
                  f"(first: {report['rejected'][0][1]})")
    measure = _measurer(torch, kernel, tensors, scalars, constexprs, timer)
    head = {}
    if len(winners) > 1:
        # Alternating, and each round starting one provider later, so a drift of clocks or power (a
        # power-limited GEMM's clocks move within a round) reaches each provider alike and in each place.
        samples = {p: [] for p in winners}
        order = list(winners)
        for r in range(rounds):
            for provider in order[r % len(order):] + order[:r % len(order)]:
                samples[provider].append(measure(winners[provider], provider))
        head = {p: statistics.median(ms) for p, ms in samples.items()}
    else:
        head = {p: reports[p]["winner_ms"] for p in winners}
    if head:
        provider = min(head, key=lambda p: (head[p], providers.index(p)))
        params = winners[provider]
    else:  # nothing was measured: the first provider's default stands, and is not a measurement
        provider, params = first, default
    report = {"target": "auto", "provider": provider, "providers": reports, "head_to_head_ms": head,
              "head_to_head_rounds": rounds if len(winners) > 1 else 0,
              "candidates": sum(r["candidates"] for r in reports.values()),
              "timed": sum(r["timed"] for r in reports.values()),
              "rejected": [(params_, f"{p}: {why}") for p, r in reports.items() for params_, why in r["rejected"]],
              "skipped_for_budget": sum(r["skipped_for_budget"] for r in reports.values()),
              "checked_on": check.against if reference is not None else f"the default candidate on {first}",
              "winner_ms": head.get(provider), "default_ms": reports[first].get("default_ms"),
              "wall_s": round(time.monotonic() - started, 2)}
    if verbose:
        print(f"tessel.tune {kernel.name}: provider {provider} " +
              ", ".join(f"{p} {ms:.4f} ms" for p, ms in head.items()), file=sys.stderr)
    return {"provider": provider, "params": dict(params)}, report


class _CompileAhead:
    """The search's side of compiling ahead: which candidates to hand to the process pool (every one
    about to be visited, a sliding window) or the thread pool (in batches), and waiting for one before
    it is checked. Off with fewer than two workers, under the Triton interpreter (nothing to
    compile), or when the kernel has no warmup entry."""

    def __init__(self, kernel, tensors, scalars, constexprs, workers: int, mode: str):
        self.kernel, self.tensors, self.scalars, self.constexprs = kernel, tensors, scalars, constexprs
        self.workers, self.lookahead = workers, max(16, 2 * workers)
        self.used = (workers >= 2 and bool(tensors) and hasattr(kernel, "_warmup")
                     and os.environ.get("TRITON_INTERPRET") != "1"
                     and (mode == "process" or getattr(tensors[0], "is_cuda", False)))
        self.pool = _compile_ahead.ProcessPool(workers) if self.used and mode == "process" else None
        self.threads = {"mode": "threads", "workers": workers, "compiled": 0, "compile_wall_s": 0.0}
        self.seen = set()

    def window(self, i: int) -> bool:
        """Whether the rest phase's `i`-th visit hands out the next candidates: every visit keeps the
        process pool's window full; threads compile a whole batch at a time."""
        return self.pool is not None or i % self.lookahead == 0

    def submit(self, batch) -> None:
        batch = [(k, p) for k, p in batch if k not in self.seen]
        if not self.used or not batch:
            return
        self.seen.update(k for k, _ in batch)
        warms = []
        for k, p in batch:
            try:
                warm = self.kernel._warmup(self.constexprs, p)
            except Exception:  # noqa: BLE001 - the serial path reports a candidate that does not build
                continue
            if warm is not None:
                warms.append((k, warm))
        if self.pool is not None:
            for k, warm in warms:
                self.pool.submit(k, _compile_ahead.warm_job(warm, self.tensors, self.scalars))
        elif len(warms) >= 2:
            started = time.monotonic()
            try:
                self.threads["compiled"] += _compile_ahead.compile_on_threads(
                    [w for _, w in warms], self.tensors, self.scalars, self.workers)
            except Exception as e:  # noqa: BLE001 - compiling ahead must never break tuning
                self.threads.setdefault("first_error", f"{type(e).__name__}: {e}"[:200])
            self.threads["compile_wall_s"] += time.monotonic() - started

    def wait(self, k, deadline: float | None = None):
        """Waits for candidate `k`'s compile ahead: None when it is still compiling at `deadline` (the
        search's budget; time.monotonic()), else True (compiled, or nothing to wait for)."""
        if self.pool is not None and self.pool.wait(k, deadline) is None:
            return None
        return True

    def close(self) -> dict:
        if self.pool is not None:
            return self.pool.close()
        self.threads["compile_wall_s"] = round(self.threads["compile_wall_s"], 2)
        return self.threads
