"""Several short rows per program for row reductions (pgpu-pack-rows, issue 41, corpus 11): a `T.parallel`
over rows whose body reduces each row runs ROWS rows per program, as [ROWS, BLOCK] tiles on the staged path
(the row fits one block) and one row after the other on the blocked path. Differential: Triton under
TRITON_INTERPRET=1 against the KIR interpreter on random inputs at odd row lengths (1, 3, 127, 129) and row
counts (1, primes, counts that leave the last program part empty), at several ROWS and BLOCK bindings so
that both paths run with several rows per program. Must not fire: a per-element row (no reduction: the row
loops of pgpu-refine-mapping). A row read by a single loop is staged by pgpu-pack-rows itself and packed."""
import os
import re

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def qk_rms(q: T.In[T.f32, ("B", "H", "S", "D")], w: T.In[T.f32, ("H", "D")],
           out: T.Out[T.f32, ("B", "H", "S", "D")], eps: T.f32):
    B, H, S, D = q.shape
    dims = T.domain(0, D)
    for b, h, s in T.parallel(T.domain(0, B), T.domain(0, H), T.domain(0, S)):
        x = q[b, h, s, dims]
        r = T.rsqrt(T.sum(x * x) / T.cast(D, T.f32) + eps)
        out[b, h, s, dims] = x * r * w[h, dims]


