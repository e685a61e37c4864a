"""Shared fixtures: where the built tools live."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
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
