#!/usr/bin/env bash
# The libFuzzer run over tessel's libraries (issue 14; docs/fuzzing.md). Builds tools/tessel-fuzz
# with clang into build-fuzz/ (-DTESSEL_FUZZ=ON: tessel's code with coverage, ASan and UBSan;
# Debian's libMLIR uninstrumented), writes the seed corpus and dictionary from the tree, then runs
# libFuzzer until TESSEL_FUZZ_RUNS executions in all. Any crash, sanitizer report, leak, timeout
# or out-of-memory stops a worker with the input saved as build-fuzz/findings/{crash,leak,timeout,oom}-HASH.
#   scripts/fuzz.sh                        build + 1,000,000 executions (one worker)
#   TESSEL_FUZZ_RUNS=N TESSEL_FUZZ_JOBS=2  N executions split over 2 workers sharing one corpus
#   TESSEL_FUZZ_SECONDS=S                  stop each worker after S seconds instead (-max_total_time)
#   scripts/fuzz.sh FILE...                replay inputs (findings, a corpus folder) through the harness
#   TESSEL_FUZZ_STATIC=1                   (at the first configure) link LLVM statically: the binary then
#                                          runs on a machine without LLVM (docs/fuzzing.md, "Runs")
#   TESSEL_FUZZ_RECORD=1                   a run with no findings becomes the last deep run
#                                          (bench/results/fuzz_deep.json: commit, executions): CI's short fuzz
#                                          budget covers the passes changed since it (test/fuzz/fuzz.py --since);
#                                          TESSEL_FUZZ_COMMIT names the commit where the tree has no .git
# The corpus grows in build-fuzz/corpus/ and is reused by the next run. Needs clang-22 with
# libclang-rt-22-dev (apt-get install clang-22 libclang-rt-22-dev). The build takes 30-60 minutes
# on 2 shared cores (nothing is shared with build/'s ccache entries); everything runs at
# TESSEL_FUZZ_NICE (default 15).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TESSEL_FUZZ_DIR:-$ROOT/build-fuzz}"
LLVM=/usr/lib/llvm-22
if [ ! -x "$LLVM/bin/clang++" ] || ! ls "$LLVM"/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "fuzz.sh: needs clang-22 and libclang-rt-22-dev (apt-get install clang-22 libclang-rt-22-dev)" >&2
  exit 2
fi
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DTESSEL_FUZZ=ON \
    -DTESSEL_ENABLE_TESTS=OFF -DTESSEL_STATIC="${TESSEL_FUZZ_STATIC:-OFF}" \
    -DMLIR_DIR=$LLVM/lib/cmake/mlir -DLLVM_EXTERNAL_LIT=$LLVM/bin/lit \
    -DCMAKE_C_COMPILER=$LLVM/bin/clang -DCMAKE_CXX_COMPILER=$LLVM/bin/clang++ -DLLVM_USE_LINKER=lld
fi
NICE="${TESSEL_FUZZ_NICE:-15}"  # the build and the workers run at this niceness (do not wrap the script in nice)
nice -n "$NICE" cmake --build "$BUILD" -j "${TESSEL_JOBS:-2}" --target tessel-fuzz
# allow_user_poisoning=0: see scripts/sanitize.sh (Debian's uninstrumented copies of LLVM's
# BumpPtrAllocator read as use-after-poison otherwise).
export ASAN_OPTIONS="${ASAN_OPTIONS:-allow_user_poisoning=0:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
FUZZER="$BUILD/bin/tessel-fuzz"
if [ $# -gt 0 ]; then
  exec "$FUZZER" -runs=1 "$@"
fi
python3 "$ROOT/tools/tessel-fuzz/make_corpus.py" "$BUILD"
mkdir -p "$BUILD/corpus" "$BUILD/findings" "$BUILD/logs"
cp "$FUZZER" "$BUILD/tessel-fuzz-frozen"  # a rebuild during the run must not change the binary
RUNS="${TESSEL_FUZZ_RUNS:-1000000}"
JOBS="${TESSEL_FUZZ_JOBS:-1}"
STAMP="$(date -u +%Y%m%dT%H%M%S)"
FLAGS=(-max_len=40000 -timeout=25 -rss_limit_mb=3072 -dict="$BUILD/tessel.dict" -print_final_stats=1
       -artifact_prefix="$BUILD/findings/" -reload=60)
if [ -n "${TESSEL_FUZZ_SECONDS:-}" ]; then FLAGS+=(-max_total_time="$TESSEL_FUZZ_SECONDS"); fi
pids=()
for ((w = 0; w < JOBS; w++)); do
  nice -n "$NICE" "$BUILD/tessel-fuzz-frozen" "${FLAGS[@]}" -runs=$((RUNS / JOBS)) \
    -seed=$((w + 1)) "$BUILD/corpus" "$BUILD/seeds" > "$BUILD/logs/$STAMP-w$w.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
total=0
for ((w = 0; w < JOBS; w++)); do
  log="$BUILD/logs/$STAMP-w$w.log"
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo 0)
  total=$((total + ${runs:-0}))
  grep -h '^#[0-9]*.*\(DONE\|pulse\)' "$log" | tail -1 || true
done
echo "fuzz.sh: $total executions in $JOBS worker(s), corpus $(ls "$BUILD/corpus" | wc -l) inputs," \
  "findings: $(ls "$BUILD/findings" | grep -vc '^slow-unit' || true)," \
  "slow units (not failures): $(ls "$BUILD/findings" | grep -c '^slow-unit' || true) (logs: $BUILD/logs/$STAMP-w*.log)"
if [ "$status" = 0 ] && [ "${TESSEL_FUZZ_RECORD:-0}" = 1 ]; then
  python3 - "$ROOT" "$total" "$JOBS" "$STAMP" <<'PY'
import json, os, pathlib, subprocess, sys
root, total, jobs, stamp = pathlib.Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
commit = os.environ.get("TESSEL_FUZZ_COMMIT") or \
    subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
if not commit:  # a copy without .git (the GPU machine): say which commit was built
    sys.exit("fuzz.sh: not a git checkout: set TESSEL_FUZZ_COMMIT to the commit built to record the run")
dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                       capture_output=True, text=True).stdout.strip()
path = root / "bench" / "results" / "fuzz_deep.json"
record = json.loads(path.read_text()) if path.exists() else {}
record.update(commit=commit, date=f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}", executions=total, findings=0,
              what=f"scripts/fuzz.sh's libFuzzer run of tools/tessel-fuzz (ASan+UBSan), {jobs} worker(s)"
                   + (" (working tree with uncommitted changes)" if dirty else ""),
              details=f"build-fuzz/logs/{stamp}-w*.log")
path.write_text(json.dumps(record, indent=2) + "\n")
print(f"fuzz.sh: recorded the deep run at {commit[:12]} in {path}")
PY
fi
exit $status
