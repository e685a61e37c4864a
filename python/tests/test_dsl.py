"""The authoring DSL (tessel.language): every example traces to KIR that verifies and round-trips,
runs on the reference interpreter to match its NumPy `reference`, and misuse is reported at the
author's line.
"""
import importlib.util
import inspect
import itertools
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tessel
import tessel.language as T
from _misuse import expect_error, marked_line

from conftest import ALL, EXAMPLES, REQUIRED_EXAMPLES, ROOT  # the suite examples' table


@pytest.fixture(scope="module", autouse=True)
def _use_built_compiler(tessel_bin):
    old = os.environ.get("TESSEL_BIN")
    os.environ["TESSEL_BIN"] = str(tessel_bin)
    yield
    if old is None:
        os.environ.pop("TESSEL_BIN", None)
    else:
        os.environ["TESSEL_BIN"] = old


def load_example(name):
    spec = importlib.util.spec_from_file_location(f"tessel_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_required_example_exists():
    for name in REQUIRED_EXAMPLES:
        module = load_example(name)
        assert module.__doc__ and module.__doc__.strip(), f"{name}.py needs a docstring"
        assert isinstance(getattr(module, name), tessel.Kernel), f"{name}.py defines the kernel {name}"
        assert callable(module.reference)


def variants(name):
    return ALL[name].get("constexprs", [{}])


def compile_text(tessel_bin, tmp_path, text, fname):
    path = tmp_path / fname
    path.write_text(text)
    res = subprocess.run([str(tessel_bin), "compile", str(path), "--emit=kir"], capture_output=True, text=True)
    assert res.returncode == 0, f"{fname}:\n{res.stderr}\n{text}"
    return res.stdout


@pytest.mark.parametrize("name", sorted(ALL))
def test_example_verifies_and_round_trips(name, tessel_bin, tmp_path):
    k = getattr(load_example(name), name)
    for i, cx in enumerate(variants(name)):
        text = k.kir(cx)
        assert f"kir.kernel @{name}(" in text
        assert f'loc("{EXAMPLES / (name + ".py")}":' in text, "ops carry the author's file:line"
        once = compile_text(tessel_bin, tmp_path, text, f"{name}{i}.mlir")
        twice = compile_text(tessel_bin, tmp_path, once, f"{name}{i}-again.mlir")
        assert once == twice, f"{name} {cx}: printed KIR is not a fixed point"
        assert k.kir(cx) == text, "tracing is deterministic"
        assert k.compile("kir", cx) == once


def call_reference(module, name, arrays, shapes, scalars, constexprs):
    sig = inspect.signature(module.reference)
    kw = {}
    for p in sig.parameters.values():
        if p.name + ".in" in arrays:
            kw[p.name] = arrays[p.name + ".in"]
        elif p.name in scalars:
            kw[p.name] = np.float32(scalars[p.name])
        elif p.name in constexprs:
            kw[p.name] = constexprs[p.name]
        elif p.name in shapes:
            kw[p.name] = shapes[p.name]
        elif p.default is inspect.Parameter.empty:
            raise AssertionError(f"{name}.reference: no value for parameter '{p.name}'")
    return module.reference(**kw)


@pytest.mark.parametrize("name", sorted(ALL))
def test_example_matches_reference(name):
    case = ALL[name]
    module = load_example(name)
    k = getattr(module, name)
    outs = [p.name for p in k.params() if p.kind == "view" and p.spec.mode != "in"]
    for cx, shapes, seed in itertools.product(variants(name), case["shapes"], (0, 7)):
        scalars = case.get("scalars", {})
        got = k.run_interp(shapes, scalars=scalars, constexprs=cx, seed=seed, **case.get("extra", {}))
        ref = call_reference(module, name, got, shapes, scalars, cx)
        if not isinstance(ref, dict):
            assert len(outs) == 1
            ref = {outs[0]: ref}
        assert set(ref) == set(outs), f"{name}.reference must return {outs}"
        for out in outs:
            msg = f"{name} {out} {shapes} {cx} seed={seed}"
            assert got[out].shape == np.shape(ref[out]), msg
            if case.get("exact"):
                np.testing.assert_array_equal(got[out], ref[out], err_msg=msg)
            else:
                np.testing.assert_allclose(got[out].astype(np.float64), ref[out], rtol=case.get("rtol", 2e-6),
                                           atol=case.get("atol", 1e-7), err_msg=msg)


def test_grouped_gemm_ragged_offsets():
    """Offsets over [0, M] and past it: every case matches the reference, and the draws include empty groups
    between non-empty ones, groups reaching M (clamped) and M = 0."""
    module = load_example("grouped_gemm")
    seen_empty_between, seen_full = False, False
    for shapes, offs_range in [({"G": 4, "M": 0, "K": 3, "N": 2}, "0:1"), ({"G": 5, "M": 13, "K": 7, "N": 3}, "0:17"),
                               ({"G": 7, "M": 31, "K": 5, "N": 129}, "-2:32"), ({"G": 3, "M": 2, "K": 11, "N": 5}, "0:3")]:
        for seed in range(4):
            got = module.grouped_gemm.run_interp(shapes, seed=seed, ranges={"offs": offs_range})
            ref = module.reference(got["a.in"], got["b.in"], got["offs.in"])
            msg = f"grouped_gemm {shapes} offs={got['offs.in']} seed={seed}"
            assert got["c"].shape == ref.shape, msg
            np.testing.assert_allclose(got["c"].astype(np.float64), ref, rtol=1e-5, atol=1e-5, err_msg=msg)
            ends = np.minimum(np.maximum.accumulate(np.maximum(got["offs.in"], 0)), shapes["M"])
            sizes = np.diff(np.concatenate([[0], ends]))
            nonempty = np.flatnonzero(sizes)
            seen_empty_between |= len(nonempty) >= 2 and (sizes[nonempty[0]:nonempty[-1]] == 0).any()
            seen_full |= shapes["M"] > 0 and ends[-1] == shapes["M"] and len(nonempty) >= 2
    assert seen_empty_between and seen_full


def test_python_dash_m_emit_prints_kir():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    res = subprocess.run([sys.executable, "-m", "tessel", "emit", str(EXAMPLES / "softmax.py") + ":softmax"],
                         capture_output=True, text=True, env=env, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("module attributes {kir.compile_options")
    # Arguments carry the author's parameter positions (as every op does, and the module its `def` line).
    assert re.search(r'kir.kernel @softmax\(%x: !kir.view<f32, \[M, N\], in> loc\("[^"]*softmax.py":\d+:\d+\), '
                     r'%y: !kir.view<f32, \[M, N\], out> loc\("[^"]*softmax.py":\d+:\d+\)\)', res.stdout), res.stdout
    assert re.search(r'^} loc\("[^"]*softmax.py":\d+:1\)$', res.stdout, re.M)
    res = subprocess.run([sys.executable, "-m", "tessel", "emit", str(EXAMPLES / "gemm.py") + ":gemm",
                          "--constexpr", "HAS_BIAS=true", "--verify"], capture_output=True, text=True, env=env, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert "constexprs = {ACTIVATION = \"none\", HAS_BIAS = true}" in res.stdout  # printed sorted
    res = subprocess.run([sys.executable, "-m", "tessel", "emit", str(EXAMPLES / "softmax.py") + ":nope"],
                         capture_output=True, text=True, env=env, cwd=ROOT)
    assert res.returncode == 2 and "no @tessel.kernel named 'nope'" in res.stderr


def test_constexpr_specializations_differ():
    k = load_example("attention").attention
    causal, full = k.kir(), k.kir(CAUSAL=False)
    assert "CAUSAL = true" in causal and "CAUSAL = false" in full
    assert "kir.cmp le" in causal and "kir.cmp le" not in full


def test_locations_point_at_the_author(tessel_bin, tmp_path):
    k = load_example("softmax").softmax
    src = (EXAMPLES / "softmax.py").read_text().splitlines()
    line = next(i + 1 for i, s in enumerate(src) if "T.exp(" in s)
    col = src[line - 1].index("T.exp(") + 1 if sys.version_info >= (3, 11) else 1  # columns need co_positions
    assert f'kir.unary exp %' in k.kir()
    exp_line = next(s for s in k.kir().splitlines() if "kir.unary exp" in s)
    assert exp_line.endswith(f'loc("{EXAMPLES / "softmax.py"}":{line}:{col})')
    path = tmp_path / "s.mlir"
    path.write_text(k.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(path), "--emit=kir", "--mlir-print-debuginfo"],
                         capture_output=True, text=True)
    assert res.returncode == 0 and f'"{EXAMPLES / "softmax.py"}":{line}:{col}' in res.stdout


# ---------------------------------------------------------------------------------------------
# Smaller constructs
# ---------------------------------------------------------------------------------------------


@tessel.fn
def add_f32(a: T.f32, b: T.f32) -> T.f32:
    return a + b


@tessel.kernel
def constructs(x: T.In[T.f32, ("M", "N")], ids: T.In[T.i32, ("M",), T.Range(0, "M")],
               y: T.Out[T.f32, ("M", "N")], s: T.Out[T.f32, ("M",)], g: T.Out[T.f32, ("M",)],
               c: T.Out[T.i32, ("M",)], w: T.Out[T.f32, ("M",)], big: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    xt = x[rows, cols]
    # masked load: only the first half of the columns, the rest read as -1
    half = cols[0:N // 2]
    mask = T.indices(cols) < N // 2
    masked = T.load(x, (rows, cols), valid=T.broadcast(mask, over=(rows, cols)), fill=-1.0)
    y[rows, cols] = T.where(masked > 0.0, masked, 0.0) + T.sum(x[rows, half], axis=1) * 0.0
    s[rows] = T.reduce(xt, axis=1, identity=0.0, combine=add_f32)
    # gather the rows X[ids[m], :] through an index-tensor coordinate (i32 ids become index)
    g[rows] = T.sum(x[ids[rows], cols], axis=1)
    for m in T.parallel(rows):
        # ordered loop with a carry: count positives
        row = x[m, cols]

        def step(j, n):
            return n + T.cast(x[m, j] > 0.0, T.i32)
        c[m] = T.for_(cols, init=T.i32(0), body=step)
        # while: halve 1000 until below the row max (at least once)
        mx = T.max(row)
        w[m] = T.while_(T.f32(1000.0), lambda v: v > mx, lambda v: v * 0.5)
        big[m] = T.if_(mx > 0.5, lambda: mx, lambda: T.f32(0.0))


def test_more_constructs_run():
    out = constructs.run_interp({"M": 5, "N": 9}, seed=3)
    x, ids = out["x.in"].astype(np.float64), out["ids.in"]
    half = 9 // 2
    ref_y = np.where(x > 0, x, 0.0)
    ref_y[:, half:] = 0.0
    np.testing.assert_allclose(out["y"], ref_y, rtol=1e-6)
    np.testing.assert_allclose(out["s"], x.sum(axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out["c"], (x > 0).sum(axis=1))
    w = []
    for r in x:
        v = 1000.0
        while v > np.float32(r.max()):
            v *= 0.5
        w.append(v)
    np.testing.assert_allclose(out["w"], w)
    np.testing.assert_allclose(out["big"], np.where(x.max(axis=1) > 0.5, x.max(axis=1), 0.0), rtol=1e-6)
    assert (ids >= 0).all() and (ids < 5).all()
    np.testing.assert_allclose(out["g"], x[ids].sum(axis=1), rtol=1e-5, atol=1e-6)


@tessel.fn
def first_max(a, i, b, j):
    """(value, position) of the larger value, the lower position on ties: associative and commutative."""
    left = (a > b) | ((a == b) & (i < j))
    return T.where(left, a, b), T.where(left, i, j)


@tessel.kernel
def effects_and_shapes(x: T.In[T.f32, ("M", "N")], u: T.In[T.f32, ("N",)], ids: T.In[T.i32, ("M",), T.Range(0, "N")],
                       cnt: T.InOut[T.i32, ("N",)], acc: T.Out[T.f32, ("M", "N")], d: T.Out[T.f32, ("M",)],
                       o: T.Out[T.f32, ("N", "N")], am: T.Out[T.i32, ("M",)], bits: T.Out[T.i32, ("M", "N")],
                       pairs: T.Out[T.f32, ("M", "N")], fl: T.Out[T.f32, ("M", "N")], st: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    rows, cols = T.domain(M), T.domain(N)
    uv = u[...]
    o[cols, cols] = T.outer(uv, uv)
    bits[:, :] = T.bitcast(x[:, :], T.i32)
    flat = T.domain(0, M * N)
    fl[rows, cols] = T.reshape(T.reshape(x[rows, cols], over=flat), over=(rows, cols))
    with T.parallel(rows) as m:
        row = x[m, cols]
        d[m] = T.dot(row, uv, acc_dtype=T.f32)
        buf = T.buffer(over=(cols,), dtype=T.f32, init=0.0)
        buf[cols] = buf[cols] + row
        buf[cols] = buf[cols] * 2.0
        acc[m, cols] = buf[cols]
        pos = T.indices(cols)
        best, at = T.reduce((row, pos), axis=0, identity=(-math.inf, 0),
                            combine=first_max)
        am[m] = T.cast(at, T.i32)
        pairs[m, cols] = T.sum(T.join(row, row * 2.0), axis=1)
        T.atomic_add(cnt, (ids[m],), 1)

        @T.for_(cols, init=(T.f32(0.0), T.i32(0)))
        def sums(j, s, n):
            return s + x[m, j], n + 1
        st[m] = sums[0] / T.cast(sums[1], T.f32)
    T.scatter_reduce(cnt, (T.index_relation(ids, rows),), T.full(rows, 1, T.i32), combine="add")


def test_effects_buffers_and_shape_ops_run():
    out = effects_and_shapes.run_interp({"M": 5, "N": 7}, seed=1)
    x, u, ids = out["x.in"].astype(np.float64), out["u.in"].astype(np.float64), out["ids.in"]
    np.testing.assert_allclose(out["o"], np.outer(u, u), rtol=1e-6)
    np.testing.assert_array_equal(out["bits"], out["x.in"].view(np.int32))
    np.testing.assert_allclose(out["fl"], x)
    np.testing.assert_allclose(out["d"], x @ u, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["acc"], 2 * x, rtol=1e-6)
    np.testing.assert_array_equal(out["am"], np.argmax(x, axis=1))
    np.testing.assert_allclose(out["pairs"], 3 * x, rtol=1e-6)
    np.testing.assert_allclose(out["st"], x.mean(axis=1), rtol=1e-5, atol=1e-6)
    expected = out["cnt.in"].copy()
    np.add.at(expected, ids, 2)  # one atomic add and one scatter-reduce add per row
    np.testing.assert_array_equal(out["cnt"], expected)
    text = effects_and_shapes.kir()
    for op in ("kir.atomic_rmw add", "kir.scatter_reduce", "kir.buffer over", "kir.buffer_store", "kir.join",
               "kir.reshape", "kir.bitcast", "kir.index_relation", "kir.for ", "kir.extract"):
        assert op in text, op


# ---------------------------------------------------------------------------------------------
# Misuse: each case names the file and the author's line
# ---------------------------------------------------------------------------------------------


def test_misuse_dtype_mixing():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], h: T.In[T.f16, ("N",)], y: T.Out[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = x[n] + h[n]  # <- error
    expect_error(k, "mixes f16 and f32; convert explicitly with T.cast")


def test_misuse_mismatched_extents():
    @tessel.kernel
    def k(a: T.In[T.f32, ("M",)], b: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M",)]):
        dm, dn = T.domain(0, a.shape[0]), T.domain(0, b.shape[0])
        y[dm] = a[dm] * b[dn]  # <- error
    err = expect_error(k, "`a[dm] * b[dn]`: mismatched extents: one operand is over ([0, M)) and another over "
                          "([0, N)); they differ at axis 0: [0, M) has M members, [0, N) has N members")
    assert err.col == 17, err


def test_misuse_where_of_two_numbers_names_dtype():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = T.where(x[n] > 0.0, 1.0, 0.0)  # <- error
    expect_error(k, "T.where: both branches are Python numbers, whose element type is not known; give it with "
                    "dtype=, e.g. T.where(c, 1.0, 0.0, dtype=T.f32)")


def test_where_of_two_numbers_with_dtype():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = T.where(x[n] > 0.0, 1.0, -2.0, dtype=T.f32) * x[n]
    x = np.random.default_rng(3).standard_normal(13).astype(np.float32)
    out = k.run_interp(shapes=dict(N=13), inputs=dict(x=x))
    np.testing.assert_allclose(out["y"], np.where(x > 0, 1.0, -2.0) * x, rtol=1e-6)


def test_misuse_store_to_in_view():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])
        x[n] = 1.0  # <- error
    expect_error(k, "'x' is an In view (read only); declare it T.Out or T.InOut")


def test_misuse_read_out_view_before_write():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = y[n] + x[n]  # <- error
    expect_error(k, "view 'y' is an Out view and is read before any write to it")


def test_misuse_unknown_shape_symbol():
    @tessel.kernel
    def k(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
        q = T.extent("Q")  # <- error
    expect_error(k, "unknown shape symbol 'Q': the kernel's views declare M, N")


def test_misuse_python_if_on_traced_value():
    """Only @tessel.kernel / @tessel.fn bodies are rewritten into runtime control (test_dsl_control.py):
    a plain Python helper cannot branch on a traced value, nor can `and` outside a condition."""
    def plain_relu(v):
        if v > 0.0:  # <- error
            return v
        return v * 0.0

    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        for i in T.parallel(T.domain(0, x.shape[0])):
            y[i] = plain_relu(x[i])
    expect_error(k, "is used as a Python truth value", line=marked_line(plain_relu))

    @tessel.kernel
    def k2(x: T.In[T.f32, ("N",)], y: T.Out[T.i32, ("N",)], t: T.f32):
        inside = t > 0.0 and t < 1.0  # <- error
        y[0] = T.cast(inside, T.i32)
    expect_error(k2, "is used as a Python truth value")


def test_constexpr_if_is_resolved_at_trace_time():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)], DOUBLE: T.Constexpr[bool] = False):
        n = T.domain(0, x.shape[0])
        if DOUBLE:
            y[n] = x[n] * 2.0
        else:
            y[n] = x[n]
    assert "kir.binary mul" not in k.kir() and "kir.binary mul" in k.kir(DOUBLE=True)
    with pytest.raises(tessel.CompileError, match="constexpr 'DOUBLE' is a bool, got 1"):
        k.kir(DOUBLE=1)


def test_misuse_float_literal_with_integer_tensor():
    @tessel.kernel
    def k(x: T.In[T.i32, ("N",)], y: T.Out[T.i32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = x[n] + 0.5  # <- error
    expect_error(k, "the float literal 0.5 is used as i32")


def test_misuse_store_dtype():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f16, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = x[n] * 2.0  # <- error
    expect_error(k, "stores a f32 value into a f16 view; convert explicitly with T.cast(value, T.f16)")


def test_misuse_coordinate_count():
    @tessel.kernel
    def k(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M",)]):
        y[0] = x[0]  # <- error
    expect_error(k, "view 'x' has rank 2 but 1 coordinate was given")


def test_misuse_closed_region_capture():
    @tessel.kernel
    def k(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M",)], scale: T.f32):
        M, N = x.shape
        cols = T.domain(0, N)

        def summarize(row):
            return T.sum(row) * scale  # <- error

        for m in T.parallel(T.domain(0, M)):
            y[m] = T.region_fold(sources=x[m, cols], axis=0, identity=0.0, summarize=summarize,
                                 combine=lambda a, b: a + b)
    expect_error(k, "comes from outside this T.region_fold summarize, which is a closed region: pass runtime "
                    "values in through operands=")


def test_misuse_combine_result_type():
    @tessel.fn
    def bad_combine(a, b):
        return T.cast(a + b, T.f16)

    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = T.scan(x[n], axis=0, identity=0.0, combine=bad_combine)
    err = expect_error(k, "helper 'bad_combine' result #0 has type f16 but f32 was expected",
                       line=bad_combine.fn.__code__.co_firstlineno + 1)
    assert "T.scan combine" in err.message


@pytest.mark.parametrize("decorate", [True, False], ids=["tessel.fn", "plain"])
@pytest.mark.parametrize("op", ["region_fold combine", "region_fold summarize", "reduce", "scan"])
def test_misuse_helper_arity(op, decorate):
    """Issue 47: a helper of the wrong arity was a bare TypeError raised from _structured.py (or, for a
    @tessel.fn, a message without the expected arity): a CompileError at the helper's `def` naming it,
    the region, and the arguments the region passes."""
    def combine3(a, b, c):
        return a + b

    def summarize2(s, extra):
        return T.sum(s)

    combine3, summarize2 = (tessel.fn(f) if decorate else f for f in (combine3, summarize2))
    fold_combine = combine3 if op == "region_fold combine" else (lambda a, b: a + b)
    fold_summarize = summarize2 if op == "region_fold summarize" else (lambda s: T.sum(s))
    bad = {"region_fold combine": combine3, "region_fold summarize": summarize2}.get(op, combine3)

    @tessel.kernel
    def k(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M",)]):
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            if op == "reduce":
                y[m] = T.reduce(x[m, cols], 0, 0.0, combine3)
            elif op == "scan":
                y[m] = T.sum(T.scan(x[m, cols], axis=0, identity=0.0, combine=combine3))
            else:
                y[m] = T.region_fold(sources=x[m, cols], axis=0, identity=0.0, summarize=fold_summarize,
                                     combine=fold_combine)
    code = getattr(bad, "fn", bad).__code__
    takes = "3 positional parameters (a, b, c)" if bad is combine3 else "2 positional parameters (s, extra)"
    called = "2 arguments" if bad is combine3 else "1 argument"
    err = expect_error(k, f"helper '{code.co_name}' takes {takes} but is called with {called}",
                       line=code.co_firstlineno)
    assert f"T.{op}" in err.message


def test_misuse_reduce_arguments_out_of_order():
    """Issue 47: `T.reduce(x, combine, 0.0)` (the helper where the axis goes, combine left out) was a bare
    TypeError ("missing 1 required positional argument"): a CompileError at the call saying the order."""
    def add(a, b):
        return a + b

    @tessel.kernel
    def k(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M",)]):
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            y[m] = T.reduce(x[m, cols], add, 0.0)  # <- error
    expect_error(k, "T.reduce(x, axis=..., identity=..., combine=...) is missing combine (a helper function was "
                    "given as the axis: the order is x, axis, identity, combine)")


def test_misuse_break_in_parallel():
    @tessel.kernel
    def k(x: T.In[T.f32, ("M",)], y: T.Out[T.f32, ("M",)]):
        for m in T.parallel(T.domain(0, x.shape[0])):  # <- error
            y[m] = x[m]
            break
    expect_error(k, "T.parallel body opened here was left before its end (break, return or an exception")


def test_misuse_value_escapes_parallel():
    @tessel.kernel
    def k(x: T.In[T.f32, ("M",)], y: T.Out[T.f32, ("M",)]):
        rows = T.domain(0, x.shape[0])
        for m in T.parallel(rows):
            v = x[m]
        y[rows] = v  # <- error
    expect_error(k, "was defined inside the T.parallel body opened at line")


def test_misuse_missing_annotation():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)],
          y):  # <- error
        pass
    expect_error(k, "parameter 'y' needs an annotation")


def test_misuse_approximate_needs_f32():
    @tessel.kernel
    def k(x: T.In[T.f16, ("N",)], y: T.Out[T.f16, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = T.exp2(x[n], approximate=True)  # <- error
    expect_error(k, "approximate=True on exp2 requires f32, got f16")


def test_misuse_flush_to_zero_needs_approximate():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = T.exp2(x[n], flush_to_zero=True)  # <- error
    expect_error(k, "flush_to_zero=True on exp2 requires approximate=True")


def test_misuse_contract_extents():
    @tessel.kernel
    def k(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("J", "N")], c: T.Out[T.f32, ("M", "N")]):
        M, K = a.shape
        J, N = b.shape
        dm, dk, dj, dn = T.domain(0, M), T.domain(0, K), T.domain(0, J), T.domain(0, N)
        c[dm, dn] = T.matmul(a[dm, dk], b[dj, dn], acc_dtype=T.f32)  # <- error
    expect_error(k, "reduce pair (1, 0) has mismatched extents: lhs axis 1 is over [0, K), rhs axis 0 over [0, J)")


def test_misuse_unknown_constexpr():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], FLAG: T.Constexpr[bool] = False):  # <- error
        pass
    expect_error(k, "kernel 'k' has no constexpr parameter 'NOPE' (it declares: FLAG)", constexprs={"NOPE": True})


def test_misuse_load_in_pure_combine():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])

        def combine(a, b):
            return a + x[0]  # <- error
        y[n] = T.cumsum(x[n]) + T.scan(x[n], 0, 0.0, combine)
    expect_error(k, "view 'x' is not visible inside the T.scan combine, which is a closed region")


def test_misuse_effect_in_pure_combine():
    def combine(a, b):
        scratch = T.buffer(over=T.domain(0, 1), dtype=T.f32, init=a)  # <- error
        return scratch[0] + b

    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = T.scan(x[n], 0, 0.0, combine)
    expect_error(k, "a buffer (T.buffer allocates and writes) inside the T.scan combine, which must be pure",
                 line=marked_line(test_misuse_effect_in_pure_combine))


def test_misuse_axis_out_of_range():
    @tessel.kernel
    def k(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M",)]):
        M, N = x.shape
        y[T.domain(0, M)] = T.sum(x[T.domain(0, M), T.domain(0, N)], axis=2)  # <- error
    expect_error(k, "T.sum: axis 2 is out of range for a rank-2 tensor")


def test_misuse_where_condition_dtype():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = T.where(x[n], x[n], 0.0)  # <- error
    expect_error(k, "T.where needs an i1 (bool) condition, got f32")


def test_misuse_true_division_of_integers():
    @tessel.kernel
    def k(x: T.In[T.i32, ("N",)], y: T.Out[T.i32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = x[n] / 2  # <- error
    expect_error(k, "write '//' for (floor) integer division")


def test_misuse_if_with_results_needs_else():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        for i in T.parallel(T.domain(0, x.shape[0])):
            v = x[i]
            y[i] = T.if_(v > 0.0, lambda: v)  # <- error
    expect_error(k, "T.if_ with results needs an else_ branch")


def test_misuse_kernel_returns_value():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)]):  # <- error
        return x[T.domain(0, x.shape[0])]
    expect_error(k, "kernel 'k' returns a value; a kernel returns nothing")


def test_compiler_diagnostics_point_at_the_author():
    """A rule only the KIR verifier checks (parallel write independence) surfaces as a CompileError
    at the author's line, through the op's location."""
    @tessel.kernel
    def k(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("N",)]):
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            y[cols] = x[m, cols]  # <- error
    with pytest.raises(tessel.CompileError) as info:
        k.compile()
    err = info.value
    assert err.file == __file__ and err.line == marked_line(k)
    assert "writes the same elements in every iteration of the enclosing kir.parallel" in err.message
    with pytest.raises(tessel.CompileError) as info:
        k.run_interp({"M": 2, "N": 3})
    assert info.value.line == marked_line(k)


def test_helper_annotations_are_checked():
    @tessel.fn
    def twice(a: T.f32) -> T.f32:
        return a * 2.0

    @tessel.kernel
    def k(x: T.In[T.f16, ("N",)], y: T.Out[T.f16, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = T.cast(T.reduce(x[n], 0, T.f16(0), lambda a, b: twice(a) + b), T.f16)  # <- error
    expect_error(k, "helper 'twice' parameter 'a' expects f32")


def test_scalar_kernel_arguments_and_math_options():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)], alpha: T.f32):
        n = T.domain(0, x.shape[0])
        y[n] = T.exp2(x[n] * alpha, approximate=True, flush_to_zero=True) + T.tanh(x[n], approximate=True)
    text = k.kir()
    assert "kir.unary exp2 %" in text and "{approximate, flush_to_zero}" in text
    out = k.run_interp({"N": 11}, scalars={"alpha": 0.5})
    x = out["x.in"].astype(np.float64)
    np.testing.assert_allclose(out["y"], np.exp2(x * 0.5) + np.tanh(x), rtol=1e-3, atol=1e-3)


def test_float_constants_are_exact():
    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        n = T.domain(0, x.shape[0])
        y[n] = T.maximum(x[n] * 1e-5, -math.inf) + T.minimum(x[n], math.inf) * 0.1
    text = k.kir()
    assert "arith.constant 9.999999747378752e-06 : f32" in text
    assert "arith.constant 0xFF800000 : f32" in text and "arith.constant 0x7F800000 : f32" in text


def test_misuse_python_errors_are_located_at_the_author():
    """Errors Python raises in the kernel's own code while it is traced (an undefined name, a T.
    attribute that does not exist, a @tessel.fn that calls itself) are CompileErrors at the author's
    line, not tracebacks through tessel's frames (issue 14)."""
    import inspect

    @tessel.kernel
    def undefined(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        for i in T.parallel(T.domain(0, x.shape[0])):
            y[i] = x[i] * no_such_name  # noqa: F821

    @tessel.kernel
    def unknown(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        for i in T.parallel(T.domain(0, x.shape[0])):
            y[i] = T.no_such_function(x[i])

    @tessel.fn
    def again(a):
        return again(a)

    @tessel.kernel
    def recursive(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        for i in T.parallel(T.domain(0, x.shape[0])):
            y[i] = again(x[i])

    def line_of(fn, text):
        lines, start = inspect.getsourcelines(fn.fn if hasattr(fn, "fn") else fn)
        return start + next(k for k, ln in enumerate(lines) if text in ln)

    for kern, text, message in ((undefined, "no_such_name", "name 'no_such_name' is not defined"),
                                (unknown, "T.no_such_function", "T.no_such_function is not part of tessel.language"),
                                (recursive, "again(x[i])", "calls itself")):
        with pytest.raises(tessel.CompileError, match=message) as info:
            kern.kir({})
        assert info.value.file == __file__
        if kern is not recursive:
            assert info.value.line == line_of(kern, text)
        assert info.value.__cause__ is None and info.value.__suppress_context__


def test_misuse_negative_or_outside_subregion_bounds():
    """Subregion bounds are coordinates of the domain. A negative Python bound used to mean the whole
    domain (the members of [0, N) at or after -1); it is a located error naming the expression."""
    @tessel.kernel
    def last(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
        cols = T.domain(0, x.shape[0])
        y[cols[-1:]] = x[cols[-1:]]  # <- error
    err = expect_error(last, "`cols[-1:]`: the subregion begin -1 is negative")
    assert err.col == 26 and "cols[N - 1:N]" in err.message, err  # the right-hand side traces first

    @tessel.kernel
    def interior(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
        y[:, 1:-1] = x[:, 1:-1]  # <- error
    expect_error(interior, "`x[:, 1:-1]`: the subregion end -1 is negative")

    @tessel.kernel
    def past(x: T.In[T.f32, ("M", 16)], y: T.Out[T.f32, ("M", 16)]):
        M = x.shape[0]
        row = T.domain(0, 16)
        for m in T.parallel(T.domain(0, M)):
            y[m, row[0:8]] = x[m, row[8:20]]  # <- error
    expect_error(past, "`row[8:20]`: the subregion end 20 lies outside the domain [0, 16)")


def test_subregion_bounds_inside_the_domain_run():
    @tessel.kernel
    def tail(x: T.In[T.f32, ("N",)], y: T.InOut[T.f32, ("N",)]):
        N = x.shape[0]
        cols = T.domain(0, N)
        last = cols[N - 1:N]
        y[last] = x[last] * 2.0
        y[cols[0:0]] = x[cols[0:0]]              # empty: writes nothing
    for n in (1, 2, 7):
        out = tail.run_interp(shapes={"N": n}, seed=n)
        want = out["y.in"].copy()
        want[-1] = 2.0 * out["x.in"][-1]
        np.testing.assert_allclose(out["y"], want, rtol=1e-6)
