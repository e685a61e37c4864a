"""Scans used as addresses (ScanValues.cpp, issue 41/42): a scan's result reaching a write's coordinates
or validity (a stream compaction: scatter each flagged member at its rank, an exclusive cumsum of the
flags, corpus 246) or a gather's coordinates (a masked merge by rank: the k-th flagged member takes
source row k, corpus 264) is realized by the write like a stored scan value: one range scan along the
scan axis whose emit region computes the address from each prefix, in place. Against a NumPy reference
at odd shapes (an empty and a one-member scan axis, primes, lengths past one block) through the KIR
interpreter, the pgpu interpreter after the shared pipeline (shuffled program order, BLOCK 64 and 512)
and the generated Triton under TRITON_INTERPRET=1."""
import os
import pathlib
import subprocess
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

BIN = pathlib.Path(os.environ.get("TESSEL_BUILD_DIR", pathlib.Path(__file__).parents[2] / "build")) / "bin" / "tessel"


@tessel.kernel
def compact(ids: T.In[T.i32, ("N",), T.Range(0, "E")], out: T.InOut[T.i32, ("C",)], counts: T.Out[T.i32, ("E",)]):
    """Counting sort by key: key e's slots, in order, land after the slots of smaller keys."""
    N = ids.shape[0]
    slots, keys = T.domain(0, N), T.domain(0, counts.shape[0])
    for e in T.parallel(keys):
        x = ids[slots]
        start = T.sum(T.cast(x < T.cast(e, T.i32), T.i32))
        mine = x == T.cast(e, T.i32)
        counts[e] = T.sum(T.cast(mine, T.i32))
        rank = T.cumsum(T.cast(mine, T.i32), exclusive=True)
        T.store(out, (start + rank,), T.cast(T.indices(slots), T.i32), valid=mine)


@tessel.kernel
def merge_rows(flags: T.In[T.i64, ("M", "N")], text: T.In[T.f32, ("M", "N")], src: T.In[T.f32, ("M", "K")],
               y: T.Out[T.f32, ("M", "N")]):
    """Per row: the k-th flagged column takes src[m, k] (clamped), the others keep text."""
    M, N = text.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        on = flags[m, cols] != 0
        rank = T.cumsum(T.where(on, 1, 0, dtype=T.i64), exclusive=True)
        k = T.minimum(T.cast(rank, T.index), src.shape[1] - 1)
        y[m, cols] = T.where(on, src[m, k], text[m, cols])


@tessel.kernel
def merge_tokens(ids: T.In[T.i64, ("T",)], text: T.In[T.f32, ("T", "D")], image: T.In[T.f32, ("NI", "D")],
                 out: T.Out[T.f32, ("T", "D")], tok: T.i64):
    """At kernel level (no T.parallel): the k-th token equal to `tok` takes image row k (clamped)."""
    NT, D = text.shape
    toks, dims = T.domain(0, NT), T.domain(0, D)
    is_img = ids[toks] == tok
    src = T.minimum(T.cast(T.cumsum(T.where(is_img, 1, 0, dtype=T.i64), exclusive=True), T.index),
                    image.shape[0] - 1)
    out[toks, dims] = T.where(T.broadcast(is_img, over=(toks, dims), dims=[0]), image[src, dims], text[toks, dims])


@tessel.kernel
def exclusive_column_cumsum(x: T.In[T.f32, ("R", "C")], y: T.Out[T.f32, ("R", "C")]):
    """An exclusive cumulative sum down each column: tiled [BLOCK_R, BLOCK_C] like an inclusive one."""
    R, C = x.shape
    rows = T.domain(0, R)
    for n in T.parallel(T.domain(0, C)):
        y[rows, n] = T.cumsum(x[rows, n], exclusive=True) * 2.0


