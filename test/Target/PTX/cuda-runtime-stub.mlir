// REQUIRES: cuda-stub-driver
// The toolkit's stub libcuda loads but cannot initialize a device: the runtime names the call
// and the CUresult.
// RUN: env TESSEL_LIBCUDA=%cuda_stub_driver not tessel run %tessel_src/examples/kir/vector_add.mlir --shape N=37 --scalar scale=0.5 --device=cuda --target=ptx 2>&1 | FileCheck %s
// CHECK: error: initializing the CUDA driver failed with CUresult {{[0-9]+}}
