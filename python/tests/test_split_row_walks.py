"""A long row's blocked statistics across programs in two phases (pgpu-split-row-walks; seed 002 §4, seed
000 §4.4): after the row plans (pgpu-stage-rows / pgpu-pack-rows), a row longer than BLOCK has its blocked
walks cut into MEMBER_SPLITS slices of blocks; the first phase sums the slices of the mean, the second
waits for them, merges them in slice order and sums its slice of the squares about the mean; the row's
last arrival merges and stores. A row that fits a block keeps its staged (packed) path. Checked at odd
shapes (empty rows, one element, primes, non-multiples of every block) on random inputs against NumPy,
the KIR interpreter, the pgpu interpreter in forward, reverse and shuffled order at several MEMBER_SPLIT
and BLOCK bindings, and Triton under TRITON_INTERPRET=1 called twice (the second call starts from the
counts the first returned to zero).
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
def row_variance(x: T.In[T.f32, ("R", "N")], mean: T.Out[T.f32, ("R",)], var: T.Out[T.f32, ("R",)]):
    R, N = x.shape
    cols = T.domain(0, N)
    nf = T.cast(N, T.f32)
    for r in T.parallel(T.domain(0, R)):
        row = x[r, cols]
        mu = T.sum(row) / nf
        mean[r] = mu
        d = row - mu
        var[r] = T.sum(d * d) / nf


@tessel.kernel
def row_sum_max(x: T.In[T.f32, ("R", "N")], s: T.Out[T.f32, ("R",)]):
    # must not be split: no walk reads another (one phase)
    R, N = x.shape
    cols = T.domain(0, N)
    for r in T.parallel(T.domain(0, R)):
        s[r] = T.sum(x[r, cols]) + T.max(x[r, cols])


def _want(ins):
    x = ins["x.in"].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = x.sum(axis=1) / x.shape[1]
        return {"mean": mu, "var": ((x - mu[:, None]) ** 2).sum(axis=1) / x.shape[1]}


PIPELINE = ["--tessel-pipeline=provider=triton stop-after=realize-folds"]  # the Triton provider's passes


def _program(tessel_bin, tmp_path, kernel):
    source = tmp_path / f"{kernel.name}.mlir"
    source.write_text(kernel.kir())
    program = tmp_path / f"{kernel.name}.pgpu.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *PIPELINE, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    return source, program


def _run(tessel_bin, tmp_path, file, shape, order, params=(), stage=()):
    out = tmp_path / f"run-{order}-{'-'.join(params)}-{len(stage)}"
    cmd = [str(tessel_bin), "run", f"{file}:row_variance", *stage, "--order", order, "--seed", "5",
           "--shape", ",".join(f"{k}={v}" for k, v in shape.items()), "--out", str(out)]
    for p in params:
        cmd += ["--param", p]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
    return {p.name[:-4]: np.load(p) for p in out.glob("*.npy")}


# rows of 0 or 1 element (staged), a prime past a 64-lane block, one just past 3 blocks of 512
SHAPES = [dict(R=3, N=0), dict(R=1, N=1), dict(R=5, N=257), dict(R=2, N=1543)]
BINDINGS = [("shuffle", ("BLOCK=64",)), ("forward", ("BLOCK=64", "MEMBER_SPLIT=2")),
            ("reverse", ("BLOCK=64", "MEMBER_SPLIT=4", "ROWS=2")), ("shuffle", ("BLOCK=512", "MEMBER_SPLIT=64")),
            ("shuffle", ("BLOCK=64", "MEMBER_SPLIT=1"))]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_matches_numpy_and_interpreters(tessel_bin, tmp_path, shape):
    source, program = _program(tessel_bin, tmp_path, row_variance)
    assert '"MEMBER_SPLIT"' in program.read_text()
    kir = _run(tessel_bin, tmp_path, source, shape, "forward", stage=("--stage", "kir"))
    for name, want in _want(kir).items():
        np.testing.assert_allclose(kir[name], want, rtol=1e-5, atol=1e-5, err_msg=name)
    for order, params in BINDINGS:
        got = _run(tessel_bin, tmp_path, program, shape, order, params)
        for name in ("mean", "var"):
            np.testing.assert_allclose(got[name], kir[name], rtol=1e-5, atol=1e-5, err_msg=f"{name} {order} {params}")


def test_the_second_phase_waits_and_the_last_arrival_stores(tessel_bin, tmp_path):
    text = _program(tessel_bin, tmp_path, row_variance)[1].read_text()
    head, last = text.split("pgpu.last_program", 1)
    assert 'roles ["axis0", "member_split"]' in head
    assert "order acquire" in head and "order release" in head
    assert "pgpu.store" in last


def test_one_phase_is_not_split(tessel_bin, tmp_path):
    assert "MEMBER_SPLIT" not in _program(tessel_bin, tmp_path, row_sum_max)[1].read_text()


def test_triton_twice_matches_numpy(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TESSEL_PARAMS", "BLOCK=64,MEMBER_SPLIT=4")
    rng = np.random.default_rng(7)

    def args():
        x = rng.standard_normal((3, 331)) * 3.0 + 5.0
        return [torch.from_numpy(x.astype(np.float32)), torch.zeros(3), torch.zeros(3)]
    call_twice_against(row_variance, args, ["x.in", "mean", "var"], _want, rtol=1e-5, atol=1e-5)
