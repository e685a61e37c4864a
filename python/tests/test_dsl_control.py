"""Ordinary Python `if` / `for` / `while` over runtime values in kernels and @tessel.fn helpers.

The DSL rewrites the Python AST of those functions before tracing (python/tessel/_pycontrol.py): a
traced condition or a domain iterable gives kir.if / kir.for / kir.while with carries, a Python value
keeps plain Python control flow. Each kernel is checked against NumPy on the reference interpreter at
odd shapes; misuse is reported at the author's line.
"""
import inspect
import math
import os

import numpy as np
import pytest

import tessel
import tessel.language as T
from _misuse import expect_error, marked_line

SHAPES_MK = [{"M": 3, "K": 7}, {"M": 5, "K": 13}]


@pytest.fixture(scope="module", autouse=True)
def _use_built_compiler(tessel_bin):
    old = os.environ.get("TESSEL_BIN")
    os.environ["TESSEL_BIN"] = str(tessel_bin)
    yield
    if old is None:
        os.environ.pop("TESSEL_BIN", None)
    else:
        os.environ["TESSEL_BIN"] = old


def f32(a):
    return np.asarray(a, dtype=np.float32)


# ---------------------------------------------------------------------------------------------
# if on a runtime scalar
# ---------------------------------------------------------------------------------------------


@tessel.kernel
def pick(x: T.In[T.f32, ("M", "K")], y: T.Out[T.f32, ("M", "K")], eps: T.f32):
    M, K = x.shape
    rows, cols = T.domain(0, M), T.domain(0, K)
    t = x[rows, cols]
    if eps > 0.5:
        r = t * eps
    else:
        r = T.exp(t) - eps
    y[rows, cols] = r


@pytest.mark.parametrize("shapes", SHAPES_MK)
@pytest.mark.parametrize("eps", [0.75, 0.25])
def test_if_on_runtime_scalar(shapes, eps):
    out = pick.run_interp(shapes, scalars={"eps": eps}, seed=1)
    x = out["x.in"].astype(np.float64)
    ref = x * eps if eps > 0.5 else np.exp(x) - eps
    np.testing.assert_allclose(out["y"], ref, rtol=1e-5, atol=1e-6)
    text = pick.kir()
    assert "kir.if" in text and "-> tensor<?x?xf32>" in text  # one result: the variable r


# ---------------------------------------------------------------------------------------------
# for over a domain with a carried scalar
# ---------------------------------------------------------------------------------------------


@tessel.kernel
def running_dot(a: T.In[T.f32, ("M", "K")], b: T.In[T.f32, ("K",)], d: T.Out[T.f32, ("M",)]):
    M, K = a.shape
    for m in T.parallel(T.domain(0, M)):
        acc = T.f32(0.0)
        for k in T.domain(0, K):
            acc = acc + a[m, k] * b[k]
        d[m] = acc


@pytest.mark.parametrize("shapes", SHAPES_MK)
def test_for_over_domain_carries_a_scalar(shapes):
    out = running_dot.run_interp(shapes, seed=2)
    a, b = out["a.in"].astype(np.float64), out["b.in"].astype(np.float64)
    np.testing.assert_allclose(out["d"], a @ b, rtol=1e-5, atol=1e-5)
    text = running_dot.kir()
    assert "kir.for" in text and "iter_args(" in text and "-> f32" in text


# ---------------------------------------------------------------------------------------------
# if / elif nested inside the for; several carries, one of them the loop index
# ---------------------------------------------------------------------------------------------


@tessel.kernel
def clamp_sum_argmax(x: T.In[T.f32, ("M", "K")], s: T.Out[T.f32, ("M",)], at: T.Out[T.i32, ("M",)],
                     lo: T.f32, hi: T.f32):
    M, K = x.shape
    for m in T.parallel(T.domain(0, M)):
        total = T.f32(0.0)
        best = T.f32(-math.inf)
        where = T.index(0)
        for k in T.domain(0, K):
            v = x[m, k]
            if v > hi:
                total = total + hi
            elif v < lo:
                total = total + lo
            else:
                total = total + v
            if v > best:
                best = v
                where = k
        s[m] = total
        at[m] = T.cast(where, T.i32)


