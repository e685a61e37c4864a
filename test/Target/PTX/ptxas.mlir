// REQUIRES: ptxas
// The PTX provider's output for every suite kernel it accepts is valid sm_90a PTX: ptxas (the
// test's validator; tessel never runs it, seed 004) assembles each module.
// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=ptx -o %t.vector_add.ptx
// RUN: %ptxas -arch=sm_90a %t.vector_add.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=ptx -o %t.softmax.ptx
// RUN: %ptxas -arch=sm_90a %t.softmax.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --target=ptx -o %t.layernorm.ptx
// RUN: %ptxas -arch=sm_90a %t.layernorm.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/rmsnorm.mlir --target=ptx -o %t.rmsnorm.ptx
// RUN: %ptxas -arch=sm_90a %t.rmsnorm.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/argmax.mlir --target=ptx -o %t.argmax.ptx
// RUN: %ptxas -arch=sm_90a %t.argmax.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/cross_entropy.mlir --target=ptx -o %t.cross_entropy.ptx
// RUN: %ptxas -arch=sm_90a %t.cross_entropy.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/gemv.mlir --target=ptx -o %t.gemv.ptx
// RUN: %ptxas -arch=sm_90a %t.gemv.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --target=ptx -o %t.histogram.ptx
// RUN: %ptxas -arch=sm_90a %t.histogram.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/cumsum.mlir --target=ptx -o %t.cumsum.ptx
// RUN: %ptxas -arch=sm_90a %t.cumsum.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/cummax.mlir --target=ptx -o %t.cummax.ptx
// RUN: %ptxas -arch=sm_90a %t.cummax.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/transpose.mlir --target=ptx -o %t.transpose.ptx
// RUN: %ptxas -arch=sm_90a %t.transpose.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=ptx -o %t.gemm.ptx
// RUN: %ptxas -arch=sm_90a %t.gemm.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/batched_gemm.mlir --target=ptx -o %t.batched_gemm.ptx
// RUN: %ptxas -arch=sm_90a %t.batched_gemm.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/embedding.mlir --target=ptx -o %t.embedding.ptx
// RUN: %ptxas -arch=sm_90a %t.embedding.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=ptx --param=BLOCK_S=32 --param=BLOCK_T=32 --param=BLOCK_D=32 -o %t.attention.ptx
// RUN: %ptxas -arch=sm_90a %t.attention.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/linear_attention.mlir --target=ptx --param=BLOCK_T=32 --param=BLOCK_D=32 --param=BLOCK_E=32 -o %t.linear_attention.ptx
// RUN: %ptxas -arch=sm_90a %t.linear_attention.ptx -o %t.cubin
// RUN: tessel compile %S/scan-reverse.mlir --target=ptx -o %t.rscan.ptx
// RUN: %ptxas -arch=sm_90a %t.rscan.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/pgpu/workspace_rowsum.mlir --target=ptx -o %t.workspace.ptx
// RUN: %ptxas -arch=sm_90a %t.workspace.ptx -o %t.cubin
// COM: other block sizes (THREADS is the provider's parameter): one warp, and 1024 threads
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=ptx --param THREADS=32 -o %t.softmax32.ptx
// RUN: %ptxas -arch=sm_90a %t.softmax32.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/cumsum.mlir --target=ptx --param THREADS=32 -o %t.cumsum32.ptx
// RUN: %ptxas -arch=sm_90a %t.cumsum32.ptx -o %t.cubin
// RUN: tessel compile %tessel_src/examples/kir/argmax.mlir --target=ptx --param THREADS=1024 -o %t.argmax1024.ptx
// RUN: %ptxas -arch=sm_90a %t.argmax1024.ptx -o %t.cubin
