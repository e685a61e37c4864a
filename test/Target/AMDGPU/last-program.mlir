// pgpu.last_program on AMDGPU: s_barrier's workgroup-scope fences order global memory only within
// the workgroup, so every thread releases its writes to the agent before the barrier (buffer_wbl2)
// and the last workgroup acquires after its ticket (buffer_inv); the grid's workgroup count comes
// from the HSA dispatch packet (grid_size_x / workgroup_size_x), not ockl's __ockl_get_num_groups.
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --target=amdgpu --emit=device | FileCheck %s
// CHECK: gpu.func @histogram(
// CHECK: llvm.fence syncscope("agent") release
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} acq_rel : !llvm.ptr<1>, i32
// CHECK: llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"() : () -> !llvm.ptr<4>
// CHECK: arith.ceildivui
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: llvm.fence syncscope("agent") acquire

// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --target=amdgpu | FileCheck %s --check-prefix=ISA --implicit-check-not=s_swappc_b64
// ISA-LABEL: histogram:
// ISA: buffer_wbl2
// ISA: s_barrier
// ISA: global_atomic_add {{.*}} sc0 sc1
// ISA: buffer_inv sc1
// ISA: .amdhsa_user_sgpr_dispatch_ptr 1

// COM: Must not fire on PTX: bar.sync orders global memory for the CTA (no per-thread agent fences)
// COM: and gridDim is a register. (PTX fences only thread 0's ticket, at device scope: PTX/last-program.)
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --target=ptx --emit=device | FileCheck %s --check-prefix=PTX
// PTX-NOT: llvm.fence syncscope("agent")
// PTX-NOT: dispatch.ptr
// PTX: gpu.grid_dim x
