// The PTX provider selects the stored histogram's pieces itself (seed 004): pgpu.histogram as a
// shared array of the bins (zeroed, shared-memory atomic adds, read back), the scatter-reduce into
// the workspace partial as global atomics, and pgpu.last_program as a CTA barrier, thread 0's
// acq_rel ticket increment compared with the grid size, published through shared memory; the
// increment between device-scope fences (LLVM 22's NVPTX spells every atomicrmw as a relaxed `atom`,
// its order dropped: without them the ticket would order nothing). The last
// CTA reads the partial the others merged with volatile loads (strong: served at the point of
// coherence, never by a line the SM's L1 kept); the programs' own loads before the ticket stay plain.
// (A stored histogram has one launch guard, whether its bins fit the privatized array: the variant
// where they do, @histogram$g1, is checked.)
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --target=ptx --emit=device | FileCheck %s
// CHECK: llvm.mlir.global internal @histogram$g1_counts32() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x i32>
// CHECK: gpu.func @histogram$g1(
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<3>, i32
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, i32
// CHECK: gpu.barrier
// CHECK-NOT: llvm.load volatile
// CHECK: llvm.fence syncscope("device") release
// CHECK-NEXT: %[[ARRIVED:.*]] = llvm.atomicrmw add %{{.*}}, %{{.*}} acq_rel : !llvm.ptr<1>, i32
// CHECK-NEXT: llvm.fence syncscope("device") acquire
// CHECK: gpu.grid_dim x
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: llvm.load volatile %{{.*}} : !llvm.ptr<1> -> vector<4xi32>
// RUN: tessel compile %tessel_src/examples/kir/histogram.mlir --target=ptx | FileCheck %s --check-prefix=ISA
// ISA: fence.acq_rel.gpu;
// ISA-NEXT: atom.global.add.u32
// ISA-NEXT: fence.acq_rel.gpu;
// ISA: bar.sync
// ISA: ld.volatile.global.b32
