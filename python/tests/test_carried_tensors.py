"""A runtime `for` carrying tensors (CarriedTensors.cpp): a kir.for whose body is elementwise along the
carried axes is constructed position by position (seed 000 §5, seed 002 §3.3), the carry a scalar per
position; pgpu-refine-mapping and pgpu-form-blocking then make the carried positions lanes of a
fragment (a recurrence: each program's BLOCK_P members; a bag: BLOCK columns per block), the loop
running for all lanes at once. Against the KIR interpreter on random nonzero inputs at odd shapes
(T = 0 and 1, primes, C not a multiple of any block; bags of length 0 and 1, repeated indices):

  * the pgpu interpreter after the whole shared pipeline (`tessel run --stage pgpu`, shuffled order),
    at two bindings of the block parameter;
  * the generated Triton under TRITON_INTERPRET=1 on torch tensors.
"""
import os
import pathlib
import subprocess
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from conftest import run_stage as run_tessel  # noqa: E402


@tessel.kernel
def ema2(x: T.In[T.f32, ("B", "T", "C")],
         decay: T.In[T.f32, ("C",)],
         y: T.Out[T.f32, ("B", "T", "C")]):
    """Two tensor carries (a second-order smoothing) and a scalar one (a step count) over time."""
    B, TT, C = x.shape
    chans = T.domain(0, C)
    a = decay[chans]
    for b in T.parallel(T.domain(0, B)):
        h = T.zeros(chans)
        s = T.zeros(chans)
        k = T.f32(0.0)
        for t in T.domain(0, TT):
            k = k + 1.0
            h = a * h + (1.0 - a) * x[b, t, chans]
            s = a * s + (1.0 - a) * h
            y[b, t, chans] = s + h / k


@tessel.kernel
def bag_weighted(table: T.In[T.f32, ("V", "D")],
                 indices: T.In[T.i32, ("NI",), T.Range(0, "V")],
                 weights: T.In[T.f32, ("NI",)],
                 offsets: T.In[T.i32, ("NB",)],
                 out: T.Out[T.f32, ("NB", "D")]):
    """A weighted bag sum and a bag maximum, two accumulators over the bag's items (a runtime subregion)."""
    V, D = table.shape
    NI = T.extent("NI")
    NB = T.extent("NB")
    dims = T.domain(0, D)
    items = T.domain(0, NI)
    for b in T.parallel(T.domain(0, NB)):
        lo = T.cast(offsets[b], T.index)
        hi = T.cast(offsets[b + 1], T.index) if b + 1 < NB else NI
        acc = T.zeros(dims)
        big = T.zeros(dims)
        for j in items[lo:hi]:
            row = table[indices[j], dims]
            acc = acc + weights[j] * row
            big = T.maximum(big, row)
        out[b, dims] = acc + big


def ema2_reference(x, decay):
    x64, a = x.astype(np.float64), decay.astype(np.float64)
    h = np.zeros((x.shape[0], x.shape[2]))
    s = np.zeros_like(h)
    y = np.empty_like(x64)
    for t in range(x.shape[1]):
        h = a * h + (1 - a) * x64[:, t]
        s = a * s + (1 - a) * h
        y[:, t] = s + h / (t + 1)
    return y


def bag_reference(table, indices, weights, offsets):
    ends = np.append(offsets[1:], len(indices))
    out = np.zeros((len(offsets), table.shape[1]))
    for b, (lo, hi) in enumerate(zip(offsets, ends)):
        rows = table[indices[lo:hi]].astype(np.float64)
        if hi > lo:
            out[b] = (weights[lo:hi, None] * rows).sum(0) + np.maximum(rows.max(0), 0.0)
    return out


EMA_SHAPES = [dict(B=1, T=0, C=3), dict(B=1, T=1, C=1), dict(B=2, T=13, C=67), dict(B=3, T=37, C=5),
              dict(B=1, T=7, C=130)]


@pytest.mark.parametrize("shape", EMA_SHAPES, ids=[f"B{s['B']}T{s['T']}C{s['C']}" for s in EMA_SHAPES])
def test_recurrence_matches_kir(tessel_bin, shape):
    rng = np.random.default_rng(shape["T"] * 7 + shape["C"])
    x = rng.standard_normal((shape["B"], shape["T"], shape["C"])).astype(np.float32)
    decay = rng.uniform(0.5, 0.99, size=shape["C"]).astype(np.float32)
    want = ema2_reference(x, decay)
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_tessel(tessel_bin, ema2, "kir", shape, {"x": x, "decay": decay}, tmp) / "y.npy")
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg="kir")
        # Each program's members are one block of BLOCK_P lanes: fewer than a row, and more than B * C.
        for block_p in (16, 256):
            got = np.load(run_tessel(tessel_bin, ema2, "pgpu", shape, {"x": x, "decay": decay}, tmp,
                                     {"BLOCK_P": block_p}) / "y.npy")
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"pgpu BLOCK_P={block_p}")
    import torch
    y = torch.full(x.shape, float("nan"))
    ema2(torch.from_numpy(x), torch.from_numpy(decay), y)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-5, err_msg="triton")


