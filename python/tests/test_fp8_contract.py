"""FP8 contractions (issue 44): a matrix product of two e4m3 (or two e5m2) operands with an f32
accumulator, and a row/column-scaled epilogue (the per-token / per-channel scaled GEMM), on the KIR
interpreter, the tiled pgpu program on the pgpu interpreter (after pgpu-triton-legalize, with a bound
binding) and the generated Triton under TRITON_INTERPRET=1, against a float64 product of the same FP8
values (docs/language.md, FP8). pgpu-form-tiles reads through the exact f32 widenings, so the tiles
the contraction reads are FP8 (tl.dot on FP8 operands, each K tile's sum promoted into the f32
accumulator); two formats (e4m3 x e5m2) are no tensor-core operand pair: their widenings are built
and the contraction reads f32 tiles."""
import os
import subprocess

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module
torch = pytest.importorskip("torch")

import tessel  # noqa: E402
import tessel.language as T  # noqa: E402

from conftest import BUILD, split_k_branches  # noqa: E402

F8 = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
SHAPES = [(1, 1, 1), (37, 29, 67), (130, 17, 301), (0, 3, 5), (4, 3, 0), (16, 48, 32)]


def scaled(fa, fb):
    widen = fa is not fb  # two formats: T.matmul takes one element type, so the author widens both

    @tessel.kernel
    def scaled_mm(a: T.In[fa, ("M", "K")], b: T.In[fb, ("K", "N")], sa: T.In[T.f32, ("M",)],
                  sb: T.In[T.f32, ("N",)], c: T.Out[T.bf16, ("M", "N")]):
        rows, cols = T.domain(0, a.shape[0]), T.domain(0, b.shape[1])
        x, y = a[rows, :], b[:, cols]
        if widen:
            x, y = T.cast(x, T.f32), T.cast(y, T.f32)
        acc = T.matmul(x, y, acc_dtype=T.f32)
        c[rows, cols] = T.cast(acc * sa[rows] * sb[cols], T.bf16)
    return scaled_mm


KERNELS = {"e4m3": scaled(T.f8e4m3, T.f8e4m3), "e5m2": scaled(T.f8e5m2, T.f8e5m2),
           "mixed": scaled(T.f8e4m3, T.f8e5m2)}
FORMATS = {"e4m3": ("e4m3", "e4m3"), "e5m2": ("e5m2", "e5m2"), "mixed": ("e4m3", "e5m2")}


def fp8_values(shape, fmt, g):
    """Random FP8 values (never all zero) with the range's edges mixed in: the largest finite, the
    smallest subnormal, +-0."""
    v = (torch.randn(shape, generator=g) * 4).to(F8[fmt])
    flat = v.view(-1)
    edges = torch.tensor([448.0 if fmt == "e4m3" else 57344.0, -(2.0 ** -9 if fmt == "e4m3" else 2.0 ** -16), -0.0, 0.0])
    k = min(flat.numel(), edges.numel())
    flat[:k] = edges[:k].to(F8[fmt])
    return v


def draw(kind, m, n, k, seed):
    g = torch.Generator().manual_seed(seed)
    fa, fb = FORMATS[kind]
    a, b = fp8_values((m, k), fa, g), fp8_values((k, n), fb, g)
    sa, sb = torch.rand(m, generator=g) + 0.25, torch.rand(n, generator=g) + 0.25
    return a, b, sa, sb


def reference(a, b, sa, sb):
    return (a.double() @ b.double()) * sa.double()[:, None] * sb.double()[None, :]


def check(got, want, what):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    assert got.shape == want.shape, what
    if want.size:  # a bf16 result of an f32 sum: within a bf16 rounding of the product's scale
        tol = 1e-2 * (np.abs(want).max() + 1.0)
        bad = np.abs(got - want) > 8e-3 * np.abs(want) + tol * 1e-2
        assert not bad.any(), f"{what}: {bad.sum()} differ; first {got[bad][:4]} vs {want[bad][:4]}"


@pytest.mark.parametrize("kind", ["e4m3", "e5m2", "mixed"])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_kir_interpreter(kind, m, n, k):
    a, b, sa, sb = draw(kind, m, n, k, seed=m * 7 + n * 3 + k)
    out = KERNELS[kind].run_interp({}, inputs={"a": a.float().numpy(), "b": b.float().numpy(),
                                               "sa": sa.numpy(), "sb": sb.numpy()})
    check(out["c"], reference(a, b, sa, sb), f"kir {kind} {m}x{n}x{k}")


