// RUN: tessel-opt %s -split-input-file -pgpu-triton-legalize | FileCheck %s

// COM: An elementwise operand of FMA-spelled contractions (f32 at IEEE precision) computed before two
// COM: loops that both contract it is computed again in each loop, right before its contraction, and the
// COM: original is erased (TritonLegalize.cpp, copySharedFmaOperands): Triton 3.6's
// COM: TritonGPURemoveLayoutConversions rematerializes such an operand in one loop and reuses that copy in
// COM: the other, which it does not dominate, and the compile fails (corpus 305 at its bench shape). Only
// COM: the producing op is copied; its operands stay where they are.
// CHECK-LABEL: pgpu.kernel @two_loops
// CHECK: %[[Q2:[0-9]+]] = pgpu.binary mul %[[Q:[0-9]+]], %[[Q]]
// CHECK-NOT: pgpu.binary add %[[Q2]], %[[Q]]
// CHECK: pgpu.for
// CHECK: %[[A:[0-9]+]] = pgpu.binary add %[[Q2]], %[[Q]]
// CHECK-NEXT: pgpu.contract %[[A]],
// CHECK: pgpu.for
// CHECK: %[[B:[0-9]+]] = pgpu.binary add %[[Q2]], %[[Q]]
// CHECK-NEXT: pgpu.contract %[[B]],
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @two_loops(%qv: !pgpu.view<f32, [16, 16], in>, %kv: !pgpu.view<f32, [T, 16], in>,
                   %ov: !pgpu.view<f32, [16, 16], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %fill = arith.constant 0.0 : f32
    %zero = arith.constant 0.0 : f32
    %n = pgpu.extent %kv[0] : !pgpu.view<f32, [T, 16], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %d = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %di = pgpu.broadcast %d dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %dj = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %q = pgpu.load %qv[%di, %dj] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %q2 = pgpu.binary mul %q, %q : !pgpu.fragment<f32, [16, 16]>
      %qr = pgpu.binary add %q2, %q : !pgpu.fragment<f32, [16, 16]>
      %init = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r0 = pgpu.for %c0 to %n step %c16 iter_args(%init : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%t0: index, %s0: !pgpu.fragment<f32, [16, 16]>):
        %k0 = pgpu.iota %t0 : !pgpu.fragment<index, [16]>
        %kk0 = pgpu.broadcast %k0 dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %x0 = pgpu.load %kv[%kk0, %di] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [T, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
        %y0 = pgpu.contract %qr, %x0, %s0 reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [16, 16]>, !pgpu.fragment<f32, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %y0 : !pgpu.fragment<f32, [16, 16]>
      }
      %r1 = pgpu.for %c0 to %n step %c16 iter_args(%r0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%t1: index, %s1: !pgpu.fragment<f32, [16, 16]>):
        %k1 = pgpu.iota %t1 : !pgpu.fragment<index, [16]>
        %kk1 = pgpu.broadcast %k1 dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %x1 = pgpu.load %kv[%kk1, %di] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [T, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
        %y1 = pgpu.contract %qr, %x1, %s1 reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [16, 16]>, !pgpu.fragment<f32, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %y1 : !pgpu.fragment<f32, [16, 16]>
      }
      pgpu.store %r1, %ov[%di, %dj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: one loop reads the operand (nothing to reuse across loops).
// CHECK-LABEL: pgpu.kernel @one_loop
// CHECK: %[[QR:[0-9]+]] = pgpu.binary add
// CHECK: pgpu.for
// CHECK-NOT: pgpu.binary add
// CHECK: pgpu.contract %[[QR]],
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @one_loop(%qv: !pgpu.view<f32, [16, 16], in>, %kv: !pgpu.view<f32, [T, 16], in>,
                   %ov: !pgpu.view<f32, [16, 16], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %fill = arith.constant 0.0 : f32
    %zero = arith.constant 0.0 : f32
    %n = pgpu.extent %kv[0] : !pgpu.view<f32, [T, 16], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %d = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %di = pgpu.broadcast %d dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %dj = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %q = pgpu.load %qv[%di, %dj] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %q2 = pgpu.binary mul %q, %q : !pgpu.fragment<f32, [16, 16]>
      %qr = pgpu.binary add %q2, %q : !pgpu.fragment<f32, [16, 16]>
      %init = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r0 = pgpu.for %c0 to %n step %c16 iter_args(%init : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%t0: index, %s0: !pgpu.fragment<f32, [16, 16]>):
        %k0 = pgpu.iota %t0 : !pgpu.fragment<index, [16]>
        %kk0 = pgpu.broadcast %k0 dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %x0 = pgpu.load %kv[%kk0, %di] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [T, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
        %y0 = pgpu.contract %qr, %x0, %s0 reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [16, 16]>, !pgpu.fragment<f32, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %y0 : !pgpu.fragment<f32, [16, 16]>
      }
      pgpu.store %r0, %ov[%di, %dj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the operand has a use besides the loops' contractions (the original stays, and
// COM: Triton's CSE would fold copies back into it).
// CHECK-LABEL: pgpu.kernel @used_outside
// CHECK: %[[QR:[0-9]+]] = pgpu.binary add
// CHECK: pgpu.for
// CHECK-NOT: pgpu.binary add
// CHECK: pgpu.contract %[[QR]],
// CHECK: pgpu.for
// CHECK-NOT: pgpu.binary add
// CHECK: pgpu.contract %[[QR]],
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @used_outside(%qv: !pgpu.view<f32, [16, 16], in>, %kv: !pgpu.view<f32, [T, 16], in>,
                   %ov: !pgpu.view<f32, [16, 16], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %fill = arith.constant 0.0 : f32
    %zero = arith.constant 0.0 : f32
    %n = pgpu.extent %kv[0] : !pgpu.view<f32, [T, 16], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %d = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %di = pgpu.broadcast %d dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %dj = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %q = pgpu.load %qv[%di, %dj] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %q2 = pgpu.binary mul %q, %q : !pgpu.fragment<f32, [16, 16]>
      %qr = pgpu.binary add %q2, %q : !pgpu.fragment<f32, [16, 16]>
      %init = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r0 = pgpu.for %c0 to %n step %c16 iter_args(%init : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%t0: index, %s0: !pgpu.fragment<f32, [16, 16]>):
        %k0 = pgpu.iota %t0 : !pgpu.fragment<index, [16]>
        %kk0 = pgpu.broadcast %k0 dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %x0 = pgpu.load %kv[%kk0, %di] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [T, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
        %y0 = pgpu.contract %qr, %x0, %s0 reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [16, 16]>, !pgpu.fragment<f32, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %y0 : !pgpu.fragment<f32, [16, 16]>
      }
      %r1 = pgpu.for %c0 to %n step %c16 iter_args(%r0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%t1: index, %s1: !pgpu.fragment<f32, [16, 16]>):
        %k1 = pgpu.iota %t1 : !pgpu.fragment<index, [16]>
        %kk1 = pgpu.broadcast %k1 dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %x1 = pgpu.load %kv[%kk1, %di] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [T, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
        %y1 = pgpu.contract %qr, %x1, %s1 reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [16, 16]>, !pgpu.fragment<f32, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %y1 : !pgpu.fragment<f32, [16, 16]>
      }
      %u = pgpu.binary add %r1, %qr : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %u, %ov[%di, %dj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: f16 operands are a tensor-core dot (operands staged through shared memory).
// CHECK-LABEL: pgpu.kernel @tensor_core
// CHECK: %[[QR:[0-9]+]] = pgpu.binary add
// CHECK: pgpu.for
// CHECK-NOT: pgpu.binary add
// CHECK: pgpu.contract %[[QR]],
// CHECK: pgpu.for
// CHECK-NOT: pgpu.binary add
// CHECK: pgpu.contract %[[QR]],
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @tensor_core(%qv: !pgpu.view<f16, [16, 16], in>, %kv: !pgpu.view<f16, [T, 16], in>,
                   %ov: !pgpu.view<f32, [16, 16], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %fill = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %n = pgpu.extent %kv[0] : !pgpu.view<f16, [T, 16], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %d = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %di = pgpu.broadcast %d dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %dj = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %q = pgpu.load %qv[%di, %dj] valid %true : i1 fill %fill : f16 : !pgpu.view<f16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
      %q2 = pgpu.binary mul %q, %q : !pgpu.fragment<f16, [16, 16]>
      %qr = pgpu.binary add %q2, %q : !pgpu.fragment<f16, [16, 16]>
      %init = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r0 = pgpu.for %c0 to %n step %c16 iter_args(%init : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%t0: index, %s0: !pgpu.fragment<f32, [16, 16]>):
        %k0 = pgpu.iota %t0 : !pgpu.fragment<index, [16]>
        %kk0 = pgpu.broadcast %k0 dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %x0 = pgpu.load %kv[%kk0, %di] valid %true : i1 fill %fill : f16 : !pgpu.view<f16, [T, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %y0 = pgpu.contract %qr, %x0, %s0 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %y0 : !pgpu.fragment<f32, [16, 16]>
      }
      %r1 = pgpu.for %c0 to %n step %c16 iter_args(%r0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%t1: index, %s1: !pgpu.fragment<f32, [16, 16]>):
        %k1 = pgpu.iota %t1 : !pgpu.fragment<index, [16]>
        %kk1 = pgpu.broadcast %k1 dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %x1 = pgpu.load %kv[%kk1, %di] valid %true : i1 fill %fill : f16 : !pgpu.view<f16, [T, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %y1 = pgpu.contract %qr, %x1, %s1 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %y1 : !pgpu.fragment<f32, [16, 16]>
      }
      pgpu.store %r1, %ov[%di, %dj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}