@pytest.mark.parametrize("shapes", SHAPES_MK)
def test_if_nested_in_for(shapes):
    lo, hi = -0.25, 0.5
    out = clamp_sum_argmax.run_interp(shapes, scalars={"lo": lo, "hi": hi}, seed=3)
    x = out["x.in"]
    np.testing.assert_allclose(out["s"], np.clip(x.astype(np.float64), f32(lo), f32(hi)).sum(axis=1),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out["at"], np.argmax(x, axis=1))
    text = clamp_sum_argmax.kir()
    assert text.count("kir.if") == 3  # if, its elif, and the running max


# ---------------------------------------------------------------------------------------------
# while on a runtime condition
# ---------------------------------------------------------------------------------------------


@tessel.kernel
def halvings(x: T.In[T.f32, ("M", "K")], n: T.Out[T.i32, ("M",)], r: T.Out[T.f32, ("M",)],
             first: T.Out[T.i32, ("M",)], floor: T.f32):
    M, K = x.shape
    for m in T.parallel(T.domain(0, M)):
        v = T.abs(x[m, 0]) * 1000.0
        steps = T.i32(0)
        while v > floor:
            v = v * 0.5
            steps = steps + 1
        n[m] = steps
        r[m] = v
        # `and` short-circuits: x[m, i] is only read while i < K
        i = T.index(0)
        while i < K and x[m, i] <= 0.0:
            i = i + 1
        first[m] = T.cast(i, T.i32)


@pytest.mark.parametrize("shapes", SHAPES_MK)
def test_while_on_runtime_condition(shapes):
    out = halvings.run_interp(shapes, scalars={"floor": 0.75}, seed=4)
    x = out["x.in"]
    steps, rest = [], []
    for row in x:
        v, k = np.abs(row[0]) * np.float32(1000.0), 0
        while v > np.float32(0.75):
            v, k = v * np.float32(0.5), k + 1
        steps.append(k)
        rest.append(v)
    np.testing.assert_array_equal(out["n"], steps)
    np.testing.assert_allclose(out["r"], rest, rtol=1e-6)
    first = [next((i for i, v in enumerate(row) if v > 0), len(row)) for row in x]
    np.testing.assert_array_equal(out["first"], first)
    assert "kir.while" in halvings.kir()


# ---------------------------------------------------------------------------------------------
# More forms: if without else, conditional expressions, not/or, range() of an extent, tensor
# carries, early returns in helpers, Python control on Python values
# ---------------------------------------------------------------------------------------------


@tessel.fn
def soft_threshold(v: T.f32, t: T.f32) -> T.f32:
    if v > t:
        return v - t
    if v < -t:
        return v + t
    return 0.0  # a Python number: converted to f32 where it meets the traced branch


@tessel.kernel(numerics="source")
def mixed(x: T.In[T.f32, ("M", "K")], y: T.Out[T.f32, ("M", "K")], pre: T.Out[T.f32, ("M", "K")],
          big: T.InOut[T.i32, ("M",)], t: T.f32, FLAG: T.Constexpr[bool] = True):
    M, K = x.shape
    cols = T.domain(0, K)
    for m in T.parallel(T.domain(0, M)):
        row = T.zeros(cols)
        for k in range(K):                   # range() of a traced extent: an ordered kir.for
            row = row + x[m, k]              # a tensor carry: prefix sums over the whole row
            y[m, k] = soft_threshold(x[m, k], t) if FLAG else x[m, k]
        pre[m, cols] = row
        if not (row[0] > t) or x[m, 0] > 2.0 * t:   # no else: only a store
            big[m] = big[m] + 1
        scale = 1.0
        for _ in range(2):                   # a Python loop on Python values: unrolled
            scale = scale * 2.0
        pre[m, 0] = pre[m, 0] * scale


