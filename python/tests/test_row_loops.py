"""Several short rows per program for a workset of row loops (pgpu-refine-mapping's row loops, issue 41,
corpus 49): a `T.parallel` over rows whose body is element-wise loops over a row (or slices of it)
takes BLOCK_P members of every loop over all rows per program. Differential: Triton under
TRITON_INTERPRET=1 against the KIR interpreter on random inputs at odd row lengths and row counts.
A single loop is the program's whole workset (pgpu-flatten-worksets already runs its members as
programs); several loops (rotate-half's two halves) take this path. Must not fire: a loop that reads
a view another loop writes, and a row reduction."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def rotate_half(q: T.In[T.f32, ("B", "H", "S", "D")], cos: T.In[T.f32, ("S", "D2")],
                sin: T.In[T.f32, ("S", "D2")], out: T.Out[T.f32, ("B", "H", "S", "D")]):
    B, H, S, D = q.shape
    D2 = cos.shape[1]
    dims, half = T.domain(0, D), T.domain(0, D2)
    lo, hi = dims[0:D2], dims[D2:2 * D2]
    for b, h, s in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        x1, x2 = q[b, h, s, lo], q[b, h, s, hi]
        c, sn = cos[s, half], sin[s, half]
        out[b, h, s, lo] = x1 * c - x2 * sn
        out[b, h, s, hi] = x2 * c + x1 * sn


@tessel.kernel
def scale_rows(x: T.In[T.f32, ("M", "N")], w: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m, cols] = x[m, cols] * w[cols] + T.cast(m, T.f32)


@tessel.kernel
def chained_rows(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")], z: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m, cols] = x[m, cols] * 2.0
        z[m, cols] = y[m, cols] + 1.0  # reads what the loop before wrote: the loops are not independent


@tessel.kernel
def row_sum_scale(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m, cols] = x[m, cols] / (T.sum(x[m, cols]) + 1000.0)


def _owns_rows(kernel):
    return "'BLOCK_P'" in next(l for l in kernel.source().split("\n") if "_PARAMS = {" in l)


def test_row_loops_take_several_rows_per_program():
    assert _owns_rows(rotate_half) and _owns_rows(scale_rows)


@pytest.mark.parametrize("m", [1, 7, 1000])
def test_chained_rows_agree_with_the_interpreter(m, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = np.random.default_rng(m).standard_normal((m, 129)).astype(np.float32)
    want = chained_rows.run_interp(shapes={}, inputs=dict(x=x))
    y, z = torch.full((m, 129), float("nan")), torch.full((m, 129), float("nan"))
    chained_rows(torch.from_numpy(x), y, z)
    np.testing.assert_allclose(y.numpy(), want["y"], rtol=1e-6)
    np.testing.assert_allclose(z.numpy(), want["z"], rtol=1e-6)


def test_must_not_fire_on_dependent_loops_or_a_reduction():
    assert not _owns_rows(chained_rows)
    assert not _owns_rows(row_sum_scale)


ROWS = [(1, 1, 1), (1, 1, 7), (2, 5, 100)]  # B, H, S: 1, 7 and 1000 rows


@pytest.mark.parametrize("d2", [1, 3, 127, 129])
@pytest.mark.parametrize("bhs", [(1, 1, 1), (1, 1, 7), (1, 3, 37)])  # 1, 7 and 111 rows (programs end mid-row)
def test_rotate_half_agrees_with_the_interpreter(d2, bhs, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    B, H, S = bhs
    rng = np.random.default_rng(d2 * 1000 + S)
    q = rng.standard_normal((B, H, S, 2 * d2)).astype(np.float32)
    cos = rng.standard_normal((S, d2)).astype(np.float32)
    sin = rng.standard_normal((S, d2)).astype(np.float32)
    want = rotate_half.run_interp(shapes={}, inputs=dict(q=q, cos=cos, sin=sin))["out"]
    out = torch.full(q.shape, float("nan"))
    rotate_half(torch.from_numpy(q), torch.from_numpy(cos), torch.from_numpy(sin), out)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)
    # programs that end mid-row (BLOCK_P 256, blocks of 64) agree too
    out.fill_(float("nan"))
    rotate_half.launch(torch.from_numpy(q), torch.from_numpy(cos), torch.from_numpy(sin), out,
                       params={"BLOCK_P": 256, "BLOCK": 64})
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [1, 3, 127, 129])
@pytest.mark.parametrize("m", [1, 7, 1000])
def test_scale_rows_agrees_with_the_interpreter(m, n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 1000 + n)
    x = rng.standard_normal((m, n)).astype(np.float32)
    w = rng.standard_normal((n,)).astype(np.float32)
    want = scale_rows.run_interp(shapes={}, inputs=dict(x=x, w=w))["y"]
    y = torch.full((m, n), float("nan"))
    scale_rows(torch.from_numpy(x), torch.from_numpy(w), y)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)
    # a small BLOCK_P (programs end mid-row) agrees too
    y2 = torch.full((m, n), float("nan"))
    scale_rows.launch(torch.from_numpy(x), torch.from_numpy(w), y2, params={"BLOCK_P": 256, "BLOCK": 64})
    np.testing.assert_allclose(y2.numpy(), want, rtol=1e-5, atol=1e-5)


@tessel.kernel
def packed_heads(x: T.In[T.f32, ("T", "C")], hs: T.In[T.f32, ("H",)], y: T.Out[T.f32, ("T", "C")],
                 z: T.Out[T.f32, ("G", "T", "W")]):
    nt, nc = x.shape
    nh = hs.shape[0]
    ng, _, nw = z.shape
    cols, ws = T.domain(0, nc), T.domain(0, nw)
    for t, h in T.parallel(T.domain(0, nt), T.domain(0, nh)):
        base = h * nw
        seg = cols[base:base + nw]  # the last head's slice is clipped where C < H * W
        y[t, seg] = x[t, seg] * hs[h]
    for t, g in T.parallel(T.domain(0, nt), T.domain(0, ng)):
        gbase = g * nw
        z[g, t, ws] = x[t, cols[gbase:gbase + nw]] + 1.0


def test_member_dependent_slices_in_several_segments_take_several_rows_per_program():
    # two T.parallel loops (two segments), each over a head's slice of a packed row whose start depends
    # on the head (issue 41, corpus 87): both become row loops over all (token, head) rows
    src = packed_heads.source()
    assert _owns_rows(packed_heads)
    assert src.count("tl.program_id(0)") == 1


# T, H, W, C, G: one element; the last head clipped (C = 12 < H * W = 15); exact; W prime past a block
PACKED = [(1, 1, 1, 1, 1), (7, 3, 5, 12, 2), (13, 4, 6, 24, 3), (3, 2, 67, 131, 1)]


@pytest.mark.parametrize("shape", PACKED)
def test_packed_heads_agree_with_the_interpreter(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    nt, nh, nw, nc, ng = shape
    rng = np.random.default_rng(nt * 100 + nc)
    x = rng.standard_normal((nt, nc)).astype(np.float32)
    hs = rng.standard_normal((nh,)).astype(np.float32)
    want = packed_heads.run_interp(shapes={"G": ng, "W": nw}, inputs=dict(x=x, hs=hs))
    ref = x * np.repeat(hs, nw)[:nc][None, :]
    np.testing.assert_allclose(want["y"], ref, rtol=1e-6)
    for params in (None, {"BLOCK_P": 256, "BLOCK": 64}):  # the call's binding; programs ending mid-row
        y, z = torch.full((nt, nc), float("nan")), torch.full((ng, nt, nw), float("nan"))
        if params is None:
            packed_heads(torch.from_numpy(x), torch.from_numpy(hs), y, z)
        else:
            packed_heads.launch(torch.from_numpy(x), torch.from_numpy(hs), y, z, params=params)
        np.testing.assert_allclose(y.numpy(), want["y"], rtol=1e-6)
        np.testing.assert_allclose(z.numpy(), want["z"], rtol=1e-6)
