"""The tracer: runs a `@tessel.kernel` function once on symbolic values and emits KIR text.

Every DSL call appends KIR ops to the innermost open region of the kernel being traced; each op
carries the author's `file:line:col` as its MLIR location. Python control flow on Python values runs
at trace time (constexpr branches, unrolled Python loops). Before tracing, the bodies of kernels and
`@tessel.fn` helpers are rewritten (see _pycontrol.py) so that an ordinary `if`/`for`/`while` whose
condition or iterable turns out to be a traced value becomes ordered KIR control (kir.if / kir.for /
kir.while with carries); `T.parallel`, `T.for_`, `T.if_` and `T.while_` remain as explicit forms, and
structured ops trace their helper functions into closed regions.
"""
from __future__ import annotations

import ast
import inspect
import itertools
import linecache
import math
import threading

from . import _types as ty
from ._errors import CompileError, Loc, _is_internal, error, user_loc
from ._types import DOMAIN_TYPE, BufferType, DType, RecordType, TensorType

# ---------------------------------------------------------------------------------------------
# IR containers
# ---------------------------------------------------------------------------------------------


class Op:
    """One KIR op: `results = text`, then regions `(keyword, Block)`, then its location."""

    __slots__ = ("results", "text", "regions", "loc")

    def __init__(self, results, text, regions, loc):
        self.results, self.text, self.regions, self.loc = results, text, regions, loc


class Block:
    __slots__ = ("args", "ops")

    def __init__(self, args, ops):
        self.args, self.ops = args, ops  # args: [(name, type_str)]


def _render_block(block: Block, indent: str, out: list):
    if block.args:
        args = ", ".join(f"{n}: {t}" for n, t in block.args)
        out.append(f"{indent[:-2]}^bb0({args}):")
    for op in block.ops:
        _render_op(op, indent, out)


def _render_op(op: Op, indent: str, out: list):
    head = indent + (", ".join(op.results) + " = " if op.results else "") + op.text
    loc = op.loc.mlir()
    if not op.regions:
        out.append(f"{head} {loc}")
        return
    for i, (kw, block) in enumerate(op.regions):
        if i == 0:
            out.append(head + (f" {kw}" if kw else "") + " {")
        else:
            out.append(f"{indent}}} {kw} {{")
        _render_block(block, indent + "  ", out)
    out.append(f"{indent}}} {loc}")


class Scope:
    """An open region while tracing.

    `closed` regions (the kernel body, structured-op helpers) see no runtime value from outside;
    the others (parallel/for/if/while bodies) see their enclosing regions. `effects` is what the
    region may do: "any", "read" (summarize) or "none" (combine and other pure helpers).
    """

    def __init__(self, parent, kind: str, closed: bool, loc: Loc, effects: str = "any"):
        self.parent, self.kind, self.closed, self.loc, self.effects = parent, kind, closed, loc, effects
        self.ops: list = []
        self.prologue: list | None = [] if closed else None
        self.cache: dict | None = {} if closed else None
        self.active = True

    @property
    def root(self) -> "Scope":
        s = self
        while not s.closed:
            s = s.parent
        return s


class Axis:
    """The coordinate provenance of one tensor axis.

    Axes with equal `key` have provably equal extents (the key follows the KIR verifier: a domain
    is keyed by its bounds, constants by value and extents by name). `domain` is the Domain value
    when the axis comes from one (None inside closed regions and for static axes).
    """

    __slots__ = ("key", "domain", "desc")

    def __init__(self, key: str, domain, desc: str):
        self.key, self.domain, self.desc = key, domain, desc

    def __repr__(self):
        return self.desc


_uid = itertools.count()


def _axes_desc(axes) -> str:
    return "(" + ", ".join(a.desc for a in axes) + ")"


# ---------------------------------------------------------------------------------------------
# Trace state
# ---------------------------------------------------------------------------------------------

_STATE = threading.local()


class Builder:
    def __init__(self, name: str, loc: Loc):
        self.name, self.loc = name, loc
        self.counter = itertools.count()
        self.root = Scope(None, "kernel", True, loc)
        self.scope = self.root
        self.symbols: dict = {}  # extent symbol -> first view declaring it
        self.views: dict = {}

    def fresh(self) -> str:
        return f"%{next(self.counter)}"

    def emit(self, text: str, n_results: int, regions=(), hoist: bool = False, loc: Loc | None = None):
        names = [self.fresh() for _ in range(n_results)]
        op = Op(names, text, list(regions), loc or user_loc())
        (self.scope.root.prologue if hoist else self.scope.ops).append(op)
        return names

    def push(self, scope: Scope):
        self.scope = scope

    def pop(self, scope: Scope):
        if self.scope is not scope:
            _unclosed(self.scope)
        scope.active = False
        self.scope = scope.parent


def _unclosed(scope: Scope):
    raise CompileError(
        f"the {scope.kind} opened here was left before its end (break, return or an exception inside it); "
        "a region body must run to its end — use T.where/T.if_ for conditions and T.while_ for early exits",
        scope.loc.file, scope.loc.line, scope.loc.col)


def _b() -> Builder:
    b = getattr(_STATE, "builder", None)
    if b is None:
        raise error("this DSL operation is only available while a @tessel.kernel is being traced "
                    "(call kernel.kir() or kernel.run_interp())")
    return b


def tracing() -> bool:
    return getattr(_STATE, "builder", None) is not None


# ---------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------


def _dtype_of(t):
    if isinstance(t, DType):
        return t
    if isinstance(t, TensorType):
        return t.dtype
    return None


class Value:
    """A traced SSA value: a scalar or a logical tensor (with per-axis provenance)."""

    __array_priority__ = 1000  # numpy scalars defer to our operators

    def __init__(self, name: str, type_, scope: Scope, axes=(), loc: Loc | None = None):
        self.name, self.type, self.scope, self.axes = name, type_, scope, tuple(axes)
        self.loc = loc or user_loc()
        self.pro = False  # defined in its closed region's prologue (or a block argument of it)
        self.const = None  # the Python value of a constant
        self.symbol = None  # the shape symbol of a kir.extent

    # --- introspection -----------------------------------------------------------------------
    @property
    def dtype(self) -> DType:
        return _dtype_of(self.type)

    @property
    def is_tensor(self) -> bool:
        return isinstance(self.type, TensorType)

    @property
    def rank(self) -> int:
        return self.type.rank if self.is_tensor else 0

    def describe(self) -> str:
        if self.symbol:
            return f"extent {self.symbol}"
        where = f" defined at line {self.loc.line}" if self.loc and self.loc.line else ""
        if self.is_tensor:
            return f"{self.type} value over {_axes_desc(self.axes)}{where}"
        return f"{self.type} value{where}"

    def __repr__(self):
        return f"<tessel value {self.name}: {self.type}>"

    # --- misuse as a Python value ----------------------------------------------------------------
    def __bool__(self):
        raise error(f"a traced {self.describe()} is used as a Python truth value; its value is only known when "
                    "the kernel runs. An `if`/`while` (and `and`/`or`/`not` in their conditions, and `a if c else "
                    "b`) written in a @tessel.kernel or @tessel.fn body becomes runtime control when Python can read "
                    "its source, but not in a plain Python function or other expressions: use T.where(cond, a, b) to choose values, "
                    "T.if_(cond, then, else_), `&`/`|`/`~` on bools, or make it a T.Constexpr parameter")

    def __iter__(self):
        raise error(f"a traced {self.describe()} cannot be iterated in Python; loop over a domain with "
                    "`for i in T.parallel(domain)` (unordered) or `for i in domain:` (ordered)")

    def __len__(self):
        raise error(f"len() of a traced {self.describe()} is not known at trace time")

    def __index__(self):
        raise error(f"a traced {self.describe()} is used where Python needs an integer at trace time; "
                    "runtime values cannot size Python objects (use a T.Constexpr[int])")

    def __float__(self):
        raise error(f"a traced {self.describe()} cannot be converted to a Python float at trace time")

    __int__ = __index__
    __hash__ = object.__hash__

    # --- arithmetic --------------------------------------------------------------------------------
    def __add__(self, o): return binary("add", self, o)
    def __radd__(self, o): return binary("add", o, self)
    def __sub__(self, o): return binary("sub", self, o)
    def __rsub__(self, o): return binary("sub", o, self)
    def __mul__(self, o): return binary("mul", self, o)
    def __rmul__(self, o): return binary("mul", o, self)
    def __truediv__(self, o): return binary("div", self, o, _op="/")
    def __rtruediv__(self, o): return binary("div", o, self, _op="/")
    def __floordiv__(self, o): return binary("div", self, o, _op="//")
    def __rfloordiv__(self, o): return binary("div", o, self, _op="//")
    def __mod__(self, o): return binary("rem", self, o)
    def __rmod__(self, o): return binary("rem", o, self)
    def __pow__(self, o): return binary("pow", self, o)
    def __rpow__(self, o): return binary("pow", o, self)
    def __and__(self, o): return binary("and", self, o)
    def __rand__(self, o): return binary("and", o, self)
    def __or__(self, o): return binary("or", self, o)
    def __ror__(self, o): return binary("or", o, self)
    def __xor__(self, o): return binary("xor", self, o)
    def __rxor__(self, o): return binary("xor", o, self)
    def __lshift__(self, o): return binary("shl", self, o)
    def __rshift__(self, o): return binary("shr", self, o)
    def __neg__(self): return unary("neg", self)
    def __abs__(self): return unary("abs", self)
    def __invert__(self): return unary("not", self)
    def __pos__(self): return self

    def __lt__(self, o): return compare("lt", self, o)
    def __le__(self, o): return compare("le", self, o)
    def __gt__(self, o): return compare("gt", self, o)
    def __ge__(self, o): return compare("ge", self, o)

    def __eq__(self, o):
        if not isinstance(o, (Value, int, float, bool)):
            return NotImplemented
        return compare("eq", self, o)

    def __ne__(self, o):
        if not isinstance(o, (Value, int, float, bool)):
            return NotImplemented
        return compare("ne", self, o)

    # --- tensor helpers ----------------------------------------------------------------------------
    def __getitem__(self, idx):
        """`t[i, j]` with index scalars extracts one element (kir.extract)."""
        return extract(self, *(idx if isinstance(idx, tuple) else (idx,)))

    def cast(self, dtype: DType) -> "Value":
        return cast(self, dtype)

    @property
    def T(self) -> "Value":
        return transpose(self)


class Domain(Value):
    """A half-open logical domain (or a source-derived subregion of one)."""

    def __init__(self, name, scope, key, desc, loc, lo=None, hi=None, step=1, source=None):
        super().__init__(name, DOMAIN_TYPE, scope, (), loc)
        self.key, self.desc, self.lo, self.hi, self.step, self.source = key, desc, lo, hi, step, source

    def describe(self):
        return f"domain {self.desc}"

    def __getitem__(self, sl):
        if not isinstance(sl, slice) or sl.step is not None:
            raise error(f"a subregion is written d[begin:end] with index bounds, got {sl!r}")
        return subregion(self, sl.start, sl.stop)

    def __iter__(self):
        raise error(f"iterate a domain with `for i in T.parallel({self.desc})` (unordered), or with an ordinary "
                    "`for i in domain:` in a @tessel.kernel/@tessel.fn body or T.for_(domain, init, body) "
                    "(ordered, with carries)")

    def indices(self) -> Value:
        return indices(self)

    @property
    def axis(self) -> Axis:
        return Axis(self.key, self, self.desc)


class Record(Value):
    """A record value: named fields read as attributes (`r.m`)."""

    def field(self, name: str) -> Value:
        return record_get(self, name)

    def __getattr__(self, name):
        if name.startswith("_") or name not in self.type.names:
            raise AttributeError(name)
        return record_get(self, name)


class Undefined(Value):
    """What a variable holds when ordinary control flow over runtime values left it without one value
    (assigned in only one branch of a runtime `if`, or given no typed value before a runtime loop).
    Any use raises a CompileError at the using line, with `message` saying why."""

    def __init__(self, message: str):
        self.name, self.type, self.scope, self.axes = "<undefined>", None, None, ()
        self.loc, self.pro, self.const, self.symbol = None, False, None, None
        self.message = message

    def fail(self):
        raise error(self.message)

    def describe(self):
        self.fail()

    def __repr__(self):
        return "<tessel undefined variable>"

    def __bool__(self):
        self.fail()

    def __iter__(self):
        self.fail()

    def __len__(self):
        self.fail()

    def __index__(self):
        self.fail()

    def __float__(self):
        self.fail()

    __int__ = __index__

    def __getitem__(self, idx):
        self.fail()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        self.fail()


