#!/usr/bin/env python3
"""DSL-level fuzzer (issue 47 item 3): random *Python* kernels over tessel.language, run through the
tracer, the KIR and pgpu interpreters and the Triton provider (TRITON_INTERPRET=1), compared against an
independent NumPy evaluation of the same random program.

One random expression tree gives both spellings: `Node.code` is the DSL text written into the kernel
file, `Node.ev` evaluates the same operation in float64 NumPy together with a rigorous forward error
bound (running error analysis: each rounding in a dtype adds u_dtype * |result| plus the dtype's
smallest normal; sums add gamma_n * sum |terms|; library functions 4 ulp of f32 before the dtype's
own rounding). The NumPy side never reads tessel: a result outside the bound is a silent mismatch.
A comparison whose outcome the bound cannot decide (|a - b| <= error) makes the boolean uncertain, and
what depends on it is bounded by both outcomes or left unchecked (inf).

Kernels are written into --work as k_<seed>_<i>.py and run in worker processes (a hang is a timeout,
a crash of a worker a finding). A finding is:
  - a crash/abort/timeout of the tessel binary or of the worker;
  - a Python exception from inside tessel other than tessel.CompileError (a traceback), or a
    CompileError that does not name the user's kernel file and a line;
  - a valid program refused (a CompileError on a generated valid kernel; triage: generator or tessel);
  - a numeric mismatch beyond the bound; an unwritten output element that the program writes;
  - for the *invalid* programs (one defect injected on purpose at a known line: a store to an In view,
    reading an Out before writing it, a wrong coordinate count, mismatched extents, a float index, ...):
    acceptance, or an error that does not name the kernel file and the defect's line.
Findings are saved under --save (default build/dsl-fuzz-findings/) as the kernel file plus a .txt with
the command that reproduces it and the output.

    python3 test/fuzz/dsl_fuzz.py --seconds 60 --jobs 1 --seed 7
    python3 test/fuzz/dsl_fuzz.py --count 500 --seed 3 --no-triton
    python3 test/fuzz/dsl_fuzz.py --replay build/dsl-fuzz-findings/k_7_12.py   (one kernel, verbose)

Deterministic from --seed: kernel i of a run is generated from (seed, i) alone.
Exit status: 0 when nothing was found, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import random
import select
import shutil
import subprocess
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[2]

FLOATS = ("f32", "f16", "bf16")
INTS = ("i32", "i8")
U = {"f32": 2.0 ** -24, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}
TINY = {"f32": 2.0 ** -126, "f16": 2.0 ** -14, "bf16": 2.0 ** -126}
LIB = 8 * U["f32"]  # library precision: 4 ulp of f32 (seed 000 §7's CUDA bounds are <= 4 ulp)
FMAX = {"f32": 3.4028234e38, "f16": 65504.0, "bf16": 3.3895314e38}
LIMIT = {"f32": 1e5, "f16": 1e3, "bf16": 1e4, "i32": 1e6, "i8": 100.0, "i1": 1.0}
RANGE = {"i32": (-2 ** 31, 2 ** 31 - 1), "i8": (-128, 127), "i1": (0, 1)}
TDT = {"f16": "T.f16", "bf16": "T.bf16", "f32": "T.f32", "i32": "T.i32", "i8": "T.i8", "i1": "T.bool_"}
SIZES = (1, 2, 3, 5, 7, 11, 13)
MAXN = max(SIZES)

INF = math.inf


def gamma(n, u):
    """The bound of n roundings, n * u / (1 - n * u); no bound (inf) once n * u reaches 1 (a bf16 sum of a
    1031-long row: the accumulated rounding may be as large as the sum itself)."""
    n = max(int(n), 1)
    return n * u / (1.0 - n * u) if n * u < 1.0 else INF


def _np():
    import numpy as np
    return np


# --------------------------------------------------------------------------------------------------
# Expression trees: DSL text and a float64 evaluation with an error bound, from one node
# --------------------------------------------------------------------------------------------------
class Ctx:
    """Evaluation context: input arrays (float64, arranged on the frame axes), extents, scalars,
    constexprs, the unit roundoffs of the path being checked, and per-variable memo."""

    def __init__(self, frame, shape, arrays, scalars, u):
        self.frame, self.shape, self.arrays, self.scalars, self.u = frame, shape, arrays, scalars, u
        self.memo = {}

    def fshape(self):
        return tuple(self.shape[a] for a in self.frame)


class Node:
    __slots__ = ("code", "dt", "axes", "mag", "fn", "key")

    def __init__(self, code, dt, axes, mag, fn, key=None):
        self.code, self.dt, self.axes, self.mag, self.fn, self.key = code, dt, tuple(axes), float(mag), fn, key

    def ev(self, ctx, env=None):
        if self.key is not None and self.key in ctx.memo:
            return ctx.memo[self.key]
        np = _np()
        with np.errstate(all="ignore"):
            v, e = self.fn(ctx, env)
            v = np.asarray(v, dtype=np.float64)
            e = np.asarray(e, dtype=np.float64)
            e = np.where(np.isnan(e), INF, e)
            nf = len(ctx.frame)
            v = v.reshape((1,) * (nf - v.ndim) + v.shape)
            e = e.reshape((1,) * (nf - e.ndim) + e.shape)
            e = np.broadcast_to(e, np.broadcast_shapes(v.shape, e.shape))
            v = np.broadcast_to(v, e.shape)
        if self.key is not None:
            ctx.memo[self.key] = (v, e)
        return v, e


def rnd(ctx, dt, r):
    np = _np()
    if dt in FLOATS:
        return overflow(dt, r, ctx.u[dt] * np.abs(r) + TINY[dt])
    return 0.0


def overflow(dt, mag, e):
    """The bound e, or inf (unchecked) where a value (or a partial sum) of magnitude `mag` may leave the
    dtype's finite range: the oracle models rounding, not overflow (f16 sums over the large shapes)."""
    np = _np()
    return np.where(np.abs(mag) > 0.5 * FMAX[dt], INF, e)


def wrap_int(ctx, dt, v, e):
    """Two's-complement wrap of exact integers; an uncertain value that may leave the range is unchecked."""
    np = _np()
    if dt not in RANGE or dt == "i1":
        return v, e
    lo, hi = RANGE[dt]
    span = hi - lo + 1
    w = np.mod(v - lo, span) + lo
    e = np.where((e > 0) & ((np.abs(v) + e) > hi), INF, e)
    return w, e


def lit(x, dt):
    if dt in FLOATS:
        return repr(float(x))
    if dt == "i1":
        return "True" if x else "False"
    return str(int(x))


class Gen:
    """Random program generator. One instance builds one kernel from its own random.Random."""

    def __init__(self, rng: random.Random, template: str):
        self.rng, self.template = rng, template
        self.views = []       # (name, mode, dt, extents)
        self.counter = 0
        self.helpers = []     # module-level helper source blocks
        self.scalars = {}     # runtime scalar name -> (dt, value)
        self.constexprs = {}  # name -> (annotation, value)
        self.frame = ()
        self.par = {}         # frame axis -> member variable (scalar coordinate) in the current context
        self.dom = {}         # frame axis -> domain variable
        self.extent = {}      # frame axis -> extent variable name
        self.vars = []        # visible local variables: Node with code = name
        self.depth_budget = 4
        self.no_reduce = False  # inside a runtime loop body (no cross-position ops needed)
        self.at_store = False   # building the value a store writes (where construction realizes a scan)

    # ---- helpers ---------------------------------------------------------------------------------
    def fresh(self, base="t"):
        self.counter += 1
        return f"{base}{self.counter}"

    def chance(self, p):
        return self.rng.random() < p

    def views_of(self, dt=None, mode=("in", "inout")):
        return [v for v in self.views if v[1] in mode and (dt is None or v[2] == dt)]

    # ---- leaves ----------------------------------------------------------------------------------
    def load_leaf(self, view, axes):
        """A load of `view` whose tensor axes are exactly `axes` (frame order), or None."""
        name, mode, dt, ext = view
        coords, vaxes, idxs = [], [], []
        for sym in ext:
            if sym in axes:
                coords.append(self.dom[sym])
                vaxes.append(sym)
                idxs.append(("all", sym))
            elif sym in self.par:
                coords.append(self.par[sym])
                idxs.append(("par", sym))
            elif sym in self.frame:
                if self.chance(0.5):
                    coords.append("0")
                    idxs.append(("at", 0))
                else:
                    coords.append(f"{self.extent[sym]} - 1")
                    idxs.append(("at", -1))
            else:
                return None
        if tuple(vaxes) != tuple(a for a in axes if a in vaxes) or set(vaxes) != set(axes):
            return None
        frame = self.frame

        def fn(ctx, env, name=name, ext=ext, idxs=idxs):
            np = _np()
            arr = ctx.arrays[name]
            sl = []
            for (kind, what) in idxs:
                sl.append(slice(what, what + 1 if what != -1 else None) if kind == "at" else slice(None))
            arr = arr[tuple(sl)]
            # arrange on the frame: axes of the view in frame order, missing frame axes of size 1
            shape = [1] * len(frame)
            for sym, n in zip(ext, arr.shape):
                shape[frame.index(sym)] = n
            return arr.reshape(shape), 0.0
        if len(ext) and all(k == "all" for k, _ in idxs) and len(vaxes) == len(ext) and not self.par and self.chance(0.3):
            code = f"{name}[{', '.join(':' for _ in ext)}]"
        else:
            code = f"{name}[{', '.join(coords)}]"
        return Node(code, dt, axes, 2.0 if dt in FLOATS else (50 if dt == "i32" else 20 if dt == "i8" else 1), fn)

    def leaf(self, dt, axes):
        rng = self.rng
        cands = []
        for v in self.views_of(dt):
            n = self.load_leaf(v, axes)
            if n is not None:
                cands.append(n)
        for v in self.vars:
            if v.dt == dt and v.axes == axes:
                cands.append(v)
                cands.append(v)
        # the reversed row through a computed index tensor: x[m, (N - 1) - T.indices(cols)]
        if self.template == "rows" and axes == ("N",):
            for v in self.views_of(dt):
                if v[3] == ("M", "N"):
                    cands.append(self.reversed_leaf(v))
        if axes and self.dom and self.chance(0.1):
            for v in self.views_of(dt):
                n = self.masked_leaf(v, axes)
                if n is not None:
                    cands.append(n)
                    break
        if self.template == "gather" and axes == ("P",):
            for v in self.views_of(dt):
                if v[3] == ("M", "N"):
                    cands.append(self.gather_leaf(v))
        if cands and not self.chance(0.15):
            return rng.choice(cands)
        # constants, coordinates, runtime scalars
        r = rng.random()
        if r < 0.3 and dt == "f32" and "s" in self.scalars:
            return self.scalar_leaf("s", dt, axes)
        if r < 0.45 and dt == "i32" and "q" in self.scalars:
            return self.scalar_leaf("q", dt, axes)
        if r < 0.7 and dt != "i1":
            cands = [a for a in self.frame if a in self.par or (a in axes and a in self.dom)]
            if cands:
                a = rng.choice(cands)
                return self.coord_leaf(a, dt, axes)
        return self.const_leaf(dt, axes)

    def reversed_leaf(self, view):
        """x[m, (N - 1) - T.indices(cols)]: a load through a computed index tensor (the row reversed)."""
        name, _, dt, _ = view
        frame = self.frame

        def fn(ctx, env):
            arr = ctx.arrays[name][:, ::-1]
            return arr.reshape([arr.shape[0] if a == "M" else arr.shape[1] for a in frame]), 0.0
        code = f"{name}[{self.par['M']}, ({self.extent['N']} - 1) - T.indices({self.dom['N']})]"
        return Node(code, dt, ("N",), 2.0 if dt in FLOATS else 50, fn)

    def gather_leaf(self, view):
        """x[m, idx[ps]]: a gather through an i32 view used as coordinates."""
        name, _, dt, _ = view

        def fn(ctx, env):
            np = _np()
            ids = ctx.arrays["idx"].astype(np.int64)
            return ctx.arrays[name][:, ids], 0.0
        return Node(f"{name}[{self.par['M']}, idx[{self.dom['P']}]]", dt, ("P",), 2.0 if dt in FLOATS else 50, fn)

    def masked_leaf(self, view, axes):
        """T.load(x, (m, cols), valid=mask, fill=c): invalid members read the fill."""
        plain = self.load_leaf(view, axes)
        if plain is None or not axes or view[2] not in FLOATS:
            return None
        saved = self.depth_budget
        mask = self.expr("i1", axes, 1)
        self.depth_budget = saved
        fill = self.rng.choice([0.0, -1.5, 2.0])
        coords = plain.code[plain.code.index("[") + 1:-1]
        if ":" in coords:
            return None
        code = f"T.load({view[0]}, ({coords},), valid={mask.code}, fill={fill!r})"
        return Node(code, view[2], axes, max(plain.mag, abs(fill)),
                    where(mask, plain, Node(repr(fill), view[2], (), abs(fill), lambda ctx, env: (fill, 0.0)),
                          random.Random(0)).fn)

    def scalar_leaf(self, name, dt, axes):
        node = Node(name, dt, (), abs(self.scalars[name][1]) + 1, lambda ctx, env: (ctx.scalars[name], 0.0))
        return self.broadcast_to(node, axes)

    def coord_leaf(self, a, dt, axes):
        frame = self.frame
        if a in self.par:
            code = f"T.cast({self.par[a]}, {TDT[dt]})"
            node_axes = ()
        else:
            code = f"T.cast(T.indices({self.dom[a]}), {TDT[dt]})"
            node_axes = (a,)

        def fn(ctx, env):
            np = _np()
            shape = [1] * len(frame)
            shape[frame.index(a)] = ctx.shape[a]
            v = np.arange(ctx.shape[a], dtype=np.float64).reshape(shape)
            if dt == "i8":
                v, _ = wrap_int(ctx, dt, v, 0.0)
            return v, rnd(ctx, dt, v)
        return self.broadcast_to(Node(code, dt, node_axes, MAXN, fn), axes)

    def const_leaf(self, dt, axes):
        rng = self.rng
        if dt in FLOATS:
            c = rng.choice([0.5, 1.5, -0.75, 2.0, 0.125, -3.0, 1.0])
            code = f"{TDT[dt]}({c!r})"
        elif dt == "i1":
            c = rng.choice([0, 1])
            code = f"T.bool_({'True' if c else 'False'})"
        else:
            c = rng.choice([1, 2, 3, -5, 7])
            code = f"{TDT[dt]}({c})"
        node = Node(code, dt, (), abs(c), lambda ctx, env: (float(c), 0.0))
        return self.broadcast_to(node, axes)

    def broadcast_to(self, node, axes):
        """A scalar (or lower-rank) node made exactly `axes`: a binary op with a full-shape zero would be
        too clever; T.broadcast spells it when a tensor is wanted."""
        if node.axes == tuple(axes):
            return node
        if not axes or any(a not in self.dom for a in axes):
            return node  # inside a helper no domain is visible: the binary op broadcasts the scalar
        extra = [a for a in axes if a not in node.axes]
        if any(a in self.par for a in axes):
            return node
        dims = [list(axes).index(a) for a in node.axes]
        over = ", ".join(self.dom[a] for a in axes)
        code = f"T.broadcast({node.code}, over=({over},), dims={dims})"
        frame, shape_axes = self.frame, tuple(axes)

        def fn(ctx, env, node=node):
            np = _np()
            v, e = node.ev(ctx, env)
            full = [ctx.shape[a] if (a in shape_axes or v.shape[frame.index(a)] != 1) else 1 for a in frame]
            return np.broadcast_to(v, full), np.broadcast_to(e, full)
        del extra
        return Node(code, node.dt, axes, node.mag, fn)

    # ---- expressions -----------------------------------------------------------------------------
    def sub_axes(self, axes):
        """A random subsequence of `axes` (a broadcast operand)."""
        if not axes or self.chance(0.7):
            return tuple(axes)
        return tuple(a for a in axes if self.chance(0.5))

    def expr(self, dt, axes, depth=None):
        depth = self.depth_budget if depth is None else depth
        if depth <= 0 or self.chance(0.2):
            return self.leaf(dt, axes)
        if dt in FLOATS:
            node = self.float_expr(dt, axes, depth)
        elif dt == "i1":
            node = self.bool_expr(axes, depth)
        else:
            node = self.int_expr(dt, axes, depth)
        return self.tame(node)

    def tame(self, node):
        if node.mag <= LIMIT[node.dt]:
            return node
        if node.dt in FLOATS:
            return unary("tanh", node)
        if node.dt in INTS:
            return int_binop("%", node, Node("97", node.dt, (), 97, lambda ctx, env: (97.0, 0.0)))
        return node

    def float_expr(self, dt, axes, depth):
        rng = self.rng
        r = rng.random()
        d = depth - 1
        if r < 0.30:
            op = rng.choice(["+", "-", "*", "*", "/", "max", "min", "+"])
            a = self.expr(dt, axes, d)
            b = self.expr(dt, self.sub_axes(axes), d)
            if self.chance(0.5):
                a, b = b, a
            if self.chance(0.15) and op in "+-*":
                c = rng.choice([2.0, 0.5, -1.5, 3.0])
                full = a if a.axes == tuple(axes) else b  # the operand over all the wanted axes
                return float_binop(op, full, Node(repr(c), dt, (), abs(c), lambda ctx, env: (c, 0.0)), pylit=True)
            return float_binop(op, a, b)
        if r < 0.55:
            kind = rng.choice(["neg", "abs", "exp", "log", "sqrt", "tanh", "sigmoid", "sin", "cos", "relu",
                               "erf", "floor", "round", "ceil", "neg", "abs"])
            return unary(kind, self.expr(dt, axes, d))
        if r < 0.65:
            c = self.expr("i1", self.sub_axes(axes), d)
            return where(c, self.expr(dt, axes, d), self.expr(dt, self.sub_axes(axes), d), self.rng)
        if r < 0.75:
            src = rng.choice([x for x in FLOATS + INTS + ("i1",) if x != dt])
            return cast(self.expr(src, axes, d), dt)
        if r < 0.90 and not self.no_reduce:
            red = self.reduction(dt, axes, d)
            if red is not None:
                return red
        if r < 0.97 and not self.no_reduce and (self.at_store or self.chance(0.05)):
            sc = self.scan(dt, axes, d)
            if sc is not None:
                return sc
        return self.leaf(dt, axes)

    def int_expr(self, dt, axes, depth):
        rng = self.rng
        r = rng.random()
        d = depth - 1
        if r < 0.45:
            op = rng.choice(["+", "-", "*", "max", "min", "//", "%", "&", "|", "^"])
            a = self.expr(dt, axes, d)
            if op in ("//", "%"):
                c = rng.choice([2, 3, 5, 7])
                return int_binop(op, a, Node(str(c), dt, (), c, lambda ctx, env: (float(c), 0.0)))
            return int_binop(op, a, self.expr(dt, self.sub_axes(axes), d))
        if r < 0.55:
            return int_unary(rng.choice(["neg", "abs"]), self.expr(dt, axes, d))
        if r < 0.65:
            c = self.expr("i1", self.sub_axes(axes), d)
            return where(c, self.expr(dt, axes, d), self.expr(dt, self.sub_axes(axes), d), self.rng)
        if r < 0.85:
            src = rng.choice([x for x in FLOATS + INTS + ("i1",) if x != dt])
            return cast(self.expr(src, axes, d), dt)
        if r < 0.92 and not self.no_reduce and dt == "i32":
            red = self.reduction(dt, axes, d, kinds=("max", "min", "sum"))
            if red is not None:
                return red
        return self.leaf(dt, axes)

    def bool_expr(self, axes, depth):
        rng = self.rng
        r = rng.random()
        d = depth - 1
        if r < 0.6:
            src = rng.choice(FLOATS + INTS)
            op = rng.choice(["<", "<=", ">", ">=", "==", "!="] if src in INTS else ["<", "<=", ">", ">="])
            a = self.expr(src, axes, d)
            b = self.expr(src, self.sub_axes(axes), d)
            if self.chance(0.5):
                a, b = b, a
            return compare(op, a, b)
        if r < 0.8:
            op = rng.choice(["&", "|", "^"])
            return bool_binop(op, self.expr("i1", axes, d), self.expr("i1", self.sub_axes(axes), d))
        if r < 0.9:
            return bool_not(self.expr("i1", axes, d))
        if r < 0.95 and not self.no_reduce:
            red = self.reduction("i1", axes, d, kinds=("any", "all"))
            if red is not None:
                return red
        return self.leaf("i1", axes)

    def free_axes(self, axes):
        return [a for a in self.frame if a not in axes and a not in self.par and a in self.dom]

    def reduction(self, dt, axes, depth, kinds=("sum", "max", "min", "mean", "sum")):
        free = self.free_axes(axes)
        if not free:
            return None
        a = self.rng.choice(free)
        child_axes = tuple(x for x in self.frame if x in axes or x == a)
        kind = self.rng.choice(kinds)
        child = self.expr(dt, child_axes, depth)
        if kind in ("sum", "mean") and child.mag * MAXN > LIMIT[dt]:
            child = self.tame_to(child, LIMIT[dt] / MAXN)
        pos = child_axes.index(a)
        acc = None
        if kind in ("sum", "mean") and dt in ("f16", "bf16") and self.chance(0.5):
            acc = "f32"
        return reduce_node(kind, child, pos, a, self, acc, allaxes=(len(child_axes) == 1 and self.chance(0.5)))

    def tame_to(self, node, lim):
        if node.mag <= lim:
            return node
        if node.dt in FLOATS:
            return unary("tanh", node)
        return int_binop("%", node, Node("7", node.dt, (), 7, lambda ctx, env: (7.0, 0.0)))

    def scan(self, dt, axes, depth):
        cands = [a for a in axes if a in self.dom and a not in self.par]
        if not cands or dt not in FLOATS:
            return None
        a = self.rng.choice(cands)
        saved, self.at_store = self.at_store, False
        try:
            child = self.expr(dt, axes, depth)
        finally:
            self.at_store = saved
        if child.mag * MAXN > LIMIT[dt]:
            child = self.tame_to(child, LIMIT[dt] / MAXN)
        return scan_node(self.rng.choice(["cumsum", "cumsum", "cummax", "cummin", "scan_add", "scan_max"]),
                         child, axes.index(a), a, self)


