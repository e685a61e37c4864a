"""Runtime loops that carry values per member, against the KIR interpreter on random inputs at odd shapes
(empty and one-element extents, primes, extents that are multiples of no block):

  * Horner's rule over runtime coefficients (bench/corpus/205): a loop per element whose body reads only
    values every element shares (c[P - 1 - j]). pgpu-refine-mapping sizes its programs like elementwise
    work (BLOCK_P 256..4096), one block of lanes a program with the coefficient loop inside, each
    coefficient a scalar read per program;
  * a row loop carrying a tensor computed from a scan of each row (bench/corpus/206's summed-area table,
    `acc = acc + T.cumsum(x[n, i, cols])`; ScanCarries.cpp): the carried axis a block of BLOCK_W lanes,
    one block under `W <= BLOCK_W`, else the program walks W's blocks, each trip's scan of a block
    starting from the scan of the blocks before it (after it, reversed); also a reversed cummax with a
    scalar carry and a loop-invariant read, an exclusive cumsum, and a scan computed before the loop;

each checked on the pgpu interpreter after the whole shared pipeline (`tessel run --stage pgpu`, shuffled
program order) at two bindings of the block parameter, and the generated Triton under TRITON_INTERPRET=1.
"""
import os
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import corpus, compiled_pgpu, run_stage  # noqa: E402


HORNER_SHAPES = [dict(N=0, P=3), dict(N=1, P=0), dict(N=1, P=1), dict(N=7, P=0), dict(N=127, P=3),
                 dict(N=4099, P=5), dict(N=1031, P=16)]


@pytest.mark.parametrize("shape", HORNER_SHAPES, ids=[f"N{s['N']}P{s['P']}" for s in HORNER_SHAPES])
def test_horner_matches_kir(tessel_bin, root, shape):
    mod = corpus(root, "205_horner_polynomial")
    inputs = mod.inputs(shape, np.random.default_rng(shape["N"] * 3 + shape["P"]))
    want = mod.reference(**inputs)["y"]
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_stage(tessel_bin, mod.KERNEL, "kir", shape, inputs, tmp) / "y.npy")
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg="kir")
        # One block of BLOCK_P lanes a program: several programs and a partial last one, or one program.
        for block_p in (256, 4096):
            got = np.load(run_stage(tessel_bin, mod.KERNEL, "pgpu", shape, inputs, tmp, {"BLOCK_P": block_p})
                          / "y.npy")
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"pgpu BLOCK_P={block_p}")
    import torch
    y = torch.full((shape["N"],), float("nan"))
    mod.KERNEL(torch.from_numpy(inputs["x"]), torch.from_numpy(inputs["c"]), y)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-5, err_msg="triton")


def test_horner_runs_a_block_of_elements_per_program(tessel_bin, root):
    """The elementwise BLOCK_P domain; each program's lanes are one fragment carried through the
    coefficient loop, whose coefficient is one scalar read per trip (not a read per lane)."""
    text = compiled_pgpu(tessel_bin, corpus(root, "205_horner_polynomial").KERNEL)
    assert '#pgpu.param<"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>' in text, text
    loops = [ln for ln in text.splitlines() if "pgpu.for" in ln and "iter_args" in ln]
    assert loops and all("!pgpu.fragment<f32, [BLOCK_P]>" in ln for ln in loops), loops
    reads = [ln for ln in text.splitlines() if "pgpu.load %c[" in ln]
    assert reads and all(ln.rstrip().endswith("-> f32") for ln in reads), reads


def suffix_max_kernel():
    @tessel.kernel
    def suffix_max(x: T.In[T.f32, ("N", "H", "W")], w: T.In[T.f32, ("W",)], out: T.Out[T.f32, ("N", "H", "W")]):
        """A reversed running maximum of each weighted row, folded into a decaying carry with a count."""
        N, H, W = x.shape
        cols = T.domain(0, W)
        ws = w[cols]
        for n in T.parallel(T.domain(0, N)):
            acc = T.zeros(cols)
            k = T.f32(0.0)
            for i in T.domain(0, H):
                k = k + 1.0
                acc = T.maximum(acc * 0.5, T.cummax(x[n, i, cols] * ws, reverse=True)) + k
                out[n, i, cols] = acc
    return suffix_max


def suffix_max_reference(x, w):
    x64 = x.astype(np.float64) * w.astype(np.float64)
    out = np.empty_like(x64)
    acc = np.zeros((x.shape[0], x.shape[2]))
    for i in range(x.shape[1]):
        suffix = np.maximum.accumulate(x64[:, i, ::-1], axis=1)[:, ::-1]
        acc = np.maximum(acc * 0.5, suffix) + (i + 1)
        out[:, i] = acc
    return out


def exclusive_kernel():
    @tessel.kernel
    def exclusive_rows(x: T.In[T.f32, ("N", "H", "W")], out: T.Out[T.f32, ("N", "H", "W")]):
        """Column sums of each row's exclusive prefix sums."""
        N, H, W = x.shape
        cols = T.domain(0, W)
        for n in T.parallel(T.domain(0, N)):
            acc = T.zeros(cols)
            for i in T.domain(0, H):
                acc = acc + T.cumsum(x[n, i, cols], exclusive=True)
                out[n, i, cols] = acc * 2.0
    return exclusive_rows


