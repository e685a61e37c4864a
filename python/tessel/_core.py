"""The values a kernel body computes with: traced SSA values (scalars and logical tensors with axis
provenance), domains, records, views (kernel parameters) and buffers. Like Triton's
`language/core.py`: what the author holds. Their operators and accessors call the operations of the
trace in progress, which its builder carries (`_ir.Builder.semantic`, set by `_jit.trace_kernel`), so
this module does not import the operations that build values of its classes.
"""
from __future__ import annotations

from . import _types as ty
from ._errors import Loc, error, user_loc
from ._types import DOMAIN_TYPE, DType, RecordType, TensorType
from ._ir import Axis, Scope, _axes_desc, _b


# ---------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------


def _dtype_of(t):
    if isinstance(t, DType):
        return t
    if isinstance(t, TensorType):
        return t.dtype
    return None


def _semantic():
    """The operations of the trace in progress (see the module docstring)."""
    return _b().semantic


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
    def __add__(self, o): return _semantic().binary("add", self, o)
    def __radd__(self, o): return _semantic().binary("add", o, self)
    def __sub__(self, o): return _semantic().binary("sub", self, o)
    def __rsub__(self, o): return _semantic().binary("sub", o, self)
    def __mul__(self, o): return _semantic().binary("mul", self, o)
    def __rmul__(self, o): return _semantic().binary("mul", o, self)
    def __truediv__(self, o): return _semantic().binary("div", self, o, _op="/")
    def __rtruediv__(self, o): return _semantic().binary("div", o, self, _op="/")
    def __floordiv__(self, o): return _semantic().binary("div", self, o, _op="//")
    def __rfloordiv__(self, o): return _semantic().binary("div", o, self, _op="//")
    def __mod__(self, o): return _semantic().binary("rem", self, o)
    def __rmod__(self, o): return _semantic().binary("rem", o, self)
    def __pow__(self, o): return _semantic().binary("pow", self, o)
    def __rpow__(self, o): return _semantic().binary("pow", o, self)
    def __and__(self, o): return _semantic().binary("and", self, o)
    def __rand__(self, o): return _semantic().binary("and", o, self)
    def __or__(self, o): return _semantic().binary("or", self, o)
    def __ror__(self, o): return _semantic().binary("or", o, self)
    def __xor__(self, o): return _semantic().binary("xor", self, o)
    def __rxor__(self, o): return _semantic().binary("xor", o, self)
    def __lshift__(self, o): return _semantic().binary("shl", self, o)
    def __rshift__(self, o): return _semantic().binary("shr", self, o)
    def __neg__(self): return _semantic().unary("neg", self)
    def __abs__(self): return _semantic().unary("abs", self)
    def __invert__(self): return _semantic().unary("not", self)
    def __pos__(self): return self

    def __lt__(self, o): return _semantic().compare("lt", self, o)
    def __le__(self, o): return _semantic().compare("le", self, o)
    def __gt__(self, o): return _semantic().compare("gt", self, o)
    def __ge__(self, o): return _semantic().compare("ge", self, o)

    def __eq__(self, o):
        if not isinstance(o, (Value, int, float, bool)):
            return NotImplemented
        return _semantic().compare("eq", self, o)

    def __ne__(self, o):
        if not isinstance(o, (Value, int, float, bool)):
            return NotImplemented
        return _semantic().compare("ne", self, o)

    # --- tensor helpers ----------------------------------------------------------------------------
    def __getitem__(self, idx):
        """`t[i, j]` with index scalars extracts one element (kir.extract)."""
        return _semantic().extract(self, *(idx if isinstance(idx, tuple) else (idx,)))

    def cast(self, dtype: DType) -> "Value":
        return _semantic().cast(self, dtype)

    @property
    def T(self) -> "Value":
        return _semantic().transpose(self)


class Domain(Value):
    """A half-open logical domain (or a source-derived subregion of one)."""

    def __init__(self, name, scope, key, desc, loc, lo=None, hi=None, step=1, source=None):
        super().__init__(name, DOMAIN_TYPE, scope, (), loc)
        self.key, self.desc, self.lo, self.hi, self.step, self.source = key, desc, lo, hi, step, source
        self.length = None  # the affine form of its member count, for step 1 (set by the trace)

    def describe(self):
        return f"domain {self.desc}"

    def __getitem__(self, sl):
        if not isinstance(sl, slice) or sl.step is not None:
            raise error(f"a subregion is written d[begin:end] with index bounds, got {sl!r}")
        return _semantic().subregion(self, sl.start, sl.stop)

    def __iter__(self):
        raise error(f"iterate a domain with `for i in T.parallel({self.desc})` (unordered), or with an ordinary "
                    "`for i in domain:` in a @tessel.kernel/@tessel.fn body or T.for_(domain, init, body) "
                    "(ordered, with carries)")

    def indices(self) -> Value:
        return _semantic().indices(self)

    @property
    def axis(self) -> Axis:
        return Axis(self.key, self, self.desc)


class Record(Value):
    """A record value: named fields read as attributes (`r.m`)."""

    def field(self, name: str) -> Value:
        return _semantic().record_get(self, name)

    def __getattr__(self, name):
        if name.startswith("_") or name not in self.type.names:
            raise AttributeError(name)
        return _semantic().record_get(self, name)


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
        return tuple(e if isinstance(e, int) else _semantic().extent(e) for e in self.spec.extents)

    def domain(self, axis: int) -> Domain:
        """The full domain [0, extent) of one axis."""
        return _semantic().domain(0, self.shape[axis])

    def relation(self, d) -> Value:
        return _semantic().index_relation(self, d)

    def describe(self):
        return f"view '{self.pyname}'"

    def __getitem__(self, key):
        return _semantic().load(self, key)

    def __setitem__(self, key, value):
        _semantic().store(self, key, value)

    def __bool__(self):
        raise error(f"view '{self.pyname}' is used as a Python condition")

    def __repr__(self):
        return f"<tessel view {self.pyname}: {self.type}>"

# --- buffers -------------------------------------------------------------------------------------


class Buffer:
    """A kernel-local logical buffer over some domains; index it like a view."""

    def __init__(self, name, type_, scope, domains, dtype):
        self.name, self.type, self.scope, self.domains, self.dtype = name, type_, scope, domains, dtype
        self.pyname = f"buffer {name}"

    def describe(self):
        return f"buffer {self.name}"

    def __getitem__(self, key):
        return _semantic().buffer_load(self, key)

    def __setitem__(self, key, value):
        _semantic().buffer_store(self, key, value)
