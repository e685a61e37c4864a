"""pgpu-tile-column-reductions: a reduction over a leading axis whose result keeps the operand's
contiguous axis (`out[b, dims] = T.sum(x[rows, dims], axis=0)`) is one loop over [BLOCK_R, BLOCK_C]
tiles reduced along BLOCK_R, the kept axis in lanes, for plain slices, runtime subregions and rows
gathered through an index tensor alike (before: a serial loop over the kept axis, each output element
a 512-lane reduction reading with the row stride).

Ragged segments (issue 42 item 2): a reduction whose range is read per member of a parallel axis
(`y[m] = T.sum(values[nz[indptr[m]:indptr[m + 1]]] * ...)`, CSR rows) packs BLOCK_C members per
program, their ranges run in [BLOCK_R, BLOCK_C] tiles up to the longest of them, each lane masked
below its own row's length (power-law rows, empty rows, offsets that overlap or leave gaps), and rows
past the tile's cover finish with all its lanes.

Differential: at kept extents 1, 13, 33, 129 and reduced extents 0 (an empty bag), 1 and primes (CSR
rows: empty rows, rows of length 1, a row longer than every block, M = 1 and primes), the
pgpu interpreter (at several BLOCK_R x BLOCK_C bindings) and the generated Triton under
TRITON_INTERPRET=1 compute what the KIR interpreter computes.
"""
import os
import re

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T

from interp_cli import run_stage


@tessel.kernel
def column_sums(x: T.In[T.f32, ("B", "R", "D")], out: T.Out[T.f32, ("B", "D")]):
    B, R, D = x.shape
    rows, dims = T.domain(0, R), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        out[b, dims] = T.sum(x[b, rows, dims], axis=0)


@tessel.kernel
def column_sums_scaled(x: T.In[T.f32, ("B", "R", "D")], scale: T.In[T.f32, ("B",)],
                       out: T.Out[T.f32, ("B", "D")]):
    """A plain slice whose program does more than the workset (a scalar read first)."""
    B, R, D = x.shape
    rows, dims = T.domain(0, R), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        s = scale[b]
        out[b, dims] = T.sum(x[b, rows, dims], axis=0) * s


@tessel.kernel
def column_max_tail(x: T.In[T.f32, ("R", "D")], starts: T.In[T.i32, ("G",), T.Range(0, "R")],
                    out: T.Out[T.f32, ("G", "D")]):
    """A max (identity -inf) over a runtime subregion rows[starts[g]:R] of a plain 2-d view."""
    R, D = x.shape
    G = T.extent("G")
    rows, dims = T.domain(0, R), T.domain(0, D)
    for g in T.parallel(T.domain(0, G)):
        out[g, dims] = T.max(x[rows[starts[g]:R], dims], axis=0)


@tessel.kernel
def bag_sums(table: T.In[T.f32, ("V", "D")], indices: T.In[T.i32, ("NI",), T.Range(0, "V")],
             offsets: T.In[T.i32, ("NB",)], out: T.Out[T.f32, ("NB", "D")]):
    V, D = table.shape
    NI, NB = T.extent("NI"), T.extent("NB")
    dims, items = T.domain(0, D), T.domain(0, NI)
    for b in T.parallel(T.domain(0, NB)):
        lo = T.cast(offsets[b], T.index)
        hi = T.cast(offsets[b + 1], T.index) if b + 1 < NB else NI
        out[b, dims] = T.sum(table[indices[items[lo:hi]], dims], axis=0) * 0.5


@tessel.kernel
def bag_sums_counted(table: T.In[T.f32, ("V", "D")], indices: T.In[T.i32, ("NI",), T.Range(0, "V")],
                     offsets: T.In[T.i32, ("NB",)], out: T.Out[T.f32, ("NB", "D")],
                     sizes: T.Out[T.i32, ("NB",)]):
    """A bag whose program also writes its size: the column blocks stay a loop in the program."""
    V, D = table.shape
    NI, NB = T.extent("NI"), T.extent("NB")
    dims, items = T.domain(0, D), T.domain(0, NI)
    for b in T.parallel(T.domain(0, NB)):
        lo = offsets[b]
        hi = offsets[b + 1] if b + 1 < NB else T.cast(NI, T.i32)
        sizes[b] = hi - lo
        out[b, dims] = T.sum(table[indices[items[lo:hi]], dims], axis=0)


@tessel.kernel
def masked_means(h: T.In[T.bf16, ("B", "S", "D")], mask: T.In[T.i32, ("B", "S"), T.Range(0, 2)],
                 out: T.Out[T.f32, ("B", "D")]):
    B, S, D = h.shape
    toks, dims = T.domain(0, S), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        m = T.cast(mask[b, toks], T.f32)
        total = T.sum(m * T.cast(h[b, toks, dims], T.f32), axis=0)
        out[b, dims] = total / T.maximum(T.sum(m), 1.0)


