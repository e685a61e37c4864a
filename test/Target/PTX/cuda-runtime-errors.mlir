// tessel's CUDA runtime (--device=cuda --target=ptx) on a machine without a usable driver: the
// failure is a clear error, not a crash. (Nothing here runs on a GPU.)

// RUN: env TESSEL_LIBCUDA=%t.missing/libcuda.so.1 not tessel run %tessel_src/examples/kir/vector_add.mlir --shape N=37 --scalar scale=0.5 --device=cuda --target=ptx 2>&1 | FileCheck %s --check-prefix=NODRIVER
// NODRIVER: error: cannot load the CUDA driver library '{{.*}}libcuda.so.1' ({{.*}}); the PTX provider's runtime needs an NVIDIA driver

// COM: A rejected program fails at compile time, before the driver is touched.
// RUN: env TESSEL_LIBCUDA=%t.missing/libcuda.so.1 not tessel run %tessel_src/examples/fused_pointwise.py:fused_pointwise --shape N=37 --scalar alpha=0.5 --device=cuda --target=ptx 2>&1 | FileCheck %s --check-prefix=REJECTED
// REJECTED: error: the PTX selector cannot express 'pgpu.unary'
// REJECTED-NOT: CUDA driver

// COM: An untuned run binds the covering defaults, as a Python call does: linear attention at
// COM: D = 3, E = 2 takes BLOCK_D = BLOCK_E = 16 (its declared 128 stage more shared memory than the
// COM: selector's budget), so it compiles and only the missing driver stops it; an explicit --param wins.
// RUN: env TESSEL_LIBCUDA=%t.missing/libcuda.so.1 not tessel run %tessel_src/examples/kir/linear_attention.mlir --shape B=1,H=2,T=5,D=3,E=2 --device=cuda --target=ptx 2>&1 | FileCheck %s --check-prefix=COVERS
// COVERS: error: cannot load the CUDA driver library
// RUN: env TESSEL_LIBCUDA=%t.missing/libcuda.so.1 not tessel run %tessel_src/examples/kir/linear_attention.mlir --shape B=1,H=2,T=5,D=3,E=2 --param=BLOCK_D=128 --device=cuda --target=ptx 2>&1 | FileCheck %s --check-prefix=EXPLICIT
// EXPLICIT: error: the PTX selector would stage {{[0-9]+}} bytes of fragments in shared memory here
// EXPLICIT-NOT: CUDA driver
