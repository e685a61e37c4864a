"""Call defaults of reduction walks in launches of few programs (Kernel._reduction_steps; issue 41,
corpus 10 GroupNorm and 53 BatchNorm statistics): a program that walks a long range one block at a time
waits for each block's loads before the next, so where few programs run the walk's block grows until the
multiprocessors have LOOP_BYTES_PER_SM in flight (WARPS following, at most 8); many programs, a block that
covers its row, a tile of several axes beside a one-axis block (masked mean pooling) keep their defaults.
A tile fold (a column sum's [BLOCK_R, BLOCK_C] row tiles summed into a carried tile, corpus 83 and 88) is
such a walk too, its rows growing with the fold split it takes counted (a longer step may leave fewer tiles
to split). Shapes only (meta tensors), then the grown and
the declared bindings against the KIR interpreter through Triton under TRITON_INTERPRET=1 at odd shapes."""
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def groupnorm(x: T.In[T.f16, ("N", "C", "H", "W")], weight: T.In[T.f16, ("C",)], bias: T.In[T.f16, ("C",)],
              y: T.Out[T.f16, ("N", "C", "H", "W")], eps: T.f32, G: T.Constexpr[int] = 32):
    N, C, H, W = x.shape
    cpg = C // G
    chans, hs, ws = T.domain(0, C), T.domain(0, H), T.domain(0, W)
    for n, g in T.parallel(T.domain(0, N), T.domain(0, G)):
        cs = chans[g * cpg:(g + 1) * cpg]
        t = T.cast(x[n, cs, hs, ws], T.f32)
        count = T.cast(cpg * H * W, T.f32)
        mean = T.sum(t) / count
        d = t - mean
        rstd = T.rsqrt(T.sum(d * d) / count + eps)
        w = T.broadcast(T.cast(weight[cs], T.f32), over=(cs, hs, ws), dims=[0])
        b = T.broadcast(T.cast(bias[cs], T.f32), over=(cs, hs, ws), dims=[0])
        y[n, cs, hs, ws] = T.cast(d * rstd * w + b, T.f16)


@tessel.kernel
def channel_stats(x: T.In[T.f32, ("N", "C", "H", "W")], mean: T.Out[T.f32, ("C",)], var: T.Out[T.f32, ("C",)]):
    N, C, H, W = x.shape
    ns, hs, ws = T.domain(0, N), T.domain(0, H), T.domain(0, W)
    count = T.cast(N * H * W, T.f32)
    for c in T.parallel(T.domain(0, C)):
        t = x[ns, c, hs, ws]
        mu = T.sum(t) / count
        d = t - mu
        mean[c] = mu
        var[c] = T.sum(d * d) / count


