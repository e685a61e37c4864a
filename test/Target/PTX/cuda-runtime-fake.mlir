// REQUIRES: fake-cuda-driver
// `tessel run --device=cuda --target=ptx` end to end on a CPU machine, through the unit tests'
// stand-in driver (host memory as device memory; it runs no PTX, so the outputs keep their
// never-written NaN fill): the kernel compiles in process, the ABI is marshalled, inputs and
// outputs are copied and written as .npy like the interpreter's.
// RUN: rm -rf %t.out
// RUN: env TESSEL_LIBCUDA=%fake_cuda_driver tessel run %tessel_src/examples/kir/vector_add.mlir --shape N=37 --scalar scale=0.5 --device=cuda --target=ptx --out %t.out | FileCheck %s
// RUN: ls %t.out | FileCheck %s --check-prefix=FILES
// CHECK: z: f32[37] sum=nan
// FILES: x.in.npy
// FILES: y.in.npy
// FILES: z.npy

// COM: --param reaches the provider (THREADS) and is checked against its domain.
// RUN: env TESSEL_LIBCUDA=%fake_cuda_driver not tessel run %tessel_src/examples/kir/vector_add.mlir --shape N=37 --scalar scale=0.5 --device=cuda --target=ptx --param THREADS=48 2>&1 | FileCheck %s --check-prefix=DOMAIN
// DOMAIN: error: parameter 'THREADS' = 48 is outside its candidate domain

// COM: Invocation workspace is allocated (and filled with its pgpu.init value) before the launch.
// RUN: env TESSEL_LIBCUDA=%fake_cuda_driver tessel run %tessel_src/examples/pgpu/workspace_rowsum.mlir --shape M=3,N=5 --device=cuda --target=ptx | FileCheck %s --check-prefix=WORKSPACE
// WORKSPACE: y: f32[3]
