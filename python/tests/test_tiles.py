"""Multi-axis tiles (pgpu-form-tiles) against the KIR interpreter.

Contraction nests become TILE_0 x TILE_1 programs (grouped GROUP_0 row tiles at a time) looping
over TILE_K blocks of k into a pgpu.contract accumulator. At odd shapes (0, 1, primes, extents that
are not multiples of any tile) and several bindings of every tile parameter, the pgpu interpreter
must compute what the KIR interpreter computes; under the shuffled program order it also checks
that no two programs write the same element (a wrong grouped traversal would). The generated Triton
(tl.dot) runs under TRITON_INTERPRET=1 with small tiles at the same odd shapes, also with its box
accesses spelled as tensor descriptors (TMA) and with the persistent walk flattened.
"""
import os
import subprocess

import re

import numpy as np
import pytest

from conftest import force_descriptors

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

SHAPES = [{"M": 37, "N": 45, "K": 29}, {"M": 1, "N": 1, "K": 1}, {"M": 17, "N": 3, "K": 0}, {"M": 0, "N": 5, "K": 7},
          {"M": 33, "N": 16, "K": 48}]
BINDINGS = [{}, {"TILE_0": 16, "TILE_1": 32, "TILE_K": 16, "GROUP_0": 2},
            {"TILE_0": 32, "TILE_1": 16, "TILE_K": 32, "GROUP_0": 1},
            {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "GROUP_0": 4}]


