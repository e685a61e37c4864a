"""Ordinary Python `if` / `for` / `while` over runtime values, by rewriting the Python AST.

Before a `@tessel.kernel` or `@tessel.fn` function is traced, its source (`inspect.getsource`) is
parsed and its control flow statements are rewritten into calls of the dispatch helpers below, which
decide *at trace time* what each statement means:

* ``if c:`` — the branches become nested functions taking and returning the variables they assign
  (those live after the `if`). When `c` is a Python value (a constexpr, a bool, ...) the helper runs
  one branch, exactly like Python; when `c` is a traced scalar bool it traces both branches into a
  `kir.if` whose results are the variables that differ between the branches.
* ``for x in it:`` — the body becomes a nested function ``body(item, *carries) -> carries``. A domain
  (`T.domain`, a subregion, or `range(...)` of a traced extent) gives an ordered `kir.for` whose
  iter_args are the loop-carried variables; anything else (`T.parallel`, `range(4)`, a list) is
  iterated by Python as before.
* ``while c:`` — the condition and the body become nested functions of the carried variables; a
  traced first condition gives a `kir.while`, a Python one a Python loop.
* ``a if c else b``, and ``and``/``or``/``not`` in the condition of an `if`/`while`/conditional
  expression, short-circuit through `kir.if` when their operand is traced.

Statements whose bodies cannot become functions (`break`, `continue` or `return` leaving them,
`yield`, `global`) keep their Python form behind a guard that raises a CompileError at the offending
line when the condition/iterable turns out to be a runtime value. An `if` whose branch ends in
`return` is first normalized (the code after it moves into the other branch; returns in both branches
become an assignment and one `return`), so early returns on runtime conditions work in helpers.

The rewritten code is compiled with the author's file name and the original line/column positions,
so every KIR op still carries the author's `file:line:col`.
"""
from __future__ import annotations

import ast
import builtins
import copy
import inspect
import itertools
import os
import sys
import types

from . import _ir, _semantic, _structured
from . import _types as ty
from ._core import Domain, Record, Undefined, Value, View
from ._errors import CompileError, Loc, error, user_loc
from ._ir import Block, Scope

RT = "__tessel__"  # the name under which rewritten code reaches this module (a closure cell)

# =============================================================================================
# Trace-time dispatch helpers (called by the rewritten code)
# =============================================================================================

_MISSING = object()


def _caller_values(names):
    """The current values of `names` in the rewritten function that called the helper."""
    f_locals = sys._getframe(2).f_locals
    return [f_locals.get(n, _MISSING) for n in names]


def _or_undefined(vals, names, message):
    return [Undefined(message.format(n=n)) if v is _MISSING else v for v, n in zip(vals, names)]


def _is_val(x) -> bool:
    return isinstance(x, Value) and not isinstance(x, (Domain, Undefined))


def _is_num(x) -> bool:
    return _semantic._is_pyscalar(x)


def _desc(x) -> str:
    if isinstance(x, Undefined):
        return "without a value"
    if isinstance(x, Value):
        return f"the {x.describe()}"
    if isinstance(x, View):
        return x.describe()
    r = repr(x)
    return f"the Python {type(x).__name__} {r if len(r) <= 40 else r[:37] + '...'}"


def _spec_eq(a: Value, b: Value) -> bool:
    if str(a.type) != str(b.type):
        return False
    if isinstance(a, Record):
        return all(_semantic._same_axes(x, y) for x, y in zip(a.field_axes, b.field_axes))
    if a.is_tensor:
        return _semantic._same_axes(a.axes, b.axes)
    return True


def _runtime_cond(c, what: str) -> Value:
    c = _semantic.use(c, what)
    if isinstance(c, Domain) or c.dtype is None:
        raise error(f"{what} is the {c.describe()}; a runtime condition is a scalar bool (i1)")
    if c.is_tensor:
        raise error(f"{what} is the {c.describe()}; a runtime condition must be a scalar bool (i1): choose "
                    "element-wise with T.where(cond, a, b), or reduce the mask with T.any / T.all")
    if not c.dtype.is_bool:
        raise error(f"{what} is the {c.describe()}, not a bool (i1); compare it explicitly, e.g. `x != 0`")
    return c


def _open(b, kind: str, loc: Loc) -> Scope:
    s = Scope(b.scope, kind, False, loc)
    b.push(s)
    return s


def _leave(b, s: Scope, parent: Scope):
    if b.scope is not s:
        _ir._unclosed(b.scope)
    b.scope = parent
    s.active = False


def _fit(item, ref: Value) -> Value:
    """`item` (a visible Value of ref's spec, or a scalar constant) as a value of ref's spec."""
    if isinstance(item, Value) and _spec_eq(item, ref):
        return _semantic.use(item, "a branch result")
    return _semantic.broadcast_value(item, ref.axes, [])


# --- if ------------------------------------------------------------------------------------------


class _Slot:
    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


class _Lazy(Exception):
    """A variable that cannot be merged after a runtime `if`; `why` completes a sentence."""

    def __init__(self, why):
        self.why = why


def _merge(t, e, pairs):
    """The merged value of a variable after a runtime `if` (`t` after the then branch, `e` after the
    else branch): the value itself when both agree, else a template with _Slots for kir.if results
    ((then item, else item, reference Value) appended to `pairs`)."""
    if t is e:
        return t
    if isinstance(t, Undefined):
        raise _Lazy("is assigned only in the else branch and has no value before the `if`; assign it in both "
                    "branches (or before the `if`) to use it after the `if`")
    if isinstance(e, Undefined):
        raise _Lazy("is assigned only in the then branch and has no value before the `if`; assign it in both "
                    "branches (or before the `if`) to use it after the `if`")
    tv, ev = _is_val(t), _is_val(e)
    if tv and ev:
        if not _spec_eq(t, e):
            raise _Lazy(f"is {_desc(t)} after the then branch but {_desc(e)} after the else branch; both branches "
                        "must give it the same type and shape (convert with T.cast, broadcast explicitly)")
        pairs.append((t, e, t))
        return _Slot(len(pairs) - 1)
    if (tv and _is_num(e)) or (ev and _is_num(t)):
        v, num = (t, e) if tv else (e, t)
        try:
            c = _semantic.as_value(num, v.dtype, "a branch result")
        except CompileError as err:
            raise _Lazy(f"is {_desc(t)} after the then branch but {_desc(e)} after the else branch ({err.message})") \
                from None
        pairs.append((t, c, t) if tv else (c, e, e))
        return _Slot(len(pairs) - 1)
    if _is_num(t) and _is_num(e):
        if type(t) is type(e) and t == e:
            return t
        if isinstance(t, bool) and isinstance(e, bool):
            dt = ty.i1
        elif (isinstance(t, float) or isinstance(e, float)) and not isinstance(t, bool) and not isinstance(e, bool):
            dt = ty.f32
        else:
            raise _Lazy(f"is {_desc(t)} after the then branch and {_desc(e)} after the else branch: Python numbers "
                        f"that depend on a runtime condition need an element type, e.g. T.i32({t!r})")
        ct, ce = _semantic.as_value(t, dt, "a branch result"), _semantic.as_value(e, dt, "a branch result")
        pairs.append((ct, ce, ct))
        return _Slot(len(pairs) - 1)
    if type(t) in (tuple, list) and type(t) is type(e) and len(t) == len(e):
        return type(t)(_merge(a, c, pairs) for a, c in zip(t, e))
    raise _Lazy(f"is {_desc(t)} after the then branch but {_desc(e)} after the else branch; only traced values and "
                "numbers can depend on a runtime condition")


