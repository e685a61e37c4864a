"""`@tessel.kernel` objects: trace to KIR, verify with the compiler, run on the interpreter."""
from __future__ import annotations

import enum
import hashlib
import importlib.util
import math
import os
import pathlib
import sys
import tempfile

from . import _cli, _fold_tiles, _in_process, _jit, _torch, _vjp
from ._errors import CompileError


def _scalar_text(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    return repr(float(value))


_PRIVATE_DIRS: dict = {}


def _special_key(kwargs: dict, constexprs) -> tuple:
    """(key, other keywords) of a call's keywords, split by the kernel's constexpr names: the key is
    the name, type and value of each constexpr keyword in the order given (the type, since True == 1
    and hashes alike), the plan tables of constexpr calls are keyed by it (`Kernel._dispatch`)."""
    key, rest = (), {}
    for n, v in kwargs.items():
        if n in constexprs:
            key += (n, type(v), v)
        else:
            rest[n] = v
    return key, rest


def _plannable(key: tuple) -> bool:
    """Whether a constexpr key can stand for its specialization: every value of a type whose equal
    values are one specialization (`Kernel._key` spells them by type and repr). Other values (a str
    subclass, say) keep the binding path."""
    return all(type(v) in (bool, int, str) or isinstance(v, enum.Enum) for v in key[2::3])


def _cache_dir() -> pathlib.Path:
    """The cache folder (TESSEL_CACHE, else ~/.cache/tessel). One that cannot be made or written
    degrades to a private temporary folder for this process (nothing is kept across processes) with
    one warning, so a read-only or missing cache never makes a call fail."""
    path = pathlib.Path(os.environ.get("TESSEL_CACHE", pathlib.Path.home() / ".cache" / "tessel"))
    if str(path) in _PRIVATE_DIRS:
        return _PRIVATE_DIRS[str(path)]
    try:
        path.mkdir(parents=True, exist_ok=True)
        if os.access(path, os.W_OK | os.X_OK):
            return path
        reason = "it is not writable"
    except OSError as e:
        reason = e.strerror or str(e)
    import warnings
    private = pathlib.Path(tempfile.mkdtemp(prefix="tessel-cache-"))
    warnings.warn(f"tessel: the cache folder {path} cannot be used ({reason}); this process caches in "
                  f"{private} and keeps nothing", stacklevel=3)
    _PRIVATE_DIRS[str(path)] = private
    return private


_SOURCE_SEAL = "# tessel source sha256 "


def _sealed(text: str) -> str:
    """Cached source ends in a line holding the hash of what precedes it, so a truncated or edited
    file is detected (and recompiled) instead of trusted."""
    return f"{text}{_SOURCE_SEAL}{hashlib.sha256(text.encode()).hexdigest()}\n"


def _unseal(data: str) -> str | None:
    body, sep, tail = data.rpartition(_SOURCE_SEAL)
    if not sep or tail.strip() != hashlib.sha256(body.encode()).hexdigest():
        return None
    return body


def _write_cached(path: pathlib.Path, text: str) -> bool:
    """Atomic write into the cache; a failure (full or read-only disk) only costs the caching."""
    from . import _tune
    try:
        _tune.write_atomic(path, text)
        return True
    except OSError as e:
        import warnings
        warnings.warn(f"tessel: could not write {path} ({e.strerror or e}); not cached", stacklevel=3)
        return False


_VERSION = None


def _compiler_version() -> str:
    """The compiler's version and the hash of its binary: a rebuilt compiler (same version string,
    other code) must not reuse sources and tuning results cached by the previous build."""
    global _VERSION
    if _VERSION is None:
        digest = hashlib.sha256(pathlib.Path(_cli.find_tessel()).read_bytes()).hexdigest()[:16]
        _VERSION = f"{_in_process.version()} build {digest}"
    return _VERSION


def _bound_sizes(covers: dict) -> dict:
    """{bound: its size} of the numbers among the covered symbols (`covers = "128"`: pgpu-form-blocking's
    constant bound on a row, a slice of constant width clipped to its row), which hold at every call."""
    return {s: int(s) for s in covers.values() if s.isdigit()}


def covering_passes(n, candidates, pass_candidates):
    """(tile, passes) of a parameter counted in passes over ranges of its extent (bin-range tiling,
    `<kernel>_PASSES`) that together cover a symbol of size `n` no single candidate holds: the fewest
    passes the largest kept candidate needs (a provider keeps the candidates that fit its fast memory,
    so this is its resource fact), the smallest passes candidate at least that, and the smallest tile
    that still covers `n` in that many passes (ceil(n / tile) passes run; the guard is n <= tile x
    passes). None when one candidate holds `n` (the plain cover binds it), for n <= 0, or when no
    declared passes candidate covers `n` (the direct form stays)."""
    if not n or n <= 0 or not candidates or not pass_candidates or max(candidates) >= n:
        return None
    need = -(-n // max(candidates))
    counts = [p for p in sorted(pass_candidates) if p >= need]
    if not counts:
        return None
    return min(c for c in candidates if c * need >= n), counts[0]


# A program of a privatized histogram merges up to its bins once (one atomic per nonzero count), so it
# counts at least this many elements per merged bin. On the H200, 2^26 values into 65536 bins at HBINS
# 32768 x 2 passes (1024 threads) ran 0.307 ms with BLOCK_P 524288 (8 elements per merged bin) against
# 0.366 ms at 262144 (4) (2026-12-02); 1024 bins keep BLOCK_P 65536 (64 per bin; 4.5x torch.bincount
# with 256 threads, 3.7x at BLOCK_P 16384 with 128).
HISTOGRAM_ELEMENTS_PER_MERGED_BIN = 8


def merged_ownership(n, tile, passes, candidates, default):
    """BLOCK_P's call default for a histogram of `n` bins counted in privatized ranges of `tile` bins
    (`passes` declared): the smallest candidate counting HISTOGRAM_ELEMENTS_PER_MERGED_BIN elements per
    bin a program merges (min(n, tile x passes) bins; the largest candidate when none does), when that
    is more than the default; None otherwise, and when the direct form runs (n > tile x passes)."""
    if not n or n <= 0 or n > tile * passes:
        return None
    want = HISTOGRAM_ELEMENTS_PER_MERGED_BIN * min(n, -(-n // tile) * tile)
    if want <= default:
        return None
    fits = [c for c in candidates if c >= want]
    return min(fits) if fits else max(candidates)


def _program_count(programs, binding: dict, views: dict):
    """The launch's program count (`<kernel>_PROGRAMS`) at `binding` over `views`; None where a view has
    no shape or the count is not a number."""
    try:
        n = programs(binding, views)
    except Exception:  # a view without a shape
        return None
    return n if isinstance(n, int) else None


def _multiprocessors(views: dict) -> int:
    """The multiprocessors of the device of a call's first view (132, the H100's and H200's, for views
    not on a CUDA device: what `call_defaults` answers on CPU tensors)."""
    first = next(iter(views.values()), None)
    if first is not None and getattr(first, "is_cuda", False):
        import torch
        return torch.cuda.get_device_properties(first.device).multi_processor_count
    return 132


def _shallowest_pipeline(prune, stages: int):
    """`prune` of a binding with its walks unpipelined (LOOP_STAGES = `stages`)."""
    def unpipelined(p):
        return prune({**p, "LOOP_STAGES": stages})
    return unpipelined


def pinned_params(space: dict) -> dict:
    """The values the environment variable TESSEL_PARAMS ("NAME=VALUE,NAME=VALUE") pins for a call whose
    kernel declares `space` ({name: (candidates, default)}): each named parameter the kernel declares takes
    its value over the call's defaults and a tuned winner (a switch for timing one choice against
    another, e.g. TESSEL_PARAMS=LOOP_STAGES=1); names the kernel does not declare are left out, so one
    setting spans kernels. A malformed entry, or a value that is not one of a declared parameter's
    candidates, is an error naming the variable."""
    text = os.environ.get("TESSEL_PARAMS", "").strip()
    pins = {}
    for entry in filter(None, (e.strip() for e in text.split(","))):
        name, eq, value = entry.partition("=")
        name = name.strip()
        try:
            number = int(value)
        except ValueError:
            number = None
        if not eq or not name or number is None:
            raise ValueError(f"TESSEL_PARAMS: '{entry}' is not NAME=INTEGER (entries are separated by commas)")
        if name in space:
            if number not in space[name][0]:
                raise ValueError(f"TESSEL_PARAMS: {name}={number} is not one of its candidates {list(space[name][0])}")
            pins[name] = number
    return pins


class Kernel:
    """A traced kernel. `kir()` gives its KIR text for one constexpr specialization (cached);
    `compile()` verifies it with the compiler; `run_interp()` runs it on the reference interpreter.

    `target` is the provider a call launches and `tune()` searches: "triton" (the default), "cutile",
    "ptx", or "auto" (the provider is a declared choice: `tune()` measures every available provider,
    Triton, cuTile and PTX, and keeps the fastest correct one per shape bucket; an untuned call runs
    Triton)."""

    def __new__(cls, *args, **kwargs):
        # A class of its own, so that a kernel object's planned calls skip a layer (issue 18): once its
        # first plain call has a plan, the class's `__call__` is the generated module's planned call
        # over this object's plan table (`_<kernel>_entry`, Target/Triton/LaunchWrapper.h), and every
        # call it does not plan comes back to `_dispatch`.
        own = type(cls.__name__, (cls,), {"__module__": cls.__module__, "__qualname__": cls.__qualname__,
                                          "__doc__": cls.__doc__})
        return super().__new__(own)

    def __init__(self, fn, name: str | None = None, target: str = "triton", checked: bool = False, **options):
        from . import _tune
        for k in options:
            if k not in _jit._OPTIONS:
                raise TypeError(f"@tessel.kernel got an unknown option {k!r}; expected one of {_jit._OPTIONS}")
        if target not in _tune.TARGETS:
            raise ValueError(f"@tessel.kernel: target must be one of {', '.join(map(repr, _tune.TARGETS))}; "
                             f"got {target!r}")
        self.fn = fn
        self.name = name or fn.__name__
        self.target = target
        self.options = options
        # The checked launch mode (also TESSEL_CHECKED=1 when a generated module is imported): every call
        # is checked in full, including index values against the extents they index; no plan is taken.
        self.checked = bool(checked)
        self.__name__ = self.name
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._cache: dict = {}
        self._params = None
        self.last_tuning = None  # the report of the last tune() (candidates, timed, rejected, times)
        # (constexprs, shapes, device) -> launcher: a call that binds does no hashing or file access
        # after the first call with a shape (tune() clears it).
        self._launches: dict = {}
        # Plain calls (every view positional, every scalar by keyword, no constexpr) are the generated
        # planned call over this table of plans (Target/Triton/LaunchWrapper.h): a call like an
        # earlier one launches that call's choice of compiled kernel without binding or lookups.
        self._plans: dict = {}
        self._front = None  # that planned call, this object's class's `__call__` since the first plain call
        # Calls with constexpr keywords (and views positional, scalars by keyword) are the planned call
        # of their specialization's module over a plan table of their own: `_dispatch` looks up the call's
        # constexpr key (`_special_key`) here. {key: planned call}, {key: its plans}; at most 1024 plans
        # and planned calls in all (then all are forgotten, as `_plans` is); tune() clears them.
        self._special_fronts: dict = {}
        self._special_plans: dict = {}
        self._special_count = 0
        self._constexpr_names = frozenset()  # the constexpr parameters, known since the first constexpr call
        self._unavailable: dict = {}  # (constexprs key, provider) -> that provider's located rejection
        # The torch custom operator this kernel is inside torch.compile (see _torch.py).
        self._op, self._op_name, self._op_enums = None, None, ()
        _torch.register_if_loaded(self)

    # --- tracing ---------------------------------------------------------------------------------
    def params(self):
        if self._params is None:
            self._params = _jit.kernel_params(self.fn, self.name)
        return self._params

    def _key(self, constexprs):
        return tuple(sorted((k, (type(v).__name__, repr(v))) for k, v in (constexprs or {}).items()))

    def kir(self, constexprs: dict | None = None, **kw) -> str:
        """The KIR module text of this kernel specialized to `constexprs` (defaults fill the rest).

        Constexprs are resolved while tracing: the text is one specialization and its `constexprs`
        attribute records the values it was traced with."""
        cx = dict(constexprs or {}, **kw)
        key = self._key(cx)
        if key not in self._cache:
            self._cache[key] = _jit.trace_kernel(self.fn, self.name, self.options, cx)
        return self._cache[key]

    def vjp(self, wrt) -> "Kernel":
        """The backward kernel derived from this one (reverse-mode, docs/language.md "Derived backward
        kernels"): its inputs are this kernel's inputs and `d_<out>` (the cotangent of each output, in the
        output's place), its outputs `d_<x>` for each input view named in `wrt`. A kernel whose backward
        cannot be derived is refused at the op, when the derived kernel is first traced."""
        key = _vjp.checked_wrt(self.name, self.params(), wrt)
        vjps = self.__dict__.setdefault("_vjps", {})  # one derived kernel (and torch operator) per wrt
        if key not in vjps:
            vjps[key] = VjpKernel(self, key)
        return vjps[key]

    def _write(self, directory: pathlib.Path, constexprs) -> pathlib.Path:
        path = directory / f"{self.name}.mlir"
        path.write_text(self.kir(constexprs))
        return path

    def compile(self, emit: str = "kir", constexprs: dict | None = None, extra=()) -> str:
        """`tessel compile --emit=EMIT` of the traced KIR: in process where tessel._in_process can, else a subprocess."""
        if (text := _in_process.compile_in_process(lambda: self.kir(constexprs), self.name, emit, extra)) is not None:
            return text
        with tempfile.TemporaryDirectory(prefix="tessel-") as tmp:
            path = self._write(pathlib.Path(tmp), constexprs)
            res = _cli.run_tessel(["compile", path, f"--emit={emit}", *extra])
            return _cli.check(res, f"tessel compile of kernel '{self.name}'")

    def run_interp(self, shapes: dict, scalars: dict | None = None, constexprs: dict | None = None,
                   seed: int = 0, out: str | pathlib.Path | None = None, segments: str | int | None = None,
                   order: str | None = None, ranges: dict | None = None, inputs: dict | None = None) -> dict:
        """Runs the kernel on the CPU reference interpreter (`tessel run`) with random inputs, or the
        numpy arrays in `inputs` ({view name: array}, passed as `--in NAME=FILE.npy`; their shapes
        bind the extents they name).

        Returns numpy arrays keyed by view name: inputs as NAME.in (what the kernel saw, for In and
        InOut views), results as NAME (Out and InOut views)."""
        import numpy as np

        with tempfile.TemporaryDirectory(prefix="tessel-") as tmp:
            tmp = pathlib.Path(tmp)
            path = self._write(tmp, constexprs)
            outdir = pathlib.Path(out) if out is not None else tmp / "out"
            args = ["run", f"{path}:{self.name}", "--seed", str(seed), "--out", str(outdir)]
            if shapes:
                args += ["--shape", ",".join(f"{k}={int(v)}" for k, v in shapes.items())]
            for k, v in (scalars or {}).items():
                args += ["--scalar", f"{k}={_scalar_text(v)}"]
            for k, v in (ranges or {}).items():
                args += ["--range", f"{k}={v}"]
            for k, v in (inputs or {}).items():
                np.save(tmp / f"{k}.given.npy", np.asarray(v))
                args += ["--in", f"{k}={tmp / f'{k}.given.npy'}"]
            if segments is not None:
                args += ["--segments", str(segments)]
            if order is not None:
                args += ["--order", order]
            res = _cli.run_tessel(args)
            _cli.check(res, f"tessel run of kernel '{self.name}'")
            return {p.name[:-4]: np.load(p) for p in sorted(outdir.glob("*.npy"))}

    # --- providers -------------------------------------------------------------------------------
    def pgpu(self, constexprs: dict | None = None) -> str:
        """The constructed physical program (pgpu) of one specialization."""
        return self.compile("pgpu", constexprs)

    def source(self, target: str = "triton", constexprs: dict | None = None, params: dict | None = None) -> str:
        """Provider source for one specialization: Triton kernel plus its Python launch wrapper (for
        "ptx", the PTX inside the module whose wrapper launches it through tessel's CUDA runtime).

        Cached on disk by the hash of the KIR text, target, parameters and compiler version, so a
        new process does not recompile (set TESSEL_CACHE to move the cache)."""
        extra = [f"--target={target}"] + [f"--param={k}={v}" for k, v in sorted((params or {}).items())]
        key = hashlib.sha256("\0".join([self.kir(constexprs), target, repr(sorted((params or {}).items())),
                                          _compiler_version()]).encode()).hexdigest()[:24]
        cached = _cache_dir() / f"{self.name}-{key}.py"
        from . import _tune
        try:  # regular files only, bounded: a FIFO or a device in its place is damage, not a source
            text = _unseal(_tune.read_cached(cached, _tune.SOURCE_LIMIT).decode())
        except (OSError, UnicodeDecodeError):
            text = None
        if text is not None:
            return text
        if cached.exists():
            import warnings
            warnings.warn(f"tessel: the cached source {cached} is damaged (truncated or edited); recompiling",
                          stacklevel=2)
        # The PTX provider's Python side is its wrapper module (the PTX inside, launched by tessel._ptx).
        text = self.compile("wrapper" if target == "ptx" else "source", constexprs, extra)
        _write_cached(cached, _sealed(text))  # atomic: concurrent processes see a whole file or none
        return text

    def _launcher(self, constexprs: dict, params: dict | None = None, target: str = "triton"):
        key = ("launcher", self._key(constexprs), tuple(sorted((params or {}).items())))
        if target != "triton":
            key += (target,)
        if key not in self._cache:
            text = self.source(target, constexprs, params)
            digest = hashlib.sha256(text.encode()).hexdigest()
            path = _cache_dir() / f"{self.name}-{digest[:24]}.py"
            from . import _tune
            try:  # the import below reads the file: a FIFO or a device in its place is replaced first
                whole = hashlib.sha256(_tune.read_cached(path, _tune.SOURCE_LIMIT)).hexdigest() == digest
            except OSError:
                whole = False
            if not whole and not _write_cached(path, text):
                path = pathlib.Path(tempfile.mkdtemp(prefix="tessel-")) / path.name
                path.write_text(text)
            spec = importlib.util.spec_from_file_location(f"_tessel_{self.name}_{path.stem[-8:]}", path)
            module = importlib.util.module_from_spec(spec)
            # Importable by name: torch.compile looks up the module of the planned call it traces.
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            self._cache[key] = getattr(module, self.name)
            if not params:  # the declared defaults: a candidate's module records its own bound values
                self._cache[self._declared("space", constexprs, target)] = getattr(module, f"{self.name}_PARAMS")
                prune = getattr(module, f"{self.name}_PRUNE", None)
                space = self._cache[self._declared("space", constexprs, target)]
                self._cache[self._declared("pipelined prune", constexprs, target)] = prune
                # The call-default rules size steps and tiles as if no walk were pipelined (LOOP_STAGES = 1):
                # the pipeline is fitted to what they choose last (_fact_params).
                self._cache[self._declared("prune", constexprs, target)] = (
                    _shallowest_pipeline(prune, min(space["LOOP_STAGES"][0]))
                    if prune is not None and "LOOP_STAGES" in space else prune)
                self._cache[self._declared("covers", constexprs, target)] = getattr(module, f"{self.name}_COVERS", {})
                self._cache[self._declared("passes", constexprs, target)] = getattr(module, f"{self.name}_PASSES", {})
                self._cache[self._declared("segments", constexprs, target)] = getattr(
                    module, f"{self.name}_SEGMENTS", {})
                self._cache[self._declared("warps", constexprs, target)] = getattr(module, f"{self.name}_WARPS", None)
                self._cache[self._declared("sizes", constexprs, target)] = getattr(module, f"{self.name}_SIZES", ())
                self._cache[self._declared("programs", constexprs, target)] = getattr(module, f"{self.name}_PROGRAMS", None)
                self._cache[self._declared("loop loads", constexprs, target)] = getattr(
                    module, f"{self.name}_LOOP_LOADS", None)
                self._cache[self._declared("loop buffers", constexprs, target)] = getattr(
                    module, f"{self.name}_LOOP_BUFFERS", None)
                self._cache[self._declared("elementwise", constexprs, target)] = getattr(
                    module, f"{self.name}_ELEMENTWISE", None)
                self._cache[self._declared("elementwise only", constexprs, target)] = getattr(
                    module, f"{self.name}_ELEMENTWISE_ONLY", ())
                self._cache[self._declared("fold tiles", constexprs, target)] = (
                    getattr(module, f"{self.name}_FOLD_TILES", _fold_tiles.UNIFORM),
                    getattr(module, f"{self.name}_FOLD_AXES", ()), getattr(module, f"{self.name}_GROUP_EXTENTS", None))
        return self._cache[key]

    def _declared(self, what: str, constexprs: dict, target: str) -> tuple:
        key = (what, self._key(constexprs))
        return key if target == "triton" else key + (target,)

    def _space(self, constexprs: dict, target: str = "triton") -> dict:
        """`target`'s declared search space: {name: (candidates, heuristic default)}."""
        self._launcher(constexprs, None, target)
        return self._cache[self._declared("space", constexprs, target)]

    def _provider_space(self, constexprs: dict, provider: str):
        """`provider`'s declared space, or why `target="auto"` cannot use that provider here: its
        toolchain is missing, or it rejects this kernel (the first line of its located error)."""
        why = self._unavailable.get((self._key(constexprs), provider))
        if why is None and provider == "cutile":  # asked each time: a toolchain may be set up later
            from . import _cutile
            why = _cutile.unavailable()
        elif why is None and provider == "ptx":  # tessel's own CUDA runtime and a device to run on
            from . import _ptx
            why = _ptx.unavailable()
        if why is None:
            try:
                return self._space(constexprs, provider)
            except CompileError as e:  # a rejection holds for this KIR and compiler: kept
                lines = [line for line in str(e).splitlines() if "error:" in line] or str(e).splitlines() or [""]
                why = f"the {provider} provider rejects this kernel: {lines[0].strip()}"
                self._unavailable[(self._key(constexprs), provider)] = why
        return why

    def _providers(self, constexprs: dict) -> list:
        """The providers `target="auto"` can measure for this specialization. Each one left out is said
        once, in one warning naming why (a missing toolchain, or the provider's located rejection)."""
        from . import _tune
        available = []
        for provider in _tune.PROVIDERS:
            why = self._provider_space(constexprs, provider)
            if not isinstance(why, str):
                available.append(provider)
            elif ("warned", self._key(constexprs), provider) not in self._cache:
                self._cache[("warned", self._key(constexprs), provider)] = True
                import warnings
                warnings.warn(f"tessel: kernel '{self.name}': target='auto' leaves out the {provider} provider: "
                              f"{why}", stacklevel=3)
        if not available:
            raise CompileError(f"kernel '{self.name}': target='auto' has no provider to measure: " + "; ".join(
                f"{p}: {self._provider_space(constexprs, p)}" for p in _tune.PROVIDERS))
        return available

    def _symbol_sizes(self, tensors) -> dict:
        """{shape symbol: its size in this call's views} (the first view naming it)."""
        sizes = {}
        for p, t in zip([p for p in self.params() if p.kind == "view"], tensors):
            for symbol, n in zip(p.spec.extents, getattr(t, "shape", ())):
                if isinstance(symbol, str):
                    sizes.setdefault(symbol, int(n))
        return sizes

    def _fact_params(self, constexprs: dict, tensors, target: str = "triton") -> dict | None:
        """Heuristic defaults from facts of this call (seed 003): a parameter declared to cover a shape
        symbol (a blocked range [0, S) of a row, a fragment axis under a uniform `size <= BLOCK` guard)
        takes the smallest candidate at least the symbol's size here, which is its mask-free,
        single-pass variant when they are equal; where none holds it and the parameter counts in passes
        over its ranges (`<kernel>_PASSES`), the largest candidate in the fewest passes covering it
        (`covering_passes`), BLOCK_P then following the bins a program merges (`merged_ownership`);
        WARPS then follows the bound parameters by the
        provider's rule (`<kernel>_WARPS`, the resource model's); FOLD_SPLIT, PAIR_BLOCKS and SCAN_CHAIN
        follow the launch's program count (`_fold_split`, `_pair_blocks`, `_scan_chain`). None when
        every parameter keeps its declared default."""
        space = self._space(constexprs, target)
        covers = self._cache.get(self._declared("covers", constexprs, target)) or {}
        fill = self._fill_programs(constexprs, tensors, target)
        loop_loads = self._cache.get(self._declared("loop loads", constexprs, target))
        segments = self._cache.get(self._declared("segments", constexprs, target)) or {}
        if not covers and not fill and loop_loads is None and not segments and \
                not {"FOLD_SPLIT", "PAIR_BLOCKS", "SCAN_CHAIN", "ROWS"} & space.keys():
            return None
        sizes = {**self._symbol_sizes(tensors), **_bound_sizes(covers)}
        # Ragged segments' tiles follow their average length (both bound, so the rules below keep them).
        chosen = self._segment_tiles(constexprs, tensors, target, segments, sizes)
        passes = self._cache.get(self._declared("passes", constexprs, target)) or {}
        warps = self._cache.get(self._declared("warps", constexprs, target))
        prune = self._cache.get(self._declared("prune", constexprs, target))

        def limit(binding: dict):
            """The limit `<kernel>_PRUNE` says `binding` (declared defaults elsewhere, WARPS by rule) exceeds."""
            if prune is None:
                return None
            # ROWS is chosen after BLOCK (`_rows`, at most ROW_TILE elements a tile): one row here.
            rows = {"ROWS": min(space["ROWS"][0])} if "ROWS" in space else {}
            full = {**{n: d for n, (_, d) in space.items()}, **rows, **binding}
            if warps is not None and "WARPS" in space and "WARPS" not in binding:
                w = warps(full)
                if w in space["WARPS"][0]:
                    full["WARPS"] = w
            return prune(full)

        spills = lambda binding: limit(binding) in ("registers", "chained registers")  # noqa: E731
        exceeds = lambda binding: limit(binding) is not None  # noqa: E731

        def narrows(item) -> bool:
            """Whether a cover's pick is at most its declared default (BLOCK_D = 64 for D = 64)."""
            n, (candidates, default) = sizes.get(item[1]), space[item[0]]
            return any(n and n <= c <= default for c in candidates)

        # Covers whose pick narrows a tile first: a wider pick (a key tile holding the row) is then
        # checked against the tiles the call binds, not against their wider declarations.
        for param, symbol in sorted(covers.items(), key=lambda item: not narrows(item)):
            n, (candidates, default) = sizes.get(symbol), space[param]
            fits = [c for c in candidates if n and c >= n]
            if fits:
                # The covering candidate, unless its registers spill (a scan of many components over a
                # long row): then the largest smaller candidate that fits the registers, in several blocks.
                pick = min(fits)
                over = spills({**chosen, param: pick})
                if limit({**chosen, param: pick}) == "chained registers" and not exceeds(chosen):
                    # Holding the row would run a chained product (scores, exponentials, P.V) over the
                    # registers' budget (Resources.cpp): the tile keeps its default, the folds run as passes
                    # (H100, ViT attention S = 197: one tile 0.125 ms, 0.144 at 32 rows; passes 0.093).
                    pick, over = default, False
                elif over or (exceeds({**chosen, param: pick}) and not exceeds(chosen)):
                    # A tile that holds a whole row (a product's row whose folds then run once,
                    # pgpu-stage-folds) keeps it where narrowing another tile of the program, or its
                    # pipeline, fits it (registers and shared memory).
                    narrowed = _fold_tiles.narrow_beside(space, covers, sizes, chosen, param, pick, limit,
                                                         self._cache.get(self._declared("sizes", constexprs, target)))
                    if narrowed is not None:
                        chosen.update(narrowed)
                    elif over:
                        below = [c for c in candidates if c < pick and not spills({**chosen, param: c})]
                        pick = max(below) if below else pick
                if pick != default:
                    chosen[param] = pick
            elif passes.get(param) in space:
                ranged = covering_passes(n, candidates, space[passes[param]][0])
                if ranged is not None:
                    chosen[param], chosen[passes[param]] = ranged
            if param in passes and n and "BLOCK_P" in space:
                tile = chosen.get(param, default)
                block_p = merged_ownership(n, tile, chosen.get(passes[param], space[passes[param]][1]),
                                           space["BLOCK_P"][0], space["BLOCK_P"][1])
                if block_p is not None:
                    chosen["BLOCK_P"] = block_p
        rows = self._rows(constexprs, tensors, target, {**{n: d for n, (_, d) in space.items()}, **chosen},
                          sizes.get(covers.get("BLOCK")))
        if rows is not None and rows != space["ROWS"][1]:
            chosen["ROWS"] = rows
        # The fold's tile and schedule (`_fold_tile`); its PAIR_BLOCKS, default or not, stands.
        fold = self._fold_tile(constexprs, tensors, target, {**{n: d for n, (_, d) in space.items()}, **chosen}, sizes)
        chosen.update({p: v for p, v in fold.items() if v != space[p][1]})
        chosen.update({p: v for p, v in fill.items() if p not in chosen})
        covered = {p for p, symbol in covers.items() if sizes.get(symbol) and
                   any(c >= sizes[symbol] for c in space[p][0])}
        chosen.update(self._reduction_steps(constexprs, tensors, target, chosen, covered))
        if chosen and warps is not None and "WARPS" in space:
            candidates, default = space["WARPS"]
            w = warps({**{n: d for n, (_, d) in space.items()}, **chosen})
            if w in candidates and w != default:
                chosen["WARPS"] = w
        lone = self._lone_program_warps(constexprs, tensors, target, {**{n: d for n, (_, d) in space.items()}, **chosen})
        if lone is not None:
            chosen["WARPS"] = lone
        split = self._fold_split(constexprs, tensors, target, {**{n: d for n, (_, d) in space.items()}, **chosen})
        if split is not None and split != space["FOLD_SPLIT"][1]:
            chosen["FOLD_SPLIT"] = split
            self._rows_in_split(constexprs, tensors, target, space, chosen, sizes.get(covers.get("BLOCK")), warps)
        pair = None if "PAIR_BLOCKS" in fold else self._pair_blocks(
            constexprs, tensors, target, {**{n: d for n, (_, d) in space.items()}, **chosen})
        if pair is not None and pair != space["PAIR_BLOCKS"][1]:
            chosen["PAIR_BLOCKS"] = pair
        chain = self._scan_chain(constexprs, tensors, target, {**{n: d for n, (_, d) in space.items()}, **chosen})
        if chain is not None and chain != space["SCAN_CHAIN"][1]:
            chosen["SCAN_CHAIN"] = chain
        if self._padded_boxes(space, covers, sizes, chosen):
            chosen["TMA"] = 1
        # A walk's pipeline (LOOP_STAGES: LOOP_STAGES - 1 buffers of each tile it loads) with the steps
        # chosen above: the deepest candidate up to its default whose buffers fit the shared memory and hold
        # at most LOOP_BYTES_PER_SM (`<kernel>_LOOP_BUFFERS`): a walk whose one iteration loads that much
        # already has what a multiprocessor needs in flight, and deeper buffers would only cut the programs
        # the multiprocessor holds (a blocked scan over 8192-lane rows: 131584 bytes a program at 3 stages).
        # A launch of fewer programs than multiprocessors (64 rows of 4M elements on 132) leaves the bytes
        # the device needs in flight to those programs alone: each holds LOOP_BYTES_PER_SM times
        # multiprocessors / programs, up to the deepest candidate, since no other program shares its
        # multiprocessor's shared memory (`_lone_loop_bytes`).
        pipelined = self._prune(constexprs, target)
        buffers = self._cache.get(self._declared("loop buffers", constexprs, target))
        if "LOOP_STAGES" in space and pipelined is not None:
            full = {**{n: d for n, (_, d) in space.items()}, **chosen}
            lone = self._lone_loop_bytes(constexprs, tensors, target, full)
            budget, deepest = (lone, max(space["LOOP_STAGES"][0])) if lone else \
                (self.LOOP_BYTES_PER_SM, full["LOOP_STAGES"])
            for depth in sorted((c for c in space["LOOP_STAGES"][0] if c <= deepest), reverse=True):
                at = {**full, "LOOP_STAGES": depth}
                if pipelined(at) != "shared memory" and (buffers is None or buffers(at) <= budget):
                    break
            if depth != space["LOOP_STAGES"][1]:
                chosen["LOOP_STAGES"] = depth
        return chosen or None

    def _lone_loop_bytes(self, constexprs: dict, tensors, target: str, binding: dict):
        """The bytes a walk's pipeline buffers may hold in a launch of fewer programs than the device has
        multiprocessors (each program alone on its own): LOOP_BYTES_PER_SM x multiprocessors / programs,
        the device's bytes in flight shared by the programs there are (Little's law as for
        LOOP_BYTES_PER_SM). None in a launch of at least as many programs, or without a program count."""
        at = self._counts_at("LOOP_STAGES", (binding["LOOP_STAGES"],), constexprs, tensors, target, binding)
        if at is None or not at[1][0]:
            return None
        sms, (count,) = at
        return self.LOOP_BYTES_PER_SM * sms // count if count < sms else None

    @staticmethod
    def _padded_boxes(space: dict, covers: dict, sizes: dict, chosen: dict) -> bool:
        """TMA's call default where it is declared off (boxes with fixed axes: attention's [1, 1, BLOCK_T,
        BLOCK_D] tiles): on when a fragment axis that covers a shape symbol is wider than it here (D = 96
        in BLOCK_D = 128). Every pointer load then masks that axis, which the descriptor's zero fill does
        for nothing; at an exact fit the descriptors made in each program only cost. On the H200 (bf16,
        session 14) causal B1 H4 S4099 D96 took 0.0577 ms of device time with TMA against 0.0695 without;
        at exact fits TMA was slower (B16 H16 S1024 D64 causal 0.205 against 0.167, full 0.283 against 0.235;
        B4 H32 S4096 D128 +6%, session 13). A numeric cover (the constant width w of clipped slices, "5":
        a window of neighbouring channels) bounds each member's slice, not a view's extent: the rows past
        w are other members' data, masked by the slice's length, which no descriptor's fill replaces."""
        if "TMA" not in space or space["TMA"][1] != 0 or 1 not in space["TMA"][0]:
            return False
        for param, symbol in covers.items():
            if symbol.isdigit():
                continue
            n = sizes.get(symbol)
            if n and 0 < n < chosen.get(param, space[param][1]):
                return True
        return False

    # PAIR_BLOCKS's call default pairs the blocks of launches up to this many programs a multiprocessor:
    # on the H200 causal B1 H4 S4099 D96 (260 programs, 2 a multiprocessor) ran 0.0902 ms paired against
    # 0.1122 unpaired (session 11, run 2); at B4 H32 S4096 (8192 programs, 62 a
    # multiprocessor) pairing measured 453 TFLOP/s both ways (session 9): the hardware balances many waves.
    PAIR_PROGRAMS_PER_SM = 4

    def _counts_at(self, param: str, values, constexprs: dict, tensors, target: str, binding: dict):
        """(multiprocessors of the call's device, [the launch's program count with `param` bound to each of
        `values`]) for the call-time defaults below; None without the parameter, the program count
        (`<kernel>_PROGRAMS`) or a view's shape (the declared default stays)."""
        programs = self._cache.get(self._declared("programs", constexprs, target))
        if param not in self._space(constexprs, target) or programs is None:
            return None
        views = dict(zip([n for n, _ in self._views()], tensors))
        try:
            counts = [programs({**binding, param: v}, views) for v in values]
        except Exception:  # a view without a shape: keep the declared default
            return None
        return _multiprocessors(views), counts

    # ROWS's call default aims at staged tiles of ROWS x BLOCK of about this many elements (a hand-written
    # Triton row-norm's [ROWS, BLOCK] tile: 32 rows of 128 bf16 elements move 8 KiB a view per program).
    # Rows shorter than the smallest BLOCK count their own length: at most ROW_TILE elements a tile, and
    # at most ROW_LANES lanes (the padded ROWS x BLOCK fragment each value of the tile holds in registers).
    ROW_TILE = 4096
    ROW_LANES = 8192
    # Triton's grid axis 0 takes at most this many programs (the wrapper refuses a launch past it).
    LAUNCH_LIMIT = 2 ** 31 - 1

    def _rows(self, constexprs: dict, tensors, target: str, binding: dict, n):
        """ROWS's call default (pgpu-pack-rows: programs take ROWS rows of a staged row reduction): 1 when a
        row does not fit BLOCK (`n`, the row's length here: the rows then run one after the other; None, a
        length that is no one shape symbol, counts as not fitting), when the rows are too few to give every
        multiprocessor a program of several, or without the program count (`<kernel>_PROGRAMS`); else the
        largest candidate whose tile stays within ROW_TILE elements of rows (ROWS x n) and ROW_LANES lanes
        (ROWS x BLOCK), whose launch still has a program for every multiprocessor and fewer programs than
        half that many rows a program would launch (no program half empty). Where that launch
        exceeds the grid's limit (2**31 rows), the smallest candidate within it. None without the
        parameter."""
        candidates = sorted(self._space(constexprs, target).get("ROWS", ((), None))[0])
        if not candidates or "BLOCK" not in binding:
            return None
        # A row whose length is no one shape symbol (a reduction over several axes: BLOCK covers none) is
        # taken as long: one row a program, as without the packing.
        long = n is None or n > binding["BLOCK"]
        at = self._counts_at("ROWS", candidates, constexprs, tensors, target, binding)
        if at is None or None in at[1]:  # no program count here: one row a program, as without the packing
            return candidates[0]
        sms, counts = at
        if len(counts) > 1 and len(set(counts)) == 1:
            # ROWS is members a step (pgpu-pack-rows' foreach and reduction rules): the program count stays.
            # The declared default (the compiler's tile for a row that fits BLOCK) stands, within ROW_TILE
            # and ROW_LANES; a long row takes one member a step (its walk as it was).
            if long:
                return candidates[0]
            cap = binding.get("ROWS", candidates[0])
            return max((c for c in candidates if c <= cap and c * max(n, 1) <= self.ROW_TILE
                        and c * binding["BLOCK"] <= self.ROW_LANES), default=candidates[0])
        pick = candidates[0]
        if not long:
            length = max(n, 1)
            # A candidate that launches as many programs as the next smaller one leaves at least half of
            # its rows empty: rows packed along one axis (pgpu-pack-rows' shared reads) of few values.
            fits = [c for i, (c, count) in enumerate(zip(candidates, counts))
                    if c * length <= self.ROW_TILE and c * binding["BLOCK"] <= self.ROW_LANES and count >= sms
                    and (i == 0 or count < counts[i - 1])]
            pick = max(fits, default=pick)
        if counts[candidates.index(pick)] > self.LAUNCH_LIMIT:
            pick = next((c for c, count in zip(candidates, counts) if count <= self.LAUNCH_LIMIT), pick)
        return pick

    def _rows_in_split(self, constexprs: dict, tensors, target: str, space: dict, chosen: dict, n, warps):
        """ROWS's call default again once FOLD_SPLIT has split the launch (`chosen` updated), where ROWS
        leaves the program count alone (pgpu-pack-rows' packed reduction: each split program walks its
        members ROWS a step): `_rows` saw the unsplit launch's one program; WARPS follows the new tile."""
        if "ROWS" not in space:
            return
        binding = {**{p: d for p, (_, d) in space.items()}, **chosen}
        at = self._counts_at("ROWS", sorted(space["ROWS"][0]), constexprs, tensors, target, binding)
        if at is None or None in at[1] or len(set(at[1])) != 1:
            return
        rows = self._rows(constexprs, tensors, target, binding, n)
        if rows is None or rows == binding["ROWS"]:
            return
        chosen["ROWS"] = rows
        if warps is not None and "WARPS" in space:
            w = warps({**binding, "ROWS": rows})
            if w in space["WARPS"][0]:
                chosen["WARPS"] = w

    def _rows_searched(self, constexprs: dict, tensors, target: str, binding: dict):
        """ROWS's candidates a search on this call measures (None: every declared one): the call default
        (`binding`'s, from `_rows`) and its power-of-two neighbours, half and twice it, a neighbour only
        where its launch still has a program for every multiprocessor and its tile stays within ROW_LANES;
        the default alone where a row does not fit BLOCK or its length is no one shape symbol (ROWS then
        only groups rows run one after the other). ROWS changes the program count and each program's tile
        together, so the candidates far from the default either leave multiprocessors idle or split the
        rows into programs of a few lanes: the search spends its budget on the neighbourhood instead."""
        space = self._space(constexprs, target)
        if "ROWS" not in space or "ROWS" not in binding or "BLOCK" not in binding:
            return None
        candidates, rows = sorted(space["ROWS"][0]), binding["ROWS"]
        covers = self._cache.get(self._declared("covers", constexprs, target)) or {}
        n = {**self._symbol_sizes(tensors), **_bound_sizes(covers)}.get(covers.get("BLOCK"))
        if n is None or n > binding["BLOCK"]:
            return [rows]
        near = [c for c in candidates if c in (rows // 2, rows * 2) and c != rows]
        at = self._counts_at("ROWS", near, constexprs, tensors, target, binding)
        if at is None or None in at[1]:
            return [rows]
        sms, counts = at
        return sorted([rows] + [c for c, count in zip(near, counts)
                                if count >= sms and c * binding["BLOCK"] <= self.ROW_LANES])

    def _fill_programs(self, constexprs: dict, tensors, target: str) -> dict:
        """Call defaults of the declared sizes that tile program axes (`<kernel>_SIZES` whose candidates
        change the program count, `<kernel>_PROGRAMS`), from the call's extents (seed 003: facts, not
        spellings), for launches without a fold split (`FOLD_SPLIT` spreads those):
        1. a tile wider than its axis's extent (a decode GEMV's one activation row in 128-row tiles)
           takes the smallest candidate that leaves the program count as it is;
        2. while the launch's programs fill less than three quarters of the device's multiprocessors, the
           widest such tile whose next smaller candidate adds programs takes it (N = 4096 in 256-wide
           tiles is 16 programs on 132 multiprocessors; 32-wide, 128);
        3. where 1 or 2 moved a tile, the sizes that tile no program axis (a K loop's) take their largest
           candidate and STAGES at least 4: a narrow program's pipeline holds as many bytes in flight.
        On the H200 (session 27) the decode GEMV
        (bf16, B=1, N=4096, K=14336) ran 52.6 us at 16x32x128 tiles and 4 stages, 47.0 at 6 (48.9 at
        16x64x128), 80.3 at 16x16 (256 programs), 138.6 at the 128x256x64 defaults (cuBLAS 42.1); the
        int8 weight-only GEMM (M=16, N=K=4096) 44.6 us at 16x32x128 and 4 stages, 60.8 at 6, 131.8 at the
        defaults (torch eager 105.4).
        Program counts are compared without the resident-program cap (`PERSIST` x multiprocessors, a
        persistent walk's), which would equate every tile size past it. {} where nothing moves or a
        moved binding exceeds the resource model (`<kernel>_PRUNE`)."""
        space = self._space(constexprs, target)
        # ROWS (rows a program reduces together) has its own default (`_rows`): it is no tile whose K
        # steps and pipeline should deepen when it narrows.
        sizes = tuple(p for p in self._cache.get(self._declared("sizes", constexprs, target)) or () if p != "ROWS")
        programs = self._cache.get(self._declared("programs", constexprs, target))
        if programs is None or not sizes or "FOLD_SPLIT" in space:
            return {}
        views = dict(zip([n for n, _ in self._views()], tensors))
        # Past any count: the probe below puts every extent at 2**13 times its size, so a space of several
        # axes (a convolution's batch x rows x pixel tiles x channel tiles) counts far past 2**40 there.
        uncapped = {"PERSIST": 1 << 512} if "PERSIST" in space else {}
        base = {**{n: d for n, (_, d) in space.items()}, **uncapped}

        class _Extents:  # a view of the same rank whose every extent is large: which sizes tile programs
            def __init__(self, t):
                self.shape = tuple(max(int(n), 1) << 13 for n in t.shape)

        def count(binding, at):
            return _program_count(programs, binding, at)

        try:
            large = {n: _Extents(t) for n, t in views.items()}
        except (AttributeError, TypeError):
            return {}
        tiles = [p for p in sizes if p in space and
                 len({count({**base, p: c}, large) for c in space[p][0]} - {None}) > 1]
        out = {}
        for p in tiles:  # 1. no wider than the axis
            now = count({**base, **out}, views)
            if not now:
                return {}
            narrower = [c for c in sorted(space[p][0]) if c < base[p] and count({**base, **out, p: c}, views) == now]
            if narrower:
                out[p] = narrower[0]
        sms = _multiprocessors(views)
        split = self._split_k(space, programs, {**base, **out}, views, sms)
        if split is not None:  # the K loop's chunks fill the device: the tiles keep their width
            out["SPLIT_K"] = split
        while split is None:  # 2. fill the multiprocessors
            at = {**base, **out}
            now = count(at, views)
            if not now or 4 * now >= 3 * sms:
                break
            step = None
            for p in tiles:
                smaller = [c for c in space[p][0] if c < at[p]]
                if smaller and (count({**at, p: max(smaller)}, views) or 0) > now and \
                        (step is None or at[p] > at[step[0]]):
                    step = (p, max(smaller))
            if step is None:
                break
            out[step[0]] = step[1]
        if not out:
            return {}
        deeper = {p: max(space[p][0]) for p in sizes if p in space and p not in tiles}  # 3. the pipeline
        if "STAGES" in space and base["STAGES"] < 4 and 4 in space["STAGES"][0]:
            deeper["STAGES"] = 4
        prune = self._cache.get(self._declared("prune", constexprs, target))
        declared = {n: d for n, (_, d) in space.items()}
        if split is not None and "STAGES" in space:
            # A split chunk runs its whole K range as one pipelined loop and stores its partial once: the
            # deepest pipeline that fits (its stores then through pointers where staged ones would not
            # fit). The declared STAGES default is the unsplit program's (SPLIT_K = 1, the branch the
            # provider's analyses read there). On the H200 split-K bf16 512x512x65536 (SPLITS 8,
            # 128x128x64 tiles) ran 55.7 us at 6 stages with a pointer store, 63.3 at 4 with the store
            # staged (session 15).
            fits = [c for c in sorted(space["STAGES"][0], reverse=True)
                    if c > base["STAGES"] and (prune is None or prune({**declared, **out, "STAGES": c}) is None)]
            if fits:
                out["STAGES"] = fits[0]
        for moved in ({**out, **deeper}, out):
            if prune is None or prune({**declared, **moved}) is None:
                return moved
        return {}

    # A K chunk of a split contraction (`_split_k`) walks at least this many K steps: each chunk's
    # partial tile is stored once and read once by the tile's last arrival, which adds the chunks one
    # after the other, so short chunks would trade the K walk for the merge's serial reads.
    SPLIT_K_MIN_STEPS = 16

    def _split_k(self, space: dict, programs, binding: dict, views: dict, sms: int):
        """SPLIT_K's call default (pgpu-split-contractions: a tiled contraction's K loop cut into chunks,
        one program each, their partial tiles added by the tile's last arrival), or None to keep 1: where
        the output tiles at `binding` (the persistent walk uncapped) fill less than three quarters of the
        multiprocessors and the K loop has at least 2 * SPLIT_K_MIN_STEPS steps, the largest candidate
        whose chunks fit one wave (tiles x SPLIT_K <= sms), else the smallest candidate whose chunks fill
        the multiprocessors (tiles x SPLIT_K >= sms), else the largest candidate where
        its chunks keep SPLIT_K_MIN_STEPS steps (none where fewer steps cap the chunks short of it) (135 Gram matrix X^T X, X [1048576, 128]: one 128 x 128 tile,
        16384 steps of 64 rows: 64 chunks of 256 steps)."""
        if "SPLIT_K" not in space:
            return None
        tiles = _program_count(programs, {**binding, "SPLIT_K": 1}, views)
        if not tiles or 4 * tiles >= 3 * sms:
            return None
        # The kernel caps the chunks at the loop's steps: a split past any candidate counts the steps.
        probe = 1 << 30
        reach = _program_count(programs, {**binding, "SPLIT_K": probe}, views)
        if not reach or reach % tiles:
            return None
        steps = reach // tiles
        if steps < 2 * self.SPLIT_K_MIN_STEPS:
            return None
        candidates = sorted(c for c in space["SPLIT_K"][0] if c > 1 and c * self.SPLIT_K_MIN_STEPS <= steps)
        if not candidates:
            return None
        fill = next((c for c in candidates if tiles * c >= sms), None)
        # A K loop too short for its chunks to fill the multiprocessors (short of the most chunks declared)
        # leaves filling them to narrower tiles, which merge nothing: the decode GEMV (B=1, N=4096,
        # K=14336: 16 tiles of 16 x 256, 224 steps, 8 chunks at most) narrows to 16 x 32 tiles, measured
        # 52.6 us on the H200 (session 27; _fill_programs).
        if fill is None and candidates[-1] < max(space["SPLIT_K"][0]):
            return None
        # Chunks past one wave run as a second wave of the persistent walk and add partial tiles to merge:
        # the largest candidate whose chunks fit one wave (tiles x SPLIT_K <= sms) where there is one. H100
        # sweep (lab/results/2026-12-06-h100-splitk-sweep.json, ms by SPLIT_K): 512 x 65536 x 512, 8 tiles:
        # 16 -> 0.127 where filling took 32 -> 0.404 (8: 0.112); 159's dY^T X, 64 tiles: 2 -> 0.234 where 4
        # -> 0.319; 16 x 65536 x 256, one tile: 64 either way (0.051; 32: 0.038).
        one_wave = [c for c in candidates if tiles * c <= sms]
        if one_wave:
            return one_wave[-1]
        return fill if fill is not None else candidates[-1]

    # Ragged segments a program takes at most: each runs its lanes to the program's longest segment, which
    # grows with their number (Dirichlet(0.5) lengths of average 2, as 47_csr_spmv's rows at 1/8 of its
    # nonzeros: 7.9 trips of a [2, 64] tile, 6.6 lanes a nonzero, against 1.7 trips and 6.6 at [8, 16]).
    SEGMENTS_A_PROGRAM = 16

    def _segment_tiles(self, constexprs: dict, tensors, target: str, segments: dict, sizes: dict) -> dict:
        """Call defaults of the tile of ragged segments (`<kernel>_SEGMENTS`, pgpu-tile-column-reductions:
        a program takes `across` segments, `along` members of each at a time, the segments lying in a view
        extent `pool`, one per member of `count`: CSR rows, NNZ nonzeros over M rows), from their average
        length pool / count here (seed 003: facts of the call): `along` the smallest candidate at least the
        average (the largest where none is), so short segments do not leave most lanes of the tile idle,
        and at least the declared tile's lanes over SEGMENTS_A_PROGRAM;
        `across` the largest candidate keeping the tile within the declared tile's lanes (the declared
        defaults' product), then the smallest candidate with as many programs (`<kernel>_PROGRAMS`: no
        wider than the segments), then narrowed while the programs fill less than three quarters of the
        multiprocessors and a narrower candidate adds programs (few segments: down to one a program). A
        segment longer than the tile's lanes finishes with all of them (the pass's long-segment walk), so
        the average, not the longest, sizes the tile. Both are returned, defaults included; {} without
        the fact, the program count or the extents' sizes."""
        space = self._space(constexprs, target)
        along, across = segments.get("along"), segments.get("across")
        n, m = sizes.get(segments.get("pool")), sizes.get(segments.get("count"))
        programs = self._cache.get(self._declared("programs", constexprs, target))
        if along not in space or across not in space or n is None or not m or programs is None:
            return {}
        mean = max(1, -(-n // m))
        rows, cols = sorted(space[along][0]), sorted(space[across][0])
        lanes = space[along][1] * space[across][1]
        r = next((c for c in rows if c >= mean and c * self.SEGMENTS_A_PROGRAM >= lanes), rows[-1])
        c = max((c for c in cols if r * c <= lanes), default=cols[0])
        views = dict(zip([name for name, _ in self._views()], tensors))
        base = {name: d for name, (_, d) in self._space(constexprs, target).items()}
        now = _program_count(programs, {**base, along: r, across: c}, views)
        if now is None:
            return {}
        counts = {x: _program_count(programs, {**base, along: r, across: x}, views) for x in cols if x <= c}
        c = min(x for x in counts if counts[x] == now)  # no wider than the segments: as many programs
        sms = _multiprocessors(views)
        for narrower in reversed([x for x in cols if x < c]):
            if 4 * now >= 3 * sms or not counts[narrower] or counts[narrower] <= now:
                break
            c, now = narrower, counts[narrower]
        return {along: r, across: c}

    # Bytes a reduction loop's iterations should have in flight on each multiprocessor: Little's law on
    # the H200 (4.8 TB/s of HBM3e, about 1 us of loaded latency: 4.8 MB on 132 multiprocessors).
    LOOP_BYTES_PER_SM = 32 * 1024

    def _reduction_steps(self, constexprs: dict, tensors, target: str, chosen: dict, covered=frozenset()) -> dict:
        """Call defaults of the declared steps of reduction loops (`<kernel>_LOOP_LOADS`: a loop whose
        iterations each load a block and reduce it into its carried value, or fold a [BLOCK_R, BLOCK_C]
        tile into a carried tile (a column reduction's rows; programs counted with the fold split the
        call takes at each binding, `_fold_split`), Resources.h) that no rule
        above moved and that cover no shape symbol here (`covered`: the row fits a candidate, which the
        covering rule picks): each iteration waits for its own loads, so a program walks its range at one block
        per memory latency, and the device moves the blocks of its resident programs' iterations at
        once. While the launch's programs (`<kernel>_PROGRAMS`) a multiprocessor (at least one) times
        the bytes an iteration loads stay under LOOP_BYTES_PER_SM, the step takes its next larger
        candidate, as long as the program count stays, WARPS by its rule (`<kernel>_WARPS`) stays at
        most 8 and the resource model (`<kernel>_PRUNE`) admits the binding. A launch of many programs
        keeps its default; one of few programs and short ranges is small either way (GroupNorm: 512
        programs, each reducing 65536 f16 of its group three times, walked 512 lanes at a time at 1
        warp, 384 dependent iterations; issue 41). A recurrence's loop (a state carried over time, Triton.h
        prefetchesRecurrence) has no step to widen: its entry is STAGES, the bytes its pipeline holds
        (one iteration's loads per stage), and the same rule deepens the pipeline (corpus 25 EMA: 128
        programs, each 4096 steps of 64 lanes, STAGES 3 -> 6). A step stops once it spans the elements
        of the call's largest view: a loop reading those views walks no longer range, so a larger step
        only widens masked lanes (a row of 127 elements stays at the declared 512 rather than 8192
        lanes and 8 warps). {} where nothing moves."""
        loop_loads = self._cache.get(self._declared("loop loads", constexprs, target))
        programs = self._cache.get(self._declared("programs", constexprs, target))
        if loop_loads is None or programs is None:
            return {}
        space = self._space(constexprs, target)
        warps = self._cache.get(self._declared("warps", constexprs, target))
        prune = self._cache.get(self._declared("prune", constexprs, target))
        views = dict(zip([n for n, _ in self._views()], tensors))
        at = {**{n: d for n, (_, d) in space.items()}, **chosen}

        def count(binding):
            # A member's statistics split across programs (pgpu-split-member-reductions: MEMBER_SPLIT
            # slices of each member's range, in two phases) walk each slice at the step the member's own
            # walk takes: the programs counted are the members', one a member (MEMBER_SPLIT 1), so the
            # split adds programs beside the grown step rather than shrinking it.
            if "MEMBER_SPLIT" in space and "MEMBER_SPLIT" not in chosen:
                binding = {**binding, "MEMBER_SPLIT": 1}
            # With the fold split the call would take at this binding (`_fold_split`, chosen after the
            # steps): a longer step leaves fewer tiles to split (a column sum of 1031 rows in 16-row
            # tiles splits 64 ways, in 64-row tiles 17), which counts as fewer programs.
            if "FOLD_SPLIT" in space and "FOLD_SPLIT" not in chosen:
                split = self._fold_split(constexprs, tensors, target, binding)
                if split is not None:
                    binding = {**binding, "FOLD_SPLIT": split}
            return _program_count(programs, binding, views)

        now = count(at)
        if not now:
            return {}
        # The elements of the largest view: no loop over these views walks a longer range.
        span = max((math.prod(t.shape) for t in views.values() if hasattr(t, "shape")), default=None)
        per_sm = max(1.0, now / _multiprocessors(views))
        out = {}
        # A block only an element-wise branch beside a contracting one uses (attention's head size past
        # BLOCK_D) stays: the launches that matter do not take that branch.
        fallback = self._cache.get(self._declared("elementwise only", constexprs, target)) or ()
        for param in sorted(loop_loads(at)):
            if param in chosen or param in covered or param not in space or param in fallback:
                continue
            for c in sorted(space[param][0]):
                if c <= at[param]:
                    continue
                if span is not None and at[param] >= span:
                    break
                if per_sm * loop_loads(at)[param] >= self.LOOP_BYTES_PER_SM:
                    break
                grown = {**at, param: c}
                if warps is not None and "WARPS" in space:
                    grown["WARPS"] = warps(grown)
                    if grown["WARPS"] > 8 or grown["WARPS"] not in space["WARPS"][0]:
                        break
                if count(grown) != now or (prune is not None and prune(grown) is not None):
                    break
                at, out[param] = {**at, param: c}, c
        return out

    # A program alone on its multiprocessor walks its reduction with at least this many warps (two for each
    # of sm_90's four warp schedulers), as long as each thread still loads LONE_BYTES_PER_THREAD of a step.
    LONE_WARPS = 8
    LONE_BYTES_PER_THREAD = 64
    # ... and so does each of at most this many programs resident on one multiprocessor (one wave of
    # ceil(programs / multiprocessors) a multiprocessor: 256 rows of Gumbel-max sampling on 132 put two
    # programs of the pairs' 2 warps, one warp a scheduler, on each; 132 rows one of 2 warps).
    FEW_PROGRAMS = 2

    def _lone_program_warps(self, constexprs: dict, tensors, target: str, binding: dict):
        """WARPS's call default for a reduction walk (`<kernel>_LOOP_LOADS`) in a launch of fewer programs
        than the device has multiprocessors: each such program is alone on its multiprocessor, so the
        multiprocessor issues the walk's loads and combines from that program's warps only (and from at
        most FEW_PROGRAMS programs' where the launch is one wave of that many a multiprocessor). WARPS by the
        provider's rule (`<kernel>_WARPS`) counts the threads of one program among many resident ones (an
        arg-reduction's pairs: 2 warps of 128 elements a thread, measured at 16384 rows); here it rises to
        LONE_WARPS, or to the most warps whose threads each still load LONE_BYTES_PER_THREAD of an
        iteration's block, when the resource model (`<kernel>_PRUNE`) admits it (issue 41: argmax over 64
        rows of 128256 f32 ran 64 programs of 2 warps on 132 multiprocessors). None where nothing moves:
        more than FEW_PROGRAMS programs a multiprocessor, a short step, WARPS already there."""
        loop_loads = self._cache.get(self._declared("loop loads", constexprs, target))
        space = self._space(constexprs, target)
        if loop_loads is None or "WARPS" not in space or "WARPS" not in binding:
            return None
        at = self._counts_at("WARPS", (binding["WARPS"],), constexprs, tensors, target, binding)
        if at is None or not at[1][0]:
            return None
        sms, (count,) = at
        if -(-count // sms) > self.FEW_PROGRAMS:
            return None
        step = max(loop_loads(binding).values(), default=0)
        fit = [w for w in space["WARPS"][0] if w <= self.LONE_WARPS and
               w * 32 * self.LONE_BYTES_PER_THREAD <= step and w > binding["WARPS"]]
        prune = self._cache.get(self._declared("prune", constexprs, target))
        for w in sorted(fit, reverse=True):
            if prune is None or prune({**binding, "WARPS": w}) is None:
                return w
        return None

    def _pair_blocks(self, constexprs: dict, tensors, target: str, binding: dict):
        """PAIR_BLOCKS's call default (pgpu-pair-blocks: programs run coordinates j and N-1-j of an axis
        whose fold ranges narrow along it): 2 when the launch has at most PAIR_PROGRAMS_PER_SM programs a
        multiprocessor and its folds are not split across programs, else 1. None without the parameter or
        the program count (`<kernel>_PROGRAMS`)."""
        if binding.get("FOLD_SPLIT", 1) != 1:
            return None
        at = self._counts_at("PAIR_BLOCKS", (1,), constexprs, tensors, target, binding)
        if at is None:
            return None
        sms, (count,) = at
        return 2 if count and 0 < count <= self.PAIR_PROGRAMS_PER_SM * sms else 1

    def _fold_tile(self, constexprs: dict, tensors, target: str, binding: dict, sizes: dict) -> dict:
        """Call defaults of a blocked fold's tile and schedule (the program axis's and the walk's tiles,
        WARPS, STAGES, PAIR_BLOCKS, GLUON) from the fold's walk at this call (`<kernel>_FOLD_TILES`, or its
        tile count), the launch's program count, the head size (the symbol a block covers) and the
        resource model: `_fold_tiles.choose`, whose docstring states the rule and the measurements. {}
        where nothing moves."""
        space = self._space(constexprs, target)
        programs = self._cache.get(self._declared("programs", constexprs, target))
        if programs is None or "GLUON" not in space:
            return {}
        fold_tiles, fold_axes, group_extents = self._cache.get(
            self._declared("fold tiles", constexprs, target)) or (None, (), None)
        covers = self._cache.get(self._declared("covers", constexprs, target)) or {}
        only = self._cache.get(self._declared("elementwise only", constexprs, target)) or ()
        heads = {sizes.get(symbol) for p, symbol in covers.items() if p not in only}
        views = dict(zip([n for n, _ in self._views()], tensors))
        facts = _fold_tiles.Facts(
            space, programs, views, _multiprocessors(views), prune=self._cache.get(self._declared("prune", constexprs, target)),
            warps=self._cache.get(self._declared("warps", constexprs, target)), fold_tiles=fold_tiles,
            fold_axes=fold_axes or (), group_extents=group_extents, head=heads.pop() if len(heads) == 1 else None,
            elementwise_only=only, covers=covers, sizes=self._cache.get(self._declared("sizes", constexprs, target)) or (),
            held={p for p, symbol in covers.items() if p in space and sizes.get(symbol) and
                  any(c >= sizes[symbol] for c in space[p][0])})
        return _fold_tiles.choose(facts, binding)

    # A kernel-level fold's segments a multiprocessor (`_fold_split`): at BLOCK 512 and 2 warps, two f32
    # views keep 4 KiB a program in flight; 8 programs give ~32 KiB a multiprocessor, about what
    # Little's law asks at ~3 TB/s and ~1.3 us of DRAM latency on 132 multiprocessors (3e12 * 1.3e-6
    # / 132 = 30 KB).
    ONE_POINT_PROGRAMS = 8

    def _fold_split(self, constexprs: dict, tensors, target: str, binding: dict):
        """FOLD_SPLIT's call default (pgpu-split-folds): 1 when the fold's points (its programs at
        FOLD_SPLIT = 1) already fill the device's multiprocessors, else the smallest candidate that fills
        them (a fold's segments become programs; the kernel caps the split at the fold's tile count).
        The points are the programs a second segment per point adds: the whole launch where the fold's
        group is the sole one, its own segment where the launch has others beside it (a kernel-level
        loss's one point beside its gradient's many programs, which would not shorten the loss's walk).
        None without the parameter or the program count (`<kernel>_PROGRAMS`).
        1 where the call takes an element-wise branch beside the split one (`<kernel>_ELEMENTWISE`:
        23_mla_decode's [H, DC] = [128, 512] accumulator, wider than any tile): that branch's folds are
        not split, so every segment's program would run all of it again (the effects in segment 0 only)."""
        at = self._counts_at("FOLD_SPLIT", (1, 2, 4), constexprs, tensors, target, binding)
        if at is None or None in at[1]:
            return None
        takes = self._elementwise(constexprs, tensors, target)
        if takes is not None and takes(binding) is True:
            return 1
        sms, (count, doubled, quadrupled) = at
        points = doubled - count  # 0 where the fold has one tile (no split)
        # A phased split (an earlier fold split in a first phase, pgpu-split-folds) has 2 * FOLD_SPLITS
        # programs a point where split and one where not: P, 4P, 8P at 1, 2, 4 (6P at 4 for a fold of 3
        # tiles), where a plain split adds P a segment (P + O, 2P + O, 4P + O; 3P + O for 3 tiles).
        # The step from 2 to 4 against the one from 1 to 2 (4/3 or 2/3 phased, 2 or 1 plain) tells them apart.
        step = quadrupled - doubled
        phased = bool(step) and 3 * step in (4 * points, 2 * points)
        if phased:
            points //= 3
        candidates = sorted(self._space(constexprs, target)["FOLD_SPLIT"][0])
        if points <= 0 or points >= sms:
            return 1
        # A phased split shortens only the folds' passes, by at most sms / points with points programs
        # already running: half its programs wait, and what follows the split fold (a row's store pass
        # over every key tile: corpus 58 writes its [128, 512] block there) runs in one program a point.
        # Where the points hold three quarters of the multiprocessors (`_fill_programs`' fill) it is not
        # taken: 58 at B32 S512 (128 row blocks on 132) ran 4 programs a block, 3 of them waiting or done
        # before the block's store pass (H100: 0.052 ms at FOLD_SPLIT 2; 0.032 in session 36, unsplit at 64 rows).
        if phased and 4 * points >= 3 * sms:
            return 1
        # One point (a kernel-level reduction) walks the whole input in its segments: each segment's
        # program keeps one tile's loads in flight (its loop is not software-pipelined), so the split
        # aims at ONE_POINT_PROGRAMS programs a multiprocessor, bounded by the largest candidate
        # (1024 where the last arrival combines the segments' scalars in one block, else 256).
        want = self.ONE_POINT_PROGRAMS * sms if points == 1 else sms
        return next((c for c in candidates if points * c >= want), candidates[-1])

    def _scan_chain(self, constexprs: dict, tensors, target: str, binding: dict):
        """SCAN_CHAIN's call default (pgpu-chain-scans: each segment of a region scan its own program, the
        state handed on through workspace): 2 when the ordered realization's programs (SCAN_CHAIN = 1, one
        per point of the parallel space) are fewer than the device's multiprocessors and chaining adds
        programs (more than one segment a point), else 1. None without the parameter or the program count
        (`<kernel>_PROGRAMS`).
        On the H200 (linear attention B=4 H=16 T=4096 D=E=64: 64 programs ordered on 132 multiprocessors;
        ms, bench/linear_attention.py) the chain at 4 warps ran bf16 0.210 at BLOCK_T 64 against 0.324
        ordered (BLOCK_T 64, 8 warps), f32 with TF32 products 0.278 against 0.571, f32 with IEEE products
        0.562 at BLOCK_T 16 (the FMA tile default, TritonLegalize) against 2.097 ordered at 16 and 4 warps
        (4.129 at 64 and 8 warps); torch.compile took 3.9 (f32) and 5.7 (bf16)."""
        at = self._counts_at("SCAN_CHAIN", (1, 2), constexprs, tensors, target, binding)
        if at is None or None in at[1] or 2 not in self._space(constexprs, target)["SCAN_CHAIN"][0]:
            return None
        sms, (ordered, chained) = at
        return 2 if 0 < ordered < sms and chained > ordered else 1

    def call_defaults(self, *args, **kwargs) -> dict:
        """Every declared parameter's heuristic default for these arguments: what an untuned call
        binds (the declared defaults, then covering defaults from the call's shapes, then the values
        TESSEL_PARAMS pins)."""
        tensors, _, constexprs = self._bind(args, kwargs)
        space = self._space(constexprs)
        return {**self._call_defaults(constexprs, tensors), **pinned_params(space)}

    def _call_defaults(self, constexprs: dict, tensors, target: str = "triton") -> dict:
        space = self._space(constexprs, target)
        return {**{n: d for n, (_, d) in space.items()}, **(self._fact_params(constexprs, tensors, target) or {})}

    def _first_moves(self, constexprs: dict, target: str = "triton") -> tuple:
        """The parameters the tuner moves first: those that size fragments (bytes a program moves,
        its registers and shared memory: where the resource model puts the large differences), then
        the warps that hold them."""
        self._space(constexprs, target)
        return tuple(self._cache.get(self._declared("sizes", constexprs, target)) or ()) + ("WARPS",)

    def _warmup(self, constexprs: dict, params: dict | None = None):
        """The generated compile-only entry of one binding (see `_tune.tune`'s compiling ahead)."""
        launch = self._launcher(constexprs, params)
        return launch.__globals__.get(f"{self.name}_warmup")

    def _views(self) -> list:
        """(name, mode) of each view argument in order; mode is 'in', 'out' or 'inout' (the tuner fills
        what a kernel only writes with NaN and compares what it writes)."""
        return [(p.name, p.spec.mode) for p in self.params() if p.kind == "view"]

    def _elementwise(self, constexprs: dict, tensors, target: str = "triton"):
        """binding -> whether its launch on `tensors` takes an element-wise branch that a launch-fact guard
        keeps beside a contracting one (`<kernel>_ELEMENTWISE`: attention's head size past BLOCK_D), or
        None when the provider does not say or the guard reads a scalar."""
        self._space(constexprs, target)
        test = self._cache.get(self._declared("elementwise", constexprs, target))
        if test is None:
            return None
        views = dict(zip([n for n, _ in self._views()], tensors))

        def takes(binding: dict):
            try:
                return test(binding, views)
            except Exception:  # a view without a shape: unknown
                return None
        # The parameters only the element-wise branches use: a launch that takes none does not read them.
        takes.only = tuple(self._cache.get(self._declared("elementwise only", constexprs, target)) or ())
        return takes

    def _prune(self, constexprs: dict, target: str = "triton"):
        """The generated resource check of a binding: why it exceeds a target limit, or None."""
        self._space(constexprs, target)
        return self._cache[self._declared("pipelined prune", constexprs, target)]

    def _tuning_key(self, constexprs: dict, tensors, target: str = "triton") -> str:
        import torch
        from . import _tune
        device = "cpu"
        if tensors and tensors[0].is_cuda:
            major, minor = torch.cuda.get_device_capability(tensors[0].device)
            device = f"{torch.cuda.get_device_name(tensors[0].device)} sm_{major}{minor}"
        return _tune.cache_key(self.kir(constexprs), tensors, device, _compiler_version(), target)

    def tune(self, *args, budget_s: float = 60.0, reps: int = 10, verbose: bool = True, retune: bool = False,
             compile_workers: int = 0, compile_pool: str = "process", domain: dict | None = None,
             reference=None, target: str | None = None, **kwargs) -> dict:
        """Measures the declared parameter combinations on these arguments (nearest the default first,
        within `budget_s`), keeps the fastest correct one, and records it in the tuning cache so later
        calls with shapes in the same bucket on this device use it. A cached winner is returned without
        tuning again unless `retune=True`. The last search's report is in `self.last_tuning`.

        `domain` ({parameter: values}) narrows the search to those declared values; `reference`, a
        torch function of the input views returning the expected outputs, also checks the default;
        `compile_workers` >= 2 compiles candidates ahead on that many processes (or threads, with
        `compile_pool="threads"`). See `_tune.tune`.

        `target` (default: the kernel's) is "triton", "cutile" or "auto". "auto" searches every available
        provider and returns {"provider": ..., "params": ...}, the faster correct one
        (`_tune.tune_providers`; `domain` may then hold a provider's own domain under its name). A provider
        whose toolchain is missing or that rejects the kernel is left out with one warning; with one
        provider left, "auto" searches, caches and launches exactly as that provider's target does."""
        from . import _tune
        target = self.target if target is None else target
        if target not in _tune.TARGETS:
            raise ValueError(f"tune: target must be one of {', '.join(map(repr, _tune.TARGETS))}; got {target!r}")
        tensors, scalars, constexprs = self._bind(args, kwargs)
        options = dict(budget_s=budget_s, reps=reps, verbose=verbose, compile_workers=compile_workers,
                       compile_pool=compile_pool, reference=reference)
        path = _cache_dir() / "tuning.json"
        if target == "auto":
            key = self._tuning_key(constexprs, tensors, "auto")
            cached = None if retune else _tune.lookup_choice(
                path, key, lambda p: self._provider_space(constexprs, p))
            if cached is not None:
                self.last_tuning = {"cache_hit": True}
                return cached
            providers = self._providers(constexprs)
            if len(providers) == 1:  # exactly that provider's search, cache entry and launches
                provider = providers[0]
                params = self._tune_one(tensors, scalars, constexprs, provider, retune,
                                        _tune.provider_domain(domain, provider, self._space(constexprs, provider)),
                                        options)
                self.last_tuning["only_provider"] = provider
                return {"provider": provider, "params": params}
            best, self.last_tuning = _tune.tune_providers(self, tensors, scalars, constexprs, providers,
                                                          domain=domain, **options)
            if self.last_tuning.get("timed"):
                _tune.store(path, key, best)
        else:
            best = self._tune_one(tensors, scalars, constexprs, target, retune, domain, options)
        self._forget_launches()
        return best

    def _forget_launches(self):
        """After tuning: every call chooses its launcher again (its plans may launch the old choice)."""
        self._launches.clear()
        self._plans.clear()
        self._special_fronts.clear()
        self._special_plans.clear()
        self._special_count = 0

    def _tune_one(self, tensors, scalars, constexprs, target: str, retune: bool, domain, options: dict) -> dict:
        """tune() on one provider: its cached winner, else a search stored under its key."""
        from . import _tune
        path, key = _cache_dir() / "tuning.json", self._tuning_key(constexprs, tensors, target)
        cached = None if retune else _tune.lookup(path, key, self._space(constexprs, target))
        if cached is not None:
            self.last_tuning = {"cache_hit": True}
            return cached
        extra = {} if target == "triton" else {"target": target}
        best, self.last_tuning = _tune.tune(self, tensors, scalars, constexprs, domain=domain, **options, **extra)
        # A search that timed nothing (every candidate rejected, or no time) found no winner: the
        # default it returns is not a measurement, so nothing is cached.
        if self.last_tuning.get("timed"):
            _tune.store(path, key, best)
        self._forget_launches()
        return best

    def torch_op(self):
        """The torch custom operator of this kernel (`torch.ops.tessel.<name>`, registered on first
        use; see _torch.py): what a call becomes inside `torch.compile`."""
        if self._op is None:
            _torch.register(self)
        return self._op

    def __call__(self, *args, **kwargs):
        """Launches the kernel on torch tensors (views positionally or by name, scalars and constexprs
        by keyword). The generated wrapper checks dtypes, ranks, shared extents and devices first.
        A tuned winner for this shape bucket and device is used when the tuning cache has one.
        Inside `torch.compile` the call is one of the kernel's torch custom operator instead.
        (After the first plain call, the generated planned call stands in for this method.)"""
        return self._dispatch(args, kwargs)

    def _dispatch(self, args, kwargs):
        """A call the plain planned call does not cover: inside `torch.compile` a call of the kernel's
        custom operator; a call with constexpr keywords whose key has a planned call, that planned call
        (its misses come back to `_call` with the constexprs); else `_call`."""
        if self._op is not None:
            if _torch.compiling():
                return self._op(*args, **(_torch.call_arguments(self, kwargs) if self._op_enums else kwargs))
        else:
            _torch.check_registered(self)
        if kwargs and self._special_fronts:
            key, rest = _special_key(kwargs, self._constexpr_names)
            try:
                front = self._special_fronts.get(key)
            except TypeError:  # an unhashable value: no specialization's key
                front = None
            if front is not None:
                return front(self, *args, **rest)
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
        """A call the plans do not cover: binds the arguments, picks the launcher for these shapes (a
        tuned winner, the covering defaults, or the declared ones) and launches; a plain call is
        checked and launched by the launcher's checked path, and its plan recorded."""
        tensors, scalars, constexprs = self._bind(args, kwargs)
        try:
            shapes = tuple([t.shape for t in tensors])
            memo = ((len(tensors), tensors[0].get_device()) + shapes if not constexprs
                    else (self._key(constexprs), tuple(t.get_device() for t in tensors)) + shapes)
            launch = self._launches.get(memo)
        except (AttributeError, TypeError, IndexError):  # not a tensor: the generated wrapper will name it
            memo, launch = None, None
        if launch is None:
            provider, tuned = self._tuned(constexprs, tensors)
            launch = self._launcher(constexprs, tuned, provider)
            if memo is not None:
                self._launches[memo] = launch
            if self._op is None:  # a kernel made before torch was imported: ready for torch.compile now
                _torch.register_if_loaded(self)
        module = launch.__globals__
        if self.checked or module.get("_CHECKED"):
            full = module.get(f"_{self.name}_checked")  # Triton's checked path; other providers' launch checks in full
            if full is not None:
                full(*tensors, **scalars, _indices=True)
            else:
                launch(*tensors, **scalars, _indices=True)
            return None
        checked = module.get(f"_{self.name}_checked")
        if len(args) != len(tensors) or checked is None:  # views by name; a provider without launch plans
            return launch(*tensors, **scalars)
        if constexprs:
            return self._call_special(launch, checked, tensors, scalars, kwargs)
        planned = checked(*tensors, **scalars)
        if planned is not None:
            if len(self._plans) >= 1024:
                self._plans.clear()
            self._plans[planned[0]] = planned[1]
        entry = module.get(f"_{self.name}_entry")
        if self._front is None and entry is not None:
            import torch
            # Only Dynamo needs the operator before the plans: a call traced otherwise (non-strict
            # export, fake tensors) has no addresses, so it misses and `_dispatch` decides.
            self._front = entry(self._plans, type(self)._dispatch, torch.compiler.is_dynamo_compiling)
            type(self).__call__ = self._front
        return None

    def _call_special(self, launch, checked, tensors, scalars, kwargs):
        """A call with constexpr keywords no plan covers: checked and launched by the launcher's checked
        path, its plan recorded in its constexpr key's table, whose planned call (the specialization's
        module's `_<kernel>_entry`) `_dispatch` takes from the next call on."""
        if not self._constexpr_names:
            self._constexpr_names = frozenset(p.name for p in self.params() if p.kind == "constexpr")
        key, _ = _special_key(kwargs, self._constexpr_names)
        entry = launch.__globals__.get(f"_{self.name}_entry")
        if entry is None or not _plannable(key):
            return launch(*tensors, **scalars)
        planned = checked(*tensors, **scalars)
        if self._special_count >= 1024:
            self._special_fronts.clear()
            self._special_plans.clear()
            self._special_count = 0
        plans = self._special_plans.get(key)
        if plans is None:
            import torch
            given = {n: kwargs[n] for n in key[0::3]}

            def miss(kernel, args, kwargs):  # the planned call's arguments as given, less the constexprs
                return kernel._call(args, {**kwargs, **given})
            plans = self._special_plans[key] = {}
            self._special_fronts[key] = entry(plans, miss, torch.compiler.is_dynamo_compiling)
            self._special_count += 1
        if planned is not None:
            if planned[0] not in plans:
                self._special_count += 1
            plans[planned[0]] = planned[1]
        return None

    def _tuned(self, constexprs: dict, tensors) -> tuple:
        """(provider, parameters) of a call: the tuning cache's winner for this shape bucket and device
        under the kernel's target (for "auto" its provider choice, else a Triton winner, which is what
        "auto" stores when Triton is the only provider), else the defaults this call's facts pick on
        the target's provider (Triton for "auto"); None parameters are the declared defaults."""
        from . import _tune
        provider = "triton" if self.target == "auto" else self.target
        if tensors and getattr(tensors[0], "is_cuda", False):
            path = _cache_dir() / "tuning.json"
            if self.target == "auto":
                choice = _tune.lookup_choice(path, self._tuning_key(constexprs, tensors, "auto"),
                                             lambda p: self._provider_space(constexprs, p))
                if choice is not None:
                    return choice["provider"], choice["params"]
            tuned = _tune.lookup(path, self._tuning_key(constexprs, tensors, provider), self._space(constexprs, provider))
            if tuned is not None:
                return provider, {**tuned, **pinned_params(self._space(constexprs, provider))}
        params = self._fact_params(constexprs, tensors, provider)
        pins = pinned_params(self._space(constexprs, provider))
        return provider, ({**(params or {}), **pins} if pins else params)

    def launch(self, *args, target: str = "triton", params: dict | None = None, **kwargs):
        """Launches one provider's generated wrapper directly (`target` "triton", "cutile" or "ptx"), at
        the declared defaults or the bound `params`; the wrapper checks the ABI as a call does. The cuTile
        wrapper needs `cuda.tile` and its toolchain (see tessel._cutile); the PTX wrapper launches through
        tessel's own CUDA runtime (see tessel._ptx)."""
        if target not in ("triton", "cutile", "ptx"):
            raise ValueError(f"launch: target must be 'triton', 'cutile' or 'ptx'; got {target!r} (a call of the "
                             f"kernel launches the tuned provider of @tessel.kernel(target='auto'))")
        tensors, scalars, constexprs = self._bind(args, kwargs)
        launch = self._launcher(constexprs, params, target)
        if self.checked:  # the checked launch mode: the launch function's full checks with index values
            if target == "triton":
                return launch.__globals__[f"_{self.name}_checked"](*tensors, **scalars, _indices=True) and None
            return launch(*tensors, **scalars, _indices=True)
        return launch(*tensors, **scalars)

    def _bind(self, args, kwargs):
        kwargs = dict(kwargs)
        params = self.params()
        views = [p for p in params if p.kind == "view"]
        constexprs = {p.name: kwargs.pop(p.name) for p in params if p.kind == "constexpr" and p.name in kwargs}
        scalars = {p.name: kwargs.pop(p.name) for p in params if p.kind == "scalar" and p.name in kwargs}
        tensors = list(args)
        for p in views[len(tensors):]:
            if p.name not in kwargs:
                raise TypeError(f"kernel '{self.name}': missing view argument '{p.name}'")
            tensors.append(kwargs.pop(p.name))
        if len(tensors) != len(views):
            # Issue 47: a scalar passed positionally read as one view too many; say how scalars are passed.
            named = [p.name for p in params if p.kind in ("scalar", "constexpr")]
            hint = (f"; scalars and constexprs are passed by keyword ({', '.join(f'{n}=...' for n in named)})"
                    if named and len(tensors) > len(views) else "")
            raise TypeError(f"kernel '{self.name}' takes {len(views)} views ({', '.join(p.name for p in views)}), "
                            f"got {len(tensors)}{hint}")
        if kwargs:
            raise TypeError(f"kernel '{self.name}' got unexpected arguments {sorted(kwargs)}")
        for p in params:
            if p.kind == "scalar" and p.name not in scalars:
                raise TypeError(f"kernel '{self.name}': missing scalar argument '{p.name}'")
        return tensors, scalars, constexprs

    def __repr__(self):
        return f"<tessel.kernel {self.name}>"


class VjpKernel(Kernel):
    """The vector-Jacobian product of `forward` with respect to the input views `wrt` (`Kernel.vjp`):
    the forward's tracing and options, the ABI and KIR text that kir-vjp derives (`_vjp`)."""

    def __init__(self, forward: Kernel, wrt: tuple):
        self.forward, self.wrt = forward, wrt
        super().__init__(forward.fn, name=f"{forward.name}_vjp", target=forward.target, checked=forward.checked,
                         **forward.options)

    def params(self):
        if self._params is None:
            self._params = _vjp.derived_params(self.forward.params(), self.wrt)
        return self._params

    def kir(self, constexprs: dict | None = None, **kw) -> str:
        """The derived kernel's KIR text for one specialization of the forward (`tessel vjp`)."""
        cx = dict(constexprs or {}, **kw)
        key = self._key(cx)
        if key not in self._cache:
            self._cache[key] = _vjp.derived_kir(self.forward.name, self.forward.kir(cx), self.wrt)
        return self._cache[key]

    def vjp(self, wrt):
        raise CompileError(f"{self.name}: a derived kernel is not differentiated again (no second order yet)")

    def __repr__(self):
        return f"<tessel.kernel {self.name} (vjp of {self.forward.name} wrt {', '.join(self.wrt)})>"


def kernel(fn=None, *, name: str | None = None, numerics: str | None = None, online_reduction: bool | None = None,
           optimization_remarks: bool | None = None, summary_emptiness: bool | None = None, target: str = "triton",
           checked: bool = False):
    """Decorator: `@tessel.kernel`, `@tessel.kernel(numerics="relaxed_normalization")`, or
    `@tessel.kernel(target="auto")` (see `Kernel`).

    `checked=True` (or TESSEL_CHECKED=1 in the environment) is the checked launch mode: before each
    launch the values of every view used as gather/scatter indices are checked against the extent they
    index (an IndexError names the argument, the position, the value and the valid range), besides the
    ABI checks every call has (dtypes, shapes, aliasing of written views).

    `summary_emptiness=True` asks for pgpu-summary-emptiness (seed 002 §3.5; off by default: measured
    slower on the H200, see the compile option's description in KIRAttrs.td)."""
    opts = {k: v for k, v in dict(numerics=numerics, online_reduction=online_reduction,
                                  optimization_remarks=optimization_remarks,
                                  summary_emptiness=summary_emptiness).items() if v is not None}

    def wrap(f):
        return Kernel(f, name=name, target=target, checked=checked, **opts)

    return wrap(fn) if fn is not None else wrap