# ---- node constructors ---------------------------------------------------------------------------
def _bcast_axes(a, b):
    return a.axes if len(a.axes) >= len(b.axes) else b.axes


def float_binop(op, a, b, pylit=False):
    dt = a.dt if not pylit else a.dt
    axes = _bcast_axes(a, b)
    if op == "/":
        code = f"({a.code} / (T.abs({b.code}) + 1.0))"
        mag = a.mag
    elif op in ("max", "min"):
        fn = "T.maximum" if op == "max" else "T.minimum"
        code = f"{fn}({a.code}, {b.code})"
        mag = max(a.mag, b.mag)
    else:
        code = f"({a.code} {op} {b.code})"
        mag = a.mag * b.mag if op == "*" else a.mag + b.mag

    def fn(ctx, env):
        np = _np()
        va, ea = a.ev(ctx, env)
        vb, eb = b.ev(ctx, env)
        if op == "+":
            r = va + vb
            e = ea + eb
        elif op == "-":
            r = va - vb
            e = ea + eb
        elif op == "*":
            r = va * vb
            e = np.abs(vb) * ea + np.abs(va) * eb + ea * eb
        elif op == "/":
            d = np.abs(vb) + 1.0
            ed = eb + rnd(ctx, dt, d)          # abs is exact; the + 1.0 rounds
            r = va / d
            lo = d - ed
            e = np.where(lo > 0, (ea + np.abs(r) * ed) / np.where(lo > 0, lo, 1.0), INF)
        elif op == "max":
            r = np.maximum(va, vb)
            return r, np.maximum(ea, eb)
        else:
            r = np.minimum(va, vb)
            return r, np.maximum(ea, eb)
        return r, e + rnd(ctx, dt, r)
    return Node(code, dt, axes, mag, fn)


def unary(kind, a):
    dt = a.dt
    inner = a.code
    if kind == "neg":
        code, mag = f"(-{inner})", a.mag
    elif kind == "abs":
        code, mag = (f"abs({inner})" if hash(inner) % 2 else f"T.abs({inner})"), a.mag
    elif kind == "exp":
        if a.mag > 6:
            code, mag = f"T.exp(-T.abs({inner}))", 1.0
            kind = "expneg"
        else:
            code, mag = f"T.exp({inner})", math.exp(a.mag)
    elif kind == "log":
        code, mag = f"T.log(T.abs({inner}) + 1.0)", math.log(a.mag + 1) + 1
    elif kind == "sqrt":
        code, mag = f"T.sqrt(T.abs({inner}))", math.sqrt(a.mag) + 1
    elif kind in ("floor", "round", "ceil"):
        code, mag = f"T.{kind}({inner})", a.mag + 1
    else:
        code, mag = f"T.{kind}({inner})", (a.mag if kind == "relu" else 1.0)

    def fn(ctx, env):
        np = _np()
        v, e = a.ev(ctx, env)
        if kind == "neg":
            return -v, e
        if kind == "abs":
            return np.abs(v), e
        if kind == "relu":
            return np.maximum(v, 0.0), e
        if kind in ("floor", "round", "ceil"):
            f = {"floor": np.floor, "ceil": np.ceil, "round": np.rint}[kind]
            r = f(v)
            same = (f(v - e) == f(v + e))
            return r, np.where(same, 0.0, e + 1.0)
        if kind == "exp":
            r = np.exp(v)
            ee = r * np.expm1(e)
        elif kind == "expneg":
            r = np.exp(-np.abs(v))
            ee = r * np.expm1(e)
        elif kind == "log":
            y = np.abs(v) + 1.0
            ey = e + rnd(ctx, dt, y)
            r = np.log(y)
            ee = np.where(y - ey > 0, np.log1p(ey / np.where(y - ey > 0, y - ey, 1.0)), INF)
        elif kind == "sqrt":
            y = np.abs(v)
            r = np.sqrt(y)
            ee = np.minimum(np.sqrt(e), np.where(y > 0, e / np.sqrt(np.where(y > 0, y, 1.0)), INF))
        elif kind == "tanh":
            r, ee = np.tanh(v), e
        elif kind == "sigmoid":
            r, ee = 1.0 / (1.0 + np.exp(-v)), 0.25 * e
        elif kind == "sin":
            r, ee = np.sin(v), e
        elif kind == "cos":
            r, ee = np.cos(v), e
        elif kind == "erf":
            r = np.vectorize(math.erf, otypes=[np.float64])(v) if v.size else v.copy()
            ee = (2.0 / math.sqrt(math.pi)) * e
        else:
            raise AssertionError(kind)
        return r, ee + LIB * np.abs(r) + rnd(ctx, dt, r) + TINY["f32"]
    return Node(code, dt, a.axes, mag, fn)


def int_unary(kind, a):
    dt = a.dt
    code = f"(-{a.code})" if kind == "neg" else f"T.abs({a.code})"

    def fn(ctx, env):
        np = _np()
        v, e = a.ev(ctx, env)
        r = -v if kind == "neg" else np.abs(v)
        return wrap_int(ctx, dt, r, e)
    return Node(code, dt, a.axes, a.mag, fn)


def int_binop(op, a, b):
    dt = a.dt
    axes = _bcast_axes(a, b)
    if op in ("max", "min"):
        code = f"T.{'maximum' if op == 'max' else 'minimum'}({a.code}, {b.code})"
        mag = max(a.mag, b.mag)
    else:
        code = f"({a.code} {op} {b.code})"
        mag = {"+": a.mag + b.mag, "-": a.mag + b.mag, "*": a.mag * b.mag, "//": a.mag, "%": b.mag,
               "&": max(a.mag, b.mag) * 2, "|": max(a.mag, b.mag) * 2, "^": max(a.mag, b.mag) * 2}[op]

    def fn(ctx, env):
        np = _np()
        va, ea = a.ev(ctx, env)
        vb, eb = b.ev(ctx, env)
        if op == "+":
            r, e = va + vb, ea + eb
        elif op == "-":
            r, e = va - vb, ea + eb
        elif op == "*":
            r, e = va * vb, np.abs(vb) * ea + np.abs(va) * eb + ea * eb
        elif op == "max":
            return np.maximum(va, vb), np.maximum(ea, eb)
        elif op == "min":
            return np.minimum(va, vb), np.maximum(ea, eb)
        else:
            ia, ib = va.astype(np.int64), vb.astype(np.int64)
            if op == "//":
                r = np.floor_divide(ia, ib)
            elif op == "%":
                r = np.mod(ia, ib)
            elif op == "&":
                r = ia & ib
            elif op == "|":
                r = ia | ib
            else:
                r = ia ^ ib
            r = r.astype(np.float64)
            e = np.where((ea > 0) | (eb > 0), INF, 0.0)
        return wrap_int(ctx, dt, r, e)
    return Node(code, dt, axes, mag, fn)


def compare(op, a, b):
    axes = _bcast_axes(a, b)
    code = f"({a.code} {op} {b.code})"

    def fn(ctx, env):
        np = _np()
        va, ea = a.ev(ctx, env)
        vb, eb = b.ev(ctx, env)
        r = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal,
             "!=": np.not_equal}[op](va, vb).astype(np.float64)
        tol = ea + eb
        unc = (tol > 0) & (np.abs(va - vb) <= tol)
        return r, np.where(unc, INF, 0.0)
    return Node(code, "i1", axes, 1, fn)


