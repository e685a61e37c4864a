#!/usr/bin/env bash
# The main job: set-up (idempotent), build, then compile the example kernels and run them on the
# default device. Until a GPU provider lands, that device is the CPU reference interpreter.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TESSEL_BUILD_DIR:-$ROOT/build}"
TESSEL="$BUILD/bin/tessel"
"$ROOT/scripts/setup.sh"
for f in "$ROOT"/examples/kir/*.mlir; do
  "$TESSEL" compile "$f" --emit=kir > /dev/null
  echo "compiled $(basename "$f"): parsed, verified, origins assigned"
done
OUT="${TESSEL_OUT:-$ROOT/out}"
echo "== tessel run softmax (device: interp) -> $OUT/softmax"
"$TESSEL" run "$ROOT/examples/kir/softmax.mlir" --shape M=37,N=129 --seed 7 --out "$OUT/softmax"
echo "== tessel run attention, causal, random region_fold segmentation -> $OUT/attention"
"$TESSEL" run "$ROOT/examples/kir/attention.mlir" --shape B=2,H=4,S=67,T=67,D=64 --scalar scale=0.125 \
  --constexpr CAUSAL=true --segments random --seed 7 --out "$OUT/attention"
