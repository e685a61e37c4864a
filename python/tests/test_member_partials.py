"""A column sum over rows that reads a per-row reduction (issue 41, seed 002 §3): kir-row-parallels keeps
the kernel-level row summary in a buffer written by the parallel over the rows, and pgpu-member-partials
adds the column sum's terms per row as each row's program finishes (a scatter-add into kept workspace)
instead of walking every column in the last program.

bench/corpus/60_rmsnorm_backward (dx and dw = T.sum(dy * x * r, axis=0) at kernel level, r each row's
rsqrt) replayed r for every (row, column) of dw: quadratic work; 60_rmsnorm_backward_b (the rows' r kept
in a T.buffer by the author) ran dw whole in the last program. At odd shapes (1, primes, non-multiples
of every block), the pgpu interpreter after the pipeline (programs in shuffled order: a merge counted
wrong would show) must compute what the KIR interpreter computes.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

KERNELS = ["60_rmsnorm_backward.py:rmsnorm_backward", "60_rmsnorm_backward_b.py:rmsnorm_backward_b"]
SHAPES = [(1, 1), (1, 1031), (3, 131), (17, 17), (131, 3), (1031, 1), (17, 1031), (131, 131)]


def pgpu_module(tessel, path, tmp_path):
    """The kernel after the pipeline built for the Triton provider (whose capabilities include the
    fragment atomic add pgpu-member-partials needs), as a pgpu module the interpreter runs."""
    kir = tmp_path / "kernel.kir.mlir"
    res = subprocess.run([str(tessel), "compile", str(path), "--emit=kir", "-o", str(kir)], capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    out = tmp_path / "kernel.pgpu.mlir"
    res = subprocess.run([str(tessel.parent / "tessel-opt"), str(kir),
                          "--tessel-pipeline=provider=triton stop-after=realize-folds", "-o", str(out)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "pgpu.scatter_reduce" in out.read_text()
    return out


def run(tessel, path, M, N, out, inputs=None, params=(), views=("x", "w", "dy"), outs=("dx", "dw"), scalars=True,
        extents=("M", "N")):
    cmd = [str(tessel), "run", str(path), "--seed", "11", "--order", "shuffle",
           "--shape", f"{extents[0]}={M},{extents[1]}={N}", "--out", str(out)] + (["--scalar", "eps=1e-6"] if scalars else [])
    if inputs is not None:  # the views the KIR run drew, read from its .in.npy files
        for name in views:
            cmd += ["--in", f"{name}={inputs / (name + '.in.npy')}"]
    for p in params:
        cmd += ["--param", p]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
    return tuple(np.load(out / f"{name}.npy").astype(np.float32) for name in outs)


def differential(tessel, path, tmp_path, M, N, params=(), **kw):
    """(KIR interpreter's outputs), (pgpu interpreter's after the Triton provider's pipeline), same inputs."""
    name = path.name.split(":")[1]
    ref = run(tessel, path, M, N, tmp_path / "kir", **kw)
    module = pgpu_module(tessel, path, tmp_path)
    got = run(tessel, f"{module}:{name}", M, N, tmp_path / "pgpu", inputs=tmp_path / "kir", params=params, **kw)
    return ref, got


@pytest.mark.parametrize("kernel", KERNELS)
def test_column_sum_is_added_by_the_rows(tessel_bin, root, tmp_path, kernel):
    path = root / "bench" / "corpus" / kernel
    res = subprocess.run([str(tessel_bin), "compile", str(path), "--emit=source", "--target=triton", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "pgpu-member-partials: this sum over the execution group's members is added by each member" in res.stderr
    if kernel.startswith("60_rmsnorm_backward.py"):
        assert "kir-row-parallels: this sum reads a summary over the 1 domain(s) of a parallel whole" in res.stderr
    assert "tl.atomic_add(" in res.stdout
    # The finalization protocol (OpSpelling.cpp, pgpu.last_program): a barrier on both sides of the
    # ticket, and the merged sums read and reset at L2 by one exchange per element, not a plain load
    # that a line in the SM's L1 could serve (the H100 run of session 30 read zeros for dw).
    lines = res.stdout[res.stdout.index("_kernel("):].split("\n\n\n")[0].splitlines()
    ticket = next(i for i, line in enumerate(lines) if "sem='acq_rel'" in line)
    assert lines[ticket - 1].strip() == "tl.debug_barrier()"
    assert lines[ticket + 1].strip().startswith("if ") and lines[ticket + 2].strip() == "tl.debug_barrier()"
    last = lines[ticket:]
    assert any("tl.atomic_xchg(" in line and "sem='relaxed', scope='gpu')" in line and "tl.where(" in line
               for line in last)
    # Workspace (argN) is read in the last program only at L2; the row buffer is not read back at all.
    assert all("cache_modifier='.cg'" in line for line in last if "tl.load(arg" in line)
    assert not any("tl.load(arg" in line for line in lines[:ticket])
    ir = pgpu_module(tessel_bin, path, tmp_path).read_text()
    assert "pgpu.kept" in ir
    # The last program reads the merged sums: no reduction over the rows is left in it.
    last = ir[ir.index("pgpu.last_program"):]
    assert "pgpu.range_reduce" not in last and "pgpu.reduce" not in last


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"M{s[0]}-N{s[1]}")
def test_rows_sum_matches_kir(tessel_bin, root, tmp_path, kernel, shape):
    M, N = shape
    (dx_ref, dw_ref), (dx, dw) = differential(tessel_bin, root / "bench" / "corpus" / kernel, tmp_path, M, N)
    assert np.abs(dw_ref).max() > 0  # random inputs: a sum that is not trivially zero
    # dw in f32 summed in another order; dx rounded to bf16 from f32 values that may differ in the last bits.
    np.testing.assert_allclose(dw, dw_ref, rtol=1e-4, atol=1e-4 * max(1.0, np.sqrt(M)), err_msg=str(shape))
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-2, atol=1e-2, err_msg=str(shape))


@pytest.mark.parametrize("block", ["BLOCK=64", "BLOCK=1024"])
def test_rows_sum_matches_kir_at_other_blocks(tessel_bin, root, tmp_path, block):
    (dx_ref, dw_ref), (dx, dw) = differential(tessel_bin, root / "bench" / "corpus" / KERNELS[0], tmp_path, 37, 131,
                                              params=[block])
    np.testing.assert_allclose(dw, dw_ref, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-2, atol=1e-2)


# A LayerNorm's column sum written at kernel level: the sum needs the rows' mean and rstd (rstd itself
# reads mean) through broadcasts; both are kept by the parallel over the rows that writes y.
LAYER_STATS = """
import tessel
import tessel.language as T


@tessel.kernel
def layer_stats(x: T.In[T.f32, ("M", "N")], dy: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")],
                dg: T.Out[T.f32, ("N",)]):
    M, N = x.shape
    rows, cols = T.domain(0, M), T.domain(0, N)
    nf = T.cast(N, T.f32)
    xs = x[rows, cols]
    mean = T.sum(xs, axis=1) / nf
    xc = xs - mean
    rstd = T.rsqrt(T.sum(xc * xc, axis=1) / nf + 1e-5)
    y[rows, cols] = xc * rstd
    dg[cols] = T.sum(dy[rows, cols] * (xc * rstd), axis=0)
"""


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"M{s[0]}-N{s[1]}")
def test_layer_stats_sum_matches_kir(tessel_bin, tmp_path, shape):
    src = tmp_path / "layer_stats.py"
    src.write_text(LAYER_STATS)
    path = tmp_path / "layer_stats.py:layer_stats"
    res = subprocess.run([str(tessel_bin), "compile", str(path), "--emit=source", "--target=triton", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "(2 value(s)): replayed, each of its elements would recompute" in res.stderr
    assert "pgpu-member-partials: this sum over the execution group's members" in res.stderr
    M, N = shape
    (y_ref, dg_ref), (y, dg) = differential(tessel_bin, path, tmp_path, M, N, views=("x", "dy"), outs=("y", "dg"),
                                            scalars=False)
    np.testing.assert_allclose(dg, dg_ref, rtol=1e-4, atol=1e-4 * max(1.0, np.sqrt(M)), err_msg=str(shape))
    np.testing.assert_allclose(y, y_ref, rtol=1e-4, atol=1e-4, err_msg=str(shape))


@pytest.mark.parametrize("kernel", ["60_rmsnorm_backward", "60_rmsnorm_backward_b"])
def test_repeated_calls_through_triton(root, tessel_bin, kernel):
    """The generated Triton under TRITON_INTERPRET=1, called again and again at changing odd shapes and
    random inputs: the last program's exchange must leave the kept sums zero for the next call (a call
    that read a previous call's sums, or left its own, would be off by a whole column sum)."""
    sys.path.insert(0, str(root / "bench" / "corpus"))
    try:
        import _harness as H
    finally:
        sys.path.pop(0)
    mod = H.load(kernel)
    for i, shape in enumerate([dict(M=3, N=131), dict(M=17, N=17), dict(M=3, N=131), dict(M=1, N=1),
                               dict(M=5, N=1031), dict(M=5, N=1031)]):
        msg = H.check(mod, shape, 100 + i, "triton")
        assert msg is None, f"call {i} at {shape}: {msg}"


# bench/corpus/256's router losses: the per-expert sums over the tokens (the share of tokens whose argmax
# is the expert, the mean probability) are read by a sum over the experts (aux), and the z-loss is a
# kernel-level sum of what each token kept: all three are added by the tokens' programs (a [E] atomic
# add each for the first two, one scalar for the third), the last program reads E + 1 sums.
ROUTER = "256_switch_load_balance_loss.py:switch_load_balance_loss"
ROUTER_SHAPES = [(0, 5), (1, 1), (131, 7)] + ([(2, 3), (17, 64)] if os.environ.get("TESSEL_DEEP") else [])


def test_router_sums_are_added_by_the_tokens(tessel_bin, root, tmp_path):
    path = root / "bench" / "corpus" / ROUTER
    res = subprocess.run([str(tessel_bin), "compile", str(path), "--emit=source", "--target=triton", "--remarks"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stderr.count("pgpu-member-partials: this sum over the execution group's members is added") == 3
    lines = res.stdout[res.stdout.index("_kernel("):].split("\n\n\n")[0].splitlines()
    ticket = next(i for i, line in enumerate(lines) if "sem='acq_rel'" in line)
    rows, last = lines[:ticket], lines[ticket:]
    assert sum("tl.atomic_add(" in line for line in rows) >= 3
    # The last program walks the experts only: it reads no logits and nothing kept per token.
    assert not any("tl.load(logits" in line for line in last)
    ir = pgpu_module(tessel_bin, path, tmp_path).read_text()
    last = ir[ir.index("pgpu.last_program"):]
    assert "%logits[" not in last and ", [T], workspace>" not in last and "MEMBER_COLUMNS" in last
    # pgpu-pack-rows: ROWS tokens a program, each scatter-add of their terms one reduction over them.
    assert "ROWS" in ir and "pgpu.reduce" in ir[:ir.index("pgpu.last_program")]


@pytest.mark.parametrize("shape", ROUTER_SHAPES, ids=lambda s: f"T{s[0]}-E{s[1]}")
def test_router_sums_match_kir(tessel_bin, root, tmp_path, shape):
    T, E = shape
    (aux_ref, z_ref), (aux, z) = differential(tessel_bin, root / "bench" / "corpus" / ROUTER, tmp_path, T, E,
                                              views=("logits",), outs=("aux", "z"), scalars=False,
                                              extents=("T", "E"))
    np.testing.assert_allclose(aux, aux_ref, rtol=1e-5, atol=1e-6, err_msg=str(shape))
    np.testing.assert_allclose(z, z_ref, rtol=1e-5, atol=1e-6, err_msg=str(shape))


# Packed (pgpu-pack-rows): ROWS tokens a program, their terms summed before one atomic add; the staged
# path (E <= BLOCK) at a prime T not a multiple of ROWS, and the blocked path (E > BLOCK) row by row.
@pytest.mark.parametrize("shape,params", [((131, 7), ("ROWS=4", "BLOCK=16")), ((37, 64), ("ROWS=4", "BLOCK=16"))],
                         ids=["staged", "blocked"])
def test_router_sums_match_kir_packed(tessel_bin, root, tmp_path, shape, params):
    T, E = shape
    (aux_ref, z_ref), (aux, z) = differential(tessel_bin, root / "bench" / "corpus" / ROUTER, tmp_path, T, E,
                                              params=params, views=("logits",), outs=("aux", "z"), scalars=False,
                                              extents=("T", "E"))
    np.testing.assert_allclose(aux, aux_ref, rtol=1e-5, atol=1e-6, err_msg=str(shape))
    np.testing.assert_allclose(z, z_ref, rtol=1e-5, atol=1e-6, err_msg=str(shape))
