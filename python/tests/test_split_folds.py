"""A region fold split across program instances (issue 13, pgpu-split-folds; flash-decoding from the
fold's own algebra): attention's key fold cut into FOLD_SPLIT contiguous segments, one program each,
each storing its summary to invocation workspace sized by launch-time expressions
(pgpu.workspace_extent), the point's last arrival combining the summaries in segment order with the
fold's combine and storing the output. Against the KIR interpreter on random nonzero inputs (random
KIR segmentations):

  * the pgpu interpreter after the Triton pipeline (shuffled program order) at S = 1, T = 1, T = 0,
    T prime, T not a multiple of BLOCK_T, split counts that do not divide the tile count and leave
    empty segments, causal and full, the padded and exact head-dim variants;
  * the generated Triton under TRITON_INTERPRET=1 (f16: the CPU interpreter's bf16 is broken);
  * the call's FOLD_SPLIT default: 1 when the launch fills the multiprocessors.
"""
import os
import subprocess

import numpy as np
import pytest

from conftest import load_bench

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

PIPELINE = ["--tessel-pipeline=stop-after=realize-folds"]


def kernels(root):
    """bench/attention_kernels.py (conftest.load_bench)."""
    return load_bench("attention_kernels")


def attention(root, name):
    import tessel.language as T
    return kernels(root).attention(T.f16, name=name)


def shape_arg(shapes):
    return ",".join(f"{k}={v}" for k, v in shapes.items())


# BLOCK_T = 16 throughout: T = 70 is 5 tiles (FOLD_SPLIT 2: 3 + 2 tiles; 4: 2 + 2 + 1 + an empty
# segment; 8: capped at 5 segments of one tile), T = 97 is 7 tiles, T = 1 and T = 0 one or no tile
# (never split).
CASES = [
    ({"CAUSAL": False}, {"B": 1, "H": 2, "S": 1, "T": 70, "D": 16}, {"BLOCK_D": 16}),
    ({"CAUSAL": True}, {"B": 1, "H": 2, "S": 1, "T": 70, "D": 16}, {"BLOCK_D": 16}),
    ({"CAUSAL": False}, {"B": 2, "H": 1, "S": 3, "T": 97, "D": 5}, {"BLOCK_D": 16}),
    ({"CAUSAL": True}, {"B": 1, "H": 1, "S": 37, "T": 70, "D": 16}, {"BLOCK_D": 16}),
    ({"CAUSAL": False}, {"B": 1, "H": 1, "S": 1, "T": 1, "D": 16}, {"BLOCK_D": 16}),
    ({"CAUSAL": False}, {"B": 1, "H": 1, "S": 2, "T": 0, "D": 4}, {"BLOCK_D": 16}),
    ({"CAUSAL": True}, {"B": 1, "H": 1, "S": 19, "T": 33, "D": 40}, {"BLOCK_D": 16}),  # D > block: fallback
]


@pytest.mark.parametrize("split", [1, 2, 4, 8])
@pytest.mark.parametrize("constexprs,shapes,params", CASES,
                         ids=[f"{shape_arg(s)}-{'causal' if c['CAUSAL'] else 'full'}" for c, s, _ in CASES])
def test_split_fold_matches_kir(tessel_bin, root, tmp_path, constexprs, shapes, params, split):
    source = attention(root, "split_attention")._write(tmp_path, constexprs)
    shape = shape_arg(shapes)
    scalars = ["--scalar", "scale=0.35"]
    kir = tmp_path / "kir"
    subprocess.run([str(tessel_bin), "run", str(source), "--stage", "kir", "--shape", shape, "--seed", "6",
                    "--segments=random", "--out", str(kir), *scalars], check=True, capture_output=True)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    text = program.read_text()
    assert 'pgpu.workspace_extent "FOLD_POINTS"' in text and "pgpu.last_program" in text
    binding = {"BLOCK_S": 16, "BLOCK_T": 16, "FOLD_SPLIT": split, **params}
    out = tmp_path / "pgpu"
    res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--seed", "6", "--order",
                          "shuffle", "--out", str(out), *scalars,
                          *[f"--param={k}={v}" for k, v in binding.items()]], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    want, got = np.load(kir / "O.npy"), np.load(out / "O.npy")
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-3, atol=1e-3)


VARIANTS = [
    ("window", {"W": 5}, {"B": 1, "H": 2, "S": 37, "T": 70, "D": 16}),     # all-false prefix and suffix per segment
    ("window", {"W": 40}, {"B": 1, "H": 1, "S": 70, "T": 70, "D": 16}),
    ("bias", {}, {"B": 1, "H": 2, "S": 3, "T": 97, "D": 16}),
    ("gqa", {"GROUP": 2}, {"B": 1, "H": 4, "G": 2, "S": 1, "T": 70, "D": 16}),
]


