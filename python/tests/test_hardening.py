"""Issue 14: adversarial inputs to the driver end in a clear, located error (or a correct result),
never a crash, an abort or a hang. Each case here crashed or hung before its fix."""
import subprocess
import time

import numpy as np
import pytest


def run(tessel, *args, timeout=60):
    return subprocess.run([str(tessel), *map(str, args)], capture_output=True, text=True, timeout=timeout)


def assert_clean_error(r, *needles):
    assert r.returncode in (1, 2), (r.returncode, r.stderr[-2000:])
    for n in needles:
        assert n in r.stderr, r.stderr[-2000:]
    assert "Stack dump" not in r.stderr and "PLEASE submit" not in r.stderr


HEADER = 'kir.kernel @k(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {\n' \
         '  %c0 = arith.constant 0 : index\n  %n = kir.extent "N"\n  %d = kir.domain %c0 to %n\n' \
         '  %v0 = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>\n'


def chain(length, lhs_chain):
    lines = [HEADER]
    for i in range(1, length + 1):
        a, b = (f"%v{i - 1}", "%v0") if lhs_chain else ("%v0", f"%v{i - 1}")
        lines.append(f"  %v{i} = kir.binary add {a}, {b} : tensor<?xf32>\n")
    lines.append(f"  kir.store %v{length}, %y[%d] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]\n")
    lines.append("  kir.return\n}\n")
    return "".join(lines)


@pytest.mark.parametrize("lhs_chain", [False, True])
def test_a_60k_op_chain_verifies_in_linear_time(tessel_bin, tmp_path, lhs_chain):
    path = tmp_path / "chain.mlir"
    path.write_text(chain(60000, lhs_chain))
    start = time.monotonic()
    r = run(tessel_bin, "compile", path, "--emit=kir", "-o", tmp_path / "out.mlir", timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert time.monotonic() - start < 30  # linear: about 1 s here; quadratic took minutes


@pytest.mark.parametrize("length", [50, 60000])
def test_a_mismatched_chain_is_still_rejected(tessel_bin, tmp_path, length):
    text = chain(length, True).replace(
        f"  %v{length} = kir.binary add",
        '  %c1 = arith.constant 1 : index\n  %e = kir.domain %c1 to %n\n'
        '  %w = kir.load %x[%e] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>\n'
        f'  %v{length} = kir.binary add %w, %v{length - 1} : tensor<?xf32>\n  %unused = kir.binary add')
    path = tmp_path / "mismatch.mlir"
    path.write_text(text)
    assert_clean_error(run(tessel_bin, "compile", path, "--emit=kir"), "not provably equal")


@pytest.mark.parametrize("depth", [300, 5000, 50000])
@pytest.mark.parametrize("kind", ["if", "type", "attr"])
def test_deep_nesting_is_refused_with_the_limit(tessel_bin, tmp_path, depth, kind):
    if kind == "if":
        body = ("  %t = arith.constant true\n" + "  kir.if %t {\n" * depth + "  }\n" * depth)
        text = f"kir.kernel @k() {{\n{body}  kir.return\n}}\n"
    elif kind == "type":
        text = f"kir.kernel @k(%x: {'tuple<' * depth}f32{'>' * depth}) {{\n  kir.return\n}}\n"
    else:
        text = f"kir.kernel @k() attributes {{a = {'[' * depth}{']' * depth}}} {{\n  kir.return\n}}\n"
    path = tmp_path / "deep.mlir"
    path.write_text(text)
    for command in (["compile", path, "--emit=pgpu"], ["run", f"{path}:k"]):
        assert_clean_error(run(tessel_bin, *command), "nests deeper than 256 levels")


def test_moderate_nesting_still_compiles(tessel_bin, tmp_path):
    body = "  %t = arith.constant true\n" + "  kir.if %t {\n" * 60 + "  kir.yield\n  }\n" * 60
    path = tmp_path / "nest.mlir"
    path.write_text(f"kir.kernel @k() {{\n{body}  kir.return\n}}\n")
    r = run(tessel_bin, "compile", path, "--emit=kir")
    assert r.returncode == 0, r.stderr[-2000:]


KERNEL_1D = ('kir.kernel @k(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {{\n'
             '  %lo = arith.constant {lo} : index\n  %hi = arith.constant {hi} : index\n'
             '  %d = kir.domain %lo to %hi step {step}\n'
             '  kir.parallel %d {{\n  ^bb0(%i: index):\n'
             '    %v = kir.load %x[%i] : !kir.view<f32, [N], in>[index] -> f32\n'
             '    kir.store %v, %y[%i] : f32, !kir.view<f32, [N], out>[index]\n'
             '    kir.yield\n  }}\n  kir.return\n}}\n')


@pytest.mark.parametrize("lo,hi,step,needle", [
    (0, 9223372036854775807, 1, "at most 2^28"),
    (-9223372036854775808, 9223372036854775807, 1, "at most 2^28"),
    (-9223372036854775808, 9223372036854775807, 9223372036854775807, "out-of-bounds"),
    (-5, 3, 1, "out-of-bounds"),
    (9223372036854775800, 9223372036854775807, 3, "out-of-bounds"),
])
def test_huge_or_negative_domain_bounds_are_clear_errors(tessel_bin, tmp_path, lo, hi, step, needle):
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL_1D.format(lo=lo, hi=hi, step=step))
    r = run(tessel_bin, "run", f"{path}:k", "--shape", "N=4", timeout=60)
    assert_clean_error(r, needle)


