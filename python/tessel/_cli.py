"""Finding and running the `tessel` compiler binary."""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import time

from ._errors import CompileError

REPO = pathlib.Path(__file__).resolve().parents[2]


def find_tessel() -> str:
    """The `tessel` binary: $TESSEL_BIN, else <repo>/build/bin/tessel, else `tessel` on PATH."""
    env = os.environ.get("TESSEL_BIN")
    if env:
        if not os.access(env, os.X_OK):
            raise CompileError(f"TESSEL_BIN={env} is not an executable file")
        return env
    built = REPO / "build" / "bin" / "tessel"
    if built.exists():
        return str(built)
    found = shutil.which("tessel")
    if found:
        return found
    raise CompileError(f"cannot find the tessel compiler: set TESSEL_BIN, build it at {built}, or put it on PATH")


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
