"""The DSL fuzzer's expressions (test/fuzz/dsl_fuzz.py): a random tree whose nodes carry both spellings,
`Node.code` (the DSL text) and `Node.ev` (the same operation in float64 NumPy with a forward error
bound); `Gen` draws them over a kernel's views, domains and scalars."""
from __future__ import annotations

import math
import random
import zlib

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
        code, mag = (f"abs({inner})" if zlib.crc32(inner.encode()) % 2 else f"T.abs({inner})"), a.mag
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