def bool_binop(op, a, b):
    axes = _bcast_axes(a, b)
    code = f"({a.code} {op} {b.code})"

    def fn(ctx, env):
        np = _np()
        va, ea = a.ev(ctx, env)
        vb, eb = b.ev(ctx, env)
        ia, ib = va.astype(bool), vb.astype(bool)
        r = {"&": ia & ib, "|": ia | ib, "^": ia ^ ib}[op].astype(np.float64)
        return r, np.where((ea > 0) | (eb > 0), INF, 0.0)
    return Node(code, "i1", axes, 1, fn)


def bool_not(a):
    def fn(ctx, env):
        v, e = a.ev(ctx, env)
        return 1.0 - v, e
    return Node(f"(~{a.code})", "i1", a.axes, 1, fn)


def where(c, a, b, rng):
    axes = max((c.axes, a.axes, b.axes), key=len)
    # the longest operand's axes must hold the others (they are all subsequences of the wanted axes)
    dt = a.dt
    code = f"T.where({c.code}, {a.code}, {b.code})"
    if rng.random() < 0.25 and not axes:
        code = f"({a.code} if {c.code} else {b.code})"  # a conditional expression on a runtime scalar

    def fn(ctx, env):
        np = _np()
        vc, ec = c.ev(ctx, env)
        va, ea = a.ev(ctx, env)
        vb, eb = b.ev(ctx, env)
        r = np.where(vc != 0, va, vb)
        e = np.where(vc != 0, ea, eb)
        e = np.where(ec > 0, np.maximum(ea, eb) + np.abs(va - vb), e)
        return r, e
    return Node(code, dt, axes, max(a.mag, b.mag), fn)


def cast(a, dt):
    code = f"T.cast({a.code}, {TDT[dt]})"
    src = a.dt

    def fn(ctx, env):
        np = _np()
        v, e = a.ev(ctx, env)
        if dt in FLOATS:
            if src == "i1":
                return v, np.where(e > 0, 1.0, 0.0)
            return v, e + rnd(ctx, dt, v)
        if dt == "i1":
            r = (v != 0).astype(np.float64)
            return r, np.where((e > 0) & (np.abs(v) <= e), INF, 0.0)
        if src in FLOATS:
            lo, hi = RANGE[dt]
            r = np.clip(np.trunc(v), lo, hi)
            same = np.clip(np.trunc(v - e), lo, hi) == np.clip(np.trunc(v + e), lo, hi)
            return r, np.where(same, 0.0, e + 1.0)
        if src == "i1":
            return v, np.where(e > 0, 1.0, 0.0)
        return wrap_int(ctx, dt, v, e)
    mag = 1 if dt == "i1" else a.mag
    return Node(code, dt, a.axes, mag, fn)


def reduce_node(kind, child, pos, axis, gen, acc=None, allaxes=False):
    dt = child.dt
    frame = gen.frame
    axes = tuple(x for x in child.axes if x != axis)
    ext = gen.extent[axis]
    src = child.code
    if acc:
        src_dt = acc
    else:
        src_dt = dt
    fname = {"sum": "T.sum", "mean": "T.sum", "max": "T.max", "min": "T.min", "any": "T.any", "all": "T.all"}[kind]
    axis_arg = "" if allaxes else f", axis={pos if gen.rng.random() < 0.7 else pos - len(child.axes)}"
    acc_arg = f", acc_dtype={TDT[acc]}" if acc else ""
    code = f"{fname}({src}{axis_arg}{acc_arg})"
    if kind == "mean":
        code = f"({code} / T.cast({ext}, {TDT[src_dt]}))"
    if acc:
        code = f"T.cast({code}, {TDT[dt]})"
    mag = child.mag * (MAXN if kind == "sum" else 1)

    def fn(ctx, env):
        np = _np()
        v, e = child.ev(ctx, env)
        fa = frame.index(axis)
        n = ctx.shape[axis]
        full = list(v.shape)
        full[fa] = n
        v, e = np.broadcast_to(v, full), np.broadcast_to(e, full)
        if kind in ("sum", "mean"):
            r = v.sum(axis=fa, keepdims=True)
            if dt in FLOATS:
                uu = ctx.u[src_dt]
                ee = e.sum(axis=fa, keepdims=True) + gamma(n, uu) * np.abs(v).sum(axis=fa, keepdims=True) \
                    + n * TINY[src_dt]
                ee = overflow(src_dt, np.abs(v).sum(axis=fa, keepdims=True), ee)
            else:
                ee = e.sum(axis=fa, keepdims=True)
                r, ee = wrap_int(ctx, dt, r, ee)
            if kind == "mean":
                r = r / n
                ee = ee / n + rnd(ctx, src_dt, r) + (rnd(ctx, src_dt, np.float64(n)) / n) * np.abs(r)
            if acc:
                ee = ee + rnd(ctx, dt, r)
            return r, ee
        if kind == "max":
            return v.max(axis=fa, keepdims=True), e.max(axis=fa, keepdims=True)
        if kind == "min":
            return v.min(axis=fa, keepdims=True), e.max(axis=fa, keepdims=True)
        b = v != 0
        r = (b.any(axis=fa, keepdims=True) if kind == "any" else b.all(axis=fa, keepdims=True)).astype(np.float64)
        return r, np.where((e > 0).any(axis=fa, keepdims=True), INF, 0.0)
    return Node(code, dt, axes, mag, fn)


def scan_node(kind, child, pos, axis, gen):
    dt = child.dt
    frame = gen.frame
    rng = gen.rng
    reverse = rng.random() < 0.3
    exclusive = kind == "cumsum" and rng.random() < 0.3
    rev = ", reverse=True" if reverse else ""
    if kind == "cumsum":
        code = f"T.cumsum({child.code}, axis={pos}{rev}{', exclusive=True' if exclusive else ''})"
    elif kind in ("cummax", "cummin"):
        code = f"T.{kind}({child.code}, axis={pos}{rev})"
    else:
        h = gen.fresh("_combine")
        body = "a + b" if kind == "scan_add" else "T.maximum(a, b)"
        ident = "0.0" if kind == "scan_add" else "-math.inf"
        if rng.random() < 0.5:
            gen.helpers.append(f"@tessel.fn\ndef {h}(a: {TDT[dt]}, b: {TDT[dt]}) -> {TDT[dt]}:\n    return {body}\n")
        else:
            gen.helpers.append(f"def {h}(a, b):\n    return {body}\n")
        code = f"T.scan({child.code}, axis={pos}, identity={ident}, combine={h}{rev})"

    def fn(ctx, env):
        np = _np()
        v, e = child.ev(ctx, env)
        fa = frame.index(axis)
        n = ctx.shape[axis]
        if reverse:
            v, e = np.flip(v, fa), np.flip(e, fa)
        if kind in ("cumsum", "scan_add"):
            r = np.cumsum(v, axis=fa)
            ee = np.cumsum(e, axis=fa) + gamma(n, ctx.u[dt]) * np.cumsum(np.abs(v), axis=fa) + n * TINY[dt]
            ee = overflow(dt, np.cumsum(np.abs(v), axis=fa), ee)
            ee = ee + rnd(ctx, dt, r)
            if exclusive:
                r = np.concatenate([np.zeros_like(np.take(r, [0], axis=fa)), np.delete(r, -1, axis=fa)], axis=fa) \
                    if n else r
                ee = np.concatenate([np.zeros_like(np.take(ee, [0], axis=fa)), np.delete(ee, -1, axis=fa)], axis=fa) \
                    if n else ee
        elif kind in ("cummax", "scan_max"):
            r, ee = np.maximum.accumulate(v, axis=fa), np.maximum.accumulate(e, axis=fa)
        else:
            r, ee = np.minimum.accumulate(v, axis=fa), np.maximum.accumulate(e, axis=fa)
        if reverse:
            r, ee = np.flip(r, fa), np.flip(ee, fa)
        return r, ee
    return Node(code, dt, child.axes, child.mag * (MAXN if kind in ("cumsum", "scan_add") else 1), fn)



def sum_all(child, axes, gen):
    """T.sum(child) over all its axes: a scalar (any summation order: gamma of the member count)."""
    frame = gen.frame
    code = f"T.sum({child.code})"
    dt = child.dt

    def fn(ctx, env):
        np = _np()
        v, e = child.ev(ctx, env)
        full = [ctx.shape[a] if a in axes else v.shape[i] for i, a in enumerate(frame)]
        v, e = np.broadcast_to(v, full), np.broadcast_to(e, full)
        n = int(np.prod([ctx.shape[a] for a in axes]))
        r = v.sum()
        ee = e.sum() + gamma(n, ctx.u[dt]) * np.abs(v).sum() + n * TINY[dt]
        return r, overflow(dt, np.abs(v).sum(), ee)
    return Node(code, dt, (), child.mag * MAXN * MAXN, fn)


def divide_by(a, n):
    """a / n for a positive count n (exact in the dtype): one rounding."""
    dt = a.dt

    def fn(ctx, env):
        np = _np()
        va, ea = a.ev(ctx, env)
        vn, _ = n.ev(ctx, env)
        r = va / vn
        return r, ea / vn + rnd(ctx, dt, r)
    return Node(f"({a.code} / {n.code})", dt, a.axes, a.mag, fn)


def var_node(name, node, key=None):
    """A local variable bound to `node`: the DSL reads the name, NumPy evaluates the node once."""
    key = key or name
    return Node(name, node.dt, node.axes, node.mag, lambda ctx, env: node.ev(ctx, env), key=key)


def const(c, dt):
    return Node(lit(c, dt), dt, (), abs(c), lambda ctx, env: (float(c), 0.0))


# --------------------------------------------------------------------------------------------------
# Programs
# --------------------------------------------------------------------------------------------------
TEMPLATES = ("rows", "rows", "whole", "elem", "elem", "gemm", "gather", "idiom", "idiom")
INVALID_FRACTION = 0.4  # of the "rows" kernels: a defect injected on purpose (about 11 % of all kernels)