def _make(name, type_, scope, axes=(), loc=None, field_axes=None) -> Value:
    if isinstance(type_, RecordType):
        v = Record(name, type_, scope, (), loc)
        v.field_axes = tuple(field_axes or [()] * len(type_.names))
        return v
    return Value(name, type_, scope, axes, loc)


# ---------------------------------------------------------------------------------------------
# Scoping and effect checks
# ---------------------------------------------------------------------------------------------


_END_HINT = {
    "T.parallel body": "a parallel has no results: store the value to an Out view inside the body",
    "T.for_ body": "return it from the body to make it a loop result",
    "T.if_ branch": "return it from both branches to make it a result",
    "`for` body": "assign it to a variable that has a value before the loop to carry it out",
    "`while` body": "assign it to a variable that has a value before the loop to carry it out",
    "`if` branch": "assign it to a variable in both branches to make it a result",
    "`else` branch": "assign it to a variable in both branches to make it a result",
}


def _visible(v) -> bool:
    s = _b().scope
    while True:
        if s is v.scope:
            return True
        if s.closed:
            return False
        s = s.parent


def use(v, what: str = "operand"):
    """Checks that `v` may be used in the current region and returns it."""
    if isinstance(v, Undefined):
        v.fail()
    if _visible(v):
        return v
    desc = v.describe() if isinstance(v, Value) else f"view '{v.pyname}'"
    if not v.scope.active:
        hint = _END_HINT.get(v.scope.kind, "return it from the helper to make it a result")
        raise error(f"{what}: the {desc} was defined inside the {v.scope.kind} opened at line "
                    f"{v.scope.loc.line}, which has ended; it is not visible here ({hint})")
    s = _b().scope
    while not s.closed:
        s = s.parent
    if not isinstance(v, Value):
        raise error(f"{what}: {desc} is not visible inside the {s.kind}, which is a closed region; read the data "
                    "outside and pass it in as a source or through operands=")
    raise error(f"{what}: the {desc} comes from outside this {s.kind}, which is a closed region: "
                "pass runtime values in through operands= (constexprs and Python numbers may be used directly)")


def _check_effect(kind: str, what: str):
    s = _b().scope
    while True:
        if s.effects == "none" or (s.effects == "read" and kind == "write"):
            allowed = "may read views but not write them" if s.effects == "read" else "must be pure (no loads, stores or atomics)"
            raise error(f"{what} inside the {s.kind}, which {allowed}")
        if s.closed:
            return
        s = s.parent


# ---------------------------------------------------------------------------------------------
# Constants, coercions, broadcasting
# ---------------------------------------------------------------------------------------------


def _is_pyscalar(x) -> bool:
    if isinstance(x, (bool, int, float)):
        return True
    try:
        import numpy as np

        return isinstance(x, np.generic) and x.dtype.kind in "biuf"
    except ImportError:  # pragma: no cover
        return False


_NUMPY_DTYPES = {"float16": "f16", "float32": "f32", "float64": "f64", "bool": "i1", "int8": "i8",
                 "int16": "i16", "int32": "i32", "int64": "i64"}


def const(value, dtype: DType) -> Value:
    """A typed constant, defined once per closed region (in its prologue)."""
    if isinstance(value, Value):
        return cast(value, dtype)
    if not isinstance(dtype, DType):
        raise error(f"expected an element type such as T.f32, got {dtype!r}")
    if not _is_pyscalar(value):
        raise error(f"a constant must be a Python number or bool, got {value!r}")
    if isinstance(value, float) or (hasattr(value, "dtype") and value.dtype.kind == "f"):
        if not dtype.is_float:
            if float(value) != int(value) or math.isinf(float(value)):
                raise error(f"the float literal {value!r} is used as {dtype.name}; write an integer or cast explicitly")
            value = int(value)
    if dtype.is_bool and not (isinstance(value, bool) or value in (0, 1)):
        raise error(f"{value!r} is not a bool (i1) constant")
    b = _b()
    root = b.scope.root
    literal = dtype.format_constant(value)
    key = ("const", dtype.name, literal)
    hit = root.cache.get(key)
    if hit is not None:
        return hit
    text = f"arith.constant {literal}" if dtype.is_bool else f"arith.constant {literal} : {dtype.name}"
    (name,) = b.emit(text, 1, hoist=True)
    v = Value(name, dtype, root)
    v.pro, v.const = True, (bool(value) if dtype.is_bool else (float(value) if dtype.is_float else int(value)))
    root.cache[key] = v
    return v


def as_value(x, dtype: DType | None = None, what: str = "operand", default_float: DType | None = None) -> Value:
    """A Value for `x`; Python numbers become constants of `dtype` (the other operand's type)."""
    if isinstance(x, Value):
        return use(x, what)
    if isinstance(x, View):
        raise error(f"{what}: view '{x.pyname}' must be indexed to read it, e.g. {x.pyname}[i, cols]")
    if _is_pyscalar(x):
        if dtype is None:
            if isinstance(x, bool):
                dtype = ty.i1
            elif isinstance(x, float) and default_float is not None:
                dtype = default_float
            elif hasattr(x, "dtype") and x.dtype.name in _NUMPY_DTYPES:
                dtype = ty.DTYPES[_NUMPY_DTYPES[x.dtype.name]]
            else:
                raise error(f"{what}: the Python number {x!r} has no element type here; give it one, "
                            f"e.g. T.f32({x!r}) or T.i32({x!r})")
        if isinstance(x, bool) and not dtype.is_bool:
            raise error(f"{what}: the bool {x!r} is used as {dtype.name}")
        return const(x, dtype)
    raise error(f"{what}: expected a tessel value or a Python number, got {type(x).__name__} {x!r}")


def _match_dims(small, big):
    """Result axes of `big` that the axes of `small` become (order kept, rightmost first), or None."""
    dims = [0] * len(small)
    j = len(big) - 1
    for i in range(len(small) - 1, -1, -1):
        while j >= 0 and big[j].key != small[i].key:
            j -= 1
        if j < 0:
            return None
        dims[i] = j
        j -= 1
    return dims


def _same_axes(a, b) -> bool:
    return len(a) == len(b) and all(x.key == y.key for x, y in zip(a, b))


def broadcast_value(v: Value, axes, dims, ref: Value | None = None) -> Value:
    """`v` spread over `axes` (operand axis i becomes result axis dims[i])."""
    b = _b()
    dom = [a.domain for a in axes]
    dims_s = "[" + ", ".join(str(d) for d in dims) + "]"
    if all(d is not None and _visible(d) for d in dom):
        rtype = TensorType(v.dtype, [None] * len(axes))
        # A broadcast of a prologue value (a constant, an extent, a kernel scalar) over prologue domains
        # is defined once, in the prologue.
        hoist = _hoistable(v, *dom)
        root = b.scope.root
        key = ("broadcast", v.name, tuple(d.name for d in dom), dims_s)
        if hoist and key in root.cache:
            return root.cache[key]
        (name,) = b.emit(f"kir.broadcast {v.name} over({', '.join(d.name for d in dom)}) dims {dims_s} : "
                         f"{v.type} -> {rtype}", 1, hoist=hoist)
        r = Value(name, rtype, root if hoist else b.scope, axes)
        if hoist:
            r.pro = True
            root.cache[key] = r
        return r
    if ref is not None and _same_axes(ref.axes, axes) and _visible(ref):
        rtype = TensorType(v.dtype, ref.type.shape)
        (name,) = b.emit(f"kir.broadcast_as {v.name} to {ref.name} dims {dims_s} : {v.type}, {ref.type} -> {rtype}", 1)
        return Value(name, rtype, b.scope, axes)
    raise error(f"cannot broadcast the {v.describe()} over {_axes_desc(axes)}: no domain of those axes is visible "
                "here and no tensor of that shape is at hand; use T.broadcast_to(value, like=tensor)")


def unify(vals, opname: str):
    """Broadcasts scalars and lower-rank tensors to the highest-rank operand (by axis provenance)."""
    tensors = [v for v in vals if v.is_tensor]
    if not tensors:
        return list(vals)
    big = max(tensors, key=lambda v: v.rank)
    out = []
    for v in vals:
        if not v.is_tensor:
            out.append(broadcast_value(v, big.axes, [], ref=big))
        elif _same_axes(v.axes, big.axes):
            out.append(v)
        else:
            dims = _match_dims(v.axes, big.axes) if v.rank < big.rank else None
            if dims is None:
                raise error(f"{opname}: mismatched extents: one operand is over {_axes_desc(v.axes)} and another over "
                            f"{_axes_desc(big.axes)}; equal extents need the same domain (shared shape symbols), "
                            "and a lower-rank operand must match some of the other's axes in order")
            out.append(broadcast_value(v, big.axes, dims, ref=big))
    return out


def _same_dtype(vals, opname: str):
    dts = [v.dtype for v in vals]
    if any(d is not dts[0] for d in dts):
        names = " and ".join(sorted({d.name for d in dts}))
        raise error(f"{opname} mixes {names}; convert explicitly with T.cast(x, T.{dts[0].name}) "
                    f"(there is no implicit promotion)")


def _coerce_operands(vals, opname: str, dtype_hint: DType | None = None):
    known = [v for v in vals if isinstance(v, Value)]
    dt = known[0].dtype if known else dtype_hint
    if not known and dt is None:
        raise error(f"{opname}: at least one operand must be a traced value (or give a dtype)")
    return [as_value(v, dt, opname) for v in vals]


# ---------------------------------------------------------------------------------------------
# Pointwise ops
# ---------------------------------------------------------------------------------------------

_FLOAT_ONLY_BIN = {"pow", "max_num", "min_num"}
_INT_ONLY_BIN = {"and", "or", "xor", "shl", "shr"}
_FLOAT_UNARY = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sigmoid", "tanh", "sin", "cos", "erf", "floor", "ceil"}
_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "rem": "%", "pow": "**", "and": "&", "or": "|", "xor": "^",
            "shl": "<<", "shr": ">>"}


def _numerics_attrs(kind: str, dtype: DType, approximate: bool, flush_to_zero: bool, allowed_approx, allowed_ftz):
    if not isinstance(approximate, bool) or not isinstance(flush_to_zero, bool):
        raise error(f"approximate= and flush_to_zero= of {kind} are constexpr Python bools")
    attrs = []
    if approximate:
        if kind not in allowed_approx:
            raise error(f"{kind} has no approximate form; approximate= is defined for f32 div, exp2 and tanh")
        if dtype is not ty.f32:
            raise error(f"approximate={approximate} on {kind} requires f32, got {dtype.name}")
        attrs.append("approximate")
    if flush_to_zero:
        if kind not in allowed_ftz:
            raise error(f"{kind} does not accept flush_to_zero=; it is defined for f32 div and exp2")
        if not approximate:
            raise error(f"flush_to_zero=True on {kind} requires approximate=True")
        attrs.append("flush_to_zero")
    return (" {" + ", ".join(attrs) + "}") if attrs else ""


def binary(kind: str, a, b, approximate: bool = False, flush_to_zero: bool = False, _op: str | None = None) -> Value:
    opname = f"'{_op or _SYMBOLS.get(kind, kind)}'"
    a, b = _coerce_operands([a, b], opname)
    _same_dtype([a, b], opname)
    dt = a.dtype
    if kind in _FLOAT_ONLY_BIN and not dt.is_float:
        raise error(f"{opname} needs float operands, got {dt.name}")
    if kind in _INT_ONLY_BIN and not (dt.is_int or dt.is_bool):
        raise error(f"{opname} needs integer or bool operands, got {dt.name}")
    if kind == "div" and _op == "/" and not dt.is_float:
        raise error(f"'/' on {dt.name} operands: write '//' for (floor) integer division, or cast to a float type")
    if kind == "div" and _op == "//" and dt.is_float:
        raise error(f"'//' on {dt.name} operands: write T.floor(a / b)")
    if dt.is_bool and kind not in _INT_ONLY_BIN and kind not in ("max", "min"):
        raise error(f"{opname} is not defined on bool (i1) values; use &, |, ^ or cast to an integer type")
    attrs = _numerics_attrs(kind, dt, approximate, flush_to_zero, ("div",), ("div",))
    a, b = unify([a, b], opname)
    bld = _b()
    (name,) = bld.emit(f"kir.binary {kind} {a.name}, {b.name}{attrs} : {a.type}", 1)
    return Value(name, a.type, bld.scope, a.axes)