def _instantiate(tmpl, results):
    if isinstance(tmpl, _Slot):
        return results[tmpl.k]
    if type(tmpl) in (tuple, list):
        return type(tmpl)(_instantiate(x, results) for x in tmpl)
    return tmpl


def _emit_if(c: Value, then, else_, n: int, loc: Loc):
    """Traces `then()` / `else_()` (each returning n values; else_ may be None when n values are given
    by `else_vals`) into a kir.if; returns (merged templates-or-_Lazy per value)."""
    b = _ir._b()
    parent = b.scope
    tscope = _open(b, "`if` branch", loc)
    tres = then()
    _leave(b, tscope, parent)
    escope = None
    if callable(else_):
        escope = _open(b, "`else` branch", loc)
        eres = else_()
        _leave(b, escope, parent)
    else:
        eres = else_
    pairs, merged = [], []
    for i in range(n):
        try:
            merged.append(_merge(tres[i], eres[i], pairs))
        except _Lazy as lz:
            merged.append(lz)
    if pairs and escope is None:
        escope = Scope(parent, "`else` branch", False, loc)
        escope.active = False
    for scope, side in ((tscope, 0), (escope, 1)):
        if scope is None:
            continue
        b.scope = scope
        scope.active = True
        vals = [_fit(p[side], p[2]) for p in pairs]
        b.emit(_structured._yield_text(vals), 0, loc=loc)
        b.scope = parent
        scope.active = False
    refs = [p[2] for p in pairs]
    rt = f" -> {_structured._types_list(refs)}" if refs else ""
    regions = [("", Block([], tscope.ops))]
    if escope is not None:
        regions.append(("else", Block([], escope.ops)))
    names = b.emit(f"kir.if {c.name}{rt}", len(refs), regions=regions, loc=loc)
    results = [_structured._result_value(nm, r.type, _structured._spec_of(r)[1], parent) for nm, r in zip(names, refs)]
    return [m if isinstance(m, _Lazy) else _instantiate(m, results) for m in merged]


def if_(cond, then, else_, names, nouts):
    """`if cond:` with branches `then(*params)` / `else_(*params)` returning the `nouts` first params."""
    vals = _caller_values(names)
    if not isinstance(cond, Value):  # a Python condition: plain Python
        vals = _or_undefined(vals, names, "'{n}' is used before it is assigned")
        if cond:
            return then(*vals)
        return else_(*vals) if else_ is not None else tuple(vals[:nouts])
    loc = user_loc()
    c = _runtime_cond(cond, "the condition of this `if`")
    vals = _or_undefined(vals, names, f"'{{n}}' is used in the runtime `if` at line {loc.line} before it is assigned")
    out = _emit_if(c, lambda: then(*vals), (lambda: else_(*vals)) if else_ is not None else tuple(vals[:nouts]),
                   nouts, loc)
    return tuple(Undefined(f"'{n}' is used after the runtime `if` at line {loc.line}, but it {m.why}")
                 if isinstance(m, _Lazy) else m for n, m in zip(names, out))


def _value_if(cond, then, else_, what, construct):
    loc = user_loc()
    c = _runtime_cond(cond, what)
    (m,) = _emit_if(c, lambda: (then(),), lambda: (else_(),), 1, loc)
    if isinstance(m, _Lazy):
        raise error(f"the value of this {construct} {m.why}", loc)
    return m


def ifexp(cond, a, b):
    """`a() if cond else b()`."""
    if not isinstance(cond, Value):
        return a() if cond else b()
    return _value_if(cond, a, b, "the condition of this conditional expression", "conditional expression")


def and_(x, rest):
    """`x and rest()` (short-circuit: through kir.if when x is traced)."""
    if not isinstance(x, Value):
        return rest() if x else x
    return _value_if(x, rest, lambda: False, "the left operand of this `and`", "`and`")


def or_(x, rest):
    """`x or rest()`."""
    if not isinstance(x, Value):
        return x if x else rest()
    return _value_if(x, lambda: True, rest, "the left operand of this `or`", "`or`")


def not_(x):
    if not isinstance(x, Value):
        return not x
    return _semantic.unary("not", _runtime_cond(x, "the operand of this `not`"))


# --- loops -----------------------------------------------------------------------------------------


def _carry_leaves(x):
    """The leaves of `x` when it can be loop-carried (a traced value or a typed number, or a tuple/list
    of those), else None."""
    if type(x) in (tuple, list):
        out = []
        for e in x:
            sub = _carry_leaves(e)
            if sub is None:
                return None
            out.extend(sub)
        return out
    if _is_val(x):
        return [x]
    if isinstance(x, bool) or isinstance(x, float) or (_is_num(x) and not isinstance(x, int)):
        return [x]
    return None


def _flatten_like(tmpl, x):
    if type(tmpl) in (tuple, list):
        if type(x) is not type(tmpl) or len(x) != len(tmpl):
            return None
        out = []
        for a, b in zip(tmpl, x):
            sub = _flatten_like(a, b)
            if sub is None:
                return None
            out.extend(sub)
        return out
    return [x]


def _rebuild(tmpl, it):
    if type(tmpl) in (tuple, list):
        return type(tmpl)(_rebuild(a, it) for a in tmpl)
    return next(it)


def _carry_init(leaf) -> Value:
    if isinstance(leaf, Value):
        return _semantic.use(leaf, "a loop-carried value")
    return _semantic.as_value(leaf, None, "a loop-carried value", default_float=ty.f32)


