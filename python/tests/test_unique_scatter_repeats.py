"""A unique scatter (a store through index-tensor coordinates) may write one destination twice only with
the same bits: every order then leaves the same value (torch's scatter_ of repeated ids with equal values;
corpus 128's in-place repetition penalty of repeated token ids). The KIR interpreter accepts such repeats and
names the destination and the two members when the values differ; the Triton path stores the same value from
each lane. The in-place penalty itself (its value read from the view it writes) is staged by kir-to-pgpu, every
gather of the row before any write (test_in_place_scatters.py); written into another view it compiles as is."""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from tessel._errors import CompileError  # noqa: E402


@tessel.kernel
def penalize(logits: T.InOut[T.f32, ("B", "V")], prev: T.In[T.i32, ("B", "L"), T.Range(0, "V")], p: T.f32):
    hist = T.domain(0, prev.shape[1])
    for b in T.parallel(T.domain(0, logits.shape[0])):
        toks = prev[b, hist]
        v = logits[b, toks]
        logits[b, toks] = T.where(v > 0.0, v / p, v * p)   # a repeated id stores the same value each time


@tessel.kernel
def penalize_into(out: T.InOut[T.f32, ("B", "V")], logits: T.In[T.f32, ("B", "V")],
                  prev: T.In[T.i32, ("B", "L"), T.Range(0, "V")], p: T.f32):
    hist = T.domain(0, prev.shape[1])
    for b in T.parallel(T.domain(0, logits.shape[0])):
        toks = prev[b, hist]
        v = logits[b, toks]
        out[b, toks] = T.where(v > 0.0, v / p, v * p)   # the old values read from another view


@tessel.kernel
def place(vals: T.In[T.f32, ("L",)], ids: T.In[T.i32, ("L",), T.Range(0, "V")], out: T.InOut[T.f32, ("V",)]):
    seen = T.domain(0, vals.shape[0])
    out[T.index_relation(ids, seen)] = vals[seen]    # repeated ids with different values: order-dependent


def _want(logits, prev, p):
    want = logits.copy()
    for b in range(logits.shape[0]):
        for t in set(prev[b].tolist()):
            want[b, t] = logits[b, t] / p if logits[b, t] > 0 else logits[b, t] * p
    return want


def test_repeats_with_equal_values_are_one_write(tessel_bin, tmp_path):
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((3, 37)).astype(np.float32)
    prev = np.array([[5, 11, 5, 0, 36, 11, 11, 2], [1, 1, 1, 1, 1, 1, 1, 1], [0, 1, 2, 3, 4, 5, 6, 36]], np.int32)
    source = tmp_path / "penalize.mlir"
    source.write_text(penalize.kir())
    args = []
    for name, arr in (("logits", logits), ("prev", prev)):
        np.save(tmp_path / f"{name}.npy", arr)
        args += ["--in", f"{name}={tmp_path / f'{name}.npy'}"]
    res = subprocess.run([str(tessel_bin), "run", f"{source}:penalize", "--stage", "kir", "--scalar", "p=1.3",
                          *args, "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    got = np.load(tmp_path / "out" / "logits.npy")
    np.testing.assert_allclose(got, _want(logits, prev, np.float32(1.3)), rtol=1e-6)


def test_repeats_with_different_values_name_the_destination():
    vals = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    ids = np.array([4, 1, 4], dtype=np.int32)
    with pytest.raises((CompileError, RuntimeError)) as err:
        place.run_interp(shapes={}, inputs={"vals": vals, "ids": ids, "out": np.zeros(6, np.float32)})
    text = str(err.value)
    assert "destination (4) twice with different values" in text and "#0 and #2" in text, text


@pytest.mark.parametrize("b,l", [(5, 97), (3, 700)])
def test_the_generated_triton_stores_repeats_alike(b, l):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5 + l)
    logits = rng.standard_normal((b, 131)).astype(np.float32)
    prev = rng.integers(0, 131, (b, l)).astype(np.int32)  # many repeats; at l = 700 rows cross lane chunks
    out = torch.from_numpy(logits.copy())
    penalize_into(out, torch.from_numpy(logits), torch.from_numpy(prev), p=0.7)
    np.testing.assert_allclose(out.numpy(), _want(logits, prev, np.float32(0.7)), rtol=1e-6)


@pytest.mark.parametrize("b,l", [(5, 97), (3, 700)])
def test_the_in_place_penalty_stores_repeats_alike(b, l):
    """The in-place penalty (its value read from the view it writes) is staged by kir-to-pgpu
    (StagedScatters.cpp): every gather of the row before any write, so repeats store one value."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7 + l)
    logits = rng.standard_normal((b, 131)).astype(np.float32)
    prev = rng.integers(0, 131, (b, l)).astype(np.int32)
    out = torch.from_numpy(logits.copy())
    penalize(out, torch.from_numpy(prev), p=0.7)
    np.testing.assert_allclose(out.numpy(), _want(logits, prev, np.float32(0.7)), rtol=1e-6)
