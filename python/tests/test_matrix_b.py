"""The differential matrix (test_matrix.py says what it checks) over the suite kernels at odd positions of
matrix_lib.suite_ids(); test_matrix.py runs the even ones and the matrix's own unit tests. Two files, so
that --dist loadfile spreads the matrix over CI's two workers."""
import os

import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import test_matrix as A  # noqa: E402  (its cases and checks; only the names below are collected here)
from test_matrix import suite  # noqa: E402,F401  (the session's suite kernels, a fixture)


@pytest.mark.parametrize("mode,kid", A._params("interp", 1))
def test_every_group_agrees_with_kir(mode, kid, suite, tmp_path):
    A.test_every_group_agrees_with_kir(mode, kid, suite, tmp_path)


@pytest.mark.parametrize("mode,kid", A._triton_params(1))
def test_triton_agrees_with_kir(mode, kid, suite, tmp_path, monkeypatch):
    A.test_triton_agrees_with_kir(mode, kid, suite, tmp_path, monkeypatch)


@pytest.mark.parametrize("mode,kid", A._ptx_params(1))
def test_ptx_agrees_with_kir(mode, kid, suite, tmp_path):
    A.test_ptx_agrees_with_kir(mode, kid, suite, tmp_path)
