"""The compiler in process (issue 46 item 2): Kernel.compile through the extension module
`_tessel_compiler` (tessel._in_process) gives the bytes the `tessel compile` subprocess gives, and the
same CompileError for a rejected kernel; TESSEL_IN_PROCESS=0 forces the subprocess, and a build
without the module falls back to it."""
import concurrent.futures
import importlib.util

import pytest

import tessel
import tessel.language as T
from conftest import ROOT
from tessel import _in_process

needs_module = pytest.mark.skipif(_in_process.module() is None,
                                  reason=f"the compiler module is not built here ({_in_process.why_not()})")

# Kernels of several shapes of program: rows (a fold per row), a GEMM (tiles and a contraction), a
# column reduction, a scan, a histogram, attention (a region fold).
CORPUS = ["12_row_l2norm", "09_layernorm_noaffine", "01_gemm_bias_gelu_tanh", "10_groupnorm",
          "104_discounted_returns", "101_sorted_segment_sum"]
STAGES = [("kir", []), ("pgpu", []), ("source", ["--target=triton"]), ("source", ["--target=cutile"]),
          ("source", ["--target=triton", "--remarks"])]


def _corpus(name):
    spec = importlib.util.spec_from_file_location(f"_in_process_{name}", ROOT / "bench" / "corpus" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _both(monkeypatch, compile_once):
    """compile_once() in process, then as a subprocess: (result or exception) of each."""
    results = []
    for flag in ("1", "0"):
        monkeypatch.setenv("TESSEL_IN_PROCESS", flag)
        try:
            results.append(compile_once())
        except tessel.CompileError as e:
            results.append(e)
    return results


@needs_module
@pytest.mark.parametrize("name", CORPUS)
def test_corpus_sources_are_byte_identical_both_ways(name, monkeypatch, capfd):
    module = _corpus(name)
    kernel, constexprs = module.KERNEL, dict(getattr(module, "CONSTEXPRS", {}) or {})
    for emit, extra in STAGES:
        in_process, subprocess = _both(monkeypatch, lambda: kernel.compile(emit, constexprs, extra))
        if isinstance(in_process, tessel.CompileError):  # a provider's refusal: the same either way
            assert isinstance(subprocess, tessel.CompileError) and str(in_process) == str(subprocess)
            continue
        assert isinstance(in_process, str) and isinstance(subprocess, str), (emit, extra)
        assert in_process.encode() == subprocess.encode(), (name, emit, extra)
    # --remarks prints the same remark lines either way (both runs above printed theirs).
    err = capfd.readouterr().err
    remarks = [line for line in err.splitlines() if "remark:" in line]
    assert len(remarks) % 2 == 0 and remarks[:len(remarks) // 2] == remarks[len(remarks) // 2:]


def _rejected():
    @tessel.kernel
    def k(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("N",)]):
        M, N = x.shape
        cols = T.domain(0, N)
        for m in T.parallel(T.domain(0, M)):
            y[cols] = x[m, cols]  # the verifier's parallel write independence rejects this line
    return k


@needs_module
@pytest.mark.parametrize("emit,extra", [("kir", []), ("source", ["--target=triton"])])
def test_a_located_error_is_the_same_compile_error(emit, extra, monkeypatch):
    k = _rejected()
    in_process, subprocess = _both(monkeypatch, lambda: k.compile(emit, None, extra))
    assert isinstance(in_process, tessel.CompileError) and isinstance(subprocess, tessel.CompileError)
    lines = open(__file__).read().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "write independence rejects" in text)
    for err in (in_process, subprocess):
        assert (err.file, err.line) == (__file__, line), str(err)
    assert (in_process.message, in_process.file, in_process.line, in_process.col) == \
        (subprocess.message, subprocess.file, subprocess.line, subprocess.col)
    assert str(in_process) == str(subprocess) and in_process.summary == subprocess.summary
    # The module's diagnostics as data: the same error, located.
    [diag] = [d for d in in_process.diagnostics if d["severity"] == "error"]
    assert (diag["file"], diag["line"], diag["col"], diag["message"]) == \
        (in_process.file, in_process.line, in_process.col, in_process.message)


@needs_module
def test_request_errors_are_the_same_both_ways(monkeypatch):
    """Errors of the request itself (no location): an unknown provider, a malformed --param, a stage of
    another provider."""
    k = _corpus("12_row_l2norm").KERNEL
    for extra in (["--target=nope"], ["--target=triton", "--param=NOPE"], ["--target=triton", "--param=X=1.5"]):
        in_process, subprocess = _both(monkeypatch, lambda: k.compile("source", None, extra))
        assert isinstance(in_process, tessel.CompileError), extra
        assert str(in_process) == str(subprocess), extra
    in_process, subprocess = _both(monkeypatch, lambda: k.compile("wrapper", None, ["--target=triton"]))
    assert in_process.message == subprocess.message and "is a stage of --target=ptx" in in_process.message


@needs_module
def test_module_direct_call_returns_data():
    compiler = _in_process.module()
    kir = _corpus("12_row_l2norm").KERNEL.kir({})
    result = compiler.compile(kir, emit="pgpu")
    assert result.exit_code == 0 and "pgpu.kernel" in result.output and result.diagnostics == []
    bad = compiler.compile(kir, emit="nope")
    assert bad.exit_code == 2 and bad.output == "" and bad.stderr.startswith("error: --emit=nope: no such stage")
    assert "kir" in compiler.groups() or len(compiler.groups()) > 3


@needs_module
def test_compiles_from_several_threads(monkeypatch):
    """A context per call: threads compile at once (the GIL released) and each gets the bytes a lone
    compile gives."""
    monkeypatch.setenv("TESSEL_IN_PROCESS", "1")
    kernels = [_corpus(name).KERNEL for name in CORPUS[:4]]
    alone = [k.compile("source", None, ["--target=triton"]) for k in kernels]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            together = list(pool.map(lambda k: k.compile("source", None, ["--target=triton"]), kernels))
            assert together == alone


def test_falls_back_to_the_subprocess(monkeypatch):
    """TESSEL_IN_PROCESS=0, a flag the module does not take, or no module beside the binary: the
    subprocess compiles (the GPU machine's static binary has no module)."""
    monkeypatch.setenv("TESSEL_IN_PROCESS", "0")
    assert _in_process.module() is None and _in_process.why_not() == "TESSEL_IN_PROCESS=0"
    assert _in_process.options("source", ["--mlir-timing"]) is None
    assert _in_process.options("source", ["--target=ptx", "--param=A=1"]) == \
        {"emit": "source", "target": "ptx", "params": ["A=1"]}
    monkeypatch.setenv("TESSEL_IN_PROCESS", "1")
    monkeypatch.setattr(_in_process, "_loaded", {})
    monkeypatch.setattr(_in_process, "_locate", lambda binary: None)
    assert _in_process.module() is None and "no _tessel_compiler module" in _in_process.why_not()
    k = _corpus("12_row_l2norm").KERNEL
    assert "@triton.jit" in k.compile("source", None, ["--target=triton"])
