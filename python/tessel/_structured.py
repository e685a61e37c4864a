"""Structured ops, whose helpers are traced into closed regions: the region tracer itself, then
reductions, scans, contractions, histograms, scatter-reduce, and the region fold and scan.
"""
from __future__ import annotations

import ast
import inspect
import linecache
import math

from . import _types as ty
from ._errors import Loc, _is_internal, error, user_loc, user_text
from ._types import DOMAIN_TYPE, DType, RecordType, TensorType
from ._ir import Axis, Block, Scope, _axes_desc, _b, _uid, _unclosed
from ._core import Buffer, Domain, Record, Value, View, _dtype_of, _make
from ._semantic import (_as_domain, _axis_match, _check_effect, _coords, _joint_text, _len_desc, _match_dims,
                        _same_axes, _same_dtype, _store_value, _valid_operand, _view_extent, as_value, broadcast_value,
                        cast, maximum, minimum, use)


# ---------------------------------------------------------------------------------------------
# Scatter-reduce (its combine is a helper traced into a closed region)
# ---------------------------------------------------------------------------------------------

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
    joint = []
    vals, types, axes, gathered = _coords(view, coords, view.rank, _view_extent(view), what, joint)
    if not gathered:
        _direct_scatter_reduce(view, vals, types, axes, value, combine, valid, what)
        return
    v = _store_value(value, axes, view.dtype, what)
    vmask = _valid_operand(valid, axes, what)
    fn = _BUILTIN_COMBINE.get(combine) if isinstance(combine, str) else combine
    if fn is None or not callable(fn):
        raise error(f"{what}: combine= is one of {', '.join(_BUILTIN_COMBINE)} or a helper function, got {combine!r}")
    dt = view.dtype
    block, _ = trace_region(f"{what} combine", [(dt, ())] * 2, fn, [(dt, ())], effects="none", closed=True)
    mask_text = f" valid {vmask.name} : {vmask.type}" if vmask is not None else ""
    b = _b()
    b.emit(f"kir.scatter_reduce {v.name}, {view.name}[{', '.join(c.name for c in vals)}]{mask_text}"
           f"{_joint_text(joint)} : "
           f"{v.type}, {view.type}[{', '.join(types)}]", 0, regions=[("", block)])
    view.written = True


_DIRECT_COMBINES = ("add", "max", "min", "and", "or", "xor")


def _direct_scatter_reduce(view: View, vals, types, axes, value, combine, valid, what: str):
    """A scatter-reduce at scalar and domain coordinates only (`(v, chans)` with `v = voxel_id[p]` in a
    `T.parallel`, corpus 313): the destinations are direct addresses, yet two members may still name the
    same one, so each update is one relaxed atomic whose old value is unused -- the same write as
    `T.atomic_rmw(combine, ...)` (docs/language.md, Scatter-reduce and atomics). KIR's scatter_reduce is
    the indexed form and wants an index-tensor coordinate."""
    if not isinstance(combine, str) or combine not in _DIRECT_COMBINES:
        spelled = combine if isinstance(combine, str) else "a helper"
        raise error(f"{what}: at scalar and domain coordinates only (no index-tensor coordinate) each update is "
                    f"one relaxed atomic, so combine= is one of {', '.join(_DIRECT_COMBINES)}, got {spelled}; "
                    f"where no two updates name the same element, read and store instead "
                    f"('{view.pyname}[...] = f({view.pyname}[...], update)')")
    if valid is not None:
        raise error(f"{what}: valid= masks index-tensor coordinates; at scalar and domain coordinates only, "
                    f"guard the update with an `if` (or combine the identity where it is invalid)")
    v = _store_value(value, axes, view.dtype, what)
    b = _b()
    b.emit(f"kir.atomic_rmw {combine} {v.name}, {view.name}[{', '.join(c.name for c in vals)}] order relaxed "
           f"sharing invocation : {v.type}, {view.type}[{', '.join(types)}] -> {v.type}", 1)
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


