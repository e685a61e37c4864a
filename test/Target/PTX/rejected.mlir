// Suite kernels outside the PTX selector are rejected at the op the author wrote (the KIR
// location), with the selector's limitation, and no artifact is written (seed 004).

// RUN: not tessel compile %tessel_src/examples/kir/embedding.mlir --target=ptx -o %t.embedding.ptx 2>&1 | FileCheck %s --check-prefix=SCATTER
// RUN: test ! -e %t.embedding.ptx
// SCATTER: embedding.mlir:34:5: error: the PTX selector cannot express 'pgpu.scatter_reduce': no PTX selection for this op yet

// RUN: not tessel compile %tessel_src/examples/kir/linear_attention.mlir --target=ptx --emit=device 2>&1 | FileCheck %s --check-prefix=REGION
// REGION: linear_attention.mlir:{{[0-9]+}}:{{[0-9]+}}: error: the PTX selector cannot express 'pgpu.region_fold'
// REGION-NOT: gpu.module

// RUN: not tessel compile %tessel_src/examples/kir/attention.mlir --target=ptx 2>&1 | FileCheck %s --check-prefix=FOLD
// FOLD: error: the PTX selector cannot express 'pgpu.range_reduce': no PTX selection for this op yet

// COM: THREADS outside its domain is a parameter error at the kernel.
// RUN: not tessel compile %tessel_src/examples/kir/softmax.mlir --target=ptx --param THREADS=48 2>&1 | FileCheck %s --check-prefix=DOMAIN
// DOMAIN: error: parameter 'THREADS' = 48 is outside its candidate domain

// COM: --device=cuda needs the PTX target.
// RUN: not tessel run %tessel_src/examples/kir/vector_add.mlir --shape N=37 --scalar scale=0.5 --device=cuda 2>&1 | FileCheck %s --check-prefix=NEEDPTX
// NEEDPTX: error: --device=cuda runs the PTX provider's code; add --target=ptx
