// RUN: tessel compile %s --target=ptx --emit=device | FileCheck %s

// COM: Broadcasting loaded data to another shape moves elements between threads: the operand is
// COM: staged in the kernel's shared-memory area, the CTA synchronizes, every thread reads the
// COM: elements its slots need, and synchronizes again before the area is reused.
// CHECK: llvm.mlir.global internal @outer_stage() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x i8>
// CHECK-LABEL: gpu.func @outer(
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @outer(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %n = pgpu.iota %c0 : !pgpu.fragment<index, [4]>
      %ok = pgpu.splat %t : i1 -> !pgpu.fragment<i1, [4]>
      %v = pgpu.load %x[%n] valid %ok : !pgpu.fragment<i1, [4]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [4]>] -> !pgpu.fragment<f32, [4]>
      %vv = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [4]> -> !pgpu.fragment<f32, [4, 4]>
      %mm = pgpu.broadcast %n dims [0] : !pgpu.fragment<index, [4]> -> !pgpu.fragment<index, [4, 4]>
      %nn = pgpu.broadcast %n dims [1] : !pgpu.fragment<index, [4]> -> !pgpu.fragment<index, [4, 4]>
      %ok2 = pgpu.splat %t : i1 -> !pgpu.fragment<i1, [4, 4]>
      pgpu.store %vv, %y[%mm, %nn] valid %ok2 : !pgpu.fragment<i1, [4, 4]> : !pgpu.fragment<f32, [4, 4]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [4, 4]>, !pgpu.fragment<index, [4, 4]>]
      pgpu.yield
    }
    pgpu.return
  }
}
