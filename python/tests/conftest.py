"""Shared fixtures: where the built tools live."""
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The pure-Python package lives in python/; make it importable without installing it.
try:
    import tessel  # noqa: F401
except ImportError:
    sys.path.insert(0, str(ROOT / "python"))
BUILD = pathlib.Path(os.environ.get("TESSEL_BUILD_DIR", ROOT / "build"))


@pytest.fixture(scope="session")
def tessel_bin():
    path = BUILD / "bin" / "tessel"
    if not path.exists():
        pytest.fail(f"{path} is missing; run scripts/setup.sh first")
    return path


@pytest.fixture(scope="session")
def root():
    return ROOT


def pytest_terminal_summary(terminalreporter):
    """The differential matrix's size (test_matrix.py), when it ran."""
    matrix = sys.modules.get("matrix_lib")
    for line in matrix.summary_lines() if matrix else []:
        terminalreporter.write_line(line)
