"""kir.reshape, kir.transpose and kir.join inside a parallel body, through construction (kir-to-pgpu's
element-wise realization: a reshape decodes the result position's row-major linear index over the
operand's extents, seed 000 §7), against NumPy, the KIR interpreter, the constructed program on the
pgpu interpreter in every program order, and the generated Triton under TRITON_INTERPRET=1, at odd
shapes (1, primes, 0).
"""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def shapes_in_parallel(x: T.In[T.f32, ("M", "R", "C")], y: T.Out[T.f32, ("M", "C", "R")],
                       f: T.Out[T.f32, ("M", "K")], g: T.Out[T.f32, ("M", "C", "R")],
                       p: T.Out[T.f32, ("M", "R")], q: T.Out[T.f32, ("M",)]):
    M, R, C = x.shape
    rows, cols = T.domain(0, R), T.domain(0, C)
    flat = T.domain(0, f.shape[1])  # K = R * C: the caller's obligation, as for any reshape
    for m in T.parallel(T.domain(0, M)):
        t = x[m, rows, cols]
        y[m, cols, rows] = T.transpose(t) * 2.0
        f[m, flat] = T.reshape(t, over=(flat,)) + 1.0
        g[m, cols, rows] = T.reshape(t, over=(cols, rows))  # R x C read row-major as C x R
        pair = T.join(T.sum(t, axis=1), T.max(t, axis=1))
        p[m, rows] = T.max(pair, axis=1) - T.min(pair, axis=1)
        q[m] = T.extract(T.join(T.sum(t), T.max(t)), 1)  # a join of scalars


SHAPES = [{"M": 1, "R": 1, "C": 1}, {"M": 3, "R": 5, "C": 7}, {"M": 2, "R": 13, "C": 3},
          {"M": 2, "R": 1, "C": 17}]


def reference(x):
    x = x.astype(np.float64)
    M, R, C = x.shape
    s, mx = x.sum(axis=2), x.max(axis=2)
    return {"y": 2 * x.transpose(0, 2, 1), "f": x.reshape(M, R * C) + 1, "g": x.reshape(M, C, R),
            "p": np.abs(s - mx), "q": x.reshape(M, -1).max(axis=1)}


def with_k(shapes):
    return dict(shapes, K=shapes["R"] * shapes["C"])


def run_stage(tessel_bin, source, shapes, stage, order, out):
    cmd = [str(tessel_bin), "run", f"{source}:shapes_in_parallel", "--stage", stage, "--seed", "3",
           "--order", order, "--out", str(out), "--shape", ",".join(f"{k}={v}" for k, v in shapes.items())]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
    return {p.name[:-4]: np.load(p) for p in out.glob("*.npy")}


@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_constructed_program_matches_kir_and_numpy(tessel_bin, tmp_path, shapes):
    source = tmp_path / "shapes.mlir"
    source.write_text(shapes_in_parallel.kir())
    shapes = with_k(shapes)
    ref = run_stage(tessel_bin, source, shapes, "kir", "forward", tmp_path / "kir")
    want = reference(ref["x.in"])
    for name, value in want.items():
        np.testing.assert_allclose(ref[name], value, rtol=1e-6, atol=1e-6, err_msg=f"kir {name}")
    for order in ("forward", "shuffle"):
        got = run_stage(tessel_bin, source, shapes, "pgpu", order, tmp_path / f"pgpu-{order}")
        for name in want:
            np.testing.assert_array_equal(got[name], ref[name], err_msg=f"pgpu {order} {name}")


def test_construction_realizes_the_reshape_as_index_arithmetic(tessel_bin, tmp_path):
    source = tmp_path / "shapes.mlir"
    source.write_text(shapes_in_parallel.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    # the row-major decode: remainders and quotients by the operand's extents, no kir op left
    assert "pgpu.binary rem" in res.stdout and "pgpu.binary div" in res.stdout
    assert " = kir." not in res.stdout


@pytest.mark.parametrize("shapes", SHAPES[:3], ids=lambda s: "-".join(f"{k}{v}" for k, v in s.items()))
def test_triton_matches_interpreter(shapes, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    shapes = with_k(shapes)
    ref = shapes_in_parallel.run_interp(shapes, seed=11)
    M, R, C = shapes["M"], shapes["R"], shapes["C"]
    x = torch.from_numpy(ref["x.in"])
    outs = {"y": torch.empty(M, C, R), "f": torch.empty(M, R * C), "g": torch.empty(M, C, R),
            "p": torch.empty(M, R), "q": torch.empty(M)}
    shapes_in_parallel(x, **outs)
    for name, t in outs.items():
        np.testing.assert_allclose(t.numpy(), ref[name], rtol=1e-6, atol=1e-6, err_msg=name)