def test_a_negative_step_is_rejected_by_the_verifier(tessel_bin, tmp_path):
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL_1D.format(lo=0, hi=4, step=-1))
    assert_clean_error(run(tessel_bin, "run", f"{path}:k", "--shape", "N=4"), "step must be positive, got -1")
    assert_clean_error(run(tessel_bin, "compile", path, "--emit=source"), "step must be positive, got -1")


RANK0 = ('kir.kernel @rank0(%x: !kir.view<f32, [], in>, %y: !kir.view<f32, [], out>) {\n'
         '  %v = kir.load %x[] : !kir.view<f32, [], in>[] -> f32\n'
         '  %two = arith.constant 2.0 : f32\n  %w = kir.binary mul %v, %two : f32\n'
         '  kir.store %w, %y[] : f32, !kir.view<f32, [], out>[]\n  kir.return\n}\n')
SCALAR_STORE = ('kir.kernel @first(%x: !kir.view<f32, [N], in>, %z: !kir.view<f32, [N], out>) {\n'
                '  %c0 = arith.constant 0 : index\n'
                '  %v = kir.load %x[%c0] : !kir.view<f32, [N], in>[index] -> f32\n'
                '  %two = arith.constant 2.0 : f32\n  %w = kir.binary mul %v, %two : f32\n'
                '  kir.store %w, %z[%c0] : f32, !kir.view<f32, [N], out>[index]\n  kir.return\n}\n')


@pytest.mark.parametrize("text,name,shape", [(RANK0, "rank0", []), (SCALAR_STORE, "first", ["--shape", "N=3"])])
def test_kernels_without_parallel_compile_and_run_on_both_interpreters(tessel_bin, tmp_path, text, name, shape):
    path = tmp_path / "k.mlir"
    path.write_text(text)
    for emit in ("pgpu", "source"):
        r = run(tessel_bin, "compile", path, f"--emit={emit}")
        assert r.returncode in (0, 1, 2) and "Stack dump" not in r.stderr, r.stderr[-3000:]
        assert r.returncode == 0 or "error" in r.stderr, r.stderr[-3000:]
    kir = run(tessel_bin, "run", f"{path}:{name}", *shape, "--out", tmp_path / "kir")
    assert kir.returncode == 0, kir.stderr
    out = tmp_path / "kir" / f"{'y' if name == 'rank0' else 'z'}.npy"
    x = np.load(tmp_path / "kir" / "x.in.npy")
    got = np.load(out)
    assert got.reshape(-1)[0] == np.float32(x.reshape(-1)[0] * 2)
    pg = run(tessel_bin, "run", f"{path}:{name}", *shape, "--stage=pgpu")
    assert pg.returncode in (0, 1) and "Stack dump" not in pg.stderr, pg.stderr[-3000:]
    if pg.returncode == 0:
        assert pg.stdout == kir.stdout


