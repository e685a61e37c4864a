"""A workset that reads what an earlier workset writes (or writes what one reads) runs as a segment of
its own after a wait, in parallel (PhasedSums.cpp, phaseFinalizations; seed 000 §2, §4.4): its
instances wait until the launch's ticket counts every program instance before its segment (programs
start in order), instead of the whole workset running in the last program instance. Checked at odd
shapes (empty, one element, primes, non-multiples of every block) on random inputs against NumPy, the
KIR interpreter, the pgpu interpreter in forward and shuffled order (a space that waits runs in order)
and Triton under TRITON_INTERPRET=1 (the wait finds its count at once there: programs run in order),
called twice so the second call starts from the ticket the first returned to zero. A workset whose
instances read a view they write keeps the last-program form (its remark says why).
"""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
from conftest import call_twice_against  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def reversed_copy(x: T.In[T.f32, ("N",)], y: T.InOut[T.f32, ("N",)], z: T.Out[T.f32, ("N",)]):
    N = x.shape[0]
    for i in T.parallel(T.domain(0, N)):
        y[i] = x[i] * 2.0
    for i in T.parallel(T.domain(0, N)):
        z[i] = y[N - 1 - i] + 1.0


@tessel.kernel
def chain(x: T.In[T.f32, ("N",)], y: T.InOut[T.f32, ("N",)], z: T.InOut[T.f32, ("N",)],
          w: T.Out[T.f32, ("N",)]):
    # two waiting segments: z reads y, w reads z (and y)
    N = x.shape[0]
    for i in T.parallel(T.domain(0, N)):
        y[i] = x[i] - 0.5
    for i in T.parallel(T.domain(0, N)):
        z[i] = y[N - 1 - i] * 3.0
    for i in T.parallel(T.domain(0, N)):
        w[i] = z[N - 1 - i] + y[i]


@tessel.kernel
def segment_max(x: T.In[T.f32, ("N",)], ids: T.In[T.i32, ("N",), T.Range(0, "S")], out: T.InOut[T.f32, ("S",)]):
    # a max scatter-reduce after a fill of its view (no workspace merge for a max): it waits for the fill
    out[T.domain(0, out.shape[0])] = 0.0
    rows = T.domain(0, x.shape[0])
    T.scatter_reduce(out, (ids[rows],), x[rows], combine="max")


@tessel.kernel
def reverse_in_place(x: T.In[T.f32, ("N",)], y: T.InOut[T.f32, ("N",)]):
    # must not be phased: the second workset's instances read y elements that other instances write
    N = x.shape[0]
    for i in T.parallel(T.domain(0, N)):
        y[i] = x[i]
    for i in T.parallel(T.domain(0, N)):
        y[N - 1 - i] = T.exp(y[i] * 0.01)


SHAPES = [dict(N=0, S=1), dict(N=1, S=1), dict(N=2, S=3), dict(N=127, S=5), dict(N=1031, S=7),
          dict(N=4099, S=2)]
PHASED = [reversed_copy, chain, segment_max]


def _shape(kernel, shape):
    return shape if kernel is segment_max else {"N": shape["N"]}


