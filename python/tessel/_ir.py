"""The KIR under construction: ops, blocks, the open regions (scopes) of a trace, axis provenance, and
the builder of the kernel being traced (thread-local). Nothing here knows what an op means; the
operations (_semantic.py, _structured.py, _control.py) append ops through the builder.
"""
from __future__ import annotations

import itertools
import threading

from ._errors import CompileError, Loc, error, user_loc


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


def _render_block(block: Block, indent: str, out: list, loc: str):
    if block.args:  # located at the op owning the region (else the parser locates them in the KIR text)
        args = ", ".join(f"{n}: {t} {loc}" for n, t in block.args)
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
        _render_block(block, indent + "  ", out, loc)
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
    """The kernel being traced: its open region, fresh SSA names, shape symbols and views. It carries
    the module of operations (`semantic`) the value classes call (_core.py), the way Triton's code
    generator hands its semantic object to the builtins."""

    def __init__(self, name: str, loc: Loc, semantic):
        self.name, self.loc, self.semantic = name, loc, semantic
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
