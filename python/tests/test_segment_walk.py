"""The ragged grouped GEMM's segment walk (pgpu-form-tiles) and its narrowed zero tail
(pgpu-narrow-guarded-worksets), at odd shapes and small tiles so that segments span several tiles,
tiles straddle segment ends, and programs outnumber tiles or take several.

Against the KIR interpreter (the pgpu interpreter after the whole pipeline, the same random inputs),
and under TRITON_INTERPRET=1 against examples/grouped_gemm.py's NumPy reference with offsets chosen
to hold empty groups (first, between, last), a group of one row, prime sizes, sizes that are not
multiples of any tile, offsets out of order or past M, and a zero tail.
"""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

SMALL = ["--param=TILE_1=16", "--param=TILE_2=16", "--param=TILE_K=16", "--param=GROUP_1=2"]


@pytest.fixture(scope="module")
def grouped(root):
    sys.path.insert(0, str(root / "examples"))
    import grouped_gemm
    return grouped_gemm


def test_the_example_is_walked_in_segments_and_its_tail_narrowed(tessel_bin, root):
    res = subprocess.run([str(tessel_bin), "compile", str(root / "examples" / "grouped_gemm.py") + ":grouped_gemm",
                          "--emit=pgpu", "--remarks"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "pgpu-form-tiles: tiled a contraction nest" in res.stderr and "segment walk" in res.stderr
    assert "pgpu-narrow-guarded-worksets: the workset walks only the members its guard admits" in res.stderr
    assert 'roles ["segment walk"]' in res.stdout and "pgpu.contract" in res.stdout


def _pgpu_against_kir(tessel_bin, tmp_path, kir, pgpu, shape, offs):
    """C of the pgpu program `pgpu` (small tiles, program instances in shuffled order) against the KIR
    interpreter's, on the same random inputs."""
    outs = {}
    for stage, source, extra in (("kir", kir, ["--stage", "kir"]), ("pgpu", pgpu, SMALL + ["--order", "shuffle"])):
        out = tmp_path / stage
        run = subprocess.run([str(tessel_bin), "run", str(source), "--shape", shape, "--range", f"offs={offs}",
                              "--out", str(out), *extra], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        outs[stage] = np.load(out / "c.npy")
    np.testing.assert_allclose(outs["pgpu"], outs["kir"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape,offs", [
    ("M=37,N=5,K=7,G=4", "-3:M"), ("M=97,N=41,K=17,G=7", "0:M"), ("M=1,N=1,K=1,G=1", "0:2"),
    ("M=13,N=3,K=0,G=3", "-3:M"),
])
def test_pgpu_matches_kir_with_small_tiles(tessel_bin, grouped, tmp_path, shape, offs):
    kir = tmp_path / "grouped.kir.mlir"
    kir.write_text(grouped.grouped_gemm.kir())
    pgpu = tmp_path / "grouped.pgpu.mlir"
    res = subprocess.run([str(tessel_bin), "compile", str(kir), "--emit=pgpu", "-o", str(pgpu)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    _pgpu_against_kir(tessel_bin, tmp_path, kir, pgpu, shape, offs)


@pytest.mark.parametrize("shape,offs", [
    ("M=37,N=5,K=7,G=4", "-3:M"), ("M=97,N=41,K=17,G=7", "0:M"), ("M=13,N=3,K=0,G=3", "-3:M"),
])
def test_dynamic_walk_matches_kir(tessel_bin, grouped, tmp_path, shape, offs):
    # pgpu-dynamic-walk (Triton's pipeline runs it): tiles taken from a workspace counter, under the pgpu
    # interpreter with the program instances in shuffled order, against the KIR interpreter.
    kir = tmp_path / "grouped.kir.mlir"
    kir.write_text(grouped.grouped_gemm.kir())
    pgpu, walked = tmp_path / "grouped.pgpu.mlir", tmp_path / "walked.pgpu.mlir"
    res = subprocess.run([str(tessel_bin), "compile", str(kir), "--emit=pgpu", "-o", str(pgpu)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(pgpu), "-pgpu-dynamic-walk", "-o", str(walked)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "pgpu.atomic_rmw add" in walked.read_text() and "pgpu.while" in walked.read_text()
    _pgpu_against_kir(tessel_bin, tmp_path, kir, walked, shape, offs)


def test_triton_interpreter_matches_the_reference(tessel_bin, root, grouped, tmp_path):
    torch = pytest.importorskip("torch")
    source = tmp_path / "grouped16.py"
    res = subprocess.run([str(tessel_bin), "compile", str(root / "examples" / "grouped_gemm.py") + ":grouped_gemm",
                          "--target=triton", "--emit=source", *SMALL, "-o", str(source)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    spec = importlib.util.spec_from_file_location("grouped16", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(7)
    cases = [  # (M, N, K, offs)
        (37, 5, 7, [0, 1, 1, 18, 29]),        # empty first and between, a group of one row, a zero tail
        (29, 7, 5, [13, 13, 29, 29]),         # prime sizes, an empty last group, no tail
        (41, 17, 3, [40, 20, 41, 60]),        # out of order (an empty group) and past M (clamped)
        (1, 1, 1, [0]),                       # one row, all tail
    ]
    for m, n, k, offs in cases:
        g = len(offs)
        a = torch.from_numpy(rng.uniform(0.25, 1, (m, k)) * rng.choice([-1, 1], (m, k))).half()
        b = torch.from_numpy(rng.uniform(0.25, 1, (g, k, n)) * rng.choice([-1, 1], (g, k, n))).half()
        o = np.array(offs, dtype=np.int32)
        c = torch.full((m, n), 7.0)  # every element is written: the groups' rows, then the tail's zeros
        module.grouped_gemm(a, b, torch.from_numpy(o), c)
        want = grouped.reference(a.numpy(), b.numpy(), o)
        np.testing.assert_allclose(c.numpy(), want, rtol=1e-5, atol=1e-5, err_msg=f"M={m} N={n} K={k} offs={offs}")


def test_tensor_descriptors_match_the_reference(tessel_bin, root, grouped, tmp_path, monkeypatch):
    # With TMA = 1 the groups' A rows are boxes of the whole [M, K] view at (group start + tile row, k):
    # pgpu-neutralize-boundaries turned their row mask into the view's bound, since the rows past a
    # group's end feed only accumulator rows the store masks off. B's boxes fix the group axis
    # ([1, TILE_K, TILE_2] boxes of [G, K, N]). Triton's interpreter runs the descriptor spelling here
    # (forced: the wrapper never takes it under TRITON_INTERPRET); rows past M and past K read zero.
    # Extents keep the views 16-byte aligned (K, N multiples of 8 for f16), so USE_TMA holds.
    torch = pytest.importorskip("torch")
    from conftest import force_descriptors
    source = tmp_path / "grouped16tma.py"
    res = subprocess.run([str(tessel_bin), "compile", str(root / "examples" / "grouped_gemm.py") + ":grouped_gemm",
                          "--target=triton", "--emit=source", *SMALL, "--param=TMA=1", "-o", str(source)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    text = source.read_text()
    assert "# _desc0: a's [16, 16] boxes of shape [_extent_M, _extent_K]" in text  # made on the host
    assert "# _desc1: b's [1, 16, 16] boxes" in text  # B's box fixes the group axis
    spec = importlib.util.spec_from_file_location("grouped16tma", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seen = force_descriptors(monkeypatch, module.grouped_gemm, "grouped_gemm")
    rng = np.random.default_rng(11)
    # empty first and between groups, a group of one row and a zero tail; an empty last group, offsets
    # out of order and past M (clamped)
    for m, n, k, offs in [(37, 8, 24, [0, 1, 1, 18, 29]), (23, 8, 16, [13, 40, 7, 23])]:
        g = len(offs)
        a = torch.from_numpy(rng.uniform(0.25, 1, (m, k)) * rng.choice([-1, 1], (m, k))).half()
        b = torch.from_numpy(rng.uniform(0.25, 1, (g, k, n)) * rng.choice([-1, 1], (g, k, n))).half()
        o = np.array(offs, dtype=np.int32)
        c = torch.full((m, n), 7.0)
        module.grouped_gemm(a, b, torch.from_numpy(o), c)
        assert seen["USE_TMA"] is True
        want = grouped.reference(a.numpy(), b.numpy(), o)
        np.testing.assert_allclose(c.numpy(), want, rtol=1e-5, atol=1e-5, err_msg=f"M={m} N={n} K={k} offs={offs}")


def test_segment_walk_defaults(tessel_bin, root):
    # Triton legalization's defaults for a contraction tiled in a segment walk (TritonLegalize.cpp): the
    # tile grows to 128 x 256 like a dense GEMM's (with the dynamic walk's tiles taken in order it ran
    # 1.76 ms against 1.87 at 128 x 128 on the H200), the boxes are tensor descriptors (TMA = 1 although
    # B's box has a fixed group axis: resident programs make their descriptors once) and the pipeline
    # takes the deepest that fits, 4 stages (the walk's limit is 5; C is stored with pointers).
    res = subprocess.run([str(tessel_bin), "compile", str(root / "examples" / "grouped_gemm.py") + ":grouped_gemm",
                          "--target=triton", "--emit=source"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    params = next(line for line in res.stdout.splitlines() if line.startswith("grouped_gemm_PARAMS = "))
    for want in ("'TILE_1': ([16, 32, 64, 128, 256], 128)", "'TILE_2': ([16, 32, 64, 128, 256], 256)",
                 "'STAGES': ([1, 2, 3, 4, 5, 6], 4)", "'TMA': ([0, 1], 1)", "'WARPS': ([1, 2, 4, 8, 16], 8)"):
        assert want in params, params
