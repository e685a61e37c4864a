"""A `T.parallel` over a domain bounded by an integer kernel scalar (`T.domain(0, G)`, `G: T.i32`; corpus
235's group loop): kir-to-pgpu left the scalar's `kir.cast` to `index` out of the launch-time facts, so the
member domain had no size and construction crashed (SIGSEGV in KernelConstructor::run). The cast is now a
launch-time fact (an integer pgpu.cast is a LaunchExpr; the wrappers spell it on the host, narrowing casts
wrapping as kir.cast does), and a member domain bounded by a value read from memory or computed from a float
is a located error at the loop instead of a crash. Interpreter and generated Triton agree with NumPy at odd
sizes, G = 0 included."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def scalar_bound(x: T.In[T.f32, ("N",)], y: T.InOut[T.f32, ("N",)], G: T.i32):
    for g in T.parallel(T.domain(0, G)):
        y[g] = x[g] * 2.0


@tessel.kernel
def narrowed_bound(x: T.In[T.f32, ("M", "N")], y: T.InOut[T.f32, ("M", "N")], G: T.i64):
    # an i64 scalar narrowed to i32 and widened to index: the grid's host expression wraps as the cast does
    M, N = x.shape
    for m in T.parallel(T.domain(0, M)):
        for g in T.parallel(T.domain(0, T.cast(T.cast(G, T.i32), T.index))):
            y[m, g] = x[m, g] + 1.0


@tessel.kernel
def loaded_bound(x: T.In[T.f32, ("N",)], n: T.In[T.i32, ("one",)], y: T.Out[T.f32, ("N",)]):
    for g in T.parallel(T.domain(0, n[0])):
        y[g] = x[g] * 2.0


def draw(shape, seed):
    x = np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32)
    x[x == 0] = 0.5
    return x


CASES = [(1, 0), (1, 1), (13, 7), (13, 13), (67, 31)]


@pytest.mark.parametrize("n,g", CASES)
def test_interpreter(n, g):
    x, y0 = draw((n,), n + g), draw((n,), 2 * n + g + 1)
    res = scalar_bound.run_interp({"N": n}, scalars={"G": g}, inputs={"x": x, "y": y0})
    want = y0.copy()
    want[:g] = x[:g] * 2
    np.testing.assert_array_equal(res["y"], want)


@pytest.mark.parametrize("n,g", CASES)
def test_triton(n, g, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x, y0 = draw((n,), n + g), draw((n,), 2 * n + g + 1)
    y = torch.tensor(y0)
    scalar_bound(torch.tensor(x), y, G=g)
    want = y0.copy()
    want[:g] = x[:g] * 2
    np.testing.assert_array_equal(y.numpy(), want)


@pytest.mark.parametrize("m,n,g", [(1, 1, 1), (3, 11, 5), (5, 13, 2**32 + 7)])
def test_narrowing_cast_wraps_on_the_host(m, n, g, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x, y0 = draw((m, n), m * n), draw((m, n), m + n)
    width = (g + 2**31) % 2**32 - 2**31  # the i32 the kernel's cast gives: 2**32 + 7 is 7
    res = narrowed_bound.run_interp({"M": m, "N": n}, scalars={"G": g}, inputs={"x": x, "y": y0})
    want = y0.copy()
    want[:, :width] = x[:, :width] + 1
    np.testing.assert_array_equal(res["y"], want)
    y = torch.tensor(y0)
    narrowed_bound(torch.tensor(x), y, G=g)
    np.testing.assert_array_equal(y.numpy(), want)


def test_bound_read_from_memory_is_a_located_error():
    with pytest.raises(tessel.CompileError) as err:
        loaded_bound.compile("pgpu")
    text = str(err.value)
    assert "T.parallel's domain is bounded by a value read from memory" in text
    assert "test_scalar_parallel_bounds.py" in text and "for g in T.parallel" in text
