// The PTX provider selects the stored histogram's pieces itself (seed 004): pgpu.histogram as a
// shared array of the bins (zeroed, shared-memory atomic adds, read back), the scatter-reduce into
// the workspace partial as global atomics, and pgpu.last_program as a CTA barrier, thread 0's
// acq_rel ticket increment compared with the grid size, published through shared memory.
// (A stored histogram has one launch guard, whether its bins fit the privatized array: the variant
// where they do, @histogram$g1, is checked.)
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --target=ptx --emit=device | FileCheck %s
// CHECK: llvm.mlir.global internal @histogram$g1_counts32() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i32>
// CHECK: gpu.func @histogram$g1(
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<3>, i32
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, i32
// CHECK: gpu.barrier
// CHECK: %[[ARRIVED:.*]] = llvm.atomicrmw add %{{.*}}, %{{.*}} acq_rel : !llvm.ptr<1>, i32
// CHECK: gpu.grid_dim x
// CHECK: gpu.barrier
