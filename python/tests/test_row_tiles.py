"""[rows, contiguous] tiles for straight-line nests whose accesses all walk the innermost program axis
(pgpu-form-tiles, issue 41: NCHW pools, channel and pixel shuffles, elementwise planes), and sibling
worksets over one range merged before they flatten (pgpu-flatten-worksets: a pool's values and its argmax
indices). Differential: Triton under TRITON_INTERPRET=1 and the pgpu interpreter (shuffled program order)
against the KIR interpreter on random inputs at odd shapes (0 where an extent may be empty, 1, primes,
non-multiples of every tile candidate), at the call's defaults and at tile bindings from the smallest
(1 x 16) to the largest (32 x 256)."""
import math
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

from conftest import run_stage  # noqa: E402


@tessel.kernel
def maxpool_argmax(x: T.In[T.f32, ("N", "C", "H", "W")], y: T.Out[T.f32, ("N", "C", "OH", "OW")],
                   idx: T.Out[T.i64, ("N", "C", "OH", "OW")]):
    N, C, H, W = x.shape
    ocols = T.domain(0, y.shape[3])
    ow = T.indices(ocols)
    for n, c, i in T.parallel(T.domain(0, N), T.domain(0, C), T.domain(0, y.shape[2])):
        best = T.full((ocols,), -math.inf, T.f32)
        at = T.full((ocols,), 0, T.i64)
        for dy in range(2):
            for dx in range(2):
                h = 2 * i + dy
                w = 2 * ow + dx
                v = x[n, c, h, w]
                better = v > best
                best = T.where(better, v, best)
                at = T.where(better, T.cast(h * W + w, T.i64), at)
        y[n, c, i, ocols] = best
        idx[n, c, i, ocols] = at


@tessel.kernel
def avg3x3(x: T.In[T.f32, ("N", "C", "H", "W")], y: T.Out[T.f32, ("N", "C", "H", "W")]):
    N, C, H, W = x.shape
    hs, ws = T.domain(0, H), T.domain(0, W)
    oh, ow = T.indices(hs), T.indices(ws)
    for n, c in T.parallel(T.domain(0, N), T.domain(0, C)):
        acc = T.zeros((hs, ws), T.f32)
        for dh in range(3):
            ih = oh + (dh - 1)
            okh = T.broadcast((ih >= 0) & (ih < H), over=(hs, ws), dims=[0])
            for dw in range(3):
                iw = ow + (dw - 1)
                okw = T.broadcast((iw >= 0) & (iw < W), over=(hs, ws), dims=[1])
                acc = acc + T.load(x, (n, c, ih, iw), valid=okh & okw, fill=0.0)
        y[n, c, hs, ws] = acc / 9.0


