"""Renders bench/run_bench.py's current JSON (bench/results/suite.json) as the README's Markdown table:
end-to-end and device µs, and peer time / tessel time (above 1, tessel is faster).
    python3 bench/suite_table.py [bench/results/suite.json]"""
import json
import sys


def main(path="bench/results/suite.json"):
    d = json.load(open(path))
    print(f"| kernel | shape | correct (max abs err) | end-to-end µs | device µs | vs torch eager | vs torch.compile "
          f"| device time vs hand Triton |")
    print("|---|---|---|---|---|---|---|---|")
    ratio = lambda v: "—" if not v else (f"**{v:.2f}**" if v >= 1 else f"{v:.2f}")
    us = lambda v: "—" if v is None else (f"{1000 * v:.0f}" if v >= 0.1 else f"{1000 * v:.1f}")
    for r in d["results"]:
        shape = ", ".join(f"{k}={v}" for k, v in r["shape"].items())
        ok = f"yes ({r['max_abs_err']:.1e})" if r.get("correct") else "NO"
        print(f"| {r['kernel']} | {shape} | {ok} | {us(r.get('tessel_ms'))} | {us(r.get('tessel_kernel_ms'))} | "
              f"{ratio(r.get('speedup_vs_torch_eager'))} | {ratio(r.get('speedup_vs_torch_compile'))} | "
              f"{ratio(r.get('kernel_speed_vs_triton_hand'))} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
