"""The operations on values, each appending KIR ops to the innermost open region (Triton's
`language/semantic.py`): scoping and effect checks, constants and coercions, broadcasting by axis
provenance, pointwise math, comparisons, extents, domains and shape ops, records, loads and stores
(gathers, scatters, masks), buffers and atomics.
"""
from __future__ import annotations

import math

from . import _types as ty
from ._errors import error, user_loc, user_text
from ._types import DOMAIN_TYPE, BufferType, DType, RecordType, TensorType
from ._ir import Axis, _axes_desc, _b
from ._core import Buffer, Domain, Record, Undefined, Value, View, _make


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
    text = f"arith.constant {literal}" if dtype.is_bool else f"arith.constant {literal} : {dtype.mlir}"
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
    """Result axes of `big` that the axes of `small` become (order kept, rightmost first), or None.
    Same domains first; only when they do not match, slices of one length (`_axis_match`)."""
    for same in (lambda x, y: x.key == y.key, _axis_match):
        dims = [0] * len(small)
        j = len(big) - 1
        for i in range(len(small) - 1, -1, -1):
            while j >= 0 and not same(big[j], small[i]):
                j -= 1
            if j < 0:
                break
            dims[i] = j
            j -= 1
        else:
            return dims
    return None


def _axis_len(a):
    d = a.domain
    return getattr(d, "length", None) if d is not None else None


def _axis_match(x, y) -> bool:
    """Axes that combine element-wise: the same domain, or a slice and a step-1 domain (or another
    slice) whose lengths have one affine form (`dims[0:H]`, `dims[H:2 * H]`, `T.domain(0, H)`): a
    slice is a domain of its own length re-based at 0, so they pair by position."""
    if x.key == y.key:
        return True
    if x.domain is None or y.domain is None or (x.domain.source is None and y.domain.source is None):
        return False
    lx, ly = _axis_len(x), _axis_len(y)
    return lx is not None and lx == ly


def _same_axes(a, b) -> bool:
    return len(a) == len(b) and all(_axis_match(x, y) for x, y in zip(a, b))


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
                first, second = (v, big) if next(x for x in vals if x is v or x is big) is v else (big, v)
                raise _mismatch(opname, first.axes, second.axes, "one operand is over {a} and another over {b}")
            out.append(broadcast_value(v, big.axes, dims, ref=big))
    return out


def _len_desc(a) -> str:
    n = _axis_len(a)
    return f"{_form_desc(n)} members" if n is not None else "an extent of its own"


def _mismatch(opname: str, a, b, head: str):
    """The mismatched-extents error, led by the author's expression (`x1 * cos`) and naming the first
    axis where the two differ and the lengths of both."""
    text = user_text()
    lead = f"`{text}`" if text else opname
    msg = f"{lead}: mismatched extents: " + head.format(a=_axes_desc(a), b=_axes_desc(b))
    if len(a) == len(b):
        i = next(i for i, (x, y) in enumerate(zip(a, b)) if not _axis_match(x, y))
        msg += (f"; they differ at axis {i}: {a[i].desc} has {_len_desc(a[i])}, {b[i].desc} has "
                f"{_len_desc(b[i])}")
    return error(msg + ". Equal extents need the same domain (shared shape symbols) or step-1 domains whose "
                 "lengths have one expression, a slice counting as a domain re-based at 0 (`dims[H:2 * H]` pairs "
                 "with `dims[0:H]` and `T.domain(0, H)`); a lower-rank operand must match some of the other's axes "
                 "in order; values over different domains pair as an outer product only once each is broadcast to "
                 "the joint domain (`T.broadcast(a, over=(rows, cols), dims=[0])`)")


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
_FLOAT_UNARY = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sigmoid", "tanh", "sin", "cos", "erf", "floor", "ceil", "round",
                "log1p", "expm1"}
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
    r = Value(name, a.type, bld.scope, a.axes)
    if dt.is_index and not a.is_tensor:
        r.lin = _index_form(kind, a, b)
        if r.lin is None:
            _name_atom(r)
    elif dt.is_int and not a.is_tensor:
        _name_atom(r)  # an i32 slice bound (`col[e] * 64`) reads as written once cast to index
    return r


