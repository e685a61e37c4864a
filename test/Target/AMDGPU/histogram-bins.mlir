// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --emit=pgpu | tessel-opt -pgpu-amdgpu-legalize | FileCheck %s --check-prefix=AMDGPU
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --emit=pgpu | tessel-opt -pgpu-ptx-legalize | FileCheck %s --check-prefix=PTX
// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --emit=pgpu | tessel-opt -pgpu-amdgpu-legalize | FileCheck %s --check-prefix=NONE

// COM: A selector target keeps the bins candidates whose shared count array (4-byte counts) fits:
// COM: the AMDGPU target has no dynamic shared memory, so the array gets the static 64 KiB less the
// COM: 8 KiB staging reserve (up to 8192 bins; 16384 would take all 64 KiB); the link to HPASSES and
// COM: the covered symbol stay, so the call's default counts 65536 bins as 8 passes of 8192.
// AMDGPU: #pgpu.param<"BLOCK_P", [1024, 4096, 16384, 65536, 262144, 524288], 65536>
// AMDGPU-SAME: #pgpu.param<"HBINS", [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192], 32, covers = "B", passes = "HPASSES">
// COM: The PTX target's dynamic shared memory (227 KiB, 179 KiB beyond the static part) holds them all.
// PTX: #pgpu.param<"HBINS", [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768], 32, covers = "B", passes = "HPASSES">

// COM: Must not fire: a kernel without a pgpu.histogram keeps its parameters' candidates.
// NONE: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512>
// NONE-NOT: HBINS