def _fit_carry(leaf, init: Value):
    """`leaf` (a body result) as a value of init's spec, or None when it does not fit."""
    if isinstance(leaf, Undefined):
        return None
    if _is_val(leaf):
        _semantic.use(leaf, "a loop-carried value")
        return leaf if _spec_eq(leaf, init) else None
    if _is_num(leaf) and not isinstance(init, Record):
        try:
            v = _semantic.as_value(leaf, init.dtype, "a loop-carried value")
            return _semantic.broadcast_value(v, init.axes, []) if init.is_tensor else v
        except CompileError:
            return None
    return None


class _Plan:
    """Which variables a runtime loop carries (and how), and what the others hold after it."""

    def __init__(self, names, vals, targets, exposed, what, loc):
        self.names, self.exposed, self.what, self.loc = names, exposed, what, loc
        self.entries = []  # ("carry", template, [init Values]) | ("static", object, reason)
        self.inits = []
        for n, v in zip(names, vals):
            if n in targets:
                self.entries.append(("static", Undefined(f"'{n}' is the index of the {what}; it is not defined "
                                                         "after the loop"), "index"))
            elif v is _MISSING:
                self.entries.append(("static", Undefined(f"'{n}' is used in the {what} before it is assigned; it has "
                                                         "no value before the loop"), "missing"))
            else:
                leaves = _carry_leaves(v)
                if leaves is None:
                    if isinstance(v, int) and not isinstance(v, bool) and n in exposed:
                        raise error(f"'{n}' is carried by the {what} but starts as the Python int {v!r}, which has no "
                                    f"element type; give it one before the loop, e.g. {n} = T.i32({v!r}) or "
                                    f"{n} = T.index({v!r})", loc)
                    self.entries.append(("static", v, "object"))
                else:
                    inits = [_carry_init(x) for x in leaves]
                    self.entries.append(("carry", v, inits))
                    self.inits.extend(inits)

    def block_args(self, b, scope):
        return [_structured._result_value(b.fresh(), v.type, _structured._spec_of(v)[1], scope) for v in self.inits]

    def call_values(self, args):
        it = iter(args)
        out = []
        for e in self.entries:
            if e[0] == "carry":
                out.append(_rebuild(e[1], it))
            else:
                out.append(e[1])
        return out

    def check_static(self, res):
        """Raises when the loop changes a variable it needs but cannot carry."""
        for e, r, n in zip(self.entries, res, self.names):
            if e[0] == "static" and r is not e[1] and e[2] == "object" and n in self.exposed:
                raise error(f"'{n}' changes in the {self.what} (it becomes {_desc(r)}), but it holds {_desc(e[1])}, "
                            "which a runtime loop cannot carry: only traced values and typed numbers can (e.g. "
                            f"{n} = T.f32(0.0) before the loop)", self.loc)

    def finish(self, res, args):
        """The yielded values (coercions are emitted in the current region) and per-variable results
        after the loop (None: from the loop results)."""
        if not isinstance(res, tuple) or len(res) != len(self.names):
            raise AssertionError("rewritten loop body returned the wrong number of values")
        self.check_static(res)
        yields, after, k = [], [], 0
        for e, r, n in zip(self.entries, res, self.names):
            if e[0] == "static":
                if r is e[1]:
                    after.append(e[1])
                elif e[2] == "index":
                    after.append(e[1])
                elif e[2] == "missing":
                    after.append(Undefined(f"'{n}' is used after the {self.what}, but it is assigned only inside the "
                                           "loop and has no value before it, so the loop cannot carry it out; give "
                                           f"it a value of the right type before the loop (e.g. {n} = T.f32(0.0))"))
                else:
                    after.append(Undefined(f"'{n}' is used after the {self.what}, but it holds {_desc(e[1])} before "
                                           "the loop, which a runtime loop cannot carry (only traced values and typed "
                                           "numbers can); give it a typed value before the loop, e.g. "
                                           f"{n} = T.f32(0.0)"))
                continue
            inits = e[2]
            bargs = args[k:k + len(inits)]
            k += len(inits)
            leaves = _flatten_like(e[1], r)
            fitted = None
            if leaves is not None:
                fitted = [_fit_carry(x, i) for x, i in zip(leaves, inits)]
                if any(f is None for f in fitted):
                    fitted = None
            if fitted is not None:
                yields.extend(fitted)
                after.append(None)
                continue
            msg = (f"'{n}' is {_desc(e[1])} before the {self.what} but {_desc(r)} at the end of its body; a "
                   "loop-carried variable keeps its type and shape (convert with T.cast)")
            if n in self.exposed:
                raise error(msg, self.loc)
            yields.extend(bargs)
            after.append(Undefined(f"{msg} — so it cannot be used after the loop"))
        return yields, after

    def outputs(self, results, after):
        it = iter(results)
        out = []
        for e, a in zip(self.entries, after):
            if e[0] == "carry":
                vals = _rebuild(e[1], it)
                out.append(vals if a is None else a)
            else:
                out.append(a)
        return tuple(out)


def _label_index(item, labels):
    """Remember a loop index by the name the author gave it (`for kb in ...`), so that descriptions of
    slices and lengths over it read `64*kb`, never an SSA id."""
    items = item if isinstance(item, tuple) else (item,)
    if len(items) != len(labels):
        return
    for v, n in zip(items, labels):
        if type(v) is Value and not v.is_tensor and v.dtype is not None and (v.dtype.is_int or v.dtype.is_index):
            _semantic._atoms().setdefault(f"v{v.name}", n)


def for_(it, body, names, targets, exposed, labels=()):
    """`for <targets> in it:` with `body(item, *params) -> params`; `labels`: the target names when the
    target is a name or a tuple of names (for descriptions)."""
    vals = _caller_values(names)
    if not isinstance(it, Domain):  # T.parallel, range(4), a list, ...: plain Python iteration
        vals = tuple(_or_undefined(vals, names, "'{n}' is used before it is assigned"))
        for item in it:
            _label_index(item, labels)
            vals = body(item, *vals)
        return vals
    loc = user_loc()
    what = f"runtime `for` at line {loc.line}"
    d = _semantic.use(it, "the domain of this `for`")
    b = _ir._b()
    plan = _Plan(names, vals, set(targets), set(exposed), what, loc)
    scope = _open(b, "`for` body", loc)
    idx = Value(b.fresh(), ty.index, scope, (), loc)
    _label_index(idx, labels)
    args = plan.block_args(b, scope)
    res = body(idx, *plan.call_values(args))
    if b.scope is not scope:
        _ir._unclosed(b.scope)
    yields, after = plan.finish(res, args)
    b.emit(_structured._yield_text(yields), 0, loc=loc)
    b.pop(scope)
    inits = plan.inits
    iter_text = (f" iter_args({', '.join(v.name for v in inits)} : {_structured._types_list(inits)}) -> "
                 f"{_structured._types_list(inits)}" if inits else "")
    block = Block([(idx.name, "index")] + [(a.name, str(a.type)) for a in args], scope.ops)
    rn = b.emit(f"kir.for {d.name}{iter_text}", len(inits), regions=[("", block)], loc=loc)
    results = [_structured._result_value(n, v.type, _structured._spec_of(v)[1], b.scope) for n, v in zip(rn, inits)]
    return plan.outputs(results, after)


