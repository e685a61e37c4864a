"""Shared fixtures: where the built tools live; the helpers several test files use (never imported from a
test module)."""
import importlib
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The pure-Python package lives in python/; make it importable without installing it.
try:
    import tessel  # noqa: F401
except ImportError:
    sys.path.insert(0, str(ROOT / "python"))
BUILD = pathlib.Path(os.environ.get("TESSEL_BUILD_DIR", ROOT / "build"))

# The deep tier: cases marked `@pytest.mark.deep(reason=...)` (a larger shape, a second provider run of a
# path the default tier covers) and the fuzzers' full budgets run only under TESSEL_DEEP=1; the reason
# says what covers the same path in the default tier (CI's budget: scripts/test.sh on 2 cores).
DEEP = os.environ.get("TESSEL_DEEP") == "1"


def pytest_configure(config):
    # Triton's interpreter folds a user-combine reduce/scan one element per Python call; the same fold a
    # slice at a time gives its results bit for bit (interpret_folds.py, test_interpret_folds.py).
    import interpret_folds
    interpret_folds.install_on_import()
    config.addinivalue_line("markers", "deep(reason): a deep-tier case, run only under TESSEL_DEEP=1; the reason "
                                       "names what covers its path in the default tier")


# Slow parametrized cases whose test runs a cheaper case in the default tier (scripts/deep_tier.py
# writes the list from a --durations=0 log).
DEEP_CASES = {line.split("#", 1)[0].strip()
              for line in (pathlib.Path(__file__).parent / "deep_cases.txt").read_text().splitlines()} - {""}


def pytest_collection_modifyitems(config, items):
    if DEEP:
        return
    for item in items:
        if f"{item.path.name}::{item.nodeid.split('::', 1)[-1]}" in DEEP_CASES:
            item.add_marker(pytest.mark.skip(reason="deep tier (TESSEL_DEEP=1): a slow case; a cheaper case "
                                                    "of the same test runs here (deep_cases.txt)"))
            continue
        marker = item.get_closest_marker("deep")
        if marker is not None:
            why = marker.kwargs.get("reason") or (marker.args[0] if marker.args else "")
            item.add_marker(pytest.mark.skip(reason=f"deep tier (TESSEL_DEEP=1): {why}"))