@tessel.kernel
def row_sums(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M",)]):
    for i in T.parallel(T.domain(0, x.shape[0])):
        y[i] = T.sum(x[i, :])


@tessel.kernel
def masked_mean_pool(h: T.In[T.bf16, ("B", "T", "D")], mask: T.In[T.i32, ("B", "T"), T.Range(0, 2)],
                     out: T.Out[T.f32, ("B", "D")]):
    B, S, D = h.shape
    toks, dims = T.domain(0, S), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        m = T.cast(mask[b, toks], T.f32)
        total = T.sum(m * T.cast(h[b, toks, dims], T.f32), axis=0)
        out[b, dims] = total / T.maximum(T.sum(m), 1.0)


@tessel.kernel
def column_sums(dy: T.In[T.bf16, ("M", "N")], db: T.Out[T.f32, ("N",)]):
    M, N = dy.shape
    db[T.domain(0, N)] = T.sum(dy[T.domain(0, M), T.domain(0, N)], axis=0, acc_dtype=T.f32)


@tessel.kernel
def image_means(x: T.In[T.f16, ("N", "H", "W", "C")], out: T.Out[T.f16, ("N", "C")]):
    nn, nh, nw, nc = x.shape
    hs, ws, cs = T.domain(0, nh), T.domain(0, nw), T.domain(0, nc)
    count = T.cast(nh * nw, T.f32)
    for n in T.parallel(T.domain(0, nn)):
        out[n, cs] = T.cast(T.sum(x[n, hs, ws, cs], axis=(0, 1), acc_dtype=T.f32) / count, T.f16)


def _meta(shape, dtype=torch.float16):
    return torch.empty(shape, dtype=dtype, device="meta")


def _gn_defaults(n, c, h, w):
    return groupnorm.call_defaults(_meta((n, c, h, w)), _meta((c,)), _meta((c,)), _meta((n, c, h, w)), eps=1e-5)


def test_few_programs_grow_the_walk():
    # 512 programs (3.9 a multiprocessor), each walking 65536 f16: 512 lanes at 1 warp -> 8192 at 8
    got = _gn_defaults(16, 512, 64, 64)
    assert (got["BLOCK"], got["WARPS"]) == (8192, 8), got
    # 256 channels of strided (N, H, W) f32 rows: 512 lanes at 2 warps grow, but the flattened walk's
    # carried lane coordinates (j / P, j % P, 64-bit addresses) count as registers, so the block stops
    # at 1024 lanes and 4 warps (8192 at 8 spilled: 255 registers and 1276 bytes of spill stores a
    # thread under sm_90a ptxas; corpus 53 on the H100, 0.568 -> 0.295 ms)
    f32 = torch.float32
    got = channel_stats.call_defaults(_meta((32, 256, 56, 56), f32), _meta((256,), f32), _meta((256,), f32))
    assert (got["BLOCK"], got["WARPS"]) == (1024, 4), got


def test_the_block_grows_until_the_bytes_in_flight_suffice():
    # 2048 programs (15.5 a multiprocessor): 1 KiB an iteration each at 512 lanes, 2 KiB at 1024, 4 at 2048
    assert _gn_defaults(64, 512, 64, 64)["BLOCK"] == 2048


def test_many_programs_keep_the_declared_block():
    # 32768 programs (248 a multiprocessor) at 1 KiB each: the declared 512 lanes and 1 warp
    got = _gn_defaults(1024, 512, 8, 8)
    assert (got["BLOCK"], got["WARPS"]) == (512, 1), got


def test_a_covered_row_keeps_the_covering_block():
    # one program, but its row fits a candidate: the covering rule's 1024 lanes (mask-free at N = 1024)
    f32 = torch.float32
    assert row_sums.call_defaults(_meta((1, 1000), f32), _meta((1,), f32))["BLOCK"] == 1024
    # a row past every candidate is walked: few programs grow the walk from the declared 512
    assert row_sums.call_defaults(_meta((2, 100000), f32), _meta((2,), f32))["BLOCK"] == 8192


def test_the_walk_stops_once_it_spans_the_largest_view():
    # one program over 4 x 31 f16 (124 elements): no loop walks more, so the declared 512 lanes stay
    # (growing to 8192 lanes at 8 warps would only widen masked lanes); 4 x 32 x 32 (4096 elements):
    # 4096 lanes at 4 warps; 2 x 40 x 13 x 11 (11440): the walk stops at 8192 by the warps rule
    tiny, small = _gn_defaults(1, 4, 1, 31), _gn_defaults(1, 4, 32, 32)
    assert (tiny["BLOCK"], tiny["WARPS"]) == (512, 1)
    assert (small["BLOCK"], small["WARPS"]) == (4096, 4)
    assert _gn_defaults(2, 40, 13, 11)["BLOCK"] == 8192


def test_a_tile_of_several_axes_is_not_a_walk():
    # [BLOCK_R, BLOCK_C] token tiles: BLOCK_R walks T beside a column block; it keeps its covering default
    src = masked_mean_pool.source()
    loads = next(l for l in src.split("\n") if l.startswith("    return {'BLOCK"))
    assert "BLOCK_R" not in loads, loads
    got = masked_mean_pool.call_defaults(_meta((2, 37, 64), torch.bfloat16), _meta((2, 37), torch.int32),
                                         _meta((2, 64), torch.float32))
    declared = masked_mean_pool.call_defaults(_meta((4096, 37, 64), torch.bfloat16), _meta((4096, 37), torch.int32),
                                              _meta((4096, 64), torch.float32))
    assert got["BLOCK_R"] == declared["BLOCK_R"], (got, declared)


def _column_defaults(m, n):
    return column_sums.call_defaults(_meta((m, n), torch.bfloat16), _meta((n,), torch.float32))


def test_a_column_fold_grows_its_row_tiles():
    # the tile fold's loop counts: its iteration loads one [BLOCK_R, BLOCK_C] tile
    for src in (column_sums.source(), image_means.source()):
        loads = next(l for l in src.split("\n") if l.startswith("    return {'BLOCK"))
        assert loads == "    return {'BLOCK_R': 2 * p['BLOCK_R'] * p['BLOCK_C']}", loads
    # corpus 83's shape: 8 column tiles x FOLD_SPLIT 32 = 256 programs (1.9 a multiprocessor), 4 KiB an
    # iteration at the declared 16 rows: 64 rows (16 KiB) at 8 warps, the split unchanged
    got = _column_defaults(65536, 1024)
    assert (got["BLOCK_R"], got["WARPS"], got["FOLD_SPLIT"], got["BLOCK_C"]) == (64, 8, 32, 128), got
    # corpus 88's: 64 images x 2 column tiles x FOLD_SPLIT 2 over 3136 (h, w) rows
    got = image_means.call_defaults(_meta((64, 56, 56, 256)), _meta((64, 256)))
    assert (got["BLOCK_R"], got["WARPS"], got["FOLD_SPLIT"]) == (64, 8, 2), got


def test_a_column_fold_keeps_its_rows_where_the_split_would_shrink():
    # one column tile of 1031 rows splits 64 ways in 16-row tiles (64 programs), but only 33 in 32-row
    # tiles: the longer step would run fewer programs, so the declared 16 rows stay
    got = _column_defaults(1031, 3)
    assert (got["BLOCK_R"], got["WARPS"], got["FOLD_SPLIT"]) == (16, 4, 64), got


def test_many_column_tiles_keep_the_declared_rows():
    # 2048 column tiles fill the device unsplit (15.5 programs a multiprocessor, 62 KiB in flight)
    got = _column_defaults(65536, 262144)
    assert (got["BLOCK_R"], got["FOLD_SPLIT"]) == (16, 1), got


# M, N: one row, one column, primes, rows short of and past 64-row tiles, a shape whose defaults grow
@pytest.mark.parametrize("shape", [(1, 1), (63, 5), (65, 131), (257, 3), (1031, 257), (4099, 131)])
def test_column_sums_agree_with_the_interpreter(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    m, n = shape
    rng = np.random.default_rng(m * 7 + n)
    dy = rng.standard_normal(shape).astype(np.float32)
    dy = torch.from_numpy(dy).to(torch.bfloat16).float().numpy()  # bf16-representable
    want = column_sums.run_interp(shapes={}, inputs=dict(dy=dy))["db"]
    np.testing.assert_allclose(want, dy.astype(np.float64).sum(axis=0), rtol=1e-4, atol=1e-3)
    t = torch.from_numpy(dy).to(torch.bfloat16)
    d = column_sums.call_defaults(t, torch.empty(n))
    if shape == (4099, 131):
        assert (d["BLOCK_R"], d["WARPS"], d["FOLD_SPLIT"]) == (64, 8, 64), d
    for params in (None, {"BLOCK_R": 64, "WARPS": 8, "FOLD_SPLIT": 32}, {"BLOCK_R": 64, "FOLD_SPLIT": 1, "TMA": 0}):
        for _ in range(2):  # a second call reuses the split's kept tickets
            db = torch.full((n,), float("nan"))
            if params is None:
                column_sums(t, db)
            else:
                column_sums.launch(t, db, params=params)
            np.testing.assert_allclose(db.numpy(), want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("shape", [(1, 1, 1, 1), (2, 7, 11, 131), (3, 13, 5, 5), (2, 67, 61, 131)])
def test_image_means_agree_with_the_interpreter(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(sum(shape))
    x = (0.5 + rng.standard_normal(shape)).astype(np.float16)
    want = image_means.run_interp(shapes={}, inputs=dict(x=x))["out"].astype(np.float64)
    np.testing.assert_allclose(want, x.astype(np.float64).mean(axis=(1, 2)), rtol=2e-3, atol=2e-3)
    t = torch.from_numpy(x)
    d = image_means.call_defaults(t, torch.empty((shape[0], shape[3]), dtype=torch.float16))
    if shape == (2, 67, 61, 131):
        assert (d["BLOCK_R"], d["WARPS"]) == (64, 8), d
    for params in (None, {"BLOCK_R": 64, "WARPS": 8, "FOLD_SPLIT": 4}):
        out = torch.full((shape[0], shape[3]), float("nan"), dtype=torch.float16)
        if params is None:
            image_means(t, out)
        else:
            image_means.launch(t, out, params=params)
        np.testing.assert_allclose(out.numpy().astype(np.float64), want, rtol=2e-3, atol=2e-3)


# N, C, H, W (G = 4): groups of one channel, H*W prime, N = 1, ranges past and short of every block
SHAPES = [(1, 4, 1, 1), (1, 4, 1, 131), (2, 8, 13, 1), (3, 12, 5, 7), (1, 4, 17, 31), (2, 20, 11, 13)]


@pytest.mark.parametrize("shape", SHAPES)
def test_groupnorm_agrees_with_the_interpreter(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    n, c, h, w = shape
    rng = np.random.default_rng(n * 1000 + c * 10 + h * w)
    x = (rng.standard_normal(shape) * 2.0 + 0.5).astype(np.float16)
    wt = (1.0 + 0.5 * rng.standard_normal(c)).astype(np.float16)
    bs = (0.5 * rng.standard_normal(c)).astype(np.float16)
    want = groupnorm.run_interp(shapes={}, scalars={"eps": 1e-5}, constexprs={"G": 4},
                                inputs=dict(x=x, weight=wt, bias=bs))["y"].astype(np.float64)
    xg = x.astype(np.float64).reshape(n, 4, -1)
    ref = ((xg - xg.mean(axis=2, keepdims=True)) / np.sqrt(xg.var(axis=2, keepdims=True) + 1e-5)).reshape(shape)
    ref = ref * wt.astype(np.float64)[None, :, None, None] + bs.astype(np.float64)[None, :, None, None]
    np.testing.assert_allclose(want, ref, rtol=1e-2, atol=1e-2)
    args = [torch.from_numpy(a) for a in (x, wt, bs)]
    d = groupnorm.call_defaults(*args, torch.empty(shape, dtype=torch.float16), eps=1e-5, G=4)
    # At most 20 programs: the walk grows from the declared 512, up to 8192 lanes at 8 warps, and stops
    # once it spans the call's largest view (a longer step only widens masked lanes).
    grown = min(8192, max(512, 1 << (x.size - 1).bit_length()))
    assert d["BLOCK"] == grown and (grown < 8192 or d["WARPS"] == 8), d
    for params in (None, {"BLOCK": 64}):  # the call's binding (one block), the walk of 64-lane blocks
        y = torch.full(shape, float("nan"), dtype=torch.float16)
        if params is None:
            groupnorm(*args, y, eps=1e-5, G=4)
        else:
            groupnorm.launch(*args, y, eps=1e-5, G=4, params=params)
        np.testing.assert_allclose(y.numpy().astype(np.float64), want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("shape", [(1, 1, 1, 1), (3, 5, 7, 11), (2, 3, 13, 17), (5, 2, 1, 31), (1, 2, 1, 4099)])
def test_channel_stats_agree_with_the_interpreter(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    n, c, h, w = shape
    rng = np.random.default_rng(n * 100 + c + h * w)
    x = (rng.uniform(-3, 3, (1, c, 1, 1)) + rng.uniform(0.5, 2, (1, c, 1, 1)) *
         rng.standard_normal(shape)).astype(np.float32)
    want = channel_stats.run_interp(shapes={}, inputs=dict(x=x))
    xd = x.astype(np.float64)
    np.testing.assert_allclose(want["mean"], xd.mean(axis=(0, 2, 3)), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(want["var"], xd.var(axis=(0, 2, 3)), rtol=1e-4, atol=1e-4)
    for params in (None, {"BLOCK": 64}):
        mean, var = torch.full((c,), float("nan")), torch.full((c,), float("nan"))
        if params is None:
            channel_stats(torch.from_numpy(x), mean, var)
        else:
            channel_stats.launch(torch.from_numpy(x), mean, var, params=params)
        np.testing.assert_allclose(mean.numpy(), want["mean"], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(var.numpy(), want["var"], rtol=1e-5, atol=1e-5)


@tessel.kernel
def argmax_rows(logits: T.In[T.f32, ("B", "V")], idx: T.Out[T.i64, ("B",)], val: T.Out[T.f32, ("B",)]):
    vocab = T.domain(0, logits.shape[1])
    for b in T.parallel(T.domain(0, logits.shape[0])):
        best, at = T.argmax(logits[b, vocab], tie="lowest")
        idx[b] = T.cast(at, T.i64)
        val[b] = best


def _argmax_defaults(b, v):
    f32 = torch.float32
    return argmax_rows.call_defaults(_meta((b, v), f32), _meta((b,), torch.int64), _meta((b,), f32))


def test_lone_programs_walk_with_more_warps():
    # 64 programs on 132 multiprocessors, each walking 128256 f32 pairs: the walk grows to 8192 lanes and
    # the pairs' rule (2 warps, 128 elements a thread among many programs) rises to 8 warps
    # (pgpu-pack-rows' ROWS stays 1 for rows this long; TMA is the staged row's own default)
    got = _argmax_defaults(64, 128256)
    assert {k: got[k] for k in ("BLOCK", "WARPS", "STAGES")} == {"BLOCK": 8192, "WARPS": 8, "STAGES": 3}
    assert got.get("ROWS", 1) == 1
    # a short row's step: 1 x 37 keeps its covering 64 lanes (256 bytes, under 8 warps x 32 x 64 bytes)
    assert _argmax_defaults(1, 37)["WARPS"] == 2


def test_few_programs_a_multiprocessor_walk_with_more_warps():
    # 132 rows (one program a multiprocessor) and 256 (two: Gumbel-max sampling's B = 256 over
    # V = 128256) walk with 8 warps a program, not the pairs' 2 (one warp a scheduler); 265 rows
    # (three on some multiprocessors) keep the rule's
    assert _argmax_defaults(132, 128256)["WARPS"] == 8
    assert _argmax_defaults(256, 128256)["WARPS"] == 8
    assert _argmax_defaults(265, 128256)["WARPS"] == 2


def test_programs_that_fill_the_device_keep_the_rule_warps():
    # 16384 rows: many programs a multiprocessor, the pairs' rule's 2 warps stay
    assert _argmax_defaults(16384, 8192)["WARPS"] == 2
    # a sum walk at 8192 lanes already has 8 warps by its rule: nothing moves
    f32 = torch.float32
    assert row_sums.call_defaults(_meta((2, 100000), f32), _meta((2,), f32))["WARPS"] == 8


@pytest.mark.parametrize("shape", [(1, 1), (3, 127), (2, 8209), (5, 4099)])
def test_argmax_at_lone_warps_agrees_with_the_interpreter(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    b, v = shape
    rng = np.random.default_rng(b * 7919 + v)
    x = (3.0 * rng.standard_normal(shape)).astype(np.float32)
    if v > 5:  # a tie for the maximum: the lowest index wins
        x[:, v - 1] = x[:, v // 3] = x.max(axis=1) + 1.0
    want = argmax_rows.run_interp(shapes={}, inputs=dict(logits=x))
    np.testing.assert_array_equal(want["idx"], np.argmax(x, axis=1))
    idx, val = torch.full((b,), -1, dtype=torch.int64), torch.full((b,), float("nan"))
    argmax_rows(torch.from_numpy(x), idx, val)
    np.testing.assert_array_equal(idx.numpy(), want["idx"])
    np.testing.assert_array_equal(val.numpy(), want["val"])