def mark():
    """Where the current region stands before a `while` condition is first evaluated."""
    b = getattr(_ir._STATE, "builder", None)
    return None if b is None else (b.scope, len(b.scope.ops))


def while_(marked, first, cond, body, names, exposed):
    """`while <cond>:` whose condition evaluated to `first`; `cond(*params)`, `body(*params) -> params`."""
    vals = _caller_values(names)
    if not isinstance(first, Value):  # a Python condition: plain Python
        vals = tuple(_or_undefined(vals, names, "'{n}' is used before it is assigned"))
        c = first
        while c:
            vals = body(*vals)
            c = cond(*vals)
            if isinstance(c, Value) and not isinstance(c, Undefined):
                raise error("the condition of this `while` was a Python value when the loop started but is a "
                            f"runtime value ({c.describe()}) after an iteration; make it a runtime value from the "
                            "start (e.g. give the loop variable an element type before the loop: i = T.index(0))")
        return vals
    loc = user_loc()
    what = f"runtime `while` at line {loc.line}"
    b = _ir._b()
    if marked is not None and marked[0] is b.scope:
        del b.scope.ops[marked[1]:]  # the first evaluation is redone inside the loop's condition region
    plan = _Plan(names, vals, set(), set(exposed), what, loc)
    bscope = _open(b, "`while` condition", loc)
    bargs = plan.block_args(b, bscope)
    c = cond(*plan.call_values(bargs))
    if b.scope is not bscope:
        _ir._unclosed(b.scope)
    c = _runtime_cond(_semantic.as_value(c, ty.i1, "the condition of this `while`") if isinstance(c, bool) else c,
                      "the condition of this `while`")
    fwd = f", {', '.join(a.name for a in bargs)} : {_structured._types_list(bargs)}" if bargs else ""
    b.emit(f"kir.condition {c.name}{fwd}", 0, loc=loc)
    b.pop(bscope)
    dscope = _open(b, "`while` body", loc)
    dargs = plan.block_args(b, dscope)
    res = body(*plan.call_values(dargs))
    if b.scope is not dscope:
        _ir._unclosed(b.scope)
    yields, after = plan.finish(res, dargs)
    b.emit(_structured._yield_text(yields), 0, loc=loc)
    b.pop(dscope)
    inits = plan.inits
    head = (f"kir.while ({', '.join(v.name for v in inits)} : {_structured._types_list(inits)}) -> {_structured._types_list(inits)}"
            if inits else "kir.while")
    regions = [("", Block([(a.name, str(a.type)) for a in bargs], bscope.ops)),
               ("do", Block([(a.name, str(a.type)) for a in dargs], dscope.ops))]
    rn = b.emit(head, len(inits), regions=regions, loc=loc)
    results = [_structured._result_value(n, v.type, _structured._spec_of(v)[1], b.scope) for n, v in zip(rn, inits)]
    return plan.outputs(results, after)


def range_(fn, *args):
    """`range(...)`: a domain when an argument is a traced value (an extent), else Python's range."""
    if fn is builtins.range and any(isinstance(a, Value) for a in args) and 1 <= len(args) <= 3:
        if len(args) == 1:
            return _semantic.domain(0, args[0])
        return _semantic.domain(*args)
    return fn(*args)


# --- guards for statements that keep their Python form -----------------------------------------------

_WHY = {
    "break": "a runtime loop always runs until its domain is exhausted or its condition fails; use a `while` loop "
             "whose condition tests a carried flag instead",
    "continue": "guard the rest of the body with an `if` instead",
    "return": "assign the result to a variable and return it after the loop",
    "yield": "generators cannot be traced into runtime control",
    "await": "coroutines cannot be traced into runtime control",
    "global": "assign a local variable instead",
    "nonlocal": "assign a local variable instead",
    "walrus": "assign the variable in the loop body instead",
}


def _guard_error(kind, line, col, construct):
    loc = user_loc()
    if construct == "if":
        where = "inside an `if` on a runtime condition"
        why = ("both branches of a runtime `if` are traced, and which one runs is only known when the kernel runs, so "
               f"it cannot `{kind}` at trace time; assign variables in both branches instead")
        if kind in ("yield", "await", "global", "nonlocal"):
            why = _WHY[kind]
    elif construct == "for":
        where = "inside a `for` over a runtime domain"
        why = _WHY.get(kind, "")
    else:
        where = "in a `while` loop with a runtime condition" if kind != "walrus" else \
            "an assignment expression (:=) in the condition of a `while` loop with a runtime condition"
        why = _WHY.get(kind, "")
    head = f"'{kind}' {where}" if kind != "walrus" else where[0].upper() + where[1:]
    return error(f"{head} is not supported: {why}", Loc(loc.file, line, col + 1))


def guard_if(cond, kind, line, col):
    if isinstance(cond, Undefined):
        cond.fail()
    if isinstance(cond, Value):
        raise _guard_error(kind, line, col, "if")
    return cond


def guard_for(it, kind, line, col):
    if isinstance(it, Domain):
        raise _guard_error(kind, line, col, "for")
    return it


def guard_while(cond, kind, line, col):
    if isinstance(cond, Undefined):
        cond.fail()
    if isinstance(cond, Value):
        raise _guard_error(kind, line, col, "while")
    return cond


def _traced_in(subject):
    """The traced value a `match` subject is or holds (in a tuple or list), or None."""
    if isinstance(subject, (tuple, list)):
        return next((t for t in map(_traced_in, subject) if t is not None), None)
    if isinstance(subject, Undefined):
        subject.fail()
    return subject if isinstance(subject, Value) else None


def guard_match(subject, text, line, col):
    """A `match` runs at trace time, so its subject must be a Python value: patterns test types and
    structure that a traced value does not have (a class pattern fails, a literal compares a traced
    value), so which case runs would not depend on the value the kernel sees."""
    v = _traced_in(subject)
    if v is not None:
        raise error(f"`match {text}`: matching on the traced {v.describe()} is not supported: the tracer runs a `match` in Python, at "
                    "trace time, and does not model it on runtime values; write an `if`/`elif` chain on comparisons "
                    "(`if n == 0: ... elif n == 1: ...`), which becomes runtime control, or make the subject a "
                    "T.Constexpr parameter", Loc(user_loc().file, line, col + 1))
    return subject