@pytest.mark.parametrize("shapes", [{"M": 3, "K": 5}, {"M": 4, "K": 9}])
def test_more_control_forms(shapes):
    t = 0.3
    out = mixed.run_interp(shapes, scalars={"t": t}, seed=5)
    x = out["x.in"].astype(np.float64)
    t32 = float(f32(t))
    np.testing.assert_allclose(out["y"], np.where(x > t32, x - t32, np.where(x < -t32, x + t32, 0.0)),
                               rtol=1e-6, atol=1e-6)
    pre = np.broadcast_to(x.sum(axis=1, keepdims=True), x.shape).copy()
    pre[:, 0] *= 4.0
    np.testing.assert_allclose(out["pre"], pre, rtol=1e-5, atol=1e-5)
    rowsum = np.cumsum(out["x.in"], axis=1, dtype=np.float32)[:, -1]  # summed in order, like the kernel
    hit = ~(rowsum > np.float32(t)) | (out["x.in"][:, 0] > np.float32(2 * t))
    np.testing.assert_array_equal(out["big"], out["big.in"] + hit)
    # the helper's two early returns are two kir.ifs, only traced when FLAG is set
    assert mixed.kir().count("kir.if") == mixed.kir(FLAG=False).count("kir.if") + 2


def test_helpers_keep_python_semantics_on_python_values():
    assert soft_threshold(2.0, 0.5) == 1.5 and soft_threshold(-2.0, 0.5) == -1.5 and soft_threshold(0.1, 0.5) == 0

    @tessel.kernel
    def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)], MODE: T.Constexpr[int] = 0):
        n = T.domain(0, x.shape[0])
        v = x[n]
        if MODE == 1:
            v = v * 2.0
        elif MODE == 2:
            v = v + 1.0
        i = 0
        while i < 3:
            v = v + 1.0
            i += 1
        for j in range(2):
            if j == 1:
                v = -v
        y[n] = v
    for mode in (0, 1, 2):
        text = k.kir(MODE=mode)
        assert "kir.if" not in text and "kir.for" not in text and "kir.while" not in text
    out = k.run_interp({"N": 7}, constexprs={"MODE": 1})
    np.testing.assert_allclose(out["y"], -(out["x.in"] * 2.0 + 3.0), rtol=1e-6)


def test_control_ops_carry_the_authors_lines():
    src = inspect.getsource(clamp_sum_argmax.fn).splitlines()
    start = clamp_sum_argmax.fn.__code__.co_firstlineno
    text = clamp_sum_argmax.kir()
    for stmt in ("for k in T.domain(0, K):", "if v > hi:", "elif v < lo:", "if v > best:"):
        i = next(i for i, s in enumerate(src) if s.strip() == stmt)
        col = src[i].index(stmt.split()[0]) + 1  # the keyword (an elif is the `if` of the else branch)
        assert f'loc("{__file__}":{start + i}:{col})' in text, (stmt, start + i, col)
    line = start + next(i for i, s in enumerate(src) if s.strip() == "total = total + hi")
    assert any("kir.binary add" in s and f'"{__file__}":{line}:' in s for s in text.splitlines())
    assert clamp_sum_argmax.compile("kir")  # verifies


# ---------------------------------------------------------------------------------------------
# Misuse
# ---------------------------------------------------------------------------------------------


def test_misuse_break_in_runtime_loop():
    @tessel.kernel
    def k(x: T.In[T.f32, ("K",)], y: T.Out[T.f32, ("K",)]):
        acc = T.f32(0.0)
        for i in T.domain(0, x.shape[0]):
            acc = acc + x[i]
            if acc > 1.0:
                break  # <- error
        y[0] = acc
    expect_error(k, "'break' inside a `for` over a runtime domain is not supported")


def test_misuse_continue_and_return_in_runtime_loops():
    @tessel.kernel
    def k(x: T.In[T.f32, ("K",)], y: T.Out[T.f32, ("K",)]):
        i = T.index(0)
        while i < x.shape[0]:
            i = i + 1
            if x[i - 1] > 0.0:
                continue  # <- error
            y[i - 1] = x[i - 1]
    expect_error(k, "'continue' in a `while` loop with a runtime condition is not supported")

    @tessel.kernel
    def k2(x: T.In[T.f32, ("K",)], y: T.Out[T.f32, ("K",)]):
        for i in T.domain(0, x.shape[0]):
            y[i] = x[i]
            return  # <- error
    expect_error(k2, "'return' inside a `for` over a runtime domain is not supported")

    @tessel.kernel
    def k3(x: T.In[T.f32, ("K",)], y: T.Out[T.f32, ("K",)], t: T.f32):
        for j in range(3):
            if x[j] > t:
                break  # <- error
            y[j] = x[j]
    expect_error(k3, "'break' inside an `if` on a runtime condition is not supported")


