// RUN: not tessel compile %s --target=triton --emit=source 2>&1 | FileCheck %s
// RUN: not tessel-opt %s 2>&1 | FileCheck %s
// COM: A program-space extent defined by itself, a use-def cycle (found by the session-10 libFuzzer
// COM: run, 5 inputs): the LaunchExpr check of seed 000 §3.1 runs in op verifiers, before MLIR checks
// COM: dominance, and recursed without bound (a stack overflow); it now visits each definition once
// COM: and the dominance check names the cycle.
// CHECK: error: operand #0 does not dominate this use
// CHECK-NOT: Stack dump
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @cycle(%x: !pgpu.view<f32, [N], in>) {
    %c0 = arith.constant 0 : index
    %0 = pgpu.binary max %0, %c0 : index
    pgpu.program_space(%0) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%0) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
