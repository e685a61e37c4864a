"""The DSL fuzzer's kernels (test/fuzz/dsl_fuzz.py): `Program(seed, i)` writes one random kernel from its
template (rows, whole, elem, gemm, gather, idioms) with the NumPy evaluation of each output, and
injects one defect at a marked line into the invalid ones."""
from __future__ import annotations

import math
import random

from dsl_nodes import (FLOATS, INF, INTS, LIMIT, MAXN, TDT, TINY, Gen, Node, _np, bool_binop, cast, compare, const,
                       divide_by, float_binop, gamma, int_binop, overflow, reduce_node, sum_all, unary, var_node,
                       where, wrap_int)

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