def rewritten_mark(f):
    """Decorator the rewrite puts on nested functions: they are rewritten already."""
    try:
        f.__tessel_rewritten__ = True
    except (AttributeError, TypeError):
        pass
    return f


# =============================================================================================
# Analysis: assigned names, liveness, exits
# =============================================================================================

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _loads(node) -> set:
    if node is None:
        return set()
    if isinstance(node, list):
        out = set()
        for n in node:
            out |= _loads(n)
        return out
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Load, ast.Del))}


def _target_names(t) -> list:
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in _target_names(e)]
    if isinstance(t, ast.Starred):
        return _target_names(t.value)
    return []


class _Assigned(ast.NodeVisitor):
    """Names bound by statements (not inside nested function/class scopes), in order of appearance."""

    def __init__(self):
        self.names = []

    def add(self, n):
        if n not in self.names:
            self.names.append(n)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Store):
            self.add(node.id)

    def visit_FunctionDef(self, node):
        for d in node.decorator_list:
            self.visit(d)
        self.add(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node):
        pass

    def visit_comprehension(self, node):  # its targets are its own; a walrus inside binds here
        self.visit(node.iter)
        for c in node.ifs:
            self.visit(c)

    def visit_ExceptHandler(self, node):
        if node.name:
            self.add(node.name)
        self.generic_visit(node)

    def visit_Import(self, node):
        for a in node.names:
            self.add((a.asname or a.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_MatchAs(self, node):
        if node.name:
            self.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node):
        if node.name:
            self.add(node.name)

    def visit_MatchMapping(self, node):
        if node.rest:
            self.add(node.rest)
        self.generic_visit(node)


def _assigned(stmts) -> list:
    v = _Assigned()
    for s in stmts:
        v.visit(s)
    return v.names


class _Live:
    """Backward liveness over structured statements (an over-approximation: closures, comprehensions
    and exceptions only add uses)."""

    def __init__(self):
        self.memo = {}

    def block(self, stmts, out, ctx=None):
        live = frozenset(out)
        for s in reversed(stmts):
            live = self.stmt(s, live, ctx)
        return live

    def stmt(self, s, out, ctx):
        out = frozenset(out)
        key = (id(s), out, ctx)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        r = frozenset(self._stmt(s, out, ctx))
        self.memo[key] = r
        return r

    def for_head(self, s, out, ctx):
        x = self.block(s.orelse, out, ctx)
        tnames = set(_target_names(s.target))
        while True:
            inner = self.block(s.body, x, (out, x))
            inner = (inner - tnames) | _loads(s.target)
            nx = x | inner
            if nx == x:
                return x
            x = nx

    def while_head(self, s, out, ctx):
        base = _loads(s.test) | self.block(s.orelse, out, ctx)
        x = frozenset(base)
        while True:
            nx = base | self.block(s.body, x, (out, x))
            if nx == x:
                return x
            x = frozenset(nx)

    def _stmt(self, s, out, ctx):
        if isinstance(s, ast.Assign):
            defs = {n for t in s.targets for n in _target_names(t)}
            return (out - defs) | _loads(s.value) | _loads(s.targets)
        if isinstance(s, ast.AnnAssign):
            if s.value is None:
                return out
            return (out - set(_target_names(s.target))) | _loads(s.value) | _loads(s.target)
        if isinstance(s, ast.AugAssign):
            return out | set(_target_names(s.target)) | _loads(s.target) | _loads(s.value)
        if isinstance(s, ast.Delete):
            return (out - {n for t in s.targets for n in _target_names(t)}) | _loads(s.targets)
        if isinstance(s, ast.Return):
            return _loads(s.value)
        if isinstance(s, ast.Break):
            return ctx[0] if ctx else out
        if isinstance(s, ast.Continue):
            return ctx[1] if ctx else out
        if isinstance(s, ast.If):
            return _loads(s.test) | self.block(s.body, out, ctx) | self.block(s.orelse, out, ctx)
        if isinstance(s, (ast.For, ast.AsyncFor)):
            return _loads(s.iter) | self.for_head(s, out, ctx)
        if isinstance(s, ast.While):
            return self.while_head(s, out, ctx)
        if isinstance(s, (ast.With, ast.AsyncWith)):
            return _loads([i.context_expr for i in s.items]) | _loads([i.optional_vars for i in s.items if
                                                                        i.optional_vars]) | self.block(s.body, out, ctx)
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            fin = self.block(s.finalbody, out, ctx)
            h_in = frozenset()
            for h in s.handlers:
                h_in = h_in | self.block(h.body, fin, ctx) | _loads(h.type)
            els = self.block(s.orelse, fin, ctx)
            return self.block(s.body, els | h_in, ctx) | h_in
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return (out - {s.name}) | _loads(s)
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            return out - {(a.asname or a.name).split(".")[0] for a in s.names}
        if isinstance(s, (ast.Global, ast.Nonlocal, ast.Pass)):
            return out
        if isinstance(s, ast.Raise):
            return out | _loads(s)
        if type(s).__name__ == "Match":
            r = out | _loads(s.subject)
            for c in s.cases:
                r = r | self.block(c.body, out, ctx) | _loads(c.guard) | _loads(c.pattern)
            return r
        return out | _loads(s)


def _escape(stmts, depth=0):
    """The first (kind, node) in `stmts` that would leave a block turned into a function, else None."""
    for s in stmts:
        r = _escape_node(s, depth)
        if r:
            return r
    return None


def _escape_node(node, depth):
    if isinstance(node, _SCOPES):
        return None
    if isinstance(node, ast.Return):
        return ("return", node)
    if isinstance(node, (ast.Break, ast.Continue)):
        return ("break" if isinstance(node, ast.Break) else "continue", node) if depth == 0 else None
    if isinstance(node, (ast.Yield, ast.YieldFrom)):
        return ("yield", node)
    if isinstance(node, ast.Await):
        return ("await", node)
    if isinstance(node, ast.Global):
        return ("global", node)
    if isinstance(node, ast.Nonlocal):
        return ("nonlocal", node)
    if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        head = [node.target, node.iter] if not isinstance(node, ast.While) else [node.test]
        for h in head:
            r = _escape_node(h, depth)
            if r:
                return r
        return _escape(node.body, depth + 1) or _escape(node.orelse, depth)
    for child in ast.iter_child_nodes(node):
        r = _escape_node(child, depth)
        if r:
            return r
    return None


def _has(node, kinds) -> bool:
    return any(isinstance(n, kinds) for n in ast.walk(node))


def _is_generator(fdef) -> bool:
    def walk(n):
        for c in ast.iter_child_nodes(n):
            if isinstance(c, (ast.Yield, ast.YieldFrom)):
                return True
            if not isinstance(c, _SCOPES) and walk(c):
                return True
        return False
    return walk(fdef)


# --- early returns -------------------------------------------------------------------------------------


def _always_returns(stmts) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and _always_returns(last.body) and _always_returns(last.orelse)


def _count_returns(node) -> int:
    if isinstance(node, list):
        return sum(_count_returns(n) for n in node)
    if isinstance(node, _SCOPES):
        return 0
    return int(isinstance(node, ast.Return)) + sum(_count_returns(c) for c in ast.iter_child_nodes(node))


def _count_tail_returns(stmts) -> int:
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return 1
    return _count_tail_returns(last.body) + _count_tail_returns(last.orelse)


def _tail_returns_to(stmts, name):
    last = stmts[-1]
    if isinstance(last, ast.Return):
        a = ast.Assign(targets=[ast.Name(name, ast.Store())],
                       value=last.value if last.value is not None else ast.Constant(None))
        _locate(a, last)
        return stmts[:-1] + [a]
    new = copy.copy(last)
    new.body = _tail_returns_to(last.body, name)
    new.orelse = _tail_returns_to(last.orelse, name)
    return stmts[:-1] + [new]


class _Names:
    def __init__(self):
        self.counter = itertools.count()

    def fresh(self, kind):
        return f"__tessel_{kind}_{next(self.counter)}"


def _normalize(stmts, in_loop, names: _Names):
    """Early returns made structured: after `if c: ...; return a` the rest of the block moves into the
    else branch; an `if` whose branches all end in `return` becomes assignments plus one `return`."""
    out = []
    for i, s in enumerate(stmts):
        s = _normalize_stmt(s, in_loop, names)
        rest = stmts[i + 1:]
        if isinstance(s, ast.If) and not in_loop and rest:
            if _always_returns(s.body) and not _always_returns(s.orelse):
                s2 = copy.copy(s)
                s2.orelse = _normalize(list(s.orelse) + list(rest), in_loop, names)
                out.extend(_lift_returns(s2, names))
                return out
            if s.orelse and _always_returns(s.orelse) and not _always_returns(s.body):
                s2 = copy.copy(s)
                s2.body = _normalize(list(s.body) + list(rest), in_loop, names)
                out.extend(_lift_returns(s2, names))
                return out
        if isinstance(s, ast.If) and not in_loop:
            out.extend(_lift_returns(s, names))
        else:
            out.append(s)
    return out


def _lift_returns(s, names):
    if not (_always_returns(s.body) and _always_returns(s.orelse)):
        return [s]
    if _count_returns([s]) != _count_tail_returns([s]):
        return [s]
    name = names.fresh("ret")
    s2 = copy.copy(s)
    s2.body = _tail_returns_to(s.body, name)
    s2.orelse = _tail_returns_to(s.orelse, name)
    r = ast.Return(ast.Name(name, ast.Load()))
    _locate(r, s)
    return [s2, r]


def _normalize_stmt(s, in_loop, names):
    if isinstance(s, ast.If):
        s = copy.copy(s)
        s.body = _normalize(s.body, in_loop, names)
        s.orelse = _normalize(s.orelse, in_loop, names)
    elif isinstance(s, (ast.For, ast.While)):
        s = copy.copy(s)
        s.body = _normalize(s.body, True, names)
        s.orelse = _normalize(s.orelse, in_loop, names)
    elif isinstance(s, ast.With):
        s = copy.copy(s)
        s.body = _normalize(s.body, in_loop, names)
    return s


# =============================================================================================
# Code generation
# =============================================================================================


class _Pos:
    __slots__ = ("lineno", "col_offset", "end_lineno", "end_col_offset")

    def __init__(self, line, col, end_col):
        self.lineno = self.end_lineno = line
        self.col_offset, self.end_col_offset = col, max(end_col, col)


def _header(s):
    """The first line of statement `s` (its keyword up to its test/iterable), as a one-line position:
    CPython places a call on the line where its callee ends, so generated code stays on that line."""
    head = getattr(s, "test", None) or getattr(s, "iter", None)
    if head is not None and head.end_lineno == s.lineno:
        return _Pos(s.lineno, s.col_offset, head.end_col_offset)
    if getattr(s, "end_lineno", s.lineno) == s.lineno:
        return _Pos(s.lineno, s.col_offset, s.end_col_offset)
    return _Pos(s.lineno, s.col_offset, s.col_offset + 1)


def _locate(node, ref):
    """Gives every generated node of `node` (those without a position) the one-line position of `ref`."""
    if not isinstance(ref, _Pos):
        ref = _header(ref)
    for n in ast.walk(node):
        if "lineno" in n._attributes and getattr(n, "lineno", None) is None:
            n.lineno, n.col_offset = ref.lineno, ref.col_offset
            n.end_lineno, n.end_col_offset = ref.end_lineno, ref.end_col_offset
    return node


def _rt(attr):
    return ast.Attribute(ast.Name(RT, ast.Load()), attr, ast.Load())


def _call(attr, *args):
    return ast.Call(_rt(attr), list(args), [])


def _strs(names):
    return ast.Tuple([ast.Constant(n) for n in names], ast.Load())


def _names_tuple(names, ctx):
    return ast.Tuple([ast.Name(n, ctx()) for n in names], ctx())


def _ret(names):
    return ast.Return(_names_tuple(names, ast.Load))


def _assign(names, value):
    if not names:
        return ast.Expr(value)
    return ast.Assign(targets=[_names_tuple(names, ast.Store)], value=value)


_DEF_TEMPLATE = ast.parse("def f():\n    pass").body[0]


def _def(name, params, body):
    d = copy.deepcopy(_DEF_TEMPLATE)
    for n in ast.walk(d):  # the template's positions are not the author's
        for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(n, a):
                setattr(n, a, None)
    d.name = name
    d.args.args = [ast.arg(arg=p) for p in params]
    d.body = body
    return d


def _lambda(expr):
    lam = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                        kwarg=None, defaults=[]), body=expr)
    return _locate(lam, expr)


