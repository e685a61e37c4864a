#!/usr/bin/env bash
# Installs tessel as a user would and uses it from an unrelated folder with no environment variables:
# `pip install .` into a fresh virtualenv (this builds the compiler with CMake: minutes, incremental in
# build-pip/ on a re-run, ccache when installed), then a softmax kernel on the interpreter against numpy,
# then on torch tensors through Triton under TRITON_INTERPRET=1 (when torch and triton import),
# `tessel --help`, `tessel --version` and `tessel compile FILE.py:KERNEL` through the console script.
# Too slow for the default CI tier: .ci/run runs it with TESSEL_CHECK_INSTALL=1.
#   scripts/check_install.sh              a new virtualenv in a temporary folder, removed afterwards
#   TESSEL_CHECK_VENV=DIR ...             use (or create) the virtualenv DIR and keep it
# The virtualenv sees the system's site-packages (numpy, torch); LLVM/MLIR 22 come from scripts/setup.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
VENV="${TESSEL_CHECK_VENV:-$WORK/venv}"
[ -x "$VENV/bin/python" ] || python3 -m venv --system-site-packages "$VENV"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-${TESSEL_JOBS:-$(nproc)}}"
echo "== pip install $ROOT (into $VENV)"
"$VENV/bin/python" -m pip install -q "$ROOT"

USE="$WORK/elsewhere"
mkdir -p "$USE"
cd "$USE"
unset PYTHONPATH TESSEL_BIN TESSEL_CUDA_LIB TESSEL_BUILD_DIR
cat > rowsoftmax.py <<'EOF'
import tessel
import tessel.language as T


@tessel.kernel
def rowsoftmax(x: T.In[T.f32, ("M", "N")], y: T.Out[T.f32, ("M", "N")]):
    M, N = x.shape
    cols = T.domain(0, N)
    for m in T.parallel(T.domain(0, M)):
        row = x[m, cols]
        e = T.exp(row - T.max(row))
        y[m, cols] = e / T.sum(e)


if __name__ == "__main__":
    import pathlib
    import numpy as np
    assert pathlib.Path(tessel.__file__).parent.parent != pathlib.Path.cwd()
    rng = np.random.default_rng(7)
    for M, N in [(1, 1), (7, 13), (3, 129)]:
        x = (rng.random((M, N), dtype=np.float32) + 0.5) * rng.choice([-1, 1], (M, N)).astype(np.float32)
        y = rowsoftmax.run_interp(shapes={"M": M, "N": N}, inputs={"x": x})["y"]
        e = np.exp(x - x.max(axis=1, keepdims=True))
        np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    print(f"interpreter ok: tessel {tessel.__version__} from {pathlib.Path(tessel.__file__).parent}")
EOF
echo "== a kernel on the interpreter, from $USE"
"$VENV/bin/python" rowsoftmax.py
if "$VENV/bin/python" -c "import torch, triton" 2>/dev/null; then
  echo "== the same kernel on torch tensors, through the generated Triton (TRITON_INTERPRET=1)"
  TRITON_INTERPRET=1 "$VENV/bin/python" -c "
import torch, rowsoftmax as m
x = torch.rand(7, 13) + 0.5
y = torch.empty_like(x)
m.rowsoftmax(x, y)
torch.testing.assert_close(y, x.softmax(1))
print('triton (interpreted) ok')"
fi
echo "== the compiler in process (tessel._in_process: the extension module installed beside the binary)"
"$VENV/bin/python" -c "
import os, rowsoftmax as m
from tessel import _in_process
assert _in_process.module() is not None, _in_process.why_not()
inside = m.rowsoftmax.compile('source', None, ['--target=triton'])
os.environ['TESSEL_IN_PROCESS'] = '0'
assert inside == m.rowsoftmax.compile('source', None, ['--target=triton'])
print('in process ok: the same source as the binary gives')"
echo "== tessel --help"
"$VENV/bin/tessel" --help
"$VENV/bin/tessel" --version
echo "== tessel compile rowsoftmax.py:rowsoftmax (traced by the virtualenv's python, not activated)"
"$VENV/bin/tessel" compile rowsoftmax.py:rowsoftmax --emit=source --target=triton > rowsoftmax_triton.py
grep -q "@triton.jit" rowsoftmax_triton.py
echo "check_install: ok"
