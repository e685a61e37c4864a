#!/usr/bin/env bash
# The main job: set-up (idempotent), build, then compile the example kernels.
# Until the interpreter and providers land, compiling stops at verified KIR (--emit=kir).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TESSEL_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/setup.sh"
for f in "$ROOT"/examples/kir/*.mlir; do
  echo "== tessel compile $(basename "$f") --emit=kir"
  "$BUILD/bin/tessel" compile "$f" --emit=kir > /dev/null
  echo "   parsed, verified, origins assigned"
done
"$BUILD/bin/tessel" compile "$ROOT/examples/kir/softmax.mlir" --emit=kir