def test_rank0_lit_file_compiles_to_pgpu(tessel_bin, root):
    r = run(tessel_bin, "compile", root / "test/Dialect/KIR/rank0-access.mlir", "--emit=pgpu")
    assert r.returncode in (0, 2) and "Stack dump" not in r.stderr, r.stderr[-3000:]


# --- tessel run --in ------------------------------------------------------------------------------

VECADD = "examples/kir/vector_add.mlir"


def test_run_takes_inputs_from_npy_files(tessel_bin, root, tmp_path):
    x = np.array([1.0, -2.0, np.nan, np.inf, -np.inf, -0.0, 1e-45, 3.0], dtype=np.float32)
    y = np.array([1.0, 2.0, 0.0, 1.0, -np.inf, 0.0, 1e-45, np.nan], dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    r = run(tessel_bin, "run", f"{root / VECADD}:vector_add", "--in", f"x={tmp_path / 'x.npy'}",
            "--in", f"y={tmp_path / 'y.npy'}", "--scalar", "scale=2.0", "--out", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert np.array_equal(np.load(tmp_path / "out" / "x.in.npy"), x, equal_nan=True)
    z = np.load(tmp_path / "out" / "z.npy")
    want = np.maximum(x.astype(np.float64) + y, 0.0) * np.float32(2.0)
    assert np.array_equal(z, want.astype(np.float32), equal_nan=True), (z, want)


def test_run_in_binds_extents_and_checks_them(tessel_bin, root, tmp_path):
    np.save(tmp_path / "x5.npy", np.ones(5, np.float32))
    np.save(tmp_path / "y4.npy", np.ones(4, np.float32))
    np.save(tmp_path / "xi.npy", np.ones(5, np.int32))
    np.save(tmp_path / "x2d.npy", np.ones((2, 2), np.float32))
    (tmp_path / "junk.npy").write_bytes(b"\x93NUMPY\x01\x00\xff\xff{")
    spec = f"{root / VECADD}:vector_add"
    ok = run(tessel_bin, "run", spec, "--in", f"x={tmp_path / 'x5.npy'}", "--scalar", "scale=1.0")
    assert ok.returncode == 0 and "f32[5]" in ok.stdout, ok.stderr
    cases = [
        (["--in", f"x={tmp_path / 'x5.npy'}", "--in", f"y={tmp_path / 'y4.npy'}"], "'N' = 5 elsewhere"),
        (["--in", f"x={tmp_path / 'x5.npy'}", "--shape", "N=3"], "'N' = 3 elsewhere"),
        (["--in", f"x={tmp_path / 'xi.npy'}"], "does not convert exactly"),
        (["--in", f"x={tmp_path / 'x2d.npy'}"], "has rank 2"),
        (["--in", f"x={tmp_path / 'junk.npy'}"], "junk.npy"),
        (["--in", f"x={tmp_path / 'missing.npy'}"], "cannot read"),
        (["--in", f"q={tmp_path / 'x5.npy'}"], "no view argument 'q'"),
        (["--in", f"z={tmp_path / 'x5.npy'}"], "'out' view"),
    ]
    for extra, needle in cases:
        assert_clean_error(run(tessel_bin, "run", spec, "--scalar", "scale=1.0", *extra), needle)


def test_run_interp_helper_takes_inputs(tmp_path, monkeypatch, tessel_bin):
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "examples"))
    import vector_add
    x = np.array([np.nan, -0.0, np.inf, 1.0], np.float32)
    y = np.array([1.0, -0.0, -np.inf, 2.0], np.float32)
    got = vector_add.vector_add.run_interp({}, {"scale": 1.0}, inputs={"x": x, "y": y})
    assert np.array_equal(got["z"], vector_add.reference(x, y, 1.0).astype(np.float32), equal_nan=True)


