"""Issue 18, host path: a call like an earlier one (same view types, dtypes, shapes, strides, devices,
alignment and integer scalars) launches that call's plan without the full checks, the launcher choice
or Triton's JIT; it still checks what the plan key leaves open (aliasing of written views, the types
and ranges of float scalars, integer scalars' types) and defers to the full checks when those fail,
so every error stays what it was (test_call_checks.py). Runs under TRITON_INTERPRET=1, where the
plans launch through the interpreter."""
import os
import sys
from pathlib import Path

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

from conftest import example  # noqa: E402  (the suite's examples, by name)


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TRITON_INTERPRET", "1")


def planned_only(monkeypatch, kernel):
    """From now on a call that is not planned fails: the checked path of the kernel's default
    launcher raises, and so does binding the arguments."""
    names = kernel._launcher({}).__globals__

    def boom(*args, **kwargs):
        raise AssertionError("the call was not planned")
    monkeypatch.setitem(names, f"_{kernel.name}_checked", boom)
    monkeypatch.setattr(kernel, "_bind", boom)


def _calls_seen(module, call):
    """(function name, whether it is `module`'s) of every Python call `call()` makes into the generated
    module or the tessel package, in order."""
    package = str(Path(tessel.__file__).parent)
    seen = []

    def profile(frame, event, arg):
        if event == "call":
            where = frame.f_code.co_filename
            if where == module or where.startswith(package):
                seen.append((frame.f_code.co_name, where == module))
    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return seen

def test_a_repeated_call_launches_its_plan():
    softmax = example("softmax")
    softmax._plans.clear()
    x, y = torch.randn(5, 37), torch.empty(5, 37)
    softmax(x, y)
    assert len(softmax._plans) == 1
    x2, y2 = torch.randn(5, 37), torch.empty(5, 37)
    with pytest.MonkeyPatch.context() as mp:
        planned_only(mp, softmax)
        softmax(x2, y2)
    np.testing.assert_allclose(y2.numpy(), torch.softmax(x2, 1).numpy(), rtol=1e-5, atol=1e-6)


def test_other_shapes_strides_and_alignment_are_not_planned_yet(monkeypatch):
    softmax = example("softmax")
    softmax._plans.clear()
    softmax(torch.randn(5, 37), torch.empty(5, 37))
    planned_only(monkeypatch, softmax)
    for x in (torch.randn(5, 38), torch.randn(37, 5).t(), torch.randn(5 * 37 + 1)[1:].view(5, 37),
              torch.randn(5, 37, dtype=torch.float64)):
        with pytest.raises(AssertionError, match="not planned"):
            softmax(x, torch.empty(x.shape))


@pytest.mark.parametrize("shape", [(5, 3), (3, 0), (1, 1)])
def test_strided_and_empty_views_are_planned_too(monkeypatch, shape):
    softmax = example("softmax")
    softmax._plans.clear()
    m, n = shape
    for i in range(2):
        x = torch.randn(n, m).t()  # transposed: not contiguous
        y = torch.empty(m, 2 * n)[:, ::2]  # every other column
        if i:
            planned_only(monkeypatch, softmax)
        softmax(x, y)
        np.testing.assert_allclose(y.numpy(), torch.softmax(x, 1).numpy(), rtol=1e-5, atol=1e-6)


def test_a_planned_call_still_refuses_aliasing():
    softmax = example("softmax")
    big = torch.randn(8, 8)  # rows of 32 bytes: every row view has the same alignment
    softmax(big[:3], big[3:6])
    np.testing.assert_allclose(big[3:6].numpy(), torch.softmax(big[:3], 1).numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="argument 'y' overlaps argument 'x' in memory"):
        softmax(big[:3], big[1:4])  # the same plan key, overlapping addresses
    with pytest.raises(ValueError, match="argument 'y' overlaps argument 'x' in memory"):
        softmax(big[:3], big[:3])


