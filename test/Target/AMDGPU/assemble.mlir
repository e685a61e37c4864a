// REQUIRES: amdgpu-tools
// The AMDGPU provider's output is what LLVM 22's own tools accept for gfx942 (tessel never runs
// them, seed 004): llvm-mc assembles the printed ISA, kernel descriptors and metadata included;
// the code object (--emit=binary, relocatable) links with ld.lld into the shared object an HSA
// runtime loads, whose amdhsa note llvm-readobj reads. python/tests/test_amdgpu.py does the same
// for every suite kernel.
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=amdgpu -o %t.softmax.s
// RUN: %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.softmax.s -o %t.softmax.mc.o
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=amdgpu --emit=binary -o %t.softmax.o
// RUN: %llvm_readobj --file-headers %t.softmax.o | FileCheck %s --check-prefix=REL
// REL: Type: Relocatable
// REL: Machine: EM_AMDGPU
// RUN: %ld_lld -shared %t.softmax.o -o %t.softmax.hsaco
// RUN: %llvm_readobj --notes %t.softmax.hsaco | FileCheck %s --check-prefix=NOTES
// NOTES: Owner: AMDGPU
// NOTES: .group_segment_fixed_size: {{[1-9][0-9]*}}
// NOTES: .kernarg_segment_size:
// NOTES: .max_flat_workgroup_size: 128
// NOTES: .name: softmax
// NOTES: .wavefront_size: 64
// NOTES: amdhsa.target: amdgcn-amd-amdhsa--gfx942
// RUN: %llvm_objdump -d --mcpu=gfx942 %t.softmax.hsaco | FileCheck %s --check-prefix=DIS
// DIS: <softmax>:
// DIS: s_barrier
// DIS: s_endpgm
// RUN: tessel compile %tessel_src/examples/kir/cumsum.mlir --target=amdgpu -o %t.cumsum.s
// RUN: %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.cumsum.s -o %t.cumsum.mc.o
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --target=amdgpu -o %t.histogram.s
// RUN: %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.histogram.s -o %t.histogram.mc.o
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=amdgpu -o %t.gemm.s
// RUN: %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.gemm.s -o %t.gemm.mc.o
// RUN: tessel compile %tessel_src/examples/kir/attention.mlir --target=amdgpu -o %t.attention.s
// RUN: %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.attention.s -o %t.attention.mc.o
// COM: other workgroup sizes: one wavefront, and 1024 threads
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=amdgpu --param THREADS=64 -o %t.softmax64.s
// RUN: %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.softmax64.s -o %t.softmax64.o
// RUN: tessel compile %tessel_src/examples/kir/argmax.mlir --target=amdgpu --param THREADS=1024 -o %t.argmax1024.s
// RUN: %llvm_mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.argmax1024.s -o %t.argmax1024.o
