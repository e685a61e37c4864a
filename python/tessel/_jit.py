"""Turning Python functions into KIR (Triton's `runtime/jit.py`): `@tessel.fn` helpers, a kernel's
parameters from its annotations, and `trace_kernel`, the tracer.

The tracer runs a `@tessel.kernel` function once on symbolic values under a fresh builder and renders
the KIR module. Every DSL call appends KIR ops to the innermost open region of the kernel being
traced; each op carries the author's `file:line:col` as its MLIR location. Python control flow on
Python values runs at trace time (constexpr branches, unrolled Python loops). Before tracing, the
bodies of kernels and `@tessel.fn` helpers are rewritten (_pycontrol.py) so that an ordinary
`if`/`for`/`while` whose condition or iterable turns out to be a traced value becomes ordered KIR
control (kir.if / kir.for / kir.while with carries); `T.parallel`, `T.for_`, `T.if_` and `T.while_`
remain as explicit forms, and structured ops trace their helper functions into closed regions.

The tracer's modules, each importing only those before it: _ir (ops, regions, the builder), _core
(the values), _semantic (operations on them), _structured (ops with helper regions), _control (the
explicit control forms), _pycontrol (the rewrite of ordinary control flow), then this one.
"""
from __future__ import annotations

import inspect

from . import _pycontrol, _semantic
from . import _types as ty
from ._errors import CompileError, error
from ._types import DType
from ._ir import Builder, Op, _STATE, _render_op, _unclosed, tracing
from ._core import Value, View
from ._semantic import _is_pyscalar, const
from ._structured import _as_tuple, _fn_loc, _param_loc


# ---------------------------------------------------------------------------------------------
# Helpers (@tessel.fn) and kernels (@tessel.kernel)
# ---------------------------------------------------------------------------------------------


class Fn:
    """A typed pure helper: parameters annotated with element types are checked (and Python numbers
    converted) at each call; the body is traced inline wherever it is called (including into the
    closed combine/summarize/apply/emit regions of structured ops)."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._sig = None
        self._run = None

    def _signature(self):
        if self._sig is None:
            try:
                self._sig = inspect.signature(self.fn, eval_str=True)
            except (NameError, TypeError) as e:
                raise error(f"helper '{self.__name__}': cannot evaluate its annotations ({e})", _fn_loc(self.fn)) from None
        return self._sig

    def __call__(self, *args, **kwargs):
        sig = self._signature()
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise error(f"helper '{self.__name__}': {e}") from None
        bound.apply_defaults()
        for pname, val in list(bound.arguments.items()):
            ann = sig.parameters[pname].annotation
            if isinstance(ann, DType) and tracing():
                if isinstance(val, Value):
                    if val.dtype is not ann:
                        raise error(f"helper '{self.__name__}' parameter '{pname}' expects {ann.name}, got the "
                                    f"{val.describe()}")
                elif _is_pyscalar(val):
                    bound.arguments[pname] = const(val, ann)
        if self._run is None:
            self._run = _pycontrol.rewritten(self.fn)
        res = self._run(*bound.args, **bound.kwargs)
        ret = sig.return_annotation
        if tracing() and ret is not inspect.Signature.empty:
            rets = ret if isinstance(ret, tuple) else (ret,)
            vals = _as_tuple(res)
            if all(isinstance(r, DType) for r in rets):
                if len(vals) != len(rets):
                    raise error(f"helper '{self.__name__}' returns {len(vals)} values but is annotated with {len(rets)}",
                                _fn_loc(self.fn))
                for i, (v, r) in enumerate(zip(vals, rets)):
                    if isinstance(v, Value) and v.dtype is not r:
                        raise error(f"helper '{self.__name__}' result #{i} is {v.dtype.name} but is annotated {r.name}",
                                    _fn_loc(self.fn))
        return res

    def __repr__(self):
        return f"<tessel.fn {self.__name__}>"


def fn(f):
    """Decorator: a typed pure helper (see Fn)."""
    if isinstance(f, Fn):
        return f
    return Fn(f)


_OPTIONS = ("numerics", "online_reduction", "optimization_remarks", "summary_emptiness")


def _options_text(opts: dict) -> str:
    parts = []
    if opts.get("numerics") is not None:
        if opts["numerics"] not in ("source", "relaxed_normalization"):
            raise error(f"numerics= is 'source' or 'relaxed_normalization', got {opts['numerics']!r}")
        parts.append(f"numerics = {opts['numerics']}")
    for k in ("online_reduction", "optimization_remarks", "summary_emptiness"):
        if opts.get(k) is not None:
            parts.append(f"{k} = {'true' if opts[k] else 'false'}")
    return f"#kir.compile_options<{', '.join(parts)}>"


class Param:
    def __init__(self, name, kind, spec, default):
        self.name, self.kind, self.spec, self.default = name, kind, spec, default


def kernel_params(fn, name: str):
    try:
        sig = inspect.signature(fn, eval_str=True)
    except (NameError, TypeError) as e:
        raise error(f"kernel '{name}': cannot evaluate its annotations ({e})", _fn_loc(fn)) from None
    params = []
    for p in sig.parameters.values():
        loc = _param_loc(fn, p.name)
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise error(f"kernel '{name}': *args/**kwargs parameters are not part of a kernel ABI", loc)
        ann = p.annotation
        default = None if p.default is inspect.Parameter.empty else p.default
        if isinstance(ann, ty.ViewSpec):
            params.append(Param(p.name, "view", ann, None))
        elif isinstance(ann, DType):
            if ann.is_bool:
                raise error(f"kernel '{name}': runtime scalar '{p.name}' cannot be i1; pass an integer", loc)
            params.append(Param(p.name, "scalar", ann, None))
        elif isinstance(ann, ty.ConstexprSpec):
            params.append(Param(p.name, "constexpr", ann, default))
        elif ann is inspect.Parameter.empty:
            raise error(f"kernel '{name}': parameter '{p.name}' needs an annotation: T.In[...]/T.Out[...]/T.InOut[...] "
                        "for a view, an element type such as T.f32 for a runtime scalar, or T.Constexpr[bool|int]", loc)
        else:
            raise error(f"kernel '{name}': parameter '{p.name}' has the annotation {ann!r}; expected "
                        "T.In[...]/T.Out[...]/T.InOut[...], an element type such as T.f32, or T.Constexpr[...]", loc)
    return params


_PACKAGE = __import__("os").path.dirname(__file__)


def _author_error(e: BaseException) -> BaseException:
    """A Python error the author's code raised while being traced, as a CompileError at the author's
    line (not a traceback through tessel's frames); an error raised inside tessel itself is kept."""
    import os
    import traceback
    import sysconfig
    library = tuple(os.path.abspath(sysconfig.get_paths()[k]) + os.sep for k in ("stdlib", "platstdlib", "purelib"))
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if not os.path.abspath(f.filename).startswith((_PACKAGE + os.sep,) + library)]
    if not frames:
        return e
    last = frames[-1]
    innermost = traceback.extract_tb(e.__traceback__)[-1]
    raised_by_author = not os.path.abspath(innermost.filename).startswith(_PACKAGE + os.sep)
    if isinstance(e, RecursionError):
        message = ("a @tessel.fn calls itself (directly or through others): tessel functions are inlined "
                   "at each call, so they cannot recurse")
    elif isinstance(e, NameError) and raised_by_author:
        message = f"{e} (in the kernel's code)"
    elif isinstance(e, AttributeError) and raised_by_author:
        text = str(e)
        if text.startswith("module 'tessel.language' has no attribute"):
            missing = text.split("attribute", 1)[1].strip().strip("'")
            message = f"T.{missing} is not part of tessel.language (no function, type or constant of that name)"
        else:
            message = text
    else:
        return e
    return CompileError(message, last.filename, last.lineno, None)


