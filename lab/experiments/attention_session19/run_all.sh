#!/usr/bin/env bash
# Device: run_one.py over mods/*.py (or the given modules), one process each: $OUT/results.jsonl.
cd "$(dirname "$0")"
out="${OUT:-.}/results.jsonl"
for m in "${@:-mods/*.py}"; do
  for f in $m; do
    timeout 240 python3 run_one.py "$f" >> "$out" 2> "${OUT:-.}/$(basename "$f" .py).err" || echo "{\"module\": \"$f\", \"failed\": true}" >> "$out"
  done
done
cat "$out"