@tessel.kernel
def csr_rows(indptr: T.In[T.i32, ("M1",)], indices: T.In[T.i32, ("NNZ",), T.Range(0, "N")],
             values: T.In[T.f32, ("NNZ",)], x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("M",)]):
    """CSR SpMV: one ragged range of nonzeros per row, read through indptr."""
    M = y.shape[0]
    nz = T.domain(0, values.shape[0])
    for m in T.parallel(T.domain(0, M)):
        row = nz[indptr[m]:indptr[m + 1]]
        y[m] = T.sum(values[row] * x[indices[row]])


@tessel.kernel
def csr_row_max(indptr: T.In[T.i32, ("M1",)], values: T.In[T.f32, ("NNZ",)], y: T.Out[T.f32, ("M",)]):
    """A max (identity -inf: an empty row stores it) over each row's ragged range."""
    M = y.shape[0]
    nz = T.domain(0, values.shape[0])
    for m in T.parallel(T.domain(0, M)):
        y[m] = T.max(values[nz[indptr[m]:indptr[m + 1]]])


@tessel.kernel
def prefix_column_sums(x: T.In[T.f32, ("R", "D")], out: T.Out[T.f32, ("D",)]):
    """Ragged by position, not data: column d sums rows [0, min(d, R))."""
    R, D = x.shape
    rows = T.domain(0, R)
    for d in T.parallel(T.domain(0, D)):
        out[d] = T.sum(x[rows[0:d], d])


CASES = [
    (column_sums, {"B": 1, "R": 1, "D": 1}),
    (column_sums, {"B": 2, "R": 0, "D": 13}),      # nothing to reduce: the identity
    (column_sums, {"B": 3, "R": 37, "D": 33}),
    (column_sums, {"B": 1, "R": 131, "D": 129}),
    (column_sums_scaled, {"B": 1, "R": 1, "D": 1}),
    (column_sums_scaled, {"B": 2, "R": 0, "D": 13}),
    (column_sums_scaled, {"B": 3, "R": 37, "D": 33}),
    (column_sums_scaled, {"B": 2, "R": 131, "D": 129}),
    (column_max_tail, {"R": 1, "D": 1, "G": 1}),
    (column_max_tail, {"R": 17, "D": 13, "G": 17}),
    (column_max_tail, {"R": 41, "D": 129, "G": 3}),
    (bag_sums, {"V": 1, "D": 1, "NI": 1, "NB": 1}),
    (bag_sums, {"V": 97, "D": 13, "NI": 211, "NB": 31}),
    (bag_sums, {"V": 31, "D": 33, "NI": 0, "NB": 5}),   # every bag empty
    (bag_sums, {"V": 257, "D": 129, "NI": 1009, "NB": 7}),
    (bag_sums_counted, {"V": 1, "D": 1, "NI": 1, "NB": 1}),
    (bag_sums_counted, {"V": 97, "D": 33, "NI": 211, "NB": 31}),
    (bag_sums_counted, {"V": 257, "D": 129, "NI": 0, "NB": 3}),
    (masked_means, {"B": 1, "S": 1, "D": 1}),
    (masked_means, {"B": 3, "S": 7, "D": 13}),
    (masked_means, {"B": 2, "S": 131, "D": 33}),
    (masked_means, {"B": 2, "S": 0, "D": 129}),
    (csr_rows, {"M": 1, "M1": 2, "N": 1, "NNZ": 1}),
    (csr_rows, {"M": 7, "M1": 8, "N": 13, "NNZ": 29}),
    (csr_rows, {"M": 131, "M1": 132, "N": 61, "NNZ": 1031}),   # one row of 600: longer than every block
    (csr_rows, {"M": 257, "M1": 258, "N": 1009, "NNZ": 17}),   # mostly empty rows
    (csr_rows, {"M": 5, "M1": 6, "N": 3, "NNZ": 0}),           # every row empty
    (csr_rows, {"M": 0, "M1": 1, "N": 3, "NNZ": 0}),           # the empty matrix: no program
    (csr_row_max, {"M": 1, "M1": 2, "NNZ": 3}),
    (csr_row_max, {"M": 37, "M1": 38, "NNZ": 211}),
    (prefix_column_sums, {"R": 1, "D": 1}),
    (prefix_column_sums, {"R": 37, "D": 131}),
    (prefix_column_sums, {"R": 131, "D": 33}),
]
IDS = [f"{k.name}-{'-'.join(f'{a}{v}' for a, v in s.items())}" for k, s in CASES]