def test_a_planned_call_checks_its_float_scalar():
    layernorm = example("layernorm")
    x, w, b = torch.randn(4, 9), torch.randn(9), torch.randn(9)
    want = torch.nn.functional.layer_norm(x, (9,), w, b, 1.0)
    y = torch.empty(4, 9)
    layernorm(x, w, b, y, eps=1.0)
    layernorm(x, w, b, y, eps=1.0)
    with pytest.raises(TypeError, match="scalar 'eps' must be float, got bool"):
        layernorm(x, w, b, y, eps=True)
    with pytest.raises(ValueError, match=r"scalar 'eps' = 1e\+300 is outside the range of its type"):
        layernorm(x, w, b, y, eps=1e300)
    y = torch.empty(4, 9)
    layernorm(x, w, b, y, eps=1)  # an int for a float: the full checks accept it
    np.testing.assert_allclose(y.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


@tessel.kernel
def scale(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)], k: T.i32):
    n = T.domain(0, x.shape[0])
    y[n] = x[n] * T.cast(k, T.f32)


def test_an_integer_scalar_is_part_of_the_plan_key(monkeypatch):
    x = torch.randn(7)
    for k in (3, 1, 16):
        y = torch.empty(7)
        scale(x, y, k=k)
        np.testing.assert_array_equal(y.numpy(), (x * float(k)).numpy())
    assert len(scale._plans) == 3  # each value its own plan (Triton specializes 1 and multiples of 16)
    with pytest.raises(TypeError, match="scalar 'k' must be int, got bool"):
        scale(x, torch.empty(7), k=True)  # equal to 1 as a dictionary key: the type is guarded
    planned_only(monkeypatch, scale)
    y = torch.empty(7)
    scale(x, y, k=16)
    np.testing.assert_array_equal(y.numpy(), (x * 16.0).numpy())


