"""The explicit control forms: `T.parallel` (unordered, no carries) and the ordered `T.for_`,
`T.if_` and `T.while_` with carries. Ordinary Python `if`/`for`/`while` reach KIR control through
the AST rewrite in _pycontrol.py instead.
"""
from __future__ import annotations

from . import _types as ty
from ._errors import error, user_loc
from ._ir import Block, Scope, _b, _unclosed
from ._core import Value
from ._semantic import _as_domain, as_value
from ._structured import _as_tuple, _result_value, _spec_of, _types_list, trace_region


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