class Program:
    """One generated kernel: its source, the NumPy evaluation of each output, and how to run it."""

    def __init__(self, seed: int, index: int):
        self.seed, self.index = seed, index
        rng = random.Random(f"{seed}:{index}")
        self.rng = rng
        self.template = rng.choice(TEMPLATES)
        self.g = Gen(rng, self.template)
        self.lines = []          # kernel body lines (indented by 4 already when at kernel level)
        self.outputs = []        # (view name, dt, node, mask node or None)
        self.skip_triton = None  # reason, when Triton's interpreter is documented wrong for the program
        self.invalid = None      # (defect name, set of acceptable lines) for an invalid program
        self.constexpr_values = {}
        self.ranges = {}
        self.want_invalid = self.template == "rows" and rng.random() < INVALID_FRACTION
        getattr(self, "build_" + self.template)()

    # ---- common pieces ---------------------------------------------------------------------------
    def add_view(self, mode, dt, ext, name=None):
        name = name or f"{'xyw'[('in', 'out', 'inout').index(mode)]}{len(self.g.views)}"
        self.g.views.append((name, mode, dt, tuple(ext)))
        return name

    def rand_dt(self, floats=0.7):
        r = self.rng.random()
        if r < floats:
            return self.rng.choice(("f32", "f32", "f16", "bf16"))
        return self.rng.choice(("i32", "i8", "i1"))

    def emit(self, ind, text):
        for line in text.split("\n"):
            self.lines.append("    " * ind + line)

    def statements(self, ind, axes_choices, allow_runtime):
        g, rng = self.g, self.rng
        for _ in range(rng.randint(0, 4)):
            k = rng.random()
            axes = rng.choice(axes_choices)
            dt = self.rand_dt()
            if k < 0.3:
                name = g.fresh()
                node = g.expr(dt, axes)
                self.emit(ind, f"{name} = {node.code}")
                g.vars.append(var_node(name, node))
            elif k < 0.4:
                a, b = g.fresh(), g.fresh()
                na, nb = g.expr(dt, axes), g.expr(self.rand_dt(), rng.choice(axes_choices))
                self.emit(ind, f"{a}, {b} = {na.code}, {nb.code}")
                g.vars += [var_node(a, na), var_node(b, nb)]
            elif k < 0.5:
                cands = [v for v in g.vars if v.dt in FLOATS + ("i32",)]
                if not cands:
                    continue
                v = rng.choice(cands)
                op = rng.choice(["+", "-", "*"])
                e = g.expr(v.dt, g.sub_axes(v.axes), 2)
                if v.dt in FLOATS:
                    node = g.tame(float_binop(op, v, e))
                else:
                    node = g.tame(int_binop(op, v, e))
                if node.code.startswith("T.tanh") or node.code.startswith("(" + v.code + " %"):
                    self.emit(ind, f"{v.code} {op}= {e.code}")
                    self.emit(ind, f"{v.code} = {node.code.replace(v.code, v.code, 1)}")
                    # the tame wraps the updated variable: tanh(v op e) / (v op e) % 97, as written
                    inner = float_binop(op, v, e) if v.dt in FLOATS else int_binop(op, v, e)
                    upd = var_node(v.code, inner, key=g.fresh("#"))
                    node2 = g.tame(upd)
                    self.lines[-1] = "    " * ind + f"{v.code} = {node2.code}"
                    g.vars.remove(v)
                    g.vars.append(var_node(v.code, node2, key=g.fresh("#")))
                else:
                    self.emit(ind, f"{v.code} {op}= {e.code}")
                    g.vars.remove(v)
                    g.vars.append(var_node(v.code, node, key=g.fresh("#")))
            elif k < 0.6:
                self.helper_call(ind, dt, axes)
            elif k < 0.68:
                self.constexpr_if(ind, dt, axes)
            elif k < 0.76 and dt in FLOATS:
                self.list_comp(ind, dt, axes)
            elif k < 0.85 and allow_runtime:
                self.runtime_if(ind, dt, axes)
            elif k < 0.92 and self.template == "rows" and axes == ("N",):
                self.buffer_stmt(ind)
            elif allow_runtime and self.template in ("rows", "elem"):
                self.runtime_loop(ind)

    def buffer_stmt(self, ind):
        """A kernel-level T.buffer over (rows, cols) that each T.parallel member writes at its own row
        (onto its init, or a first write without init), updates in place and reads back (kir-to-pgpu
        builds kernel-level buffers written in worksets; member-local buffers and kernel-level buffer
        stores are refused, docs/language.md)."""
        g, rng = self.g, self.rng
        dt = rng.choice(("f32", "f32", "f16"))
        name = g.fresh("buf")
        at = f"{name}[m, cols]"
        e1 = g.tame_to(g.expr(dt, ("N",), 3), LIMIT[dt] / 4)
        scale = rng.choice([2.0, 0.5, -1.0])
        par = next(i for i, l in enumerate(self.lines) if "T.parallel(" in l)
        if rng.random() < 0.5:
            decl = f"{name} = T.buffer(over=(T.domain(0, M), cols), dtype={TDT[dt]}, init=0.0)"
            self.emit(ind, f"{at} = {at} + {e1.code}")
            first = float_binop("+", Node("0.0", dt, (), 0.0, lambda ctx, env: (0.0, 0.0)), e1)
        else:
            decl = f"{name} = T.buffer(over=(T.domain(0, M), cols), dtype={TDT[dt]}, init=None)"
            self.emit(ind, f"{at} = {e1.code}")
            first = e1
        self.lines.insert(par, "    " + decl)
        if rng.random() < 0.5:
            self.emit(ind, f"{at} = {at} * {scale!r}")
            node = float_binop("*", var_node(g.fresh("#"), first),
                               Node(repr(scale), dt, (), abs(scale), lambda ctx, env: (scale, 0.0)), pylit=True)
        else:
            node = first
        t = g.fresh()
        self.emit(ind, f"{t} = {at}")
        g.vars.append(var_node(t, node))

    def helper_call(self, ind, dt, axes):
        g, rng = self.g, self.rng
        h = g.fresh("_h")
        nparams = rng.randint(1, 3)
        args = [g.expr(dt if i == 0 else self.rand_dt(), axes if i == 0 else g.sub_axes(axes), 2)
                for i in range(nparams)]
        params = [f"p{i}" for i in range(nparams)]
        pnodes = [Node(p, a.dt, a.axes, a.mag, (lambda i: lambda ctx, env: env[i])(i)) for i, (p, a) in
                  enumerate(zip(params, args))]
        saved = (g.views, g.vars, g.dom, g.par, g.no_reduce, g.scalars)
        g.views, g.vars, g.par, g.no_reduce, g.scalars = [], list(pnodes), {}, True, {}
        g.dom = {}
        try:
            body = g.expr(dt, axes, 2)
            early = not axes and rng.random() < 0.5
            if early:
                cond = g.expr("i1", (), 2)
                other = g.expr(dt, (), 2)
            body = g.tame(float_binop("+", pnodes[0], body) if dt in FLOATS else
                          (int_binop("max", pnodes[0], body) if dt in INTS else bool_binop("|", pnodes[0], body)))
        finally:
            g.views, g.vars, g.dom, g.par, g.no_reduce, g.scalars = saved
        typed = not axes and all(not a.axes for a in args) and rng.random() < 0.7
        sig = ", ".join(f"{p}: {TDT[a.dt]}" if typed else p for p, a in zip(params, args))
        ret = f" -> {TDT[dt]}" if typed else ""
        # a plain helper keeps Python semantics (docs/language.md): runtime control needs @tessel.fn
        deco = "@tessel.fn\n" if typed or early or " if " in body.code or rng.random() < 0.5 else ""
        if early:
            src = (f"{deco}def {h}({sig}){ret}:\n    if {cond.code}:\n        return {body.code}\n"
                   f"    return {other.code}\n")
            full = where(cond, body, other, random.Random(0))
        else:
            src = f"{deco}def {h}({sig}){ret}:\n    return {body.code}\n"
            full = body
        g.helpers.append(src)

        def fn(ctx, env):
            vals = [a.ev(ctx, env) for a in args]
            return full.ev(ctx, vals)
        name = g.fresh()
        self.emit(ind, f"{name} = {h}({', '.join(a.code for a in args)})")
        g.vars.append(var_node(name, Node(name, dt, axes, body.mag if not early else max(body.mag, other.mag), fn)))

    def constexpr_if(self, ind, dt, axes):
        g = self.g
        a, b = g.expr(dt, axes), g.expr(dt, axes)
        name = g.fresh()
        self.emit(ind, f"if FLAG:\n    {name} = {a.code}\nelse:\n    {name} = {b.code}")
        flag = self.constexpr_values["FLAG"]
        g.vars.append(var_node(name, a if flag else b))

    def list_comp(self, ind, dt, axes):
        g = self.g
        base = g.expr(dt, axes, 2)
        base = g.tame_to(base, LIMIT[dt] / 10)
        name = g.fresh()
        self.emit(ind, f"{name}_parts = [{base.code} * float(i + 1) for i in range(R)]")
        self.emit(ind, f"{name} = sum({name}_parts)")
        R = self.constexpr_values["R"]
        memo = var_node(g.fresh("#"), base)
        node = None
        for i in range(R):
            p = float_binop("*", memo, const(float(i + 1), dt), pylit=True)
            node = p if node is None else float_binop("+", node, p)
        g.vars.append(var_node(name, node))

    def runtime_if(self, ind, dt, axes):
        g, rng = self.g, self.rng
        c = g.expr("i1", (), 3)
        a, b = g.expr(dt, axes), g.expr(dt, axes)
        name = g.fresh()
        r = rng.random()
        if r < 0.4:
            self.emit(ind, f"if {c.code}:\n    {name} = {a.code}\nelse:\n    {name} = {b.code}")
            node = where(c, a, b, rng)
        elif r < 0.7:
            self.emit(ind, f"{name} = {b.code}\nif {c.code}:\n    {name} = {a.code}")
            node = where(c, a, b, rng)
        else:
            c2 = g.expr("i1", (), 2)
            d = g.expr(dt, axes)
            self.emit(ind, f"if {c.code}:\n    {name} = {a.code}\nelif {c2.code}:\n    {name} = {b.code}\n"
                           f"else:\n    {name} = {d.code}")
            node = where(c, a, where(c2, b, d, rng), rng)
        g.vars.append(var_node(name, node))

    def loop_axis(self):
        return "N" if self.template == "rows" else "K"

    def runtime_loop(self, ind):
        g, rng = self.g, self.rng
        ax = self.loop_axis()
        ext = g.extent[ax]
        it = rng.choice([f"T.domain(0, {ext})", g.dom[ax], f"range({ext})"])
        k = g.fresh("k")
        if rng.random() < 0.25:
            # a runtime while: the first position whose element exceeds c (short-circuit `and`)
            views = [v for v in g.views_of() if v[2] in FLOATS and v[3] == (("M", ax))]
            if views:
                x = rng.choice(views)[0]
                c = rng.choice([0.5, -0.5, 1.0])
                name = g.fresh()
                self.emit(ind, f"{name}_i = T.index(0)\nwhile {name}_i < {ext} and {x}[m, {name}_i] <= {c!r}:\n"
                               f"    {name}_i = {name}_i + 1\n{name} = T.cast({name}_i, T.i32)")
                frame = g.frame

                def fn(ctx, env, x=x, c=c):
                    np = _np()
                    arr = ctx.arrays[x]                       # (M, n)
                    n = arr.shape[1]
                    above = arr > c
                    first = np.where(above.any(axis=1), above.argmax(axis=1), n).astype(np.float64)
                    shape = [1] * len(frame)
                    shape[frame.index("M")] = arr.shape[0]
                    return first.reshape(shape), 0.0
                g.vars.append(var_node(name, Node(name, "i32", (), MAXN, fn)))
                return
        dt = rng.choice(("f32", "f32", "f16", "i32"))
        saved_par, saved_vars = dict(g.par), g.vars
        g.par[ax] = k
        g.vars = [v for v in g.vars if not v.axes]
        g.no_reduce = True
        try:
            body = g.expr(dt, (), 3)
            body = g.tame_to(body, LIMIT[dt] / MAXN)
            cond = g.expr("i1", (), 2) if rng.random() < 0.3 else None
        finally:
            g.par, g.vars, g.no_reduce = saved_par, saved_vars, False
        kind = rng.choice(["sum", "sum", "max"]) if dt in FLOATS else rng.choice(["sum", "max"])
        name = g.fresh("acc")
        init = "0.0" if dt in FLOATS else "0"
        if kind == "max":
            init = "-math.inf" if dt in FLOATS else "-1000"
        self.emit(ind, f"{name} = {TDT[dt]}({init})")
        self.emit(ind, f"for {k} in {it}:")
        if kind == "sum":
            upd = rng.choice([f"{name} += {body.code}", f"{name} = {name} + {body.code}"])
        else:
            upd = f"{name} = T.maximum({name}, {body.code})"
        if cond is not None:
            self.emit(ind + 1, f"if {cond.code}:")
            self.emit(ind + 2, upd)
        else:
            self.emit(ind + 1, upd)
        frame = g.frame

        def fn(ctx, env):
            np = _np()
            v, e = body.ev(ctx, env)
            fa = frame.index(ax)
            n = ctx.shape[ax]
            shapes = [v.shape, e.shape]
            if cond is not None:
                vc, ec = cond.ev(ctx, env)
                shapes += [vc.shape, ec.shape]
            full = list(np.broadcast_shapes(*shapes))
            full[fa] = n
            v, e = np.broadcast_to(v, full), np.broadcast_to(e, full)
            if cond is not None:
                vc, ec = np.broadcast_to(vc, full), np.broadcast_to(ec, full)
                neutral = 0.0 if kind == "sum" else -INF
                unc = ec > 0
                e = np.where(unc, e + np.abs(v - (0.0 if kind == "sum" else 0.0)), e)
                if kind == "max":
                    # an uncertain member may or may not take part: bound by both maxima
                    hi = np.where(unc | (vc != 0), v, -INF).max(axis=fa, keepdims=True)
                    lo = np.where((vc != 0) & ~unc, v, -INF).max(axis=fa, keepdims=True)
                    r = np.where(vc != 0, v, -INF).max(axis=fa, keepdims=True)
                    r = np.maximum(r, -1000.0) if dt not in FLOATS else r
                    emax = np.where(unc | (vc != 0), e, 0).max(axis=fa, keepdims=True)
                    return r, np.where(hi == lo, emax, INF)
                v = np.where(vc != 0, v, neutral)
            if kind == "sum":
                r = v.sum(axis=fa, keepdims=True)
                if dt in FLOATS:
                    ee = e.sum(axis=fa, keepdims=True) + gamma(n, ctx.u[dt]) * np.abs(v).sum(axis=fa, keepdims=True) \
                        + n * TINY[dt]
                    return r, overflow(dt, np.abs(v).sum(axis=fa, keepdims=True), ee)
                return wrap_int(ctx, dt, r, e.sum(axis=fa, keepdims=True))
            r = v.max(axis=fa, keepdims=True)
            if dt not in FLOATS:
                r = np.maximum(r, -1000.0)
            return r, e.max(axis=fa, keepdims=True)
        g.vars.append(var_node(name, Node(name, dt, (), body.mag * MAXN if kind == "sum" else max(body.mag, 1000),
                                          fn)))

    def store(self, ind, view, coords, axes, masked=False):
        g = self.g
        name, _, dt, _ = view
        if axes and dt in FLOATS and g.par and self.rng.random() < 0.3:
            g.at_store = True
            try:
                node = g.scan(dt, axes, 3)
            finally:
                g.at_store = False
        else:
            node = g.expr(dt, axes)
        mask = None
        if masked and axes:
            mask = g.expr("i1", axes, 2)
            self.emit(ind, f"T.store({name}, ({', '.join(coords)},), {node.code}, valid={mask.code})")
        else:
            self.emit(ind, f"{name}[{', '.join(coords)}] = {node.code}")
        self.outputs.append((name, dt, node, mask))

    def views_and_params(self, symbols_in, out_specs, extra_in=()):
        """Random In views over `symbols_in` extents (the first is always (M, N) in a float type)."""
        rng = self.rng
        self.add_view("in", rng.choice(("f32", "f16", "bf16")), symbols_in[0])
        for _ in range(rng.randint(0, 3)):
            self.add_view("in", self.rand_dt(0.6), rng.choice(symbols_in))
        for ext in extra_in:
            self.add_view("in", ext[0], ext[1], ext[2] if len(ext) > 2 else None)
        outs = []
        for ext in out_specs:
            outs.append(self.add_view("out", self.rand_dt(0.7), ext))
        if rng.random() < 0.6:
            self.g.scalars["s"] = ("f32", rng.choice([0.75, -1.25, 0.375, 1.5]))
        if rng.random() < 0.3:
            self.g.scalars["q"] = ("i32", rng.choice([3, -2, 5]))
        self.constexpr_values = {"R": rng.choice([1, 2, 3]), "FLAG": rng.random() < 0.5}
        return outs

    # ---- templates -------------------------------------------------------------------------------
    def header(self, ind=1):
        g = self.g
        first = g.views[0]
        if self.rng.random() < 0.7:
            self.emit(ind, f"M, {first[3][1]} = {first[0]}.shape")
        else:
            self.emit(ind, f"M = T.extent(\"M\")\n{first[3][1]} = T.extent(\"{first[3][1]}\")")
        self.emit(ind, "assert R >= 1, \"R must be positive\"")

    def build_rows(self):
        g, rng = self.g, self.rng
        g.frame = ("M", "N")
        outs = self.views_and_params([("M", "N"), ("N",), ("M",)], [("M", "N")] + ([("M",)] if rng.random() < 0.5 else []))
        self.header()
        g.extent = {"M": "M", "N": "N"}
        self.emit(1, rng.choice(["cols = T.domain(0, N)", "cols = T.domain(N)", f"cols = {g.views[0][0]}.domain(1)"]))
        g.dom = {"N": "cols"}
        if rng.random() < 0.2:
            self.emit(1, "with T.parallel(T.domain(0, M)) as m:")
        else:
            self.emit(1, "for m in T.parallel(T.domain(0, M)):")
        g.par = {"M": "m"}
        self.statements(2, [(), ("N",), ("N",)], True)
        if self.want_invalid:
            self.inject_defect(2, outs)
        for o in outs:
            v = [x for x in g.views if x[0] == o][0]
            if v[3] == ("M", "N") and v[2] in FLOATS and rng.random() < 0.2 and not self.want_invalid:
                self.slice_stores(2, v)
            elif v[3] == ("M", "N"):
                self.store(2, v, ["m", "cols"], ("N",), masked=rng.random() < 0.2)
            else:
                self.store(2, v, ["m"], ())

    def slice_stores(self, ind, view):
        """Slices that pair by position (docs/language.md): the halves lo = cols[0:H] and
        hi = cols[H:2 * H] of a row combined, the rest cols[2 * H:N] (one member for odd N, none for
        even) stored on its own; H = N // 2 (0 for N = 1: empty slices)."""
        g, rng = self.g, self.rng
        name, _, dt, _ = view
        x, _, xdt, _ = g.views[0]                      # the first In view: (M, N), a float type
        self.emit(ind, "H = N // 2")
        self.emit(ind, "lo, hi, rest = cols[0:H], cols[H:2 * H], cols[2 * H:N]")

        def part(code, start, stop):
            def fn(ctx, env):
                arr = ctx.arrays[x]
                n = arr.shape[1]
                h = n // 2
                a, b = {"lo": (0, h), "hi": (h, 2 * h), "rest": (2 * h, n)}[start]
                return arr[:, a:b], 0.0
            node = Node(f"{x}[m, {code}]", xdt, ("N",), 2.0, fn)
            return node if xdt == dt else cast(node, dt)
        a, b, r = part("lo", "lo", None), part("hi", "hi", None), part("rest", "rest", None)
        ops = ["+", "-", "*", "max", "min"]
        e1 = float_binop(rng.choice(ops), a, b)
        e2 = float_binop(rng.choice(ops), b, a) if rng.random() < 0.5 else unary(rng.choice(["tanh", "abs", "neg"]), e1)
        e3 = unary(rng.choice(["neg", "abs", "sin", "relu"]), r)
        self.emit(ind, f"{name}[m, lo] = {e1.code}")
        self.emit(ind, f"{name}[m, hi] = {e2.code}")
        self.emit(ind, f"{name}[m, rest] = {e3.code}")

        def fn(ctx, env):
            np = _np()
            parts = [e.ev(ctx, env) for e in (e1, e2, e3)]
            return (np.concatenate([p[0] for p in parts], axis=1), np.concatenate([p[1] for p in parts], axis=1))
        self.outputs.append((name, dt, Node("<slices>", dt, ("N",), 4.0, fn), None))

    def build_whole(self):
        g, rng = self.g, self.rng
        g.frame = ("M", "N")
        specs = [("M", "N")] + [rng.choice([("M",), ("N",), ("M", "N")]) for _ in range(rng.randint(0, 1))]
        outs = self.views_and_params([("M", "N"), ("N",), ("M",)], specs)
        self.header()
        g.extent = {"M": "M", "N": "N"}
        self.emit(1, "rows, cols = T.domain(0, M), T.domain(0, N)")
        g.dom = {"M": "rows", "N": "cols"}
        self.statements(1, [("M", "N"), ("M",), ("N",), ()], False)
        for o in outs:
            v = [x for x in g.views if x[0] == o][0]
            self.store(1, v, [g.dom[a] for a in v[3]], v[3])

    def build_elem(self):
        g, rng = self.g, self.rng
        g.frame = ("M", "N", "K")
        outs = self.views_and_params([("M", "N"), ("N",), ("M",), ("M", "K"), ("K",)], [("M", "N")])
        self.header()
        kview = [v for v in g.views if "K" in v[3]]
        if kview:
            self.emit(1, f"K = {kview[0][0]}.shape[{kview[0][3].index('K')}]")
        else:
            self.add_view("in", "f32", ("M", "K"))
            self.emit(1, f"K = T.extent(\"K\")")
        g.extent = {"M": "M", "N": "N", "K": "K"}
        self.emit(1, "ks = T.domain(0, K)")
        g.dom = {"K": "ks"}
        self.emit(1, "for m, n in T.parallel(T.domain(0, M), T.domain(0, N)):")
        g.par = {"M": "m", "N": "n"}
        self.statements(2, [()], True)
        for o in outs:
            v = [x for x in g.views if x[0] == o][0]
            self.store(2, v, ["m", "n"], ())

    def build_gemm(self, twice=False):
        g, rng = self.g, self.rng
        g.frame = ("M", "N")
        dt = rng.choice(("f32", "f16", "f16", "bf16"))
        form = rng.choice(["matmul", "matmul_t", "contract", "init", "vecmat"])
        if dt == "bf16":
            self.skip_triton = "bf16 contractions under TRITON_INTERPRET=1 (triton-lang/triton#11584, docs/language.md)"
        self.add_view("in", dt, ("M", "K"), "a")
        self.add_view("in", dt, ("N", "K") if form == "matmul_t" else ("K", "N"), "b")
        if form == "init":
            self.add_view("in", "f32", ("N",), "bias")
        for _ in range(rng.randint(0, 2)):
            self.add_view("in", self.rand_dt(0.8), rng.choice([("M", "N"), ("N",), ("M",)]))
        out = self.add_view("out", rng.choice(("f32", "f16", "bf16", "f32")), ("M", "N"))
        if rng.random() < 0.5:
            self.g.scalars["s"] = ("f32", rng.choice([0.75, -1.25]))
        self.constexpr_values = {"R": rng.choice([1, 2]), "FLAG": rng.random() < 0.5}
        self.emit(1, "M, K = a.shape")
        self.emit(1, f"N = b.shape[{0 if form == 'matmul_t' else 1}]")
        self.emit(1, "rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)")
        g.extent = {"M": "M", "N": "N", "K": "K"}
        if form == "matmul":
            call = "T.matmul(a[rows, ks], b[ks, cols])"
        elif form == "matmul_t":
            call = "T.matmul(a[rows, ks], b[cols, ks], transpose_rhs=True)"
        elif form == "contract":
            call = "T.contract(a[rows, ks], b[ks, cols], reduce=((1, 0),), acc_dtype=T.f32)"
        elif form == "init":
            call = "T.matmul(a[rows, ks], b[ks, cols], init=bias[cols])"
        else:
            call = None

        def mm(ctx, env, form=form):
            np = _np()
            A, B = ctx.arrays["a"], ctx.arrays["b"]
            if form == "matmul_t":
                B = B.T
            r = A @ B
            n = A.shape[1]
            uu = ctx.u["f32"]
            e = gamma(n + 1, uu) * (np.abs(A) @ np.abs(B)) + (n + 1) * TINY["f32"]
            if form == "init":
                r = r + ctx.arrays["bias"][None, :]
                e = e + gamma(n + 1, uu) * np.abs(ctx.arrays["bias"][None, :])
            return r, e
        accn = Node("acc", "f32", ("M", "N"), MAXN * 4 + 2, mm)
        if call is None:
            self.emit(1, "for m in T.parallel(rows):")
            self.emit(2, "acc = T.vecmat(a[m, ks], b[ks, cols])")
            g.par, g.dom = {"M": "m"}, {"N": "cols"}
            ind, axes = 2, ("N",)
            accn = Node("acc", "f32", ("N",), MAXN * 4 + 2, mm)
        else:
            self.emit(1, f"acc = {call}")
            g.dom = {"M": "rows", "N": "cols"}
            ind, axes = 1, ("M", "N")
        acc = var_node("acc", accn)
        g.vars.append(acc)
        self.statements(ind, [axes], False)
        acc = [v for v in g.vars if v.code == "acc"][-1]
        coords = ["m", "cols"] if call is None else ["rows", "cols"]
        if twice:
            top = self.accumulator_twice(ind, acc, axes, coords)
        else:
            top = g.tame(float_binop(rng.choice(["+", "*", "max"]), acc, g.expr("f32", g.sub_axes(axes), 2)))
        odt = [v for v in g.views if v[0] == out][0][2]
        node = top if odt == "f32" else cast(top, odt)
        self.emit(ind, f"{out}[{', '.join(coords)}] = {node.code}")
        self.outputs.append((out, odt, node, None))

    def build_gather(self):
        g, rng = self.g, self.rng
        g.frame = ("M", "P")
        self.add_view("in", rng.choice(("f32", "f16", "bf16")), ("M", "N"))
        self.add_view("in", "i32", ("P",), "idx")
        self.ranges["idx"] = "N"
        for _ in range(rng.randint(0, 2)):
            self.add_view("in", self.rand_dt(0.6), rng.choice([("M", "P"), ("P",), ("M",)]))
        out = self.add_view("out", self.rand_dt(0.8), ("M", "P"))
        if rng.random() < 0.5:
            self.g.scalars["s"] = ("f32", 0.75)
        self.constexpr_values = {"R": rng.choice([1, 2]), "FLAG": rng.random() < 0.5}
        self.emit(1, f"M, N = {g.views[0][0]}.shape\nP = idx.shape[0]\nassert R >= 1")
        g.extent = {"M": "M", "N": "N", "P": "P"}
        self.emit(1, "ps = T.domain(0, P)")
        g.dom = {"P": "ps"}
        self.emit(1, "for m in T.parallel(T.domain(0, M)):")
        g.par = {"M": "m"}
        self.statements(2, [(), ("P",)], True)
        v = [x for x in g.views if x[0] == out][0]
        self.store(2, v, ["m", "ps"], ("P",))


    # ---- idioms: the shapes users write and random programs rarely reach (issue 47, item 1) -----
    # Each idiom is a fixed structure (the one a corpus author wrote) with random subexpressions, element
    # types, spellings (bound to a name or inline, row-level in a T.parallel or whole-tensor at kernel
    # level) and epilogues, checked like every other program against the NumPy evaluation.
    IDIOMS = ("two_reductions", "two_reductions", "col_row", "loss_grad", "gemm_twice", "band", "gather_rows")

    def build_idiom(self):
        self.idiom = self.rng.choice(self.IDIOMS)
        getattr(self, "idiom_" + self.idiom)()

    def bind(self, ind, node, base="t", p=0.75):
        """`name = <node>` (a local the rest reads), or, with probability 1 - p, the node inline."""
        if self.rng.random() >= p:
            return node
        name = self.g.fresh(base)
        self.emit(ind, f"{name} = {node.code}")
        return var_node(name, node)

    def idiom_level(self, level):
        """Kernel-level (whole tensors over rows x cols) or row-level (a T.parallel member's row):
        (indent, value axes, store coordinates of an (M, N) and an (M,) view)."""
        g = self.g
        if level == "whole":
            self.emit(1, "rows, cols = T.domain(0, M), T.domain(0, N)")
            g.par, g.dom = {}, {"M": "rows", "N": "cols"}
            return 1, ("M", "N"), ["rows", "cols"], ["rows"]
        self.emit(1, "cols = T.domain(0, N)")
        self.emit(1, "for m in T.parallel(T.domain(0, M)):")
        g.par, g.dom = {"M": "m"}, {"N": "cols"}
        return 2, ("N",), ["m", "cols"], ["m"]

    def idiom_views(self, outs):
        g = self.g
        g.frame = ("M", "N")
        g.extent = {"M": "M", "N": "N"}
        names = self.views_and_params([("M", "N"), ("N",), ("M",)], outs)
        self.header()
        return names

    def factor(self, dt, axes, depth=2, lim=None):
        """A random subexpression over exactly `axes` (a load somewhere in it), tamed to `lim`."""
        g, rng = self.g, self.rng
        loads = [n for n in (g.load_leaf(v, tuple(axes)) for v in g.views_of() if v[2] in FLOATS) if n is not None]
        node = g.expr(dt, axes, depth)
        if node.axes != tuple(axes):
            node = float_binop("+", node, g.const_leaf(dt, axes))
        if loads and rng.random() < 0.8:      # what users reduce: loaded data, transformed
            x = rng.choice(loads)
            x = x if x.dt == dt else cast(x, dt)
            r = rng.random()
            if r < 0.35:
                node = x
            elif r < 0.7:
                node = float_binop(rng.choice(["*", "+", "-", "max"]), x, node)
            else:
                node = unary(rng.choice(["exp", "tanh", "abs", "sigmoid", "neg"]), x)
        return g.tame_to(node, lim if lim is not None else math.sqrt(LIMIT[dt] / MAXN))

    def red(self, kind, child, axis, acc=None):
        """T.sum/T.max/... of `child` along frame axis `axis` (mean: the sum over the extent)."""
        g = self.g
        if kind in ("sum", "mean") and child.mag * MAXN > LIMIT[child.dt]:
            child = g.tame_to(child, LIMIT[child.dt] / MAXN)
        acc = acc if kind in ("sum", "mean") else None
        return reduce_node(kind, child, child.axes.index(axis), axis, g, acc,
                           allaxes=len(child.axes) == 1 and self.rng.random() < 0.5)

    def store_to(self, ind, view_name, coords, node):
        g = self.g
        dt = [v for v in g.views if v[0] == view_name][0][2]
        if dt in FLOATS and node.dt in FLOATS:
            node = g.tame(node)
        if node.dt != dt:
            node = cast(node, dt)
        self.emit(ind, f"{view_name}[{', '.join(coords)}] = {node.code}")
        self.outputs.append((view_name, dt, node, None))

    def float_out(self, ext):
        return self.add_view("out", self.rng.choice(("f32", "f32", "f16", "bf16")), ext)

    def epilogue(self, dt, p, stats, extra_axes):
        """An elementwise epilogue reusing the row values p and the row statistics (x - mean, ...)."""
        g, rng = self.g, self.rng
        node = p
        for st in stats:
            op = rng.choice(["-", "-", "*", "/", "+"])
            node = g.tame(float_binop(op, node, st))
        if rng.random() < 0.5:
            node = g.tame(float_binop(rng.choice(["*", "+", "-"]), node, self.factor(dt, extra_axes, 1)))
        return node

    def idiom_two_reductions(self):
        """Two reductions of one product or of a shared subexpression, the statistics reused in the same
        row's epilogue (68_layernorm_backward_dx: c1 = sum(g), c2 = sum(g * xhat), dx = r * (g - c1 - xhat
        * c2)); a centered second pass (variance: sum((x - mean)^2)); per-row statistics stored beside."""
        g, rng = self.g, self.rng
        outs = [("M", "N")] + ([("M",)] if rng.random() < 0.5 else [])
        names = self.idiom_views(outs)
        ind, A, c2, c1 = self.idiom_level(rng.choice(["whole", "row"]))
        dt = rng.choice(("f32", "f32", "f16", "bf16"))
        acc = "f32" if dt != "f32" and rng.random() < 0.5 else None
        a = self.bind(ind, self.factor(dt, A), "a", 0.5)
        b = self.bind(ind, self.factor(dt, A), "b", 0.5)
        prod = self.bind(ind, float_binop("*", a, b), "g", 0.8)
        r1 = self.bind(ind, self.red(rng.choice(["sum", "mean", "mean", "max"]), prod, "N", acc), "c", 0.7)
        sub = rng.choice(["same", "times", "square", "centered", "shared"])
        if sub == "same":                    # two reductions of the very same product
            r2 = self.red(rng.choice(["max", "min", "sum", "mean"]), prod, "N", acc)
        elif sub == "times":                 # the product times another factor (g * xhat)
            r2 = self.red(rng.choice(["sum", "mean"]), float_binop("*", prod, a), "N", acc)
        elif sub == "square":
            r2 = self.red(rng.choice(["sum", "mean"]), float_binop("*", prod, prod), "N", acc)
        elif sub == "centered":              # a second pass over (p - mean)
            d = self.bind(ind, float_binop("-", prod, r1), "d", 0.6)
            r2 = self.red(rng.choice(["sum", "mean"]), float_binop("*", d, d), "N", acc)
        else:                                # the same subexpression in two different reductions
            r2 = self.red("sum", unary(rng.choice(["exp", "abs", "tanh"]), float_binop("-", prod, r1)), "N", acc)
        r2 = self.bind(ind, r2, "c", 0.6)
        if rng.random() < 0.3:              # a third statistic of one of the two factors
            r3 = self.bind(ind, self.red(rng.choice(["sum", "max"]), b, "N", acc), "c", 0.6)
            stats = [r1, r2, r3]
        else:
            stats = [r1, r2]
        rng.shuffle(stats)
        self.store_to(ind, names[0], c2, self.epilogue(dt, prod, stats, A))   # every statistic is used
        if len(names) > 1:
            self.store_to(ind, names[1], c1, g.tame(float_binop(rng.choice(["+", "*", "-"]), r1, r2)))

    def idiom_col_row(self):
        """A column reduction beside a row reduction in one kernel (92_layernorm_backward_full: dx with row
        sums, dw / db column sums over all rows): whole-tensor, or the rows in a T.parallel and the columns
        at kernel level, in either order."""
        g, rng = self.g, self.rng
        names = self.idiom_views([("M", "N"), ("N",)] + ([("N",)] if rng.random() < 0.4 else []))
        dx, dws = names[0], names[1:]
        dt = rng.choice(("f32", "f32", "f16", "bf16"))
        acc = "f32" if dt != "f32" and rng.random() < 0.5 else None
        mixed = rng.random() < 0.5

        def columns(row=None):
            ind = 1
            g.par, g.dom = {}, {"M": "rows", "N": "cols"}
            d = self.bind(ind, self.factor(dt, ("M", "N")), "d", 0.6)
            for i, w in enumerate(dws):
                if i == 0 and row is not None:     # dw = sum over rows of dy * xhat, xhat = x - its row mean
                    child = float_binop("*", d, float_binop("-", row[0], row[1]))
                else:
                    child = d if i else float_binop("*", d, self.factor(dt, ("M", "N"), 1))
                self.store_to(ind, w, ["cols"], self.red(rng.choice(["sum", "sum", "mean", "max"]), child, "M", acc))

        self.emit(1, "rows, cols = T.domain(0, M), T.domain(0, N)")
        first = mixed and rng.random() < 0.5
        if first:
            columns()
        outer = list(g.vars)
        if mixed:
            self.emit(1, "for m in T.parallel(rows):")
            g.par, g.dom = {"M": "m"}, {"N": "cols"}
            ind, A, c2 = 2, ("N",), ["m", "cols"]
        else:
            g.par, g.dom = {}, {"M": "rows", "N": "cols"}
            ind, A, c2 = 1, ("M", "N"), ["rows", "cols"]
        gg = self.bind(ind, self.factor(dt, A), "g", 0.7)
        st = self.bind(ind, self.red(rng.choice(["sum", "mean"]), float_binop("*", gg, self.factor(dt, A, 1)), "N", acc),
                       "c", 0.5)
        self.store_to(ind, dx, c2, self.epilogue(dt, gg, [st], A))
        if mixed:
            g.vars = outer                         # the member's locals are not visible at kernel level
        if not first:
            columns((gg, st) if not mixed and rng.random() < 0.5 else None)

    def idiom_loss_grad(self):
        """A scalar reduction beside an elementwise output (97_mse_loss_grad: loss[0] = sum(d * d) / n,
        grad = 2 * d / n), over a vector or a whole matrix."""
        g, rng = self.g, self.rng
        g.frame = ("M", "N")
        g.extent = {"M": "M", "N": "N"}
        two = rng.random() < 0.5
        A = ("M", "N") if two else ("N",)
        fdt = rng.choice(("f32", "f32", "f16", "bf16"))
        self.add_view("in", fdt, A, "pred")
        self.add_view("in", rng.choice(("f32", fdt)), A, "target")
        if rng.random() < 0.4:
            self.add_view("in", self.rand_dt(0.7), rng.choice([A, ("N",)]))
        self.add_view("out", "f32", (1,), "loss")
        grad = self.add_view("out", rng.choice(("f32", "f32", fdt)), A, "grad")
        if rng.random() < 0.5:
            g.scalars["s"] = ("f32", rng.choice([0.75, -1.25, 0.375]))
        self.constexpr_values = {"R": 1, "FLAG": rng.random() < 0.5}
        if two:
            self.emit(1, "M, N = pred.shape")
            self.emit(1, "rows, cols = T.domain(0, M), T.domain(0, N)")
            g.dom, coords, count = {"M": "rows", "N": "cols"}, ["rows", "cols"], "M * N"
        else:
            self.emit(1, "N = pred.shape[0]")
            self.emit(1, "cols = T.domain(0, N)")
            g.dom, coords, count = {"N": "cols"}, ["cols"], "N"
        dt = "f32"
        pr = g.load_leaf(g.views[0], A)
        tg = g.load_leaf(g.views[1], A)
        pr = pr if pr.dt == dt else cast(pr, dt)
        tg = tg if tg.dt == dt else cast(tg, dt)
        d = float_binop("-", pr, tg)
        if rng.random() < 0.4:
            d = float_binop(rng.choice(["*", "+"]), d, self.factor(dt, A, 1, 4.0))
        d = self.bind(1, d, "diff", 0.8)
        nf = self.bind(1, Node(f"T.cast({count}, T.f32)", dt, (), MAXN * MAXN,
                               lambda ctx, env, two=two: (float(ctx.shape["N"] * (ctx.shape["M"] if two else 1)), 0.0)),
                       "nf", 0.7)
        kind = rng.choice(["mse", "mse", "l1", "huber"])
        if kind == "mse":
            term = float_binop("*", d, d)
        elif kind == "l1":
            term = unary("abs", d)
        else:
            term = where(compare("<", unary("abs", d), const(1.0, dt)),
                         float_binop("*", float_binop("*", d, d), const(0.5, dt), pylit=True),
                         float_binop("-", unary("abs", d), const(0.5, dt), pylit=True), rng)
        mean = divide_by(sum_all(term, A, g), nf)
        gnode = divide_by(float_binop("*", d, const(2.0, dt), pylit=True), nf)
        if rng.random() < 0.5:
            gnode = g.tame(float_binop("*", gnode, self.factor(dt, g.sub_axes(A), 1, 4.0)))
        loss_first = rng.random() < 0.5
        if loss_first:
            self.emit(1, f"loss[0] = {mean.code}")
        self.store_to(1, grad, coords, gnode)
        if not loss_first:
            self.emit(1, f"loss[0] = {mean.code}")
        self.outputs.append(("loss", "f32", mean, None))

    def accumulator_twice(self, ind, acc, axes, coords):
        """A GEMM whose accumulator is used twice in the epilogue (SiLU acc * sigmoid(acc), a leaky ReLU
        choosing between acc and a multiple of it, acc minus its own row max, a second stored output)."""
        g, rng = self.g, self.rng
        form = rng.choice(["silu", "quad", "leaky", "rowmax", "second"])
        if form == "silu":
            top = float_binop("*", acc, unary("sigmoid", acc))
        elif form == "quad":
            top = float_binop("+", acc, float_binop("*", float_binop("*", acc, acc), const(0.125, "f32"), pylit=True))
        elif form == "leaky":
            top = where(compare(">", acc, const(0.0, "f32")), acc,
                        float_binop("*", acc, const(0.125, "f32"), pylit=True), rng)
        elif form == "rowmax":
            mx = self.bind(ind, self.red("max", acc, "N"), "mx", 0.6)
            top = unary("exp", float_binop("-", acc, mx))
        else:
            y2 = self.add_view("out", rng.choice(("f32", "f16")), ("M", "N"))
            self.store_to(ind, y2, coords, float_binop("*", acc, const(0.5, "f32"), pylit=True))
            top = unary("relu", acc)
        if rng.random() < 0.4:
            top = float_binop(rng.choice(["+", "*"]), top, self.factor("f32", g.sub_axes(axes), 1, 4.0))
        return g.tame(top)

    def idiom_gemm_twice(self):
        self.build_gemm(twice=True)

    def idiom_band(self):
        """A band mask with a runtime scalar width (42_sliding_window_attention: key k visible from row m
        when k <= m and m - k < W, W = T.cast(window, T.index)), the masked row stored and reduced."""
        g, rng = self.g, self.rng
        names = self.idiom_views([("M", "N")] + ([("M",)] if rng.random() < 0.6 else []))
        g.scalars["window"] = ("i32", rng.choice([0, 1, 2, 3, 5, -1, 20]))
        W = "W"
        self.emit(1, "W = T.cast(window, T.index)")
        ind, A, c2, c1 = self.idiom_level(rng.choice(["row", "row", "whole"]))
        if A == ("N",):
            pos = self.bind(ind, Node("T.indices(cols)", "i32", ("N",), MAXN, None), "kpos", 0.7).code
            m = "m"
        else:   # whole tiles: both coordinates spread over (rows, cols)
            self.emit(ind, "kpos = T.broadcast(T.indices(cols), over=(rows, cols), dims=[1])")
            self.emit(ind, "qpos = T.broadcast(T.indices(rows), over=(rows, cols), dims=[0])")
            pos, m = "kpos", "qpos"
        shape = rng.choice(["causal", "symmetric", "upper"])
        if shape == "causal":
            code = f"(({pos} <= {m}) & ({m} - {pos} < {W}))"
        elif shape == "symmetric":
            code = f"(({m} - {pos} <= {W}) & ({pos} - {m} <= {W}))"
        else:
            code = f"(({pos} >= {m}) & ({pos} < {m} + {W}))"

        def keep_fn(ctx, env, shape=shape):
            np = _np()
            w = ctx.scalars["window"]
            k = np.arange(ctx.shape["N"], dtype=np.float64).reshape(1, -1)
            mm = np.arange(ctx.shape["M"], dtype=np.float64).reshape(-1, 1)
            if shape == "causal":
                r = (k <= mm) & (mm - k < w)
            elif shape == "symmetric":
                r = (mm - k <= w) & (k - mm <= w)
            else:
                r = (k >= mm) & (k < mm + w)
            return r.astype(np.float64), 0.0
        keep = self.bind(ind, Node(code, "i1", A, 1, keep_fn), "visible", 0.7)
        dt = rng.choice(("f32", "f32", "f16"))
        s = self.bind(ind, self.factor(dt, A), "s", 0.7)
        fill = rng.choice([0.0, 0.0, -1.5])
        masked = self.bind(ind, where(keep, s, const(fill, dt), rng), "sm", 0.7)
        self.store_to(ind, names[0], c2, self.epilogue(dt, masked, [], A))
        if len(names) > 1:
            kind = rng.choice(["sum", "sum", "max"])
            if kind == "max":   # the band's maximum: -inf fill, an empty band gives -inf (unchecked)
                masked = where(keep, s, Node("-math.inf", dt, (), 1.0, lambda ctx, env: (-INF, 0.0)), rng)
            self.store_to(ind, names[1], c1, self.red(kind, masked, "N"))

    def idiom_gather_rows(self):
        """A gather of whole rows through an index tensor (29_embedding_bag, 74_gnn_mean_aggregation):
        table[idx[p], cols] per member of a T.parallel (with a row statistic of the gathered row), or
        table[idx[ps], cols] at kernel level (with a column sum over the gathered rows)."""
        g, rng = self.g, self.rng
        g.frame = ("P", "N")
        g.extent = {"P": "P", "N": "N", "M": "M"}
        tdt = rng.choice(("f32", "f16", "bf16"))
        self.add_view("in", tdt, ("M", "N"), "table")
        self.add_view("in", "i32", ("P",), "idx")
        self.ranges["idx"] = "M"
        for _ in range(rng.randint(0, 2)):
            self.add_view("in", self.rand_dt(0.7), rng.choice([("P", "N"), ("N",), ("P",)]))
        level = rng.choice(["row", "whole"])
        y = self.float_out(("P", "N"))
        z = self.float_out(("N",) if level == "whole" else ("P",)) if rng.random() < 0.6 else None
        if rng.random() < 0.5:
            g.scalars["s"] = ("f32", 0.75)
        self.constexpr_values = {"R": 1, "FLAG": rng.random() < 0.5}
        self.emit(1, "M, N = table.shape\nP = idx.shape[0]")
        self.emit(1, "cols, ps = T.domain(0, N), T.domain(0, P)")

        def gfn(ctx, env):
            np = _np()
            ids = ctx.arrays["idx"].astype(np.int64)
            return ctx.arrays["table"][ids, :], 0.0
        if level == "row":
            self.emit(1, "for p in T.parallel(ps):")
            g.par, g.dom = {"P": "p"}, {"N": "cols"}
            ind, A, coords = 2, ("N",), ["p", "cols"]
            code = "table[idx[p], cols]"
        else:
            g.par, g.dom = {}, {"P": "ps", "N": "cols"}
            ind, A, coords = 1, ("P", "N"), ["ps", "cols"]
            code = rng.choice(["table[idx[ps], cols]", "table[T.index_relation(idx, ps), cols]"])
        row = Node(code, tdt, A, 2.0, gfn)
        dt = rng.choice(("f32", tdt))
        row = self.bind(ind, row if dt == tdt else cast(row, dt), "e", 0.7)
        stats = []
        if level == "row" and rng.random() < 0.6:
            stats.append(self.bind(ind, self.red(rng.choice(["sum", "mean", "max"]), float_binop("*", row, row), "N"),
                                   "c", 0.6))
        self.store_to(ind, y, coords, self.epilogue(dt, row, stats, A))
        if z is not None:
            if level == "row":
                self.store_to(ind, z, ["p"], self.red(rng.choice(["sum", "max", "mean"]), row, "N"))
            else:
                self.store_to(ind, z, ["cols"], self.red(rng.choice(["sum", "mean", "max"]), row, "P"))

    # ---- the file --------------------------------------------------------------------------------
    def params_text(self):
        g = self.g
        parts = []
        for (name, mode, dt, ext) in g.views:
            ext_s = ", ".join(f'"{e}"' if isinstance(e, str) else str(e) for e in ext) + ("," if len(ext) == 1 else "")
            rng_s = f', T.Range(0, "{self.ranges[name]}")' if name in self.ranges else ""
            parts.append(f"{name}: T.{mode.capitalize() if mode != 'inout' else 'InOut'}[{TDT[dt]}, ({ext_s}){rng_s}]")
        for name, (dt, _) in g.scalars.items():
            parts.append(f"{name}: {TDT[dt]}")
        parts.append(f"R: T.Constexpr[int] = {self.rng.choice([1, 2, 3])}")
        parts.append(f"FLAG: T.Constexpr[bool] = {self.rng.random() < 0.5}")
        return ",\n         ".join(parts)

    def source(self):
        head = ["# generated by test/fuzz/dsl_fuzz.py: seed %d, kernel %d (template %s)" %
                (self.seed, self.index, self.template),
                "import math", "", "import tessel", "import tessel.language as T", ""]
        helpers = []
        for h in self.g.helpers:
            helpers += h.rstrip("\n").split("\n") + ["", ""]
        body = ["@tessel.kernel", f"def kern({self.params_text()}):"] + self.lines
        return "\n".join(head + [""] + helpers + body) + "\n"


