"""Construction (kir-to-pgpu) against the KIR interpreter: the same launch, the same inputs.

`tessel run --stage pgpu` compiles the KIR kernel through the pipeline and runs the constructed
pgpu program on the pgpu interpreter; its outputs must match `--stage kir` at odd shapes, in every
program order.
"""
import pathlib
import subprocess

import numpy as np
import pytest

CASES = [
    ("softmax.mlir", {"M": 5, "N": 37}, {}),
    ("softmax.mlir", {"M": 1, "N": 1}, {}),
    ("softmax.mlir", {"M": 0, "N": 7}, {}),
    ("layernorm.mlir", {"M": 3, "N": 129}, {"eps": 1e-5}),
    ("rmsnorm.mlir", {"M": 7, "N": 13}, {"eps": 1e-6}),
    ("vector_add.mlir", {"N": 1000}, None),
    ("vector_add.mlir", {"N": 1}, None),
    ("gemm.mlir", {"M": 7, "N": 9, "K": 13}, {}),
    ("gemm.mlir", {"M": 1, "N": 1, "K": 0}, {}),
    ("gemv.mlir", {"M": 17, "K": 31}, {}),
    ("batched_gemm.mlir", {"B": 2, "M": 3, "N": 5, "K": 7}, {}),
    ("transpose.mlir", {"M": 13, "N": 129}, {}),
    ("cross_entropy.mlir", {"M": 11, "C": 37}, {}),
    ("cumsum.mlir:cumsum", {"M": 3, "N": 129}, {}),
    ("cumsum.mlir:cumsum_exclusive_reverse", {"M": 4, "N": 17}, {}),
    ("cummax.mlir", {"M": 2, "N": 31}, {}),
    # Stored scans are blocked (BLOCK = 512 by default): several blocks, a partial one, none.
    ("cumsum.mlir:cumsum", {"M": 2, "N": 1031}, {}),
    ("cumsum.mlir:cumsum", {"M": 3, "N": 0}, {}),
    ("cumsum.mlir:cumsum_exclusive_reverse", {"M": 2, "N": 1031}, {}),
    ("cumsum.mlir:cumsum_exclusive_reverse", {"M": 1, "N": 1}, {}),
    ("cummax.mlir", {"M": 2, "N": 1031}, {}),
    ("argmax.mlir", {"M": 5, "N": 129}, {}),
    ("argmax.mlir", {"M": 1, "N": 1}, {}),
    ("histogram.mlir", {"N": 1000, "B": 17}, {}),
    ("histogram.mlir", {"N": 0, "B": 3}, {}),
    ("embedding.mlir:embedding_gather", {"T": 13, "V": 7, "D": 5}, {}),
    ("embedding.mlir:embedding_scatter_add", {"T": 13, "V": 7, "D": 5}, {}),
    # region_fold: one fold of the scalar summary, one per output element with its tensor component.
    ("attention.mlir", {"B": 2, "H": 1, "S": 7, "T": 11, "D": 5}, {"scale": 0.35}),
    ("attention.mlir", {"B": 1, "H": 2, "S": 3, "T": 0, "D": 4}, {"scale": 0.35}),
    ("attention.mlir", {"B": 1, "H": 1, "S": 1, "T": 1, "D": 1}, {"scale": 1.5}),
    # region_scan on fragments (ScanWorkset.cpp): the state carried across BLOCK_T source tiles,
    # each tile emitted from the state before it (test_scan_fragments.py covers the bindings).
    ("linear_attention.mlir", {"B": 2, "H": 1, "T": 7, "D": 3, "E": 5}, {}),
    ("linear_attention.mlir", {"B": 1, "H": 2, "T": 0, "D": 4, "E": 3}, {}),
    ("linear_attention.mlir", {"B": 1, "H": 1, "T": 1, "D": 1, "E": 1}, {}),
    ("linear_attention.mlir", {"B": 1, "H": 1, "T": 13, "D": 4, "E": 6}, {}),
    # A scalar state beside the tensor one and a reduction over two axes: no fragment form, each
    # output element emits on the state before its segment (a fold of the transitions before it,
    # applied to init); final states fold the whole source (data/ is under tests/).
    ("data/region_scan_state.mlir", {"B": 2, "N": 7, "D": 3}, {}),
    ("data/region_scan_state.mlir", {"B": 1, "N": 0, "D": 2}, {}),
    ("data/region_scan_state.mlir", {"B": 3, "N": 13, "D": 5}, {}),
]


