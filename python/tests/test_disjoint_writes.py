"""Worksets that write one view at disjoint elements run in parallel (kir-to-pgpu's one-launch order), and
a member that reads a view through index tensors after storing to it is refused, not constructed wrong.

- Pixel shuffle written as four kernel-level stores `out[n, c, 2 * h + i, 2 * w + j] = ...` (corpus 133) and
  GEGLU backward's two half stores `dx[rows, 0:F]`, `dx[rows, F:2 * F]` (corpus 164): no store writes what
  another writes (2h + i never equals 2h' + i' for i != i': the gcd of the coefficients, 2, does not divide
  the constants' difference; the intervals [0, F) and [F, 2F) do not overlap), so none runs whole in the
  last program (on the H100 133 took 9.4 s and 164 12.9 s that way). Must not fire: `2 * h` and `4 * h`
  may name one element, so the later store still waits for the earlier.
- Even/odd lanes updated in place through gathers (corpus 163): the odd store's value read q after the even
  store had written it on Triton (wrong values, no error); then a located error; now one in-place element
  loop (test_in_place_scatters.py).
Differential: Triton under TRITON_INTERPRET=1 against the KIR interpreter on random inputs at odd shapes."""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def shuffle(x: T.In[T.f32, ("N", "C4", "H", "W")], out: T.Out[T.f32, ("N", "C", "OH", "OW")]):
    N, C4, H, W = x.shape
    C = out.shape[1]
    ns, cs, hs, ws = T.domain(0, N), T.domain(0, C), T.domain(0, H), T.domain(0, W)
    c, h, w = T.indices(cs), T.indices(hs), T.indices(ws)
    for i in range(2):
        for j in range(2):
            out[ns, cs, 2 * h + i, 2 * w + j] = x[ns, 4 * c + (2 * i + j), hs, ws]


@tessel.kernel
def halves(x: T.In[T.f32, ("M", "F2")], dy: T.In[T.f32, ("M", "F")], dx: T.Out[T.f32, ("M", "F2")]):
    M, F = dy.shape
    rows = T.domain(0, M)
    cols = x.domain(1)
    lo, hi = cols[0:F], cols[F:2 * F]
    a, g = x[rows, lo], x[rows, hi]
    d = dy[rows, T.domain(0, F)]
    dx[rows, lo] = d * T.sigmoid(g)
    dx[rows, hi] = d * a * g


@tessel.kernel
def shift(x: T.In[T.f16, ("N", "T", "C", "W")], y: T.Out[T.f16, ("N", "T", "C", "W")]):
    N, NT, C, W = x.shape
    ns, ts, chans, ws = T.domain(0, N), T.domain(0, NT), T.domain(0, C), T.domain(0, W)
    fold = C // 8
    t = T.indices(ts)
    left, right, rest = chans[0:fold], chans[fold:2 * fold], chans[2 * fold:C]
    y[ns, ts, left, ws] = T.load(x, (ns, t + 1, left, ws), valid=t + 1 < NT, fill=0.0)
    y[ns, ts, right, ws] = T.load(x, (ns, t - 1, right, ws), valid=t >= 1, fill=0.0)
    y[ns, ts, rest, ws] = x[ns, ts, rest, ws]


