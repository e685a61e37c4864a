"""The ragged grouped GEMM whose group bounds are read as scalars (`rows[offsets[e]:offsets[e + 1]]`,
corpus 06's spelling; examples/grouped_gemm.py reads them through a running max instead): its tiles are
boxes at a runtime position (pgpu.load, pgpu-form-tiles, seed 000 §6), so pgpu-neutralize-boundaries
widens the rows' mask to the view's bound (the write is a unique scatter) and Triton spells the tiles
as tensor descriptors, as for the example (issue 41: one algorithm, two spellings).

Differential: the pgpu interpreter after the whole pipeline (small tiles, programs in shuffled order)
against the KIR interpreter, and the Triton source under TRITON_INTERPRET=1 (pointer and forced
descriptor spellings) against a NumPy reference, on random nonzero inputs at odd shapes: empty groups
(first, between, last), a group of one row, primes, sizes that are no multiple of any tile, rows that
belong to no group (left as they were), offsets past M (clamped by the subregion).
"""
import importlib.util
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

SMALL = ["--param=TILE_1=16", "--param=TILE_2=16", "--param=TILE_K=16", "--param=GROUP_1=2"]


@tessel.kernel
def moe_gemm(x: T.In[T.f16, ("M", "K")], w: T.In[T.f16, ("E", "K", "N")], offsets: T.In[T.i32, ("E1",)],
             y: T.InOut[T.f32, ("M", "N")]):
    M, K = x.shape
    E, N = w.shape[0], w.shape[2]
    rows, cols, ks = T.domain(0, M), T.domain(0, N), T.domain(0, K)
    for e in T.parallel(T.domain(0, E)):
        mine = rows[offsets[e]:offsets[e + 1]]
        y[mine, cols] = T.matmul(x[mine, ks], w[e, ks, cols], acc_dtype=T.f32)


def reference(x, w, offsets, y):
    out = np.array(y, dtype=np.float64)
    m = x.shape[0]
    for e in range(w.shape[0]):
        lo, hi = max(int(offsets[e]), 0), min(int(offsets[e + 1]), m)
        if lo < hi:
            out[lo:hi] = x[lo:hi].astype(np.float64) @ w[e].astype(np.float64)
    return out


# (M, N, K, offsets): ordered offsets (groups disjoint); rows past the last group keep y's values
CASES = [
    (37, 5, 7, [0, 0, 1, 1, 18, 29]),    # empty first and between, a group of one row, untouched tail
    (29, 7, 5, [0, 13, 13, 29, 29]),     # primes, an empty last group, no tail
    (41, 17, 3, [3, 20, 41, 60]),        # rows before the first group, the last past M (clamped)
    (1, 1, 1, [0, 1]),                   # one row
]


def _inputs(rng, m, n, k, offs):
    e = len(offs) - 1
    x = rng.uniform(0.25, 1, (m, k)) * rng.choice([-1, 1], (m, k))
    w = rng.uniform(0.25, 1, (e, k, n)) * rng.choice([-1, 1], (e, k, n))
    y = rng.uniform(0.25, 1, (m, n)) * rng.choice([-1, 1], (m, n))
    return x.astype(np.float16), w.astype(np.float16), np.array(offs, dtype=np.int32), y.astype(np.float32)


def _compile(tessel_bin, tmp_path, *args):
    kir = tmp_path / "moe.kir.mlir"
    kir.write_text(moe_gemm.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(kir), *args], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return kir, res


def test_tiles_are_boxes_and_rows_neutralized(tessel_bin, tmp_path):
    # Before: both operand tiles were pgpu.gather (a tile index decomposed by the offsets' tile count),
    # so no row mask was widened and no tensor descriptor made.
    _, res = _compile(tessel_bin, tmp_path, "--emit=pgpu", "--target=triton")
    text = res.stdout
    assert "pgpu.gather" not in text, text
    assert "pgpu.load %x[" in text and "pgpu.load %w[" in text
    assert "pgpu.scatter" in text  # the rows' write: offsets need not be ordered
    _, res = _compile(tessel_bin, tmp_path, "--emit=source", "--target=triton")
    src = res.stdout
    assert "# _desc0: x's [128, 64] boxes of shape [_extent_M, _extent_K]" in src
    assert "# _desc1: w's [1, 64, 256] boxes" in src
    params = next(line for line in src.splitlines() if line.startswith("moe_gemm_PARAMS = "))
    assert "'TMA': ([0, 1], 1)" in params, params


@pytest.mark.parametrize("case", range(len(CASES)))
def test_pgpu_matches_kir_with_small_tiles(tessel_bin, tmp_path, case):
    m, n, k, offs = CASES[case]
    x, w, o, y = _inputs(np.random.default_rng(case), m, n, k, offs)
    kir, _ = _compile(tessel_bin, tmp_path, "--emit=pgpu", "-o", str(tmp_path / "moe.pgpu.mlir"))
    for name, arr in (("x", x), ("w", w), ("offsets", o), ("y", y)):
        np.save(tmp_path / f"{name}.npy", arr)
    ins = [f"--in={name}={tmp_path / name}.npy" for name in ("x", "w", "offsets", "y")]
    shape = f"M={m},N={n},K={k},E={len(offs) - 1},E1={len(offs)}"
    outs = {}
    for stage, source, extra in (("kir", kir, ["--stage", "kir"]),
                                 ("pgpu", tmp_path / "moe.pgpu.mlir", SMALL + ["--order", "shuffle"])):
        out = tmp_path / stage
        run = subprocess.run([str(tessel_bin), "run", str(source), "--shape", shape, *ins, "--out", str(out), *extra],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        outs[stage] = np.load(out / "y.npy")
    np.testing.assert_allclose(outs["pgpu"], outs["kir"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(outs["kir"], reference(x, w, o, y), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("tma", [0, 1])
def test_triton_interpreter_matches_the_reference(tessel_bin, tmp_path, monkeypatch, tma):
    # TMA = 1: x's rows are boxes of the whole [M, K] view at (group start + tile row, k), rows past the
    # group read (the scatter masks them off) and rows past M zero; w's boxes fix the group axis. The
    # descriptor spelling is forced (the wrapper never takes it under TRITON_INTERPRET); K and N keep
    # the views 16-byte aligned there (multiples of 8 for f16).
    torch = pytest.importorskip("torch")
    source = tmp_path / f"moe{tma}.py"
    _compile(tessel_bin, tmp_path, "--target=triton", "--emit=source", *SMALL, f"--param=TMA={tma}",
             "-o", str(source))
    spec = importlib.util.spec_from_file_location(f"moe{tma}", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seen = None
    if tma:
        from conftest import force_descriptors
        seen = force_descriptors(monkeypatch, module.moe_gemm, "moe_gemm")
        cases = [(37, 8, 24, [0, 0, 1, 1, 18, 29]), (23, 8, 16, [2, 13, 13, 40])]
    else:
        cases = CASES
    rng = np.random.default_rng(5 + tma)
    for m, n, k, offs in cases:
        x, w, o, y = _inputs(rng, m, n, k, offs)
        yt = torch.from_numpy(y.copy())
        module.moe_gemm(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(o), yt)
        if seen is not None:
            assert seen["USE_TMA"] is True
        np.testing.assert_allclose(yt.numpy(), reference(x, w, o, y), rtol=1e-5, atol=1e-5,
                                   err_msg=f"M={m} N={n} K={k} offsets={offs} TMA={tma}")