_NO_THUNK = (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)


class _Exprs(ast.NodeTransformer):
    """`a if c else b` -> __tessel__.ifexp(c, lambda: a, lambda: b) (conditions also get `and`/`or`/`not`)."""

    def visit_IfExp(self, node):
        if _has(node, _NO_THUNK):
            return self.generic_visit(node)
        call = _call("ifexp", _test(node.test), _lambda(self.visit(node.body)), _lambda(self.visit(node.orelse)))
        return _locate(call, node)


def _exprs(node):
    if node is None or not _has(node, ast.IfExp):
        return node
    return _Exprs().visit(copy.deepcopy(node))


def _test(e):
    """A rewritten condition: `and`/`or`/`not` short-circuit through kir.if on traced operands."""
    if _has(e, _NO_THUNK):
        return _exprs(e)
    if isinstance(e, ast.BoolOp):
        vals = [_test(v) for v in e.values]
        fn = "and_" if isinstance(e.op, ast.And) else "or_"
        acc = vals[-1]
        for v in reversed(vals[:-1]):
            acc = _locate(_call(fn, v, _lambda(acc)), e)
        return acc
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return _locate(_call("not_", _test(e.operand)), e)
    return _exprs(e)


class _FnCtx:
    """Per rewritten function: the names read by its nested functions and lambdas."""

    def __init__(self, body):
        self.nested = []
        for stmt in body:
            for n in ast.walk(stmt):
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    self.nested.append((n, _loads(n)))

    def reads_outside(self, s) -> set:
        """Names that closures defined outside `s` may read (at any time)."""
        if not self.nested:
            return set()
        inside = {id(n) for n in ast.walk(s)}
        out = set()
        for n, reads in self.nested:
            if id(n) not in inside:
                out |= reads
        return out


