#!/usr/bin/env bash
# Idempotent set-up: installs the toolchain from Debian and PyPI, then configures and builds tessel.
#   scripts/setup.sh            install + build (Release, ccache)
#   TESSEL_SKIP_INSTALL=1 ...   build only
#   TESSEL_STATIC=1 ...         also build the self-contained static binary into build-static/
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TESSEL_BUILD_DIR:-$ROOT/build}"
JOBS="${TESSEL_JOBS:-$(nproc)}"
LLVM=/usr/lib/llvm-22

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi

if [ "${TESSEL_SKIP_INSTALL:-0}" != 1 ]; then
  # python3-dev and nanobind (below) build the compiler's Python extension module (TESSEL_PYTHON_BINDINGS,
  # tools/tessel-python): the package compiles in process with it, through the binary without it.
  DEB_PKGS="libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools lld-22 cmake ninja-build ccache g++ libgtest-dev zlib1g-dev libzstd-dev python3 python3-pip python3-dev"
  missing=""
  for p in $DEB_PKGS; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  if [ -n "$missing" ]; then
    echo "== apt-get install$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
  fi
  # pytest-xdist runs the test files on TESSEL_TEST_JOBS workers (scripts/test.sh).
  # torch (CPU is enough) runs the generated Triton under TRITON_INTERPRET=1; Triton 3.6's
  # interpreter needs numpy < 2.4 (it converts one-element arrays with int()).
  PY_PKGS=(pytest pytest-xdist "numpy<2.4" "triton==3.6.0" "torch==2.11.0" "nanobind>=2.0")
  # The installed versions from the packages' metadata: importing torch and triton to ask them took
  # seconds of every CI run on a warm machine.
  if ! python3 -c 'import sys
from importlib.metadata import version
v = {p: version(p) for p in ("pytest", "pytest-xdist", "numpy", "triton", "torch", "nanobind")}
ok = v["triton"] == "3.6.0" and v["torch"].startswith("2.11.") and tuple(map(int, v["numpy"].split(".")[:2])) < (2, 4)
sys.exit(0 if ok else 1)' 2>/dev/null; then
    echo "== pip install ${PY_PKGS[*]}"
    python3 -m pip install -q "${PY_PKGS[@]}" || python3 -m pip install -q --break-system-packages "${PY_PKGS[@]}"
  fi
fi

# lld links MLIR's archives much faster than ld.bfd; use it when gcc can find it.
LINKER=""
if command -v ld.lld >/dev/null 2>&1; then LINKER="-DLLVM_USE_LINKER=lld"; fi

configure() { # dir, extra cmake args...
  local dir="$1"; shift
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -G Ninja -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
      -DMLIR_DIR=$LLVM/lib/cmake/mlir -DLLVM_EXTERNAL_LIT=$LLVM/bin/lit \
      -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ $LINKER "$@"
  fi
}

configure "$BUILD"
echo "== building in $BUILD (-j$JOBS)"
cmake --build "$BUILD" -j "$JOBS"

if [ "${TESSEL_STATIC:-0}" = 1 ]; then
  configure "$ROOT/build-static" -DTESSEL_STATIC=ON -DTESSEL_ENABLE_TESTS=OFF
  cmake --build "$ROOT/build-static" -j "$JOBS" --target tessel
  echo "== static binary: $ROOT/build-static/bin/tessel"
fi
