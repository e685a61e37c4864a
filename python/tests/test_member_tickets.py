"""Split-K tiled (issue 16): pgpu-flatten-worksets under a finalization, pgpu-member-tickets, and
pgpu-form-tiles over chunk-bounded contractions, buffer stores and ticketed finalizations.

examples/splitk_gemm.py writes each split's product into a kernel-level buffer and sums the splits.
Construction ran the product element by element in SPLITS programs and the sum in the last program.
Now the products are TILE_1 x TILE_2 tiles of pgpu.contract (one program per split and tile) and each
tile's sum runs in the last of its SPLITS programs (one ticket per tile). At odd shapes (0, 1, primes,
non-multiples of every tile), several SPLITS and tile bindings, the pgpu interpreter after the
pipeline (programs in shuffled order: a ticket counted wrong would sum before a split is written,
which the interpreter reports as a read of an unwritten element) must compute what the KIR
interpreter computes; the generated Triton runs under TRITON_INTERPRET=1 at small tiles.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

SHAPES = [{"M": 37, "N": 45, "K": 29}, {"M": 1, "N": 1, "K": 1}, {"M": 17, "N": 3, "K": 0}, {"M": 0, "N": 5, "K": 7},
          {"M": 33, "N": 16, "K": 131}]
BINDINGS = [{}, {"TILE_1": 16, "TILE_2": 32, "TILE_K": 16, "GROUP_1": 2},
            {"TILE_1": 32, "TILE_2": 16, "TILE_K": 32, "GROUP_1": 1, "PERSIST": 2}]
SPLITS = [1, 3, 4, 7]


def kir_of(root, tmp_path, splits):
    sys.path.insert(0, str(root / "examples"))
    import splitk_gemm
    path = tmp_path / f"splitk{splits}.mlir"
    path.write_text(splitk_gemm.splitk_gemm.kir({"SPLITS": splits}))
    return path


def run(tessel, path, shapes, stage, params, out, order="forward"):
    cmd = [str(tessel), "run", str(path), "--stage", stage, "--seed", "5", "--order", order,
           "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()), "--out", str(out)]
    for k, v in params.items():
        cmd += ["--param", f"{k}={v}"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
    return np.load(out / "c.npy")


def test_splitk_is_tiled_with_a_ticket_per_tile(tessel_bin, root, tmp_path):
    path = kir_of(root, tmp_path, 4)
    res = subprocess.run([str(tessel_bin), "compile", str(path), "--emit=pgpu", "--remarks"], capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    ir = res.stdout
    assert "pgpu-member-tickets: each member's finalization runs in the last instance" in res.stderr
    assert "pgpu-form-tiles: tiled a contraction nest: TILE_1 (program axis 1), TILE_2 (program axis 2)" in res.stderr
    # Two: the chunk's full K blocks (no chunk mask: pgpu-narrow-predicates) and its partial block.
    assert ir.count("pgpu.contract") == 2
    assert "pgpu-narrow-predicates: 1 lane mask(s) are true on the loop's full blocks" in res.stderr
    assert "!pgpu.buffer<i32, [M, N], workspace> {pgpu.init = 0 : i32" in ir
    # One ticketed finalization (arrivals: the splits), no whole-space one.
    assert ir.count("pgpu.last_program") == 1 and "arrivals" in ir
    assert "pgpu.foreach" not in ir


@pytest.mark.parametrize("splits", SPLITS)
@pytest.mark.parametrize("params", BINDINGS, ids=lambda p: "-".join(f"{k}{v}" for k, v in p.items()) or "defaults")
def test_tiled_splitk_matches_kir(tessel_bin, root, tmp_path, splits, params):
    path = kir_of(root, tmp_path, splits)
    for i, shapes in enumerate(SHAPES):
        ref = run(tessel_bin, path, shapes, "kir", {}, tmp_path / f"kir{i}")
        got = run(tessel_bin, path, shapes, "pgpu", params, tmp_path / f"pgpu{i}", order="shuffle")
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5, err_msg=str(shapes))


@pytest.mark.parametrize("splits", [1, 3])
def test_tiled_splitk_runs_through_triton(root, tmp_path, monkeypatch, splits):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    kernel = example("splitk_gemm")
    constexprs = {"SPLITS": splits}
    params = {"TILE_1": 16, "TILE_2": 16, "TILE_K": 16, "GROUP_1": 2}
    source = kernel.source("triton", constexprs, params)
    assert "tl.dot(" in source and "tl.atomic_add(" in source
    # K = 101: chunks of 101 (SPLITS 1) or 34 (SPLITS 3) run full K blocks (the narrowed loop, no
    # chunk mask) and then a partial one.
    for shapes in ({"M": 19, "N": 23, "K": 37}, {"M": 1, "N": 2, "K": 0}, {"M": 19, "N": 23, "K": 101}):
        ref = kernel.run_interp(shapes, constexprs=constexprs, seed=5)
        a, b = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("a", "b"))
        c = torch.empty(ref["c"].shape, dtype=torch.float32)
        kernel._launcher(constexprs, params)(a, b, c)
        np.testing.assert_allclose(c.numpy(), ref["c"], rtol=1e-5, atol=2e-5)


def test_zero_first_and_its_fallback_match_kir(tessel_bin, root, tmp_path, monkeypatch):
    """pgpu-zero-first: where every work item has its own program instance (here 2 x 2 tiles x 3 splits),
    the split-0 instance zeroes C's tile and arrives first, the others wait for it and add into C; where
    the persistent walk gives an instance several items (7 x 7 tiles x 3 splits = 147 > 132 instances) the
    launch guard keeps pgpu-atomic-partials' merge. Both agree with the KIR interpreter in the pgpu
    interpreter (which runs a space that waits in linear order) and through Triton's interpreter."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    params = {"TILE_1": 16, "TILE_2": 16, "TILE_K": 16, "GROUP_1": 2}
    path = kir_of(root, tmp_path, 3)
    from conftest import example
    kernel = example("splitk_gemm")
    source = kernel.source("triton", {"SPLITS": 3}, params)
    assert "sem='acquire'" in source and "_G0: tl.constexpr" in source  # the wait and the launch guard
    for i, shapes in enumerate(({"M": 29, "N": 17, "K": 53}, {"M": 112, "N": 100, "K": 41})):
        ref = run(tessel_bin, path, shapes, "kir", {}, tmp_path / f"kir{i}")
        got = run(tessel_bin, path, shapes, "pgpu", params, tmp_path / f"pgpu{i}", order="shuffle")
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5, err_msg=str(shapes))
        interp = kernel.run_interp(shapes, constexprs={"SPLITS": 3}, seed=5)
        a, b = (torch.from_numpy(np.array(interp[f"{n}.in"])) for n in ("a", "b"))
        for _ in range(2):  # the kept tickets are zero again after each call
            c = torch.full(interp["c"].shape, float("nan"), dtype=torch.float32)
            kernel._launcher({"SPLITS": 3}, params)(a, b, c)
            np.testing.assert_allclose(c.numpy(), interp["c"], rtol=1e-5, atol=2e-5, err_msg=str(shapes))


