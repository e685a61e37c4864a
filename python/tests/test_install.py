"""The installable package (`pip install .`, pyproject.toml): what it declares, that CMake installs what
the package looks for, and that an installed copy finds its own compiler with no environment variables.
Fast: a copy of python/tessel in a temporary folder with a stand-in executable, no build. The real
install (a virtualenv, the CMake build, a kernel on the interpreter from an unrelated folder) is
scripts/check_install.sh, behind TESSEL_CHECK_INSTALL=1 in .ci/run."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
tomllib = pytest.importorskip("tomllib")


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_pyproject_declares_package_dependencies_and_entry_point():
    meta = pyproject()
    assert meta["build-system"]["build-backend"] == "scikit_build_core.build"
    assert any(r.startswith("scikit-build-core") for r in meta["build-system"]["requires"])
    project = meta["project"]
    assert project["name"] == "tessel" and "version" in project["dynamic"]
    assert [d for d in project["dependencies"] if re.match(r"numpy\b", d)]
    # torch and Triton stay optional: importing tessel and the interpreter need neither.
    assert not [d for d in project["dependencies"] if re.match(r"(torch|triton)\b", d)]
    assert "torch" in project["optional-dependencies"]
    assert any(d.startswith("triton") for d in project["optional-dependencies"]["triton"])
    assert project["scripts"] == {"tessel": "tessel._cli:main"}
    from tessel import _cli
    assert callable(_cli.main)
    # The version comes from the package itself (one place).
    version = meta["tool"]["scikit-build"]["metadata"]["version"]
    init = (ROOT / version["input"]).read_text()
    assert re.search(r'^__version__ = "\d+\.\d+\.\d+"$', init, re.M)


def test_cmake_installs_what_the_package_looks_for():
    skb = pyproject()["tool"]["scikit-build"]
    assert skb["wheel"]["packages"] == ["python/tessel"]
    # The compiler, its extension module (tessel._in_process) and the CUDA launch library: no tessel-opt,
    # tests or fuzzers.
    assert sorted(skb["build"]["targets"]) == ["_tessel_compiler", "tessel", "tessel_cuda"]
    assert skb["cmake"]["define"]["TESSEL_ENABLE_TESTS"] == "OFF"
    cmake = (ROOT / "CMakeLists.txt").read_text()
    [component] = skb["install"]["components"]
    installs = dict(re.findall(rf"install\(TARGETS (\S+) \w+ DESTINATION (\S+) COMPONENT {component}\)", cmake))
    assert installs == {"tessel": "tessel/_compiler/bin", "tessel_cuda": "tessel/_compiler/lib",
                        "_tessel_compiler": "tessel/_compiler/lib"}
    from tessel import _cli
    package = _cli.PACKAGE.parent
    assert _cli.PACKAGED == package / installs["tessel"] / "tessel"
    # The module lies where tessel._in_process looks for it: lib/ beside the binary's bin/.
    from tessel import _in_process
    assert _in_process._lib_dir(str(_cli.PACKAGED)) == package / installs["_tessel_compiler"]


def _copy_package(tmp_path, with_binary=True) -> pathlib.Path:
    """python/tessel copied to tmp/site/tessel as an install lays it out; with a stand-in compiler
    that prints its arguments and the python3 it would trace with."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "python" / "tessel", site / "tessel",
                    ignore=shutil.ignore_patterns("__pycache__", "_compiler"))
    if with_binary:
        binary = site / "tessel" / "_compiler" / "bin" / "tessel"
        binary.parent.mkdir(parents=True)
        binary.write_text('#!/bin/sh\nfor a in "$@"; do echo "arg=$a"; done\n'
                          'echo "python3=$(command -v python3)"\n')
        binary.chmod(0o755)
    return site


def _python(site, code, **env_extra):
    env = {k: v for k, v in os.environ.items() if k not in ("TESSEL_BIN", "TESSEL_CUDA_LIB", "PYTHONPATH")}
    env.update(PYTHONPATH=str(site), PATH="/usr/bin:/bin", **env_extra)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=site.parent)


def test_installed_package_finds_its_own_compiler_and_runtime_library(tmp_path):
    site = _copy_package(tmp_path)
    res = _python(site, "import tessel, tessel._cli as c, tessel._ptx as p\n"
                        "print(tessel.__file__); print(c.find_tessel()); print(p.library_path())")
    assert res.returncode == 0, res.stderr
    init, binary, library = res.stdout.split()
    assert init == str(site / "tessel" / "__init__.py")
    assert binary == str(site / "tessel" / "_compiler" / "bin" / "tessel")
    assert library == str(site / "tessel" / "_compiler" / "lib" / "libtessel_cuda.so")


def test_tessel_bin_still_overrides_the_packaged_compiler(tmp_path):
    site = _copy_package(tmp_path)
    res = _python(site, "import tessel._cli as c; print(c.find_tessel())", TESSEL_BIN="/bin/true")
    assert res.returncode == 0 and res.stdout.split() == ["/bin/true"], res.stderr


def test_console_script_runs_the_packaged_compiler_with_this_python(tmp_path):
    site = _copy_package(tmp_path)
    res = _python(site, "import sys, tessel._cli as c; sys.exit(c.main(['--help', 'two words']))")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[:2] == ["arg=--help", "arg=two words"]
    # The driver traces FILE.py kernels with `python3 -m tessel`: the interpreter the script runs on.
    here = pathlib.Path(sys.executable).parent
    if (here / "python3").exists():
        assert lines[2] == f"python3={here / 'python3'}"


def test_no_compiler_anywhere_is_a_clear_error(tmp_path):
    site = _copy_package(tmp_path, with_binary=False)
    res = _python(site, "import sys, tessel._cli as c; sys.exit(c.main(['--help']))")
    assert res.returncode == 2
    assert "cannot find the tessel compiler" in res.stderr and "pip install ." in res.stderr
    assert "Traceback" not in res.stderr
