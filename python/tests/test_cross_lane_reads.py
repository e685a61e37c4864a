"""A read of a view its own program wrote, where another thread of the program may have written the element,
follows a CTA barrier in the Triton source (issue 47; lib/Target/Triton/CrossLaneReads.cpp). Triton orders a
program's global accesses only within a thread; TRITON_INTERPRET=1 runs a program as one thread and cannot
show the race, so the barrier's presence is checked in the source and the values against the interpreter.

- Fires: a sequential sweep that reads the decisions of earlier trips (corpus 301's keep: a scalar stored by
  one thread, read back as a fragment) and a recurrence over rows read one lane over (corpus 302's alpha).
- Must not fire: an elementwise update in place (each lane reads what it stores), an accumulation in place
  over a loop (the same lanes every trip), a shifted read of another view."""
import importlib.util
import os
import pathlib

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

CORPUS = pathlib.Path(__file__).resolve().parents[2] / "bench" / "corpus"


def _corpus(name):
    spec = importlib.util.spec_from_file_location(f"corpus_{name}", CORPUS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@tessel.kernel
def shift_rows(x: T.InOut[T.f32, ("B", "T", "S")]):
    B, Tn, S = x.shape
    ext = T.domain(0, S)
    for b in T.parallel(T.domain(0, B)):
        s = T.indices(ext)
        for t in T.domain(1, Tn):
            left = T.load(x, (b, t - 1, s - 1), valid=s >= 1, fill=0.0)
            x[b, t, ext] = x[b, t, ext] + left


@tessel.kernel
def scale_inplace(x: T.InOut[T.f32, ("B", "S")]):
    B, S = x.shape
    ext = T.domain(0, S)
    for b in T.parallel(T.domain(0, B)):
        x[b, ext] = x[b, ext] * 2.0


@tessel.kernel
def accumulate_rows(x: T.In[T.f32, ("B", "T", "S")], acc: T.InOut[T.f32, ("B", "S")]):
    B, Tn, S = x.shape
    ext = T.domain(0, S)
    for b in T.parallel(T.domain(0, B)):
        for t in T.domain(0, Tn):
            acc[b, ext] = acc[b, ext] + x[b, t, ext]


def _kernel_body(source, name):
    body = source[source.index(f"def _{name}_kernel("):]
    return body[:body.index("\ndef ", 1)]


def test_barrier_where_lanes_read_other_lanes_stores():
    nms, ctc = _corpus("301_nms_sorted_boxes"), _corpus("302_ctc_loss_forward")
    assert "tl.debug_barrier()" in _kernel_body(nms.KERNEL.source(), "nms_sorted")
    assert "tl.debug_barrier()" in _kernel_body(ctc.KERNEL.source(), "ctc_forward")
    assert "tl.debug_barrier()" in _kernel_body(shift_rows.source(), "shift_rows")
    for k in (scale_inplace, accumulate_rows):
        assert "tl.debug_barrier()" not in _kernel_body(k.source(), k.name)


@pytest.mark.parametrize("b,t,s", [(1, 1, 1), (2, 5, 7), (1, 3, 131)])
def test_shift_rows_agrees_with_the_interpreter(b, t, s, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    x = np.random.default_rng(b * 100 + t * 10 + s).standard_normal((b, t, s)).astype(np.float32)
    want = shift_rows.run_interp(shapes=dict(B=b, T=t, S=s), inputs=dict(x=x))
    got = torch.from_numpy(x.copy())
    shift_rows(got)
    np.testing.assert_allclose(got.numpy(), want["x"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [dict(B=1, N=1), dict(B=2, N=13)])
def test_nms_agrees_with_the_reference(shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    nms = _corpus("301_nms_sorted_boxes")
    args = nms.inputs(shape, np.random.default_rng(shape["N"]))
    keep = torch.from_numpy(args["keep"].copy())
    nms.KERNEL(torch.from_numpy(args["boxes"]), keep, iou_threshold=args["iou_threshold"])
    np.testing.assert_array_equal(keep.numpy(), nms.reference(**args)["keep"])
