"""An in-place update after whole-view sums runs in phases of one launch (PhasedSums.cpp; seed 000 §2,
§4.4): each sum is a segment whose instances add the sums of their chunks into a zeroed workspace, and
the worksets using the sums and the update itself wait until every earlier program instance has arrived
at the launch's ticket, then read the sums and work in parallel. Checked at odd shapes (empty, one
element, primes, non-multiples of the chunk and of every block) against NumPy, the KIR interpreter, the
pgpu interpreter in forward and shuffled order (a space that waits runs in order) and Triton under
TRITON_INTERPRET=1, called twice so the second call sees the workspaces the first one returned to zero.
A max (not a sum) keeps the last-program form: checked the same way.
An update that uses no whole-view value, only ordered after another workset's reduction of its view
(mixed-precision unscaling with the overflow check, corpus 260_b: the flag's workset over a one-member
domain is a kernel-level statement, its any-reduction split by pgpu-split-folds), waits for that workset
and runs in parallel: checked the same way, with the split taken (FOLD_SPLIT > 1) on the pgpu interpreter.
"""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
from conftest import call_twice_against, kir_and_pgpu, run_drawn  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def clip(grad: T.InOut[T.f32, ("N",)], total: T.Out[T.f32, (1,)]):
    g = grad[:]
    norm = T.sqrt(T.sum(g * g))
    grad[:] = g * T.minimum(3.0 / (norm + 1e-6), 1.0)
    total[0] = norm


@tessel.kernel
def centre(p: T.InOut[T.i32, ("N",)]):
    v = p[:]
    p[:] = v * 3 - T.sum(v)


@tessel.kernel
def two_sums_and_other_reads(p: T.InOut[T.f32, ("N",)], g: T.In[T.f32, ("N",)], x: T.In[T.f32, ("M",)],
                             q: T.Out[T.f32, ("M",)]):
    # two sums (two segments), and an independent workset (q) that keeps its place before the waits
    rows = T.domain(0, x.shape[0])
    q[rows] = x[rows] * 2.0
    v = p[:]
    a = T.sum(v * v)
    b = T.sum(g[:] * g[:])
    p[:] = v * (a / (b + 1.0)) + 1.0


@tessel.kernel
def max_scale(p: T.InOut[T.f32, ("N",)]):
    v = p[:]
    p[:] = v / (T.max(T.abs(v)) + 1.0)


@tessel.kernel
def unscale_check(grads: T.InOut[T.f32, ("N",)], found_inf: T.InOut[T.f32, (1,)], inv_scale: T.In[T.f32, (1,)]):
    elems = T.domain(0, grads.shape[0])
    g = grads[elems]
    grads[elems] = g * inv_scale[0]
    bad = T.any(~(T.abs(g) < float("inf")))
    one = T.domain(0, 1)
    found_inf[one] = T.where(bad, 1.0, found_inf[one])


SHAPES = [dict(N=0, M=1), dict(N=1, M=1), dict(N=127, M=3), dict(N=1031, M=7), dict(N=32771, M=2),
          dict(N=65537, M=5)]


def _want(kernel, ins):
    if kernel is clip:
        g = ins["grad.in"].astype(np.float64)
        norm = np.sqrt((g * g).sum())
        return {"grad": g * min(3.0 / (norm + 1e-6), 1.0), "total": np.array([norm])}
    if kernel is centre:
        v = ins["p.in"].astype(np.int64)
        return {"p": (v * 3 - v.sum()).astype(np.int32)}
    if kernel is two_sums_and_other_reads:
        v, g, x = (ins[k].astype(np.float64) for k in ("p.in", "g.in", "x.in"))
        return {"p": v * ((v * v).sum() / ((g * g).sum() + 1.0)) + 1.0, "q": 2.0 * x}
    if kernel is unscale_check:
        g = ins["grads.in"].astype(np.float64)
        bad = not np.isfinite(g).all()
        return {"grads": g * np.float64(ins["inv_scale.in"][0]), "found_inf": np.array([1.0]) if bad else
                ins["found_inf.in"].astype(np.float64)}
    v = ins["p.in"].astype(np.float64)
    return {"p": v / (np.abs(v).max(initial=0.0) + 1.0)}


KERNELS = [clip, centre, two_sums_and_other_reads, max_scale]


def _shape(kernel, shape):
    return shape if kernel is two_sums_and_other_reads else {"N": shape["N"]}


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_matches_numpy_and_interpreters(tessel_bin, tmp_path, kernel, shape):
    shape = _shape(kernel, shape)
    outs = {(stage, order): run_drawn(tessel_bin, tmp_path, kernel, shape, stage, order)
            for stage, order in (("kir", "forward"), ("pgpu", "forward"), ("pgpu", "shuffle"))}
    kir = outs[("kir", "forward")]
    for name, want in _want(kernel, kir).items():
        np.testing.assert_allclose(kir[name], want, rtol=1e-5, atol=1e-4, err_msg=name)
        for key, got in outs.items():
            np.testing.assert_allclose(got[name], kir[name], rtol=1e-5, atol=1e-4, err_msg=f"{name} {key}")