def unary(kind: str, x, approximate: bool = False, flush_to_zero: bool = False) -> Value:
    x = as_value(x, None, f"T.{kind}")
    dt = x.dtype
    if kind in _FLOAT_UNARY and not dt.is_float:
        raise error(f"T.{kind} needs a float operand, got {dt.name}; cast it first, e.g. T.cast(x, T.f32)")
    if kind == "not" and not (dt.is_int or dt.is_bool):
        raise error(f"'~' needs an integer or bool operand, got {dt.name}")
    if kind in ("neg", "abs") and dt.is_bool:
        raise error(f"{kind} is not defined on bool (i1) values")
    attrs = _numerics_attrs(kind, dt, approximate, flush_to_zero, ("exp2", "tanh"), ("exp2",))
    b = _b()
    (name,) = b.emit(f"kir.unary {kind} {x.name}{attrs} : {x.type}", 1)
    return Value(name, x.type, b.scope, x.axes)


def compare(pred: str, a, b) -> Value:
    sym = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}[pred]
    opname = f"'{sym}'"
    a, b = _coerce_operands([a, b], opname)
    _same_dtype([a, b], opname)
    a, b = unify([a, b], opname)
    bld = _b()
    (name,) = bld.emit(f"kir.cmp {pred} {a.name}, {b.name} : {a.type}", 1)
    rtype = TensorType(ty.i1, a.type.shape) if a.is_tensor else ty.i1
    return Value(name, rtype, bld.scope, a.axes)


def where(cond, a, b) -> Value:
    if isinstance(cond, bool):  # a constexpr condition: resolved now
        return a if cond else b
    cond = as_value(cond, None, "T.where condition")
    if not cond.dtype.is_bool:
        raise error(f"T.where needs an i1 (bool) condition, got {cond.dtype.name}; compare first, e.g. x > 0")
    a, b = _coerce_operands([a, b], "T.where")
    _same_dtype([a, b], "T.where")
    vals = unify([a, b, cond] if cond.is_tensor else [a, b], "T.where")
    a, b = vals[0], vals[1]
    c = vals[2] if cond.is_tensor else cond  # a scalar condition selects whole values
    bld = _b()
    (name,) = bld.emit(f"kir.select {c.name}, {a.name}, {b.name} : {c.type}, {a.type}", 1)
    return Value(name, a.type, bld.scope, a.axes)


def cast(x, dtype: DType) -> Value:
    if not isinstance(dtype, DType):
        raise error(f"T.cast(x, dtype) needs an element type such as T.f16, got {dtype!r}")
    if not isinstance(x, Value):
        return const(x, dtype)
    x = use(x, "T.cast")
    if isinstance(x, Domain) or isinstance(x.type, (RecordType, str)):
        raise error(f"T.cast converts scalars and tensors, not a {x.describe()}")
    if x.dtype is dtype:
        return x
    rtype = TensorType(dtype, x.type.shape) if x.is_tensor else dtype
    b = _b()
    (name,) = b.emit(f"kir.cast {x.name} : {x.type} to {rtype}", 1)
    v = Value(name, rtype, b.scope, x.axes)
    return v


def bitcast(x, dtype: DType) -> Value:
    x = as_value(x, None, "T.bitcast")
    if x.dtype.bits != dtype.bits or x.dtype.is_index or dtype.is_index:
        raise error(f"T.bitcast needs element types of equal bit width, got {x.dtype.name} and {dtype.name}")
    rtype = TensorType(dtype, x.type.shape) if x.is_tensor else dtype
    b = _b()
    (name,) = b.emit(f"kir.bitcast {x.name} : {x.type} to {rtype}", 1)
    return Value(name, rtype, b.scope, x.axes)


# ---------------------------------------------------------------------------------------------
# Extents, domains, indices, shape ops
# ---------------------------------------------------------------------------------------------


def extent(symbol: str) -> Value:
    b = _b()
    if not isinstance(symbol, str) or symbol not in b.symbols:
        known = ", ".join(sorted(b.symbols)) or "none"
        raise error(f"unknown shape symbol {symbol!r}: the kernel's views declare {known}")
    root = b.scope.root
    key = ("extent", symbol)
    hit = root.cache.get(key)
    if hit is not None:
        return hit
    (name,) = b.emit(f'kir.extent "{symbol}"', 1, hoist=True)
    v = Value(name, ty.index, root)
    v.pro, v.symbol = True, symbol
    root.cache[key] = v
    return v


def _index_operand(x, what: str) -> Value:
    if isinstance(x, bool):
        raise error(f"{what} must be an index, got the bool {x!r}")
    if isinstance(x, int):
        return const(x, ty.index)
    if isinstance(x, Value) and not isinstance(x, Domain) and not x.is_tensor and x.dtype is not None:
        use(x, what)
        if x.dtype.is_index:
            return x
        if x.dtype.is_int:
            return cast(x, ty.index)
    desc = x.describe() if isinstance(x, Value) else repr(x)
    raise error(f"{what} must be an index scalar or a Python int, got {desc}")


def _ikey(v: Value) -> str:
    if v.const is not None:
        return f"c{v.const}"
    if v.symbol:
        return f"x:{v.symbol}"
    return f"v{v.name}"


def _idesc(v: Value) -> str:
    if v.const is not None:
        return str(v.const)
    if v.symbol:
        return v.symbol
    return f"{v.name}@{v.loc.line}"


def _hoistable(*vals) -> bool:
    root = _b().scope.root
    return all(v.pro and v.scope is root for v in vals)


def domain(lo, hi=None, step: int = 1) -> Domain:
    """The half-open domain [lo, hi) with a positive step; `T.domain(N)` means [0, N)."""
    if hi is None:
        lo, hi = 0, lo
    if isinstance(step, bool) or not isinstance(step, int) or step <= 0:
        raise error(f"a domain step is a positive Python int, got {step!r}; iterate forward and compute a "
                    "reversed coordinate instead")
    lo = _index_operand(lo, "T.domain lower bound")
    hi = _index_operand(hi, "T.domain upper bound")
    key = f"[{_ikey(lo)},{_ikey(hi)})/{step}"
    desc = f"[{_idesc(lo)}, {_idesc(hi)})" + (f" step {step}" if step != 1 else "")
    b = _b()
    hoist = _hoistable(lo, hi)
    root = b.scope.root
    if hoist and ("domain", key) in root.cache:
        return root.cache[("domain", key)]
    text = f"kir.domain {lo.name} to {hi.name}" + (f" step {step}" if step != 1 else "")
    (name,) = b.emit(text, 1, hoist=hoist)
    d = Domain(name, root if hoist else b.scope, key, desc, user_loc(), lo, hi, step)
    d.pro = hoist
    if hoist:
        root.cache[("domain", key)] = d
    return d


def _as_domain(d, what: str) -> Domain:
    if isinstance(d, Domain):
        return use(d, what)
    if isinstance(d, (int, Value)) and not isinstance(d, bool):
        return domain(0, d)
    raise error(f"{what} expects a domain (T.domain(lo, hi)), got {d!r}")


def subregion(d: Domain, begin=None, end=None) -> Domain:
    d = use(d, "subregion")
    bv = _index_operand(begin, "subregion begin") if begin is not None else (
        d.lo if d.lo is not None else const(0, ty.index))
    ev = _index_operand(end, "subregion end") if end is not None else d.hi
    if ev is None:
        raise error("a subregion of a subregion needs an explicit end")
    key = f"{d.key}[{_ikey(bv)}:{_ikey(ev)}]"
    desc = f"{d.desc}[{_idesc(bv)}:{_idesc(ev)}]"
    b = _b()
    hoist = _hoistable(d, bv, ev)
    root = b.scope.root
    if hoist and ("domain", key) in root.cache:
        return root.cache[("domain", key)]
    (name,) = b.emit(f"kir.subregion {d.name}[{bv.name} : {ev.name}]", 1, hoist=hoist)
    s = Domain(name, root if hoist else b.scope, key, desc, user_loc(), bv, ev, d.step, source=d)
    s.pro = hoist
    if hoist:
        root.cache[("domain", key)] = s
    return s


def indices(d) -> Value:
    """The absolute coordinates of a domain's members, as a rank-1 index tensor over it."""
    d = _as_domain(d, "T.indices")
    b = _b()
    root = b.scope.root
    key = ("indices", d.key)
    if d.pro and key in root.cache:
        return root.cache[key]
    rtype = TensorType(ty.index, [None])
    (name,) = b.emit(f"kir.indices {d.name} : {rtype}", 1, hoist=d.pro)
    v = Value(name, rtype, root if d.pro else b.scope, [d.axis])
    if d.pro:
        v.pro = True
        root.cache[key] = v
    return v


def _domains_arg(over, what) -> list:
    if isinstance(over, (Domain, int, Value)):
        over = (over,)
    return [_as_domain(d, what) for d in over]


def full(over, fill, dtype: DType | None = None) -> Value:
    """A tensor over the given domains, every element `fill` (a scalar)."""
    doms = _domains_arg(over, "T.full")
    v = as_value(fill, dtype, "T.full fill", default_float=ty.f32)
    if dtype is not None and v.dtype is not dtype:
        v = cast(v, dtype)
    if v.is_tensor:
        raise error("T.full fills with a scalar; use T.broadcast for tensors")
    return broadcast_value(v, [d.axis for d in doms], [])


def zeros(over, dtype: DType = ty.f32) -> Value:
    return full(over, 0, dtype)


def ones(over, dtype: DType = ty.f32) -> Value:
    return full(over, 1, dtype)


def full_like(like: Value, fill, dtype: DType | None = None) -> Value:
    like = as_value(like, None, "T.full_like")
    v = as_value(fill, dtype or (None if isinstance(fill, bool) else like.dtype), "T.full_like fill")
    if not like.is_tensor:
        return v
    return broadcast_value(v, like.axes, [], ref=like)


def broadcast(x, over, dims=None) -> Value:
    """`x` spread over the domains `over`; `dims[i]` is the result axis of x's axis i (by default the
    result axes whose domains match x's axes, in order)."""
    x = as_value(x, None, "T.broadcast")
    doms = _domains_arg(over, "T.broadcast")
    axes = [d.axis for d in doms]
    if dims is None:
        dims = _match_dims(x.axes, axes)
        if dims is None:
            raise error(f"T.broadcast: the {x.describe()} has axes that none of {_axes_desc(axes)} matches; "
                        "pass dims= explicitly")
    dims = list(dims)
    if len(dims) != x.rank:
        raise error(f"T.broadcast needs one entry in dims per operand axis ({x.rank}), got {dims}")
    return broadcast_value(x, axes, dims)


def broadcast_to(x, like: Value, dims=None) -> Value:
    """`x` spread to the shape (and provenance) of the tensor `like` (kir.broadcast_as)."""
    x = as_value(x, None, "T.broadcast_to")
    like = as_value(like, None, "T.broadcast_to reference")
    if not like.is_tensor:
        raise error("T.broadcast_to needs a tensor reference")
    if dims is None:
        dims = _match_dims(x.axes, like.axes)
        if dims is None:
            raise error(f"T.broadcast_to: the axes {_axes_desc(x.axes)} do not match {_axes_desc(like.axes)}; pass dims=")
    b = _b()
    dims_s = "[" + ", ".join(str(d) for d in dims) + "]"
    rtype = TensorType(x.dtype, like.type.shape)
    (name,) = b.emit(f"kir.broadcast_as {x.name} to {like.name} dims {dims_s} : {x.type}, {like.type} -> {rtype}", 1)
    return Value(name, rtype, b.scope, like.axes)


def transpose(x, perm=None) -> Value:
    x = as_value(x, None, "T.transpose")
    if not x.is_tensor:
        raise error("T.transpose needs a tensor")
    perm = list(range(x.rank))[::-1] if perm is None else list(perm)
    if sorted(perm) != list(range(x.rank)):
        raise error(f"T.transpose: {perm} is not a permutation of the {x.rank} axes")
    rtype = TensorType(x.dtype, [x.type.shape[p] for p in perm])
    b = _b()
    (name,) = b.emit(f"kir.transpose {x.name} [{', '.join(map(str, perm))}] : {x.type} -> {rtype}", 1)
    return Value(name, rtype, b.scope, [x.axes[p] for p in perm])


