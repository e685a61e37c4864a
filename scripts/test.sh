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
TESSEL_BUILD_DIR="$BUILD" python3 -m pytest -q "$ROOT/python/tests"
