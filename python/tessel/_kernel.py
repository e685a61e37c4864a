"""`@tessel.kernel` objects: trace to KIR, verify with the compiler, run on the interpreter."""
from __future__ import annotations

import pathlib
import tempfile

from . import _cli, _trace
from ._errors import CompileError


def _scalar_text(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    return repr(float(value))


class Kernel:
    """A traced kernel. `kir()` gives its KIR text for one constexpr specialization (cached);
    `compile()` verifies it with the compiler; `run_interp()` runs it on the reference interpreter."""

    def __init__(self, fn, name: str | None = None, **options):
        for k in options:
            if k not in _trace._OPTIONS:
                raise TypeError(f"@tessel.kernel got an unknown option {k!r}; expected one of {_trace._OPTIONS}")
        self.fn = fn
        self.name = name or fn.__name__
        self.options = options
        self.__name__ = self.name
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._cache: dict = {}

    # --- tracing ---------------------------------------------------------------------------------
    def params(self):
        return _trace.kernel_params(self.fn, self.name)

    def _key(self, constexprs):
        return tuple(sorted((k, (type(v).__name__, repr(v))) for k, v in (constexprs or {}).items()))

    def kir(self, constexprs: dict | None = None, **kw) -> str:
        """The KIR module text of this kernel specialized to `constexprs` (defaults fill the rest).

        Constexprs are resolved while tracing: the text is one specialization and its `constexprs`
        attribute records the values it was traced with."""
        cx = dict(constexprs or {}, **kw)
        key = self._key(cx)
        if key not in self._cache:
            self._cache[key] = _trace.trace_kernel(self.fn, self.name, self.options, cx)
        return self._cache[key]

    def _write(self, directory: pathlib.Path, constexprs) -> pathlib.Path:
        path = directory / f"{self.name}.mlir"
        path.write_text(self.kir(constexprs))
        return path

    def compile(self, emit: str = "kir", constexprs: dict | None = None, extra=()) -> str:
        """Runs `tessel compile --emit=EMIT` on the traced KIR and returns its output."""
        with tempfile.TemporaryDirectory(prefix="tessel-") as tmp:
            path = self._write(pathlib.Path(tmp), constexprs)
            res = _cli.run_tessel(["compile", path, f"--emit={emit}", *extra])
            return _cli.check(res, f"tessel compile of kernel '{self.name}'")

    def run_interp(self, shapes: dict, scalars: dict | None = None, constexprs: dict | None = None,
                   seed: int = 0, out: str | pathlib.Path | None = None, segments: str | int | None = None,
                   order: str | None = None, ranges: dict | None = None) -> dict:
        """Runs the kernel on the CPU reference interpreter (`tessel run`) with random inputs.

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
            if segments is not None:
                args += ["--segments", str(segments)]
            if order is not None:
                args += ["--order", order]
            res = _cli.run_tessel(args)
            _cli.check(res, f"tessel run of kernel '{self.name}'")
            return {p.name[:-4]: np.load(p) for p in sorted(outdir.glob("*.npy"))}

    def __call__(self, *args, **kwargs):
        raise CompileError(f"kernel '{self.name}': launching on a device is not available yet; use "
                           f".kir(), .compile() or .run_interp()")

    def __repr__(self):
        return f"<tessel.kernel {self.name}>"


def kernel(fn=None, *, name: str | None = None, numerics: str | None = None, online_reduction: bool | None = None,
           optimization_remarks: bool | None = None):
    """Decorator: `@tessel.kernel` or `@tessel.kernel(numerics="relaxed_normalization")`."""
    opts = {k: v for k, v in dict(numerics=numerics, online_reduction=online_reduction,
                                  optimization_remarks=optimization_remarks).items() if v is not None}

    def wrap(f):
        return Kernel(f, name=name, **opts)

    return wrap(fn) if fn is not None else wrap
