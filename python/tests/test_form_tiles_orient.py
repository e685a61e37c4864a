"""pgpu-form-tiles' orientation with per-member reads (issue 41): a read whose coordinates span one
program axis (a per-channel scale s[c], a per-sequence length lens[b]) has no runs to coalesce beyond
that axis's members, so it does not make its axis a tile's contiguous axis; it still does where its
axis is the row axis of the accesses that span several axes (a gather's per-row index, as in corpus
181_moe_permute and examples/embedding): the (row, innermost) tile is their row-major tile.

Remarks say which kernels are tiled; differential: the pgpu interpreter after the whole pipeline, in
shuffled program order, computes what the KIR interpreter computes at odd shapes (1, primes, sizes
that are no multiple of any block), at the smallest block sizes (most programs, partial tiles) and
at the defaults; the generated Triton under TRITON_INTERPRET=1 too.
"""
import os
import re
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module (see test_triton.py)

import tessel
import tessel.language as T


@tessel.kernel
def channel_scale(x: T.In[T.f32, ("C", "H", "W")], s: T.In[T.f32, ("C",)], bias: T.In[T.f32, ("C",)],
                  out: T.Out[T.f32, ("C", "H", "W")]):
    """Must not tile: per-channel reads enter the arithmetic of every (h, w) of a plane."""
    C, H, W = x.shape
    cs, hs, ws = T.domain(0, C), T.domain(0, H), T.domain(0, W)
    out[cs, hs, ws] = x[cs, hs, ws] * s[cs] + bias[cs]


@tessel.kernel
def masked_seqs(x: T.In[T.f32, ("B", "L", "D")], lens: T.In[T.i32, ("B",), T.Range(0, "L")],
                out: T.Out[T.f32, ("B", "L", "D")]):
    """Must not tile: a per-sequence length bounds the positions (corpus 182's seq_lens[b])."""
    B, L, D = x.shape
    ts, ds = T.domain(0, L), T.domain(0, D)
    for b in T.parallel(T.domain(0, B)):
        t = T.indices(ts)
        v = T.load(x, (b, ts, ds), valid=t < T.cast(lens[b], T.index), fill=0.0)
        out[b, ts, ds] = v * 2.0


@tessel.kernel
def gather_rows(x: T.In[T.f32, ("V", "D")], idx: T.In[T.i32, ("M",), T.Range(0, "V")],
                out: T.Out[T.f32, ("M", "D")]):
    """Tiled (row, column): the per-row index is read once per tile row, rows contiguous along D."""
    M, D = out.shape
    rows, dims = T.domain(0, M), T.domain(0, D)
    out[rows, dims] = x[idx[rows], dims] + 1.0


def shape_arg(shapes):
    return ",".join(f"{k}={v}" for k, v in shapes.items())


def remarks(tessel_bin, tmp_path, kernel):
    source = kernel._write(tmp_path, {})
    text = source.read_text().replace("#kir.compile_options<>", "#kir.compile_options<optimization_remarks = true>")
    source.write_text(text)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), "--tessel-pipeline=stop-after=form-tiles"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stderr + res.stdout


def kir_and_pgpu(tessel_bin, tmp_path, kernel, shapes, seed, binding):
    source = kernel._write(tmp_path, {})
    shape = shape_arg(shapes)
    kir = tmp_path / "kir"
    subprocess.run([str(tessel_bin), "run", str(source), "--stage", "kir", "--shape", shape, "--seed", str(seed),
                    "--out", str(kir)], check=True, capture_output=True)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), "--tessel-pipeline", "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    if binding == "smallest":
        binding = {name: min(int(c) for c in cands.split(","))
                   for name, cands in re.findall(r'#pgpu\.param<"(\w+)", \[([\d, ]+)\], \d+>', program.read_text())}
    out = tmp_path / "pgpu"
    res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--seed", str(seed), "--order",
                          "shuffle", "--out", str(out), *[f"--param={k}={v}" for k, v in binding.items()]],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return kir, out


def test_remarks_say_which_tile(tessel_bin, tmp_path):
    same_axis = "pgpu-form-tiles: not tiled: no contraction, and every access walks the same axis"
    planes = remarks(tessel_bin, tmp_path, channel_scale)
    assert same_axis in planes and "TILE_" not in planes
    seqs = remarks(tessel_bin, tmp_path, masked_seqs)
    assert "becomes program axis" in seqs  # flattened: lens[b] only bounds the members
    assert same_axis in seqs and "TILE_" not in seqs
    gathered = remarks(tessel_bin, tmp_path, gather_rows)
    assert same_axis not in gathered and '#pgpu.param<"TILE_0"' in gathered and '#pgpu.param<"TILE_1"' in gathered


CASES = [(channel_scale, dict(C=1, H=1, W=1)), (channel_scale, dict(C=3, H=5, W=7)),
         (channel_scale, dict(C=5, H=13, W=131)), (channel_scale, dict(C=2, H=1, W=1031)),
         (masked_seqs, dict(B=1, L=1, D=1)), (masked_seqs, dict(B=3, L=17, D=5)),
         (masked_seqs, dict(B=5, L=7, D=131)),
         (gather_rows, dict(V=1, M=1, D=1)), (gather_rows, dict(V=7, M=17, D=131)),
         (gather_rows, dict(V=3, M=131, D=3)), (gather_rows, dict(V=5, M=0, D=7))]


@pytest.mark.parametrize("small", [True, False], ids=["small-blocks", "defaults"])
@pytest.mark.parametrize("kernel,shapes", CASES, ids=[f"{k.name}-{shape_arg(s)}" for k, s in CASES])
def test_matches_kir(tessel_bin, tmp_path, kernel, shapes, small):
    kir, out = kir_and_pgpu(tessel_bin, tmp_path, kernel, shapes, 5, "smallest" if small else {})
    want, got = np.load(kir / "out.npy"), np.load(out / "out.npy")
    assert want.size == 0 or np.any(want != 0) or (kernel is masked_seqs and shapes["B"] == 1)  # one length may be 0
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kernel,shapes", [CASES[2], CASES[5], CASES[8]], ids=lambda v: getattr(v, "name", None)
                         or shape_arg(v))
def test_triton_matches_kir(tmp_path, monkeypatch, kernel, shapes):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    ref = kernel.run_interp(shapes, {}, {}, seed=6)
    names = {"channel_scale": ("x", "s", "bias"), "masked_seqs": ("x", "lens"), "gather_rows": ("x", "idx")}[kernel.name]
    args = [torch.from_numpy(np.array(ref[f"{n}.in"])) for n in names]
    out = torch.full(np.array(ref["out"]).shape, float("nan"), dtype=torch.float32)
    kernel(*args, out)
    np.testing.assert_allclose(out.numpy(), np.array(ref["out"]), rtol=1e-6, atol=1e-6)
