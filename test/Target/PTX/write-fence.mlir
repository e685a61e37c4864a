// RUN: tessel compile %s --target=ptx --emit=device | FileCheck %s

// COM: A program that reads a view it also writes (here y[n] += 1 twice) is sequential in pgpu,
// COM: but another thread than the writer may read the element: each write to such a view is
// COM: fenced by CTA barriers before and after.
// CHECK-LABEL: gpu.func @bump_twice(
// CHECK: llvm.load
// CHECK: gpu.barrier
// CHECK: llvm.store
// CHECK: gpu.barrier
// CHECK: llvm.load
// CHECK: gpu.barrier
// CHECK: llvm.store
// CHECK: gpu.barrier
// CHECK: gpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @bump_twice(%y: !pgpu.view<f32, [N], inout>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %n = pgpu.iota %c0 : !pgpu.fragment<index, [64]>
      %ok = pgpu.splat %t : i1 -> !pgpu.fragment<i1, [64]>
      %ones = pgpu.splat %one : f32 -> !pgpu.fragment<f32, [64]>
      %v = pgpu.load %y[%n] valid %ok : !pgpu.fragment<i1, [64]> fill %z : f32 : !pgpu.view<f32, [N], inout>[!pgpu.fragment<index, [64]>] -> !pgpu.fragment<f32, [64]>
      %w = pgpu.binary add %v, %ones : !pgpu.fragment<f32, [64]>
      pgpu.store %w, %y[%n] valid %ok : !pgpu.fragment<i1, [64]> : !pgpu.fragment<f32, [64]>, !pgpu.view<f32, [N], inout>[!pgpu.fragment<index, [64]>]
      %v2 = pgpu.load %y[%n] valid %ok : !pgpu.fragment<i1, [64]> fill %z : f32 : !pgpu.view<f32, [N], inout>[!pgpu.fragment<index, [64]>] -> !pgpu.fragment<f32, [64]>
      %w2 = pgpu.binary add %v2, %ones : !pgpu.fragment<f32, [64]>
      pgpu.store %w2, %y[%n] valid %ok : !pgpu.fragment<i1, [64]> : !pgpu.fragment<f32, [64]>, !pgpu.view<f32, [N], inout>[!pgpu.fragment<index, [64]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// COM: Must not fire: vector_add writes only a view it does not read, so it has no barrier at all.
// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=ptx --emit=device | FileCheck %s --check-prefix=NOFENCE
// NOFENCE-LABEL: gpu.func @vector_add(
// NOFENCE-NOT: gpu.barrier