def sorted_offsets(shapes):
    """Inputs of bag_sums: offsets sorted in [0, NI] starting at 0 (bags may be empty)."""
    rng = np.random.default_rng(7)
    NI, NB, V = shapes["NI"], shapes["NB"], shapes["V"]
    offsets = np.sort(rng.integers(0, NI + 1, size=NB)).astype(np.int32)
    offsets[0] = 0
    return {"offsets": offsets, "indices": rng.integers(0, V, size=NI).astype(np.int32),
            "table": rng.standard_normal((V, shapes["D"])).astype(np.float32)}


def csr_inputs(shapes):
    """Inputs of the CSR kernels: row lengths summing to NNZ, rows 0 (when M > 2) empty and 1 of length 1,
    the longest row (when NNZ > 600) 600 nonzeros, the rest spread unevenly (Dirichlet(0.5))."""
    rng = np.random.default_rng(11)
    M, NNZ = shapes["M"], shapes["NNZ"]
    counts = np.zeros(M, dtype=np.int64)
    rest = NNZ
    if M > 2 and rest > 1:
        counts[1], rest = 1, rest - 1
    if M > 3 and rest > 600:
        counts[M // 2], rest = 600, rest - 600
    free = [i for i in range(M) if counts[i] == 0 and (M <= 2 or i != 0)] or [0]
    if M:  # the empty matrix has no rows (and NNZ = 0)
        counts[free] += rng.multinomial(rest, rng.dirichlet(np.full(len(free), 0.5)))
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    out = {"indptr": indptr, "values": rng.standard_normal(NNZ).astype(np.float32)}
    if "N" in shapes:
        out["indices"] = rng.integers(0, shapes["N"], size=NNZ).astype(np.int32)
        out["x"] = rng.standard_normal(shapes["N"]).astype(np.float32)
    return out


def tiles(kernel, r, c):
    return {"BLOCK_R": r, "BLOCK_C": c}


def given(kernel, shapes):
    if kernel in (csr_rows, csr_row_max):
        return csr_inputs(shapes)
    return sorted_offsets(shapes) if kernel in (bag_sums, bag_sums_counted) else {}


@pytest.mark.parametrize("tile", [(2, 16), (16, 128), (4, 32)])
@pytest.mark.parametrize("kernel,shapes", CASES, ids=IDS)
def test_pgpu_matches_kir(tessel_bin, kernel, shapes, tile):
    inputs = given(kernel, shapes)
    ref = run_stage(tessel_bin, kernel, shapes, "kir", {}, inputs)
    got = run_stage(tessel_bin, kernel, shapes, "pgpu", tiles(kernel, *tile), inputs)
    assert ref.keys() == got.keys()
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("kernel,shapes", CASES, ids=IDS)
def test_triton_matches_kir(kernel, shapes, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    inputs = given(kernel, shapes)
    ref = kernel.run_interp(shapes, seed=5, inputs=inputs) if inputs else kernel.run_interp(shapes, seed=5)
    views = [p for p in kernel.params() if p.kind == "view"]
    args = []
    for p in views:
        if f"{p.name}.in" in ref:
            a = np.array(ref[f"{p.name}.in"])
            t = torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16) if p.name == "h" else torch.from_numpy(a)
            args.append(t)
        else:
            args.append(torch.from_numpy(np.full_like(np.asarray(ref[p.name]), 7)))
    kernel._launcher({}, tiles(kernel, 4, 16))(*args)
    for p, t in zip(views, args):
        if p.name in ref:
            np.testing.assert_allclose(t.float().numpy() if t.is_floating_point() else t.numpy(), ref[p.name], rtol=1e-5, atol=1e-5, err_msg=p.name)


@pytest.mark.parametrize("kernel", [column_sums, column_sums_scaled, column_max_tail, bag_sums, bag_sums_counted,
                                    masked_means], ids=lambda k: k.name)
def test_tiles_not_serial_columns(kernel):
    """The generated Triton holds a [BLOCK_R, BLOCK_C] tile reduced along axis 0 and stores a vector of
    columns; no loop walks the kept axis one column at a time."""
    src = kernel.source("triton")
    body = src[src.index(f"def _{kernel.name}_kernel"):]
    body = body[:body.index("\n\n\n")]
    assert "[:, None]" in body or "expand_dims" in body or "broadcast_to" in body, body
    # along axis 0: tl.sum for a plain sum, tl.reduce with a combine function otherwise
    assert re.search(r"tl\.sum\(v\d+, 0\)|tl\.reduce\(.*, 0, _", body), body
    assert "[16, 128]" in body  # the declared defaults BLOCK_R = 16, BLOCK_C = 128
    assert f"{kernel.name}_PARAMS = {{'BLOCK_C': " in src
    programs = src[src.index(f"def {kernel.name}_PROGRAMS"):]
    programs = programs[:programs.index("\n\n\n")]
    if kernel is bag_sums_counted:  # its program writes more than the kept row: a loop over column blocks
        assert "'BLOCK_C': 'D'" in src[src.index(f"{kernel.name}_COVERS"):] and "BLOCK_C" not in programs
    else:  # the column blocks are programs (a new program axis, or the flattened one): the launch sizes BLOCK_C
        assert "p['BLOCK_C']" in programs


@pytest.mark.parametrize("kernel", [csr_rows, csr_row_max], ids=lambda k: k.name)
def test_ragged_rows_packed(kernel):
    """CSR rows pack BLOCK_C to a program: the program count is ceil(M / BLOCK_C), the longest row of
    the program bounds the walk of its rows (a max over the rows' lengths), BLOCK_R reaches 1024
    candidates; the defaults are 8 rows a program and 16 nonzeros of each a trip."""
    src = kernel.source("triton")
    body = src[src.index(f"def _{kernel.name}_kernel"):]
    body = body[:body.index("\n\n\n")]
    assert "[16, 8]" in body and ("tl.reduce(" in body or "tl.sum(" in body)
    if kernel is csr_row_max:
        assert "tl.maximum(" in src[src.index(f"def _{kernel.name}_combine"):]
    programs = src[src.index(f"def {kernel.name}_PROGRAMS"):]
    assert "p['BLOCK_C']" in programs[:programs.index("\n\n\n")]
    assert "'BLOCK_R': ([2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], 16)" in src
    assert "'BLOCK_C': ([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], 8)" in src


RAGGED = [(k, s) for k, s in CASES if k in (csr_rows, csr_row_max, prefix_column_sums)]


@pytest.mark.parametrize("tile", [(1024, 1), (8, 2), (32, 8)])
@pytest.mark.parametrize("kernel,shapes", RAGGED, ids=[f"{k.name}-{'-'.join(f'{a}{v}' for a, v in s.items())}"
                                                        for k, s in RAGGED])
def test_ragged_narrow_tiles(tessel_bin, kernel, shapes, tile):
    """The bindings a call's default takes for few long segments (one or two members a program, 1024
    members of a segment a tile) compute what the KIR interpreter computes."""
    inputs = given(kernel, shapes)
    ref = run_stage(tessel_bin, kernel, shapes, "kir", {}, inputs)
    got = run_stage(tessel_bin, kernel, shapes, "pgpu", tiles(kernel, *tile), inputs)
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("kernel,shapes", [(csr_rows, {"M": 131, "M1": 132, "N": 61, "NNZ": 1031}),
                                           (csr_row_max, {"M": 1, "M1": 2, "NNZ": 3})], ids=["csr_rows", "csr_row_max"])
def test_ragged_call_defaults_triton(kernel, shapes, tmp_path, monkeypatch):
    """A plain call (its defaults from the call's extents: few rows narrow BLOCK_C, down to one row a
    program) under TRITON_INTERPRET=1 computes what the KIR interpreter computes."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    inputs = given(kernel, shapes)
    ref = kernel.run_interp(shapes, seed=5, inputs=inputs)
    views = [p for p in kernel.params() if p.kind == "view"]
    args = [torch.from_numpy(np.array(ref[f"{p.name}.in"])) if f"{p.name}.in" in ref
            else torch.from_numpy(np.full_like(np.asarray(ref[p.name]), 7)) for p in views]
    kernel(*args)
    for p, t in zip(views, args):
        if p.name in ref:
            np.testing.assert_allclose(t.numpy(), ref[p.name], rtol=1e-5, atol=1e-5, err_msg=p.name)


def power_law_inputs(m, long, n=61):
    """CSR rows with one long row (`long` nonzeros, row m // 2) among rows of 16 and empty rows (every
    third row, and the last): power-law row lengths, a program holding the long row walks far past
    the others (issue 42 follow-up: the ragged path's trips run to the program's longest row)."""
    rng = np.random.default_rng(m * 7 + long)
    counts = np.full(m, 16, dtype=np.int64)
    counts[::3] = 0
    counts[-1] = 0
    counts[m // 2] = long
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    nnz = int(indptr[-1])
    shapes = {"M": m, "M1": m + 1, "N": n, "NNZ": nnz}
    inputs = {"indptr": indptr, "values": rng.standard_normal(nnz).astype(np.float32),
              "indices": rng.integers(0, n, size=nnz).astype(np.int32),
              "x": rng.standard_normal(n).astype(np.float32)}
    return shapes, inputs


POWER_LAW = [(5, 600), (37, 2053), (131, 5000)]


# The tiles' cover is BLOCK_R x BLOCK_C members of a row: 4x16 covers 64 (every long row passes it),
# 16x128 2048 (rows of 2053 and 5000 pass it), 1024x1 1024, 2x4 8 (the rows of 16 pass it too: many
# rows a program take the long-row walk, interleaved with empty and short ones).
@pytest.mark.parametrize("tile", [(4, 16), (16, 128), (1024, 1), (2, 4)])
@pytest.mark.parametrize("m,long", POWER_LAW, ids=[f"M{m}-long{n}" for m, n in POWER_LAW])
@pytest.mark.parametrize("kernel", [csr_rows, csr_row_max], ids=lambda k: k.name)
def test_one_long_row_among_short_pgpu(tessel_bin, kernel, m, long, tile):
    """One long row among short and empty ones: the pgpu interpreter computes what the KIR interpreter
    computes at narrow and wide tiles."""
    shapes, inputs = power_law_inputs(m, long)
    if kernel is csr_row_max:
        shapes = {k: v for k, v in shapes.items() if k != "N"}
        inputs = {k: v for k, v in inputs.items() if k in ("indptr", "values")}
    ref = run_stage(tessel_bin, kernel, shapes, "kir", {}, inputs)
    got = run_stage(tessel_bin, kernel, shapes, "pgpu", tiles(kernel, *tile), inputs)
    assert ref.keys() == got.keys()
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-4, err_msg=name)


@pytest.mark.parametrize("params", [{"BLOCK_R": 4, "BLOCK_C": 16}, {"BLOCK_R": 2, "BLOCK_C": 4}, None],
                         ids=["tile4x16", "tile2x4", "call-defaults"])
@pytest.mark.parametrize("m,long", POWER_LAW, ids=[f"M{m}-long{n}" for m, n in POWER_LAW])
@pytest.mark.parametrize("kernel", [csr_rows, csr_row_max], ids=lambda k: k.name)
def test_one_long_row_among_short_triton(kernel, m, long, params, tmp_path, monkeypatch):
    """The same rows under TRITON_INTERPRET=1, at a narrow tile and at a plain call's defaults."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    shapes, inputs = power_law_inputs(m, long)
    if kernel is csr_row_max:
        shapes = {k: v for k, v in shapes.items() if k != "N"}
        inputs = {k: v for k, v in inputs.items() if k in ("indptr", "values")}
    ref = kernel.run_interp(shapes, seed=5, inputs=inputs)
    views = [p for p in kernel.params() if p.kind == "view"]
    args = [torch.from_numpy(np.array(ref[f"{p.name}.in"])) if f"{p.name}.in" in ref
            else torch.from_numpy(np.full_like(np.asarray(ref[p.name]), 7)) for p in views]
    if params is None:
        kernel(*args)
    else:
        kernel._launcher({}, params)(*args)
    for p, t in zip(views, args):
        if p.name in ref:
            np.testing.assert_allclose(t.numpy(), ref[p.name], rtol=1e-5, atol=1e-4, err_msg=p.name)


def cover_edge_inputs(r, c, n=29):
    """CSR rows around the tiles' cover (r x c members): lengths cover - 1, cover, cover + 1, 0, 2 x cover
    + 3, 1 and 3 x cover, repeated over 3 blocks of c rows with the last block partial (M = 2c + 3), so
    every program holds rows at, below and past the cover, and one holds none past it."""
    cover = r * c
    pattern = [cover - 1, cover, cover + 1, 0, 2 * cover + 3, 1, 3 * cover]
    m = 2 * c + 3
    counts = np.array([pattern[i % len(pattern)] for i in range(m)], dtype=np.int64)
    counts[c:2 * c] = np.minimum(counts[c:2 * c], cover)  # the second block: nothing past the cover
    rng = np.random.default_rng(r * 1000 + c)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    nnz = int(indptr[-1])
    shapes = {"M": m, "M1": m + 1, "N": n, "NNZ": nnz}
    inputs = {"indptr": indptr, "values": rng.standard_normal(nnz).astype(np.float32),
              "indices": rng.integers(0, n, size=nnz).astype(np.int32),
              "x": rng.standard_normal(n).astype(np.float32)}
    return shapes, inputs


@pytest.mark.parametrize("tile", [(2, 4), (4, 8), (8, 1), (2, 1)])
@pytest.mark.parametrize("kernel", [csr_rows, csr_row_max], ids=lambda k: k.name)
def test_rows_at_the_cover_pgpu(tessel_bin, kernel, tile):
    """Rows one short of, at and one past the tiles' cover (BLOCK_R x BLOCK_C), and far past it: the
    tiles take a row up to the cover, the long-row walk the rest; a block with no row past the cover
    skips the walk. The pgpu interpreter computes what the KIR interpreter computes."""
    shapes, inputs = cover_edge_inputs(*tile)
    if kernel is csr_row_max:
        shapes = {k: v for k, v in shapes.items() if k != "N"}
        inputs = {k: v for k, v in inputs.items() if k in ("indptr", "values")}
    ref = run_stage(tessel_bin, kernel, shapes, "kir", {}, inputs)
    got = run_stage(tessel_bin, kernel, shapes, "pgpu", tiles(kernel, *tile), inputs)
    assert ref.keys() == got.keys()
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-4, err_msg=name)