def scalars_for(tessel, root, spec, given):
    if given is not None:
        return given
    # vector_add takes one runtime scalar; find its name from the KIR signature.
    if spec.startswith("data/"):
        return {}
    text = (root / "examples" / "kir" / spec).read_text()
    return {"scale": 0.5} if "%scale" in text else {}


def run(tessel, root, tmp_path, spec, shapes, scalars, stage, seed, order):
    out = tmp_path / f"{stage}-{seed}-{order}"
    source = (pathlib.Path(__file__).parent if spec.startswith("data/") else root / "examples" / "kir") / spec
    cmd = [str(tessel), "run", str(source), "--stage", stage,
           "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()), "--seed", str(seed),
           "--order", order, "--out", str(out)]
    if stage == "kir":
        cmd.append("--segments=random")  # region folds/scans: the author's cut-invariance, checked
    for k, v in scalars.items():
        cmd += ["--scalar", f"{k}={v}"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
    return {p.name[:-4]: np.load(p) for p in out.glob("*.npy") if not p.name.endswith(".in.npy")}


@pytest.mark.parametrize("spec,shapes,scalars", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
@pytest.mark.parametrize("seed,order", [(0, "forward"), (5, "shuffle")])
def test_constructed_program_matches_kir(tessel_bin, root, tmp_path, spec, shapes, scalars, seed, order):
    scalars = scalars_for(tessel_bin, root, spec, scalars)
    ref = run(tessel_bin, root, tmp_path, spec, shapes, scalars, "kir", seed, "forward")
    got = run(tessel_bin, root, tmp_path, spec, shapes, scalars, "pgpu", seed, order)
    assert ref.keys() == got.keys() and ref
    # Under numerics = relaxed_normalization, construction on fragments rounds a contraction's f32
    # weights to the 16-bit dtype of its value operand (FoldWorkset.cpp): one ulp of an f16 output.
    path = spec.partition(":")[0]
    source = (pathlib.Path(__file__).parent if spec.startswith("data/") else root / "examples" / "kir") / path
    tol = 1e-3 if "relaxed_normalization" in source.read_text() else 1e-6
    for name in ref:
        # Contractions accumulate with one rounding per step in KIR's interpreter (fma) and with
        # multiply-then-add in the constructed program; everything else is bit-identical.
        np.testing.assert_allclose(got[name], ref[name], rtol=tol, atol=tol, err_msg=name)


def test_construction_is_deterministic(tessel_bin, root):
    outs = [subprocess.run([str(tessel_bin), "compile", str(root / "examples/kir/layernorm.mlir"), "--emit=pgpu"],
                           capture_output=True, text=True) for _ in range(2)]
    assert outs[0].returncode == 0, outs[0].stderr
    text = outs[0].stdout
    assert "pgpu.program_space" in text
    # No KIR op survives construction (invariant 12); the module keeps its compile options (seed 002 §1).
    assert not any(line.lstrip().startswith("kir.") or " = kir." in line for line in text.splitlines())
    assert "kir.compile_options = #kir.compile_options<>" in text
    assert outs[0].stdout == outs[1].stdout


TWO_BARRIERS = """module {
  kir.kernel @two_barriers_product(%x: !kir.view<f32, [M, K], in>, %w: !kir.view<f32, [K, N], in>, %y: !kir.view<f32, [M, N], inout>, %z: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %k = kir.extent "K"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dk = kir.domain %c0 to %k
    %dn = kir.domain %c0 to %n
    %b = kir.buffer over(%dm, %dn) first_write : !kir.buffer<tensor<?x?xf32>>
    %a = kir.load %x[%dm, %dk] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %bb = kir.load %w[%dk, %dn] : !kir.view<f32, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %p = kir.contract %a, %bb reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    kir.store %p, %y[%dm, %dn] : tensor<?x?xf32>, !kir.view<f32, [M, N], inout>[!kir.domain, !kir.domain]
    kir.parallel %dm {
    ^bb0(%i: index):
      %v = kir.load %y[%i, %dn] : !kir.view<f32, [M, N], inout>[index, !kir.domain] -> tensor<?xf32>
      kir.buffer_store %v, %b[%i, %dn] : tensor<?xf32>, !kir.buffer<tensor<?x?xf32>>[index, !kir.domain]
      kir.yield
    }
    kir.parallel %dm {
    ^bb0(%i: index):
      %v = kir.buffer_load %b[%i, %dn] : !kir.buffer<tensor<?x?xf32>>[index, !kir.domain] -> tensor<?xf32>
      kir.store %v, %z[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
"""


def test_unconstructed_op_is_a_clear_error(tessel_bin, tmp_path):
    # A workset that needs the barrier (it reads what an earlier workset wrote) and writes a kernel-level
    # buffer, left in the last program (the kernel computes a product, the workset none), would need a
    # second one: construction says so at the workset, with its location.
    source = tmp_path / "two.mlir"
    source.write_text(TWO_BARRIERS)
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu"], capture_output=True, text=True)
    assert res.returncode == 2
    assert "two.mlir:15:" in res.stderr and "a second barrier is not constructed" in res.stderr


def test_grouped_gemm_constructs_with_data_dependent_bounds(tessel_bin, root, tmp_path):
    # The ragged grouped GEMM (issue 16): each group's rows come from OFFS read in the program (bounds
    # realized as values, not launch-time facts); the zero-filled tail over rows[end:M] is a store over
    # a data-dependent subregion of a launch-time domain, and it writes the view the groups write, so it
    # runs in the last program instance, each row inside [end, M) storing. pgpu agrees with KIR after
    # the whole pipeline at odd shapes, offsets out of order and out of range included.
    import sys
    import numpy as np
    sys.path.insert(0, str(root / "examples"))
    import grouped_gemm
    source = tmp_path / "grouped.mlir"
    source.write_text(grouped_gemm.grouped_gemm.kir())
    for shape in ("M=37,N=5,K=7,G=4", "M=1,N=1,K=1,G=1", "M=13,N=3,K=0,G=3", "M=64,N=17,K=9,G=7"):
        outs = {}
        for stage in ("kir", "pgpu"):
            out = tmp_path / f"{stage}-{shape}"
            run = subprocess.run([str(tessel_bin), "run", str(source), "--shape", shape, "--stage", stage,
                                  "--range", "offs=-3:M", "--out", str(out), "--order", "shuffle"],
                                 capture_output=True, text=True)
            assert run.returncode == 0, run.stderr
            outs[stage] = np.load(out / "c.npy")
        np.testing.assert_allclose(outs["pgpu"], outs["kir"], rtol=1e-5, atol=1e-5)


def test_kernel_level_buffer_is_workspace_reduced_in_the_last_program(tessel_bin, root, tmp_path):
    # split-K (seed 000 §4.4): the kernel-level first-write buffer of partial products becomes an
    # uninitialized workspace argument; the sum over the splits reads what every split program wrote,
    # so it runs whole in the last program instance (one launch, an acq_rel ticket). After construction
    # and after the whole pipeline the pgpu interpreter agrees with the KIR interpreter bitwise (the
    # same summation order), at K below, at and above the splits, and at K = 0.
    import sys
    import numpy as np
    sys.path.insert(0, str(root / "examples"))
    import splitk_gemm
    source = tmp_path / "splitk.mlir"
    source.write_text(splitk_gemm.splitk_gemm.kir())
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "!pgpu.buffer<f32, [4, M, N], workspace> {pgpu.private = \"workspace\"}" in res.stdout  # no fill
    assert "pgpu.last_program" in res.stdout and "pgpu.buffer_store" in res.stdout
    for shape in ("M=5,N=3,K=2", "M=7,N=9,K=13", "M=1,N=1,K=0", "M=3,N=17,K=4"):
        outs = {}
        for stage in ("kir", "pgpu"):
            out = tmp_path / f"{stage}-{shape}"
            run = subprocess.run([str(tessel_bin), "run", str(source), "--shape", shape, "--stage", stage,
                                  "--out", str(out), "--order", "shuffle"], capture_output=True, text=True)
            assert run.returncode == 0, run.stderr
            outs[stage] = np.load(out / "c.npy")
        np.testing.assert_array_equal(outs["kir"], outs["pgpu"])


def test_print_ir_after_all(tessel_bin, root):
    res = subprocess.run([str(tessel_bin), "compile", str(root / "examples/kir/softmax.mlir"), "--emit=pgpu",
                          "--mlir-print-ir-after-all"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "IR Dump After KIRAnnotateOrigins" in res.stderr
    assert "IR Dump After ConvertKIRToPGPU" in res.stderr


ARGMAX_TIES = """
module {
  kir.kernel @ties(%x: !kir.view<f32, [M, N], in>, %v: !kir.view<f32, [M], out>, %i: !kir.view<i64, [M], out>) {
    %c0 = arith.constant 0 : index
    %two = arith.constant 2.0 : f32
    %shift = arith.constant 0.9 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    kir.parallel %dm {
    ^bb0(%r: index):
      %row = kir.load %x[%r, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %twos = kir.broadcast %two over(%dn) dims [] : f32 -> tensor<?xf32>
      %shifts = kir.broadcast %shift over(%dn) dims [] : f32 -> tensor<?xf32>
      %scaled = kir.binary mul %row, %twos : tensor<?xf32>
      %steps = kir.unary floor %scaled : tensor<?xf32>
      %plus = kir.binary add %row, %shifts : tensor<?xf32>
      %nan = kir.unary sqrt %plus : tensor<?xf32>
      %guard = kir.binary mul %nan, %twos : tensor<?xf32>
      %z = kir.binary sub %guard, %guard : tensor<?xf32>
      %vals = kir.binary add %steps, %z : tensor<?xf32>
      %best, %pos = kir.arg_reduce KIND %vals axis 0 tie TIE nan NAN : tensor<?xf32> -> f32, index
      %p64 = kir.cast %pos : index to i64
      kir.store %best, %v[%r] : f32, !kir.view<f32, [M], out>[index]
      kir.store %p64, %i[%r] : i64, !kir.view<i64, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}
"""


@pytest.mark.parametrize("kind", ["argmax", "argmin"])
@pytest.mark.parametrize("tie", ["lowest", "highest"])
@pytest.mark.parametrize("nan", ["propagate", "ignore"])
def test_arg_reduce_ties_and_nans_survive_blocking(tessel_bin, tmp_path, kind, tie, nan):
    """Values with many ties (floor(2x)) and NaNs (sqrt of x + 0.9 < 0): the constructed and blocked
    program, run in shuffled order, picks exactly the interpreter's values and positions."""
    path = tmp_path / "ties.mlir"
    path.write_text(ARGMAX_TIES.replace("KIND", kind).replace("TIE", tie).replace("NAN", nan))
    outs = {}
    for stage, order in (("kir", "forward"), ("pgpu", "shuffle")):
        out = tmp_path / stage
        res = subprocess.run([str(tessel_bin), "run", str(path), "--shape", "M=23,N=1301", "--seed", "4",
                              "--stage", stage, "--order", order, "--out", str(out)], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        outs[stage] = {p.name: np.load(p) for p in out.glob("*.npy") if not p.name.endswith(".in.npy")}
    np.testing.assert_array_equal(outs["pgpu"]["i.npy"], outs["kir"]["i.npy"])
    np.testing.assert_array_equal(outs["pgpu"]["v.npy"], outs["kir"]["v.npy"])
    assert np.isnan(outs["kir"]["v.npy"]).any() == (nan == "propagate")


SUMMED_CHAIN = '''import tessel
import tessel.language as T


@tessel.kernel
def summed(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        v = x[m, cols]
        for i in range({ops}):
            v = v * 1.0001 + 0.5 if i % 2 else v - 0.25
        y[m] = T.sum(v)
'''


def test_a_long_chain_summed_in_a_parallel_loop_passes_kir_in_linear_time(tessel_bin, root, tmp_path):
    """Issue 47: kir-online-folds' row-sum matcher asks the domains of every op of a parallel body, and
    domainsOf recursed over pointwise chains without memoizing them (each query walked to the load):
    8,000 steps of a row chain ending in T.sum spent 5 s in the KIR passes (quadratic), and 20,000
    overflowed the stack (SIGSEGV). The walk is an explicit stack memoizing every answer
    (AxisDomains.cpp). CPU time, not wall time, so a loaded machine does not decide it."""
    import os
    import resource
    import sys
    path = tmp_path / "chain.py"
    path.write_text(SUMMED_CHAIN.format(ops=20000))
    subprocess.run([sys.executable, "-m", "tessel", "emit", f"{path}:summed", "--output", str(tmp_path / "k.mlir")],
                   check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(root / "python")})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = subprocess.run([str(tessel_bin), "compile", str(tmp_path / "k.mlir"), "--emit=kir"], capture_output=True,
                         text=True, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert res.returncode == 0, res.stderr[-2000:]
    spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert spent < 8, f"{spent:.1f} s of CPU"  # ~1 s now
    out = tmp_path / "out"
    res = subprocess.run([str(tessel_bin), "run", str(tmp_path / "k.mlir"), "--stage=pgpu", "--seed", "5",
                          "--shape", "M=3,N=37", "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    x = np.load(out / "x.in.npy").astype(np.float64)
    for i in range(20000):
        x = x * np.float32(1.0001) + 0.5 if i % 2 else x - 0.25
    np.testing.assert_allclose(np.load(out / "y.npy"), x.sum(axis=1), rtol=1e-3)


def test_fragment_axes_follow_the_kernels_domain_order(tessel_bin, root):
    """Linear attention has two free fragment axes (D, E): their parameters are declared in the order
    the kernel defines the domains, the same bytes every time (they once followed pointer order)."""
    outs = [subprocess.run([str(tessel_bin), "compile", str(root / "examples/kir/linear_attention.mlir"),
                            "--emit=pgpu"], capture_output=True, text=True) for _ in range(4)]
    assert outs[0].returncode == 0, outs[0].stderr
    header = next(line for line in outs[0].stdout.splitlines() if "pgpu.kernel @linear_attention" in line)
    assert header.index('"BLOCK_D"') < header.index('"BLOCK_E"')
    assert all(o.stdout == outs[0].stdout for o in outs)


CHAIN = '''import tessel
import tessel.language as T


@tessel.kernel
def flat(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
    n = T.domain(0, x.shape[0])
    v = x[n]
    for i in range({ops}):
        v = v * 1.0001 if i % 2 else v + 0.5
    y[n] = v


@tessel.kernel
def rows(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")], s: T.Out[T.f32, ("M",)]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        r = x[m, cols]
        v = r
        for i in range({ops}):
            v = v * 0.999 + r if i % 3 == 0 else (v - 0.25 if i % 3 == 1 else T.maximum(v, r))
        y[m, cols] = v
        s[m] = T.sum(v)
'''


@pytest.mark.parametrize("kernel,shapes", [("flat", {"N": 37}), ("rows", {"M": 3, "N": 37})])
def test_a_ten_thousand_op_chain_constructs_in_linear_time(tessel_bin, tmp_path, kernel, shapes):
    """Issue 47: KernelConstructor::element and ::sizes recursed over def-use chains: a straight chain of
    ~9,000 pointwise ops overflowed the stack, and a chain inside a parallel loop took quadratic time.
    A 10,000-op chain (a straight one, and one that reuses the loaded row and ends in a reduction) now
    compiles in seconds, and the constructed program matches the KIR interpreter."""
    import time
    path = tmp_path / "chain.py"
    path.write_text(CHAIN.format(ops=10000))
    started = time.monotonic()
    res = subprocess.run([str(tessel_bin), "compile", f"{path}:{kernel}", "--emit=source"], capture_output=True,
                         text=True, timeout=300)
    spent = time.monotonic() - started
    assert res.returncode == 0, res.stderr[-2000:]
    assert f"def {kernel}(" in res.stdout
    assert spent < 30, f"{spent:.1f} s"  # ~2.5 s on the 2-core CI machine; the recursion crashed
    outs = {}
    for stage in ("kir", "pgpu"):
        out = tmp_path / stage
        cmd = [str(tessel_bin), "run", f"{path}:{kernel}", "--stage", stage, "--seed", "3", "--out", str(out),
               "--shape", ",".join(f"{k}={v}" for k, v in shapes.items())]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stderr[-2000:]
        outs[stage] = {p.name[:-4]: np.load(p) for p in out.glob("*.npy") if not p.name.endswith(".in.npy")}
    assert outs["kir"].keys() == outs["pgpu"].keys() and outs["kir"]
    for name in outs["kir"]:
        np.testing.assert_allclose(outs["pgpu"][name], outs["kir"][name], rtol=1e-6, atol=1e-6, err_msg=name)
