// RUN: tessel compile %s --emit=source 2>&1 | FileCheck %s

// COM: An `if` without results whose both sides hold a loop (the segments of a dispatch chain, corpus
// COM: 111's three K loops) is spelled as two `if`s in turn, the second on the negated condition:
// COM: Triton 3.6 does not reuse a then-region loop's pipelined buffers for the else-region's (the
// COM: nested spelling of 111 asked for 393,280 bytes of shared memory, the sequential one 196,640).
// CHECK-LABEL: def _two_sums_kernel(
// CHECK: if [[C:v[0-9]+]]:
// CHECK: for
// CHECK: if not [[C]]:
// CHECK-NOT: else:
// CHECK: for
// CHECK-LABEL: def two_sums(
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @two_sums(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%M) {
    ^bb0(%row: index):
      %half = pgpu.binary div %M, %c2 : index
      %first = pgpu.cmp lt %row, %half : index
      pgpu.if %first {
        %s = pgpu.for %c0 to %N step %c1 iter_args(%z : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %v = pgpu.load %x[%row, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %a = pgpu.binary add %acc, %v : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %y[%row] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      } else {
        %s = pgpu.for %c0 to %N step %c1 iter_args(%z : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %v = pgpu.load %x[%row, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %a = pgpu.binary max %acc, %v : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %y[%row] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }

  // COM: Must not fire: one side holds no loop (a one-element path beside a loop), so there is
  // COM: nothing to share and the `else` stays.
  // CHECK-LABEL: def _one_loop_kernel(
  // CHECK: if v{{[0-9]+}}:
  // CHECK: else:
  // CHECK: for
  // CHECK-LABEL: def one_loop(
  pgpu.kernel @one_loop(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%M) {
    ^bb0(%row: index):
      %c2 = arith.constant 2 : index
      %half = pgpu.binary div %M, %c2 : index
      %single = pgpu.cmp lt %row, %half : index
      pgpu.if %single {
        %v = pgpu.load %x[%row, %c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        pgpu.store %v, %y[%row] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      } else {
        %s = pgpu.for %c0 to %N step %c1 iter_args(%z : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %v = pgpu.load %x[%row, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %a = pgpu.binary add %acc, %v : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %y[%row] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
