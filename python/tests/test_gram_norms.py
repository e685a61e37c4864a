"""A reduction over (t, s) of a pointwise function of Gram tiles (pgpu-form-tiles' Gram nests, issue 41).

Per-sample gradient norms by ghost clipping (corpus 281): sq[b] = sum over (t, s) of (A_b A_b^T)[t, s] *
(G_b G_b^T)[t, s]. Construction realizes it as a reduction over t of a reduction over s of two
contractions over the feature axes; pgpu-form-tiles blocks t and s (TILE_1, TILE_2), computes each Gram
tile by a K loop of tile products (tl.dot), and reduces their product along s then t. Also a maximum over
(t, s) of one Gram tile's function (another combine). At odd shapes (T 1, 17, a prime; feature extents
that are not multiples of 16) and several bindings, the pgpu interpreter (shuffled program order) and the
generated Triton under TRITON_INTERPRET=1 compute what the KIR interpreter computes. The nests it must
leave (a triangular s range, a product that is no Gram tile): test/Dialect/PGPU/Transforms/
pgpu-form-tiles-gram.mlir.
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
def ghost_norms(a: T.In[T.bf16, ("B", "T", "DI")], g: T.In[T.bf16, ("B", "T", "DO")],
                sq: T.Out[T.f32, ("B",)], clip: T.Out[T.f32, ("B",)], max_norm: T.f32):
    B, NT, DI = a.shape
    ts, ins, outs = T.domain(0, NT), T.domain(0, DI), T.domain(0, g.shape[2])
    for b in T.parallel(T.domain(0, B)):
        ga = T.matmul(a[b, ts, ins], a[b, ts, ins], transpose_rhs=True)
        gg = T.matmul(g[b, ts, outs], g[b, ts, outs], transpose_rhs=True)
        n2 = T.sum(ga * gg)
        sq[b] = n2
        clip[b] = T.minimum(max_norm / (T.sqrt(n2) + 1e-6), 1.0)


@tessel.kernel
def gram_max(a: T.In[T.f16, ("B", "T", "K")], m: T.Out[T.f32, ("B",)]):
    ts, ks = T.domain(0, a.shape[1]), T.domain(0, a.shape[2])
    for b in T.parallel(T.domain(0, a.shape[0])):
        m[b] = T.max(T.abs(T.matmul(a[b, ts, ks], a[b, ts, ks], transpose_rhs=True)) - 1.0)


@tessel.kernel
def pair_loss(x: T.In[T.f16, ("N", "D")], y: T.In[T.f16, ("N", "D")], loss: T.Out[T.f32, (1,)], scale: T.f32):
    # A kernel-level sum over (i, j) of a Gram tile's function (SigLIP's pairwise sigmoid loss): a group
    # without axes, its fold over i blocks spread by pgpu-split-folds.
    rows, dims = T.domain(0, x.shape[0]), T.domain(0, x.shape[1])
    s = scale * T.matmul(x[rows, dims], y[rows, dims], transpose_rhs=True, acc_dtype=T.f32) - 1.0
    i = T.broadcast(T.indices(rows), over=(rows, rows), dims=[0])
    j = T.broadcast(T.indices(rows), over=(rows, rows), dims=[1])
    u = T.where(i == j, s, -s)
    loss[0] = T.sum(T.log1p(T.exp(-T.abs(u))) - T.minimum(u, 0.0))


CASES = {
    "ghost_norms": (ghost_norms, [{"B": 1, "T": 1, "DI": 1, "DO": 1}, {"B": 2, "T": 17, "DI": 33, "DO": 20},
                                  {"B": 1, "T": 37, "DI": 7, "DO": 45}],
                    [{}, {"TILE_1": 16, "TILE_2": 32, "TILE_K": 16, "FOLD_SPLIT": 4}], {"max_norm": 1.0}),
    "gram_max": (gram_max, [{"B": 1, "T": 1, "K": 1}, {"B": 3, "T": 19, "K": 23}],
                 [{}, {"TILE_1": 16, "TILE_2": 16, "TILE_K": 16, "FOLD_SPLIT": 2}], {}),
    "pair_loss": (pair_loss, [{"N": 1, "D": 1}, {"N": 0, "D": 3}, {"N": 37, "D": 19}],
                  [{}, {"TILE_0": 16, "TILE_1": 32, "TILE_K": 16, "FOLD_SPLIT": 4}], {"scale": 0.5}),
}
MATRIX = [(name, shapes, params) for name, (_, shapes_list, bindings, _s) in CASES.items()
          for shapes in shapes_list for params in bindings]
TOL = dict(rtol=1e-4, atol=1e-4)


def ids(v):
    return "-".join(f"{k}{x}" for k, x in v.items()) or "defaults" if isinstance(v, dict) else str(v)


def test_gram_tiles_are_contractions():
    # Both Gram tiles are K loops of pgpu.contract over [TILE, TILE_K] operand tiles (tl.dot), no
    # element-by-element reduction is left.
    text = ghost_norms.pgpu()
    assert "pgpu.range_reduce" not in text and text.count("pgpu.contract") >= 2, text
    assert "!pgpu.fragment<f32, [TILE_1, TILE_2]>" in text
    source = ghost_norms.source("triton")
    assert source.count("tl.dot(") >= 2 and "'FOLD_SPLIT'" in source
    assert "pgpu.range_reduce" not in gram_max.pgpu() and "pgpu.contract" in gram_max.pgpu()
    # Kernel-level: the group has no axes; pgpu-split-row-reductions leaves it to the Gram tiles.
    source = pair_loss.source("triton")
    assert source.count("tl.dot(") >= 1 and "'FOLD_SPLIT'" in source and "'TILE_0'" in source


@pytest.mark.parametrize("name,shapes,params", MATRIX, ids=ids)
def test_pgpu_matches_kir(tessel_bin, tmp_path, name, shapes, params):
    # The pipeline through pgpu-realize-folds with a provider's capabilities (pgpu-split-folds declares
    # FOLD_SPLIT), run by the pgpu interpreter on the KIR run's inputs.
    kernel, _, _, scalars = CASES[name]
    path, program = tmp_path / "k.mlir", tmp_path / "program.mlir"
    path.write_text(kernel.kir())
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(path), "--tessel-pipeline=stop-after=realize-folds",
                          "-o", str(program)], capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    ref = kernel.run_interp(shapes, seed=7, scalars=scalars)
    with tempfile.TemporaryDirectory() as out:
        cmd = [str(tessel_bin), "run", str(program), "--order", "shuffle", "--out", out,
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items())]
        for k, v in ref.items():
            if k.endswith(".in"):
                np.save(os.path.join(out, f"{k}.npy"), v)
                cmd += ["--in", f"{k[:-3]}={os.path.join(out, k + '.npy')}"]
        cmd += [a for k, v in scalars.items() for a in ("--scalar", f"{k}={v}")]
        cmd += [f"--param={k}={v}" for k, v in params.items()]
        res = subprocess.run(cmd, capture_output=True, text=True)
        assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
        got = {p[:-4]: np.load(os.path.join(out, p)) for p in os.listdir(out) if not p.endswith(".in.npy")}
    assert got
    for name_out, value in got.items():
        np.testing.assert_allclose(value.astype(np.float64), ref[name_out].astype(np.float64), **TOL)


@pytest.mark.parametrize("shapes,params", [({"N": 37, "D": 19}, {"TILE_0": 16, "TILE_1": 16, "TILE_K": 16, "FOLD_SPLIT": 2}),
                                           ({"N": 1, "D": 3}, {})], ids=ids)
def test_kernel_level_triton_matches_kir(tmp_path, monkeypatch, shapes, params):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = pair_loss.run_interp(shapes, seed=5, scalars={"scale": 0.5})
    loss = torch.empty(1, dtype=torch.float32)
    x, y = (torch.from_numpy(np.array(ref[n + ".in"])) for n in ("x", "y"))
    pair_loss._launcher(None, params)(x, y, loss, scale=0.5)
    np.testing.assert_allclose(loss.numpy().astype(np.float64), ref["loss"].astype(np.float64), **TOL)


@pytest.mark.parametrize("shapes,params", [({"B": 2, "T": 37, "K": 33}, {"TILE_1": 16, "TILE_2": 32, "TILE_K": 16, "FOLD_SPLIT": 2}),
                                           ({"B": 1, "T": 1, "K": 5}, {})], ids=ids)
def test_triton_matches_kir(tmp_path, monkeypatch, shapes, params):
    # The bf16 kernel's Triton runs in bench/corpus/check.py 281; this one's f16 operands go through numpy.
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    assert "tl.dot(" in gram_max.source("triton", None, params)
    ref = gram_max.run_interp(shapes, seed=11)
    m = torch.empty(ref["m"].shape, dtype=torch.float32)
    gram_max._launcher(None, params)(torch.from_numpy(np.array(ref["a.in"])), m)
    np.testing.assert_allclose(m.numpy().astype(np.float64), ref["m"].astype(np.float64), **TOL)
