#!/usr/bin/env bash
# The test command: set-up (idempotent), build, then lit, gtest and pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TESSEL_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/setup.sh"
echo "== lit"
/usr/lib/llvm-22/bin/lit -sv "$BUILD/test"
echo "== gtest"
"$BUILD/unittests/tessel-unittests" --gtest_brief=1
echo "== pytest"
# The test files on TESSEL_TEST_JOBS workers (default: the cores, at most 4), each file whole on one
# worker (--dist loadfile: a module's fixtures, such as the cuTile cubins, are built once).
JOBS=${TESSEL_TEST_JOBS:-$(( $(nproc) < 4 ? $(nproc) : 4 ))}
XDIST=()
if [ "$JOBS" -gt 1 ] && python3 -c 'import xdist' 2>/dev/null; then XDIST=(-n "$JOBS" --dist loadfile); fi
# --durations=30: every CI log shows the slowest tests (issue 47: the budget is kept by reading them).
# TESSEL_PYTEST_ARGS: more pytest options (e.g. --junitxml=FILE for every test's time).
# shellcheck disable=SC2086
TESSEL_BUILD_DIR="$BUILD" python3 -m pytest -q --durations=30 "${XDIST[@]}" ${TESSEL_PYTEST_ARGS:-} "$ROOT/python/tests"
