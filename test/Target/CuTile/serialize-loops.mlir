// RUN: tessel compile %s --target=cutile --emit=source | FileCheck %s

// COM: cuda-tile 1.7.0's loop-invariant code motion moves a carrying loop with an effect-free body
// COM: out of an enclosing loop by its inits and body alone, ahead of a bound the enclosing body
// COM: computes (its front end then fails with an InternalError). Such a loop is
// COM: spelled under `if lower < upper:` (code motion leaves branch bodies alone; exact for a positive
// COM: step: no iteration yields the inits, which the results already hold).
// CHECK-LABEL: def _prefix_kernel(x, y):
// CHECK: for [[J:v[0-9]+]] in range(0, [[N:v[0-9]+]]):
// CHECK: [[S:v[0-9]+]] = ct.full((), 0.000000e+00, ct.float32)
// CHECK-NEXT: if 0 < [[J]]:
// CHECK-NEXT: for {{v[0-9]+}} in range(0, [[J]], 1):
// CHECK: [[S]] = {{v[0-9]+}}
// COM: Must not fire: a carrying loop whose bounds come from outside every enclosing loop ...
// CHECK: [[W:v[0-9]+]] = ct.full((), 0.000000e+00, ct.float32)
// CHECK-NEXT: for {{v[0-9]+}} in range(0, [[N]], 1):
// COM: ... and a loop that carries nothing (dead, or with effects that keep it in place).
// CHECK: ct.scatter(y, ({{v[0-9]+}}, [[J]])
// CHECK-NEXT: # serialize-loops.mlir
// CHECK-NEXT: for {{v[0-9]+}} in range(0, [[J]], 1):
// CHECK-NOT: if
// CHECK: def prefix(

module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @prefix(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], inout>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      pgpu.foreach %c0 to %N {
      ^bb0(%j: index):
        %s = pgpu.for %c0 to %j step %c1 iter_args(%z : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %n = pgpu.binary add %acc, %one : f32
          pgpu.yield %n : f32
        }
        %w = pgpu.for %c0 to %N step %c1 iter_args(%z : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %v = pgpu.load %x[%row, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %n = pgpu.binary max %acc, %v : f32
          pgpu.yield %n : f32
        }
        %o = pgpu.binary sub %s, %w : f32
        pgpu.store %o, %y[%row, %j] valid %t : i1 : f32, !pgpu.view<f32, [M, N], inout>[index, index]
        pgpu.for %c0 to %j step %c1 {
        ^bb0(%i: index):
          pgpu.store %z, %y[%row, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, N], inout>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