EXAMPLES = ROOT / "examples"
# The suite examples (test_dsl.py, test_triton.py, test_cutile.py, matrix_lib.py), per example: odd shapes (several per kernel), runtime scalars, constexpr variants, tolerance.
REQUIRED_EXAMPLES = {
    "vector_add": dict(shapes=[{"N": 0}, {"N": 7}, {"N": 129}], scalars={"scale": -1.75}),
    "softmax": dict(shapes=[{"M": 1, "N": 1}, {"M": 3, "N": 129}, {"M": 5, "N": 0}]),
    "layernorm": dict(shapes=[{"M": 1, "N": 1}, {"M": 5, "N": 7}, {"M": 13, "N": 129}], scalars={"eps": 1e-5},
                      rtol=1e-5, atol=1e-5),
    "rmsnorm": dict(shapes=[{"M": 2, "N": 1}, {"M": 5, "N": 7}, {"M": 3, "N": 129}], scalars={"eps": 1e-5},
                    rtol=1e-5, atol=1e-6),
    "gemm": dict(shapes=[{"M": 1, "N": 1, "K": 1}, {"M": 7, "N": 9, "K": 13}, {"M": 3, "N": 5, "K": 0}],
                 constexprs=[{}, {"HAS_BIAS": True}, {"HAS_BIAS": True, "ACTIVATION": "relu"},
                             {"ACTIVATION": "sigmoid"}], rtol=1e-5, atol=2e-5),
    "cumsum": dict(shapes=[{"M": 1, "N": 1}, {"M": 3, "N": 5}, {"M": 4, "N": 129}],
                   constexprs=[{}, {"EXCLUSIVE": True}, {"REVERSE": True}, {"EXCLUSIVE": True, "REVERSE": True}],
                   rtol=1e-5, atol=1e-4),
    "histogram": dict(shapes=[{"N": 0, "B": 3}, {"N": 37, "B": 5}, {"N": 1000, "B": 17}], exact=True),
    "argmax": dict(shapes=[{"M": 1, "N": 1}, {"M": 3, "N": 5}, {"M": 11, "N": 129}], exact=True),
    "attention": dict(shapes=[{"B": 1, "H": 1, "S": 1, "T": 1, "D": 8}, {"B": 2, "H": 1, "S": 7, "T": 11, "D": 5},
                              {"B": 1, "H": 2, "S": 5, "T": 0, "D": 3}],
                      scalars={"scale": 0.35}, constexprs=[{}, {"CAUSAL": False}], rtol=2e-3, atol=2e-3,
                      extra=dict(segments="random")),
}
EXTRA_EXAMPLES = {
    "cross_entropy": dict(shapes=[{"M": 1, "C": 1}, {"M": 7, "C": 13}, {"M": 5, "C": 129}], rtol=1e-5, atol=1e-5),
    "cummax": dict(shapes=[{"M": 1, "N": 1}, {"M": 3, "N": 7}, {"M": 2, "N": 129}],
                   constexprs=[{}, {"REVERSE": True}], exact=True),
    "transpose": dict(shapes=[{"M": 1, "N": 1}, {"M": 3, "N": 7}, {"M": 0, "N": 5}], exact=True),
    "gemv": dict(shapes=[{"M": 1, "K": 1}, {"M": 7, "K": 13}, {"M": 5, "K": 0}], rtol=1e-5, atol=1e-5),
    "matmul": dict(shapes=[{"M": 1, "N": 1, "K": 1}, {"M": 37, "N": 45, "K": 29}, {"M": 3, "N": 5, "K": 0}],
                   rtol=1e-2, atol=1e-2),
    "batched_gemv": dict(shapes=[{"B": 1, "M": 1, "K": 1}, {"B": 3, "M": 7, "K": 13}, {"B": 2, "M": 5, "K": 0},
                                 {"B": 0, "M": 3, "K": 4}], rtol=1e-5, atol=1e-5),
    "batched_gemm": dict(shapes=[{"B": 1, "M": 1, "N": 1, "K": 1}, {"B": 3, "M": 5, "N": 7, "K": 9}],
                         rtol=1e-5, atol=1e-5),
    "fused_pointwise": dict(shapes=[{"N": 1}, {"N": 37}, {"N": 129}], scalars={"alpha": 0.75},
                            rtol=2e-6, atol=1e-6),
    "softmax_relaxed": dict(shapes=[{"M": 1, "N": 1}, {"M": 3, "N": 129}, {"M": 2, "N": 1031}, {"M": 5, "N": 0}],
                            rtol=1e-5, atol=1e-7),
    "online_softmax": dict(shapes=[{"M": 1, "N": 1}, {"M": 3, "N": 17}, {"M": 2, "N": 129}], rtol=2e-6, atol=1e-7,
                           extra=dict(segments="random")),
    "embedding": dict(shapes=[{"V": 1, "D": 1, "T": 1}, {"V": 7, "D": 5, "T": 13}, {"V": 3, "D": 4, "T": 0}],
                      exact=True),
    "scatter_add": dict(shapes=[{"V": 1, "D": 1, "T": 1}, {"V": 7, "D": 5, "T": 13}, {"V": 3, "D": 4, "T": 0}],
                        rtol=1e-5, atol=1e-5),
    "linear_attention": dict(shapes=[{"B": 1, "H": 1, "T": 1, "D": 2, "E": 3}, {"B": 1, "H": 2, "T": 9, "D": 4, "E": 3}],
                             rtol=1e-4, atol=1e-4, extra=dict(segments="random")),
    # offs is drawn from [-7, 7] \ {0}: negative and non-increasing ends give empty groups, ends past M are
    # clamped; test_grouped_gemm_ragged_offsets draws offsets over [0, M] and beyond.
    "grouped_gemm": dict(shapes=[{"G": 1, "M": 1, "K": 1, "N": 1}, {"G": 3, "M": 7, "K": 5, "N": 11},
                                 {"G": 5, "M": 37, "K": 13, "N": 129}, {"G": 2, "M": 5, "K": 0, "N": 3}],
                         rtol=1e-5, atol=1e-5),
    "splitk_gemm": dict(shapes=[{"M": 1, "N": 1, "K": 1}, {"M": 7, "N": 9, "K": 13}, {"M": 3, "N": 5, "K": 0},
                                {"M": 5, "N": 3, "K": 129}],
                        constexprs=[{}, {"SPLITS": 1}, {"SPLITS": 3}, {"SPLITS": 7}], rtol=1e-5, atol=1e-5),
}
ALL = {**REQUIRED_EXAMPLES, **{k: v for k, v in EXTRA_EXAMPLES.items() if (EXAMPLES / f"{k}.py").exists()}}