def test_planned_splitk_keeps_its_tickets_zeroed(tmp_path, monkeypatch):
    """A planned call takes its tickets from one kept zeroed buffer (`_zeroed`), not a fresh fill: the
    last arrival at each ticket returns it to 0, so every call in a row (checked, then planned) sums
    each tile once, and the buffer is zero again after each; a larger shape grows it; an interpreted
    launch that raises drops it. The partials' merged sums (pgpu-atomic-partials: f32 workspace the
    last arrival reads and zeroes) are kept alike, in a buffer of their own."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    kernel = example("splitk_gemm")
    constexprs, params = {"SPLITS": 3}, {"TILE_1": 16, "TILE_2": 16, "TILE_K": 16, "GROUP_1": 2}
    launch = kernel._launcher(constexprs, params)
    module = launch.__globals__
    assert "_zeroed(_n_arg" in kernel.source("triton", constexprs, params)
    for shapes in ({"M": 19, "N": 23, "K": 37}, {"M": 40, "N": 33, "K": 20}):
        ref = kernel.run_interp(shapes, constexprs=constexprs, seed=5)
        a, b = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("a", "b"))
        for _ in range(3):
            c = torch.full(ref["c"].shape, float("nan"), dtype=torch.float32)
            launch(a, b, c)
            np.testing.assert_allclose(c.numpy(), ref["c"], rtol=1e-5, atol=2e-5)
            assert not any(t.any() for t in module["_ZEROED"].values())
        buffers = list(module["_ZEROED"].values())  # the planned calls' (the first is checked)
        assert sorted(str(t.dtype) for t in buffers) == ["torch.float32", "torch.int32"]
        assert all(t.numel() >= shapes["M"] * shapes["N"] for t in buffers)
    # A launch that stops midway may leave tickets counted: the kept buffer is dropped.
    monkeypatch.setitem(module, "_splitk_gemm_kernel", None)  # the planned launch raises (TypeError)
    with pytest.raises(TypeError):
        launch(a, b, c)
    assert not module["_ZEROED"]


def test_kept_buffers_under_graph_capture(tmp_path, monkeypatch):
    """`_zeroed` keeps one buffer per stream, but under CUDA graph capture it returns fresh zeros (a
    graph may replay on another stream beside eager launches). On the default stream (raw handle 0),
    where torch.cuda.graph refuses to capture, it does not ask (a driver call per launch saved); on
    any other stream it asks unless the launch passes its answer."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    module = example("splitk_gemm")._launcher({"SPLITS": 3}, {"TILE_1": 16, "TILE_2": 16}).__globals__
    zeroed, asked = module["_zeroed"], []

    def capturing():
        asked.append(1)
        return True
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", capturing)
    kept = zeroed(8, torch.int32, "cpu", 0, "k.t")
    assert zeroed(8, torch.int32, "cpu", 0, "k.t") is kept and not asked
    fresh = zeroed(8, torch.int32, "cpu", 7, "k.t")
    assert asked and fresh is not kept and not fresh.any()
    assert zeroed(8, torch.int32, "cpu", 7, "k.t", False) is zeroed(8, torch.int32, "cpu", 7, "k.t", False)
    assert zeroed(8, torch.int32, "cpu", 7, "k.t", True) is not zeroed(8, torch.int32, "cpu", 7, "k.t", True)
    source = example("splitk_gemm").source("triton", {"SPLITS": 3}, {})
    assert "_cap = _s != 0 and torch.cuda.is_current_stream_capturing()" in source


