"""bench/matrix_gpu.py on the CPU: the GPU matrix's two phases through Triton's interpreter (device cpu).

What a GPU run must keep when a time limit cuts it off is checked here: every case is one JSON line,
written as it ends; a deadline leaves the rest `not run`; `report` rebuilds the results from the lines
alone; a case that disagrees with the interpreter fails the run with the case named.
"""
import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from conftest import BUILD, ROOT

SCRIPT = ROOT / "bench" / "matrix_gpu.py"


def _run(*args, env=None):
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'python'}:{ROOT / 'python' / 'tests'}", "TRITON_INTERPRET": "1",
           "TESSEL_MATRIX_SEED": "11", "TESSEL_BUILD_DIR": str(BUILD), **(env or {})}
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=600)


@pytest.fixture(scope="module")
def carry(tessel_bin, tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    out = tmp_path_factory.mktemp("carry")
    res = _run("gen", "--provider", "triton", "--only", r"^kir/vector_add$", "--out", out)
    assert res.returncode == 0, res.stderr
    assert "triton: 1 kernels" in res.stdout, res.stdout
    return out


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_case_is_a_line_and_agrees(carry, tmp_path):
    jsonl, doc = tmp_path / "r.jsonl", tmp_path / "r.json"
    res = _run("check", "--carry", carry, "--jsonl", jsonl, "--json", doc, "--device", "cpu", "--jobs", "2")
    assert res.returncode == 0, res.stdout + res.stderr
    manifest = json.loads((carry / "manifest.json").read_text())
    lines = _lines(jsonl)
    assert lines[0]["meta"]["provider"] == "triton" and lines[0]["meta"]["device"] == "cpu"
    assert sorted(r["i"] for r in lines[1:]) == list(range(len(manifest["cases"])))
    assert all(r["status"] == "pass" for r in lines[1:])
    k = json.loads(doc.read_text())["kernels"]["kir/vector_add"]
    assert k["pass"] == k["cases"] == len(manifest["cases"]) and k["shapes_passed"] >= 8 and k["bindings_passed"] >= 3


def test_every_kernels_first_launcher_goes_first():
    """Under a deadline each kernel gets its first binding's cases before any kernel's second."""
    spec = importlib.util.spec_from_file_location("matrix_gpu", SCRIPT)
    mg = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mg)
    cases = [{"kid": k, "source": f"{k}{b}"} for k, b in
             [("a", 0), ("a", 1), ("a", 0), ("a", 2), ("b", 0), ("b", 1), ("c", 0)]]
    assert [(s, i) for s, i in mg.tasks(cases)] == [("a0", [0, 2]), ("b0", [4]), ("c0", [6]), ("a1", [1]),
                                                     ("b1", [5]), ("a2", [3])]


def test_a_deadline_leaves_the_rest_not_run(carry, tmp_path):
    jsonl = tmp_path / "r.jsonl"
    res = _run("check", "--carry", carry, "--jsonl", jsonl, "--device", "cpu", "--jobs", "1", "--deadline", "0")
    assert res.returncode == 0, res.stdout + res.stderr
    assert len(_lines(jsonl)) == 1  # the meta line only
    assert "0 of" in res.stdout and "not run" in res.stdout, res.stdout


def test_report_rebuilds_from_the_lines_and_a_mismatch_fails(carry, tmp_path):
    bad = tmp_path / "carry"
    subprocess.run(["cp", "-r", str(carry), str(bad)], check=True)
    manifest = json.loads((bad / "manifest.json").read_text())
    i = next(i for i, c in enumerate(manifest["cases"]) if 0 not in c["shape"].values())
    data = dict(np.load(bad / manifest["cases"][i]["data"]))
    data["out.z"] = data["out.z"] + 1.0  # the interpreter's answer, made wrong
    np.savez_compressed(bad / manifest["cases"][i]["data"], **data)
    jsonl = tmp_path / "r.jsonl"
    res = _run("check", "--carry", bad, "--jsonl", jsonl, "--device", "cpu", "--jobs", "1")
    assert res.returncode == 1 and "MISMATCH kir/vector_add" in res.stdout, res.stdout + res.stderr
    # A run killed part-way: the lines written so far (one cut off) are what the report counts.
    lines = jsonl.read_text().splitlines()
    pathlib.Path(jsonl).write_text("\n".join(lines[:4]) + "\n" + lines[4][:10])
    res = _run("report", "--carry", bad, "--jsonl", jsonl, "--json", tmp_path / "r.json")
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["counts"]["not_run"] == len(manifest["cases"]) - 3, doc["counts"]
    assert res.returncode == (1 if doc["counts"]["mismatch"] else 0)


def test_the_longest_compiles_go_first():
    """`--first REGEX`: the launchers of the kernels it matches start before all others (in the usual
    order among themselves), so that a pool of processes does not end waiting on them."""
    spec = importlib.util.spec_from_file_location("matrix_gpu", SCRIPT)
    mg = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mg)
    cases = [{"kid": k, "source": f"{k}{b}"} for k, b in
             [("a", 0), ("a", 1), ("b", 0), ("b", 1), ("c", 0)]]
    assert [s for s, _ in mg.tasks(cases, "^b$")] == ["b0", "b1", "a0", "c0", "a1"]
    assert [s for s, _ in mg.tasks(cases, "nothing")] == ["a0", "b0", "c0", "a1", "b1"]


def test_a_declined_launch_is_counted_not_failed(carry, tmp_path):
    """A wrapper that declines a launch before launching (the cuTile provider's ValueError for a launch
    fact's branch it does not compile) is counted as declined: the run does not fail on it."""
    declined = tmp_path / "carry"
    subprocess.run(["cp", "-r", str(carry), str(declined)], check=True)
    manifest = json.loads((declined / "manifest.json").read_text())
    for source in {c["source"] for c in manifest["cases"]}:
        path = declined / source
        path.write_text(path.read_text() + "\n\ndef vector_add(*args, **kwargs):\n    raise ValueError("
                        "\"vector_add: the cuTile provider compiles only the tiled branch of the launch fact\")\n")
    jsonl, doc = tmp_path / "r.jsonl", tmp_path / "r.json"
    res = _run("check", "--carry", declined, "--jsonl", jsonl, "--json", doc, "--device", "cpu", "--jobs", "1")
    assert res.returncode == 0, res.stdout + res.stderr
    assert all(r["status"] == "declined" for r in _lines(jsonl)[1:])
    counts = json.loads(doc.read_text())["counts"]
    assert counts["declined"] == counts["cases"] == len(manifest["cases"]) and counts["error"] == 0, counts
    assert f"{len(manifest['cases'])} declined before launching" in res.stdout, res.stdout