def _name_atom(v: Value):
    """Remember how the author wrote an opaque index value (`offsets[b]`), for descriptions."""
    text = user_text(40)
    if text:
        _atoms()[f"v{v.name}"] = text


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


def where(cond, a, b, dtype: DType | None = None) -> Value:
    """`dtype` types branches given as Python numbers (needed when neither branch is traced:
    `T.where(c, 1.0, 0.0, dtype=T.f32)`); a traced branch keeps its own type."""
    if dtype is not None and not isinstance(dtype, DType):
        raise error(f"T.where(..., dtype=) needs an element type such as T.f32, got {dtype!r}")
    if isinstance(cond, bool):  # a constexpr condition: resolved now
        return a if cond else b
    cond = as_value(cond, None, "T.where condition")
    if not cond.dtype.is_bool:
        raise error(f"T.where needs an i1 (bool) condition, got {cond.dtype.name}; compare first, e.g. x > 0")
    if dtype is None and not any(isinstance(v, Value) for v in (a, b)):
        raise error("T.where: both branches are Python numbers, whose element type is not known; "
                    "give it with dtype=, e.g. T.where(c, 1.0, 0.0, dtype=T.f32)")
    a, b = _coerce_operands([a, b], "T.where", dtype)
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
    seen = _atoms().get(f"v{x.name}") if not x.is_tensor else None
    if seen:
        _atoms()[f"v{name}"] = seen  # an i32 bound converted to index reads as the i32 did
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


# --- index expressions as affine forms --------------------------------------------------------
# An index scalar's value as a sum of integer multiples of atoms plus a constant: {atom: coeff},
# the constant under "". Atoms are extents (by symbol), opaque runtime values (by SSA name) and
# products or floor quotients the form cannot expand (by their canonical text). Two lengths with
# one form are equal for every binding of the extents; that is how slices are matched (`_axis_len`).

def _form(v: Value) -> dict:
    f = getattr(v, "lin", None)
    if f is not None:
        return f
    if v.const is not None:
        return {"": int(v.const)} if v.const else {}
    if v.symbol:
        return {f"x:{v.symbol}": 1}
    return {f"v{v.name}": 1}


def _atoms() -> dict:
    """Canonical atom -> how the author reads it (`D//2`, `offsets[b]`), per trace."""
    b = _b()
    d = getattr(b, "atom_desc", None)
    if d is None:
        d = b.atom_desc = {}
    return d


def _form_key(f: dict) -> str:
    return " + ".join(f"{c}*{a}" for a, c in sorted(f.items())) or "0"


def _form_desc(f: dict) -> str:
    def atom(a):
        if a.startswith("x:"):
            return a[2:]
        return _atoms().get(a, "a runtime value" if a.startswith("v") else a[1:])  # never an SSA id
    order = {"x": 0, "v": 1, "(": 2, "": 3}  # extents, runtime values, quotients, the constant
    terms = [(a, c) for a, c in sorted(f.items(), key=lambda t: (order[t[0][:1]], t[0])) if c]
    out = ""
    for a, c in terms:
        mag = abs(c)
        t = str(mag) if a == "" else (atom(a) if mag == 1 else f"{mag}*{atom(a)}")
        out += (("-" if c < 0 else "") + t) if not out else ((" - " if c < 0 else " + ") + t)
    return out or "0"


def _form_add(a: dict, b: dict, k: int = 1) -> dict:
    out = dict(a)
    for atom, c in b.items():
        out[atom] = out.get(atom, 0) + k * c
        if out[atom] == 0:
            del out[atom]
    return out


def _form_atom(f: dict, op: str, c) -> dict:
    inner = _form_desc(f)
    inner = inner if len(f) == 1 and "" not in f and list(f.values())[0] == 1 else f"({inner})"
    atom = f"({_form_key(f)}){op}{c}"
    _atoms()[atom] = f"{inner}{op}{c}"
    return {atom: 1}