BAGS = [
    # (V, D, offsets, NI): empty bags first, in the middle and last; bags of one item; long bags.
    (3, 5, [0, 0, 1, 1, 4], 9),
    (1, 1, [0], 1),
    (7, 13, [0, 2, 2, 3, 3, 3, 11], 29),
    (97, 67, [0, 5, 6, 40, 41], 41),
    (5, 130, [0, 0], 0),
]


@pytest.mark.parametrize("V,D,offsets,NI", BAGS, ids=[f"V{v}D{d}NB{len(o)}NI{n}" for v, d, o, n in BAGS])
def test_bag_accumulators_match_kir(tessel_bin, V, D, offsets, NI):
    rng = np.random.default_rng(D + NI)
    table = rng.standard_normal((V, D)).astype(np.float32)
    indices = rng.integers(0, min(V, 3), size=NI).astype(np.int32)  # few distinct rows: repeated indices
    weights = rng.uniform(0.5, 2.0, size=NI).astype(np.float32)
    offsets = np.asarray(offsets, dtype=np.int32)
    want = bag_reference(table, indices, weights, offsets)
    shape = dict(V=V, D=D, NI=NI, NB=len(offsets))
    inputs = {"table": table, "indices": indices, "weights": weights, "offsets": offsets}
    with tempfile.TemporaryDirectory() as tmp:
        got = np.load(run_tessel(tessel_bin, bag_weighted, "kir", shape, inputs, tmp) / "out.npy")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg="kir")
        # The row's columns are blocked by BLOCK: several blocks and a partial one (D = 67, 130), or one.
        for block in (64, 512):
            got = np.load(run_tessel(tessel_bin, bag_weighted, "pgpu", shape, inputs, tmp, {"BLOCK": block}) / "out.npy")
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"pgpu BLOCK={block}")
    import torch
    out = torch.full((len(offsets), D), float("nan"))
    bag_weighted(*[torch.from_numpy(inputs[k]) for k in ("table", "indices", "weights", "offsets")], out)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5, err_msg="triton")


def test_carries_become_fragments(tessel_bin):
    """The pipeline's program: the carried positions are fragment lanes, the time loop one ordered loop."""
    for kernel, block in ((ema2, "BLOCK_P"), (bag_weighted, "BLOCK")):
        with tempfile.TemporaryDirectory() as tmp:
            src = pathlib.Path(tmp) / "k.mlir"
            src.write_text(kernel.kir({}))
            res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=pgpu"], capture_output=True, text=True)
            assert res.returncode == 0, res.stderr
            loops = [ln for ln in res.stdout.splitlines() if "pgpu.for" in ln and "iter_args" in ln]
            # Two tensor carries as fragments; ema2's step count stays a scalar carry.
            assert loops and all(ln.count(f"!pgpu.fragment<f32, [{block}]>") == 4 for ln in loops), loops
            assert "pgpu.foreach" not in res.stdout


def test_reduction_over_the_carry_is_rejected_at_its_line():
    @tessel.kernel
    def centered(x: T.In[T.f32, ("T", "C")], y: T.Out[T.f32, ("T", "C")]):
        TT, C = x.shape
        chans = T.domain(0, C)
        for r in T.parallel(T.domain(0, 1)):
            h = T.zeros(chans)
            for t in T.domain(0, TT):
                h = x[t, chans] + h - T.sum(h, axis=0) / 2.0
                y[t + r, chans] = h

    with pytest.raises(tessel.CompileError, match="reads the carried tensor across positions"):
        centered.source("triton")


SCAN_SHAPES = [dict(B=1, T=1, C=1), dict(B=2, T=37, C=13), dict(B=1, T=0, C=3), dict(B=3, T=130, C=5)]


@pytest.mark.parametrize("shape", SCAN_SHAPES, ids=[f"B{s['B']}T{s['T']}C{s['C']}" for s in SCAN_SHAPES])
def test_scan_spelling_matches_kir(tessel_bin, root, shape):
    """The scan spelling of the recurrence (bench/corpus/25_ema_b.py): a stored scan along time whose
    lines along the channels are an independent foreach (program axes after pgpu-flatten-worksets)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("_corpus_25_ema_b", root / "bench" / "corpus" / "25_ema_b.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rng = np.random.default_rng(shape["T"] + 11 * shape["C"])
    x = rng.standard_normal((shape["B"], shape["T"], shape["C"])).astype(np.float32)
    decay = rng.uniform(0.5, 0.99, size=shape["C"]).astype(np.float32)
    want = mod.reference(x, decay)["y"]
    with tempfile.TemporaryDirectory() as tmp:
        for stage, params in (("kir", None), ("pgpu", {"BLOCK": 64}), ("pgpu", {"BLOCK": 512})):
            got = np.load(run_tessel(tessel_bin, mod.KERNEL, stage, shape, {"x": x, "decay": decay}, tmp, params)
                          / "y.npy")
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"{stage} {params}")