# --------------------------------------------------------------------------------------------------
# Inputs, the NumPy reference, comparison
# --------------------------------------------------------------------------------------------------
NPDT = {"f16": "float16", "bf16": "float32", "f32": "float32", "i32": "int32", "i8": "int8", "i1": "bool_"}


def ext_size(shape, e):
    """A view extent: a shape symbol's value, or a static extent as written (loss: T.Out[T.f32, (1,)])."""
    return e if isinstance(e, int) else shape[e]


def round_bf16(a):
    np = _np()
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


# Long extents: primes and a non-multiple of 1024, more than one block of every block size along a row (N),
# several BLOCK_R row tiles of a column reduction (M), several K steps of a contraction. M and P stay
# under 70: each of their members may be a program, and Triton's interpreter runs programs one by one.
LARGE = {"N": (131, 257, 1031), "M": (37, 67), "K": (67, 131), "P": (37, 67)}
LARGE_SMALL = (2, 3, 5)


def shapes_for(prog, long=True):
    """Two shape sets per kernel: small odd extents (1 and primes), never a multiple of a block size; the
    idioms add a third with one long extent (a row walked in several blocks, columns summed over many row
    tiles: the loops the small extents never reach)."""
    rng = random.Random(f"shape:{prog.seed}:{prog.index}")
    out = []
    for j in range(2):
        shp = {s: rng.choice(SIZES) for s in ("M", "N", "K", "P")}
        if j == 0:
            shp[rng.choice(("M", "N", "K", "P"))] = 1
        out.append(shp)
    if prog.template == "idiom" and long:
        shp = {s: rng.choice(LARGE_SMALL) for s in ("M", "N", "K", "P")}
        long = rng.choice(("M", "N", "K", "P") if prog.idiom in ("gemm_twice", "gather_rows") else ("M", "N", "N"))
        shp[long] = rng.choice(LARGE[long])
        out.append(shp)
    return out