def trace_kernel(fn, name: str, options: dict, constexprs: dict) -> str:
    """Traces `fn` once with the given constexpr values; returns the KIR module text."""
    if getattr(_STATE, "builder", None) is not None:
        raise error("a kernel cannot be traced inside another kernel's trace")
    kloc = _fn_loc(fn)
    params = kernel_params(fn, name)
    declared = {p.name for p in params if p.kind == "constexpr"}
    for k in constexprs:
        if k not in declared:
            raise error(f"kernel '{name}' has no constexpr parameter '{k}' (it declares: "
                        f"{', '.join(sorted(declared)) or 'none'})", kloc)
    b = Builder(name, kloc, _semantic)
    for p in params:
        if p.kind == "view":
            for e in p.spec.extents:
                if isinstance(e, str):
                    b.symbols.setdefault(e, p.name)
    for p in params:
        if p.kind == "view" and p.spec.range is not None:
            for bound in (p.spec.range.lo, p.spec.range.hi):
                if isinstance(bound, str) and bound not in b.symbols:
                    raise error(f"kernel '{name}': T.Range of '{p.name}' names the unknown shape symbol '{bound}'", kloc)
    args, arg_text, cvals = [], [], {}
    for p in params:
        if p.kind == "view":
            v = View(p.name, p.spec, b.root)
            b.views[p.name] = v
            args.append(v)
            attr = f" {{kir.range = {p.spec.range.mlir()}}}" if p.spec.range is not None else ""
            arg_text.append(f"%{p.name}: {v.type}{attr} {_param_loc(fn, p.name).mlir()}")
        elif p.kind == "scalar":
            v = Value(f"%{p.name}", p.spec, b.root, (), kloc)
            v.pro = True
            args.append(v)
            arg_text.append(f"%{p.name}: {p.spec.mlir} {_param_loc(fn, p.name).mlir()}")
        else:
            if p.name in constexprs:
                val = constexprs[p.name]
            elif p.default is not None:
                val = p.default
            else:
                raise error(f"kernel '{name}': constexpr '{p.name}' has no default; pass constexprs={{'{p.name}': ...}}",
                            kloc)
            p.spec.check(p.name, val)
            cvals[p.name] = val
            args.append(val)
    run = _pycontrol.rewritten(fn)
    _STATE.builder = b
    try:
        try:
            result = run(*args)
        except (NameError, AttributeError, RecursionError) as e:
            raise _author_error(e) from None
        if b.scope is not b.root:
            _unclosed(b.scope)
        if result is not None:
            raise error(f"kernel '{name}' returns a value; a kernel returns nothing — write results to its Out views",
                        kloc)
    finally:
        _STATE.builder = None
    body = b.root.prologue + b.root.ops + [Op([], "kir.return", [], kloc)]
    attrs = ""
    if cvals:
        attrs = " attributes {constexprs = {" + ", ".join(
            f"{k} = {next(p.spec for p in params if p.name == k).mlir(v)}" for k, v in cvals.items()) + "}}"
    lines = [f"module attributes {{kir.compile_options = {_options_text(options)}}} {{"]
    lines.append(f"  kir.kernel @{name}({', '.join(arg_text)}){attrs} {{")
    for op in body:
        _render_op(op, "    ", lines)
    lines.append(f"  }} {kloc.mlir()}")
    # Every location is the author's (the module's too): a diagnostic never points into the KIR text,
    # which the compiler reads from a temporary file.
    lines.append(f"}} {kloc.mlir()}")
    return "\n".join(lines) + "\n"
