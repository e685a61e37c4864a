#!/usr/bin/env bash
# The GPU matrix (issue 19) for PTX and cuTile in one device call, inside the 64 MiB the call carries.
#   bench/matrix_gpu.sh pack PAYLOAD   # here: draws both providers' cases (bench/matrix_gpu.py gen, seed
#                                      # $TESSEL_MATRIX_SEED or a drawn one), packs them with matrix_gpu.py,
#                                      # python/tessel, libtessel_cuda.so and the cuTile 13.4 toolchain
#                                      # (TESSEL_CUTILE_TOOLCHAIN, default ~/.cache/tessel/cutile-toolchain,
#                                      # as one xz stream: about 58 MB, 2 MB less than three)
#   bash PAYLOAD/matrix_gpu.sh run PAYLOAD   # on the H200, from the carried tree: results in $OUT as they happen
# PAYLOAD must be a folder of the checkout the device copies (e.g. scratch/matrix: carry it).
# Then, here: python3 bench/matrix_gpu.py report --carry DIR/ptx --jsonl ptx.jsonl --json RESULTS.json.
# TESSEL_MATRIX_PROVIDERS (default "ptx cutile") picks the providers at pack time; at run time
# TESSEL_MATRIX_DEADLINE (default 205) is when cases stop starting, TESSEL_MATRIX_KILL (default 95 s
# later) when the checks are killed, and CUDA_TILE_COMPILER_TIMEOUT_SEC
# (default 60) bounds one tileiras run. cuTile's crash dumps (the bytecode and Tile IR of each tileiras
# failure or timeout, CUDA_TILE_ENABLE_CRASH_DUMP) come back as $OUT/cutile-dumps.tar.xz: tileiras
# reruns them here, without a GPU.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${1:-}" in
pack)
  P=$(realpath -m "$2"); T=$(mktemp -d); TC=${TESSEL_CUTILE_TOOLCHAIN:-$HOME/.cache/tessel/cutile-toolchain}
  export TESSEL_MATRIX_SEED=${TESSEL_MATRIX_SEED:-$((RANDOM * 7 + 1000))} PYTHONPATH="$ROOT/python:$ROOT/python/tests"
  PROVIDERS=${TESSEL_MATRIX_PROVIDERS:-ptx cutile}
  for p in $PROVIDERS; do  # TESSEL_MATRIX_ONLY=REGEX: only those kernels (a quick try of the payload)
    python3 "$ROOT/bench/matrix_gpu.py" gen --provider $p --out "$T/$p" ${TESSEL_MATRIX_ONLY:+--only "$TESSEL_MATRIX_ONLY"}
  done
  mkdir -p "$T/root/bench" "$T/root/python/tests" "$T/root/lib" "$P"
  cp "$ROOT/bench/matrix_gpu.py" "$T/root/bench/"; cp -r "$ROOT/python/tessel" "$T/root/python/"
  cp "$ROOT/python/tests/matrix_lib.py" "$T/root/python/tests/"; cp "$ROOT/build/lib/libtessel_cuda.so" "$T/root/lib/"
  find "$T/root" -name __pycache__ -prune -exec rm -rf {} +
  tar -C "$T" -cf - $PROVIDERS root | xz -9 -T2 > "$P/mx.tar.xz"
  [ -f "$P/cu13.tar.xz" ] ||  # minutes of xz: kept from an earlier pack
    tar -C "$TC/cu13" -cf - bin/tileiras lib/libnvvm.so.4 bin/ptxas | xz -9e --lzma2=preset=9e,dict=256MiB > "$P/cu13.tar.xz"
  cp "$TC"/carry/cuda_tile-*.whl "$P/"; cp "$0" "$P/matrix_gpu.sh"; rm -rf "$T"
  echo "payload $P ($(du -sh "$P" | cut -f1)), seed $TESSEL_MATRIX_SEED"
  ;;
run)  # PTX through its wrappers beside cuTile through ct.launch; each stops starting cases at 205 s
  set +e; P=$2; W=/tmp/mx; mkdir -p $W/ct $W/dumps; t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
  D=${TESSEL_MATRIX_DEADLINE:-205}; K=${TESSEL_MATRIX_KILL:-$(( D + 95 ))}  # a case started at D may still compile
  export PYTHONUNBUFFERED=1; xz -dc $P/mx.tar.xz | tar x -C $W
  [ -d $W/ptx ] && ( TESSEL_CUDA_LIB=$W/root/lib/libtessel_cuda.so timeout -s KILL $K python3 $W/root/bench/matrix_gpu.py check \
      --carry $W/ptx --jsonl $OUT/ptx.jsonl --json $OUT/ptx.json --jobs 4 --deadline $D > $OUT/ptx.log 2>&1; rc=$?
    echo "ptx done at $(el) s rc=$rc" ) &
  xz -dc $P/cu13.tar.xz | tar x -C $W/ct
  python3 -m pip install -q --no-index --no-deps --no-compile --target $W/ct/site $P/cuda_tile-*.whl
  echo "toolchain ready at $(el) s"
  export CUDA_HOME=$W/ct PATH=$W/ct/bin:$PATH PYTHONPATH=$W/ct/site CUDA_TILE_ENABLE_CRASH_DUMP=1 \
    CUDA_TILE_COMPILER_TIMEOUT_SEC=${CUDA_TILE_COMPILER_TIMEOUT_SEC:-60}
  ( cd $W/dumps && timeout -s KILL $(( K - $(el) )) python3 $W/root/bench/matrix_gpu.py check --carry $W/cutile \
      --jsonl $OUT/cutile.jsonl --json $OUT/cutile.json --jobs 12 --deadline $(( D - $(el) )) \
      --known "linear_attention=tileiras compile timeouts" --known "attention=tileiras compile timeouts" > $OUT/cutile.log 2>&1; rc=$?
    echo "cutile done at $(el) s rc=$rc" ) &
  wait; ls $W/dumps | head -n 40; [ -n "$(ls $W/dumps)" ] && tar -C $W/dumps -cf - . | xz -6 > $OUT/cutile-dumps.tar.xz
  tail -n 1 $OUT/*.log
  ;;
*) sed -n 2,10p "$0"; exit 2 ;;
esac