def make_inputs(prog, shape, seed):
    """Random nonzero inputs: each In/InOut view in its element type (bf16 values representable)."""
    np = _np()
    rng = np.random.default_rng(seed)
    arrays = {}
    for (name, mode, dt, ext) in prog.g.views:
        if mode == "out":
            continue
        shp = tuple(ext_size(shape, e) for e in ext)
        if name in prog.ranges:
            arr = rng.integers(0, shape[prog.ranges[name]], size=shp).astype(np.int32)
        elif dt in FLOATS:
            arr = (rng.uniform(0.25, 2.0, size=shp) * rng.choice([-1.0, 1.0], size=shp)).astype(np.float32)
            arr = arr.astype(np.float16) if dt == "f16" else (round_bf16(arr) if dt == "bf16" else arr)
        elif dt == "i1":
            arr = rng.integers(0, 2, size=shp).astype(bool)
        else:
            hi = 50 if dt == "i32" else 20
            arr = rng.integers(1, hi, size=shp) * rng.choice([-1, 1], size=shp)
            arr = arr.astype(getattr(np, NPDT[dt]))
        arrays[name] = arr
    return arrays


def reference(prog, shape, arrays, u):
    """{out view: (value, bound, checked mask)} from the program's trees, in float64."""
    np = _np()
    f64 = {k: np.asarray(v, dtype=np.float64) for k, v in arrays.items()}
    scalars = {k: float(v[1]) for k, v in prog.g.scalars.items()}
    ctx = Ctx(prog.g.frame, shape, f64, scalars, u)
    frame = prog.g.frame
    out = {}
    for (name, dt, node, mask) in prog.outputs:
        ext = [v for v in prog.g.views if v[0] == name][0][3]
        v, e = node.ev(ctx)
        full = tuple(shape[a] if a in ext else 1 for a in frame)
        v = np.broadcast_to(v, np.broadcast_shapes(v.shape, full))
        e = np.broadcast_to(e, v.shape)
        idx = tuple(slice(None) if a in ext else 0 for a in frame)
        v, e = v[idx], e[idx]
        if ext and not any(isinstance(a, str) for a in ext):    # a static-extent output: loss[0]
            v, e = np.broadcast_to(v, tuple(ext)), np.broadcast_to(e, tuple(ext))
        ok = np.isfinite(e) & np.isfinite(v)
        if mask is not None:
            mv, me = mask.ev(ctx)
            mv = np.broadcast_to(mv, np.broadcast_shapes(mv.shape, full))[idx]
            me = np.broadcast_to(me, np.broadcast_shapes(me.shape, full))[idx]
            mv, me = np.broadcast_to(mv, v.shape), np.broadcast_to(me, v.shape)
            ok = ok & (mv != 0) & (me == 0)
        out[name] = (np.array(v), np.array(e), np.array(ok))
    return out


