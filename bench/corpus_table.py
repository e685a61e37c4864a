"""Renders bench/corpus.py's JSON as a Markdown table (ms, and peer time / tessel time: above 1, tessel is
faster).    python3 bench/corpus_table.py [bench/results/corpus.json] > bench/corpus/RESULTS.md"""
import json
import sys


def main(path="bench/results/corpus.json"):
    d = json.load(open(path))
    s = d["summary"]
    print(f"# Corpus results ({d['device']}, torch {d['torch']})\n")
    print("`python3 bench/corpus.py` (one process; each kernel checked against its NumPy reference at a test "
          "shape and against its eager peer at the bench shape before timing; medians of `do_bench`). "
          "Ratios: peer time / tessel time.\n")
    g = s.get("geomean_vs_compile")
    print(f"{s['kernels']} kernels, {s['timed']} timed, {s['failed']} failed; geomean vs torch.compile "
          f"{g:.2f}" if g else "", "\n")
    print("Rows carry the date they were measured (`measured`): a run may time a subset, whose rows replace "
          "the earlier ones.\n")
    print("| kernel | shape | measured | tessel ms | eager ms | torch.compile ms | vs eager | vs torch.compile | note |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in d["kernels"]:
        shape = " ".join(f"{k}={v}" for k, v in (r.get("shape") or {}).items())
        note = (r.get("error") or r.get("compile_error") or r.get("note") or "").replace("|", "/").replace("\n", " ")[:120]
        f = lambda k: f"{r[k]:.3f}" if k in r else "—"
        ratio = lambda k: f"**{r[k]:.2f}**" if r.get(k, 0) >= 1 else (f"{r[k]:.2f}" if k in r else "—")
        print(f"| {r['name']} | {shape} | {r.get('measured', '')} | {f('tessel_ms')} | {f('eager_ms')} | {f('compile_ms')} | "
              f"{ratio('vs_eager')} | {ratio('vs_compile')} | {note} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
