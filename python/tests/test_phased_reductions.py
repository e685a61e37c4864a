"""A whole-view scalar reduction that element-wise worksets read is phased, not replayed per instance
(PhasedReductions.cpp; seed 000 §2, §4.4; seed 002 §3.4, §4): its own segment of chunk partials, the
last chunk merging them, then the worksets using it wait and read the result. Before, every program of
the store walked the whole view again (corpus 315's per-tensor FP8 scale: O(n^2)). Checked at odd shapes
(empty, one element, primes, non-multiples of every block and of the 32768-element chunk) against NumPy,
the KIR interpreter, the pgpu interpreter forward and shuffled, and Triton under TRITON_INTERPRET=1 called
twice (the second call starts from the tickets the first returned to zero). A reduction that keeps axes
is not phased.
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
def absmax_scale(x: T.In[T.f32, ("M", "N")], q: T.Out[T.f32, ("M", "N")], scale: T.Out[T.f32, (1,)]):
    # a max over a rank-2 view (no atomic add): the per-tensor quantizer's scale
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    xf = x[rows, cols]
    s = T.maximum(T.max(abs(xf)), 1e-12) / 448.0
    q[rows, cols] = T.minimum(T.maximum(xf / s, -448.0), 448.0)
    scale[0] = s


@tessel.kernel
def minus_min(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
    # a min over a rank-1 view, read by a parallel
    N = x.shape[0]
    m = T.min(x[T.domain(0, N)])
    for i in T.parallel(T.domain(0, N)):
        y[i] = x[i] - m


@tessel.kernel
def row_max(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    # must not fire: each row's max keeps the row axis
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    for m in T.parallel(rows):
        y[m, cols] = x[m, cols] - T.max(x[m, cols])


def _want(kernel, ins):
    x = ins["x.in"].astype(np.float64)
    if kernel is absmax_scale:
        s = max(np.abs(x).max(initial=-np.inf), 1e-12) / 448.0
        return {"q": np.clip(x / s, -448.0, 448.0), "scale": np.array([s])}
    return {"y": x - x.min(initial=np.inf) if x.size else x}


SHAPES = {absmax_scale: [dict(M=0, N=3), dict(M=1, N=1), dict(M=3, N=37), dict(M=5, N=67), dict(M=131, N=257)],
          minus_min: [dict(N=0), dict(N=1), dict(N=127), dict(N=32771), dict(N=70001)]}
NAMES = {absmax_scale: ["x.in", "q", "scale"], minus_min: ["x.in", "y"]}
CASES = [(k, s) for k in (absmax_scale, minus_min) for s in SHAPES[k]]
IDS = [f"{k.name}-" + "-".join(f"{a}{v}" for a, v in s.items()) for k, s in CASES]


def _run(tessel_bin, tmp_path, kernel, shape, stage, order):
    source = tmp_path / f"{kernel.name}.mlir"
    source.write_text(kernel.kir())
    out = tmp_path / f"{kernel.name}-{stage}-{order}"
    cmd = [str(tessel_bin), "run", f"{source}:{kernel.name}", "--target=triton", "--stage", stage, "--order", order, "--seed", "5",
           "--shape", ",".join(f"{k}={v}" for k, v in shape.items()), "--out", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
    return {p.name[:-4]: np.load(p) for p in out.glob("*.npy")}


# `tessel run --stage pgpu` interprets the program right after construction, before the phasing passes:
# N programs each reducing all N elements, O(N^2) (N = 32771 took 200 s per order), so the interpreters
# stop at N = 127; the phased chunks' merge at large N is checked through Triton (deep tier) and on the GPU.
@pytest.mark.parametrize("kernel,shape", CASES[:4] + CASES[5:8], ids=IDS[:4] + IDS[5:8])
def test_matches_numpy_and_interpreters(tessel_bin, tmp_path, kernel, shape):
    outs = {(stage, order): _run(tessel_bin, tmp_path, kernel, shape, stage, order)
            for stage, order in (("kir", "forward"), ("pgpu", "forward"), ("pgpu", "shuffle"))}
    kir = outs[("kir", "forward")]
    for name, want in _want(kernel, kir).items():
        np.testing.assert_allclose(kir[name], want, rtol=1e-5, atol=1e-6, err_msg=name)
        for key, got in outs.items():
            np.testing.assert_array_equal(got[name], kir[name], err_msg=f"{name} {key}")


def _source(tessel_bin, kernel):
    # the Triton source: the phasing needs a provider that spells the wait (an acquire load in a loop)
    source = f"{os.path.abspath(__file__)}:{kernel.name}"
    res = subprocess.run([str(tessel_bin), "compile", source, "--target=triton", "--emit=source"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.mark.parametrize("kernel", [absmax_scale, minus_min], ids=lambda k: k.name)
def test_the_reduction_is_a_segment_and_its_users_wait(tessel_bin, kernel):
    src = _source(tessel_bin, kernel)
    # a wait before each using segment (an acquire load in a loop), the partials' merge by the last chunk
    assert src.count("while _go") == (2 if kernel is absmax_scale else 1)
    assert src.count("sem='acq_rel'") == 2


def test_a_reduction_keeping_axes_is_not_phased(tessel_bin):
    src = _source(tessel_bin, row_max)
    assert "while _go" not in src and "sem='acq_rel'" not in src


def _torch_inputs(kernel, shape, rng):
    if kernel is absmax_scale:
        x = rng.standard_normal((shape["M"], shape["N"])) * 3.0
        if x.size > 2:
            x[x.shape[0] // 2, -1] = -50.0  # the scale's element, away from the first chunk
        return [torch.from_numpy(x.astype(np.float32)), torch.zeros(shape["M"], shape["N"]), torch.zeros(1)]
    return [torch.from_numpy(rng.standard_normal(shape["N"]).astype(np.float32)), torch.zeros(shape["N"])]


def _deep(kernel, shape):
    # many programs under TRITON_INTERPRET=1 (tens of seconds): the chunks' merge at these sizes is
    # checked here in the deep tier (the pgpu interpreter above runs before the phasing passes)
    big = kernel is minus_min and shape["N"] > 1000 or kernel is absmax_scale and shape["M"] > 100
    return pytest.mark.skipif(big and not os.environ.get("TESSEL_DEEP"), reason="TESSEL_DEEP")


@pytest.mark.parametrize("kernel,shape", [pytest.param(k, s, marks=_deep(k, s)) for k, s in CASES], ids=IDS)
def test_triton_twice_matches_numpy(kernel, shape, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(sum(shape.values()))
    call_twice_against(kernel, lambda: _torch_inputs(kernel, shape, rng), NAMES[kernel],
                       lambda ins: _want(kernel, ins), rtol=1e-5, atol=1e-6)