def test_an_integer_constant_wider_than_64_bits_is_a_clear_error(tessel_bin, tmp_path):
    path = tmp_path / "k.mlir"
    path.write_text('kir.kernel @k(%y: !kir.view<i64, [N], out>) {\n'
                    '  %c = arith.constant 99999999999999999999999 : i128\n  %c0 = arith.constant 0 : index\n'
                    '  %t = kir.cast %c : i128 to i64\n'
                    '  kir.store %t, %y[%c0] : i64, !kir.view<i64, [N], out>[index]\n  kir.return\n}\n')
    assert_clean_error(run(tessel_bin, "run", f"{path}:k", "--shape", "N=2"), "at most 64 bits")


@pytest.mark.parametrize("name", ["parse-failure-sibling-regions", "parse-failure-nested-definition",
                                  "parse-failure-module-after-use", "parse-failure-nested-module",
                                  "parse-failure-second-module"])
def test_a_parse_failure_after_a_crossing_reference_frees_nothing_twice(tessel_bin, name):
    # Found by the fuzzer: a forward reference bound to a definition in a sibling region of a
    # region_scan, or in the region of a later nested op or module, then a parse error in that op
    # (for a module: after its body's first block; the drivers refuse such a module). The parser
    # destroyed the regions with the use still linked to the freed definition (valgrind: invalid
    # write in Operation::dropAllReferences; glibc aborted on the corrupted heap).
    import shutil
    from pathlib import Path
    data = Path(__file__).parent / "data" / f"{name}.mlir"
    r = run(tessel_bin, "compile", data, "--emit=kir")
    assert_clean_error(r, "error:")
    # Under an ASan build (scripts/sanitize.sh) the run above is the memory check; valgrind cannot run it.
    asan = "libasan" in subprocess.run(["ldd", str(tessel_bin)], capture_output=True, text=True).stdout
    if shutil.which("valgrind") and not asan:
        v = subprocess.run(["valgrind", "-q", "--error-exitcode=99", str(tessel_bin), "compile", str(data),
                            "--emit=kir"], capture_output=True, text=True, timeout=300)
        assert v.returncode == 2, v.stderr[-3000:]
        assert "Invalid" not in v.stderr


def test_tessel_opt_refuses_deep_nesting_too(tessel_bin, tmp_path):
    depth = 5000
    body = "  %t = arith.constant true\n" + "  kir.if %t {\n" * depth + "  kir.yield\n  }\n" * depth
    path = tmp_path / "deep.mlir"
    path.write_text(f"kir.kernel @k() {{\n{body}  kir.return\n}}\n")
    r = run(tessel_bin.parent / "tessel-opt", path)
    assert_clean_error(r, "nests deeper than 256 levels")
    ok = tmp_path / "ok.mlir"
    ok.write_text("kir.kernel @k() {\n  kir.return\n}\n")
    piped = subprocess.run(f"{tessel_bin.parent / 'tessel-opt'} {ok} | {tessel_bin.parent / 'tessel-opt'}",
                           shell=True, capture_output=True, text=True)
    assert piped.returncode == 0 and "kir.kernel @k()" in piped.stdout, piped.stderr