def reshape(x, over) -> Value:
    """Row-major reshape of `x` onto new domains (one per result axis)."""
    x = as_value(x, None, "T.reshape")
    doms = _domains_arg(over, "T.reshape")
    rtype = TensorType(x.dtype, [None] * len(doms))
    b = _b()
    (name,) = b.emit(f"kir.reshape {x.name} over({', '.join(d.name for d in doms)}) : {x.type} -> {rtype}", 1)
    return Value(name, rtype, b.scope, [d.axis for d in doms])


def join(a, b_) -> Value:
    """Stacks two equal-typed values along a new trailing axis of extent 2."""
    a, b_ = _coerce_operands([a, b_], "T.join")
    _same_dtype([a, b_], "T.join")
    a, b_ = unify([a, b_], "T.join")
    shape = (a.type.shape if a.is_tensor else ()) + (2,)
    rtype = TensorType(a.dtype, shape)
    bld = _b()
    (name,) = bld.emit(f"kir.join {a.name}, {b_.name} : {a.type} -> {rtype}", 1)
    return Value(name, rtype, bld.scope, a.axes + (Axis("c2", None, "2"),))


def extract(x, *idx) -> Value:
    x = as_value(x, None, "T.extract")
    if not x.is_tensor:
        raise error(f"only tensors can be indexed; the {x.describe()} is a scalar")
    if len(idx) != x.rank:
        raise error(f"extracting one element of a rank-{x.rank} tensor needs {x.rank} indices, got {len(idx)}")
    ivs = [_index_operand(i, "T.extract index") for i in idx]
    b = _b()
    (name,) = b.emit(f"kir.extract {x.name}[{', '.join(v.name for v in ivs)}] : {x.type}", 1)
    return Value(name, x.dtype, b.scope)


def record(**fields) -> Record:
    """A record value with named fields (in keyword order): `T.record(m=mx, den=d)`."""
    if not fields:
        raise error("a record needs at least one field")
    vals = [as_value(v, None, f"record field '{k}'", default_float=ty.f32) for k, v in fields.items()]
    for k, v in zip(fields, vals):
        if isinstance(v.type, RecordType):
            raise error(f"record field '{k}' is itself a record; nest products as separate fields")
    rtype = RecordType(list(fields), [v.type for v in vals])
    b = _b()
    ops = ", ".join(v.name for v in vals)
    tys = ", ".join(str(v.type) for v in vals)
    (name,) = b.emit(f"kir.record {ops} : {tys} -> {rtype}", 1)
    return _make(name, rtype, b.scope, field_axes=[v.axes for v in vals])


def record_get(r: Record, field: str) -> Value:
    r = use(r, "record field")
    if field not in r.type.names:
        raise error(f"record {r.type} has no field '{field}'")
    i = r.type.names.index(field)
    ftype = r.type.types[i]
    b = _b()
    (name,) = b.emit(f'kir.record_get {r.name}["{field}"] : {r.type} -> {ftype}', 1)
    return Value(name, ftype, b.scope, r.field_axes[i])


# ---------------------------------------------------------------------------------------------
# Views and accesses
# ---------------------------------------------------------------------------------------------


class View:
    """An external view (kernel parameter): index it to load, assign to it to store."""

    def __init__(self, pyname: str, spec: ty.ViewSpec, scope: Scope):
        self.pyname, self.spec, self.scope = pyname, spec, scope
        self.name = f"%{pyname}"
        self.type = spec.type_str()
        self.written = False

    dtype = property(lambda self: self.spec.dtype)
    mode = property(lambda self: self.spec.mode)
    rank = property(lambda self: len(self.spec.extents))

    @property
    def shape(self) -> tuple:
        """Per axis: the extent as an index value (`kir.extent`), or a Python int when static."""
        return tuple(e if isinstance(e, int) else extent(e) for e in self.spec.extents)

    def domain(self, axis: int) -> Domain:
        """The full domain [0, extent) of one axis."""
        return domain(0, self.shape[axis])

    def relation(self, d) -> Value:
        return index_relation(self, d)

    def describe(self):
        return f"view '{self.pyname}'"

    def __getitem__(self, key):
        return load(self, key)

    def __setitem__(self, key, value):
        store(self, key, value)

    def __bool__(self):
        raise error(f"view '{self.pyname}' is used as a Python condition")

    def __repr__(self):
        return f"<tessel view {self.pyname}: {self.type}>"


def _coords(target, key, rank: int, full_domain, what: str):
    """(coordinate values, their type strings, result axes, has index tensors)."""
    if rank == 0:
        raise error(f"{what} has rank 0: an access with no coordinates cannot be written in KIR text yet "
                    "(the kir parser rejects an empty coordinate type list); use a rank-1 view/buffer of extent 1")
    if not isinstance(key, tuple):
        key = (key,)
    if sum(k is Ellipsis for k in key) > 1:
        raise error(f"{what}: at most one '...' in a coordinate list")
    if Ellipsis in key:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (rank - len(key) + 1) + key[i + 1:]
    if len(key) != rank:
        raise error(f"{what} has rank {rank} but {len(key)} coordinate{'s' if len(key) != 1 else ''} "
                    f"{'were' if len(key) != 1 else 'was'} given")
    vals, types, axes, gathered = [], [], [], False
    for i, c in enumerate(key):
        if isinstance(c, slice):
            if c.step is not None:
                raise error(f"{what}: coordinate #{i} has a step; use T.domain(lo, hi, step)")
            full_d = full_domain(i)
            c = full_d if c.start is None and c.stop is None else subregion(full_d, c.start, c.stop)
        if isinstance(c, Domain):
            use(c, f"{what} coordinate #{i}")
            vals.append(c)
            types.append(DOMAIN_TYPE)
            axes.append(c.axis)
            continue
        if isinstance(c, Value) and c.is_tensor:
            use(c, f"{what} coordinate #{i}")
            if c.dtype.is_int:
                c = cast(c, ty.index)
            if not c.dtype.is_index:
                raise error(f"{what}: coordinate #{i} is a {c.type} tensor; gather coordinates are index tensors")
            vals.append(c)
            types.append(str(c.type))
            axes.extend(c.axes)
            gathered = True
            continue
        if isinstance(c, View):
            raise error(f"{what}: coordinate #{i} is view '{c.pyname}'; read it first, e.g. {c.pyname}[i]")
        v = _index_operand(c, f"{what} coordinate #{i}")
        vals.append(v)
        types.append("index")
    return vals, types, axes, gathered


def _view_extent(view: View):
    """The full domain of each view axis (what ':' means in a coordinate list)."""
    return lambda i: domain(0, view.shape[i])


def _valid_operand(valid, axes, what: str):
    if valid is None:
        return None
    v = as_value(valid, ty.i1, f"{what} valid=")
    if not v.dtype.is_bool:
        raise error(f"{what}: valid= must be a bool (i1) mask, got {v.dtype.name}")
    if v.is_tensor and not _same_axes(v.axes, axes):
        dims = _match_dims(v.axes, axes)
        if dims is None or v.rank >= len(axes):
            raise error(f"{what}: the mask is over {_axes_desc(v.axes)} but the access is over {_axes_desc(axes)}")
        v = broadcast_value(v, axes, dims)
    return v


def load(view: View, coords, valid=None, fill=None) -> Value:
    """Reads `view` at `coords` (indices, domains, or index tensors for a gather); masked with valid/fill."""
    if not isinstance(view, View):
        raise error(f"T.load reads a view, got {view!r}")
    use(view, f"load of '{view.pyname}'")
    _check_effect("read", f"a load of view '{view.pyname}'")
    what = f"view '{view.pyname}'"
    if view.mode == "out" and not view.written:
        raise error(f"{what} is an Out view and is read before any write to it; write it first, or declare it "
                    "T.InOut to read its initial contents")
    vals, types, axes, gathered = _coords(view, coords, view.rank, _view_extent(view), what)
    if valid is None and fill is not None:
        raise error(f"{what}: fill= needs valid=")
    vmask = _valid_operand(valid, axes, f"load of {what}")
    mask_text = ""
    if vmask is not None:
        f = as_value(0 if fill is None else fill, view.dtype, f"load of {what} fill=")
        if f.is_tensor or f.dtype is not view.dtype:
            raise error(f"load of {what}: fill= must be a {view.dtype.name} scalar, got {f.describe()}")
        mask_text = f" valid {vmask.name} : {vmask.type} fill {f.name} : {f.type}"
    rtype = TensorType(view.dtype, [None] * len(axes)) if axes else view.dtype
    opname = "kir.gather" if gathered else "kir.load"
    b = _b()
    (name,) = b.emit(f"{opname} {view.name}[{', '.join(v.name for v in vals)}]{mask_text} : "
                     f"{view.type}[{', '.join(types)}] -> {rtype}", 1)
    return Value(name, rtype, b.scope, axes)


def _store_value(value, axes, dtype: DType, what: str) -> Value:
    v = as_value(value, dtype, what)
    if v.dtype is not dtype:
        raise error(f"{what}: stores a {v.dtype.name} value into a {dtype.name} view; convert explicitly with "
                    f"T.cast(value, T.{dtype.name})")
    if not axes:
        if v.is_tensor:
            raise error(f"{what}: the coordinates name one element but the value is a {v.describe()}")
        return v
    if not v.is_tensor:
        return broadcast_value(v, axes, [])
    if _same_axes(v.axes, axes):
        return v
    dims = _match_dims(v.axes, axes) if v.rank < len(axes) else None
    if dims is None:
        raise error(f"{what}: the value is over {_axes_desc(v.axes)} but the coordinates are over "
                    f"{_axes_desc(axes)}; mismatched extents")
    return broadcast_value(v, axes, dims)


def store(view: View, coords, value, valid=None):
    """Writes `value` to `view` at `coords`; index-tensor coordinates make a unique scatter."""
    if not isinstance(view, View):
        raise error(f"T.store writes a view, got {view!r}")
    use(view, f"store to '{view.pyname}'")
    what = f"store to view '{view.pyname}'"
    if view.mode == "in":
        raise error(f"{what}: '{view.pyname}' is an In view (read only); declare it T.Out or T.InOut")
    _check_effect("write", f"a store to view '{view.pyname}'")
    vals, types, axes, gathered = _coords(view, coords, view.rank, _view_extent(view), what)
    v = _store_value(value, axes, view.dtype, what)
    vmask = _valid_operand(valid, axes, what)
    mask_text = f" valid {vmask.name} : {vmask.type}" if vmask is not None else ""
    opname = "kir.scatter" if gathered else "kir.store"
    b = _b()
    b.emit(f"{opname} {v.name}, {view.name}[{', '.join(c.name for c in vals)}]{mask_text} : "
           f"{v.type}, {view.type}[{', '.join(types)}]", 0)
    view.written = True


def index_relation(view: View, d) -> Value:
    """`view[j]` for j in domain `d`, as an index tensor naming members of another axis (gather coordinates)."""
    if not isinstance(view, View):
        raise error(f"T.index_relation reads an integer view, got {view!r}")
    use(view, "T.index_relation")
    _check_effect("read", f"an index relation over view '{view.pyname}'")
    if view.rank != 1 or not view.dtype.is_int:
        raise error(f"T.index_relation needs a rank-1 integer view, got '{view.pyname}' ({view.type})")
    if view.mode == "out" and not view.written:
        raise error(f"view '{view.pyname}' is an Out view and is read before any write to it")
    d = _as_domain(d, "T.index_relation")
    rtype = TensorType(ty.index, [None])
    b = _b()
    (name,) = b.emit(f"kir.index_relation {view.name}[{d.name}] : {view.type} -> {rtype}", 1)
    return Value(name, rtype, b.scope, [d.axis])


# --- buffers -------------------------------------------------------------------------------------


class Buffer:
    """A kernel-local logical buffer over some domains; index it like a view."""

    def __init__(self, name, type_, scope, domains, dtype):
        self.name, self.type, self.scope, self.domains, self.dtype = name, type_, scope, domains, dtype
        self.pyname = f"buffer {name}"

    def describe(self):
        return f"buffer {self.name}"

    def __getitem__(self, key):
        return buffer_load(self, key)

    def __setitem__(self, key, value):
        buffer_store(self, key, value)