def test_misuse_variable_defined_in_one_branch():
    @tessel.kernel
    def k(x: T.In[T.f32, ("K",)], y: T.Out[T.f32, ("K",)], t: T.f32):
        if t > 0.0:
            v = x[0]
        y[0] = v  # <- error
    err = expect_error(k, "'v' is used after the runtime `if` at line")
    assert "it is assigned only in the then branch and has no value before the `if`" in err.message


def test_misuse_branches_disagree_on_a_type():
    @tessel.kernel
    def k(x: T.In[T.f32, ("K",)], h: T.In[T.f16, ("K",)], y: T.Out[T.f32, ("K",)], t: T.f32):
        if t > 0.0:
            v = x[0]
        else:
            v = h[0]
        y[0] = v  # <- error
    expect_error(k, "'v' is used after the runtime `if` at line")


def test_misuse_loop_carries():
    @tessel.kernel
    def k(x: T.In[T.f32, ("K",)], y: T.Out[T.f32, ("K",)]):
        n = 0
        for i in T.domain(0, x.shape[0]):  # <- error
            n = n + 1
        y[0] = T.cast(n, T.f32)
    expect_error(k, "'n' is carried by the runtime `for` at line")

    @tessel.kernel
    def k2(x: T.In[T.f32, ("K",)], y: T.Out[T.f16, ("K",)]):
        acc = T.f32(0.0)
        for i in T.domain(0, x.shape[0]):  # <- error
            acc = T.cast(acc + x[i], T.f16)
        y[0] = acc
    expect_error(k2, "a loop-carried variable keeps its type and shape")

    @tessel.kernel
    def k3(x: T.In[T.f32, ("K",)], y: T.Out[T.f32, ("K",)]):
        for i in T.domain(0, x.shape[0]):
            last = x[i]
        y[0] = last  # <- error
    expect_error(k3, "it is assigned only inside the loop and has no value before it")


def test_misuse_tensor_condition():
    @tessel.kernel
    def k(x: T.In[T.f32, ("K",)], y: T.Out[T.f32, ("K",)]):
        d = T.domain(0, x.shape[0])
        if x[d] > 0.0:  # <- error
            y[d] = x[d]
    expect_error(k, "a runtime condition must be a scalar bool (i1): choose element-wise with T.where")


def test_misuse_while_condition_turns_runtime():
    @tessel.kernel
    def k(x: T.In[T.f32, ("K",)], y: T.Out[T.f32, ("K",)]):
        v = 8.0
        while v > 1.0:  # <- error
            v = v * x[0]
        y[0] = v
    expect_error(k, "was a Python value when the loop started but is a runtime value")


def test_misuse_match_on_a_traced_value():
    # The tracer runs a `match` in Python: on a traced value a class pattern never matches, so
    # `case _` was taken silently whatever the kernel's scalar was. It is a located error now.
    @tessel.kernel
    def k(x: T.In[T.f32, ("K",)], y: T.Out[T.f32, ("K",)], n: T.i32):
        d = T.domain(0, x.shape[0])
        match n:  # <- error
            case int():
                y[d] = x[d]
            case _:
                y[d] = x[d] * 2.0
    err = expect_error(k, "`match n`: matching on the traced i32 value")
    assert err.col == 9, err.col

    @tessel.kernel
    def k2(x: T.In[T.f32, ("K",)], y: T.Out[T.f32, ("K",)]):
        for i in T.parallel(T.domain(0, x.shape[0])):
            match (1, x[i]):  # <- error
                case (1, 0.0):
                    y[i] = x[i]
                case _:
                    y[i] = -x[i]
    expect_error(k2, "`match (1, x[i])`: matching on the traced f32 value")


def test_match_on_python_values_runs_at_trace_time():
    @tessel.kernel
    def k(x: T.In[T.f32, ("K",)], y: T.Out[T.f32, ("K",)], MODE: T.Constexpr[str] = "twice"):
        d = T.domain(0, x.shape[0])
        match MODE:
            case "same":
                y[d] = x[d]
            case "twice":
                y[d] = x[d] * 2.0
            case _:
                y[d] = -x[d]
    for mode, want in (("same", 1.0), ("twice", 2.0), ("other", -1.0)):
        out = k.run_interp(shapes={"K": 7}, seed=3, constexprs={"MODE": mode})
        np.testing.assert_allclose(out["y"], want * out["x.in"], rtol=1e-6)
