"""Row norms beside a contraction read in its K loop (pgpu-fuse-sibling-loops).

A product whose epilogue uses per-row norms of its operands, |x_i|^2 + |y_j|^2 - 2 x_i . y_j (corpus 65)
or <a_i, b_j> / (|a_i| |b_j| tau) (corpus 118), was tiled as the GEMM's K loop plus one loop per norm
over the same k range (split by pgpu-narrow-predicates into full blocks and a tail: four extra loops over
D per output tile, each reading the operand tiles again). Now the norms are carried by the K loop and
each tile is read once. Differential: Triton under TRITON_INTERPRET=1 against the KIR interpreter on
random inputs at odd shapes (0, 1, primes, extents that are no multiple of any tile) and several
bindings (one K block and many). Must not fire: a norm of a view the product does not read keeps its
own loop."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def sqdist(x: T.In[T.f32, ("M", "D")], y: T.In[T.f32, ("N", "D")], out: T.Out[T.f32, ("M", "N")]):
    M, D = x.shape
    N = y.shape[0]
    rows, cols, ds = T.domain(0, M), T.domain(0, N), T.domain(0, D)
    xs, ys = x[rows, ds], y[cols, ds]
    xy = T.matmul(xs, ys, transpose_rhs=True)
    xx = T.sum(xs * xs, axis=1)
    yy = T.sum(ys * ys, axis=1)
    d = T.broadcast(xx, over=(rows, cols), dims=[0]) + T.broadcast(yy, over=(rows, cols), dims=[1]) - 2.0 * xy
    out[rows, cols] = T.maximum(d, 0.0)


@tessel.kernel
def cosine(a: T.In[T.f16, ("M", "D")], b: T.In[T.f16, ("N", "D")], s: T.Out[T.f16, ("M", "N")], tau: T.f32):
    M, D = a.shape
    N = b.shape[0]
    rows, cols, dims = T.domain(0, M), T.domain(0, N), T.domain(0, D)
    af = T.cast(a[rows, dims], T.f32)
    bf = T.cast(b[cols, dims], T.f32)
    inv_a = 1.0 / T.maximum(T.sqrt(T.sum(af * af, axis=1)), 1e-12)
    inv_b = 1.0 / T.maximum(T.sqrt(T.sum(bf * bf, axis=1)), 1e-12)
    dots = T.matmul(a[rows, dims], b[cols, dims], transpose_rhs=True)   # the norms computed first
    s[rows, cols] = T.cast(dots * inv_a * inv_b / tau, T.f16)


@tessel.kernel
def other_norm(x: T.In[T.f32, ("M", "D")], y: T.In[T.f32, ("N", "D")], w: T.In[T.f32, ("M", "D")],
               out: T.Out[T.f32, ("M", "N")]):
    M, D = x.shape
    N = y.shape[0]
    rows, cols, ds = T.domain(0, M), T.domain(0, N), T.domain(0, D)
    ws = w[rows, ds]
    ww = T.sum(ws * ws, axis=1)  # w is not an operand of the product: nothing to share
    out[rows, cols] = T.matmul(x[rows, ds], y[cols, ds], transpose_rhs=True) * T.broadcast(ww, over=(rows, cols),
                                                                                          dims=[0])


def _loops(kernel):
    """The kernel's loops other than the persistent walk over tiles (flatten=True)."""
    src = kernel.source()
    start = src.index(f"def _{kernel.name}_kernel(")
    body = src[start:src.index("\n\n\n", start)]
    return [l.strip() for l in body.split("\n") if l.strip().startswith("for ") and "flatten=True" not in l]


@pytest.mark.parametrize("kernel,views", [(sqdist, ("x", "y")), (cosine, ("a", "b"))])
def test_norms_ride_the_k_loop(kernel, views):
    loops = _loops(kernel)
    assert len(loops) == 1, loops  # before: the K loop and four loops over D for the two norms
    src = kernel.source()
    body = src[src.index(f"def _{kernel.name}_kernel("):]
    body = body[:body.index("\n\n\n")]
    for v in views:  # each operand tile read once a K step, by the dot and by its norm
        assert body.count(f"tl.load({v} +") == 1
    assert body.count("tl.dot(") == 1


def test_must_not_fire_without_a_shared_read():
    loops = _loops(other_norm)
    assert len(loops) == 3, loops  # w's norm: full blocks and the tail, beside the K loop


SQDIST_BINDINGS = [None, {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16}, {"TILE_0": 32, "TILE_1": 16, "TILE_K": 32}]


@pytest.mark.parametrize("m,n,d", [(0, 3, 5), (1, 1, 1), (3, 5, 0), (17, 13, 31), (5, 37, 67)])
def test_sqdist_agrees_with_the_interpreter(m, n, d, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 100 + n * 10 + d)
    inputs = dict(x=rng.standard_normal((m, d)).astype(np.float32),
                  y=(0.5 + rng.standard_normal((n, d))).astype(np.float32))
    want = sqdist.run_interp(shapes={}, inputs=inputs)["out"]
    for params in SQDIST_BINDINGS:
        out = torch.full((m, n), float("nan"))
        args = [torch.from_numpy(v) for v in inputs.values()] + [out]
        if params is None:
            sqdist(*args)
        else:
            sqdist.launch(*args, params=params)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-3, err_msg=str(params))


@pytest.mark.parametrize("m,n,d", [(1, 1, 1), (3, 5, 17), (19, 7, 0), (37, 11, 64)])
def test_cosine_agrees_with_the_interpreter(m, n, d, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 100 + n * 10 + d)
    inputs = dict(a=rng.standard_normal((m, d)).astype(np.float16), b=rng.standard_normal((n, d)).astype(np.float16))
    want = cosine.run_interp(shapes={}, scalars={"tau": 0.07}, inputs=inputs)["s"].astype(np.float64)
    for params in SQDIST_BINDINGS:
        s = torch.full((m, n), float("nan"), dtype=torch.float16)
        args = [torch.from_numpy(v) for v in inputs.values()] + [s]
        if params is None:
            cosine(*args, tau=0.07)
        else:
            cosine.launch(*args, tau=0.07, params=params)
        np.testing.assert_allclose(s.double().numpy(), want, rtol=2e-3, atol=2e-3, err_msg=str(params))


def test_other_norm_agrees_with_the_interpreter(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    m, n, d = 7, 5, 19
    rng = np.random.default_rng(3)
    inputs = dict(x=rng.standard_normal((m, d)).astype(np.float32), y=rng.standard_normal((n, d)).astype(np.float32),
                  w=rng.standard_normal((m, d)).astype(np.float32))
    want = other_norm.run_interp(shapes={}, inputs=inputs)["out"]
    out = torch.full((m, n), float("nan"))
    other_norm(*[torch.from_numpy(v) for v in inputs.values()], out)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-3)
