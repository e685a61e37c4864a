#!/usr/bin/env bash
# Generates what run.py times (on the CPU machine, from the repository root; built tessel):
# src/pw__<binding>.py (the bf16 fused_pointwise's Triton module) and ptx/histogram__<binding>__B=<bins>.ptx.
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$DIR/src" "$DIR/ptx"
PYTHONPATH=python python3 - "$DIR/src" <<'PY'
import pathlib, sys
sys.path.insert(0, "lab/experiments/linear_attention_session9")
from pointwise_bf16 import kernel
k, out = kernel(), pathlib.Path(sys.argv[1])
for name, p in {"defaults": {}, "W1": {"WARPS": 1}, "W2": {"WARPS": 2}, "B1024W4": {"BLOCK": 1024, "WARPS": 4},
                "B1024P1024W4": {"BLOCK": 1024, "BLOCK_P": 1024, "WARPS": 4}}.items():
    (out / f"pw__{name}.py").write_text(k.source("triton", {}, p))
PY
gen() { bins=$1; shift; args=(); name=histogram; for q in "$@"; do args+=(--param "$q"); name="${name}__$q"; done
  build/bin/tessel compile examples/kir/histogram.mlir --target=ptx "${args[@]}" -o "$DIR/ptx/${name}__B=$bins.ptx"; }
gen 65536 HBINS=32768 HPASSES=2 BLOCK=4096 BLOCK_P=524288 THREADS=1024
gen 65536 HBINS=32768 HPASSES=2 BLOCK=4096 BLOCK_P=524288 THREADS=512
gen 65536 HBINS=32768 HPASSES=2 BLOCK=4096 BLOCK_P=262144 THREADS=1024
gen 65536 HBINS=16384 HPASSES=4 BLOCK=4096 BLOCK_P=262144 THREADS=512
gen 65536 HBINS=16384 HPASSES=4 BLOCK=4096 BLOCK_P=524288 THREADS=1024
gen 65536 HBINS=8192 HPASSES=8 BLOCK=4096 BLOCK_P=262144 THREADS=512
gen 65536 HBINS=32 HPASSES=1 BLOCK=4096 BLOCK_P=65536 THREADS=256
gen 1024 HBINS=1024 HPASSES=1 BLOCK=4096 BLOCK_P=262144 THREADS=512
gen 1024 HBINS=1024 HPASSES=1 BLOCK=4096 BLOCK_P=65536 THREADS=256
gen 1024 HBINS=1024 HPASSES=1 BLOCK=4096 BLOCK_P=524288 THREADS=1024