class _Rewriter:
    def __init__(self):
        self.names = _Names()
        self.live = _Live()

    def function(self, fdef, nested: bool):
        if _is_generator(fdef):
            return fdef
        body = _normalize(fdef.body, False, self.names)
        fctx = _FnCtx(body)
        new = copy.copy(fdef)
        new.body = self.block(body, frozenset(), None, fctx)
        if nested:
            marker = _rt("rewritten_mark")
            _locate(marker, fdef)
            new.decorator_list = list(fdef.decorator_list) + [marker]
        return new

    def block(self, stmts, out, lctx, fctx):
        lives = []
        live = frozenset(out)
        for s in reversed(stmts):
            lives.append(live)
            live = self.live.stmt(s, live, lctx)
        lives.reverse()
        res = []
        for s, live in zip(stmts, lives):
            res.extend(self.stmt(s, live, lctx, fctx))
        return res

    def stmt(self, s, live, lctx, fctx):
        if isinstance(s, ast.If):
            return self.if_stmt(s, live, lctx, fctx)
        if isinstance(s, ast.For):
            return self.for_stmt(s, live, lctx, fctx)
        if isinstance(s, ast.While):
            return self.while_stmt(s, live, lctx, fctx)
        if isinstance(s, ast.FunctionDef):
            return [self.function(s, nested=True)]
        if isinstance(s, (ast.AsyncFunctionDef, ast.ClassDef, ast.AsyncFor, ast.AsyncWith)):
            return [s]
        if isinstance(s, ast.With):
            n = copy.copy(s)
            n.body = self.block(s.body, live, lctx, fctx)
            return [n]
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            n = copy.copy(s)
            fin = self.live.block(s.finalbody, live, lctx)
            n.finalbody = self.block(s.finalbody, live, lctx, fctx)
            h_in = frozenset()
            handlers = []
            for h in s.handlers:
                h2 = copy.copy(h)
                h2.body = self.block(h.body, fin, lctx, fctx)
                handlers.append(h2)
                h_in = h_in | self.live.block(h.body, fin, lctx) | _loads(h.type)
            n.handlers = handlers
            els = self.live.block(s.orelse, fin, lctx)
            n.orelse = self.block(s.orelse, fin, lctx, fctx)
            n.body = self.block(s.body, els | h_in, lctx, fctx)
            return [n]
        if type(s).__name__ == "Match":
            n = copy.copy(s)
            n.subject = _locate(_call("guard_match", _exprs(s.subject), ast.Constant(ast.unparse(s.subject)),
                                      ast.Constant(s.lineno), ast.Constant(s.col_offset)), s.subject)
            cases = []
            for c in s.cases:
                c2 = copy.copy(c)
                c2.body = self.block(c.body, live, lctx, fctx)
                cases.append(c2)
            n.cases = cases
            return [n]
        return [_exprs(s)]

    # --- if ----------------------------------------------------------------------------------------
    def if_stmt(self, s, live, lctx, fctx):
        test = _test(s.test)
        esc = _escape(s.body + s.orelse)
        if esc:
            kind, node = esc
            n = copy.copy(s)
            n.test = _locate(_call("guard_if", test, ast.Constant(kind), ast.Constant(node.lineno),
                                   ast.Constant(node.col_offset)), s.test)
            n.body = self.block(s.body, live, lctx, fctx)
            n.orelse = self.block(s.orelse, live, lctx, fctx)
            return [n]
        assigned = _assigned(s.body + s.orelse)
        closure = fctx.reads_outside(s)
        outs = [n for n in assigned if n in live or n in closure]
        exposed = self.live.block(s.body, frozenset()) | self.live.block(s.orelse, frozenset())
        params = outs + [n for n in assigned if n in exposed and n not in outs]
        k = next(self.names.counter)
        then_name, else_name = f"__tessel_then_{k}", f"__tessel_else_{k}"
        gen = [_def(then_name, params, self.block(s.body, frozenset(outs), None, fctx) + [_ret(outs)])]
        if s.orelse:
            gen.append(_def(else_name, params, self.block(s.orelse, frozenset(outs), None, fctx) + [_ret(outs)]))
        call = _call("if_", test, ast.Name(then_name, ast.Load()),
                     ast.Name(else_name, ast.Load()) if s.orelse else ast.Constant(None),
                     _strs(params), ast.Constant(len(outs)))
        gen.append(_assign(outs, call))
        return [_locate(g, s) for g in gen]

    # --- for -----------------------------------------------------------------------------------------
    def for_stmt(self, s, live, lctx, fctx):
        it = s.iter
        if (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and not it.keywords
                and not any(isinstance(a, ast.Starred) for a in it.args)):
            it = _locate(_call("range_", ast.Name("range", ast.Load()), *[_exprs(a) for a in it.args]), it)
        else:
            it = _exprs(it)
        head = self.live.for_head(s, live, lctx)
        esc = _escape(s.body)
        if esc:
            kind, node = esc
            n = copy.copy(s)
            n.iter = _locate(_call("guard_for", it, ast.Constant(kind), ast.Constant(node.lineno),
                                   ast.Constant(node.col_offset)), s.iter)
            n.body = self.block(s.body, head, (live, head), fctx)
            n.orelse = self.block(s.orelse, live, lctx, fctx)
            return [n]
        targets = _target_names(s.target)
        assigned = [n for n in targets] + [n for n in _assigned(s.body) if n not in targets]
        closure = fctx.reads_outside(s)
        params = [n for n in assigned if n in head or n in live or n in closure]
        exposed = self.live.block(s.body, frozenset()) - set(targets)
        k = next(self.names.counter)
        body_name, item = f"__tessel_body_{k}", f"__tessel_item_{k}"
        bind = ast.Assign(targets=[s.target], value=ast.Name(item, ast.Load()))
        _locate(bind, s.target)
        body = [bind] + self.block(s.body, frozenset(params), None, fctx) + [_ret(params)]
        gen = [_def(body_name, [item] + params, body)]
        flat = isinstance(s.target, ast.Name) or (isinstance(s.target, ast.Tuple) and
                                                  all(isinstance(e, ast.Name) for e in s.target.elts))
        call = _call("for_", it, ast.Name(body_name, ast.Load()), _strs(params),
                     _strs([n for n in targets if n in params]), _strs([n for n in params if n in exposed]),
                     _strs(targets if flat else []))
        gen.append(_assign(params, call))
        return [_locate(g, s) for g in gen] + self.block(s.orelse, live, lctx, fctx)

    # --- while ---------------------------------------------------------------------------------------
    def while_stmt(self, s, live, lctx, fctx):
        test = _test(s.test)
        head = self.live.while_head(s, live, lctx)
        esc = _escape(s.body)
        if not esc and _has(s.test, ast.NamedExpr):
            esc = ("walrus", s.test)
        if esc:
            kind, node = esc
            n = copy.copy(s)
            n.test = _locate(_call("guard_while", test, ast.Constant(kind), ast.Constant(node.lineno),
                                   ast.Constant(node.col_offset)), s.test)
            n.body = self.block(s.body, head, (live, head), fctx)
            n.orelse = self.block(s.orelse, live, lctx, fctx)
            return [n]
        assigned = _assigned(s.body)
        closure = fctx.reads_outside(s)
        params = [n for n in assigned if n in head or n in live or n in closure]
        exposed = self.live.block(s.body, frozenset()) | _loads(s.test)
        k = next(self.names.counter)
        cond_name, body_name = f"__tessel_cond_{k}", f"__tessel_body_{k}"
        ret = ast.Return(copy.deepcopy(test))
        _locate(ret, s.test)
        gen = [_def(cond_name, params, [ret]),
               _def(body_name, params, self.block(s.body, frozenset(params), None, fctx) + [_ret(params)])]
        call = _call("while_", _call("mark"), test, ast.Name(cond_name, ast.Load()), ast.Name(body_name, ast.Load()),
                     _strs(params), _strs([n for n in params if n in exposed]))
        gen.append(_assign(params, call))
        return [_locate(g, s) for g in gen] + self.block(s.orelse, live, lctx, fctx)