def test_wide_splitk_tile_stores_c_with_pointers(root, tmp_path, monkeypatch):
    """A 128x256 tile's f32 C staged for a TMA store would not fit sm_90's shared memory beside 4
    operand stages (Resources.h storesStagedAt): C is stored with pointers, the operand tiles keep their
    descriptors, PRUNE keeps the binding (prunes a fifth stage), and the program computes what the KIR
    interpreter computes at odd shapes (the interpreter runs the pointer spelling of every access)."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    kernel = example("splitk_gemm")
    constexprs, params = {"SPLITS": 3}, {"TILE_1": 128, "TILE_2": 256, "STAGES": 4}
    wide = kernel.source("triton", constexprs, params)
    assert "# _desc0: a's [" in wide and "# _desc1: b's [" in wide
    assert ": c's [" not in wide and "tl.store(c + " in wide
    # Must not fire: 128x128 at 3 stages fits with C staged (both of C's tile stores: pgpu-zero-first's
    # zeroing and the merge's, 2 x 64 KiB beside 96 KiB of stages; at 4 stages they would not). (The
    # untuned binding takes 6 stages, split partials deepening with their stores through pointers:
    # TritonLegalize contractsIntoSplitPartials.)
    assert ": c's [" in kernel.source("triton", constexprs, {"STAGES": 3})
    assert ": c's [" not in kernel.source("triton", constexprs, {})
    launch = kernel._launcher(constexprs, params)
    prune = launch.__globals__["splitk_gemm_PRUNE"]
    binding = {k: v[1] for k, v in launch.__globals__["splitk_gemm_PARAMS"].items()}
    assert prune({**binding, **params}) is None
    assert prune({**binding, **params, "STAGES": 5}) == "shared memory"
    assert prune({**binding, "TILE_2": 128}) is None
    for shapes in ({"M": 19, "N": 23, "K": 37}, {"M": 130, "N": 3, "K": 200}):
        ref = kernel.run_interp(shapes, constexprs=constexprs, seed=5)
        a, b = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("a", "b"))
        c = torch.full(ref["c"].shape, float("nan"), dtype=torch.float32)
        launch(a, b, c)
        np.testing.assert_allclose(c.numpy(), ref["c"], rtol=1e-5, atol=2e-5)