@tessel.kernel
def overlapping_slices(x: T.In[T.f32, ("M", "C")], y: T.Out[T.f32, ("M", "C")]):
    M, C = x.shape
    rows, chans = T.domain(0, M), T.domain(0, C)
    fold = C // 8
    y[rows, chans[0:fold]] = x[rows, chans[0:fold]]
    y[rows, chans[fold // 2:C]] = x[rows, chans[fold // 2:C]] * 2.0  # overlaps [fold // 2, fold): must follow


@tessel.kernel
def overlapping(x: T.In[T.f32, ("H",)], out: T.Out[T.f32, ("OH",)]):
    hs = T.domain(0, x.shape[0])
    h = T.indices(hs)
    out[2 * h] = x[hs]
    out[4 * h] = x[hs] * 2.0  # 2h and 4h' meet at every multiple of 4: this store must follow the first


def _shuffle_shape(n, c, h, w):
    return dict(N=n, C=c, C4=4 * c, H=h, W=w, OH=2 * h, OW=2 * w)


def _serial(kernel):
    return "_arrived" in kernel.source()  # a workset run whole by the last program to arrive


def test_disjoint_stores_run_in_parallel():
    assert not _serial(shuffle)
    assert not _serial(halves)
    assert _serial(overlapping)
    # Channel slices [0, F), [F, 2F), [2F, C) with F = C // 8 >= 0 (temporal shift, corpus 344): F - 2F <= 0
    # because F is a floor quotient of an extent; [0, F) and [F // 2, C) may overlap.
    assert not _serial(shift) and "pgpu.atomic_load" not in shift.pgpu() and "pgpu.while" not in shift.pgpu()
    assert _serial(overlapping_slices)


@pytest.mark.parametrize("n,c,h,w", [(1, 1, 1, 1), (2, 3, 5, 7), (1, 5, 17, 13)])
def test_shuffle_agrees_with_the_interpreter(n, c, h, w, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(n * 1000 + c * 100 + h * 10 + w)
    x = rng.standard_normal((n, 4 * c, h, w)).astype(np.float32)
    want = shuffle.run_interp(shapes=_shuffle_shape(n, c, h, w), inputs=dict(x=x))
    out = torch.full((n, c, 2 * h, 2 * w), float("nan"))
    shuffle(torch.from_numpy(x), out)
    np.testing.assert_array_equal(out.numpy(), want["out"])
    ref = x.reshape(n, c, 2, 2, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c, 2 * h, 2 * w)
    np.testing.assert_array_equal(out.numpy(), ref)


@pytest.mark.parametrize("m,f", [(1, 1), (3, 67), (5, 129)])
def test_halves_agree_with_the_interpreter(m, f, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 1000 + f)
    x = rng.standard_normal((m, 2 * f)).astype(np.float32)
    dy = rng.standard_normal((m, f)).astype(np.float32)
    want = halves.run_interp(shapes=dict(M=m, F=f, F2=2 * f), inputs=dict(x=x, dy=dy))
    dx = torch.full((m, 2 * f), float("nan"))
    halves(torch.from_numpy(x), torch.from_numpy(dy), dx)
    np.testing.assert_allclose(dx.numpy(), want["dx"], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("h", [1, 6, 13])
def test_overlapping_stores_keep_their_order(h, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = np.random.default_rng(h).standard_normal(h).astype(np.float32)
    want = overlapping.run_interp(shapes=dict(H=h, OH=4 * h), inputs=dict(x=x))
    out = torch.zeros(4 * h)
    overlapping(torch.from_numpy(x), out)
    written = ~np.isnan(want["out"])  # the interpreter leaves elements no store writes NaN
    assert written[::4].all() and written[0:2 * h:2].all()
    np.testing.assert_array_equal(out.numpy()[written], want["out"][written])
    np.testing.assert_array_equal(out.numpy()[0:4 * h:4], 2 * x)  # the later store wins where both write



@pytest.mark.parametrize("n,t,c,w", [(1, 1, 1, 1), (2, 3, 8, 5), (1, 5, 17, 7), (2, 4, 24, 67), (1, 2, 0, 3)])
def test_shift_agrees_with_the_interpreter(n, t, c, w, tmp_path, monkeypatch, tessel_bin):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = np.random.default_rng(n + 10 * t + 100 * c + 1000 * w).standard_normal((n, t, c, w)).astype(np.float16)
    want = shift.run_interp(shapes=dict(N=n, T=t, C=c, W=w), inputs=dict(x=x))
    f = c // 8
    ref = np.zeros_like(x)
    ref[:, :-1, :f] = x[:, 1:, :f]
    ref[:, 1:, f:2 * f] = x[:, :-1, f:2 * f]
    ref[:, :, 2 * f:] = x[:, :, 2 * f:]
    np.testing.assert_array_equal(want["y"], ref)
    y = torch.full((n, t, c, w), float("nan"), dtype=torch.float16)
    shift(torch.from_numpy(x), y)
    np.testing.assert_array_equal(y.numpy(), ref)
    # The pgpu interpreter, its program instances shuffled (the three segments in any order).
    path = tmp_path / "shift.mlir"
    path.write_text(shift.kir())
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out"
    res = subprocess.run([str(tessel_bin), "run", str(path), "--stage", "pgpu", "--order", "shuffle", "--seed", "3",
                          "--in", f"x={tmp_path / 'x.npy'}", "--out", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    np.testing.assert_array_equal(np.load(out / "y.npy"), ref)


@pytest.mark.parametrize("m,c", [(1, 1), (3, 16), (2, 37)])
def test_overlapping_slices_keep_their_order(m, c, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = np.random.default_rng(m * 100 + c).standard_normal((m, c)).astype(np.float32)
    want = overlapping_slices.run_interp(shapes=dict(M=m, C=c), inputs=dict(x=x))
    y = torch.full((m, c), float("nan"))
    overlapping_slices(torch.from_numpy(x), y)
    f = c // 8
    ref = np.full((m, c), np.nan, dtype=np.float32)
    ref[:, :f] = x[:, :f]
    ref[:, f // 2:] = 2 * x[:, f // 2:]
    np.testing.assert_array_equal(want["y"], ref)
    np.testing.assert_array_equal(y.numpy(), ref)
