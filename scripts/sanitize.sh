#!/usr/bin/env bash
# The ASan/UBSan configuration (issue 14): builds tessel's own code instrumented into build-asan/
# (-DTESSEL_SANITIZE=ON; Debian's libMLIR is not instrumented) and runs lit and gtest under it, then
# the pytest files that drive the compiler hardest (the CLI and interpreter paths: every `tessel`
# process the Python tests start is the instrumented one). About 2 minutes on 2 cores once built
# (the build itself: about 45 minutes, nothing shared with build/'s ccache entries).
#   scripts/sanitize.sh                 build + lit + gtest + pytest subset
#   TESSEL_SANITIZE_PYTEST=0 ...        skip the pytest subset
#   TESSEL_SANITIZE_FUZZ=600 ...        then fuzz the instrumented binary for 600 s (test/fuzz/fuzz.py)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TESSEL_ASAN_DIR:-$ROOT/build-asan}"
JOBS="${TESSEL_JOBS:-2}"
LLVM=/usr/lib/llvm-22
LINKER=""
if command -v ld.lld >/dev/null 2>&1; then LINKER="-DLLVM_USE_LINKER=lld"; fi
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTESSEL_SANITIZE=ON \
    -DMLIR_DIR=$LLVM/lib/cmake/mlir -DLLVM_EXTERNAL_LIT=$LLVM/bin/lit \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ $LINKER
fi
cmake --build "$BUILD" -j "$JOBS"
# Any report is fatal: ASan stops at the first, UBSan is built with -fno-sanitize-recover; leaks are
# reported (LSan; sanitize.supp holds suppressions, none needed so far). allow_user_poisoning=0: LLVM's
# BumpPtrAllocator poisons and unpoisons its slabs in inline header code when compiled under ASan, but
# Debian's uninstrumented MLIR archives hold other copies of it that do not, so slabs poisoned by our
# copy and handed out by theirs read as use-after-poison in MLIRContext's constructor (a false report;
# heap, stack and global checking are unaffected).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:allow_user_poisoning=0:max_allocation_size_mb=4096:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$ROOT/scripts/sanitize.supp}"
echo "== lit (ASan+UBSan)"
$LLVM/bin/lit -sv "$BUILD/test"
echo "== gtest (ASan+UBSan)"
"$BUILD/unittests/tessel-unittests" --gtest_brief=1
if [ "${TESSEL_SANITIZE_PYTEST:-1}" = 1 ]; then
  echo "== pytest subset (ASan+UBSan tessel processes)"
  TESSEL_BUILD_DIR="$BUILD" python3 -m pytest -q -p no:cacheprovider \
    "$ROOT/python/tests/test_hardening.py" "$ROOT/python/tests/test_special_values.py" \
    "$ROOT/python/tests/test_interp_suite.py" "$ROOT/python/tests/test_cli.py"
fi
if [ "${TESSEL_SANITIZE_FUZZ:-0}" != 0 ]; then
  echo "== mutation fuzzer on the instrumented binary (${TESSEL_SANITIZE_FUZZ} s)"
  cp "$BUILD/bin/tessel" "$BUILD/tessel-fuzz"  # frozen: a rebuild during the run must not mix binaries
  python3 "$ROOT/test/fuzz/fuzz.py" --tessel "$BUILD/tessel-fuzz" --seconds "$TESSEL_SANITIZE_FUZZ" --jobs "$JOBS" \
    --memory-mb 0 --timeout 30 --save "$BUILD/fuzz-findings" ${TESSEL_FUZZ_SEED:+--seed $TESSEL_FUZZ_SEED}
fi