def _check_arity(fn, count: int, kind: str, loc: Loc):
    """A helper traced into a region takes the region's `count` block arguments positionally: a helper
    of another arity is a located error naming it (not a TypeError raised from inside the trace)."""
    try:
        sig = inspect.signature(fn)  # follows a @tessel.fn's __wrapped__ to the author's function
    except (TypeError, ValueError):  # no signature to read (a builtin): the call itself decides
        return
    try:
        sig.bind(*range(count))
    except TypeError:
        params = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        takes = f"{len(params)} positional parameter{'s' if len(params) != 1 else ''}"
        if any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values()):
            takes = f"at least {takes}"
        raise error(f"the {kind} helper '{_fn_name(fn)}' takes {takes} ({', '.join(p.name for p in params)}) "
                    f"but is called with {count} argument{'s' if count != 1 else ''}", loc) from None


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
    _check_arity(fn, len(vals), kind, loc)
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


def reduce(x, axis=None, identity=None, combine=None, _what: str = "T.reduce"):
    """Generic reduction: `combine(*lhs, *rhs)` (associative, commutative, pure) with `identity` neutral.

    `x` and `identity` are one value or tuples of values (one accumulator component each)."""
    if combine is None or identity is None:
        # Said at the call, not as Python's "missing 1 required positional argument" (issue 47): the
        # order is (x, axis, identity, combine); a helper given where the axis goes is the usual slip.
        slip = " (a helper function was given as the axis: the order is x, axis, identity, combine)" \
            if callable(axis) else ""
        missing = " and ".join(n for n, v in (("identity", identity), ("combine", combine)) if v is None)
        raise error(f"T.reduce(x, axis=..., identity=..., combine=...) is missing {missing}{slip}")
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


_PRECISIONS = ("ieee", "tf32", "tf32x3")


def _precision_text(precision, a, acc, what) -> str:
    """The ` precision P` of kir.contract (KIR_ContractPrecision), empty for the default ieee."""
    if precision not in _PRECISIONS:
        raise error(f"{what}: precision= is one of {', '.join(map(repr, _PRECISIONS))}, got {precision!r}")
    if precision == "ieee":
        return ""
    if a.dtype is not ty.f32 or acc is not ty.f32:
        raise error(f"{what}: precision={precision!r} rounds f32 operands to TF32 and accumulates in f32; got "
                    f"{a.dtype.name} operands and a {acc.name} accumulator")
    return f" precision {precision}"


def _contract_mismatch(what, kind, x, y, ax, bx):
    """The error for paired contraction axes that do not combine, led by the author's expression and
    naming both axes' domains as written and their lengths, with the spellings that do pair."""
    text = user_text(120)
    lead = f"`{text}`: {what}" if text else what
    return error(f"{lead}: {kind} pair ({x}, {y}) has mismatched extents: lhs axis {x} is over {ax.desc}, rhs axis "
                 f"{y} over {bx.desc}; {ax.desc} has {_len_desc(ax)}, {bx.desc} has {_len_desc(bx)}. Paired axes "
                 "combine as binary operands do: the same domain (shared shape symbols), or step-1 domains and "
                 "slices whose lengths have one expression, a slice counting as a domain re-based at 0 "
                 "(`ks[k0:k0 + 64]` pairs with `T.domain(0, 64)` when k0 is an index value; slice bounds computed "
                 "in i32 are opaque, so cast first: `k0 = T.cast(col[e], T.index) * 64`); or read the rows through "
                 "an index tensor over the other operand's domain (`b[T.cast(col[e], T.index) * 64 + "
                 "T.indices(blk), cols]`)")


