"""The compiler in process: the CPython extension module `_tessel_compiler` (tools/tessel-python), which
runs the C++ pipeline on KIR text and returns the generated text and the diagnostics, instead of a
`tessel compile` subprocess and a temporary file (issue 46 item 2; docs/launching.md "The compiler in process").

The module is built beside the binary `_cli.find_tessel` finds: <build>/lib/ next to <build>/bin/tessel
in a build tree, tessel/_compiler/lib/ next to tessel/_compiler/bin/tessel in an installed package. It
is used only with the binary it was built with (the same build tree: both link one compile function,
lib/Driver), so whichever binary TESSEL_BIN names, the in-process path compiles exactly as it would.
Where there is none (the static binary of the GPU machine, a build without Python headers or
nanobind) or TESSEL_IN_PROCESS=0 is set, Kernel.compile runs the subprocess as before; the generated
text is byte-identical either way (python/tests/test_in_process.py).
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import pathlib
import sys

from . import _cli
from ._errors import CompileError

MODULE_NAME = "_tessel_compiler"

_loaded: dict = {}  # binary path -> (module or None, why not)


def _lib_dir(binary: str) -> pathlib.Path:
    """lib/ beside the binary's bin/: where the build and an install put the module."""
    return pathlib.Path(binary).resolve().parent.parent / "lib"


def _locate(binary: str) -> pathlib.Path | None:
    lib = _lib_dir(binary)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = lib / f"{MODULE_NAME}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def _load(binary: str):
    path = _locate(binary)
    if path is None:
        return None, f"no {MODULE_NAME} module beside {binary} (built with TESSEL_PYTHON_BINDINGS)"
    try:
        # One module per process (an extension module initializes once): the first binary's wins.
        if MODULE_NAME in sys.modules:
            module = sys.modules[MODULE_NAME]
            if pathlib.Path(module.__file__).resolve() != path:
                return None, f"{module.__file__} is loaded already; {path} cannot be loaded beside it"
            return module, None
        spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[MODULE_NAME] = module
        return module, None
    except ImportError as e:  # built for another Python, or a library missing: the subprocess works
        return None, f"{path} does not load ({e})"


def module():
    """The extension module, or None: TESSEL_IN_PROCESS=0, no binary, or no module beside it."""
    if os.environ.get("TESSEL_IN_PROCESS", "1") == "0":
        return None
    try:
        binary = _cli.find_tessel()
    except CompileError:
        return None
    if binary not in _loaded:
        _loaded[binary] = _load(binary)
    return _loaded[binary][0]


def why_not() -> str:
    """Why `module()` is None (for messages and the latency script)."""
    if os.environ.get("TESSEL_IN_PROCESS", "1") == "0":
        return "TESSEL_IN_PROCESS=0"
    try:
        binary = _cli.find_tessel()
    except CompileError as e:
        return str(e)
    if binary not in _loaded:
        _loaded[binary] = _load(binary)
    return _loaded[binary][1] or "it is loaded"


def version() -> str:
    """`tessel --version`'s line: from the module where it is used, else from the binary."""
    compiler = module()
    if compiler is not None:
        return compiler.version()
    return _cli.run_tessel(["--version"]).stdout.strip()


def options(emit: str, extra) -> dict | None:
    """The keyword arguments of `_tessel_compiler.compile` for `tessel compile --emit=EMIT EXTRA...`, or
    None when EXTRA holds a flag the module does not take (then the subprocess runs it)."""
    kw: dict = {"emit": emit, "params": []}
    for arg in map(str, extra):
        flag, eq, value = arg.partition("=")
        if flag == "--target" and eq:
            kw["target"] = value
        elif flag == "--param" and eq:
            kw["params"].extend(value.split(","))  # cl::CommaSeparated, as the binary splits it
        elif flag == "--numerics" and eq:
            kw["numerics"] = value
        elif flag == "--online-reduction" and eq:
            kw["online_reduction"] = value
        elif arg == "--remarks":
            kw["remarks"] = True
        else:
            return None
    return kw


def _as_dict(d) -> dict:
    return {"severity": d.severity, "file": d.file, "line": d.line, "col": d.col, "message": d.message,
            "notes": [_as_dict(n) for n in d.notes]}


def compile_text(compiler, kir: str, buffer_name: str, kw: dict, what: str) -> str:
    """Compiles KIR text in process: the output text, or the CompileError the subprocess path raises
    for the same diagnostics (`CompileError.from_compiler` of the same stderr text), with the
    diagnostics as structured data on it (`diagnostics`: dicts of severity, file, line, col, message).
    Remarks reach stderr as `_cli.check` prints them."""
    result = compiler.compile(kir, buffer_name=buffer_name, **kw)
    if result.exit_code != 0:
        err = CompileError.from_compiler(result.stderr, f"{what} failed with exit code {result.exit_code}")
        err.diagnostics = [_as_dict(d) for d in result.diagnostics]
        raise err
    remarks = [line for line in result.stderr.splitlines() if "remark:" in line]
    if remarks:
        print("\n".join(remarks), file=sys.stderr)
    return result.output


def compile_in_process(kir, name: str, emit: str, extra) -> str | None:
    """`tessel compile --emit=EMIT EXTRA...` of kernel `name`'s KIR (`kir()` gives the text) in process:
    its output, or None where the module is not used (none built, TESSEL_IN_PROCESS=0, or a flag it does
    not take), so that the caller runs the subprocess. The KIR is named `name`.mlir in diagnostics."""
    compiler = module()
    kw = options(emit, extra) if compiler is not None else None
    if kw is None:
        return None
    return compile_text(compiler, kir(), f"{name}.mlir", kw, f"tessel compile of kernel '{name}'")
