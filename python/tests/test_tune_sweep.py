"""The GPU-free parts of bench/sweep.py (tuner against an exhaustive sweep): arguments, the planned
domain and its candidate counts, the results document, and that a failing phase still leaves a JSON."""
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "sweep.py"


def _sweep():
    spec = importlib.util.spec_from_file_location("bench_sweep", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _env(tmp_path):
    return dict(os.environ, TESSEL_CACHE=str(tmp_path), PYTHONPATH=str(ROOT / "python"))


def test_help_parses_without_a_gpu(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, env=_env(tmp_path))
    assert r.returncode == 0 and "--kernel {gemm,softmax}" in r.stdout


def test_arguments_default_per_kernel():
    sweep = _sweep()
    assert sweep.parse_args(["--kernel", "gemm"]).budget == 30.0
    assert sweep.parse_args([]).kernel == "softmax" and sweep.parse_args([]).budget == 25.0
    args = sweep.parse_args(["--kernel", "gemm", "--budget", "5", "--workers", "3"])
    assert (args.budget, args.workers, args.warm_caches) == (5.0, 3, False)
    with pytest.raises(SystemExit):
        sweep.parse_args(["--kernel", "attention"])


def test_gemm_plan_is_the_narrowed_declared_domain(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path))
    sweep = _sweep()
    case = sweep.CASES["gemm"]
    planned = sweep.plan(sweep.kernel_of(case), case)
    for name, values in planned["domain"].items():
        assert set(values) <= set(planned["declared"][name]) and set(values) == set(sweep.GEMM_DOMAIN[name])
    # Legalization's sm_90 contraction default (TritonLegalize.cpp): a 128 x 256 accumulator (its FLATTEN = 1
    # moves to the domain's only value, 0).
    # SPLIT_K 1: the declared default (pgpu-split-contractions), the only value of the domain at 8192^3
    assert planned["default"] == {"FLATTEN": 0, "GROUP_0": 8, "PERSIST": 1, "SPLIT_K": 1, "STAGES": 3, "TILE_0": 128,
                                  "TILE_1": 256, "TILE_K": 64, "TMA": 1, "WARPS": 8}
    assert planned["candidates"] == 324 and planned["to_check"] == 220  # what the module docstring says
    assert sum(planned["pruned"].values()) == 104


def test_plan_flag_prints_the_counts(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT), "--kernel", "gemm", "--plan"], capture_output=True, text=True,
                       env=_env(tmp_path), timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["to_check"] == 220
    assert "220 of 324 candidates to check" in r.stderr


def test_summary_of_a_whole_run_and_of_a_cut_short_one(tmp_path):
    sweep = _sweep()
    args = sweep.parse_args(["--kernel", "gemm", "--out", str(tmp_path)])
    case = sweep.CASES["gemm"]
    guided = sweep.phase({"timed": 3, "rejected": [({"WARPS": 4}, "PTXASError: registers")], "winner_ms": 1.7},
                         12.34, {"WARPS": 8})
    assert guided["wall_s"] == 12.3 and guided["rejected"] == ["{'WARPS': 4}: PTXASError: registers"]
    sweep_part = dict(guided, all_ms=[[{"WARPS": 8}, 1.6]])
    doc = sweep.summary(case, args, "H200", {"to_check": 220}, guided=guided, sweep=sweep_part,
                        head={"guided": 1.7, "sweep": 1.6})
    assert doc["guided_vs_sweep"] == pytest.approx(1.6 / 1.7)
    assert doc["TFLOPs"]["sweep"] == pytest.approx(2 * 8192 ** 3 / 1.6 / 1e9)
    assert doc["all_ms"] == [[{"WARPS": 8}, 1.6]] and "all_ms" not in doc["sweep"]
    assert "all_ms" in sweep_part  # the phase is not consumed: the next summary has it too
    assert doc["guided"]["budget_s"] == 30.0 and doc["sweep"]["budget_s"] == 420.0
    short = sweep.summary(case, args, "H200", {"to_check": 220}, guided=guided, error="RuntimeError: boom")
    assert "sweep" not in short and "head_to_head_ms" not in short and short["error"] == "RuntimeError: boom"
    path = sweep.write(short, args.out)
    assert path.name.endswith("-h200-sweep-gemm.json") and json.loads(path.read_text())["error"]
    assert not list(tmp_path.glob("*.tmp"))


def test_a_failing_phase_still_writes_what_was_measured(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    sweep = _sweep()
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "no GPU")
    monkeypatch.setattr(sweep, "inputs", lambda torch, case: ([], None))
    calls = []

    def search(torch, kernel, tensors, reference, case, args, label, budget_s):
        calls.append(label)
        if label == "exhaustive":
            raise RuntimeError("CUDA error: out of memory")
        return {"WARPS": 8}, {"timed": 5, "rejected": [], "times": []}, 1.0
    monkeypatch.setattr(sweep, "search", search)
    assert sweep.main(["--kernel", "gemm", "--warm-caches", "--out", str(tmp_path)]) == 1
    doc = json.loads(next(tmp_path.glob("*-h200-sweep-gemm.json")).read_text())
    assert calls == ["guided", "exhaustive"]
    assert doc["guided"]["timed"] == 5 and doc["error"] == "RuntimeError: CUDA error: out of memory"
    assert doc["device"] == "no GPU" and "sweep" not in doc