def run(kernel, stage, shape, inputs, tmp, params=None, provider=None):
    """`provider`: the pgpu program the pipeline builds for it (Triton tiles a scan along an axis of a
    2-d fragment), stopped before its legalization, interpreted."""
    out = pathlib.Path(tmp) / f"{stage}-{provider}-{'-'.join(f'{k}{v}' for k, v in (params or {}).items())}"
    src = pathlib.Path(tmp) / "k.mlir"
    src.write_text(kernel.kir({}))
    if provider:
        opt = [str(BIN.parent / "tessel-opt"), str(src), f"--tessel-pipeline=provider={provider} stop-after=realize-folds",
               "-o", str(pathlib.Path(tmp) / "p.mlir")]
        res = subprocess.run(opt, capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        src = f"{pathlib.Path(tmp) / 'p.mlir'}:{kernel.name}"
    args = [str(BIN), "run", str(src), *([] if provider else ["--stage", stage]), "--seed", "3", "--out", str(out),
            "--shape", ",".join(f"{k}={v}" for k, v in shape.items())]
    if stage == "pgpu":
        args += ["--order", "shuffle", *[f"--param={k}={v}" for k, v in (params or {}).items()]]
    for k, v in inputs.items():
        if np.ndim(v) == 0:
            args += ["--scalar", f"{k}={v}"]
            continue
        np.save(pathlib.Path(tmp) / f"{k}.npy", v)
        args += ["--in", f"{k}={pathlib.Path(tmp) / f'{k}.npy'}"]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return out


def check(kernel, shape, inputs, outs, want, tiles=()):
    """`tiles`: bindings of the Triton pipeline's pgpu program ({"BLOCK_R": 2, "BLOCK_C": 16}: a tiled scan)."""
    import torch
    with tempfile.TemporaryDirectory() as tmp:
        runs = [("kir", None, None), ("pgpu", {"BLOCK": 64}, None), ("pgpu", {"BLOCK": 512}, None)]
        runs += [("pgpu", t, "triton") for t in tiles]
        for stage, params, provider in runs:
            got = run(kernel, stage, shape, inputs, tmp, params, provider)
            for name, w in want.items():
                np.testing.assert_array_equal(np.load(got / f"{name}.npy"), w, err_msg=f"{stage} {params} {name}")
    views = {k: torch.from_numpy(v.copy()) for k, v in {**inputs, **outs}.items() if np.ndim(v)}
    kernel(*views.values(), **{k: v.item() for k, v in inputs.items() if not np.ndim(v)})
    for name, w in want.items():
        np.testing.assert_array_equal(views[name].numpy(), w, err_msg=f"triton {name}")


KEYS = [dict(N=0, E=2), dict(N=1, E=1), dict(N=37, E=5), dict(N=577, E=2)]
DEEP = pytest.mark.skipif(not os.environ.get("TESSEL_DEEP"), reason="TESSEL_DEEP=1: a longer scan axis")
KEYS_ALL = KEYS + [pytest.param(dict(N=1031, E=4), marks=DEEP)]


@pytest.mark.parametrize("shape", KEYS_ALL, ids=[f"N{s['N']}E{s['E']}" for s in KEYS] + ["N1031E4"])
def test_scatter_at_an_exclusive_rank(shape):
    N, E = shape["N"], shape["E"]
    rng = np.random.default_rng(N * 7 + E)
    ids = rng.integers(0, E, N).astype(np.int32)
    C = N + 3
    out = np.full(C, -1, np.int32)
    want = out.copy()
    want[:N] = np.argsort(ids, kind="stable")
    counts = np.bincount(ids, minlength=E).astype(np.int32)
    check(compact, dict(N=N, E=E, C=C), dict(ids=ids, out=out), dict(counts=np.zeros(E, np.int32)),
          dict(out=want, counts=counts))


ROWS = [dict(M=1, N=1, K=1), dict(M=3, N=37, K=5), dict(M=2, N=131, K=40)]
ROWS_ALL = ROWS + [pytest.param(dict(M=1, N=1031, K=300), marks=DEEP)]


@pytest.mark.parametrize("shape", ROWS_ALL, ids=[f"M{s['M']}N{s['N']}K{s['K']}" for s in ROWS] + ["M1N1031K300"])
def test_gather_at_an_exclusive_rank(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    rng = np.random.default_rng(M * 1000 + N)
    flags = (rng.random((M, N)) < 0.3).astype(np.int64) * rng.integers(1, 9, (M, N))
    text = rng.standard_normal((M, N)).astype(np.float32)
    src = rng.standard_normal((M, K)).astype(np.float32)
    rank = np.minimum(np.cumsum(flags != 0, axis=1) - (flags != 0), K - 1)
    want = np.where(flags != 0, np.take_along_axis(src, rank, axis=1), text)
    check(merge_rows, shape, dict(flags=flags, text=text, src=src), dict(y=np.full((M, N), np.nan, np.float32)),
          dict(y=want))


TOKENS = [dict(T=1, D=1, NI=1), dict(T=37, D=5, NI=11), dict(T=600, D=3, NI=200)]


@pytest.mark.parametrize("shape", TOKENS, ids=[f"T{s['T']}D{s['D']}" for s in TOKENS])
def test_kernel_level_merge_by_rank(shape):
    """A stored scan at kernel level: one instance per feature, each scanning the tokens."""
    NT, D, NI = shape["T"], shape["D"], shape["NI"]
    rng = np.random.default_rng(NT + D)
    ids = rng.integers(0, 50, NT).astype(np.int64)
    ids[np.sort(rng.choice(NT, NI, replace=False))] = 77
    text = rng.standard_normal((NT, D)).astype(np.float32)
    image = rng.standard_normal((NI, D)).astype(np.float32)
    want = text.copy()
    want[ids == 77] = image
    check(merge_tokens, shape, dict(ids=ids, text=text, image=image, tok=np.int64(77)),
          dict(out=np.full((NT, D), np.nan, np.float32)), dict(out=want),
          tiles=({"BLOCK_R": 2, "BLOCK_C": 16}, {"BLOCK_R": 16, "BLOCK_C": 128}))


COLUMNS = [dict(R=1, C=1), dict(R=37, C=5), dict(R=131, C=19)]


@pytest.mark.parametrize("shape", COLUMNS, ids=[f"R{s['R']}C{s['C']}" for s in COLUMNS])
def test_exclusive_column_scan_is_tiled(shape):
    R, C = shape["R"], shape["C"]
    x = np.random.default_rng(R + C).integers(-4, 5, (R, C)).astype(np.float32)
    want = (np.cumsum(x, axis=0) - x) * 2.0
    check(exclusive_column_cumsum, shape, dict(x=x), dict(y=np.full((R, C), np.nan, np.float32)), dict(y=want),
          tiles=({"BLOCK_R": 2, "BLOCK_C": 16}, {"BLOCK_R": 8, "BLOCK_C": 16}))


def test_the_kernel_level_merge_walks_tiles_of_columns():
    """The merge's scan down the tokens runs on [BLOCK_R, BLOCK_C] tiles, one running rank per column
    (pgpu-form-blocking's column scans), not one feature a program reading a strided column."""
    src = merge_tokens.source("triton")
    body = src[src.index("def _merge_tokens_kernel"):]
    assert "tl.associative_scan" in body and "[:, None]" in body


def test_the_rank_is_scanned_once_per_block_in_the_triton_source():
    """The compaction's scatter runs inside the blocked scan: one tl.associative_scan per block, the store
    at the prefix (no per-element loop over the slots before it)."""
    src = compact.source("triton")
    body = src[src.index("def _compact_kernel"):]
    assert "tl.associative_scan" in body
    assert "tl.store(out + (" in body