def buffer(over=(), dtype: DType = ty.f32, init=None) -> Buffer:
    """A logical buffer over `over`; `init` (a scalar or full tensor) or, when None, a first-write obligation."""
    _check_effect("write", "a buffer (T.buffer allocates and writes)")
    doms = _domains_arg(over, "T.buffer") if over != () else []
    if not doms:
        raise error("T.buffer needs at least one domain: a scalar buffer's accesses have no coordinates, which "
                    "KIR text cannot express yet (the kir parser rejects an empty coordinate type list); "
                    "use a buffer over a one-member domain")
    vt = TensorType(dtype, [None] * len(doms)) if doms else dtype
    btype = BufferType(vt)
    init_text = " first_write"
    if init is not None:
        iv = as_value(init, dtype, "T.buffer init=")
        if iv.dtype is not dtype:
            raise error(f"T.buffer init= has type {iv.dtype.name}, expected {dtype.name}")
        init_text = f" init {iv.name} : {iv.type}"
    b = _b()
    (name,) = b.emit(f"kir.buffer over({', '.join(d.name for d in doms)}){init_text} : {btype}", 1)
    return Buffer(name, btype, b.scope, doms, dtype)


def _buffer_coords(buf: Buffer, key):
    return _coords(buf, key, len(buf.domains), lambda i: buf.domains[i], f"buffer {buf.name}")


def buffer_load(buf: Buffer, key) -> Value:
    use(buf, "buffer load")
    _check_effect("read", "a buffer load")
    vals, types, axes, gathered = _buffer_coords(buf, key)
    if gathered:
        raise error("buffers are indexed by indices and domains, not index tensors")
    rtype = TensorType(buf.dtype, [None] * len(axes)) if axes else buf.dtype
    b = _b()
    (name,) = b.emit(f"kir.buffer_load {buf.name}[{', '.join(v.name for v in vals)}] : {buf.type}[{', '.join(types)}] -> {rtype}", 1)
    return Value(name, rtype, b.scope, axes)


def buffer_store(buf: Buffer, key, value):
    use(buf, "buffer store")
    _check_effect("write", "a buffer store")
    vals, types, axes, gathered = _buffer_coords(buf, key)
    if gathered:
        raise error("buffers are indexed by indices and domains, not index tensors")
    v = _store_value(value, axes, buf.dtype, f"store to {buf.describe()}")
    b = _b()
    b.emit(f"kir.buffer_store {v.name}, {buf.name}[{', '.join(c.name for c in vals)}] : {v.type}, {buf.type}[{', '.join(types)}]", 0)


# --- atomics and scatter-reduce --------------------------------------------------------------------

_ORDERS = ("relaxed", "acquire", "release", "acq_rel")
_SHARING = ("invocation", "parallel")


def _atomic_prelude(view, coords, what, order, sharing, orders):
    if not isinstance(view, View):
        raise error(f"{what} needs a view, got {view!r}")
    use(view, what)
    if order not in orders:
        raise error(f"{what}: order= must be one of {', '.join(orders)}, got {order!r}")
    if sharing not in _SHARING:
        raise error(f"{what}: sharing= must be 'invocation' or 'parallel', got {sharing!r}")
    return _coords(view, coords, view.rank, _view_extent(view), f"{what} on '{view.pyname}'")


def atomic_rmw(kind: str, view: View, coords, value, order: str = "relaxed", sharing: str = "invocation") -> Value:
    """Atomic read-modify-write (exchange/add/max/min/and/or/xor); returns the old value(s)."""
    kinds = ("exchange", "add", "max", "min", "and", "or", "xor")
    if kind not in kinds:
        raise error(f"T.atomic_rmw kind must be one of {', '.join(kinds)}, got {kind!r}")
    vals, types, axes, _ = _atomic_prelude(view, coords, f"T.atomic_{kind}", order, sharing, _ORDERS)
    if view.mode == "in":
        raise error(f"T.atomic_{kind}: '{view.pyname}' is an In view; atomics need T.InOut (or T.Out)")
    _check_effect("write", f"an atomic on view '{view.pyname}'")
    v = _store_value(value, axes, view.dtype, f"T.atomic_{kind} on '{view.pyname}'")
    b = _b()
    (name,) = b.emit(f"kir.atomic_rmw {kind} {v.name}, {view.name}[{', '.join(c.name for c in vals)}] order {order} "
                     f"sharing {sharing} : {v.type}, {view.type}[{', '.join(types)}] -> {v.type}", 1)
    view.written = True
    return Value(name, v.type, b.scope, v.axes)


def atomic_add(view, coords, value, order="relaxed", sharing="invocation"):
    return atomic_rmw("add", view, coords, value, order, sharing)


def atomic_max(view, coords, value, order="relaxed", sharing="invocation"):
    return atomic_rmw("max", view, coords, value, order, sharing)


def atomic_min(view, coords, value, order="relaxed", sharing="invocation"):
    return atomic_rmw("min", view, coords, value, order, sharing)


def atomic_load(view: View, coords, order: str = "relaxed", sharing: str = "invocation") -> Value:
    vals, types, axes, _ = _atomic_prelude(view, coords, "T.atomic_load", order, sharing, ("relaxed", "acquire"))
    _check_effect("read", f"an atomic load of view '{view.pyname}'")
    rtype = TensorType(view.dtype, [None] * len(axes)) if axes else view.dtype
    b = _b()
    (name,) = b.emit(f"kir.atomic_load {view.name}[{', '.join(c.name for c in vals)}] order {order} sharing {sharing} : "
                     f"{view.type}[{', '.join(types)}] -> {rtype}", 1)
    return Value(name, rtype, b.scope, axes)


def atomic_store(view: View, coords, value, order: str = "relaxed", sharing: str = "invocation"):
    vals, types, axes, _ = _atomic_prelude(view, coords, "T.atomic_store", order, sharing, ("relaxed", "release"))
    if view.mode == "in":
        raise error(f"T.atomic_store: '{view.pyname}' is an In view")
    _check_effect("write", f"an atomic store to view '{view.pyname}'")
    v = _store_value(value, axes, view.dtype, f"T.atomic_store on '{view.pyname}'")
    b = _b()
    b.emit(f"kir.atomic_store {v.name}, {view.name}[{', '.join(c.name for c in vals)}] order {order} sharing {sharing} : "
           f"{v.type}, {view.type}[{', '.join(types)}]", 0)
    view.written = True


def atomic_cas(view: View, coords, expected, desired, order: str = "acq_rel", sharing: str = "invocation"):
    """Atomic compare-and-swap; returns (old, success)."""
    vals, types, axes, _ = _atomic_prelude(view, coords, "T.atomic_cas", order, sharing, _ORDERS)
    if view.mode == "in":
        raise error(f"T.atomic_cas: '{view.pyname}' is an In view")
    _check_effect("write", f"an atomic compare-and-swap on view '{view.pyname}'")
    e = _store_value(expected, axes, view.dtype, "T.atomic_cas expected")
    d = _store_value(desired, axes, view.dtype, "T.atomic_cas desired")
    stype = TensorType(ty.i1, e.type.shape) if e.is_tensor else ty.i1
    b = _b()
    old, ok = b.emit(f"kir.atomic_cas {e.name}, {d.name}, {view.name}[{', '.join(c.name for c in vals)}] order {order} "
                     f"sharing {sharing} : {e.type}, {view.type}[{', '.join(types)}] -> {stype}", 2)
    view.written = True
    return Value(old, e.type, b.scope, e.axes), Value(ok, stype, b.scope, e.axes)


_BUILTIN_COMBINE = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "max": lambda a, b: maximum(a, b),
    "min": lambda a, b: minimum(a, b),
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
}


def scatter_reduce(view: View, coords, value, combine="add", valid=None):
    """Combines each update into its destination with `combine(old, update)` (assoc. and comm.)."""
    if not isinstance(view, View):
        raise error(f"T.scatter_reduce writes a view, got {view!r}")
    use(view, "T.scatter_reduce")
    what = f"T.scatter_reduce on '{view.pyname}'"
    if view.mode != "inout":
        raise error(f"{what}: scatter-reduce reads the old contents; declare '{view.pyname}' T.InOut")
    _check_effect("write", what)
    vals, types, axes, _ = _coords(view, coords, view.rank, _view_extent(view), what)
    v = _store_value(value, axes, view.dtype, what)
    vmask = _valid_operand(valid, axes, what)
    fn = _BUILTIN_COMBINE.get(combine) if isinstance(combine, str) else combine
    if fn is None or not callable(fn):
        raise error(f"{what}: combine= is one of {', '.join(_BUILTIN_COMBINE)} or a helper function, got {combine!r}")
    dt = view.dtype
    block, _ = trace_region(f"{what} combine", [(dt, ())] * 2, fn, [(dt, ())], effects="none", closed=True)
    mask_text = f" valid {vmask.name} : {vmask.type}" if vmask is not None else ""
    b = _b()
    b.emit(f"kir.scatter_reduce {v.name}, {view.name}[{', '.join(c.name for c in vals)}]{mask_text} : "
           f"{v.type}, {view.type}[{', '.join(types)}]", 0, regions=[("", block)])
    view.written = True


# ---------------------------------------------------------------------------------------------
# Region tracing
# ---------------------------------------------------------------------------------------------


_DEF_INFO: dict = {}


def _def_info(code):
    """(def line, col, {param: (line, col)}) of a function's source, cached per code object."""
    hit = _DEF_INFO.get(code)
    if hit is not None:
        return hit
    info = (code.co_firstlineno, 1, {})
    try:
        lines = linecache.getlines(code.co_filename)
        start = code.co_firstlineno - 1
        # The decorators and the def: parse from the first line to the end of the block.
        indent = len(lines[start]) - len(lines[start].lstrip())
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
                                    or lines[end].lstrip().startswith((")", "def ", "async def "))):
            end += 1
        src = "".join(line[indent:] if len(line) > indent else line.lstrip(" ") for line in lines[start:end])
        tree = ast.parse(src)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                params = {a.arg: (start + a.lineno, a.col_offset + indent + 1) for a in args}
                info = (start + node.lineno, node.col_offset + indent + 1, params)
                break
    except (SyntaxError, IndexError, ValueError):
        pass
    _DEF_INFO[code] = info
    return info


def _code_of(fn):
    return getattr(fn, "__code__", None) or getattr(getattr(fn, "fn", None), "__code__", None)


def _fn_loc(fn) -> Loc:
    """The `def` line of a function written by the author (else the current user position)."""
    code = _code_of(fn)
    if code is not None and not _is_internal(code.co_filename):
        line, col, _ = _def_info(code)
        return Loc(code.co_filename, line, col)
    return user_loc()


def _param_loc(fn, name: str) -> Loc:
    code = _code_of(fn)
    if code is not None and not _is_internal(code.co_filename):
        line, col, params = _def_info(code)
        line, col = params.get(name, (line, col))
        return Loc(code.co_filename, line, col)
    return user_loc()


def _fn_name(fn) -> str:
    return getattr(fn, "__name__", None) or getattr(getattr(fn, "fn", None), "__name__", "helper")


def _as_tuple(res):
    if res is None:
        return ()
    if isinstance(res, (tuple, list)):
        return tuple(res)
    return (res,)


def _spec_of(v: Value):
    return (v.type, v.axes if not isinstance(v, Record) else v.field_axes)


def _check_results(res, expected, what: str, loc: Loc):
    """Coerces and checks a helper's results against `expected` [(type, axes)]; returns Values."""
    res = _as_tuple(res)
    if expected is None:
        out = []
        for r in res:
            if not isinstance(r, Value):
                raise error(f"{what} must return traced values, got {r!r}", loc)
            out.append(use(r, f"{what} result"))
        return out
    if len(res) != len(expected):
        raise error(f"{what} returns {len(res)} value{'s' if len(res) != 1 else ''} but {len(expected)} "
                    f"{'were' if len(expected) != 1 else 'was'} expected", loc)
    out = []
    for i, (r, (t, axes)) in enumerate(zip(res, expected)):
        dt = _dtype_of(t)
        if not isinstance(r, Value):
            if dt is None:
                raise error(f"{what} result #{i} must be a {t} value, got {r!r}", loc)
            r = as_value(r, dt, f"{what} result #{i}")
            if isinstance(t, TensorType):
                r = broadcast_value(r, axes, [])
        r = use(r, f"{what} result #{i}")
        if str(r.type) != str(t):
            hint = f"; convert with T.cast(x, T.{dt.name})" if dt is not None and r.dtype is not None and r.dtype is not dt else ""
            raise error(f"{what} result #{i} has type {r.type} but {t} was expected{hint}", loc)
        if isinstance(t, TensorType) and not _same_axes(r.axes, axes):
            raise error(f"{what} result #{i} is over {_axes_desc(r.axes)} but {_axes_desc(axes)} was expected", loc)
        out.append(r)
    return out