@pytest.mark.parametrize("tile", [(2, 4), (4, 8)])
@pytest.mark.parametrize("kernel", [csr_rows, csr_row_max], ids=lambda k: k.name)
def test_rows_at_the_cover_triton(kernel, tile, tmp_path, monkeypatch):
    """The same rows under TRITON_INTERPRET=1."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    shapes, inputs = cover_edge_inputs(*tile)
    if kernel is csr_row_max:
        shapes = {k: v for k, v in shapes.items() if k != "N"}
        inputs = {k: v for k, v in inputs.items() if k in ("indptr", "values")}
    ref = kernel.run_interp(shapes, seed=5, inputs=inputs)
    views = [p for p in kernel.params() if p.kind == "view"]
    args = [torch.from_numpy(np.array(ref[f"{p.name}.in"])) if f"{p.name}.in" in ref
            else torch.from_numpy(np.full_like(np.asarray(ref[p.name]), 7)) for p in views]
    kernel._launcher({}, tiles(kernel, *tile))(*args)
    for p, t in zip(views, args):
        if p.name in ref:
            np.testing.assert_allclose(t.numpy(), ref[p.name], rtol=1e-5, atol=1e-4, err_msg=p.name)


def test_long_row_walk_in_source():
    """Ranges ragged by position (rows[0:d], members read bare: no positions to walk) keep the member
    tiles: the generated Triton bounds them by the cover and walks ranges past it in a branch (the
    block's longest range compared with BLOCK_R x BLOCK_C, a loop over the block's members extracting
    each one's length, the range's rest in [BLOCK_R, BLOCK_C] tiles of consecutive members)."""
    src = prefix_column_sums.source("triton")
    body = src[src.index("def _prefix_column_sums_kernel"):]
    body = body[:body.index("\n\n\n")]
    assert "tl.minimum(" in body and " if " in body and "else:" in body
    assert "_prefix_column_sums_pick)" in body


def meta_views(kernel, sizes):
    """Shape-only (meta) tensors of `kernel`'s views at `sizes`: what a call's defaults read."""
    torch = pytest.importorskip("torch")
    dtypes = {"i32": torch.int32, "f32": torch.float32, "bf16": torch.bfloat16}
    return [torch.empty([sizes[e] if isinstance(e, str) else e for e in p.spec.extents],
                        dtype=dtypes[str(p.spec.dtype)], device="meta")
            for p in kernel.params() if p.kind == "view"]


@pytest.mark.parametrize("m,nnz,tile", [
    (1 << 20, 16 << 20, (16, 8)),     # rows of 16 on average: the declared tile, 16 lanes a row
    (1 << 20, 2 << 20, (8, 16)),      # rows of 2: at most 16 rows a program, 8 lanes each
    (1 << 20, 100 << 20, (128, 1)),   # rows of 100: one a program, 128 lanes
    (65536, 16 << 20, (256, 1)),      # rows of 256
    (1000, 16000000, (1024, 1)),      # rows of 16000: one a program, 1000 programs
    (100, 1600, (16, 1)),             # fewer rows than multiprocessors: one a program
    (7, 29, (8, 1)),
    (5, 0, (8, 1)),                   # every row empty
], ids=lambda v: str(v))
def test_ragged_defaults_follow_the_average_row(m, nnz, tile):
    """A CSR call's defaults: BLOCK_R the smallest candidate at least the average row (NNZ / M) and at
    least the declared tile's 128 lanes over SEGMENTS_A_PROGRAM (16) rows, BLOCK_C the rows that fill
    the declared tile, narrowed to fill the device; the kernel states the fact (`<kernel>_SEGMENTS`)."""
    src = csr_rows.source("triton")
    assert "csr_rows_SEGMENTS = {'across': 'BLOCK_C', 'along': 'BLOCK_R', 'count': 'M', 'pool': 'NNZ'}" in src
    got = csr_rows.call_defaults(*meta_views(csr_rows, {"M": m, "M1": m + 1, "N": 1 << 20, "NNZ": nnz}))
    assert (got["BLOCK_R"], got["BLOCK_C"]) == tile, got


def test_ragged_by_position_states_no_segments():
    """Ranges ragged by position (rows[0:d]) read no lengths: no segments fact, so a call's defaults come
    from the other rules (the declared BLOCK_R where the programs fill the device)."""
    src = prefix_column_sums.source("triton")
    assert "_SEGMENTS" not in src
    got = prefix_column_sums.call_defaults(*meta_views(prefix_column_sums, {"R": 4096, "D": 1 << 20}))
    assert got["BLOCK_R"] == 16, got


# Segments that all start at 0 and overlap: each row's lanes walk its own range.
@tessel.kernel
def weight_prefixes(lens: T.In[T.i32, ("M",)], w: T.In[T.f32, ("K",)], y: T.Out[T.f32, ("M",)]):
    """Each row sums the first lens[m] weights: segments [0, lens[m]) that all start at 0 (they overlap)."""
    M = y.shape[0]
    ks = T.domain(0, w.shape[0])
    for m in T.parallel(T.domain(0, M)):
        y[m] = T.sum(w[ks[0:lens[m]]])


def skewed_inputs(m, nnz, n=61, seed=0):
    """CSR rows of power-law length (Dirichlet(0.5) shares of NNZ, as the corpus kernel's inputs): most
    rows short, a few many times the average, some empty."""
    rng = np.random.default_rng(seed * 131 + m * 7 + nnz)
    counts = rng.multinomial(nnz, rng.dirichlet(np.full(m, 0.5))) if m > 1 else np.array([nnz])
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    shapes = {"M": m, "M1": m + 1, "N": n, "NNZ": nnz}
    inputs = {"indptr": indptr, "values": rng.standard_normal(nnz).astype(np.float32),
              "indices": rng.integers(0, n, size=nnz).astype(np.int32),
              "x": rng.standard_normal(n).astype(np.float32)}
    return shapes, inputs


def scrambled_inputs(m, nnz, n=13, seed=0):
    """Offsets that are no CSR at all: random in [-3, NNZ + 3], so segments overlap, leave gaps, run
    backwards (empty) and pass the ends (clamped). The positions between segments hold indices past N:
    a read there would be out of bounds, so only the positions some segment holds may be read."""
    rng = np.random.default_rng(seed * 17 + m + nnz)
    indptr = rng.integers(-3, nnz + 4, size=m + 1).astype(np.int32)
    covered = np.zeros(nnz, dtype=bool)
    for i in range(m):
        lo, hi = max(int(indptr[i]), 0), min(int(indptr[i + 1]), nnz)
        covered[lo:max(hi, lo)] = True
    indices = np.where(covered, rng.integers(0, n, size=nnz), 1 << 30).astype(np.int32)
    shapes = {"M": m, "M1": m + 1, "N": n, "NNZ": nnz}
    inputs = {"indptr": indptr, "values": rng.standard_normal(nnz).astype(np.float32), "indices": indices,
              "x": rng.standard_normal(n).astype(np.float32)}
    return shapes, inputs


def max_inputs(shapes, inputs):
    return ({k: v for k, v in shapes.items() if k != "N"},
            {k: v for k, v in inputs.items() if k in ("indptr", "values")})


SKEWED = [(1, 0), (1, 37), (2, 0), (3, 1), (13, 97), (131, 1031), (257, 4099)]


@pytest.mark.parametrize("tile", [(2, 1), (8, 8), (128, 8), (16, 128), (1024, 1), (4, 32)])
@pytest.mark.parametrize("m,nnz", SKEWED, ids=[f"M{m}-NNZ{n}" for m, n in SKEWED])
@pytest.mark.parametrize("kernel", [csr_rows, csr_row_max], ids=lambda k: k.name)
def test_ragged_walk_skewed_pgpu(tessel_bin, kernel, m, nnz, tile):
    """Rows of power-law length, empty rows, M = 1, NNZ = 0 and primes, at tiles narrower and wider than
    the rows and the programs' nonzeros: the pgpu interpreter computes what the KIR interpreter computes."""
    shapes, inputs = skewed_inputs(m, nnz)
    if kernel is csr_row_max:
        shapes, inputs = max_inputs(shapes, inputs)
    ref = run_stage(tessel_bin, kernel, shapes, "kir", {}, inputs)
    got = run_stage(tessel_bin, kernel, shapes, "pgpu", tiles(kernel, *tile), inputs)
    assert ref.keys() == got.keys()
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-4, err_msg=name)