def _run(tessel_bin, tmp_path, kernel, shape, stage, order):
    source = tmp_path / f"{kernel.name}.mlir"
    source.write_text(kernel.kir())
    out = tmp_path / f"{kernel.name}-{stage}-{order}"
    cmd = [str(tessel_bin), "run", f"{source}:{kernel.name}", "--stage", stage, "--order", order, "--seed", "11",
           "--shape", ",".join(f"{k}={v}" for k, v in shape.items()), "--out", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
    return {p.name[:-4]: np.load(p) for p in out.glob("*.npy")}


def _want(kernel, ins):
    x = ins["x.in"].astype(np.float64)
    if kernel is reversed_copy:
        y = 2.0 * x
        return {"y": y, "z": y[::-1] + 1.0}
    if kernel is chain:
        y = x - 0.5
        z = y[::-1] * 3.0
        return {"y": y, "z": z, "w": z[::-1] + y}
    out = np.zeros(ins["out.in"].shape[0])
    np.maximum.at(out, ins["ids.in"].astype(np.int64), x)
    return {"out": out}


@pytest.mark.parametrize("kernel", PHASED, ids=lambda k: k.name)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_matches_numpy_and_interpreters(tessel_bin, tmp_path, kernel, shape):
    shape = _shape(kernel, shape)
    outs = {(stage, order): _run(tessel_bin, tmp_path, kernel, shape, stage, order)
            for stage, order in (("kir", "forward"), ("pgpu", "forward"), ("pgpu", "shuffle"))}
    kir = outs[("kir", "forward")]
    for name, want in _want(kernel, kir).items():
        np.testing.assert_allclose(kir[name], want, rtol=1e-6, atol=1e-6, err_msg=name)
        for key, got in outs.items():
            np.testing.assert_array_equal(got[name], kir[name], err_msg=f"{name} {key}")


def _pgpu(tessel_bin, tmp_path, kernel):
    source = tmp_path / f"{kernel.name}.mlir"
    source.write_text(kernel.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout, res.stderr


@pytest.mark.parametrize("kernel", PHASED, ids=lambda k: k.name)
def test_the_segments_wait_and_the_last_program_is_empty(tessel_bin, tmp_path, kernel):
    pgpu, remarks = _pgpu(tessel_bin, tmp_path, kernel)
    assert "its instances waiting until every earlier program instance has arrived" in remarks
    assert "runs whole in the last program instance" not in remarks
    head, last = pgpu.split("pgpu.last_program", 1)
    waits = 2 if kernel is chain else 1
    assert head.count("order acquire") == waits
    assert "pgpu.store" not in last and "pgpu.load" not in last and "pgpu.scatter_reduce" not in last


def test_a_workset_reading_what_it_writes_is_not_phased(tessel_bin, tmp_path):
    pgpu, remarks = _pgpu(tessel_bin, tmp_path, reverse_in_place)
    assert "not phased: a finalization's instances read a view they write" in remarks
    assert "pgpu.store" in pgpu.split("pgpu.last_program", 1)[1]


def _torch_inputs(kernel, shape, rng):
    N, S = shape["N"], shape.get("S", 1)
    x = torch.from_numpy(rng.standard_normal(N).astype(np.float32))
    if kernel is segment_max:
        return [x, torch.from_numpy(rng.integers(0, S, N).astype(np.int32)), torch.full((S,), 7.0)]
    return [x] + [torch.zeros(N) for _ in range(3 if kernel is chain else 2)]


NAMES = {reversed_copy: ["x.in", "y", "z"], chain: ["x.in", "y", "z", "w"], segment_max: ["x.in", "ids.in", "out.in"]}


@pytest.mark.parametrize("kernel", PHASED, ids=lambda k: k.name)
@pytest.mark.parametrize("shape", [dict(N=0, S=1), dict(N=1, S=2), dict(N=1031, S=3), dict(N=70001, S=5)],
                         ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_triton_twice_matches_numpy(kernel, shape, tmp_path, monkeypatch):
    """Two calls: the second starts from the ticket the first returned to zero."""
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(shape["N"])
    call_twice_against(kernel, lambda: _torch_inputs(kernel, _shape(kernel, shape), rng), NAMES[kernel],
                       lambda ins: _want(kernel, ins), rtol=1e-6, atol=1e-6)


def test_a_kernel_with_a_product_is_not_phased(tessel_bin, root):
    # the ragged grouped GEMM's zero tail follows the groups' tiled products: pgpu-form-tiles tiles only a
    # chain of segments without waits, so the tail stays in the last program and the groups stay tiled
    res = subprocess.run([str(tessel_bin), "compile", str(root / "examples" / "grouped_gemm.py") + ":grouped_gemm",
                          "--emit=pgpu", "--remarks"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "not phased: the kernel computes a product" in res.stderr
    assert "pgpu-form-tiles: not tiled" not in res.stderr