def _yield_text(vals) -> str:
    if not vals:
        return "kir.yield"
    return f"kir.yield {', '.join(v.name for v in vals)} : {', '.join(str(v.type) for v in vals)}"


def trace_region(kind: str, args, fn, expected, effects: str = "none", closed: bool = True,
                 terminator=None, leading_args=()):
    """Traces `fn(*block_args)` into a new region; returns (Block, result Values).

    `args` is [(type, axes)] for the block arguments; `expected` is [(type, axes)] for the results
    (or None: taken from what fn returns). `terminator(results)` gives the terminator text.
    """
    b = _b()
    loc = _fn_loc(fn)
    call_loc = user_loc()
    scope = Scope(b.scope, kind, closed, call_loc, effects)
    b.push(scope)
    vals = []
    for item in list(leading_args) + list(args):
        t, axes = item
        name = b.fresh()
        if isinstance(t, RecordType):
            v = _make(name, t, scope, field_axes=axes, loc=call_loc)
        elif t == DOMAIN_TYPE:
            raise AssertionError
        else:
            v = Value(name, t, scope, axes if isinstance(t, TensorType) else (), call_loc)
        v.pro = closed
        vals.append(v)
    res = fn(*vals)
    if b.scope is not scope:
        _unclosed(b.scope)
    results = _check_results(res, expected, f"the {kind} helper '{_fn_name(fn)}'", loc)
    text = terminator(results) if terminator else _yield_text(results)
    b.emit(text, 0, loc=loc)
    b.pop(scope)
    ops = (scope.prologue or []) + scope.ops
    block = Block([(v.name, str(v.type)) for v in vals], ops)
    return block, results


class _AxisMap:
    """Outer axis key -> inner opaque axis, for values entering a closed region."""

    def __init__(self, what: str):
        self.what = what
        self.fwd: dict = {}
        self.back: dict = {}

    def inner(self, a: Axis) -> Axis:
        hit = self.fwd.get(a.key)
        if hit is None:
            hit = self.fwd[a.key] = Axis(f"r{next(_uid)}", None, f"{a.desc} (in {self.what})")
            self.back[hit.key] = a
        return hit

    def inner_axes(self, axes):
        return tuple(self.inner(a) for a in axes)

    def spec(self, v: Value):
        if isinstance(v, Record):
            return (v.type, tuple(self.inner_axes(fa) for fa in v.field_axes))
        return (v.type, self.inner_axes(v.axes))


def _components(x, what: str, default_float=ty.f32):
    vals = [as_value(v, None, what, default_float=default_float) for v in _as_tuple(x)]
    return vals


# ---------------------------------------------------------------------------------------------
# Reductions, scans, contractions, histogram
# ---------------------------------------------------------------------------------------------


def _norm_axes(x: Value, axis, what: str, single: bool = False):
    if not x.is_tensor:
        raise error(f"{what} needs a tensor, got the {x.describe()}")
    if axis is None:
        if single:
            if x.rank != 1:
                raise error(f"{what} needs axis= for a rank-{x.rank} tensor")
            return [0]
        return list(range(x.rank))
    axes = list(axis) if isinstance(axis, (tuple, list)) else [axis]
    out = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int):
            raise error(f"{what}: axis must be a Python int, got {a!r}")
        n = a + x.rank if a < 0 else a
        if not 0 <= n < x.rank:
            raise error(f"{what}: axis {a} is out of range for a rank-{x.rank} tensor")
        if n in out:
            raise error(f"{what}: axis {a} is given twice")
        out.append(n)
    if not out:
        raise error(f"{what} must reduce at least one axis")
    if single and len(out) != 1:
        raise error(f"{what} takes exactly one axis")
    return sorted(out)


def _types_list(vals) -> str:
    return ", ".join(str(v.type) for v in vals)


def reduce(x, axis, identity, combine, _what: str = "T.reduce"):
    """Generic reduction: `combine(*lhs, *rhs)` (associative, commutative, pure) with `identity` neutral.

    `x` and `identity` are one value or tuples of values (one accumulator component each)."""
    inputs = _components(x, "T.reduce input")
    if not inputs:
        raise error("T.reduce needs at least one input")
    for v in inputs:
        if not v.is_tensor:
            raise error(f"T.reduce inputs are tensors, got the {v.describe()}")
        if not _same_axes(v.axes, inputs[0].axes):
            raise error(f"T.reduce inputs must share one shape: {_axes_desc(v.axes)} vs {_axes_desc(inputs[0].axes)}")
    axes = _norm_axes(inputs[0], axis, _what)
    ids = _as_tuple(identity)
    if len(ids) != len(inputs):
        raise error(f"T.reduce has {len(inputs)} input{'s' if len(inputs) != 1 else ''} but {len(ids)} identity "
                    "components; give one identity per input")
    idv = []
    for i, (v, s) in enumerate(zip(ids, inputs)):
        iv = as_value(v, s.dtype, f"T.reduce identity #{i}")
        if iv.type != s.dtype:
            raise error(f"T.reduce identity #{i} has type {iv.type} but the input elements are {s.dtype.name}")
        idv.append(iv)
    if not callable(combine):
        raise error(f"T.reduce combine= must be a helper function, got {combine!r}")
    schema = [(s.dtype, ()) for s in inputs]
    block, _ = trace_region("T.reduce combine", schema * 2, combine, schema, effects="none")
    kept = [i for i in range(inputs[0].rank) if i not in axes]
    rtypes = [TensorType(s.dtype, [s.type.shape[i] for i in kept]) if kept else s.dtype for s in inputs]
    raxes = tuple(inputs[0].axes[i] for i in kept)
    b = _b()
    names = b.emit(f"kir.reduce {', '.join(v.name for v in inputs)} axes [{', '.join(map(str, axes))}] "
                   f"identity({', '.join(v.name for v in idv)} : {_types_list(idv)}) : ({_types_list(inputs)}) -> "
                   f"({', '.join(map(str, rtypes))})", len(inputs), regions=[("", block)])
    res = [Value(n, t, b.scope, raxes if kept else ()) for n, t in zip(names, rtypes)]
    return res[0] if len(res) == 1 and not isinstance(x, (tuple, list)) else tuple(res)


def _lowest(dt: DType):
    return -math.inf if dt.is_float else ty.int_min(dt)


def _highest(dt: DType):
    return math.inf if dt.is_float else ty.int_max(dt)


def _builtin_reduce(x, axis, acc_dtype, what, identity_fn, combine, bool_only=False):
    x = as_value(x, None, what)
    if not x.is_tensor:
        raise error(f"{what} needs a tensor, got the {x.describe()}")
    if bool_only and not x.dtype.is_bool:
        raise error(f"{what} needs a bool (i1) tensor, got {x.dtype.name}; compare first, e.g. x > 0")
    if not bool_only and x.dtype.is_bool and what == "T.sum":
        raise error("T.sum of a bool tensor: cast it to an integer type first, e.g. T.cast(mask, T.i32)")
    if acc_dtype is not None:
        if not isinstance(acc_dtype, DType):
            raise error(f"{what}: acc_dtype= must be an element type, got {acc_dtype!r}")
        x = cast(x, acc_dtype)
    return reduce(x, axis, identity_fn(x.dtype), combine, _what=what)


def sum_(x, axis=None, acc_dtype=None):  # noqa: A001 - DSL name
    return _builtin_reduce(x, axis, acc_dtype, "T.sum", lambda dt: 0, _BUILTIN_COMBINE["add"])


def max_(x, axis=None, acc_dtype=None):  # noqa: A001
    return _builtin_reduce(x, axis, acc_dtype, "T.max", _lowest, _BUILTIN_COMBINE["max"])


def min_(x, axis=None, acc_dtype=None):  # noqa: A001
    return _builtin_reduce(x, axis, acc_dtype, "T.min", _highest, _BUILTIN_COMBINE["min"])


def any_(x, axis=None):  # noqa: A001
    return _builtin_reduce(x, axis, None, "T.any", lambda dt: False, _BUILTIN_COMBINE["or"], bool_only=True)


def all_(x, axis=None):  # noqa: A001
    return _builtin_reduce(x, axis, None, "T.all", lambda dt: True, _BUILTIN_COMBINE["and"], bool_only=True)


def _arg_reduce(kind, x, axis, tie, nan):
    what = f"T.{kind}"
    x = as_value(x, None, what)
    (ax,) = _norm_axes(x, axis, what, single=True)
    if tie not in ("lowest", "highest"):
        raise error(f"{what}: tie= is 'lowest' or 'highest', got {tie!r}")
    if nan not in ("propagate", "ignore"):
        raise error(f"{what}: nan= is 'propagate' or 'ignore', got {nan!r}")
    if x.dtype.is_bool or x.dtype.is_index:
        raise error(f"{what} needs integer or float elements, got {x.dtype.name}")
    kept = [i for i in range(x.rank) if i != ax]
    vt = TensorType(x.dtype, [x.type.shape[i] for i in kept]) if kept else x.dtype
    it = TensorType(ty.index, [x.type.shape[i] for i in kept]) if kept else ty.index
    axes = tuple(x.axes[i] for i in kept)
    b = _b()
    v, i = b.emit(f"kir.arg_reduce {kind} {x.name} axis {ax} tie {tie} nan {nan} : {x.type} -> {vt}, {it}", 2)
    return Value(v, vt, b.scope, axes), Value(i, it, b.scope, axes)


def argmax(x, axis=None, tie="lowest", nan="propagate"):
    """(values, positions) of the maximum along one axis; positions are index values counted from 0."""
    return _arg_reduce("argmax", x, axis, tie, nan)


def argmin(x, axis=None, tie="lowest", nan="propagate"):
    return _arg_reduce("argmin", x, axis, tie, nan)


def scan(x, axis, identity, combine, exclusive: bool = False, reverse: bool = False):
    """Ordered prefix combination along one axis with an associative `combine(*earlier, *later)`."""
    inputs = _components(x, "T.scan input")
    for v in inputs:
        if not v.is_tensor or not _same_axes(v.axes, inputs[0].axes):
            raise error("T.scan inputs are tensors of one shape")
    (ax,) = _norm_axes(inputs[0], axis, "T.scan", single=True)
    ids = _as_tuple(identity)
    if len(ids) != len(inputs):
        raise error(f"T.scan has {len(inputs)} inputs but {len(ids)} identity components")
    idv = [as_value(v, s.dtype, f"T.scan identity #{i}") for i, (v, s) in enumerate(zip(ids, inputs))]
    for i, (iv, s) in enumerate(zip(idv, inputs)):
        if iv.type != s.dtype:
            raise error(f"T.scan identity #{i} has type {iv.type} but the input elements are {s.dtype.name}")
    if not isinstance(exclusive, bool) or not isinstance(reverse, bool):
        raise error("T.scan exclusive= and reverse= are Python bools")
    schema = [(s.dtype, ()) for s in inputs]
    block, _ = trace_region("T.scan combine", schema * 2, combine, schema, effects="none")
    flags = (" exclusive" if exclusive else "") + (" reverse" if reverse else "")
    b = _b()
    names = b.emit(f"kir.scan {', '.join(v.name for v in inputs)} axis {ax} identity({', '.join(v.name for v in idv)} : "
                   f"{_types_list(idv)}){flags} : ({_types_list(inputs)}) -> ({_types_list(inputs)})",
                   len(inputs), regions=[("", block)])
    res = [Value(n, s.type, b.scope, s.axes) for n, s in zip(names, inputs)]
    return res[0] if len(res) == 1 and not isinstance(x, (tuple, list)) else tuple(res)