def check_outputs(got, ref):
    """None, or a description of the first elements outside the bound."""
    np = _np()
    lines = []
    for name, (v, e, ok) in ref.items():
        if name not in got:
            lines.append(f"{name}: no output")
            continue
        g = np.asarray(got[name], dtype=np.float64)
        if g.shape != v.shape:
            lines.append(f"{name}: shape {g.shape}, expected {v.shape}")
            continue
        with np.errstate(all="ignore"):
            bad = ok & ~(np.abs(g - v) <= e)
        if bad.any():
            where_ = np.argwhere(bad)[:4]
            det = "; ".join(f"{tuple(int(i) for i in w)}: got {g[tuple(w)]!r} expected {v[tuple(w)]!r} "
                            f"+- {e[tuple(w)]:.3g}" for w in where_)
            lines.append(f"{name}: {int(bad.sum())} of {bad.size} elements outside the bound: {det}")
    return "\n".join(lines) or None


# --------------------------------------------------------------------------------------------------
# Running one kernel
# --------------------------------------------------------------------------------------------------
def tessel_bin():
    env = os.environ.get("TESSEL_BIN")
    if env:
        return env
    return str(ROOT / "build" / "bin" / "tessel")


CRASH_MARKERS = ("PLEASE submit a bug report", "Stack dump", "LLVM ERROR", "Assertion", "AddressSanitizer",
                 "UndefinedBehaviorSanitizer", "Traceback (most recent call last)")


def run_cli(args, timeout):
    try:
        r = subprocess.run([tessel_bin(), *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", "", ""
    if r.returncode < 0:
        return f"signal {-r.returncode}", r.stdout, r.stderr
    if any(m in r.stderr for m in CRASH_MARKERS):
        return "crash banner", r.stdout, r.stderr
    return r.returncode, r.stdout, r.stderr


def located(err, path, lines=None):
    """True when a CompileError names the kernel file and (when given) one of `lines`."""
    f = getattr(err, "file", None)
    ln = getattr(err, "line", None)
    if f is None or ln is None or os.path.basename(str(f)) != os.path.basename(str(path)):
        return False
    return lines is None or ln in lines


def load_module(path):
    import importlib.util
    name = "dslfuzz_" + pathlib.Path(path).stem
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def run_program(prog, work: pathlib.Path, triton: bool, log=None, long=True):
    """Runs one generated program; returns a list of (kind, detail) findings (empty: it passed)."""
    np = _np()
    import tessel
    work.mkdir(parents=True, exist_ok=True)
    path = work / f"k_{prog.seed}_{prog.index}.py"
    source = prog.source()
    path.write_text(source)
    if prog.invalid:
        prog.invalid = (prog.invalid[0], defect_lines(source))
    findings = []
    cx = dict(prog.constexpr_values)
    try:
        mod = load_module(path)
        kir = mod.kern.kir(cx)
    except tessel.CompileError as e:
        if prog.invalid:
            if located(e, path, prog.invalid[1]):
                return []
            return [("misplaced error", f"{prog.invalid[0]}: expected an error at {path.name}:"
                     f"{sorted(prog.invalid[1])}, got:\n{e}")]
        kind = "refused (located)" if located(e, path) else "unlocated error"
        return [(kind, f"tracing a valid program raised:\n{e}")]
    except Exception:  # a traceback from inside tessel (or the generated file itself)
        return [("traceback", traceback.format_exc())]
    mlir = work / f"k_{prog.seed}_{prog.index}.mlir"
    tmp = work / f"tmp_{prog.seed}_{prog.index}"
    tmp.mkdir(exist_ok=True)
    mlir.write_text(kir)
    if prog.invalid:
        rc, out, err = run_cli(["compile", str(mlir), "--emit=source"], 120)
        if isinstance(rc, str):
            return [(rc, f"tessel compile {mlir} --emit=source\n{err[-3000:]}")]
        if rc == 0:
            return [("accepted invalid", f"{prog.invalid[0]}: expected an error at {path.name}:"
                     f"{sorted(prog.invalid[1])}; the program traced and compiled")]
        ce = tessel.CompileError.from_compiler(err)
        if located(ce, path, prog.invalid[1]):
            return []
        return [("misplaced error", f"{prog.invalid[0]}: expected {path.name}:{sorted(prog.invalid[1])}, "
                 f"the compiler said:\n{err[-3000:]}")]
    for j, shape in enumerate(shapes_for(prog, long)):
        arrays = make_inputs(prog, shape, prog.seed * 7919 + prog.index * 31 + j)
        ins = []
        for k, a in arrays.items():
            f = tmp / f"in_{j}_{k}.npy"
            np.save(f, a)
            ins += ["--in", f"{k}={f}"]
        used = sorted({e for v in prog.g.views for e in v[3] if isinstance(e, str)})
        args = ["run", f"{mlir}:kern", "--shape", ",".join(f"{s}={shape[s]}" for s in used), *ins]
        for k, (dt, val) in prog.g.scalars.items():
            args += ["--scalar", f"{k}={val}"]
        ref = reference(prog, shape, arrays, U)
        for stage in ("kir", "pgpu"):
            outdir = tmp / f"out_{j}_{stage}"
            shutil.rmtree(outdir, ignore_errors=True)
            cmd = args + ["--out", str(outdir)] + (["--stage=pgpu"] if stage == "pgpu" else [])
            rc, out, err = run_cli(cmd, 120)
            shown = "tessel " + " ".join(cmd)
            if isinstance(rc, str):
                findings.append((rc, f"{shown}\n{err[-3000:]}"))
                continue
            if rc != 0:
                ce = tessel.CompileError.from_compiler(err)
                kind = "refused (located)" if located(ce, path) else "unlocated error"
                findings.append((f"{kind} [{stage}]", f"{shown}\n{err[-3000:]}"))
                continue
            got = {p.name[:-4]: np.load(p) for p in outdir.glob("*.npy") if not p.name.endswith(".in.npy")}
            bad = check_outputs(got, ref)
            if bad:
                findings.append((f"mismatch [{stage}]", f"{shown}\nshape {shape}\n{bad}"))
        # A bf16 program's Triton numbers are not compared (run_triton), and Triton's interpreter runs the
        # bf16 sums the provider emits as tl.reduce with a combine one element at a time in Python: at the
        # long shape that is minutes (seed 404 kernel 357 timed out): its small shapes ran it through Triton.
        slow_bf16 = j >= 2 and "bf16" in source
        if triton and not prog.skip_triton and not slow_bf16:
            try:
                bad = run_triton(prog, mod.kern, shape, arrays, cx)
            except tessel.CompileError as e:
                kind = "refused (located)" if located(e, path) else "unlocated error"
                bad = None
                findings.append((f"{kind} [triton]", str(e)[-3000:]))
            except Exception as exc:
                bad = None
                tb = traceback.extract_tb(exc.__traceback__.tb_next if exc.__traceback__ else None)
                cause = exc.__cause__
                inner = traceback.extract_tb(cause.__traceback__) if cause is not None else tb
                in_builder = bool(inner) and inner[-1].filename.endswith(os.path.join("triton", "runtime",
                                                                                      "interpreter.py"))
                del tb
                if "bf16" in prog.source() and in_builder:
                    # Triton 3.6's interpreter builder has no bf16 arithmetic or conversions of its own
                    # (docs/language.md): a departure of the CPU interpreter, not of the generated code
                    findings.append(("interpreter departure [triton]", traceback.format_exc()[-4000:]))
                else:
                    findings.append(("traceback [triton]", traceback.format_exc()[-4000:]))
            if bad:
                findings.append(("mismatch [triton]", f"shape {shape}\n{bad}"))
        if findings:
            break
    return findings


def run_triton(prog, kern, shape, arrays, cx):
    import torch
    np = _np()
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "i32": torch.int32,
           "i8": torch.int8, "i1": torch.bool}
    views = []
    outs = {}
    for (name, mode, dt, ext) in prog.g.views:
        if mode == "out":
            t = torch.empty(tuple(ext_size(shape, e) for e in ext), dtype=tdt[dt])
            t.fill_(float("nan") if t.is_floating_point() else (0x5E if dt != "i1" else 0))
            outs[name] = t
        else:
            t = torch.tensor(np.ascontiguousarray(arrays[name])).to(dtype=tdt[dt])
        views.append(t)
    kw = {k: v[1] for k, v in prog.g.scalars.items()}
    kw.update(cx)
    kern(*views, **kw)
    got = {k: (t.float().numpy() if t.is_floating_point() else t.numpy()) for k, t in outs.items()}
    if "bf16" in prog.source():
        # Triton 3.6's interpreter computes bf16 arithmetic on the uint16 bit patterns (1.5 * 2.0 gives 0;
        # bench/corpus's SKIPs, docs/language.md) and converts integers to bf16 as raw bits: the kernel
        # must run without an error, its bf16 numbers are not checked on this path
        return None
    return check_outputs(got, reference(prog, shape, arrays, U))


# --------------------------------------------------------------------------------------------------
# Invalid programs: one defect at a known line; the answer must be a CompileError naming that line
# --------------------------------------------------------------------------------------------------
DEFECTS = ("store_in", "read_out", "coord_count", "extents", "float_index", "dtype_mix", "float_lit_int",
           "int_div", "unknown_symbol", "axis_range", "tensor_if", "store_dtype", "neg_slice", "match",
           "one_branch", "int_carry", "break_parallel", "scan_arity", "helper_return", "step_zero",
           "static_slice", "store_axes", "store_no_member", "unpack_tensor", "where_dtype", "cast_string",
           "exp_int", "helper_arity")
MARK = "  # defect"


def _inject_defect(self, ind, outs):
    rng = self.rng
    g = self.g
    x, _, X, _ = g.views[0]
    ys = [v for v in g.views if v[0] in outs and v[3] == ("M", "N")]
    y, _, Y, _ = ys[0]
    other = rng.choice([d for d in FLOATS if d != X])
    not_y = rng.choice([d for d in FLOATS + INTS if d != Y])
    kind = rng.choice(DEFECTS)
    if kind == "break_parallel" and not any(l.strip().startswith("for m in T.parallel") for l in self.lines):
        kind = "store_in"
    row = f"{x}[m, cols]"
    snippets = {
        "store_in": [f"{row} = {row}{MARK}"],
        "read_out": [f"bad = {y}[m, cols]{MARK}"],
        "coord_count": [f"bad = {x}[m]{MARK}"],
        "extents": [f"bad = {row} + T.cast(T.indices(T.domain(0, M)), {TDT[X]}){MARK}"],
        "float_index": [f"bad = {x}[m, T.cast(m, T.f32)]{MARK}"],
        "dtype_mix": [f"bad = {row} + T.cast({row}, {TDT[other]}){MARK}"],
        "float_lit_int": [f"bad = T.cast({row}, T.i32) + 1.5{MARK}"],
        "int_div": [f"bad = T.cast({row}, T.i32) / T.i32(2){MARK}"],
        "unknown_symbol": [f"bad = T.extent(\"Q\"){MARK}"],
        "axis_range": [f"bad = T.sum({row}, axis=2){MARK}"],
        "tensor_if": [f"if {row} > 0.0:{MARK}", f"    bad = {row}"],
        "store_dtype": [f"{y}[m, cols] = T.cast({row}, {TDT[not_y]}){MARK}"],
        "neg_slice": [f"bad = cols[-1:]{MARK}"],
        "match": [f"match {x}[m, 0]:{MARK}", "    case _:", "        pass"],
        "one_branch": [f"if T.sum({row}) > 0.0:{MARK}", f"    only = {row}", f"bad = only * 2.0{MARK}"],
        "int_carry": [f"n = 0{MARK}", f"for k in cols:{MARK}", f"    n = n + T.i32(1){MARK}", f"bad = n{MARK}"],
        "break_parallel": [f"break{MARK}"],
        "scan_arity": [f"bad = T.scan({row}, axis=0, identity=0.0, combine=lambda a: a){MARK}"],
        "helper_return": [f"bad = _bad_ret(T.f32(1.0)){MARK}"],
        "step_zero": [f"bad = T.domain(0, N, step=0){MARK}"],
        "static_slice": [f"bad = T.domain(0, 16)[8:20]{MARK}"],
        "store_axes": [f"{y}[m, 0] = T.cast({row}, {TDT[Y]}){MARK}"],
        "store_no_member": [f"{y}[0, cols] = T.cast({x}[0, cols], {TDT[Y]}){MARK}"],
        "unpack_tensor": [f"ba, bb = {row}{MARK}"],
        "where_dtype": [f"bad = T.where({row} > 0.0, {row}, T.cast({row}, {TDT[other]})){MARK}"],
        "cast_string": [f"bad = T.cast({row}, \"f32\"){MARK}"],
        "exp_int": [f"bad = T.exp(T.cast({row}, T.i32)){MARK}"],
        "helper_arity": [f"bad = _bad_arity({row}, {row}){MARK}"],
    }
    if kind == "helper_return":
        g.helpers.append(f"@tessel.fn\ndef _bad_ret(a: T.f32) -> T.f16:{MARK}\n    return a{MARK}\n")
    if kind == "helper_arity":
        g.helpers.append(f"@tessel.fn\ndef _bad_arity(a):{MARK}\n    return a\n")
    if kind == "break_parallel":
        for i, l in enumerate(self.lines):
            if l.strip().startswith("for m in T.parallel"):
                self.lines[i] = l + MARK
    for line in snippets[kind]:
        self.emit(ind, line)
    self.invalid = (kind, None)


Program.inject_defect = _inject_defect


def defect_lines(source):
    return {i + 1 for i, line in enumerate(source.split("\n")) if line.endswith(MARK)}


# --------------------------------------------------------------------------------------------------
# Findings, workers, the driver
# --------------------------------------------------------------------------------------------------
# Located refusals in which the compiler names its own limit ("not constructed yet", "for now"): a valid
# program refused with a clear error. Counted and listed (issue 47 wants none), findings under --strict.
LIMITATION_MARKERS = ("yet", "for now", "only when its results are stored",
                      # scans as values (docs/language.md, Scans): the uses of a scan kir-to-pgpu builds
                      "constructs a scan's results where", "constructs a value computed from several scans",
                      "constructs a reduction of a scan's results", "does not construct a reduction along a scan's axis",
                      "a loop carrying a scan's results is constructed")


def classify(findings):
    """(real findings, limitations)."""
    real, lim = [], []
    for kind, detail in findings:
        if kind.startswith("interpreter departure") or \
                (kind.startswith("refused (located)") and any(m in detail for m in LIMITATION_MARKERS)):
            lim.append((kind, detail))
        else:
            real.append((kind, detail))
    return real, lim


def signature(kind, detail):
    """A short class of a finding: its kind and the first error message without locations and numbers."""
    import re
    msg = ""
    for line in detail.splitlines():
        m = re.search(r"error: (.*)$", line) or re.search(r"((?:\w+Error|InterpreterError)\b.*)$", line)
        if m:
            msg = m.group(1)
            break
    if not msg and kind.startswith("mismatch"):
        msg = "numeric mismatch"
    if not msg:
        msg = detail.strip().splitlines()[-1] if detail.strip() else ""
    msg = re.sub(r"'?/[^ :']+'?", "FILE", msg)
    msg = re.sub(r"\d+", "N", msg)
    return f"{kind}: {msg[:160]}"


def serve(args):
    """Worker: reads kernel indices from stdin, answers one JSON line each (prefixed '@@ ')."""
    work = pathlib.Path(args.work)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        i = int(line)
        t0 = time.time()
        try:
            prog = Program(args.seed, i)
            findings = run_program(prog, work / "kernels", not args.no_triton, long=not args.short)
            name = prog.template + (f":{prog.idiom}" if getattr(prog, "idiom", None) else "")
            res = {"index": i, "template": name, "invalid": prog.invalid[0] if prog.invalid else None,
                   "skip_triton": bool(prog.skip_triton), "findings": findings}
        except Exception:
            res = {"index": i, "template": "?", "invalid": None, "skip_triton": False,
                   "findings": [("fuzzer error", traceback.format_exc()[-4000:])]}
        res["seconds"] = round(time.time() - t0, 3)
        sys.stdout.write("@@ " + json.dumps(res) + "\n")
        sys.stdout.flush()
        shutil.rmtree(work / "kernels" / f"tmp_{args.seed}_{i}", ignore_errors=True)  # the kernel file stays


class Worker:
    def __init__(self, args, n):
        self.args, self.n = args, n
        self.start()

    def start(self):
        env = dict(os.environ)
        env["TRITON_INTERPRET"] = "1"
        env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
        env.setdefault("TESSEL_CACHE", str(pathlib.Path(self.args.work) / "cache"))
        env["TESSEL_BIN"] = tessel_bin()
        cmd = [sys.executable, str(pathlib.Path(__file__).resolve()), "--serve", "--seed", str(self.args.seed),
               "--work", self.args.work] + (["--no-triton"] if self.args.no_triton else []) + \
            (["--short"] if self.args.short else [])
        self.err = open(pathlib.Path(self.args.work) / f"worker{self.n}.stderr", "ab")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, env=env)
        self.buf, self.index, self.since = b"", None, None

    def send(self, i):
        self.index, self.since = i, time.time()
        self.proc.stdin.write(f"{i}\n".encode())
        self.proc.stdin.flush()

    def kill(self):
        try:
            self.proc.kill()
            self.proc.wait(timeout=10)
        except Exception:
            pass
        self.err.close()