def contract(a, b, reduce=((1, 0),), batch=(), acc_dtype: DType | None = None, init=None,  # noqa: A002
             precision: str = "ieee") -> Value:
    """Multiply, then add over paired axes: reduce=((lhs_axis, rhs_axis), ...), batch=(...).

    Result axes: lhs axes that are not reduced, then rhs axes neither reduced nor batch; the result
    element type is `acc_dtype` (default f32 for float operands). `init` is the value the sum starts
    from (the contraction's only addition).

    `precision` is the operand precision, an explicit numerical permission (f32 operands and an f32
    accumulator only): "ieee" (the default: IEEE products), "tf32" (each operand rounded to TF32, 10
    explicit mantissa bits, to nearest with ties away from zero, as PTX cvt.rna.tf32.f32; products
    exact, summed in f32) or "tf32x3" (a = hi + lo, hi = tf32(a), lo = tf32(a - hi); the terms
    lo*hi + hi*lo + hi*hi summed in f32: about f32's accuracy on tensor cores). docs/language.md."""
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
            # Paired axes combine as binary operands do (docs/language.md "Slices combine by position"):
            # the same domain, or step-1 domains and slices whose lengths have one expression.
            if not _axis_match(a.axes[x], b.axes[y]):
                raise _contract_mismatch(what, kind, x, y, a.axes[x], b.axes[y])
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
    prec = _precision_text(precision, a, acc, what)
    f = lambda xs: "[" + ", ".join(map(str, xs)) + "]"
    bld = _b()
    (name,) = bld.emit(f"kir.contract {a.name}, {b.name}{init_text} reduce({f(lr)}, {f(rr)}) batch({f(lb)}, {f(rb)})"
                       f"{prec} : {a.type}, {b.type}{init_type} -> {rtype}", 1)
    return Value(name, rtype, bld.scope, axes)


def dot(a, b, acc_dtype=None, precision="ieee") -> Value:
    """The inner product of two rank-1 tensors, a scalar of `acc_dtype` (`precision`: T.contract's)."""
    a, b = as_value(a, None, "T.dot"), as_value(b, None, "T.dot")
    if a.rank != 1 or b.rank != 1:
        raise error(f"T.dot takes two rank-1 tensors, got ranks {a.rank} and {b.rank}")
    r = contract(a, b, ((0, 0),), (), acc_dtype, precision=precision)
    bld = _b()
    (name,) = bld.emit(f"kir.extract {r.name}[] : {r.type}", 1)
    return Value(name, r.dtype, bld.scope)


def matvec(m, v, acc_dtype=None, init=None, precision="ieee") -> Value:
    """[..., M, K] x [K] -> [..., M] (`precision`: T.contract's)."""
    m = as_value(m, None, "T.matvec")
    return contract(m, v, ((m.rank - 1, 0),), (), acc_dtype, init, precision)


def vecmat(v, m, acc_dtype=None, init=None, precision="ieee") -> Value:
    """[K] x [K, N] -> [N] (`precision`: T.contract's)."""
    return contract(v, m, ((0, 0),), (), acc_dtype, init, precision)


def matmul(a, b, acc_dtype=None, init=None, transpose_lhs=False, transpose_rhs=False, precision="ieee") -> Value:
    """[M, K] x [K, N] -> [M, N]; with a leading batch axis on both: [B, M, K] x [B, K, N] -> [B, M, N]
    (`precision`: T.contract's operand precision, "ieee", "tf32" or "tf32x3")."""
    a, b = as_value(a, None, "T.matmul"), as_value(b, None, "T.matmul")
    if a.rank != b.rank or a.rank not in (2, 3):
        raise error(f"T.matmul takes two rank-2 (or two rank-3, batched) tensors, got ranks {a.rank} and {b.rank}; "
                    "use T.vecmat/T.matvec/T.contract for other forms")
    r = a.rank
    ka = r - 2 if transpose_lhs else r - 1
    kb = r - 1 if transpose_rhs else r - 2
    batch = ((0, 0),) if r == 3 else ()
    return contract(a, b, ((ka, kb),), batch, acc_dtype, init, precision)


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