def _prep_scan_input(x, acc_dtype, what):
    x = as_value(x, None, what)
    if not x.is_tensor:
        raise error(f"{what} needs a tensor, got the {x.describe()}")
    if acc_dtype is not None:
        x = cast(x, acc_dtype)
    return x


def cumsum(x, axis=-1, exclusive=False, reverse=False, acc_dtype=None):
    x = _prep_scan_input(x, acc_dtype, "T.cumsum")
    if x.dtype.is_bool:
        raise error("T.cumsum of a bool tensor: cast it to an integer type first")
    return scan(x, axis, 0, _BUILTIN_COMBINE["add"], exclusive, reverse)


def cummax(x, axis=-1, exclusive=False, reverse=False, acc_dtype=None):
    x = _prep_scan_input(x, acc_dtype, "T.cummax")
    return scan(x, axis, _lowest(x.dtype), _BUILTIN_COMBINE["max"], exclusive, reverse)


def cummin(x, axis=-1, exclusive=False, reverse=False, acc_dtype=None):
    x = _prep_scan_input(x, acc_dtype, "T.cummin")
    return scan(x, axis, _highest(x.dtype), _BUILTIN_COMBINE["min"], exclusive, reverse)


def _default_acc(dt: DType) -> DType:
    if dt.is_float:
        return ty.f64 if dt is ty.f64 else ty.f32
    if dt.is_int:
        return ty.i64 if dt is ty.i64 else ty.i32
    raise error(f"contractions need integer or float operands, got {dt.name}")


def _pairs(spec, what):
    if spec is None:
        return [], []
    spec = list(spec)
    if len(spec) == 2 and all(isinstance(s, int) for s in spec):
        spec = [tuple(spec)]
    lhs, rhs = [], []
    for p in spec:
        if not (isinstance(p, (tuple, list)) and len(p) == 2 and all(isinstance(i, int) for i in p)):
            raise error(f"{what} is a list of (lhs_axis, rhs_axis) pairs, got {spec!r}")
        lhs.append(p[0])
        rhs.append(p[1])
    return lhs, rhs


def contract(a, b, reduce=((1, 0),), batch=(), acc_dtype: DType | None = None, init=None) -> Value:  # noqa: A002
    """Multiply, then add over paired axes: reduce=((lhs_axis, rhs_axis), ...), batch=(...).

    Result axes: lhs axes that are not reduced, then rhs axes neither reduced nor batch; the result
    element type is `acc_dtype` (default f32 for float operands). `init` is the value the sum starts
    from (the contraction's only addition)."""
    what = "T.contract"
    a = as_value(a, None, what)
    b = as_value(b, None, what)
    for v in (a, b):
        if not v.is_tensor:
            raise error(f"{what} operands are tensors, got the {v.describe()}")
    _same_dtype([a, b], what)
    lr, rr = _pairs(reduce, f"{what} reduce=")
    lb, rb = _pairs(batch, f"{what} batch=")
    if not lr:
        raise error(f"{what} needs at least one reduce pair")

    def norm(axs, rank, side):
        out = []
        for x in axs:
            n = x + rank if x < 0 else x
            if not 0 <= n < rank:
                raise error(f"{what}: {side} axis {x} is out of range for rank {rank}")
            out.append(n)
        return out

    lr, lb = norm(lr, a.rank, "lhs"), norm(lb, a.rank, "lhs")
    rr, rb = norm(rr, b.rank, "rhs"), norm(rb, b.rank, "rhs")
    if len(set(lr + lb)) != len(lr + lb) or len(set(rr + rb)) != len(rr + rb):
        raise error(f"{what}: an axis is paired twice")
    for kind, ls, rs in (("reduce", lr, rr), ("batch", lb, rb)):
        for x, y in zip(ls, rs):
            if a.axes[x].key != b.axes[y].key:
                raise error(f"{what}: {kind} pair ({x}, {y}) has mismatched extents: lhs axis {x} is over "
                            f"{a.axes[x].desc}, rhs axis {y} over {b.axes[y].desc}")
    acc = acc_dtype or _default_acc(a.dtype)
    if not isinstance(acc, DType):
        raise error(f"{what}: acc_dtype= must be an element type, got {acc!r}")
    lkeep = [i for i in range(a.rank) if i not in lr]
    rkeep = [j for j in range(b.rank) if j not in rr and j not in rb]
    axes = [a.axes[i] for i in lkeep] + [b.axes[j] for j in rkeep]
    rtype = TensorType(acc, [a.type.shape[i] for i in lkeep] + [b.type.shape[j] for j in rkeep])
    init_text, init_type = "", ""
    if init is not None:
        iv = as_value(init, acc, f"{what} init=")
        if iv.dtype is not acc:
            raise error(f"{what} init= has element type {iv.dtype.name} but the accumulator is {acc.name}")
        if not iv.is_tensor:
            iv = broadcast_value(iv, axes, [])
        elif not _same_axes(iv.axes, axes):
            dims = _match_dims(iv.axes, axes) if iv.rank < len(axes) else None
            if dims is None:
                raise error(f"{what} init= is over {_axes_desc(iv.axes)} but the result is over {_axes_desc(axes)}")
            iv = broadcast_value(iv, axes, dims)
        init_text, init_type = f" init {iv.name}", f", {iv.type}"
    f = lambda xs: "[" + ", ".join(map(str, xs)) + "]"
    bld = _b()
    (name,) = bld.emit(f"kir.contract {a.name}, {b.name}{init_text} reduce({f(lr)}, {f(rr)}) batch({f(lb)}, {f(rb)}) : "
                       f"{a.type}, {b.type}{init_type} -> {rtype}", 1)
    return Value(name, rtype, bld.scope, axes)


def dot(a, b, acc_dtype=None) -> Value:
    """The inner product of two rank-1 tensors, a scalar of `acc_dtype`."""
    a, b = as_value(a, None, "T.dot"), as_value(b, None, "T.dot")
    if a.rank != 1 or b.rank != 1:
        raise error(f"T.dot takes two rank-1 tensors, got ranks {a.rank} and {b.rank}")
    r = contract(a, b, ((0, 0),), (), acc_dtype)
    bld = _b()
    (name,) = bld.emit(f"kir.extract {r.name}[] : {r.type}", 1)
    return Value(name, r.dtype, bld.scope)


def matvec(m, v, acc_dtype=None, init=None) -> Value:
    """[..., M, K] x [K] -> [..., M]."""
    m = as_value(m, None, "T.matvec")
    return contract(m, v, ((m.rank - 1, 0),), (), acc_dtype, init)


def vecmat(v, m, acc_dtype=None, init=None) -> Value:
    """[K] x [K, N] -> [N]."""
    return contract(v, m, ((0, 0),), (), acc_dtype, init)


def matmul(a, b, acc_dtype=None, init=None, transpose_lhs=False, transpose_rhs=False) -> Value:
    """[M, K] x [K, N] -> [M, N]; with a leading batch axis on both: [B, M, K] x [B, K, N] -> [B, M, N]."""
    a, b = as_value(a, None, "T.matmul"), as_value(b, None, "T.matmul")
    if a.rank != b.rank or a.rank not in (2, 3):
        raise error(f"T.matmul takes two rank-2 (or two rank-3, batched) tensors, got ranks {a.rank} and {b.rank}; "
                    "use T.vecmat/T.matvec/T.contract for other forms")
    r = a.rank
    ka = r - 2 if transpose_lhs else r - 1
    kb = r - 1 if transpose_rhs else r - 2
    batch = ((0, 0),) if r == 3 else ()
    return contract(a, b, ((ka, kb),), batch, acc_dtype, init)


def outer(a, b) -> Value:
    """[M] x [N] -> [M, N] by broadcast multiplication (no accumulator)."""
    a, b = as_value(a, None, "T.outer"), as_value(b, None, "T.outer")
    if a.rank != 1 or b.rank != 1:
        raise error("T.outer takes two rank-1 tensors")
    _same_dtype([a, b], "T.outer")
    axes = [a.axes[0], b.axes[0]]
    return broadcast_value(a, axes, [0]) * broadcast_value(b, axes, [1])


def histogram(x, bins, valid=None, dtype: DType = ty.i32) -> Value:
    """Counts of the integer values of `x` in the bins of domain `bins` ([0, nbins)); masked by `valid`."""
    x = as_value(x, None, "T.histogram")
    if not x.is_tensor or not x.dtype.is_int:
        raise error(f"T.histogram counts an integer tensor, got the {x.describe()}")
    d = _as_domain(bins, "T.histogram bins=")
    vm = _valid_operand(valid, x.axes, "T.histogram")
    if vm is not None and not vm.is_tensor:
        vm = broadcast_value(vm, x.axes, [], ref=x)
    rtype = TensorType(dtype, [None])
    vt = f" valid {vm.name}" if vm is not None else ""
    vty = f", {vm.type}" if vm is not None else ""
    b = _b()
    (name,) = b.emit(f"kir.histogram {x.name} bins({d.name}){vt} : {x.type}{vty} -> {rtype}", 1)
    return Value(name, rtype, b.scope, [d.axis])


# --- region fold and region scan -----------------------------------------------------------------


def _region_sources(sources, axis, what):
    srcs = _components(sources, f"{what} source")
    if not srcs:
        raise error(f"{what} needs at least one source")
    for s in srcs:
        if not s.is_tensor:
            raise error(f"{what} sources are tensors, got the {s.describe()}")
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise error(f"{what}: axis= is a Python int")
    norm = []
    for s in srcs:
        a = axis + s.rank if axis < 0 else axis
        if not 0 <= a < s.rank:
            raise error(f"{what}: axis {axis} is out of range for the source {s.describe()}")
        norm.append(a)
    if len(set(norm)) != 1:
        raise error(f"{what}: axis {axis} names different positions in sources of different ranks; use a non-negative axis")
    ax = norm[0]
    key = srcs[0].axes[ax].key
    for s in srcs[1:]:
        if s.axes[ax].key != key:
            raise error(f"{what}: every source must share one extent on the folded axis; "
                        f"{srcs[0].axes[ax].desc} vs {s.axes[ax].desc}")
    return srcs, ax


def _slice_specs(srcs, ax, amap: _AxisMap, what: str):
    outer_axis = srcs[0].axes[ax]
    slice_axis = Axis(f"r{next(_uid)}", None, f"slice of {outer_axis.desc}")
    amap.back[slice_axis.key] = outer_axis
    specs = []
    for s in srcs:
        inner = tuple(slice_axis if i == ax else amap.inner(a) for i, a in enumerate(s.axes))
        t = TensorType(s.dtype, [None if i == ax else d for i, d in enumerate(s.type.shape)])
        specs.append((t, inner))
    return specs, slice_axis


def _identity_values(identity, what):
    vals = _components(identity, f"{what} identity")
    if not vals:
        raise error(f"{what} needs an identity (one value per summary component)")
    return vals


def _operand_values(operands, what):
    out = []
    for i, v in enumerate(_as_tuple(operands)):
        if isinstance(v, (View, Domain, Buffer)):
            raise error(f"{what} operand #{i} is a {v.describe()}; operands are scalars, tensors and records")
        out.append(as_value(v, None, f"{what} operand #{i}", default_float=ty.f32))
    return out


def _results_outer(specs_inner, amap: _AxisMap, what, loc):
    out = []
    for t, axes in specs_inner:
        if isinstance(t, RecordType):
            fa = []
            for axs in axes:
                fa.append(tuple(_outer_axis(a, amap, what, loc) for a in axs))
            out.append((t, tuple(fa)))
        else:
            out.append((t, tuple(_outer_axis(a, amap, what, loc) for a in axes)))
    return out


def _outer_axis(a: Axis, amap: _AxisMap, what, loc):
    o = amap.back.get(a.key)
    if o is None:
        raise error(f"{what}: an output axis ({a.desc}) has no counterpart outside the region; outputs may only "
                    "use the axes of the sources, operands and identities", loc)
    return o


def _result_value(name, t, axes, scope):
    if isinstance(t, RecordType):
        return _make(name, t, scope, field_axes=axes)
    return Value(name, t, scope, axes if isinstance(t, TensorType) else ())


