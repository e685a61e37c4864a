"""kir-monotone-reductions (MonotoneReductions.cpp) through a soft cap under a mask: the maximum of
`where(visible, c * tanh(x / c), -inf)` is `c * tanh(m / c)` of the visible maximum m, -inf where no member is
visible (corpus 17's first fold: one tanh a row instead of one a score). c is a runtime scalar of either sign,
0 included (0 / 0 = NaN at x = 0 must reach the maximum). Exact: the pgpu interpreter after the whole pipeline
(shuffled order, two BLOCK bindings) equals the KIR interpreter (the unrewritten program) bit for bit, NaN
included, at odd shapes (V = 0, 1, primes, rows with no visible member) on rows holding zeros, +-inf and NaN;
the generated Triton under TRITON_INTERPRET=1 matches it within tanh's rounding."""
import math
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402


@tessel.kernel
def capped_max(x: T.In[T.f32, ("B", "V")], m: T.Out[T.f32, ("B",)], c: T.f32, w: T.i32):
    B, V = x.shape
    cols = T.domain(0, V)
    for b in T.parallel(T.domain(0, B)):
        s = c * T.tanh(x[b, cols] / c)
        # key j visible to row b when j <= b + w (w < 0: the first rows see nothing)
        visible = T.indices(cols) <= b + T.cast(w, T.index)
        m[b] = T.max(T.where(visible, s, -math.inf))


SHAPES = [dict(B=1, V=1), dict(B=3, V=0), dict(B=7, V=131)]
SHAPE_ID = lambda s: "-".join(f"{k}{v}" for k, v in s.items())  # noqa: E731


def rows(B, V, seed):
    rng = np.random.default_rng(seed)
    x = (20.0 * rng.standard_normal((B, V))).astype(np.float32)
    if V:
        x[:, 0] = 0.0                      # 0 / c: NaN where c = 0
        if B > 2:
            x[2, V - 1] = np.inf
        if B > 3:
            x[3, :] = -np.inf
        if B > 4:
            x[4, V // 2] = np.nan
    return x


def run(tessel_bin, src, stage, shapes, x, scalars, tmp, params=None):
    out = tmp / f"{stage}-{'-'.join(f'{k}{v}' for k, v in (params or {}).items())}"
    np.save(tmp / "x.npy", x)
    args = [str(tessel_bin), "run", str(src), "--stage", stage, "--seed", "3", "--out", str(out),
            "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()), "--in", f"x={tmp / 'x.npy'}"]
    args += [f"--scalar={k}={v!r}" for k, v in scalars.items()]
    if stage == "pgpu":
        args += ["--order", "shuffle", *[f"--param={k}={v}" for k, v in (params or {}).items()]]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return np.load(out / "m.npy")


@pytest.mark.parametrize("cap", [10.0, -3.0, 0.0])
@pytest.mark.parametrize("shapes", SHAPES, ids=SHAPE_ID)
def test_pgpu_matches_kir(tessel_bin, tmp_path, shapes, cap):
    src = tmp_path / "k.mlir"
    src.write_text(capped_max.kir())
    x = rows(shapes["B"], shapes["V"], shapes["V"] + 5)
    scalars = {"c": cap, "w": -2}
    ref = run(tessel_bin, src, "kir", shapes, x, scalars, tmp_path)
    for block in (64, 512):
        got = run(tessel_bin, src, "pgpu", shapes, x, scalars, tmp_path, {"BLOCK": block})
        np.testing.assert_array_equal(got, ref, err_msg=f"pgpu BLOCK={block}")


def test_rewrite_takes_one_tanh_a_row(tessel_bin, tmp_path):
    """After the KIR passes every tanh is a row's scalar, none a member's."""
    src = tmp_path / "k.mlir"
    src.write_text(capped_max.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=kir"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    tanhs = [line for line in res.stdout.splitlines() if "kir.unary tanh" in line]
    assert tanhs and all(line.rstrip().endswith(": f32") for line in tanhs), tanhs


@pytest.mark.parametrize("cap", [pytest.param(10.0, marks=pytest.mark.deep(reason="cap 0 runs the same kernel")), 0.0])
def test_triton_matches_kir(tmp_path, monkeypatch, cap):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    shapes = dict(B=6, V=37)
    x = rows(shapes["B"], shapes["V"], 2)
    ref = capped_max.run_interp(shapes, scalars={"c": cap, "w": -2}, inputs={"x": x})["m"]
    m = torch.empty(shapes["B"])
    capped_max(torch.from_numpy(x), m, c=cap, w=-2)
    np.testing.assert_allclose(m.numpy(), ref, rtol=1e-6, atol=0)
