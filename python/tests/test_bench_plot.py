"""bench/plot.py: which measurement of a kernel and shape a figure shows, and the ratios it draws."""
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_plot", ROOT / "bench" / "plot.py")
plot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plot)


def _run(tmp_path, name, date, rows):
    (tmp_path / name).write_text(json.dumps({"date": date, "results": rows}))


def _row(kernel, n, tessel, torch_eager, **more):
    return dict(kernel=kernel, shape={"N": n}, correct=True, tessel_ms=tessel, torch_eager_ms=torch_eager, **more)


def test_the_latest_run_wins_and_failed_rows_drop_out(tmp_path, capsys):
    _run(tmp_path, "b-old.json", "2026-11-29", [_row("softmax", 64, 2.0, 1.0), _row("argmax", 64, 1.0, 1.0)])
    _run(tmp_path, "a-new.json", "2026-11-30", [_row("softmax", 64, 1.0, 3.0),
                                                dict(_row("argmax", 64, 1.0, 1.0), correct=False)])
    (tmp_path / "sweep.json").write_text(json.dumps({"date": "2026-12-01", "case": "gemm"}))  # no results: skipped
    rows = plot.latest_rows(plot.load_runs(tmp_path))
    assert [(r["kernel"], r["run"]) for r in rows] == [("softmax", "a-new.json")]
    assert "argmax 64 in a-new.json" in capsys.readouterr().err
    labels, series = plot.ratios(rows, "_ms")
    assert labels == ["softmax 64"] and series == {"torch eager / cuBLAS / SDPA": [3.0]}


def test_figures_are_drawn_from_the_committed_results(tmp_path):
    pytest.importorskip("matplotlib")
    assert plot.main(["--out", str(tmp_path)]) == 0
    for name in ("speedup-device.png", "speedup-end-to-end.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
