"""pgpu-online-normalize (seed 002 §1, §3) against the KIR interpreter.

Under numerics = relaxed_normalization a row longer than one block computes its maximum and its sum
of exponentials in one loop (running maximum, rescaled sum). softmax and cross_entropy (the examples/kir
kernels with their compile options switched to relaxed_normalization) must still compute what the KIR
interpreter computes: at lengths around the block (BLOCK = 64), through the pgpu interpreter after the
pass's group and after the whole pipeline, with special values (rows of -inf, rows whose first block is
all -inf, NaN, +inf), and through the generated Triton under TRITON_INTERPRET=1.
"""
import os
import subprocess

import numpy as np
import pytest

# Before anything imports triton (as test_abi_misuse and the other interpreter tests do): set inside the
# test, it came too late when an earlier test module had imported triton, and Triton's own jit helpers
# (tl.cdiv) were then compiled-mode functions inside an interpreted kernel.
os.environ["TRITON_INTERPRET"] = "1"

RELAXED = "#kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>"
KERNELS = {"softmax": ("softmax.mlir", "x", "y", "N"), "cross_entropy": ("cross_entropy.mlir", "logits", "loss", "C")}


# cross_entropy's fold holds no contraction: one row per program (no BLOCK_M lanes), 64-wide row tiles.
PARAMS = {"softmax": ["--param=BLOCK=64"], "cross_entropy": ["--param=BLOCK_C=64"]}
JOINED = {"softmax": "pgpu-online-normalize: the exp-sum loop joins the maximum loop",
          "cross_entropy": "kir-online-folds: a maximum and 1 reduction(s) over one axis became one region fold"}


def relaxed(root, tmp_path, name):
    text = (root / "examples" / "kir" / KERNELS[name][0]).read_text()
    assert "#kir.compile_options<>" in text
    path = tmp_path / f"{name}_relaxed.mlir"
    path.write_text(text.replace("#kir.compile_options<>", RELAXED))
    return path


def program(tessel_bin, source, group):
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), f"--tessel-pipeline=stop-after={group}"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout, res.stderr


def run(tessel_bin, spec, out, shape, extra):
    cmd = [str(tessel_bin), "run", str(spec), "--seed", "5", "--out", str(out),
           "--shape", ",".join(f"{k}={v}" for k, v in shape.items()), *extra]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
    return {p[:-4]: np.load(out / p) for p in os.listdir(out) if not p.endswith(".in.npy")}


@pytest.mark.parametrize("group", ["online-normalize", "realize-folds"])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_joined_loops_match_kir(tessel_bin, root, tmp_path, name, group):
    source = relaxed(root, tmp_path, name)
    text, remarks = program(tessel_bin, source, group)
    # softmax uses its summaries per element, so its two reductions stay reductions and
    # pgpu-online-normalize joins their loops; cross_entropy uses them only per row, so kir-online-folds
    # makes them one region fold first (and the target logit is a gather inside that row kernel).
    assert JOINED[name] in remarks
    spec = tmp_path / "program.mlir"
    spec.write_text(text)
    _, _, out, axis = KERNELS[name]
    for i, n in enumerate([1, 63, 64, 65, 131, 1031] + ([0] if name == "softmax" else [])):
        shape = {"M": 3, axis: n}
        want = run(tessel_bin, source, tmp_path / f"k{i}", shape, ["--stage", "kir"])
        got = run(tessel_bin, spec, tmp_path / f"p{i}", shape, [*PARAMS[name], "--order", "shuffle"])
        np.testing.assert_allclose(got[out], want[out], rtol=2e-6, atol=1e-7, err_msg=f"{axis}={n}")


def test_source_numerics_keep_two_loops(tessel_bin, root, tmp_path):
    source = root / "examples" / "kir" / "softmax.mlir"
    text, _ = program(tessel_bin, source, "online-normalize")
    looped = text.split("} else {", 1)[1]
    # the loop over a program's rows (pgpu-pack-rows, Triton), then maximum, sum, normalized store: the
    # row is read three times
    assert looped.count("pgpu.for") == 1 + 3
    text, _ = program(tessel_bin, relaxed(root, tmp_path, "softmax"), "online-normalize")
    looped = text.split("} else {", 1)[1]
    assert looped.count("pgpu.for") == 1 + 2 and looped.count("pgpu.load") == 2  # one read for both summaries


def test_special_values(tessel_bin, root, tmp_path):
    """Rows of -inf, a first block of -inf, NaN and +inf: where the two-pass form is defined the online
    form agrees; rows whose maximum is -inf or +inf / NaN are NaN in both (seed 002 §1 permissions)."""
    source = relaxed(root, tmp_path, "softmax")
    text, _ = program(tessel_bin, source, "realize-folds")
    spec = tmp_path / "program.mlir"
    spec.write_text(text)
    rng = np.random.default_rng(3)
    x = (rng.random((7, 200), dtype=np.float32) * 8 - 4).astype(np.float32)
    x[0, :] = -np.inf            # every element -inf
    x[1, :70] = -np.inf          # the first block (and more) -inf, then finite
    x[2, 150] = np.nan           # NaN late in the row
    x[3, 10] = np.inf            # +inf early
    x[4, 199] = np.inf           # +inf in the last block
    x[5, :] = -1e30              # very negative but finite
    np.save(tmp_path / "x.npy", x)
    shape = {"M": 7, "N": 200}
    want = run(tessel_bin, source, tmp_path / "k", shape, ["--stage", "kir", "--in", f"x={tmp_path / 'x.npy'}"])["y"]
    got = run(tessel_bin, spec, tmp_path / "p", shape, ["--param=BLOCK=64", "--in", f"x={tmp_path / 'x.npy'}"])["y"]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=2e-6, atol=1e-7)
    assert np.isnan(got[0]).all() and np.isfinite(got[1]).all() and np.isnan(got[2]).all()


@pytest.mark.parametrize("n", [65, 200])
def test_joined_softmax_through_triton(n, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    from conftest import example
    kernel = example("softmax_relaxed")
    ref = kernel.run_interp({"M": 3, "N": n}, seed=2)
    x = torch.from_numpy(np.array(ref["x.in"]))
    y = torch.empty_like(x)
    kernel._launcher({}, {"BLOCK": 64})(x, y)
    np.testing.assert_allclose(y.numpy(), ref["y"], rtol=2e-6, atol=1e-7)
