"""CPU side: the session's results file (lab/results/2026-12-02-h200-attention-session11.json) from the
two H200 runs of this folder (time_variants.py: every variant checked against SDPA's math backend on
random non-zero inputs first, median of 30 CUDA-event timings, peers in the same process), in the
shape of bench/attention.py's entries: per case the tessel variants, the peers and the ratios (peer
time / tessel time). Run 2 is the compiler after this session's passes (the call's defaults as
compiled); run 1 the hand edits that led to them."""
import json
import pathlib

HERE = pathlib.Path(__file__).parent
ROOT = HERE.parents[2]


def entries(run, tag):
    rows = json.loads((HERE / f"2026-12-02-h200-{run}.json").read_text())["rows"]
    cases = {}
    for r in rows:
        key = (r["kind"], r["B"], r["H"], r["S"], r["D"])
        e = cases.setdefault(key, dict(kind=r["kind"], B=r["B"], H=r["H"], S=r["S"], D=r["D"], dtype="bf16",
                                       run=tag, tessel=[]))
        if r["name"].startswith("peer:"):
            if "ms" in r:
                e[r["name"][5:] + "_ms"], e[r["name"][5:] + "_TFLOPs"] = r["ms"], r["TFLOPs"]
        else:
            e["tessel"].append({k: r.get(k) for k in ("name", "params", "edit", "ms", "TFLOPs", "max_abs_err",
                                                      "correct", "error")})
    for e in cases.values():
        good = [t for t in e["tessel"] if t.get("correct")]
        best = min(good, key=lambda t: t["ms"])
        e["tessel_best"], e["tessel_ms"], e["tessel_TFLOPs"] = best["name"], best["ms"], best["TFLOPs"]
        d = next((t for t in good if t["name"].endswith("defaults")), None)
        if d:
            e["tessel_default_ms"], e["tessel_default_TFLOPs"] = d["ms"], d["TFLOPs"]
        for peer in ("flex", "sdpa_flash", "sdpa_cudnn", "sdpa_default"):
            if peer + "_ms" in e:
                e["vs_" + peer] = e[peer + "_ms"] / e["tessel_ms"]
                if d:
                    e["defaults_vs_" + peer] = e[peer + "_ms"] / d["ms"]
    return list(cases.values())


if __name__ == "__main__":
    profile = json.loads((HERE / "2026-12-02-h200-run2-profile.json").read_text())
    doc = dict(date="2026-12-02", device="NVIDIA H200", torch="2.11.0+cu130", triton="3.6",
               timing="median of 30 CUDA-event timings around one call after warm-up (host path included); "
                      "each variant checked against SDPA (math backend for the bias) on random non-zero inputs "
                      "first; peers in the same process",
               what="issue 13 session 11: bias [H,S,T] and causal B1 H4 S4099 D96, bf16; run2 = the compiler "
                    "after pgpu-exp-base2's difference form and the lane-block default (d96_*_pair, the pairing "
                    "of query blocks, is a hand edit of the generated source, not a compiler feature); run1 = the "
                    "hand edits and FOLD_SPLIT bindings measured before (lab/experiments/attention_session11)",
               results=entries("run2", "run2") + entries("run1", "run1"),
               device_time_ms=dict(note="torch profiler, mean over 20 calls, kernels only (run_bench.kernel_ms), "
                                        "run 2", rows=profile))
    out = ROOT / "bench" / "results" / "2026-12-02-h200-attention-session11.json"
    out.write_text(json.dumps(doc, indent=1) + "\n")
    for e in doc["results"]:
        print(e["run"], e["kind"], e["S"], e["D"], e["tessel_best"], round(e["tessel_TFLOPs"]),
              {k: round(v, 3) for k, v in e.items() if k.startswith(("vs_", "defaults_vs_"))},
              round(e.get("tessel_default_TFLOPs", 0)))