@pytest.mark.parametrize("kind", ["e4m3", "mixed"])
@pytest.mark.parametrize("m,n,k", [(37, 29, 67), (130, 17, 301), (1, 1, 1)])
def test_tiled_program_on_the_pgpu_interpreter(kind, m, n, k, tmp_path):
    """The program the Triton provider spells (after pgpu-triton-legalize), its FP8 tiles contracted
    by the pgpu interpreter at a bound binding (TILE_K = 32, the smallest FP8 candidate)."""
    kernel = KERNELS[kind]
    kir = tmp_path / "k.mlir"
    kir.write_text(kernel.kir())
    res = subprocess.run([str(BUILD / "bin" / "tessel-opt"), str(kir), "--tessel-pipeline=stop-after=triton-legalize"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    program = tmp_path / "p.mlir"
    program.write_text(res.stdout)
    if kind == "e4m3":  # the contraction reads the FP8 tiles themselves
        assert "pgpu.contract" in res.stdout and "!pgpu.fragment<f8E4M3FN, [TILE_0, TILE_K]>, !pgpu.fragment<f8E4M3FN" in res.stdout
    a, b, sa, sb = draw(kind, m, n, k, seed=5)
    cmd = [str(BUILD / "bin" / "tessel"), "run", str(program), "--shape", f"M={m},N={n},K={k}",
           "--param", "TILE_0=16,TILE_1=16,TILE_K=32,GROUP_0=2,PERSIST=1,WARPS=4,STAGES=3,TMA=0,FLATTEN=0",
           "--out", str(tmp_path / "out")]
    for name, v in {"a": a.float().numpy(), "b": b.float().numpy(), "sa": sa.numpy(), "sb": sb.numpy()}.items():
        np.save(tmp_path / f"{name}.npy", v)
        cmd += ["--in", f"{name}={tmp_path / f'{name}.npy'}"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    check(np.load(tmp_path / "out" / "c.npy"), reference(a, b, sa, sb), f"pgpu {kind} {m}x{n}x{k}")


@pytest.mark.parametrize("kind", ["e4m3", "e5m2", "mixed"])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_through_triton(kind, m, n, k, tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    a, b, sa, sb = draw(kind, m, n, k, seed=m * 5 + n + k * 3)
    c = torch.full((m, n), float("nan"), dtype=torch.bfloat16)
    KERNELS[kind](a, b, sa, sb, c)
    check(c.float().numpy(), reference(a, b, sa, sb), f"triton {kind} {m}x{n}x{k}")


def test_fp8_tiles_feed_tl_dot_with_promotion_per_k_tile():
    src = KERNELS["e4m3"].source("triton")
    assert "'TILE_K': ([32, 64, 128], 128)" in src  # tl.dot takes K >= 32 for 8-bit operands
    for branch in filter(None, split_k_branches(src)):  # each K loop of the split-K choice: one promoted dot
        assert branch.count("max_num_imprecise_acc=128)") == 1 and branch.count("tl.dot(") == 1
    body = src[src.index("def _scaled_mm_kernel"):]
    assert "_f8_to_f32(" not in body[:body.index("\n\n\n")]  # the operands are never widened
    mixed = KERNELS["mixed"].source("triton")
    assert "max_num_imprecise_acc" not in mixed and "'TILE_K': ([16, 32, 64, 128], " in mixed


def test_eight_bit_defaults_take_two_warpgroups_of_rows():
    """chooseContractionDefaults (TritonLegalize): an 8-bit contraction's default tile is 256 rows by 128
    columns, 8 warps (two warpgroups of 128 rows), 3 stages, where the rows reach 256 (the H100 and
    H200 sweeps in its comment); a short M keeps the tile that covers it, and a bf16 product keeps the
    128x256 columns-first tile (the rule does not fire)."""
    big = [torch.empty(4096, 4096, dtype=torch.float8_e4m3fn), torch.empty(4096, 4096, dtype=torch.float8_e4m3fn),
           torch.empty(4096), torch.empty(4096), torch.empty(4096, 4096, dtype=torch.bfloat16)]
    got = KERNELS["e4m3"].call_defaults(*big)
    assert (got["TILE_0"], got["TILE_1"], got["WARPS"], got["STAGES"]) == (256, 128, 8, 3), got
    short = [torch.empty(16, 4096, dtype=torch.float8_e4m3fn)] + big[1:3] + [torch.empty(4096),
                                                                               torch.empty(16, 4096, dtype=torch.bfloat16)]
    short[2] = torch.empty(16)
    assert KERNELS["e4m3"].call_defaults(*short)["TILE_0"] <= 16

    @tessel.kernel
    def bf16_mm(a: T.In[T.bf16, ("M", "K")], b: T.In[T.bf16, ("K", "N")], c: T.Out[T.bf16, ("M", "N")]):
        rows, cols = T.domain(0, a.shape[0]), T.domain(0, b.shape[1])
        c[rows, cols] = T.cast(T.matmul(a[rows, :], b[:, cols], acc_dtype=T.f32), T.bf16)
    wide = bf16_mm.call_defaults(*(torch.empty(4096, 4096, dtype=torch.bfloat16) for _ in range(3)))
    assert (wide["TILE_0"], wide["TILE_1"]) == (128, 256), wide