def exclusive_reference(x):
    x64 = x.astype(np.float64)
    return 2.0 * (np.cumsum(x64, axis=2) - x64).cumsum(axis=1)


def invariant_scan_kernel():
    @tessel.kernel
    def invariant_scan(x: T.In[T.f32, ("N", "H", "W")], w: T.In[T.f32, ("W",)], out: T.Out[T.f32, ("N", "H", "W")]):
        """A decaying carry fed by a scan computed before the loop (scanned again on each trip's blocks)."""
        N, H, W = x.shape
        cols = T.domain(0, W)
        cw = T.cumsum(w[cols])
        for n in T.parallel(T.domain(0, N)):
            acc = T.zeros(cols)
            for i in T.domain(0, H):
                acc = acc * 0.5 + cw + x[n, i, cols]
                out[n, i, cols] = acc
    return invariant_scan


def invariant_scan_reference(x, w):
    cw = np.cumsum(w.astype(np.float64))
    out = np.empty(x.shape)
    acc = np.zeros((x.shape[0], x.shape[2]))
    for i in range(x.shape[1]):
        acc = acc * 0.5 + cw + x[:, i].astype(np.float64)
        out[:, i] = acc
    return out


SAT_SHAPES = [dict(N=1, H=1, W=1), dict(N=2, H=0, W=5), dict(N=2, H=3, W=0), dict(N=2, H=7, W=13),
              dict(N=3, H=37, W=130), dict(N=1, H=11, W=67)]
SAT_CASES = [
    ("sat", lambda root: corpus(root, "206_summed_area_table").KERNEL,
     lambda x, w: x.astype(np.float64).cumsum(axis=1).cumsum(axis=2)),
    ("suffix_max", lambda root: suffix_max_kernel(), suffix_max_reference),
    ("exclusive", lambda root: exclusive_kernel(), lambda x, w: exclusive_reference(x)),
    ("invariant_scan", lambda root: invariant_scan_kernel(), invariant_scan_reference),
]


@pytest.mark.parametrize("case", [c[0] for c in SAT_CASES])
@pytest.mark.parametrize("shape", SAT_SHAPES, ids=[f"N{s['N']}H{s['H']}W{s['W']}" for s in SAT_SHAPES])
def test_scan_carries_match_kir(tessel_bin, root, shape, case, monkeypatch):
    _, make, reference = next(c for c in SAT_CASES if c[0] == case)
    kernel = make(root)
    rng = np.random.default_rng(shape["H"] * 5 + shape["W"])
    x = rng.standard_normal((shape["N"], shape["H"], shape["W"])).astype(np.float32)
    w = rng.uniform(0.5, 1.5, size=shape["W"]).astype(np.float32)
    inputs = {"x": x, "w": w} if case in ("suffix_max", "invariant_scan") else {"x": x}
    want = reference(x, w)
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_stage(tessel_bin, kernel, "kir", shape, inputs, tmp) / "out.npy")
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg="kir")
        # BLOCK_W 64: W = 67 and 130 walk two and three blocks (the fallback); 1024: one block.
        for block in (64, 1024):
            got = np.load(run_stage(tessel_bin, kernel, "pgpu", shape, inputs, tmp, {"BLOCK_W": block}) / "out.npy")
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=f"pgpu BLOCK_W={block}")
    import torch
    # The Triton interpreter at the call's default (one block) and with the blocks walked (a kernel object
    # of its own per binding: a call's plan keeps the binding its first call chose).
    for pinned in ("", "BLOCK_W=64"):
        monkeypatch.setenv("TESSEL_PARAMS", pinned)
        out = torch.full(x.shape, float("nan"))
        make(root)(*[torch.from_numpy(v) for v in inputs.values()], out)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4, err_msg=f"triton {pinned}")


def test_scan_carry_is_a_fragment_loop(tessel_bin, root):
    """206's pgpu: one program per image, the row loop carrying a [BLOCK_W] fragment, each row's scan a
    fragment scan; under the guard's else the blocks walked, each trip's scan carry recomputed."""
    text = compiled_pgpu(tessel_bin, corpus(root, "206_summed_area_table").KERNEL)
    assert '#pgpu.param<"BLOCK_W", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "W">' in text
    loops = [ln for ln in text.splitlines() if "pgpu.for" in ln and "iter_args" in ln]
    assert sum("!pgpu.fragment<f32, [BLOCK_W]>" in ln for ln in loops) == 2, loops
    assert text.count("pgpu.scan ") == 3 and "pgpu.range_scan" not in text and "pgpu.foreach" not in text


def test_scan_of_the_carry_is_refused_at_the_scan():
    @tessel.kernel
    def rescanned(x: T.In[T.f32, ("N", "H", "W")], out: T.Out[T.f32, ("N", "H", "W")]):
        N, H, W = x.shape
        cols = T.domain(0, W)
        for n in T.parallel(T.domain(0, N)):
            acc = T.zeros(cols)
            for i in T.domain(0, H):
                acc = T.cumsum(acc + x[n, i, cols])
                out[n, i, cols] = acc

    with pytest.raises(tessel.CompileError, match="inputs do not depend on the loop's carries"):
        rescanned.source("triton")