def _pgpu(tessel_bin, tmp_path, kernel):
    source = tmp_path / f"{kernel.name}.mlir"
    source.write_text(kernel.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout, res.stderr


@pytest.mark.parametrize("kernel", [clip, centre, two_sums_and_other_reads], ids=lambda k: k.name)
def test_the_phases_are_constructed(tessel_bin, tmp_path, kernel):
    pgpu, remarks = _pgpu(tessel_bin, tmp_path, kernel)
    assert "this whole-view sum is phased" in remarks
    assert "this in-place update after whole-view sums runs in parallel" in remarks
    assert "runs whole in the last program instance" not in remarks
    head, last = pgpu.split("pgpu.last_program", 1)
    # the update's stores are in the program space, after a wait; the last program only resets sums
    assert "order acquire" in head and "pgpu.scatter_reduce" in head
    assert "pgpu.store" not in last and "pgpu.load" not in last and "pgpu.buffer_store" in last
    sums = 2 if kernel is two_sums_and_other_reads else 1
    assert pgpu.count("pgpu.kept") == sums


def test_an_update_without_sums_waits_for_the_reduction(tessel_bin, tmp_path):
    """The flag's T.any of the gradients the update scales is phased like a sum (an or held in i32, one
    atomic a chunk); the flag's workset and the update wait for it and run in parallel."""
    pgpu, remarks = _pgpu(tessel_bin, tmp_path, unscale_check)
    assert "this whole-view sum is phased" in remarks
    assert "this in-place update after whole-view sums runs in parallel" in remarks
    assert "runs whole in the last program instance" not in remarks
    assert "order acquire" in pgpu.split("pgpu.last_program", 1)[0]


@pytest.mark.parametrize("shape", [dict(N=1), dict(N=127), dict(N=1031)], ids=lambda s: f"N{s['N']}")
def test_split_reduction_before_the_update_matches_kir(tessel_bin, tmp_path, shape):
    """The phased any and the waiting update (a 64-lane block, 256 members a program for the update)."""
    kir, out, _ = kir_and_pgpu(tessel_bin, tmp_path, unscale_check, shape, shape["N"],
                               {"BLOCK": 64, "BLOCK_P": 256})
    for name in ("grads", "found_inf"):
        np.testing.assert_allclose(np.load(out / f"{name}.npy"), np.load(kir / f"{name}.npy"), rtol=1e-6, err_msg=name)


@pytest.mark.parametrize("n", [1, 70001], ids=lambda n: f"N{n}")
def test_triton_update_without_sums_twice_matches_numpy(n, tmp_path, monkeypatch):
    """At N=70001 the call's FOLD_SPLIT default splits the flag's reduction over programs."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(n)
    call_twice_against(unscale_check, lambda: _torch_inputs(unscale_check, {"N": n}, rng), NAMES[unscale_check],
                       lambda ins: _want(unscale_check, ins), rtol=1e-6, atol=0.0)


def test_a_max_is_not_phased(tessel_bin, tmp_path):
    pgpu, remarks = _pgpu(tessel_bin, tmp_path, max_scale)
    assert "not phased: it uses a reduction whose combine is not an add" in remarks
    assert "pgpu.store" in pgpu.split("pgpu.last_program", 1)[1]


def _torch_inputs(kernel, shape, rng):
    N, M = shape["N"], shape.get("M", 1)
    if kernel is clip:
        return [torch.from_numpy(rng.standard_normal(N).astype(np.float32)), torch.zeros(1)]
    if kernel is centre:
        return [torch.from_numpy(rng.integers(-50, 50, N).astype(np.int32))]
    if kernel is two_sums_and_other_reads:
        return [torch.from_numpy(rng.standard_normal(N).astype(np.float32)),
                torch.from_numpy(rng.standard_normal(N).astype(np.float32)),
                torch.from_numpy(rng.standard_normal(M).astype(np.float32)), torch.zeros(M)]
    if kernel is unscale_check:
        g = rng.standard_normal(N).astype(np.float32) * 1024.0
        if N > 1:
            g[rng.integers(0, N)] = [np.inf, np.nan][N % 2]
        return [torch.from_numpy(g), torch.zeros(1), torch.tensor([1.0 / 1024.0])]
    return [torch.from_numpy(rng.standard_normal(N).astype(np.float32))]


NAMES = {clip: ["grad.in", "total"], centre: ["p.in"], two_sums_and_other_reads: ["p.in", "g.in", "x.in", "q"],
         max_scale: ["p.in"], unscale_check: ["grads.in", "found_inf.in", "inv_scale.in"]}


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
@pytest.mark.parametrize("shape", [dict(N=0, M=1), dict(N=1, M=2), dict(N=32771, M=3), dict(N=70001, M=5)],
                         ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_triton_twice_matches_numpy(kernel, shape, tmp_path, monkeypatch):
    """Two calls: the second sees the workspaces the first left zero (kept by the wrapper)."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(shape["N"])
    call_twice_against(kernel, lambda: _torch_inputs(kernel, _shape(kernel, shape), rng), NAMES[kernel],
                       lambda ins: _want(kernel, ins), rtol=1e-5, atol=1e-4)