@pytest.mark.parametrize("tile", [(2, 1), (4, 8), (16, 4)])
@pytest.mark.parametrize("m,nnz", [(1, 5), (7, 29), (31, 97)], ids=lambda v: str(v))
@pytest.mark.parametrize("kernel", [csr_rows, csr_row_max], ids=lambda k: k.name)
def test_ragged_walk_scrambled_offsets_pgpu(tessel_bin, kernel, m, nnz, tile):
    """Offsets that overlap, leave gaps, run backwards or pass the ends: each row still sums exactly its
    own clamped range, and no position outside every range is read (the indices there are out of
    bounds)."""
    shapes, inputs = scrambled_inputs(m, nnz)
    if kernel is csr_row_max:
        shapes, inputs = max_inputs(shapes, inputs)
    ref = run_stage(tessel_bin, kernel, shapes, "kir", {}, inputs)
    got = run_stage(tessel_bin, kernel, shapes, "pgpu", tiles(kernel, *tile), inputs)
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-4, err_msg=name)


@pytest.mark.parametrize("tile", [(2, 1), (8, 8), (16, 128)])
@pytest.mark.parametrize("m,k", [(1, 1), (7, 13), (37, 131)], ids=lambda v: str(v))
def test_ragged_walk_overlapping_segments_pgpu(tessel_bin, m, k, tile):
    """Segments that all start at position 0 (the first lens[m] weights): every position belongs to
    several rows and is added into each."""
    rng = np.random.default_rng(m + k)
    inputs = {"lens": rng.integers(-2, k + 3, size=m).astype(np.int32), "w": rng.standard_normal(k).astype(np.float32)}
    shapes = {"M": m, "K": k}
    ref = run_stage(tessel_bin, weight_prefixes, shapes, "kir", {}, inputs)
    got = run_stage(tessel_bin, weight_prefixes, shapes, "pgpu", tiles(weight_prefixes, *tile), inputs)
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-4, err_msg=name)