@tessel.kernel
def shuffle(x: T.In[T.f32, ("N", "C", "H", "W")], out: T.Out[T.f32, ("N", "C", "H", "W")],
            G: T.Constexpr[int] = 3):
    N, C, H, W = x.shape
    per = C // G
    hs, ws = T.domain(0, H), T.domain(0, W)
    for n, c in T.parallel(T.domain(0, N), T.domain(0, C)):
        out[n, c, hs, ws] = x[n, (c % G) * per + c // G, hs, ws]


@tessel.kernel
def scale_planes(x: T.In[T.f32, ("B", "M", "N")], y: T.Out[T.f32, ("B", "M", "N")]):
    bs, rows, cols = T.domain(0, x.shape[0]), T.domain(0, x.shape[1]), T.domain(0, x.shape[2])
    y[bs, rows, cols] = 2.0 * x[bs, rows, cols] + 1.0


@tessel.kernel
def scale_rows(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    rows, cols = T.domain(0, x.shape[0]), T.domain(0, x.shape[1])
    y[rows, cols] = 2.0 * x[rows, cols] + 1.0


def _params(kernel, constexprs=None):
    return next(ln for ln in kernel.source(constexprs=constexprs).split("\n") if "_PARAMS = {" in ln)


@pytest.mark.parametrize("kernel,rows,cols", [(maxpool_argmax, "TILE_2", "TILE_3"), (avg3x3, "TILE_2", "TILE_3"),
                                              (scale_planes, "TILE_1", "TILE_2")])
def test_row_tiles_are_declared(kernel, rows, cols):
    params = _params(kernel)
    assert f"'{rows}': ([1, 2, 4, 8, 16, 32], 8)" in params
    assert f"'{cols}': ([16, 32, 64, 128, 256], 64)" in params
    assert "BLOCK_P" not in params  # no flat walk over the members
    src = kernel.source()
    assert "tl.arange(0, 8)" in src and "tl.arange(0, 64)" in src


def test_two_axes_keep_the_flat_walk():
    # Must not fire: an [M, N] map's flat walk decodes one row coordinate per lane (vectorized long rows).
    params = _params(scale_rows)
    assert "BLOCK_P" in params and "TILE_" not in params


@tessel.kernel
def strided_writes(x: T.In[T.f16, ("N", "C", "H", "W")], out: T.Out[T.f16, ("N", "C", "H", "W2")]):
    # Must not fire: writes at 2w + j (a pixel shuffle's, corpus 133) run along w with stride 2; as row
    # tiles they measured 1.8x slower on the H100 than the flat walk.
    N, C, H, W = x.shape
    ns, cs, hs, ws = T.domain(0, N), T.domain(0, C), T.domain(0, H), T.domain(0, W)
    w = T.indices(ws)
    for j in range(2):
        out[ns, cs, hs, 2 * w + j] = x[ns, cs, hs, ws]


def test_strided_writes_keep_the_flat_walk():
    assert "TILE_" not in _params(strided_writes)


BINDINGS = [None, (1, 16), (4, 32), (32, 256)]


def _bind(kernel, binding, constexprs=None):
    if binding is None:
        return None
    names = [n for n in ("TILE_0", "TILE_1", "TILE_2", "TILE_3") if f"'{n}'" in _params(kernel, constexprs)]
    return dict(zip(names, binding))


def _check(kernel, shapes, inputs, outputs, tmp_path, constexprs=None, integer=()):
    want = kernel.run_interp(shapes=shapes, inputs=inputs, constexprs=constexprs or {})
    args = [torch.from_numpy(v) for v in inputs.values()]
    for binding in BINDINGS:
        params = _bind(kernel, binding, constexprs)
        outs = [torch.full(s, -7, dtype=d) for s, d in outputs.values()]
        kw = dict(constexprs or {})
        if params is None:
            kernel(*args, *outs, **kw)
        else:
            kernel.launch(*args, *outs, params=params, **kw)
        for name, got in zip(outputs, outs):
            if name in integer:
                np.testing.assert_array_equal(got.numpy(), want[name], err_msg=f"{name} {binding}")
            else:
                np.testing.assert_allclose(got.numpy(), want[name], rtol=1e-5, atol=1e-5, err_msg=f"{name} {binding}")
    if not constexprs:  # the pgpu interpreter at the smallest binding, programs in shuffled order
        params = _bind(kernel, BINDINGS[1])
        folder = run_stage(pytest.tessel_bin, kernel, "pgpu", shapes, inputs, tmp_path, params)
        for name in outputs:
            got = np.load(folder / f"{name}.npy")
            np.testing.assert_allclose(got, want[name], rtol=1e-5, atol=1e-5, err_msg=f"pgpu {name}")


@pytest.fixture(autouse=True)
def _bin(tessel_bin, tmp_path, monkeypatch):
    pytest.tessel_bin = tessel_bin
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))


@pytest.mark.parametrize("n,c,h,w", [(1, 1, 2, 2), (2, 3, 7, 13), (1, 2, 3, 67), (3, 1, 35, 5), (0, 2, 4, 4)])
def test_maxpool_argmax_agrees(n, c, h, w, tmp_path):
    rng = np.random.default_rng(n * 1000 + c * 100 + h * 10 + w)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    x[..., 1::4] = x[..., ::4][..., :x[..., 1::4].shape[-1]]  # ties inside windows (the first wins)
    oh, ow = h // 2, w // 2
    shapes = dict(N=n, C=c, H=h, W=w, OH=oh, OW=ow)
    _check(maxpool_argmax, shapes, dict(x=x), dict(y=((n, c, oh, ow), torch.float32), idx=((n, c, oh, ow), torch.int64)),
           tmp_path, integer=("idx",))


@pytest.mark.parametrize("n,c,h,w", [(1, 1, 1, 1), (2, 3, 5, 7), (1, 2, 17, 13), (1, 1, 3, 131), (2, 1, 37, 1)])
def test_avg3x3_agrees(n, c, h, w, tmp_path):
    rng = np.random.default_rng(h * 100 + w)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    _check(avg3x3, dict(N=n, C=c, H=h, W=w), dict(x=x), dict(y=((n, c, h, w), torch.float32)), tmp_path)


@pytest.mark.parametrize("n,c,h,w", [(1, 3, 1, 1), (2, 6, 7, 5), (1, 9, 11, 67), (3, 3, 2, 17)])
def test_shuffle_agrees(n, c, h, w, tmp_path):
    rng = np.random.default_rng(c * 100 + w)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    _check(shuffle, dict(N=n, C=c, H=h, W=w), dict(x=x), dict(out=((n, c, h, w), torch.float32)), tmp_path,
           constexprs={"G": 3})


@pytest.mark.parametrize("b,m,n", [(2, 0, 5), (1, 1, 1), (3, 3, 17), (1, 67, 13), (2, 5, 257)])
def test_scale_planes_agrees(b, m, n, tmp_path):
    rng = np.random.default_rng(b * 10000 + m * 1000 + n)
    x = rng.standard_normal((b, m, n)).astype(np.float32)
    _check(scale_planes, dict(B=b, M=m, N=n), dict(x=x), dict(y=((b, m, n), torch.float32)), tmp_path)