def load_bench(name: str):
    """bench/NAME.py, loaded by path once per process (as `_bench_NAME`): sys.path keeps no bench/ entry,
    since bench's attention.py and linear_attention.py would shadow the examples of those names."""
    import importlib.util
    module = sys.modules.get(f"_bench_{name}")
    if module is None:
        spec = importlib.util.spec_from_file_location(f"_bench_{name}", ROOT / "bench" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


def corpus(root, name):
    """bench/corpus/NAME.py, loaded by path (as `_corpus_NAME`)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"_corpus_{name}", root / "bench" / "corpus" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def compiled_pgpu(tessel_bin, kernel):
    """`kernel`'s pgpu program (`tessel compile --emit=pgpu` of its KIR at no constexprs)."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp) / "k.mlir"
        src.write_text(kernel.kir({}))
        res = subprocess.run([str(tessel_bin), "compile", str(src), "--emit=pgpu"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout


def example(name):
    """The kernel `name` of examples/NAME.py (imported as a module of that name)."""
    import sys
    if str(ROOT / "examples") not in sys.path:
        sys.path.insert(0, str(ROOT / "examples"))
    return getattr(importlib.import_module(name), name)


def as_on_sm90(monkeypatch, names):
    """A generated module's switches (`names`: its namespace) as on an sm_90 GPU, not the interpreter:
    the TMA switch may then take descriptors and the Gluon kernel."""
    monkeypatch.setitem(names, "_interpreting", lambda: False)
    monkeypatch.setitem(names, "_arch", lambda t: 9)


def force_descriptors(monkeypatch, launch, kernel_name):
    """Under TRITON_INTERPRET the wrapper never takes the tensor-descriptor spelling; make it, and
    record the USE_TMA the launch passed."""
    names = launch.__globals__
    as_on_sm90(monkeypatch, names)
    jit, seen = names[f"_{kernel_name}_kernel"], {}

    class Spy:
        def __getitem__(self, grid):
            def run(*args, **kw):
                seen["USE_TMA"] = args[jit.arg_names.index("USE_TMA")]
                return jit[grid](*args, **kw)
            return run
    monkeypatch.setitem(names, f"_{kernel_name}_kernel", Spy())
    return seen


def key_loops(src, name):
    """Each innermost loop of the source that contracts and exponentiates (the key loops), with its body; the
    names the serializer numbers (values, layouts, workspace arguments) made alike."""
    src = re.sub(r"\b(v|_s|_c|_dl|_da|_ds|_dr|_sm|_bar|_rest|_arrived|_L|arg)\d+\b", r"\1", src.replace(name, "K"))
    src = re.sub(r"combine\d+", "combine", src)
    lines, out = src.splitlines(), []
    for i, ln in enumerate(lines):
        head = re.match(r"^(\s+)for \w+ in ", ln)
        if not head:
            continue
        body = [ln]
        for nxt in lines[i + 1:]:
            if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= len(head.group(1)):
                break
            if not nxt.lstrip().startswith("#"):
                body.append(nxt)
        text, inner = "\n".join(body), "\n".join(body[1:])
        if "exp2(" in text and ("tl.dot(" in text or "warpgroup_mma(" in text) and not re.search(r"^\s+for ", inner, re.M):
            out.append(text)
    return sorted(out)


def program_bindings(program_text):
    """The declared defaults, and every parameter at its smallest candidate (blocks shorter than the rows
    and K: the looped and masked paths), FOLD_SPLIT at its largest where declared (folds cut across programs)."""
    small = {}
    for name, cands in re.findall(r'#pgpu.param<"(\w+)", \[([0-9, ]+)\]', program_text):
        values = [int(c) for c in cands.split(",")]
        small[name] = max(values) if name == "FOLD_SPLIT" else min(values)
    return [({}, "defaults"), (small, "smallest")]


SEEDS = (0, 7)


def run_kernel(tessel, root, tmp_path, spec, shapes, seed, scalars=None, constexprs=None, extra=()):
    """The arrays (inputs as NAME.in, outputs) of `tessel run examples/kir/SPEC` at `shapes` and `seed`
    (test_interp_suite.py, test_interp_suite_more.py)."""
    out = tmp_path / f"out-{abs(hash((spec, tuple(shapes.items()), seed, tuple(extra))))}"
    cmd = [str(tessel), "run", str(root / "examples" / "kir" / spec),
           "--shape", ",".join(f"{k}={v}" for k, v in shapes.items()),
           "--seed", str(seed), "--out", str(out), *extra]
    for k, v in (scalars or {}).items():
        cmd += ["--scalar", f"{k}={v}"]
    for k, v in (constexprs or {}).items():
        cmd += ["--constexpr", f"{k}={v}"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
    return {p.name[:-4]: np.load(p) for p in out.glob("*.npy")}


def split_k_branches(body: str):
    """(unsplit, split): a generated Triton kernel body (its text) with pgpu-split-contractions' constexpr
    choice resolved each way. The choice is an `if _Gk:` whose then-branch runs one chunk of the K loop,
    stores its partials and takes an arrival ticket (`tl.atomic_add`, the last arrival adding the partials
    and running the epilogue), and whose else-branch is the unsplit loop and epilogue; a launch compiles
    one of them (the guard is a constexpr). Each text keeps the rest of the body; split is None when the
    body has no such choice. A claim about the K loop's structure (reads, dots, loops) holds per branch."""
    import re
    lines = body.split("\n")

    def depth(line):
        return len(line) - len(line.lstrip())

    def block_end(i, ind):  # the first line after line i's block (indented deeper than `ind`)
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or depth(lines[j]) > ind):
            j += 1
        return j

    for i, line in enumerate(lines):
        if not re.fullmatch(r"\s*if _G\d+:", line):
            continue
        ind = depth(line)
        j = block_end(i, ind)
        if j == len(lines) or lines[j].strip() != "else:" or depth(lines[j]) != ind:
            continue
        then = lines[i + 1:j]
        if not any("tl.atomic_add(" in t for t in then) or not any(t.strip().startswith("for ") for t in then):
            continue
        k = block_end(j, ind)
        before, other, after = lines[:i], lines[j + 1:k], lines[k:]
        return "\n".join(before + other + after), "\n".join(before + then + after)
    return body, None


def pass_remarks(tessel_bin, source, name):
    """The remarks pass `name` gives when `tessel compile --emit=pgpu --remarks` compiles KIR file `source`: the
    text after "NAME: " of each line that has it."""
    import subprocess
    res = subprocess.run([str(tessel_bin), "compile", str(source), "--emit=pgpu", "--remarks"], capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    tag = f"{name}: "
    return [ln.split(tag, 1)[1] for ln in res.stderr.splitlines() if tag in ln]


def run_stage(tessel_bin, kernel, stage, shapes, inputs, tmp, params=None):
    """`tessel run` of DSL `kernel`'s KIR on the `stage` interpreter ("kir", or "pgpu" in shuffled program
    order at the block binding `params`) at `shapes`, seed 3, with `inputs` (name -> NumPy array) as .npy
    files in `tmp`; returns the folder holding the outputs (NAME.npy)."""
    import subprocess

    import numpy as np
    tmp = pathlib.Path(tmp)
    src = tmp / "k.mlir"
    src.write_text(kernel.kir({}))
    args = [str(tessel_bin), "run", str(src), "--stage", stage, "--seed", "3", "--out", str(tmp / stage),
            "--shape", ",".join(f"{k}={v}" for k, v in shapes.items())]
    if stage == "pgpu":
        args += ["--order", "shuffle", *[f"--param={k}={v}" for k, v in (params or {}).items()]]
    for k, v in inputs.items():
        np.save(tmp / f"{k}.npy", v)
        args += ["--in", f"{k}={tmp / f'{k}.npy'}"]
    res = subprocess.run(args, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return tmp / stage


def shape_arg(shapes):
    """`--shape` of `tessel run` (and a test id): "N=3,M=5"."""
    return ",".join(f"{k}={v}" for k, v in shapes.items())


def opt_remarks(tessel_bin, tmp_path, kernel, *args):
    """(stderr, stdout) of `tessel-opt ARGS` on DSL `kernel`'s KIR with optimization remarks on."""
    import subprocess
    source = kernel._write(tmp_path, {})
    text = source.read_text().replace("#kir.compile_options<>", "#kir.compile_options<optimization_remarks = true>")
    source.write_text(text)
    res = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *args], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stderr, res.stdout


def kir_and_pgpu(tessel_bin, tmp_path, kernel, shapes, seed, binding, pipeline=("--tessel-pipeline",)):
    """Runs DSL `kernel` on the KIR interpreter and, after `tessel-opt PIPELINE`, on the pgpu interpreter in
    shuffled program order with `binding` ({name: value}, or "smallest": every declared size at its
    smallest candidate -- most programs, partial blocks), at `shapes` with `seed`; returns (the KIR
    outputs' folder, the pgpu outputs' folder, the pgpu program's text)."""
    import re
    import subprocess
    source = kernel._write(tmp_path, {})
    shape = shape_arg(shapes)
    kir = tmp_path / "kir"
    subprocess.run([str(tessel_bin), "run", str(source), "--stage", "kir", "--shape", shape, "--seed", str(seed),
                    "--out", str(kir)], check=True, capture_output=True)
    program = tmp_path / "program.mlir"
    opt = subprocess.run([str(tessel_bin.parent / "tessel-opt"), str(source), *pipeline, "-o", str(program)],
                         capture_output=True, text=True)
    assert opt.returncode == 0, opt.stderr
    text = program.read_text()
    if binding == "smallest":
        binding = {name: min(int(c) for c in cands.split(","))
                   for name, cands in re.findall(r'#pgpu\.param<"(\w+)", \[([\d, ]+)\], \d+>', text)}
    out = tmp_path / "pgpu"
    res = subprocess.run([str(tessel_bin), "run", str(program), "--shape", shape, "--seed", str(seed), "--order",
                          "shuffle", "--out", str(out), *[f"--param={k}={v}" for k, v in binding.items()]],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return kir, out, text


def run_drawn(tessel_bin, tmp_path, kernel, shape, stage, order):
    """{name: array} of the outputs of `tessel run` of DSL `kernel` on the `stage` interpreter in program
    order `order` at `shape`, on the inputs the interpreter draws with seed 5."""
    import subprocess

    import numpy as np
    source = tmp_path / f"{kernel.name}.mlir"
    source.write_text(kernel.kir())
    out = tmp_path / f"{kernel.name}-{stage}-{order}"
    cmd = [str(tessel_bin), "run", f"{source}:{kernel.name}", "--stage", stage, "--order", order, "--seed", "5",
           "--shape", shape_arg(shape), "--out", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"
    return {p.name[:-4]: np.load(p) for p in out.glob("*.npy")}


def launch_agrees(kernel, inputs, out_shape, want, bindings, rtol, atol, dtype=None):
    """Under each binding of `bindings` ({name: value}; None: the call's defaults), `kernel` called on torch CPU
    tensors of `inputs` (name -> NumPy array, in parameter order) and a NaN-filled output of `out_shape`
    (`dtype`, default f32) computes `want` (the paired and uniform lane-read tests, the carried sums)."""
    import numpy as np
    import torch
    for params in bindings:
        out = torch.full(out_shape, float("nan"), dtype=dtype or torch.float32)
        args = [torch.from_numpy(v) for v in inputs.values()] + [out]
        if params is None:
            kernel(*args)
        else:
            kernel.launch(*args, params=params)
        np.testing.assert_allclose(out.double().numpy(), want, rtol=rtol, atol=atol, err_msg=str(params))


def call_twice_against(kernel, make_args, names, want, rtol, atol, calls=2):
    """Calls `kernel` `calls` times, each on fresh `make_args()` (torch CPU tensors named by `names`, in
    order; a ".in" suffix marks one read before the call, as `want` sees it), and compares the views
    `want(inputs)` names with its arrays: a later call sees the tickets and workspaces the earlier one
    left (the phased-segment tests)."""
    import numpy as np
    for call in range(calls):
        args = make_args()
        ins = {name: a.numpy().copy() for name, a in zip(names, args)}
        kernel(*args)
        outs = dict(zip([n.removesuffix(".in") for n in names], args))
        for name, expected in want(ins).items():
            np.testing.assert_allclose(outs[name].numpy(), expected, rtol=rtol, atol=atol, err_msg=f"{name} call {call}")


@pytest.fixture(scope="session")
def tessel_bin():
    path = BUILD / "bin" / "tessel"
    if not path.exists():
        pytest.fail(f"{path} is missing; run scripts/setup.sh first")
    return path


@pytest.fixture(scope="session")
def root():
    return ROOT


def _matrix_lines():
    matrix = sys.modules.get("matrix_lib")
    return matrix.summary_lines() if matrix else []


# Under pytest-xdist (scripts/test.sh runs the files on 2 workers) the matrix runs in a worker: each
# worker hands its summary to the controller, which prints them with its own.
_WORKER_LINES = []


def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["matrix_summary"] = _matrix_lines()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    _WORKER_LINES.extend(getattr(node, "workeroutput", {}).get("matrix_summary", []))


def pytest_terminal_summary(terminalreporter):
    """The differential matrix's size (test_matrix.py), when it ran."""
    for line in _matrix_lines() + _WORKER_LINES:
        terminalreporter.write_line(line)