def index_chain(length, where, add="arith.addi"):
    """A result-less region op whose body adds 1 to its index `length` times before one load and store:
    y[i] = x[i, (i + length) % N] (kir.parallel, a result-less kir.for) or y[t] = x[(t + length) % M]
    (pgpu.program_space). `add` "kir.binary add" spells the kir chain as the tracer does (the KIR
    interpreter runs no arith)."""
    if where == "pgpu":
        head = ['module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {',
                '  pgpu.kernel @k(%x: !pgpu.view<f32, [M], in>, %y: !pgpu.view<f32, [M], out>) {',
                '    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M], in>', '    pgpu.program_space (%M) {',
                '    ^bb0(%i: index):', '      %c0 = arith.constant 0 : index', '      %c1 = arith.constant 1 : index',
                '      %t = arith.constant true', '      %z = arith.constant 0.0 : f32']
        tail = [f'      %r = arith.remsi %j{length}, %M : index',
                '      %v = pgpu.load %x[%r] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M], in>[index] -> f32',
                '      pgpu.store %v, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]', '      pgpu.yield',
                '    }', '    pgpu.return', '  }', '}']
    else:
        head = ['module {', '  kir.kernel @k(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M], out>) {',
                '    %c0 = arith.constant 0 : index', '    %c1 = arith.constant 1 : index', '    %m = kir.extent "M"',
                '    %n = kir.extent "N"', '    %dm = kir.domain %c0 to %m', f'    kir.{where} %dm {{', '    ^bb0(%i: index):']
        rem = "kir.binary rem" if add.startswith("kir") else "arith.remsi"
        tail = [f'      %r = {rem} %j{length}, %n : index',
                '      %v = kir.load %x[%i, %r] : !kir.view<f32, [M, N], in>[index, index] -> f32',
                '      kir.store %v, %y[%i] : f32, !kir.view<f32, [M], out>[index]', '      kir.yield', '    }',
                '    kir.return', '  }', '}']
    # One location for the chain, as a Python loop gives: distinct ones would make arith's folds fuse
    # ever longer locations (MLIR's own quadratic, not the one tested here).
    chain = [f'      %j0 = {add} %i, %c0 : index loc("k.py":3:1)'] + \
        [f'      %j{k} = {add} %j{k - 1}, %c1 : index loc("k.py":4:5)' for k in range(1, length + 1)]
    return "\n".join(head + chain + tail) + "\n"


@pytest.mark.parametrize("where", ["parallel", "for", "pgpu"])
def test_a_40k_step_index_chain_in_a_loop_canonicalizes_in_linear_time(tessel_bin, tmp_path, where):
    """Issue 47: the canonicalizer folds the chain one addi at a time, and each fold re-queued the
    result-less loop around it, whose dead-op check (MLIR's wouldOpBeTriviallyDead through
    RecursiveMemoryEffects) walked the body from its first op to the store: 20,000 steps took 5 s,
    40,000 about 20 s. Loops now report their body's effect kinds, found from its end
    (tessel/Dialect/Utils/BodyEffects.h): well under a second. CPU time of the child, so a loaded
    machine does not decide it."""
    import resource
    path = tmp_path / "chain.mlir"
    path.write_text(index_chain(40000, where))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = run(tessel_bin.parent / "tessel-opt", path, "--canonicalize", timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert r.returncode == 0, r.stderr[-2000:]
    spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert spent < 10, f"{spent:.1f} s of CPU"
    assert r.stdout.count("arith.addi") == 1 and "%c40000" in r.stdout, r.stdout[:2000]
    assert r.stdout.count(".store") == 1


@pytest.mark.parametrize("stage", ["kir", "pgpu"])
def test_a_20k_step_index_chain_computes_its_index(tessel_bin, tmp_path, stage):
    """The same chain in KIR's spelling through the driver (construction makes it arith; the pgpu
    passes canonicalize it) at odd shapes, against NumPy: y[i] = x[i, (i + 20000) % N]."""
    path = tmp_path / "chain.mlir"
    path.write_text(index_chain(20000, "parallel", add="kir.binary add"))
    for m, n in [(1, 1), (5, 7), (3, 13)]:
        out = tmp_path / f"out-{stage}-{m}-{n}"
        r = run(tessel_bin, "run", f"{path}:k", "--stage", stage, "--seed", "4", "--shape", f"M={m},N={n}",
                "--out", out, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        x = np.load(out / "x.in.npy")
        expected = x[np.arange(m), (np.arange(m) + 20000) % n]
        np.testing.assert_array_equal(np.load(out / "y.npy"), expected)