def run(tessel, path, shapes, stage, params, order="forward", seed=3):
    import tempfile
    with tempfile.TemporaryDirectory() as out:
        cmd = [str(tessel), "run", str(path), "--stage", stage, "--seed", str(seed), "--order", order,
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()), "--out", out]
        for k, v in params.items():
            cmd += ["--param", f"{k}={v}"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        return {p[:-4]: np.load(os.path.join(out, p)) for p in os.listdir(out) if not p.endswith(".in.npy")}


@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
@pytest.mark.parametrize("params", BINDINGS, ids=lambda p: "-".join(f"{k}{v}" for k, v in p.items()) or "defaults")
def test_tiled_gemm_matches_kir(tessel_bin, root, shapes, params):
    path = root / "examples" / "kir" / "gemm.mlir"
    ref = run(tessel_bin, path, shapes, "kir", {})
    got = run(tessel_bin, path, shapes, "pgpu", params, order="shuffle")
    np.testing.assert_allclose(got["c"], ref["c"], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("params", BINDINGS[1:], ids=lambda p: "-".join(f"{k}{v}" for k, v in p.items()))
def test_tiled_batched_gemm_matches_kir(tessel_bin, root, params):
    # The batch axis stays a scalar program axis: the m/n parameters are axes 1 and 2 here.
    renamed = {"TILE_1": params["TILE_0"], "TILE_2": params["TILE_1"], "TILE_K": params["TILE_K"],
               "GROUP_1": params["GROUP_0"]}
    path = root / "examples" / "kir" / "batched_gemm.mlir"
    shapes = {"B": 3, "M": 19, "N": 23, "K": 37}
    ref = run(tessel_bin, path, shapes, "kir", {})
    got = run(tessel_bin, path, shapes, "pgpu", renamed, order="shuffle")
    np.testing.assert_allclose(got["c"], ref["c"], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("constexprs", [{}, {"HAS_BIAS": True, "ACTIVATION": "relu"}, {"ACTIVATION": "sigmoid"}],
                         ids=str)
@pytest.mark.parametrize("shapes", SHAPES[:3], ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_tiled_gemm_runs_through_triton(shapes, constexprs, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    kernel = example("gemm")
    params = {"TILE_0": 16, "TILE_1": 32, "TILE_K": 16, "GROUP_0": 2}
    source = kernel.source("triton", constexprs, params)
    assert "tl.dot(" in source and "tl.permute(" in source
    ref = kernel.run_interp(shapes, constexprs=constexprs, seed=5)
    a, b, bias = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("a", "b", "bias"))
    c = torch.empty(ref["c"].shape, dtype=torch.float32)
    kernel._launcher(constexprs, params)(a, b, bias, c)
    np.testing.assert_allclose(c.numpy(), ref["c"], rtol=1e-5, atol=2e-5)


# More tiles than resident programs (13 x 14 tiles of 16 > 132 multiprocessors x PERSIST 1): some
# programs walk two tiles, others one; PERSIST 2 gives every tile its own program again.
PERSISTENT = {"M": 197, "N": 211, "K": 5}


@pytest.mark.parametrize("persist", [1, 2])
def test_persistent_tile_walk_matches_kir(tessel_bin, root, persist):
    path = root / "examples" / "kir" / "gemm.mlir"
    params = {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "GROUP_0": 4, "PERSIST": persist}
    ref = run(tessel_bin, path, PERSISTENT, "kir", {})
    got = run(tessel_bin, path, PERSISTENT, "pgpu", params, order="shuffle")
    np.testing.assert_allclose(got["c"], ref["c"], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("flatten", [0, 1])
def test_persistent_tile_walk_runs_through_triton(tmp_path, monkeypatch, flatten):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    kernel = example("gemm")
    params = {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "GROUP_0": 4, "PERSIST": 1, "FLATTEN": flatten}
    # the first statement after the program id (a source-location comment may come between)
    walk = next(l for l in kernel.source("triton", {}, params).split("tl.program_id(0)")[1].splitlines()[1:]
                if not l.lstrip().startswith("#"))
    assert walk.lstrip().startswith("for ") and ("flatten=True" in walk) == bool(flatten)
    ref = kernel.run_interp(PERSISTENT, seed=5)
    a, b, bias = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("a", "b", "bias"))
    c = torch.empty(ref["c"].shape, dtype=torch.float32)
    kernel._launcher({}, params)(a, b, bias, c)
    np.testing.assert_allclose(c.numpy(), ref["c"], rtol=1e-5, atol=2e-5)


@pytest.mark.parametrize("split", [4])
def test_persistent_split_walk_runs_through_triton(tmp_path, monkeypatch, split):
    """The persistent walk over a split GEMM's (tile, K chunk) programs, with its workspace arguments (the
    partials and the arrival tickets): 182 tiles times the chunks walked by 132 programs, so a program
    adds partials of several tiles; K = 71 is 5 steps of 16, so SPLIT_K = 4 leaves a last chunk empty."""
    pytest.importorskip("torch")
    import torch
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    kernel = example("gemm")
    shapes = {"M": 197, "N": 211, "K": 71}
    params = {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "GROUP_0": 4, "PERSIST": 1, "SPLIT_K": split}
    src = kernel.source("triton", {}, params)
    assert f"bool(({split} != 1))" in src and "tl.atomic_add(arg4" in src  # the split branch is the one taken
    ref = kernel.run_interp(shapes, seed=11)
    a, b, bias = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("a", "b", "bias"))
    c = torch.empty(ref["c"].shape, dtype=torch.float32)
    kernel._launcher({}, params)(a, b, bias, c)
    np.testing.assert_allclose(c.numpy(), ref["c"], rtol=1e-5, atol=2e-5)


def _described(src, view):
    """Whether the kernel takes a tensor descriptor of `view` (made on the host: TritonSerializer)."""
    return re.search(rf"# _desc\d+: {view}'s \[", src) is not None




@pytest.mark.parametrize("shapes,params", [
    ({"M": 37, "N": 40, "K": 24}, {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "GROUP_0": 2}),
    ({"M": 200, "N": 184, "K": 40}, {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "GROUP_0": 4, "FLATTEN": 1}),
], ids=["partial-tiles", "persistent-flattened"])
def test_tensor_descriptor_spelling_matches_kir(shapes, params, tmp_path, monkeypatch):
    # Box loads (the rhs one transposed) and the box store spelled as tensor descriptors, run by
    # Triton's interpreter: edges outside the views are zero-filled and clipped by the descriptor.
    # Extents keep every view 16-byte aligned (N, K multiples of 8 for f16), so USE_TMA holds.
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    kernel = example("gemm")
    launch = kernel._launcher({}, dict(params, TMA=1))
    seen = force_descriptors(monkeypatch, launch, "gemm")
    ref = kernel.run_interp(shapes, seed=5)
    a, b, bias = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("a", "b", "bias"))
    c = torch.empty(ref["c"].shape, dtype=torch.float32)
    launch(a, b, bias, c)
    assert seen["USE_TMA"] is True
    np.testing.assert_allclose(c.numpy(), ref["c"], rtol=1e-5, atol=2e-5)


def test_tensor_descriptor_transpose_store_matches_kir(tmp_path, monkeypatch):
    # The transpose's store walks the output view the other way round: a permuted descriptor store.
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    kernel = example("transpose")
    launch = kernel._launcher({}, {"TILE_0": 16, "TILE_1": 32, "GROUP_0": 2, "TMA": 1})
    assert _described(open(launch.__globals__["__file__"]).read(), "x")
    seen = force_descriptors(monkeypatch, launch, "transpose")
    ref = kernel.run_interp({"M": 36, "N": 44}, seed=5)
    x = torch.from_numpy(np.array(ref["x.in"]))
    y = torch.empty(ref["out"].shape, dtype=torch.float32)
    launch(x, y)
    assert seen["USE_TMA"] is True
    np.testing.assert_array_equal(y.numpy(), ref["out"])


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_tensor_descriptor_attention_keys_match_kir(causal, tmp_path, monkeypatch):
    # With TMA = 1 only the key and value tiles, walked by the loop over the keys, are descriptors: the
    # query tile and the output tile (one box per program) keep pointer accesses, so no program makes
    # their descriptors (TileAccess.h: keepsPointerSpelling). T = 45 leaves a masked last key tile
    # (pointer loads); the descriptors read the full ones. D = 16 keeps every view TMA-aligned.
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    kernel = example("attention")
    cx = {"CAUSAL": causal}
    launch = kernel._launcher(cx, {"BLOCK_S": 16, "BLOCK_T": 16, "BLOCK_D": 16, "TMA": 1})
    src = open(launch.__globals__["__file__"]).read()
    assert _described(src, "K") and _described(src, "V")
    assert not _described(src, "Q") and not _described(src, "O")
    seen = force_descriptors(monkeypatch, launch, "attention")
    ref = kernel.run_interp({"B": 1, "H": 2, "S": 37, "T": 45, "D": 16}, scalars={"scale": 0.25}, constexprs=cx, seed=5)
    q, k, v = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("Q", "K", "V"))
    o = torch.empty(ref["O"].shape, dtype=torch.float16)
    launch(q, k, v, o, scale=0.25)
    assert seen["USE_TMA"] is True
    np.testing.assert_allclose(o.numpy().astype(np.float64), ref["O"].astype(np.float64), rtol=1e-2, atol=2e-3)


TRANSPOSE_BINDINGS = [{}, {"TILE_0": 16, "TILE_1": 32, "GROUP_0": 2}, {"TILE_0": 32, "TILE_1": 16, "GROUP_0": 1}]


@pytest.mark.parametrize("shapes", [{"M": 37, "N": 45}, {"M": 1, "N": 1}, {"M": 0, "N": 5}, {"M": 33, "N": 16}],
                         ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
@pytest.mark.parametrize("params", TRANSPOSE_BINDINGS,
                         ids=lambda p: "-".join(f"{k}{v}" for k, v in p.items()) or "defaults")
def test_tiled_transpose_matches_kir(tessel_bin, root, shapes, params):
    # The load walks one axis and the store the other: both are tiled (coalescing).
    path = root / "examples" / "kir" / "transpose.mlir"
    ref = run(tessel_bin, path, shapes, "kir", {})
    got = run(tessel_bin, path, shapes, "pgpu", params, order="shuffle")
    np.testing.assert_array_equal(got["out"], ref["out"])


@pytest.mark.parametrize("shapes", [{"M": 37, "N": 45}, {"M": 1, "N": 3}], ids=str)
def test_tiled_transpose_runs_through_triton(shapes, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    kernel = example("transpose")
    params = {"TILE_0": 16, "TILE_1": 32, "GROUP_0": 2}
    ref = kernel.run_interp(shapes, seed=5)
    x = torch.from_numpy(np.array(ref["x.in"]))
    out = torch.empty(ref["out"].shape, dtype=x.dtype)
    assert "tl.arange(0, 16)" in kernel.source("triton", {}, params)
    kernel._launcher({}, params)(x, out)
    np.testing.assert_array_equal(out.numpy(), ref["out"])


def test_optimization_remarks_reach_the_author(tmp_path, monkeypatch, capsys):
    # @tessel.kernel(optimization_remarks=True): each pass group's decision, at the author's lines.
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    import tessel
    import tessel.language as T

    @tessel.kernel(optimization_remarks=True)
    def mm(a: T.In[T.f16, ("M", "K")], b: T.In[T.f16, ("K", "N")], c: T.Out[T.f32, ("M", "N")]):
        M, K = a.shape
        rows, cols, ks = T.domain(0, M), T.domain(0, b.shape[1]), T.domain(0, K)
        c[rows, cols] = T.matmul(a[rows, ks], b[ks, cols], acc_dtype=T.f32)

    source = mm.source("triton")
    assert "tl.dot(" in source
    err = capsys.readouterr().err
    assert "test_tiles.py:" in err and "remark: pgpu-form-tiles: tiled a contraction nest" in err


@pytest.mark.parametrize("name", ["matmul", "attention", "transpose", "softmax"])
def test_new_passes_compile_deterministically(tessel_bin, root, name):
    # Tiles, row staging and region-fold construction: the same input compiles to the same bytes.
    outs = [subprocess.run([str(tessel_bin), "compile", str(root / "examples" / f"{name}.py") + f":{name}",
                            "--emit=source", "--target=triton"], capture_output=True, text=True) for _ in range(2)]
    assert outs[0].returncode == 0, outs[0].stderr
    assert outs[0].stdout == outs[1].stdout
