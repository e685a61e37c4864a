// What the AMDGPU provider emits, stage by stage, from the selector the PTX provider uses: the device
// IR (gpu.func, one workgroup per program instance, 64-lane shuffles), the LLVM IR, and the AMDGCN
// assembly for gfx942 (kernel descriptors and amdhsa metadata included). No call to a device library.

// COM: Pointwise with masks: 16-byte vector accesses where a group is valid, aligned and contiguous,
// COM: per-slot masked accesses (exec masks) otherwise.
// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=amdgpu --emit=device | FileCheck %s --check-prefix=DEVICE
// DEVICE: gpu.module @tessel_amdgpu
// DEVICE: gpu.func @vector_add(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: f32) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// DEVICE: gpu.thread_id x
// DEVICE: gpu.block_id x
// DEVICE: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// DEVICE: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// DEVICE: gpu.return

// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=amdgpu --emit=llvm | FileCheck %s --check-prefix=LLVM
// LLVM: target triple = "amdgcn-amd-amdhsa"
// LLVM: define amdgpu_kernel void @vector_add(
// LLVM-SAME: !reqd_work_group_size
// LLVM-NOT: declare {{.*}}@__oc

// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=amdgpu --emit=source | FileCheck %s --check-prefix=ISA --implicit-check-not=s_swappc_b64
// ISA: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// ISA-LABEL: vector_add:
// ISA: s_and_saveexec_b64
// ISA: global_load_dwordx4
// ISA: v_max_f32
// ISA: global_store_dwordx4
// ISA: s_endpgm
// ISA: .amdhsa_kernel vector_add
// ISA: .amdhsa_group_segment_fixed_size 0
// ISA: .amdgpu_metadata
// ISA: .max_flat_workgroup_size: 128
// ISA: .wavefront_size: 64

// COM: A row reduction: butterfly shuffles across the 64-lane wavefront (xor 32 crosses the halves:
// COM: ds_bpermute; xor 16 ... 1 stay inside 32 lanes: ds_swizzle), then the wavefronts' totals
// COM: through LDS, between workgroup barriers; exp is v_exp_f32 (llvm.exp2, no ocml).
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=amdgpu --emit=device | FileCheck %s --check-prefix=ROWDEV
// ROWDEV: llvm.mlir.global internal @softmax_shared{{[0-9]+}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2 x f32>
// ROWDEV: gpu.shuffle {{ *}}xor %{{.*}}, %c32_i32, %c64_i32 : f32
// ROWDEV: gpu.shuffle {{ *}}xor %{{.*}}, %c16_i32, %c64_i32 : f32
// ROWDEV: gpu.barrier
// ROWDEV: llvm.call_intrinsic "llvm.exp2.f32"
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=amdgpu | FileCheck %s --check-prefix=ROWS --implicit-check-not=s_swappc_b64
// ROWS-LABEL: softmax:
// ROWS: ds_bpermute_b32
// ROWS: ds_swizzle_b32 {{.*}}swizzle(SWAP,16)
// ROWS: ds_write_b32
// ROWS: s_barrier
// ROWS: v_exp_f32
// ROWS: .amdhsa_group_segment_fixed_size {{[1-9][0-9]*}}

// COM: THREADS binds the workgroup size; one wavefront per 64 threads.
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=amdgpu --param THREADS=256 --emit=device | FileCheck %s --check-prefix=T256
// T256: !llvm.array<4 x f32>
// T256: known_block_size = array<i32: 256, 1, 1>

// COM: Scans: a shuffle-up scan inside each wavefront, the wavefronts' totals through LDS.
// RUN: tessel compile %tessel_src/examples/kir/cumsum.mlir --target=amdgpu --emit=device | FileCheck %s --check-prefix=SCANDEV
// SCANDEV-LABEL: gpu.func @cumsum(
// SCANDEV: gpu.shuffle {{ *}}up %{{.*}}, %c1_i32, %c64_i32 : f32
// SCANDEV: gpu.shuffle {{ *}}up %{{.*}}, %c32_i32, %c64_i32 : f32
// SCANDEV: gpu.barrier
// RUN: tessel compile %tessel_src/examples/kir/cumsum.mlir --target=amdgpu | FileCheck %s --check-prefix=SCAN --implicit-check-not=s_swappc_b64
// SCAN-LABEL: cumsum:
// SCAN: ds_bpermute_b32
// SCAN: s_barrier
// SCAN-LABEL: cumsum_exclusive_reverse:
// SCAN: ds_bpermute_b32

// COM: Data movement of rank-2 fragments (a broadcast of loaded data) stages through LDS.
// RUN: tessel compile %S/../PTX/staging.mlir --target=amdgpu | FileCheck %s --check-prefix=STAGE
// STAGE-LABEL: outer:
// STAGE: ds_write_b32
// STAGE: s_barrier
// STAGE: ds_read_b32
// STAGE: s_barrier
// STAGE: .amdhsa_group_segment_fixed_size {{[1-9][0-9]*}}

// COM: A contraction as FMA tiles over its LDS-staged operands.
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --target=amdgpu | FileCheck %s --check-prefix=GEMM --implicit-check-not=s_swappc_b64
// GEMM-LABEL: gemm:
// GEMM: ds_write
// GEMM: s_barrier
// GEMM: ds_read
// GEMM: v_fma
