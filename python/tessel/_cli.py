"""Finding and running the `tessel` compiler binary."""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import time

from ._errors import CompileError

PACKAGE = pathlib.Path(__file__).resolve().parent
REPO = PACKAGE.parents[1]
# Where `pip install .` puts the compiler (pyproject.toml; CMakeLists.txt installs it): the layout of a
# build tree, bin/ beside lib/ (the CUDA launch library, python/tessel/_ptx.py), inside the package.
PACKAGED = PACKAGE / "_compiler" / "bin" / "tessel"


def find_tessel() -> str:
    """The `tessel` binary: $TESSEL_BIN, else the one installed inside this package (`pip install .`),
    else <repo>/build/bin/tessel (a developer's checkout), else `tessel` on PATH."""
    env = os.environ.get("TESSEL_BIN")
    if env:
        if not os.access(env, os.X_OK):
            raise CompileError(f"TESSEL_BIN={env} is not an executable file")
        return env
    if os.access(PACKAGED, os.X_OK):
        return str(PACKAGED)
    built = REPO / "build" / "bin" / "tessel"
    if built.exists():
        return str(built)
    found = shutil.which("tessel")
    if found:
        return found
    raise CompileError(f"cannot find the tessel compiler: set TESSEL_BIN, build it at {built} "
                       "(scripts/setup.sh), install the package (pip install .), or put it on PATH")


def main(argv=None) -> int:
    """The `tessel` console script (pyproject.toml): the compiler driver itself, `tessel compile|run|tune|
    groups|--help|--version` with the arguments as given, run from the binary `find_tessel` finds (this
    process becomes it). `python -m tessel` stays the Python side's own CLI (emit, run, tune).

    The driver traces FILE.py kernels and tunes with `python3 -m tessel`, found on PATH; this
    interpreter's directory goes first on PATH, so that is the interpreter (and the package) the script
    was installed with, also from a virtual environment that is not activated."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        binary = find_tessel()
        if sys.argv[0] and os.path.realpath(binary) == os.path.realpath(sys.argv[0]):
            # `tessel` on PATH is this very script: the package has no compiler of its own.
            raise CompileError("cannot find the tessel compiler: this package has none installed "
                               f"(expected at {PACKAGED}); set TESSEL_BIN or reinstall (pip install .)")
    except CompileError as err:
        print(str(err), file=sys.stderr)
        return 2
    env = dict(os.environ)
    here = os.path.dirname(sys.executable)
    if here and os.access(os.path.join(here, "python3"), os.X_OK):
        env["PATH"] = os.pathsep.join([here] + [p for p in [env.get("PATH")] if p])
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(binary, ["tessel", *args], env)
    return 2  # unreachable: execve replaces this process or raises


def run_tessel(args, retries: int = 2) -> subprocess.CompletedProcess:
    """Runs `tessel ARGS...`; a binary that vanished mid-rebuild is retried after a pause."""
    for attempt in range(retries + 1):
        try:
            return subprocess.run([find_tessel(), *map(str, args)], capture_output=True, text=True)
        except (OSError, CompileError):  # missing, not yet executable or busy while being relinked
            if attempt == retries:
                raise
            time.sleep(30)
    raise AssertionError("unreachable")


def check(res: subprocess.CompletedProcess, what: str) -> str:
    if res.returncode != 0:
        raise CompileError.from_compiler(res.stderr, f"{what} failed with exit code {res.returncode}")
    # Optimization remarks (compile option optimization_remarks=True) reach the author as they are.
    remarks = [line for line in res.stderr.splitlines() if "remark:" in line]
    if remarks:
        print("\n".join(remarks), file=sys.stderr)
    return res.stdout