@tessel.kernel
def layernorm_rows(x: T.In[T.f32, ("M", "N")], g: T.In[T.f32, ("N",)], shift: T.In[T.f32, ("M",)],
                   y: T.Out[T.f32, ("M", "N")], mean_out: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    n = T.cast(N, T.f32)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        mean = T.sum(row) / n
        d = row - mean
        var = T.sum(d * d) / n
        y[m, cols] = d * T.rsqrt(var + 1e-5) * g[cols] + shift[m]  # a shared row and a per-row scalar
        mean_out[m] = mean + T.cast(m, T.f32)


@tessel.kernel
def row_sum(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m] = T.sum(x[m, cols])


@tessel.kernel
def scale_rows(x: T.In[T.f32, ("M", "N")], w: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        y[m, cols] = x[m, cols] * w[cols]


@tessel.kernel
def channel_stats(x: T.In[T.f32, ("N", "C", "W")], mean: T.Out[T.f32, ("C",)], var: T.Out[T.f32, ("C",)]):
    N, C, W = x.shape
    ns, ws = T.domain(0, N), T.domain(0, W)
    count = T.cast(N * W, T.f32)
    for c in T.parallel(T.domain(0, C)):
        t = x[ns, c, ws]  # a row of N x W elements: its length is no one shape symbol
        mu = T.sum(t) / count
        d = t - mu
        mean[c] = mu
        var[c] = T.sum(d * d) / count


def _params(kernel):
    line = next(l for l in kernel.source().split("\n") if "_PARAMS = {" in l)
    return line


def test_row_reductions_take_rows_per_program():
    assert "'ROWS'" in _params(qk_rms) and "'ROWS'" in _params(layernorm_rows)
    # ROWS declares 1, one row a program as without the packing: a launch that binds the declared defaults
    # (kernel.launch without params, `tessel compile`'s wrapper, a direct launch) knows no row length and
    # must not run 8 long rows (the blocked path) one after another; a call's default packs short rows.
    assert "'ROWS': ([1, 2, 4, 8, 16, 32, 64, 128], 1)" in _params(qk_rms)
    src = qk_rms.source()
    assert re.search(r"tl\.sum\(v\d+, 1\)|tl\.reduce\(.*, 1, _qk_rms_combine", src)  # the row reduction over axis 1


def test_must_not_fire_without_a_row_reduction():
    assert "'ROWS'" not in _params(scale_rows)  # a per-element row: refine-mapping's row loops


def test_a_single_row_loop_is_staged_and_packed():
    # One loop over the row (nothing for pgpu-stage-rows to share): pgpu-pack-rows stages it itself.
    assert "'ROWS': ([1, 2, 4, 8, 16, 32, 64, 128], 1)" in _params(row_sum)


@pytest.mark.parametrize("m,n", [(1, 1), (7, 3), (131, 127), (37, 129)])
def test_row_sum_agrees_with_the_interpreter(m, n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 1000 + n)
    x = rng.standard_normal((m, n)).astype(np.float32)
    want = row_sum.run_interp(shapes={}, inputs=dict(x=x))["y"]
    for params in BINDINGS:
        y = torch.full((m,), float("nan"))
        if params is None:
            row_sum(torch.from_numpy(x), y)
        else:
            row_sum.launch(torch.from_numpy(x), y, params=params)
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5, err_msg=str(params))


# The call's defaults, then rows that fit (BLOCK 128: the staged [ROWS, BLOCK] path) or not (BLOCK 64 for
# rows of 127 and 129: the blocked path's loop over a program's rows), programs that end past the last row.
BINDINGS = [None, {"ROWS": 4, "BLOCK": 128}, {"ROWS": 8, "BLOCK": 64}]


@pytest.mark.parametrize("d", [1, 3, 127, 129])
@pytest.mark.parametrize("bhs", [(1, 1, 1), (1, 1, 3), (1, 3, 37), (2, 5, 13)])
def test_qk_rms_agrees_with_the_interpreter(d, bhs, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    B, H, S = bhs
    rng = np.random.default_rng(d * 1000 + S * 10 + H)
    q = (1.0 + rng.standard_normal((B, H, S, d))).astype(np.float32)
    w = rng.standard_normal((H, d)).astype(np.float32)
    want = qk_rms.run_interp(shapes={}, inputs=dict(q=q, w=w), scalars=dict(eps=1e-6))["out"]
    for params in BINDINGS:
        out = torch.full(q.shape, float("nan"))
        if params is None:
            qk_rms(torch.from_numpy(q), torch.from_numpy(w), out, eps=1e-6)
        else:
            qk_rms.launch(torch.from_numpy(q), torch.from_numpy(w), out, eps=1e-6, params=params)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5, err_msg=str(params))


@pytest.mark.parametrize("n", [1, 3, 127, 129])
@pytest.mark.parametrize("m", [1, 7, 131])
def test_layernorm_rows_agrees_with_the_interpreter(m, n, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m * 1000 + n)
    x = rng.standard_normal((m, n)).astype(np.float32)
    g = rng.standard_normal((n,)).astype(np.float32)
    shift = rng.standard_normal((m,)).astype(np.float32)
    want = layernorm_rows.run_interp(shapes={}, inputs=dict(x=x, g=g, shift=shift))
    for params in BINDINGS + ([{"ROWS": 128, "BLOCK": 256}] if m == 131 else []):  # one program, 131 rows
        y, mean = torch.full((m, n), float("nan")), torch.full((m,), float("nan"))
        args = (torch.from_numpy(x), torch.from_numpy(g), torch.from_numpy(shift), y, mean)
        if params is None:
            layernorm_rows(*args)
        else:
            layernorm_rows.launch(*args, params=params)
        np.testing.assert_allclose(y.numpy(), want["y"], rtol=1e-4, atol=1e-5, err_msg=str(params))
        np.testing.assert_allclose(mean.numpy(), want["mean_out"], rtol=1e-5, atol=1e-5, err_msg=str(params))


def test_call_defaults_fill_the_device_with_row_tiles():
    q = torch.empty((4, 32, 4096, 128), device="meta")
    w = torch.empty((32, 128), device="meta")
    got = qk_rms.call_defaults(q, w, q, eps=1e-6)
    assert got["BLOCK"] == 128 and got["ROWS"] == 32  # 4096-element tiles, 16384 programs
    small = torch.empty((1, 1, 300, 128), device="meta")
    got = qk_rms.call_defaults(small, torch.empty((1, 128), device="meta"), small, eps=1e-6)
    assert got["ROWS"] == 2  # 150 programs: one a multiprocessor at least
    long = torch.empty((1, 1, 4, 20000), device="meta")
    got = qk_rms.call_defaults(long, torch.empty((1, 20000), device="meta"), long, eps=1e-6)
    assert got["ROWS"] == 1  # a row longer than any block runs alone


def _meta(*shape):
    return torch.empty(shape, device="meta")


def test_call_defaults_for_few_and_many_rows():
    w = _meta(1, 128)
    # Fewer rows than multiprocessors (132 off a GPU): a program each.
    for s in (1, 7, 131):
        assert qk_rms.call_defaults(_meta(1, 1, s, 128), w, _meta(1, 1, s, 128), eps=1e-6)["ROWS"] == 1
    # Rows of one element (BLOCK 64, the smallest): 128 rows a program, 128 elements in 8192 lanes.
    many = _meta(1, 1, 2 ** 20, 1)
    assert qk_rms.call_defaults(many, _meta(1, 1), many, eps=1e-6)["ROWS"] == 128
    # Rows of 40 in BLOCK 64: at most 4096 elements of rows a tile, 64 rows.
    rows40 = _meta(1, 1, 65536, 40)
    assert qk_rms.call_defaults(rows40, _meta(1, 40), rows40, eps=1e-6)["ROWS"] == 64
    # 2**31 long rows, one a program, would exceed the grid's 2**31 - 1 programs: two rows a program.
    huge = _meta(1, 1, 2 ** 31, 20000)
    assert qk_rms.call_defaults(huge, _meta(1, 20000), huge, eps=1e-6)["ROWS"] == 2


PACKED = [(291, 3, 2), (1031, 5, 4), (2053, 129, 8)]


@pytest.mark.parametrize("m,n,rows", PACKED)
def test_packed_call_defaults_pick_rows(m, n, rows):
    x, g, shift = _meta(m, n), _meta(n), _meta(m)
    assert layernorm_rows.call_defaults(x, g, shift, _meta(m, n), _meta(m))["ROWS"] == rows


@pytest.mark.parametrize("m,n,rows", [*PACKED[:2], pytest.param(*PACKED[2], marks=pytest.mark.deep(
    reason="257 programs of 8 rows of 129 under TRITON_INTERPRET=1; test_packed_call_defaults_pick_rows "
           "checks its ROWS 8, the two smaller shapes launch packed rows (ROWS 2 and 4, a partial last program)"))])
def test_packed_call_defaults_agree_with_the_interpreter(m, n, rows, tmp_path, monkeypatch):
    # Enough rows that the untuned call packs them: 291 rows: ROWS 2 (146 programs, the last one half
    # empty); 1031: ROWS 4 (its last program 3 rows of 4); 2053 rows of 129 in BLOCK 256: ROWS 8 (257
    # programs; 16 would leave multiprocessors without one).
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m + n)
    x = rng.standard_normal((m, n)).astype(np.float32)
    g = rng.standard_normal((n,)).astype(np.float32)
    shift = rng.standard_normal((m,)).astype(np.float32)
    want = layernorm_rows.run_interp(shapes={}, inputs=dict(x=x, g=g, shift=shift))
    y, mean = torch.full((m, n), float("nan")), torch.full((m,), float("nan"))
    args = (torch.from_numpy(x), torch.from_numpy(g), torch.from_numpy(shift), y, mean)
    assert layernorm_rows.call_defaults(*args)["ROWS"] == rows
    layernorm_rows(*args)
    np.testing.assert_allclose(y.numpy(), want["y"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mean.numpy(), want["mean_out"], rtol=1e-5, atol=1e-5)


def test_a_row_over_several_axes_keeps_one_row_per_program(tmp_path, monkeypatch):
    # BLOCK covers no one shape symbol here, so the call cannot tell a short row from a long one: one row
    # a program, as without the packing (corpus 53's 256 channels of 32 x 56 x 56 ran 32 programs of 8
    # channels at what was then ROWS's declared 8). Such a member's statistics are now
    # pgpu-split-member-reductions' (its slices across programs where the members underfill the
    # device), which runs before the packing: no ROWS is declared, one member a program or its slices.
    assert "'ROWS'" not in _params(channel_stats) and "'MEMBER_SPLIT'" in _params(channel_stats)
    x = _meta(32, 4096, 56)
    assert channel_stats.call_defaults(x, _meta(4096), _meta(4096)).get("ROWS", 1) == 1
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(53)
    x = (1.0 + rng.standard_normal((3, 131, 5))).astype(np.float32)
    want = channel_stats.run_interp(shapes={}, inputs=dict(x=x))
    for params in (None, {"BLOCK": 128}, {"BLOCK": 64, "MEMBER_SPLIT": 2}):
        mean, var = torch.full((131,), float("nan")), torch.full((131,), float("nan"))
        if params is None:
            channel_stats(torch.from_numpy(x), mean, var)
        else:
            channel_stats.launch(torch.from_numpy(x), mean, var, params=params)
        np.testing.assert_allclose(mean.numpy(), want["mean"], rtol=1e-5, atol=1e-5, err_msg=str(params))
        np.testing.assert_allclose(var.numpy(), want["var"], rtol=1e-4, atol=1e-5, err_msg=str(params))


def test_the_search_measures_rows_around_the_call_default():
    from tessel import _tune

    def searched(shape, d, domain=None):
        q, w = _meta(*shape, d), _meta(shape[1], d)
        return _tune.candidates(qk_rms, {}, domain, "triton", [q, w, q])[0]["ROWS"]
    assert searched((4, 32, 4096), 128) == ([16, 32, 64], 32)  # half and twice the default
    assert searched((1, 1, 300), 128) == ([1, 2], 2)    # ROWS 4: 75 programs, fewer than multiprocessors
    assert searched((1, 1, 3), 128) == ([1], 1)         # 3 rows: a program each
    assert searched((1, 1, 4096), 20000) == ([1], 1)    # rows longer than BLOCK run one after the other
    assert searched((4, 32, 4096), 128, {"ROWS": [4, 128]}) == ([4, 128], 128)  # a domain naming ROWS: its own


@pytest.mark.parametrize("m,n", [(0, 5), (5, 0)])
def test_no_rows_and_empty_rows_agree_with_the_interpreter(m, n, tmp_path, monkeypatch):
    # no programs at all; rows of no elements take the blocked path (0 < N fails), a loop over the rows
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(m + n)
    x = rng.standard_normal((m, n)).astype(np.float32)
    g = rng.standard_normal((n,)).astype(np.float32)
    shift = rng.standard_normal((m,)).astype(np.float32)
    want = layernorm_rows.run_interp(shapes={"M": m, "N": n}, inputs=dict(x=x, g=g, shift=shift))
    for params in BINDINGS:
        y, mean = torch.full((m, n), float("nan")), torch.full((m,), float("nan"))
        args = (torch.from_numpy(x), torch.from_numpy(g), torch.from_numpy(shift), y, mean)
        if params is None:
            layernorm_rows(*args)
        else:
            layernorm_rows.launch(*args, params=params)
        np.testing.assert_allclose(y.numpy(), want["y"], rtol=1e-4, atol=1e-5, err_msg=str(params))
        np.testing.assert_allclose(mean.numpy(), want["mean_out"], rtol=1e-5, atol=1e-5, err_msg=str(params))