# =============================================================================================
# Entry point: the rewritten function
# =============================================================================================

_CACHE: dict = {}  # id(code) -> (code, rewritten code or None)


def _strip_signature(fdef):
    fdef = copy.copy(fdef)
    fdef.decorator_list = []
    fdef.returns = None
    args = copy.copy(fdef.args)
    args.posonlyargs = [copy.copy(a) for a in args.posonlyargs]
    args.args = [copy.copy(a) for a in args.args]
    args.kwonlyargs = [copy.copy(a) for a in args.kwonlyargs]
    args.vararg = copy.copy(args.vararg) if args.vararg else None
    args.kwarg = copy.copy(args.kwarg) if args.kwarg else None
    for a in args.posonlyargs + args.args + args.kwonlyargs + [x for x in (args.vararg, args.kwarg) if x]:
        a.annotation = None
    args.defaults = []
    args.kw_defaults = [None] * len(args.kwonlyargs)
    fdef.args = args
    return fdef


def _source_tree(fn):
    """The FunctionDef of `fn` from its source, positioned as in its file (None when unavailable)."""
    code = fn.__code__
    try:
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    if not lines:
        return None
    first = lines[0]
    indented = first[:1] in (" ", "\t")
    src = ("if 1:\n" if indented else "") + "".join(lines)
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return None
    node = tree.body[0].body[0] if indented else tree.body[0]
    if not isinstance(node, ast.FunctionDef) or node.name != code.co_name:
        return None
    ast.increment_lineno(tree, start - (2 if indented else 1))
    return node


def _compile(fn):
    code = fn.__code__
    node = _source_tree(fn)
    if node is None or _is_generator(node):
        return None
    node = _strip_signature(node)
    new = _Rewriter().function(node, nested=False)
    params = [f for f in code.co_freevars if f != RT] + [RT]
    factory = _def("__tessel_factory__", params, [new, ast.Return(ast.Name(new.name, ast.Load()))])
    _locate(factory, node)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    if os.environ.get("TESSEL_SHOW_REWRITE"):
        print(f"# tessel rewrite of {code.co_filename}:{node.lineno}\n{ast.unparse(new)}", file=sys.stderr)
    compiled = compile(module, code.co_filename, "exec", dont_inherit=True)
    ns = {"__builtins__": builtins}
    exec(compiled, ns)
    inner = ns["__tessel_factory__"](*([None] * len(params))).__code__
    n = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS) + \
        bool(code.co_flags & inspect.CO_VARKEYWORDS)
    if inner.co_varnames[:n] != code.co_varnames[:n] or inner.co_argcount != code.co_argcount:
        return None  # the source on disk is not this function's
    return inner


_MODULE = sys.modules[__name__]


def rewritten(fn):
    """`fn` with ordinary control flow over runtime values rewritten (see the module docstring);
    `fn` itself when it is not a plain Python function with source."""
    if getattr(fn, "__tessel_rewritten__", False) or not isinstance(fn, types.FunctionType):
        return fn
    code = fn.__code__
    hit = _CACHE.get(id(code))
    if hit is None or hit[0] is not code:
        hit = _CACHE[id(code)] = (code, _compile(fn))
    new_code = hit[1]
    if new_code is None:
        return fn
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    cells[RT] = types.CellType(_MODULE)
    if any(n not in cells for n in new_code.co_freevars):
        return fn
    closure = tuple(cells[n] for n in new_code.co_freevars)
    new = types.FunctionType(new_code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__annotations__ = fn.__annotations__
    new.__qualname__, new.__module__, new.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
    new.__dict__.update(fn.__dict__)
    new.__tessel_rewritten__ = True
    new.__wrapped__ = fn
    return new