@pytest.mark.parametrize("split", [2, 4])
@pytest.mark.parametrize("name,constexprs,shapes", VARIANTS,
                         ids=[f"{n}-{shape_arg(s)}" for n, _, s in VARIANTS])
def test_split_variants_match_kir(tessel_bin, root, tmp_path, name, constexprs, shapes, split):
    """The attention variants of bench/attention_kernels.py: a band (segments wholly outside it fold
    nothing and contribute the identity), an additive bias, grouped-query heads."""
    import tessel.language as T
    AK = kernels(root)
    make = {"window": AK.window_attention, "bias": AK.bias_attention, "gqa": AK.gqa_attention}[name]
    source = make(T.f16, name=f"split_{name}")._write(tmp_path, constexprs)
    shape = shape_arg(shapes)
    scalars = ["--scalar", "scale=0.35"]
    kir = tmp_path / "kir"
    subprocess.run([str(tessel_bin), "run", str(source), "--stage", "kir", "--shape", shape, "--seed", "3",
                    "--segments=random", "--out", str(kir), *scalars], check=True, capture_output=True)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    assert "pgpu.last_program" in program.read_text()
    out = tmp_path / "pgpu"
    binding = {"BLOCK_S": 16, "BLOCK_T": 16, "BLOCK_D": 16, "FOLD_SPLIT": split}
    res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--seed", "3", "--order",
                          "shuffle", "--out", str(out), *scalars,
                          *[f"--param={k}={v}" for k, v in binding.items()]], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    np.testing.assert_allclose(np.load(out / "O.npy").astype(np.float64), np.load(kir / "O.npy").astype(np.float64),
                               rtol=1e-3, atol=1e-3)


def test_remarks_say_what_was_split(tessel_bin, root, tmp_path):
    """With remarks on, the pass says at each fold what it adopted, and at the element-wise
    fallback's folds (inside a loop) why they stay."""
    source = attention(root, "split_remarks")._write(tmp_path, {"CAUSAL": True})
    text = source.read_text().replace("numerics = relaxed_normalization",
                                      "numerics = relaxed_normalization, optimization_remarks = true")
    source.write_text(text)
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE], capture_output=True,
                         text=True)
    assert opt.returncode == 0, opt.stderr
    assert opt.stderr.count("pgpu-split-folds: the fold's tiles are cut into FOLD_SPLIT contiguous segments") == 2
    assert "pgpu-split-folds: this fold is not split: it runs inside a loop" in opt.stderr


@pytest.mark.parametrize("shapes", [{"B": 1, "H": 2, "S": 1, "T": 70, "D": 16},
                                    {"B": 2, "H": 1, "S": 17, "T": 97, "D": 16},
                                    {"B": 1, "H": 1, "S": 1, "T": 1, "D": 16}], ids=shape_arg)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_triton_split_fold_matches_kir(root, tmp_path, monkeypatch, shapes, causal):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    kernel = attention(root, "split_triton")
    params = {"BLOCK_S": 16, "BLOCK_T": 16, "BLOCK_D": 16, "FOLD_SPLIT": 4}
    src = kernel.source("triton", {"CAUSAL": causal}, params)
    assert "sem='acq_rel'" in src or "atomic_add" in src
    ref = kernel.run_interp(shapes, {"scale": 0.35}, {"CAUSAL": causal}, seed=2, segments="random")
    q, k, v = (torch.from_numpy(np.array(ref[f"{n}.in"])) for n in ("Q", "K", "V"))
    launch = kernel._launcher({"CAUSAL": causal}, params)
    # A checked call, then planned ones: their workspace counts are the plan's (0 where the fold is not
    # split: the plan's empty tensor), their tickets the kept zeroed buffer, which each call leaves zero.
    for _ in range(3):
        o = torch.full((shapes["B"], shapes["H"], shapes["S"], shapes["D"]), float("nan"), dtype=torch.float16)
        launch(q, k, v, o, scale=0.35)
        np.testing.assert_allclose(o.double().numpy(), np.array(ref["O"]).astype(np.float64), rtol=2e-3, atol=2e-3)
        assert not any(t.any() for t in launch.__globals__["_ZEROED"].values())


def test_fold_split_default_fills_the_machine(root):
    """FOLD_SPLIT's call default: the smallest candidate whose programs fill the (132) multiprocessors
    when the launch alone does not, 1 when it does."""
    torch = pytest.importorskip("torch")
    kernel = attention(root, "split_default")
    for (b, h, s), want in (((1, 32, 1), 8), ((8, 32, 1), None), ((1, 4, 1), 64), ((4, 32, 4096), None)):
        q = torch.empty(b, h, s, 128, dtype=torch.float16)
        kv = torch.empty(b, h, 4096, 128, dtype=torch.float16)
        got = (kernel._fact_params({"CAUSAL": False}, [q, kv, kv, q]) or {}).get("FOLD_SPLIT")
        assert got == want, (b, h, s, got)
