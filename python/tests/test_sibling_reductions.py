"""pgpu-form-blocking merges sibling reductions over one range that do not depend on each other into
one walk (a layer norm backward's sum(g * xhat) and sum(g) per row; its weight and bias gradients, two
sums over the rows per column), so each block of the range is read once for both.

Differential: at extents 1, primes and non-multiples of every block (ranges below, at and above
BLOCK, so both the staged single-block path and the loops run), the pgpu interpreter and the generated
Triton under TRITON_INTERPRET=1 compute what the KIR interpreter computes; and the generated Triton
walks each row twice (the sums, then dx), not three times.
"""
import os
import subprocess
import tempfile

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T


@tessel.kernel
def ln_backward(x: T.In[T.f32, ("M", "N")], dy: T.In[T.f32, ("M", "N")], w: T.In[T.f32, ("N",)],
                mean: T.In[T.f32, ("M",)], rstd: T.In[T.f32, ("M",)],
                dx: T.Out[T.f32, ("M", "N")], dw: T.Out[T.f32, ("N",)], db: T.Out[T.f32, ("N",)]):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    nf = T.cast(N, T.f32)
    for m in T.parallel(rows):
        xhat = (x[m, cols] - mean[m]) * rstd[m]
        g = dy[m, cols] * w[cols]
        c1 = T.sum(g * xhat) / nf
        c2 = T.sum(g) / nf
        dx[m, cols] = rstd[m] * (g - c2 - xhat * c1)
    xh = (x[rows, cols] - mean[rows]) * rstd[rows]
    dw[cols] = T.sum(dy[rows, cols] * xh, axis=0)
    db[cols] = T.sum(dy[rows, cols], axis=0)


@tessel.kernel
def row_moments(x: T.In[T.f32, ("M", "N")], s: T.Out[T.f32, ("M",)], q: T.Out[T.f32, ("M",)],
                top: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        t = x[m, cols]
        s[m] = T.sum(t)            # three independent reductions of one row: one walk
        q[m] = T.sum(t * t)
        top[m] = T.max(t)


CASES = [
    (ln_backward, {"M": 1, "N": 1}),
    (ln_backward, {"M": 3, "N": 127}),     # N past 64, below 128
    (ln_backward, {"M": 37, "N": 131}),    # both prime, past 128
    (ln_backward, {"M": 131, "N": 5}),     # the column sums' range past both blocks
    (row_moments, {"M": 1, "N": 1}),
    (row_moments, {"M": 5, "N": 67}),
    (row_moments, {"M": 2, "N": 257}),
]
IDS = [f"{k.name}-{'-'.join(f'{a}{v}' for a, v in s.items())}" for k, s in CASES]


def run_cli(tessel_bin, kernel, shapes, stage, params):
    with tempfile.TemporaryDirectory() as tmp:
        path = kernel._write(__import__("pathlib").Path(tmp), {})
        out = os.path.join(tmp, "out")
        cmd = [str(tessel_bin), "run", f"{path}:{kernel.name}", "--stage", stage, "--seed", "7", "--out", out,
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items())]
        cmd += [f"--param={k}={v}" for k, v in params.items()]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        return {p[:-4]: np.load(os.path.join(out, p)) for p in os.listdir(out)}


@pytest.mark.parametrize("block", [64, 128])
@pytest.mark.parametrize("kernel,shapes", CASES, ids=IDS)
def test_pgpu_matches_kir(tessel_bin, kernel, shapes, block):
    ref = run_cli(tessel_bin, kernel, shapes, "kir", {})
    got = run_cli(tessel_bin, kernel, shapes, "pgpu", {"BLOCK": block})
    assert ref.keys() == got.keys()
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("kernel,shapes", CASES, ids=IDS)
def test_triton_matches_kir(kernel, shapes, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = kernel.run_interp(shapes, seed=7)
    views = [p for p in kernel.params() if p.kind == "view"]
    args = [torch.from_numpy(np.array(ref[f"{p.name}.in"])) if f"{p.name}.in" in ref
            else torch.empty(ref[p.name].shape, dtype=torch.float32) for p in views]
    kernel._launcher({}, {"BLOCK": 64})(*args)
    for p, t in zip(views, args):
        if p.name in ref:
            np.testing.assert_allclose(t.numpy(), ref[p.name], rtol=1e-5, atol=1e-5, err_msg=p.name)


def test_one_walk_for_independent_sums():
    """The rows' two sums are one loop (a two-component reduce) before dx's loop, the columns' two sums
    one loop: full and tail loops of each walk, 2 + 2 for the rows and 2 for the columns (3 + 3 and
    2 + 2 before); the moments' three reductions of one row one loop (full and tail)."""
    def loops(kernel):
        src = kernel.source("triton")
        body = src[src.index(f"def _{kernel.name}_kernel"):]
        body = body[:body.index("\n\n\n")]
        return [ln.strip() for ln in body.splitlines() if ln.strip().startswith("for ")], body
    found, body = loops(ln_backward)
    # The column sums are a tiled segment of the dispatch chain (pgpu-tile-column-reductions, s39): count
    # the walks before its FOLD_SPLIT branch (`if _G1:`), which splits the rows and merges partials.
    head = body[:body.index("if _G1:")] if "if _G1:" in body else body
    found = [ln.strip() for ln in head.splitlines() if ln.strip().startswith("for ")]
    assert len(found) == 6, found
    assert body.count("tl.reduce((") >= 3, body  # staged rows, rows' loops, columns' loops
    found, body = loops(row_moments)
    # full and tail loops, and the packed rows' walk (pgpu-pack-rows: a row longer than one block walks
    # the program's rows one after another)
    assert len(found) == 3, found
