"""Figures of the benchmark results: tessel against each peer, per kernel and shape.

Reads the run files in lab/results/ (the dated JSON that run_bench.py writes; files without a
`results` list, such as sweeps and experiments, are skipped), keeps the latest measurement of every
(kernel, shape) (a later run file wins: by its `date`, then by when git last committed it, then by
name), and draws, as PNGs under docs/figures/:

    speedup-device.png      device time of the peer / device time of tessel (profiler, per launch)
    speedup-end-to-end.png  one call end to end (CUDA events), the same ratio

A ratio above 1 means tessel is faster. Peers: torch eager (torch.matmul, i.e. cuBLAS, for matmul;
SDPA for attention), torch.compile (end to end only) and the hand-written Triton kernels. Rows whose
check failed are left out and named on stderr.

    python3 bench/plot.py [--results lab/results] [--out docs/figures]

Needs matplotlib (`pip install matplotlib`); nothing else in tessel does.
"""
from __future__ import annotations

import argparse
import json
import math
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

# (label, key prefix): `<prefix>_ms` end to end, `<prefix>_kernel_ms` device time.
PEERS = [("torch eager / cuBLAS / SDPA", "torch_eager"), ("torch.compile", "torch_compile"),
         ("hand-written Triton", "triton_hand")]
FIGURES = {"device": ("speedup-device.png", "_kernel_ms", "Device time: peer / tessel (higher: tessel faster)"),
           "end-to-end": ("speedup-end-to-end.png", "_ms", "One call end to end: peer / tessel (higher: tessel faster)")}


def _committed_at(path: pathlib.Path) -> int:
    """When git last committed `path`'s content, through renames (the move to lab/results/ is not a new
    run); 0 outside a work tree or for an uncommitted file."""
    try:
        r = subprocess.run(["git", "log", "-1", "--follow", "--diff-filter=AM", "--format=%ct", "--", path.name],
                           cwd=path.parent, capture_output=True, text=True, timeout=30)
        return int(r.stdout.strip() or 0)
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0


def load_runs(directory: pathlib.Path) -> list:
    """The run files under `directory`, oldest first: (name, run dict)."""
    runs = []
    for path in sorted(directory.glob("*.json")):
        run = json.loads(path.read_text())
        if isinstance(run, dict) and isinstance(run.get("results"), list):
            runs.append((str(run.get("date", "")), _committed_at(path), path.name, run))
    runs.sort(key=lambda r: r[:3])
    return [(name, run) for _, _, name, run in runs]


def shape_text(shape: dict) -> str:
    return "x".join(str(v) for v in shape.values())


def latest_rows(runs) -> list:
    """The last measurement of every (kernel, shape) over `runs` (oldest first), sorted by kernel
    (f32 then bf16) and size; each row gains `run` (its file name). Rows that failed their check
    drop out."""
    rows, failed = {}, []
    for name, run in runs:
        for row in run["results"]:
            # Runs of other benchmarks (attention.py, ptx_check.py) have rows of their own form.
            if "kernel" not in row or not isinstance(row.get("shape"), dict):
                continue
            key = (row["kernel"], json.dumps(row.get("shape", {}), sort_keys=True))
            if not row.get("correct", True):
                failed.append(f"{row['kernel']} {shape_text(row.get('shape', {}))} in {name}")
                rows.pop(key, None)
                continue
            rows[key] = dict(row, run=name)
    for f in failed:
        print(f"plot: left out (its check failed): {f}", file=sys.stderr)
    def order(row):  # a kernel's dtypes and shapes together, smallest first
        shape = row.get("shape", {})
        return row["kernel"].replace("_bf16", ""), "_bf16" in row["kernel"], math.prod(shape.values()), shape_text(shape)
    return sorted(rows.values(), key=order)


def ratios(rows, suffix: str) -> tuple:
    """(labels, {peer label: [peer time / tessel time, or None]}) of the rows that have `suffix` times."""
    kept = [r for r in rows if isinstance(r.get("tessel" + suffix), (int, float)) and r["tessel" + suffix] > 0]
    labels = [f"{r['kernel']} {shape_text(r.get('shape', {}))}" for r in kept]
    out = {}
    for label, prefix in PEERS:
        values = []
        for r in kept:
            peer = r.get(prefix + suffix)
            values.append(peer / r["tessel" + suffix] if isinstance(peer, (int, float)) and peer > 0 else None)
        if any(v is not None for v in values):
            out[label] = values
    return labels, out


def draw(labels, series: dict, title: str, path: pathlib.Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n, k = len(labels), max(1, len(series))
    height = 0.8 / k
    fig, ax = plt.subplots(figsize=(9, 0.42 * n * max(1, k / 2) + 1.6))
    colors = ["#4c72b0", "#dd8452", "#55a868", "#c44e52"]
    lo, hi = 1 / 8, 16  # ratios beyond are drawn at the edge, hatched, with their value
    for i, (peer, values) in enumerate(series.items()):
        ys = [row + (i - (k - 1) / 2) * height for row in range(n)]
        xs = [min(max(v, lo), hi) if v is not None else math.nan for v in values]
        # Bars start at 1 (level with tessel): right when tessel is faster, left when slower.
        bars = ax.barh(ys, [x - 1 for x in xs], left=1.0, height=height, label=peer, color=colors[i % len(colors)])
        for bar, y, v in zip(bars, ys, values):
            if v is None:
                continue
            if not lo <= v <= hi:
                bar.set_hatch("///")
            ax.annotate(f"{v:.3g}x", (min(max(v, lo), hi), y), xytext=(3 if v >= 1 else -3, 0),
                        textcoords="offset points", va="center", ha="left" if v >= 1 else "right", fontsize=6)
    ax.set_xlim(lo / 1.8, hi * 1.8)
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(range(n))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("peer time / tessel time (log scale; hatched: beyond the axis, value printed)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(axis="x", which="both", linewidth=0.3, alpha=0.5)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})  # no version stamp: the same data, the same bytes
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", type=pathlib.Path, default=ROOT / "lab" / "results")
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "docs" / "figures")
    args = ap.parse_args(argv)
    rows = latest_rows(load_runs(args.results))
    if not rows:
        print(f"plot: no run files with results under {args.results}", file=sys.stderr)
        return 1
    for file, suffix, title in FIGURES.values():
        labels, series = ratios(rows, suffix)
        draw(labels, series, title, args.out / file)
        print(f"plot: {args.out / file} ({len(labels)} kernel/shape rows, peers: {', '.join(series)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