@pytest.mark.parametrize("params", [{"BLOCK_R": 4, "BLOCK_C": 8}, {"BLOCK_R": 32, "BLOCK_C": 1}, None],
                         ids=["tile4x8", "tile32x1", "call-defaults"])
@pytest.mark.parametrize("m,nnz,scrambled", [(1, 0, False), (131, 1031, False), (257, 4099, False), (31, 97, True)],
                         ids=lambda v: str(v))
@pytest.mark.parametrize("kernel", [csr_rows, csr_row_max], ids=lambda k: k.name)
def test_ragged_walk_triton(kernel, m, nnz, scrambled, params, tmp_path, monkeypatch):
    """The same walk in the generated Triton under TRITON_INTERPRET=1, at fixed tiles and a plain call's
    defaults."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    shapes, inputs = (scrambled_inputs if scrambled else skewed_inputs)(m, nnz)
    if kernel is csr_row_max:
        shapes, inputs = max_inputs(shapes, inputs)
    ref = kernel.run_interp(shapes, seed=5, inputs=inputs)
    views = [p for p in kernel.params() if p.kind == "view"]
    args = [torch.from_numpy(np.array(ref[f"{p.name}.in"])) if f"{p.name}.in" in ref
            else torch.from_numpy(np.full_like(np.asarray(ref[p.name]), 7)) for p in views]
    if params is None:
        kernel(*args)
    else:
        kernel._launcher({}, params)(*args)
    for p, t in zip(views, args):
        if p.name in ref:
            np.testing.assert_allclose(t.numpy(), ref[p.name], rtol=1e-5, atol=1e-4, err_msg=p.name)


def test_member_walk_in_source():
    """CSR rows walk their own ranges (issue 42): the loop runs to the program's longest row (a max over
    its [BLOCK_C] lengths, before the loop) in steps of BLOCK_R; in the loop the nonzeros are read as
    [BLOCK_R, BLOCK_C] tiles masked by lane < length of their own row (no cross-lane reduction in the
    loop builds the mask); rows past the tile's cover finish in the long-row walk."""
    src = csr_rows.source("triton")
    body = src[src.index("def _csr_rows_kernel"):]
    body = body[:body.index("\n\n\n")]
    loop = body[body.index("    for "):]
    loop = loop[:loop.index("\n    v", loop.index("\n") + 1)]  # the first loop's body, up to its end
    assert "tl.reduce(" not in loop and "tl.sum(" not in loop and "tl.max(" not in loop, loop
    loads = [line for line in loop.splitlines() if "tl.load(values" in line or "tl.load(x" in line]
    assert len(loads) == 2, loop
    assert "_csr_rows_pick" in body  # the long-row walk
    assert "'walk'" not in src[src.index("csr_rows_SEGMENTS"):]
