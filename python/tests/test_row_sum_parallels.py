"""A scalar loss that sums rows of a matrix product (kir-row-parallels, issue 41; bench/corpus/248's
CLIP loss): logits = scale * img @ txt^T over (N, N), the logsumexp of each row and of each column,
loss[0] = (sum_i (lse_row_i - diag_i) + sum_j (lse_col_j - diag_j)) / 2N. Written at kernel level the
rows were one program computing every dot product element by element; now each sum over the rows reads
a buffer that a kir.parallel over the rows writes, each member computing its row (a row of logits is
txt @ img[i], a column img @ txt[i]: the member's axis is a position, not a domain), which
kir-online-folds and construction tile as attention's rows (tile products, a K loop over D where D is
longer than its block).

The KIR interpreter against NumPy; the pgpu interpreter after the shared pipeline against the KIR
interpreter, at small blocks (N and D longer than their blocks: the looped variant) and the defaults;
Triton under TRITON_INTERPRET=1; at N = 1, 7, 33 (odd, prime, one past two blocks of 16). f16
operands: Triton's CPU interpreter contracts bf16 wrongly (triton-lang/triton#11584).
"""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402
from interp_cli import close, realize_folds, run_cli  # noqa: E402

F16 = T.f16
SCALE = 3.5


def _clip_loss(img: T.In[F16, ("N", "D")], txt: T.In[F16, ("N", "D")], loss: T.Out[T.f32, (1,)], scale: T.f32):
    N, D = img.shape
    rows, cols, dims = T.domain(0, N), T.domain(0, N), T.domain(0, D)
    logits = T.matmul(img[rows, dims], txt[cols, dims], transpose_rhs=True) * scale
    mr = T.max(logits, axis=1)
    lse_rows = mr + T.log(T.sum(T.exp(logits - T.broadcast(mr, over=(rows, cols), dims=[0])), axis=1))
    mc = T.max(logits, axis=0)
    lse_cols = mc + T.log(T.sum(T.exp(logits - mc), axis=0))
    diag = T.sum(T.cast(img[rows, dims], T.f32) * T.cast(txt[rows, dims], T.f32), axis=1) * scale
    loss[0] = (T.sum(lse_rows - diag) + T.sum(lse_cols - diag)) / (2.0 * T.cast(N, T.f32))


_clip = tessel.kernel(name="rsp_clip")(_clip_loss)


def reference(inputs):
    z = inputs["img"].astype(np.float64) @ inputs["txt"].astype(np.float64).T * np.float64(np.float32(SCALE))
    def lse(a, ax):
        m = a.max(ax, keepdims=True)
        return (m + np.log(np.exp(a - m).sum(ax, keepdims=True))).squeeze(ax)
    d = np.diag(z)
    if not len(d):
        return {"loss": np.array([np.nan])}  # 0 / 0
    return {"loss": np.array([((lse(z, 1) - d).sum() + (lse(z, 0) - d).sum()) / (2 * len(d))])}


def draw(shape, seed):
    rng = np.random.default_rng(seed)
    N, D = shape["N"], shape["D"]
    a = rng.standard_normal((N, D))
    b = a + 0.5 * rng.standard_normal((N, D))
    unit = lambda x: (x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-6)).astype(np.float16)
    return {"img": unit(a), "txt": unit(b)}


SHAPES = [dict(N=1, D=1), dict(N=7, D=5), dict(N=33, D=40)]
EDGES = [dict(N=0, D=3), dict(N=5, D=0)]  # 0/0 is NaN; D = 0: every logit 0, the loss log N
# Blocks of 16: N = 33 spans three lane blocks and three key tiles, D = 40 three K blocks (the looped
# variant); the defaults cover both (the fragment variant).
BINDINGS = [{"BLOCK_N": 16, "BLOCK_N_": 16, "BLOCK_D": 16, "TILE_D": 16}, {}]


def test_interpreters_agree(tessel_bin, tmp_path):
    source, program = realize_folds(tessel_bin, tmp_path, _clip)
    text = program.read_text()
    assert "pgpu.contract" in text and '"TILE_D"' in text, text[:2000]
    for i, shape in enumerate(SHAPES + EDGES):
        inputs = draw(shape, i)
        scalar = ["--scalar", f"scale={SCALE}"]
        kir = run_cli(tessel_bin, tmp_path, source, shape, inputs, ["--stage", "kir", *scalar], f"kir{i}")
        close(kir, reference(inputs), f"KIR interpreter at {shape}")
        for params in BINDINGS:
            what = ",".join(f"{k}={v}" for k, v in params.items()) or "defaults"
            got = run_cli(tessel_bin, tmp_path, program, shape, inputs,
                          ["--order", "shuffle", *scalar, *[f"--param={k}={v}" for k, v in params.items()]],
                          f"pgpu{i}")
            close(got, kir, f"pgpu interpreter ({what}) at {shape}")


@pytest.mark.parametrize("params", [None, BINDINGS[0]], ids=["defaults", "looped"])
def test_triton(params):
    import torch
    for i, shape in enumerate(SHAPES):
        inputs = draw(shape, 20 + i)
        out = torch.full((1,), float("nan"), dtype=torch.float32)
        _clip.launch(torch.from_numpy(inputs["img"]), torch.from_numpy(inputs["txt"]), out, scale=SCALE,
                     params=params)
        close({"loss": out.double().numpy()}, reference(inputs), f"Triton ({params}) at {shape}")


def test_rows_are_tiled(tessel_bin, tmp_path):
    """After construction: no fold is built element by element, each contraction over D is a K loop; the
    only element-wise walks are the two sums of the rows' buffers."""
    kernel = tessel.kernel(name="rsp_clip_remarks", optimization_remarks=True)(_clip_loss)
    source = kernel._write(tmp_path, None)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source),
                          "--tessel-pipeline=stop-after=construct"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "the stored scalar sums rows of a matrix product" in res.stderr, res.stderr
    assert "constructed element by element" not in res.stderr, res.stderr
    assert "each contraction over it is a loop over blocks of it" in res.stderr, res.stderr
    # Element-wise walks remain only in the sums over the rows' buffers (the finalization).
    walks = res.stdout.split("pgpu.range_reduce")[1:]
    assert len(walks) == 2 and all("pgpu.load " not in w.split("pgpu.yield")[0] for w in walks), res.stdout