@tessel.kernel(numerics="relaxed_normalization")
def scaled_softmax(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")], s: T.f32):
    for i in T.parallel(T.domain(0, x.shape[0])):
        j = T.domain(0, x.shape[1])
        z = x[i, j] * s
        e = T.exp(z - T.max(z))
        y[i, j] = e / T.sum(e)


def test_a_float_launch_fact_is_part_of_the_plan_key(monkeypatch):
    """pgpu-factor-reductions takes the maximum of x and scales it where `s` lies in [2^-32, 2^32], a
    launch fact on a float scalar: the plan key holds the fact (not `s`), so a call outside the window
    never launches the plan compiled for a call inside it, and the other way round."""
    x = torch.randn(5, 37)
    for s in (0.5, -0.5, 0.0, 2.0, float("inf"), 1e-12, 0.25):
        y = torch.empty_like(x)
        scaled_softmax(x, y, s=s)
        np.testing.assert_allclose(y.numpy(), torch.softmax(x * s, 1).numpy(), rtol=1e-5, atol=1e-6)
    assert len(scaled_softmax._plans) == 2  # inside the window, and outside it
    planned_only(monkeypatch, scaled_softmax)
    for s in (3.0, -3.0):
        y = torch.empty_like(x)
        scaled_softmax(x, y, s=s)
        np.testing.assert_allclose(y.numpy(), torch.softmax(x * s, 1).numpy(), rtol=1e-5, atol=1e-6)


def test_each_shape_keeps_the_launcher_it_chose(monkeypatch):
    # A kernel object's plans launch what the shape chose (a tuned winner, or a default covering the
    # shape): here a stand-in choice gives BLOCK=64 to rows longer than 100.
    softmax = example("softmax")
    softmax._plans.clear()
    softmax._launches.clear()
    monkeypatch.setattr(softmax, "_fact_params", lambda cx, tensors, target="triton":
                        {"BLOCK": 64} if tensors[0].shape[1] > 100 else None)
    for _ in range(2):
        for n in (37, 300):
            x, y = torch.randn(3, n), torch.empty(3, n)
            softmax(x, y)
            np.testing.assert_allclose(y.numpy(), torch.softmax(x, 1).numpy(), rtol=1e-5, atol=1e-6)
    blocks = {key[2][1]: plan[0].__globals__["softmax_PARAMS"]["BLOCK"][1] for key, plan in softmax._plans.items()}
    assert blocks == {37: 512, 300: 64}


def test_calls_with_constexprs_or_views_by_name_are_bound():
    cumsum = example("cumsum")
    x = torch.randn(3, 10)
    y = torch.empty(3, 10)
    cumsum(x, y, REVERSE=True)
    np.testing.assert_allclose(y.numpy(), x.flip(1).cumsum(1).flip(1).numpy(), rtol=1e-5, atol=1e-5)
    softmax = example("softmax")
    y = torch.empty(3, 10)
    softmax(x=x, y=y)
    np.testing.assert_allclose(y.numpy(), torch.softmax(x, 1).numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="kernel 'softmax' got unexpected arguments"):
        softmax(x, y, z=1)
    with pytest.raises(TypeError, match="kernel 'softmax': missing view argument 'y'"):
        softmax(x)


def test_a_planned_call_runs_no_tessel_python_but_the_wrapper_and_the_plan(tmp_path):
    # What keeps one call cheap (issue 18): after the first call, the kernel object's call is the
    # generated planned call (its class's `__call__`), which calls the plan's launch; nothing else of
    # tessel's (binding, launcher choice, checks, tuning-cache lookups, a forwarding layer) runs. Under
    # the interpreter the launch then asks whether it is still on and calls Triton's interpreter,
    # which runs the generated Triton functions.
    # A kernel object of its own: the shared example's planned call may come from another launcher
    # module (an earlier test's shape chose other parameters, so the trace would not see its `__call__`).
    from tessel import _kernel
    softmax = _kernel.Kernel(example("softmax").fn, name="softmax")
    x, y = torch.randn(4, 9), torch.empty(4, 9)
    softmax(x, y)
    module = softmax._launcher({}, softmax._fact_params({}, [x, y])).__code__.co_filename  # BLOCK covers N = 9
    seen = _calls_seen(module, lambda: softmax(x, y))
    assert seen[:3] == [("__call__", True), ("_go", True), ("_interpreting", True)], seen
    # then only the generated Triton functions the interpreter runs
    assert all(n.startswith(("_softmax_kernel", "_softmax_combine")) for n, _ in seen[3:]), seen


def _planned_entry(kernel, *args, **kwargs):
    """Calls `kernel` until its class's `__call__` is the generated planned call (its entry)."""
    kernel(*args, **kwargs)
    kernel(*args, **kwargs)
    assert type(kernel).__call__ is kernel._front and kernel._front.__name__ == "__call__"
    assert type(kernel).__call__.__code__.co_filename.endswith(".py")  # the generated module's


def test_the_planned_call_is_the_kernel_objects_own_and_no_other_kernels():
    # Each kernel object has a class of its own: installing one object's planned call leaves another
    # object of the same function on the general call.
    from tessel import _kernel
    softmax = example("softmax")
    other = _kernel.Kernel(softmax.fn, name="softmax")
    x, y = torch.randn(3, 11), torch.empty(3, 11)
    _planned_entry(softmax, x, y)
    assert type(other) is not type(softmax) and isinstance(other, _kernel.Kernel)
    assert type(other).__call__ is _kernel.Kernel.__call__
    other(x, y)  # its first call: the general path, which installs its own planned call
    assert type(other).__call__ is other._front is not softmax._front
    np.testing.assert_allclose(y.numpy(), torch.softmax(x, 1).numpy(), rtol=1e-5, atol=1e-6)


def test_a_planned_kernel_object_hits_and_misses_like_the_wrapper(monkeypatch):
    softmax = example("softmax")
    softmax._plans.clear()
    x, y = torch.randn(5, 37), torch.empty(5, 37)
    _planned_entry(softmax, x, y)
    assert len(softmax._plans) == 1
    planned_only(monkeypatch, softmax)
    x2, y2 = torch.randn(5, 37), torch.empty(5, 37)
    softmax(x2, y2)  # a hit
    np.testing.assert_allclose(y2.numpy(), torch.softmax(x2, 1).numpy(), rtol=1e-5, atol=1e-6)
    # same shapes, dtypes and alignment, other strides: a miss
    for x3, y3 in ((torch.randn(37, 5).t(), y2), (x2, torch.empty(5, 74)[:, ::2]),
                   (x2, torch.empty(5, 40)[:, :37])):
        assert x3.shape == x2.shape and y3.shape == y2.shape
        with pytest.raises(AssertionError, match="not planned"):
            softmax(x3, y3)


@pytest.mark.parametrize("call, error", [
    (lambda k, x, w, b, y: k(x, w, b, y), (TypeError, "kernel 'layernorm': missing scalar argument 'eps'")),
    (lambda k, x, w, b, y: k(x, w, b, y, 1e-5), (TypeError, "kernel 'layernorm' takes 4 views")),
    (lambda k, x, w, b, y: k(x, w, b, eps=1e-5), (TypeError, "kernel 'layernorm': missing view argument 'y'")),
    (lambda k, x, w, b, y: k(x, w, b, y, eps=1e-5, z=1),
     (TypeError, "kernel 'layernorm' got unexpected arguments \\['z'\\]")),
    (lambda k, x, w, b, y: k(x, w, b, 3, eps=1e-5), (TypeError, "argument 'y' must be a torch.Tensor, got int")),
    (lambda k, x, w, b, y: k(x, w, b, y, eps="1"), (TypeError, "scalar 'eps' must be float, got str")),
])
def test_a_planned_kernel_object_gives_the_binding_errors(call, error):
    # Views positional-only and scalars keyword-only with defaults: a call the planned call cannot
    # take reaches the object's binding with its arguments as given, so the errors are the binding's.
    layernorm = example("layernorm")
    x, w, b, y = torch.randn(4, 9), torch.randn(9), torch.randn(9), torch.empty(4, 9)
    _planned_entry(layernorm, x, w, b, y, eps=1e-5)
    with pytest.raises(error[0], match=error[1]):
        call(layernorm, x, w, b, y)


def test_a_planned_kernel_object_binds_views_by_name_and_constexprs():
    layernorm = example("layernorm")
    x, w, b = torch.randn(4, 9), torch.randn(9), torch.randn(9)
    want = torch.nn.functional.layer_norm(x, (9,), w, b, 1e-5)
    _planned_entry(layernorm, x, w, b, torch.empty(4, 9), eps=1e-5)
    for call in (lambda y: layernorm(x, w, bb=b, y=y, eps=1e-5), lambda y: layernorm(y=y, bb=b, w=w, x=x, eps=1e-5),
                 lambda y: layernorm(x, w, b, y=y, eps=1e-5)):
        y = torch.empty(4, 9)
        call(y)
        np.testing.assert_allclose(y.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    cumsum = example("cumsum")
    x = torch.randn(3, 10)
    _planned_entry(cumsum, x, torch.empty(3, 10))
    for reverse, want in ((True, x.flip(1).cumsum(1).flip(1)), (False, x.cumsum(1))):
        y = torch.empty(3, 10)
        cumsum(x, y, REVERSE=reverse)  # a constexpr: its specialization's own launcher and plans
        np.testing.assert_allclose(y.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


# --- calls with constexpr keywords -------------------------------------------------------------------
# A call with constexpr keywords (views positional, scalars by keyword) is its specialization's planned
# call over a plan table of its own, keyed by the name, type and value of each constexpr keyword given.


def fresh(name):
    """A kernel object of its own over a suite example's function: no plans, no planned calls yet."""
    from tessel import _kernel
    return _kernel.Kernel(example(name).fn, name=name)


def cumsum_reference(x, exclusive=False, reverse=False):
    x = x.flip(1) if reverse else x
    y = x.cumsum(1) - (x if exclusive else 0)
    return y.flip(1) if reverse else y


def test_a_repeated_constexpr_call_launches_its_plan(monkeypatch):
    cumsum = fresh("cumsum")
    x = torch.randn(5, 37)
    cumsum(x, torch.empty(5, 37), REVERSE=True)
    assert list(cumsum._special_plans) == [("REVERSE", bool, True)]
    assert len(cumsum._special_plans["REVERSE", bool, True]) == 1 and not cumsum._plans
    planned_only(monkeypatch, cumsum)
    for _ in range(2):
        x2, y2 = torch.randn(5, 37), torch.empty(5, 37)
        cumsum(x2, y2, REVERSE=True)  # the second call with these constexprs: its plan
        np.testing.assert_allclose(y2.numpy(), cumsum_reference(x2, reverse=True).numpy(), rtol=1e-5, atol=1e-5)


def test_each_constexpr_value_has_its_own_plan_and_specialization(monkeypatch):
    cumsum = fresh("cumsum")
    x = torch.randn(4, 21)
    calls = [{}, {"REVERSE": True}, {"REVERSE": False}, {"EXCLUSIVE": True}, {"EXCLUSIVE": True, "REVERSE": True},
             {"REVERSE": True, "EXCLUSIVE": True}]
    for cx in calls:
        cumsum(x, torch.empty(4, 21), **cx)
    # the plain call's plan and one table for each key (keyword order is part of the key: one more table)
    assert len(cumsum._plans) == 1 and len(cumsum._special_fronts) == len(calls) - 1
    planned_only(monkeypatch, cumsum)
    for cx in calls:
        y = torch.empty(4, 21)
        cumsum(x, y, **cx)
        want = cumsum_reference(x, cx.get("EXCLUSIVE", False), cx.get("REVERSE", False))
        np.testing.assert_allclose(y.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


def test_other_shapes_strides_and_dtypes_miss_the_constexpr_plan(monkeypatch):
    cumsum = fresh("cumsum")
    cumsum(torch.randn(5, 37), torch.empty(5, 37), REVERSE=True)
    with monkeypatch.context() as mp:
        planned_only(mp, cumsum)
        for x in (torch.randn(5, 38), torch.randn(37, 5).t(), torch.randn(5 * 37 + 1)[1:].view(5, 37),
                  torch.randn(5, 37, dtype=torch.float64)):
            with pytest.raises(AssertionError, match="not planned"):
                cumsum(x, torch.empty(x.shape), REVERSE=True)
    # and a miss is checked in full: the wrapper's errors, as on the binding path
    with pytest.raises(TypeError, match="argument 'x' must have dtype torch.float32"):
        cumsum(torch.randn(5, 37, dtype=torch.float64), torch.empty(5, 37), REVERSE=True)
    with pytest.raises(TypeError, match="argument 'y' must be a torch.Tensor, got int"):
        cumsum(torch.randn(5, 37), 3, REVERSE=True)
    big = torch.randn(16, 37)
    with pytest.raises(ValueError, match="argument 'y' overlaps argument 'x' in memory"):
        cumsum(big[:5], big[3:8], REVERSE=True)  # the plan's key, overlapping addresses
    x = torch.randn(6, 37)  # another shape: recorded beside the first in the same table
    y = torch.empty(6, 37)
    cumsum(x, y, REVERSE=True)
    cumsum(x, y, REVERSE=True)
    assert len(cumsum._special_plans["REVERSE", bool, True]) == 2
    np.testing.assert_allclose(y.numpy(), cumsum_reference(x, reverse=True).numpy(), rtol=1e-5, atol=1e-5)


def test_true_and_one_do_not_share_a_constexpr_plan():
    from tessel import _kernel
    cumsum = fresh("cumsum")
    assert _kernel._special_key({"REVERSE": True}, {"REVERSE"}) != _kernel._special_key({"REVERSE": 1}, {"REVERSE"})
    x = torch.randn(3, 10)
    for _ in range(2):
        cumsum(x, torch.empty(3, 10), REVERSE=True)
    with pytest.raises(Exception, match="constexpr 'REVERSE' is a bool, got 1"):
        cumsum(x, torch.empty(3, 10), REVERSE=1)  # equal to True as a key: the type tells them apart
    with pytest.raises(Exception, match=r"constexpr 'REVERSE' is a bool, got \[1\]"):
        cumsum(x, torch.empty(3, 10), REVERSE=[1])  # unhashable: the binding path, which names it
    assert list(cumsum._special_fronts) == [("REVERSE", bool, True)]


def test_constexpr_calls_by_name_or_with_bad_arguments_give_the_binding_errors():
    cumsum = fresh("cumsum")
    x = torch.randn(3, 10)
    for _ in range(2):
        cumsum(x, torch.empty(3, 10), REVERSE=True)
    y = torch.empty(3, 10)
    cumsum(x, y=y, REVERSE=True)  # a view by name: the binding path
    np.testing.assert_allclose(y.numpy(), cumsum_reference(x, reverse=True).numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="kernel 'cumsum': missing view argument 'y'"):
        cumsum(x, REVERSE=True)
    with pytest.raises(TypeError, match="kernel 'cumsum' takes 2 views"):
        cumsum(x, y, y, REVERSE=True)
    with pytest.raises(TypeError, match=r"kernel 'cumsum' got unexpected arguments \['z'\]"):
        cumsum(x, y, REVERSE=True, z=1)


def test_a_planned_constexpr_call_runs_no_binding():
    # After its first call, a constexpr call is the kernel object's call, `_dispatch` and the key of its
    # constexprs, then the specialization's planned call and its plan's launch; no binding, launcher
    # choice or full checks.
    attention = fresh("attention")
    q, k, v = (torch.randn(1, 2, 16, 8, dtype=torch.float16) for _ in range(3))
    o = torch.empty(1, 2, 16, 8, dtype=torch.float16)
    attention(q, k, v, o, scale=0.3, CAUSAL=False)
    module = attention._special_fronts["CAUSAL", bool, False].__code__.co_filename
    seen = _calls_seen(module, lambda: attention(q, k, v, o, scale=0.3, CAUSAL=False))
    assert seen[:6] == [("__call__", False), ("_dispatch", False), ("_special_key", False), ("__call__", True),
                        ("_go", True), ("_interpreting", True)], seen
    # then the plan's workspace allocations and the generated Triton functions the interpreter runs
    assert all(n.startswith(("_ws_empty", "_attention_")) for n, _ in seen[6:]), seen
    s = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), scale=0.3)
    np.testing.assert_allclose(o.float().numpy(), s.numpy(), rtol=2e-2, atol=2e-2)


def test_tune_forgets_the_constexpr_plans(monkeypatch):
    from tessel import _tune
    cumsum = fresh("cumsum")
    x, y = torch.randn(3, 10), torch.empty(3, 10)
    cumsum(x, y)
    cumsum(x, y, REVERSE=True)
    assert cumsum._plans and cumsum._special_fronts and cumsum._special_plans
    monkeypatch.setattr(_tune, "tune", lambda *a, **k: ({}, {"timed": 0, "winner_ms": None}))
    cumsum.tune(x, y, REVERSE=True, verbose=False)
    assert not cumsum._plans and not cumsum._special_fronts and not cumsum._special_plans
    assert cumsum._special_count == 0
    cumsum(x, y, REVERSE=True)  # chosen and planned again
    assert len(cumsum._special_plans["REVERSE", bool, True]) == 1


def test_the_constexpr_plans_are_capped():
    cumsum = fresh("cumsum")
    x = torch.randn(3, 10)
    cumsum(x, torch.empty(3, 10), REVERSE=True)
    assert cumsum._special_count == 2  # one planned call, one plan
    cumsum._special_count = 1024
    cumsum(x, torch.empty(3, 10), EXCLUSIVE=True)
    assert list(cumsum._special_fronts) == [("EXCLUSIVE", bool, True)] and cumsum._special_count == 2


def test_each_shape_keeps_the_launcher_it_chose_under_constexprs(monkeypatch):
    # As for plain calls: one constexpr key's plans launch what each shape chose (a tuned winner, or a
    # default covering the shape); here a stand-in choice gives BLOCK=64 to rows longer than 100.
    cumsum = fresh("cumsum")
    monkeypatch.setattr(cumsum, "_fact_params", lambda cx, tensors, target="triton":
                        {"BLOCK": 64} if tensors[0].shape[1] > 100 else None)
    for _ in range(2):
        for n in (37, 300):
            x, y = torch.randn(3, n), torch.empty(3, n)
            cumsum(x, y, REVERSE=True)
            np.testing.assert_allclose(y.numpy(), cumsum_reference(x, reverse=True).numpy(), rtol=1e-4, atol=1e-4)
    plans = cumsum._special_plans["REVERSE", bool, True]
    blocks = {key[2][1]: plan[0].__globals__["cumsum_PARAMS"]["BLOCK"][1] for key, plan in plans.items()}
    assert blocks == {37: 512, 300: 64}


def test_an_auto_kernel_plans_its_untuned_constexpr_calls_on_triton(monkeypatch):
    cumsum = tessel.kernel(example("cumsum").fn, target="auto")
    x = torch.randn(3, 10)
    cumsum(x, torch.empty(3, 10), EXCLUSIVE=True)
    planned_only(monkeypatch, cumsum)
    y = torch.empty(3, 10)
    cumsum(x, y, EXCLUSIVE=True)
    np.testing.assert_allclose(y.numpy(), cumsum_reference(x, exclusive=True).numpy(), rtol=1e-5, atol=1e-5)
