#!/usr/bin/env bash
# The main job: set-up (idempotent), build, then compile the example kernels and run them on the
# default device. Until a GPU provider lands, that device is the CPU reference interpreter.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TESSEL_BUILD_DIR:-$ROOT/build}"
TESSEL="$BUILD/bin/tessel"
OUT="${TESSEL_OUT:-$ROOT/out}"
"$ROOT/scripts/setup.sh"
for f in "$ROOT"/examples/kir/*.mlir; do
  "$TESSEL" compile "$f" --emit=kir > /dev/null
  echo "compiled $(basename "$f"): parsed, verified, origins assigned"
done
echo "== DSL softmax: trace, construct the physical program, run both stages (device: interp)"
mkdir -p "$OUT"
"$TESSEL" compile "$ROOT/examples/softmax.py:softmax" --emit=pgpu > "$OUT/softmax.pgpu.mlir"
"$TESSEL" run "$ROOT/examples/softmax.py:softmax" --shape M=37,N=129 --seed 7 --out "$OUT/softmax"
"$TESSEL" run "$ROOT/examples/softmax.py:softmax" --shape M=37,N=129 --seed 7 --stage pgpu --order shuffle
echo "== DSL attention, causal, random region_fold segmentation -> $OUT/attention"
"$TESSEL" run "$ROOT/examples/attention.py:attention" --shape B=2,H=4,S=67,T=67,D=64 --scalar scale=0.125 \
  --constexpr CAUSAL=true --segments random --seed 7 --out "$OUT/attention"
echo "== DSL linear attention: a region scan, each output row emitted on the state before it (pgpu interp)"
"$TESSEL" run "$ROOT/examples/linear_attention.py:linear_attention" --shape B=1,H=2,T=13,D=4,E=6 --seed 7 \
  --stage pgpu --order shuffle
echo "== DSL GEMM: pgpu-form-tiles makes TILE_0 x TILE_1 programs with pgpu.contract (tl.dot in Triton)"
"$TESSEL" compile "$ROOT/examples/matmul.py:matmul" --emit=source --target=triton -o "$OUT/matmul_triton.py"
echo "wrote $OUT/matmul_triton.py ($(grep -c 'tl.dot(' "$OUT/matmul_triton.py") tl.dot)"
"$TESSEL" run "$ROOT/examples/gemm.py:gemm" --shape M=37,N=45,K=29 --seed 7 --stage pgpu \
  --param TILE_0=16,TILE_1=32,TILE_K=16,GROUP_0=2 --order shuffle
echo "== hand-written physical GEMM (seed 000 §12), BM=64 BN=32 BK=32, programs in shuffled order"
"$TESSEL" run "$ROOT/examples/pgpu/gemm.mlir" --shape M=129,N=37,K=128 --param BM=64,BN=32,BK=32 --order shuffle