def region_fold(sources, axis, identity, summarize, combine, operands=()):
    """A list homomorphism over one ordered source axis.

    `summarize(*slices, *operands)` maps contiguous slices of the sources to a summary (one value per
    identity component); `combine(*earlier, *later)` merges two summaries; an empty source gives
    `identity`. Regions are closed: runtime values enter through `operands=`. Returns the summary
    (a tuple when the identity is a tuple)."""
    what = "T.region_fold"
    srcs, ax = _region_sources(sources, axis, what)
    ids = _identity_values(identity, what)
    ops = _operand_values(operands, what)
    amap = _AxisMap("region_fold")
    slice_specs, _ = _slice_specs(srcs, ax, amap, what)
    op_specs = [amap.spec(v) for v in ops]
    sum_specs = [amap.spec(v) for v in ids]
    sblock, _ = trace_region("T.region_fold summarize", slice_specs + op_specs, summarize, sum_specs, effects="read")
    cblock, _ = trace_region("T.region_fold combine", sum_specs * 2, combine, sum_specs, effects="none")
    b = _b()
    ops_text = f" operands({', '.join(v.name for v in ops)} : {_types_list(ops)})" if ops else ""
    names = b.emit(f"kir.region_fold sources({', '.join(v.name for v in srcs)} : {_types_list(srcs)}) axis {ax} "
                   f"identity({', '.join(v.name for v in ids)} : {_types_list(ids)}){ops_text} -> ({_types_list(ids)})",
                   len(ids), regions=[("summarize", sblock), ("combine", cblock)])
    res = [_result_value(n, v.type, _spec_of(v)[1], b.scope) for n, v in zip(names, ids)]
    return res[0] if len(res) == 1 and not isinstance(identity, (tuple, list)) else tuple(res)


def region_scan(sources, axis, identity, init, summarize, combine, apply, emit, operands=()):
    """An ordered segmented scan with state.

    `summarize(*slices, *operands)` gives a slice's transition (schema of `identity`);
    `combine(*earlier, *later)` composes transitions; `apply(*transition, *state)` advances a state
    (schema of `init`); `emit(*slices, *incoming_state, *operands)` gives the slice's outputs, which
    keep the slice axis as their leading axis. Returns (outputs, final_state), each a tuple."""
    what = "T.region_scan"
    srcs, ax = _region_sources(sources, axis, what)
    ids = _identity_values(identity, what)
    inits = _components(init, f"{what} init")
    if not inits:
        raise error(f"{what} needs an initial state (init=)")
    ops = _operand_values(operands, what)
    amap = _AxisMap("region_scan")
    slice_specs, slice_axis = _slice_specs(srcs, ax, amap, what)
    op_specs = [amap.spec(v) for v in ops]
    tr_specs = [amap.spec(v) for v in ids]
    st_specs = [amap.spec(v) for v in inits]
    sblock, _ = trace_region("T.region_scan summarize", slice_specs + op_specs, summarize, tr_specs, effects="read")
    cblock, _ = trace_region("T.region_scan combine", tr_specs * 2, combine, tr_specs, effects="none")
    ablock, _ = trace_region("T.region_scan apply", tr_specs + st_specs, apply, st_specs, effects="none")
    eloc = _fn_loc(emit)
    eblock, outs = trace_region("T.region_scan emit", slice_specs + st_specs + op_specs, emit, None, effects="read")
    if not outs:
        raise error(f"{what}: emit returns no outputs; an outputless region scan is a T.region_fold", eloc)
    for i, o in enumerate(outs):
        if not o.is_tensor or o.axes[0].key != slice_axis.key:
            raise error(f"{what}: emit output #{i} must keep the slice axis as its leading axis, got the {o.describe()}",
                        eloc)
    out_specs = _results_outer([(o.type, o.axes) for o in outs], amap, what, eloc)
    b = _b()
    ops_text = f" operands({', '.join(v.name for v in ops)} : {_types_list(ops)})" if ops else ""
    out_types = ", ".join(str(t) for t, _ in out_specs)
    names = b.emit(f"kir.region_scan sources({', '.join(v.name for v in srcs)} : {_types_list(srcs)}) axis {ax} "
                   f"identity({', '.join(v.name for v in ids)} : {_types_list(ids)}) "
                   f"init({', '.join(v.name for v in inits)} : {_types_list(inits)}){ops_text} -> ({out_types}) "
                   f"final ({_types_list(inits)})", len(outs) + len(inits),
                   regions=[("summarize", sblock), ("combine", cblock), ("apply", ablock), ("emit", eblock)])
    outputs = tuple(_result_value(n, t, a, b.scope) for n, (t, a) in zip(names, out_specs))
    finals = tuple(_result_value(n, v.type, _spec_of(v)[1], b.scope) for n, v in zip(names[len(outs):], inits))
    return outputs, finals


# ---------------------------------------------------------------------------------------------
# Pointwise helpers with options
# ---------------------------------------------------------------------------------------------


def maximum(a, b, propagate_nan: bool = True) -> Value:
    return binary("max" if propagate_nan else "max_num", a, b, _op="T.maximum")


def minimum(a, b, propagate_nan: bool = True) -> Value:
    return binary("min" if propagate_nan else "min_num", a, b, _op="T.minimum")


def fdiv(a, b, approximate: bool = False, flush_to_zero: bool = False) -> Value:
    return binary("div", a, b, approximate, flush_to_zero, _op="/")


# ---------------------------------------------------------------------------------------------
# Control: parallel, for, if, while
# ---------------------------------------------------------------------------------------------


class parallel:
    """Unordered iteration: `for i in T.parallel(d):` (or `with T.parallel(d) as i:`).

    The body is traced once; it runs once per member, in any order, with no carries. Several
    domains give a tuple of indices."""

    def __init__(self, *domains):
        if not domains:
            raise error("T.parallel needs at least one domain")
        self._loc = user_loc()
        self._domains = [_as_domain(d, "T.parallel") for d in domains]
        self._state = 0
        self._scope = None

    def _open(self):
        b = _b()
        scope = Scope(b.scope, "T.parallel body", False, self._loc)
        b.push(scope)
        self._scope = scope
        idx = []
        for _ in self._domains:
            v = Value(b.fresh(), ty.index, scope, (), self._loc)
            idx.append(v)
        self._idx = idx
        return idx[0] if len(idx) == 1 else tuple(idx)

    def _close(self):
        b = _b()
        scope = self._scope
        if b.scope is not scope:
            _unclosed(b.scope)
        b.emit("kir.yield", 0, loc=self._loc)
        b.pop(scope)
        block = Block([(v.name, "index") for v in self._idx], scope.ops)
        b.emit(f"kir.parallel {', '.join(d.name for d in self._domains)}", 0, regions=[("", block)], loc=self._loc)

    def __iter__(self):
        return self

    def __next__(self):
        if self._state == 0:
            self._state = 1
            return self._open()
        if self._state == 1:
            self._state = 2
            self._close()
        raise StopIteration

    def __enter__(self):
        if self._state != 0:
            raise error("a T.parallel object is used once")
        self._state = 1
        return self._open()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self._state = 2
            self._close()
        return False


def _carry_values(init, what):
    vals = []
    for i, v in enumerate(_as_tuple(init)):
        vals.append(as_value(v, None, f"{what} initial carry #{i}", default_float=ty.f32))
    return vals


def for_(domain, init=(), body=None):
    """Ordered iteration over `domain` with carries: `body(i, *carries) -> next carries`.

    Returns the final carries (a single value when `init` is a single value). Usable as a decorator:
    `@T.for_(d, init=zero)` over `def step(i, acc): ...` binds the result to the function's name."""
    if body is None:
        return lambda fn: for_(domain, init, fn)
    what = "T.for_"
    loc = user_loc()
    d = _as_domain(domain, what)
    carries = _carry_values(init, what)
    specs = [_spec_of(v) for v in carries]
    b = _b()
    block, res = trace_region("T.for_ body", specs, body, specs, effects="any", closed=False,
                              leading_args=[(ty.index, ())])
    iter_text = (f" iter_args({', '.join(v.name for v in carries)} : {_types_list(carries)}) -> {_types_list(carries)}"
                 if carries else "")
    names = b.emit(f"kir.for {d.name}{iter_text}", len(carries), regions=[("", block)], loc=loc)
    out = tuple(_result_value(n, v.type, _spec_of(v)[1], b.scope) for n, v in zip(names, carries))
    if not isinstance(init, (tuple, list)):
        return out[0] if out else None
    return out


def if_(cond, then, else_=None):
    """Runtime conditional: `then()` / `else_()` return the results (same types). A Python bool
    condition (e.g. a constexpr) is resolved at trace time."""
    if isinstance(cond, bool):
        if cond:
            return then()
        return else_() if else_ is not None else None
    loc = user_loc()
    c = as_value(cond, None, "T.if_ condition")
    if c.is_tensor or not c.dtype.is_bool:
        raise error(f"T.if_ needs a scalar bool (i1) condition, got the {c.describe()}; "
                    "choose between tensors element-wise with T.where")
    b = _b()
    raw = []

    def then_w():
        r = then()
        raw.append(r)
        return r

    tblock, tres = trace_region("T.if_ branch", [], then_w, None, effects="any", closed=False)
    single = not isinstance(raw[0], (tuple, list))
    if else_ is None:
        if tres:
            raise error("T.if_ with results needs an else_ branch giving the same types", loc)
        b.emit(f"kir.if {c.name}", 0, regions=[("", tblock)], loc=loc)
        return None
    specs = [_spec_of(v) for v in tres]
    eblock, _ = trace_region("T.if_ branch", [], lambda: else_(), specs, effects="any", closed=False)
    rt = f" -> {_types_list(tres)}" if tres else ""
    names = b.emit(f"kir.if {c.name}{rt}", len(tres), regions=[("", tblock), ("else", eblock)], loc=loc)
    out = tuple(_result_value(n, v.type, _spec_of(v)[1], b.scope) for n, v in zip(names, tres))
    if not out:
        return None
    return out[0] if len(out) == 1 and single else out


def while_(init, cond, body):
    """Ordered while loop with carries: while `cond(*carries)` holds, `carries = body(*carries)`.

    Returns the final carries (a single value when `init` is a single value)."""
    what = "T.while_"
    loc = user_loc()
    carries = _carry_values(init, what)
    if not carries:
        raise error("T.while_ needs at least one carry (init=)")
    specs = [_spec_of(v) for v in carries]
    b = _b()

    def term(results):
        return f"kir.condition {results[0].name}, " + ", ".join(v.name for v in fwd) + " : " + _types_list(fwd)

    fwd = []

    def before(*args):
        fwd.extend(args)
        c = cond(*args)
        c = as_value(c, ty.i1, "T.while_ condition")
        if c.is_tensor or not c.dtype.is_bool:
            raise error(f"T.while_ cond must return a scalar bool (i1), got the {c.describe()}")
        return c

    bblock, _ = trace_region("T.while_ condition", specs, before, [(ty.i1, ())], effects="any", closed=False,
                             terminator=term)
    dblock, _ = trace_region("T.while_ body", specs, body, specs, effects="any", closed=False)
    names = b.emit(f"kir.while ({', '.join(v.name for v in carries)} : {_types_list(carries)}) -> {_types_list(carries)}",
                   len(carries), regions=[("", bblock), ("do", dblock)], loc=loc)
    out = tuple(_result_value(n, v.type, _spec_of(v)[1], b.scope) for n, v in zip(names, carries))
    return out if isinstance(init, (tuple, list)) else out[0]


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
            from . import _pycontrol
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


_OPTIONS = ("numerics", "online_reduction", "optimization_remarks")


def _options_text(opts: dict) -> str:
    parts = []
    if opts.get("numerics") is not None:
        if opts["numerics"] not in ("source", "relaxed_normalization"):
            raise error(f"numerics= is 'source' or 'relaxed_normalization', got {opts['numerics']!r}")
        parts.append(f"numerics = {opts['numerics']}")
    for k in ("online_reduction", "optimization_remarks"):
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
    b = Builder(name, kloc)
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
            arg_text.append(f"%{p.name}: {v.type}{attr}")
        elif p.kind == "scalar":
            v = Value(f"%{p.name}", p.spec, b.root, (), kloc)
            v.pro = True
            args.append(v)
            arg_text.append(f"%{p.name}: {p.spec.name}")
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
    from . import _pycontrol
    run = _pycontrol.rewritten(fn)
    _STATE.builder = b
    try:
        result = run(*args)
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
    lines.append("}")
    return "\n".join(lines) + "\n"