def _index_form(kind: str, a: Value, b: Value):
    """The affine form of `a kind b` on index scalars, or None (an opaque value)."""
    fa, fb = _form(a), _form(b)
    const_b = set(fb) <= {""}
    const_a = set(fa) <= {""}
    if kind == "add":
        return _form_add(fa, fb)
    if kind == "sub":
        return _form_add(fa, fb, -1)
    if kind == "mul" and (const_a or const_b):
        k, f = (fb.get("", 0), fa) if const_b else (fa.get("", 0), fb)
        return {atom: c * k for atom, c in f.items()} if k else {}
    if kind == "div" and const_b and fb.get("", 0) > 0:
        c = fb[""]
        if all(v % c == 0 for v in fa.values()):  # floor of an exact quotient
            return {atom: v // c for atom, v in fa.items()}
        return _form_atom(fa, "//", c)
    if kind == "rem" and const_b and fb.get("", 0) > 0:
        return _form_atom(fa, "%", fb[""])
    return None


def _idesc(v: Value) -> str:
    if v.const is not None:
        return str(v.const)
    if v.symbol:
        return v.symbol
    if getattr(v, "lin", None) is not None:
        return _form_desc(v.lin)
    return _atoms().get(f"v{v.name}", f"a runtime value (line {v.loc.line})")  # never an SSA id


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
    d.length = _form_add(_form(hi), _form(lo), -1) if step == 1 else None
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


def _check_subregion_bound(d: Domain, v: Value, what: str):
    """Subregion bounds are coordinates of the domain, not Python positions: a bound known at trace
    time must lie in [lo, hi] of the domain where those are known too. A negative one is rejected
    (rather than read as counted from the end, which a runtime bound could not follow)."""
    c = v.const
    if c is None:
        return
    text = user_text()
    head = f"`{text}`: " if text else ""
    if c < 0:
        raise error(f"{head}the subregion {what} {c} is negative: subregion bounds are coordinates of the domain "
                    f"{d.desc}, not Python positions counted from the end (negative bounds are not supported); "
                    f"write the coordinate, e.g. d[hi - 1:hi] with hi the domain's upper bound (`cols[N - 1:N]`)")
    lo = d.lo.const if d.lo is not None else None
    hi = d.hi.const if d.hi is not None else None
    if (lo is not None and c < lo) or (hi is not None and c > hi):
        raise error(f"{head}the subregion {what} {c} lies outside the domain {d.desc}: subregion bounds are "
                    "coordinates of the domain and are not clamped")


def subregion(d: Domain, begin=None, end=None) -> Domain:
    d = use(d, "subregion")
    bv = _index_operand(begin, "subregion begin") if begin is not None else (
        d.lo if d.lo is not None else const(0, ty.index))
    ev = _index_operand(end, "subregion end") if end is not None else d.hi
    if ev is None:
        raise error("a subregion of a subregion needs an explicit end")
    if begin is not None:
        _check_subregion_bound(d, bv, "begin")
    if end is not None:
        _check_subregion_bound(d, ev, "end")
    key = f"{d.key}[{_ikey(bv)}:{_ikey(ev)}]"
    desc = f"{d.desc}[{_idesc(bv)}:{_idesc(ev)}]"
    b = _b()
    hoist = _hoistable(d, bv, ev)
    root = b.scope.root
    if hoist and ("domain", key) in root.cache:
        return root.cache[("domain", key)]
    (name,) = b.emit(f"kir.subregion {d.name}[{bv.name} : {ev.name}]", 1, hoist=hoist)
    s = Domain(name, root if hoist else b.scope, key, desc, user_loc(), bv, ev, d.step, source=d)
    s.length = _form_add(_form(ev), _form(bv), -1) if d.step == 1 else None
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



def _coords(target, key, rank: int, full_domain, what: str, joint: list | None = None):
    """(coordinate values, their type strings, result axes, has index tensors).

    Index tensors that share an axis index jointly (NumPy's advanced indexing with broadcast index
    arrays, by axis identity instead of position): they are broadcast to the union of their axes and
    read one element each per access element; a domain coordinate over one of those axes joins them
    as the index tensor of its members. `joint` (a list, for gathers, scatters and scatter-reduces)
    receives the KIR `joint` entries: -1, or the coordinate a paired coordinate shares its axes with."""
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
    if gathered:
        vals, types, axes = _pair_index_coords(vals, types, what, joint)
    return vals, types, axes, gathered


def _pair_index_coords(vals, types, what: str, joint: list | None):
    """Groups index-tensor coordinates that share axes (and domains over those axes) into joint pairs:
    (values, type strings, result axes) with the pairs broadcast to their group's axes."""
    n = len(vals)
    tensor_at = [i for i, v in enumerate(vals) if isinstance(v, Value) and v.is_tensor]
    own = {i: ([vals[i].axis] if isinstance(vals[i], Domain) else list(vals[i].axes)) for i in range(n)
           if isinstance(vals[i], Domain) or i in tensor_at}
    group = list(range(n))

    def find(i):
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    for a in own:
        for c in own:
            if a < c and (a in tensor_at or c in tensor_at) and \
                    any(x.key == y.key for x in own[a] for y in own[c]):
                group[find(c)] = find(a)
    members = {}
    for i in own:
        members.setdefault(find(i), []).append(i)
    if all(len(m) == 1 for m in members.values()):
        axes = [x for i in range(n) if i in own for x in own[i]]
        if joint is not None:
            joint[:] = [-1] * n
        return vals, types, axes
    if joint is None:
        raise error(f"{what}: index tensors over a shared axis index jointly (element by element), which "
                    "reads, stores and T.scatter_reduce support but atomics and buffers do not yet; give each "
                    "index tensor its own axes, or write the access inside a T.parallel with scalar coordinates")
    vals, types, entries, axes = list(vals), list(types), [-1] * n, []
    for i in range(n):
        if i not in own:
            continue
        m = members[find(i)]
        if len(m) == 1:
            axes.extend(own[i])
            continue
        if i != m[0]:
            entries[i] = m[0]
            continue
        union = []
        for j in m:
            for x in own[j]:
                if not any(x.key == u.key for u in union):
                    union.append(x)
        for j in m:
            v = indices(vals[j]) if isinstance(vals[j], Domain) else vals[j]
            if not _same_axes(v.axes, union):
                dims = _match_dims(v.axes, union)
                if dims is None:
                    raise error(f"{what}: coordinates #{m[0]} and #{j} index jointly over {_axes_desc(union)} but "
                                f"#{j} is over {_axes_desc(v.axes)}, in another order; transpose one of them")
                v = broadcast_value(v, union, dims)
            vals[j], types[j] = v, str(v.type)
        axes.extend(union)
    joint[:] = entries
    return vals, types, axes


def _joint_text(joint) -> str:
    """The KIR `joint` attribute of an access (empty when no coordinates pair)."""
    if not joint or all(j < 0 for j in joint):
        return ""
    return f" {{joint = array<i64: {', '.join(str(j) for j in joint)}>}}"


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
    joint = []
    vals, types, axes, gathered = _coords(view, coords, view.rank, _view_extent(view), what, joint)
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
    (name,) = b.emit(f"{opname} {view.name}[{', '.join(v.name for v in vals)}]{mask_text}{_joint_text(joint)} : "
                     f"{view.type}[{', '.join(types)}] -> {rtype}", 1)
    r = Value(name, rtype, b.scope, axes)
    if not axes and (view.dtype.is_int or view.dtype.is_index):
        _name_atom(r)  # a loaded bound or coordinate reads as `offsets[b]` in messages
    return r


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
        raise _mismatch(what, v.axes, axes, "the value is over {a} but the coordinates are over {b}")
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
    joint = []
    vals, types, axes, gathered = _coords(view, coords, view.rank, _view_extent(view), what, joint)
    v = _store_value(value, axes, view.dtype, what)
    vmask = _valid_operand(valid, axes, what)
    mask_text = f" valid {vmask.name} : {vmask.type}" if vmask is not None else ""
    opname = "kir.scatter" if gathered else "kir.store"
    b = _b()
    b.emit(f"{opname} {v.name}, {view.name}[{', '.join(c.name for c in vals)}]{mask_text}{_joint_text(joint)} : "
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


# ---------------------------------------------------------------------------------------------
# Pointwise helpers with options
# ---------------------------------------------------------------------------------------------


def maximum(a, b, propagate_nan: bool = True) -> Value:
    return binary("max" if propagate_nan else "max_num", a, b, _op="T.maximum")


def minimum(a, b, propagate_nan: bool = True) -> Value:
    return binary("min" if propagate_nan else "min_num", a, b, _op="T.minimum")


def fdiv(a, b, approximate: bool = False, flush_to_zero: bool = False) -> Value:
    return binary("div", a, b, approximate, flush_to_zero, _op="/")