def save_finding(args, res, kind, detail):
    save = pathlib.Path(args.save)
    save.mkdir(parents=True, exist_ok=True)
    i = res["index"]
    src = pathlib.Path(args.work) / "kernels" / f"k_{args.seed}_{i}.py"
    stem = f"k_{args.seed}_{i}"
    if src.exists():
        shutil.copy(src, save / f"{stem}.py")
    n = len(list(save.glob(f"{stem}*.txt")))
    (save / f"{stem}.{n}.txt").write_text(
        f"finding: {kind}\nsignature: {signature(kind, detail)}\ntemplate: {res.get('template')}\n"
        f"reproduce: python3 test/fuzz/dsl_fuzz.py --seed {args.seed} --only {i}\n\n{detail}\n")


def threading_main():
    import threading
    return threading.current_thread() is threading.main_thread()


def main(argv=None):
    saved = {k: os.environ.get(k) for k in ("TRITON_INTERPRET", "TESSEL_CACHE")}
    try:
        return _main(argv)
    finally:  # called in process (python/tests/test_dsl_fuzz.py): leave the environment as it was
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=None, help="kernels to run (default: until --seconds)")
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="first kernel index")
    ap.add_argument("--timeout", type=float, default=300, help="seconds one kernel may take (all its runs)")
    ap.add_argument("--save", default=str(ROOT / "build" / "dsl-fuzz-findings"))
    ap.add_argument("--work", default=None)
    ap.add_argument("--no-triton", action="store_true", help="skip the Triton provider (TRITON_INTERPRET=1)")
    ap.add_argument("--short", action="store_true",
                    help="small shapes only: no long third shape for the idioms (the CI budget)")
    ap.add_argument("--templates", default=None,
                    help="comma-separated templates to run (e.g. idiom, or idiom:band for one idiom); others skipped")
    ap.add_argument("--strict", action="store_true", help="located refusals of valid programs are findings too")
    ap.add_argument("--only", type=int, default=None, help="run kernel INDEX in this process and print it")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.work is None:
        args.work = str(ROOT / "build" / "dsl-fuzz-work")
    # before triton is imported: the generated modules run under Triton's interpreter
    os.environ["TRITON_INTERPRET"] = "1"
    os.environ.setdefault("TESSEL_CACHE", str(pathlib.Path(args.work) / "cache"))
    if not args.no_triton:
        try:
            import triton  # noqa: F401
            import torch  # noqa: F401
        except ImportError:
            print("dsl-fuzz: triton or torch is not installed: skipping the Triton provider", flush=True)
            args.no_triton = True
    pathlib.Path(args.work).mkdir(parents=True, exist_ok=True)
    if args.serve:
        serve(args)
        return 0
    if args.only is not None:
        sys.path.insert(0, str(ROOT / "python"))
        prog = Program(args.seed, args.only)
        print(prog.source())
        findings = run_program(prog, pathlib.Path(args.work) / "kernels", not args.no_triton, long=not args.short)
        for kind, detail in findings:
            print(f"== {kind}\n{detail}\n")
        real, lim = classify(findings)
        print(f"dsl-fuzz: kernel {args.only}: {len(real)} findings, {len(lim)} limitations")
        return 1 if real or (args.strict and lim) else 0
    if args.count is None and args.seconds is None:
        args.count = 100
    deadline = time.time() + args.seconds if args.seconds is not None else None
    workers = [Worker(args, n) for n in range(max(1, args.jobs))]
    nxt, done, stats, sent = args.start, 0, {}, 0
    limit = args.count
    wanted = set(args.templates.split(",")) if args.templates else None

    def selected(i):
        if wanted is None:
            return True
        prog = Program(args.seed, i)
        return prog.template in wanted or f"idiom:{getattr(prog, 'idiom', '')}" in wanted

    def feed(w):
        """Sends the next kernel index (of the selected templates) to worker w."""
        nonlocal nxt, sent
        while not selected(nxt):
            nxt += 1
        w.send(nxt)
        nxt += 1
        sent += 1
    nfind, nlim, ninvalid, sigs = 0, 0, 0, {}
    t0 = time.time()

    def more():
        return (limit is None or sent < limit) and (deadline is None or time.time() < deadline)

    def record(res):
        nonlocal done, nfind, nlim, ninvalid
        done += 1
        stats[res["template"]] = stats.get(res["template"], 0) + 1
        ninvalid += bool(res.get("invalid"))
        real, lim = classify([tuple(f) for f in res["findings"]])
        if args.strict:
            real, lim = real + lim, []
        nlim += bool(lim)
        for kind, detail in lim:
            sigs.setdefault("limitation " + signature(kind, detail), []).append(res["index"])
        if real:
            nfind += 1
            for kind, detail in real:
                save_finding(args, res, kind, detail)
                sigs.setdefault(signature(kind, detail), []).append(res["index"])
            print(f"dsl-fuzz: FINDING kernel {res['index']} ({res['template']}): "
                  f"{'; '.join(signature(k, d) for k, d in real)}", flush=True)

    def on_term(signum, frame):  # a deep run ended by `kill PID` still prints its summary
        raise KeyboardInterrupt
    import signal
    previous = signal.signal(signal.SIGTERM, on_term) if threading_main() else None
    try:
        for w in workers:
            if more():
                feed(w)
        while any(w.index is not None for w in workers):
            busy = {w.proc.stdout.fileno(): w for w in workers if w.index is not None}
            ready, _, _ = select.select(list(busy), [], [], 1.0)
            for fd in ready:
                w = busy[fd]
                chunk = os.read(fd, 1 << 16)
                if not chunk:  # the worker died: its kernel is the finding
                    rc = w.proc.wait()
                    res = {"index": w.index, "template": "?",
                           "findings": [("worker died", f"exit status {rc} (signal when negative)")]}
                    record(res)
                    w.kill()
                    w.start()
                    if more():
                        feed(w)
                    continue
                w.buf += chunk
                while b"\n" in w.buf:
                    line, w.buf = w.buf.split(b"\n", 1)
                    if not line.startswith(b"@@ "):
                        continue
                    record(json.loads(line[3:]))
                    w.index = None
                    if more():
                        feed(w)
            for w in workers:
                if w.index is not None and time.time() - w.since > args.timeout:
                    record({"index": w.index, "template": "?",
                            "findings": [("timeout", f"kernel {w.index} ran longer than {args.timeout} s")]})
                    w.kill()
                    w.start()
                    if more():
                        feed(w)
    except KeyboardInterrupt:
        print("dsl-fuzz: interrupted; the kernels in flight are not counted", flush=True)
    finally:
        for w in workers:
            w.kill()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    el = time.time() - t0
    print(f"dsl-fuzz: {done} kernels (seed {args.seed}, {ninvalid} invalid on purpose) in {el:.0f} s; "
          f"templates {dict(sorted(stats.items()))}; {nfind} with findings, {nlim} with limitations", flush=True)
    for sig, idx in sorted(sigs.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(idx):5d}  {sig}  (e.g. kernel {idx[0]})")
    return 1 if nfind else 0


if __name__ == "__main__":
    sys.exit(main())
