"""CI budget of the DSL-level fuzzer (test/fuzz/dsl_fuzz.py, issue 47 item 3): generated Python kernels
through the tracer, the KIR and pgpu interpreters and the Triton provider (TRITON_INTERPRET=1; skipped
when Triton is not installed) agree with an independent NumPy evaluation within the dtype-derived bound,
and generated invalid programs get a CompileError at the defect's line. TESSEL_DSL_FUZZ_SECONDS (default
10; 35 under TESSEL_DEEP=1) and TESSEL_DSL_FUZZ_SEED (default a fixed one, so a CI failure reproduces with `--only INDEX`)."""
import importlib.util
import os
import pathlib
import random

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _fuzz():
    spec = importlib.util.spec_from_file_location("tessel_dsl_fuzz", ROOT / "test" / "fuzz" / "dsl_fuzz.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_programs_are_deterministic_and_varied():
    fz = _fuzz()
    a = [fz.Program(47, i).source() for i in range(60)]
    b = [fz.Program(47, i).source() for i in range(60)]
    assert a == b
    assert len(set(a)) == 60
    templates = {fz.Program(47, i).template for i in range(60)}
    assert templates == set(fz.TEMPLATES)
    assert any(fz.Program(47, i).invalid for i in range(60))


def test_the_bound_holds_for_rounded_arithmetic_and_catches_a_wrong_result():
    """The oracle: f16 arithmetic rounded at every step lies within the bound of the float64
    evaluation, and a result off by one f16 ulp of a large value does not."""
    import numpy as np
    fz = _fuzz()
    g = fz.Gen(random.Random(0), "whole")
    g.frame, g.dom, g.extent = ("M", "N"), {"M": "rows", "N": "cols"}, {"M": "M", "N": "N"}
    g.views = [("x", "in", "f16", ("M", "N"))]
    x = g.load_leaf(g.views[0], ("M", "N"))
    node = fz.reduce_node("sum", fz.float_binop("*", fz.unary("exp", x), x), 1, "N", g)
    rng = np.random.default_rng(3)
    arr = rng.uniform(-2, 2, size=(5, 13)).astype(np.float16)
    ctx = fz.Ctx(g.frame, {"M": 5, "N": 13}, {"x": arr.astype(np.float64)}, {}, fz.U)
    v, e = node.ev(ctx)
    # the same program in f16, each operation rounded (exp in f32, then rounded to f16)
    prod = (np.exp(arr.astype(np.float32)).astype(np.float16) * arr).astype(np.float16)
    acc = np.zeros(5, dtype=np.float16)
    for j in range(13):
        acc = (acc + prod[:, j]).astype(np.float16)
    assert (np.abs(acc.astype(np.float64) - v[:, 0]) <= e[:, 0]).all()
    ref = {"y": (v[:, 0], e[:, 0], np.ones(5, bool))}
    assert fz.check_outputs({"y": acc.astype(np.float64)}, ref) is None
    wrong = acc.astype(np.float64) + np.maximum(4 * e[:, 0], 1e-3)
    assert "outside the bound" in fz.check_outputs({"y": wrong}, ref)
    nan = acc.astype(np.float64).copy()
    nan[2] = np.nan                                  # an unwritten (poisoned) element is a mismatch
    assert "outside the bound" in fz.check_outputs({"y": nan}, ref)


def test_uncertain_comparisons_are_not_checked_but_certain_ones_are():
    import numpy as np
    fz = _fuzz()
    g = fz.Gen(random.Random(0), "whole")
    g.frame, g.dom = ("M", "N"), {"M": "rows", "N": "cols"}
    g.views = [("x", "in", "f32", ("M", "N"))]
    x = g.load_leaf(g.views[0], ("M", "N"))
    half = fz.Node("0.5", "f32", (), 0.5, lambda ctx, env: (0.5, 0.0))
    c = fz.compare("<", fz.float_binop("+", x, half), fz.Node("1.0", "f32", (), 1.0, lambda ctx, env: (1.0, 0.0)))
    arr = np.array([[0.5, 0.25, 2.0]], dtype=np.float32)
    ctx = fz.Ctx(g.frame, {"M": 1, "N": 3}, {"x": arr.astype(np.float64)}, {}, fz.U)
    v, e = c.ev(ctx)
    assert list(v[0]) == [0.0, 1.0, 0.0]
    assert np.isinf(e[0, 0]) and e[0, 1] == 0 and e[0, 2] == 0   # 0.5 + 0.5 < 1.0 is on the edge


def test_invalid_programs_get_an_error_at_the_defect(tmp_path):
    """One program per defect kind: tracing (or compiling) it raises a CompileError naming the kernel
    file and the line of the defect, never a traceback and never a kernel."""
    fz = _fuzz()
    seen = {}
    for i in range(4000):
        p = fz.Program(470, i)
        if p.invalid and p.invalid[0] not in seen:
            seen[p.invalid[0]] = p
        if len(seen) == len(fz.DEFECTS):
            break
    assert set(seen) == set(fz.DEFECTS)
    failures = []
    for kind, p in sorted(seen.items()):
        found = fz.run_program(p, tmp_path, triton=False)
        if found:
            failures.append(f"{kind} (kernel {p.index}): {found[0][0]}: {found[0][1][:600]}")
    assert not failures, "\n".join(failures)


def test_dsl_fuzz_budget_finds_nothing(tessel_bin, tmp_path, capsys):
    fz = _fuzz()
    seconds = os.environ.get("TESSEL_DSL_FUZZ_SECONDS", "35" if os.environ.get("TESSEL_DEEP") == "1" else "10")
    seed = os.environ.get("TESSEL_DSL_FUZZ_SEED", "47")
    os.environ.setdefault("TESSEL_BIN", str(tessel_bin))
    rc = fz.main(["--seconds", seconds, "--jobs", "2", "--seed", seed, "--timeout", "240",
                  "--save", str(tmp_path / "findings"), "--work", str(tmp_path / "work")])
    out = capsys.readouterr()
    print(out.out, out.err)
    found = sorted((tmp_path / "findings").glob("*.txt")) if (tmp_path / "findings").exists() else []
    details = "\n\n".join(p.read_text()[:2000] for p in found[:3])
    assert rc == 0, f"the DSL fuzzer found {len(found)} problems:\n{details}"
    assert "kernels (seed" in out.out
