// RUN: tessel-opt %s -split-input-file -pgpu-merge-segments -verify-diagnostics | FileCheck %s

// COM: Two kernel-level statements over the same domain (two of a pixel shuffle's four): construction's
// COM: chain runs them in segments a whole segment apart. Both bodies read only `In` views and write:
// COM: one group over the shared extents runs both statements per member, the space launches one
// COM: segment's count.
// CHECK-LABEL: pgpu.kernel @shuffle
// CHECK: %[[N:.*]] = pgpu.extent %x[0]
// CHECK: %[[W:.*]] = pgpu.extent %x[1]
// CHECK: %[[S:.*]] = pgpu.binary mul %[[N]], %[[W]] : index
// CHECK-NOT: pgpu.binary add %[[S]], %[[S]]
// CHECK: pgpu.program_space(%[[S]]) {
// CHECK-NEXT: ^bb0(%[[P:.*]]: index):
// CHECK-NEXT: pgpu.execution_group %[[P]] extents(%[[N]], %[[W]]) segment 0 roles ["axis0", "axis1"]
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
// CHECK: %[[A:.*]] = pgpu.gather %x[%[[I]], %[[J]]]
// CHECK: %[[J2:.*]] = pgpu.binary mul %{{.*}}, %[[J]] : index
// CHECK: pgpu.scatter %[[A]], %out[%[[I]], %[[J2]]]
// CHECK: %[[B:.*]] = pgpu.gather %y[%[[I]], %[[J]]]
// CHECK: %[[J3:.*]] = pgpu.binary mul %{{.*}}, %[[J]] : index
// CHECK: %[[J4:.*]] = pgpu.binary add %[[J3]], %{{.*}} : index
// CHECK: pgpu.scatter %[[B]], %out[%[[I]], %[[J4]]]
// CHECK-NEXT: pgpu.yield
// CHECK-NEXT: }
// CHECK-NEXT: pgpu.yield
// CHECK-NOT: pgpu.execution_group
// CHECK-NOT: pgpu.if
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @shuffle(%x: !pgpu.view<f16, [N, W], in>, %y: !pgpu.view<f16, [N, W], in>, %out: !pgpu.view<f16, [N, OW], out>) {
    %cst = arith.constant 0.000000e+00 : f16
    %true = arith.constant true
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %n = pgpu.extent %x[0] : !pgpu.view<f16, [N, W], in>
    %w = pgpu.extent %x[1] : !pgpu.view<f16, [N, W], in>
    %s = pgpu.binary mul %n, %w : index
    %t = pgpu.binary add %s, %s : index
    pgpu.program_space(%t) {
    ^bb0(%p: index):
      %lt = pgpu.cmp lt %p, %s : index
      pgpu.if %lt {
        // expected-remark @+1 {{pgpu-merge-segments: 2 segments over the same members run as one group}}
        pgpu.execution_group %p extents(%n, %w) segment 0 roles ["axis0", "axis1"] {
        ^bb0(%i: index, %j: index):
          %a = pgpu.gather %x[%i, %j] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [N, W], in>[index, index] -> f16
          %j2 = pgpu.binary mul %c2, %j : index
          pgpu.scatter %a, %out[%i, %j2] valid %true : i1 : f16, !pgpu.view<f16, [N, OW], out>[index, index]
          pgpu.yield
        } {roles = ["axis0", "axis1"], segment = 0 : i64}
        pgpu.yield
      } else {
        %r = pgpu.binary sub %p, %s : index
        pgpu.execution_group %r extents(%n, %w) segment 1 roles ["axis0", "axis1"] {
        ^bb0(%i: index, %j: index):
          %b = pgpu.gather %y[%i, %j] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [N, W], in>[index, index] -> f16
          %j2 = pgpu.binary mul %c2, %j : index
          %j3 = pgpu.binary add %j2, %c1 : index
          pgpu.scatter %b, %out[%i, %j3] valid %true : i1 : f16, !pgpu.view<f16, [N, OW], out>[index, index]
          pgpu.yield
        } {roles = ["axis0", "axis1"], segment = 1 : i64}
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the segments' extents differ (a statement over W beside one over N): their
// COM: members are not the same.
// CHECK-LABEL: pgpu.kernel @differ
// CHECK: pgpu.if
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 1
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @differ(%x: !pgpu.view<f32, [N, W], in>, %u: !pgpu.view<f32, [W], out>, %v: !pgpu.view<f32, [N], out>) {
    %cst = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %n = pgpu.extent %x[0] : !pgpu.view<f32, [N, W], in>
    %w = pgpu.extent %x[1] : !pgpu.view<f32, [N, W], in>
    %t = pgpu.binary add %w, %n : index
    // expected-remark @+1 {{pgpu-merge-segments: segments kept apart: their extents differ}}
    pgpu.program_space(%t) {
    ^bb0(%p: index):
      %lt = pgpu.cmp lt %p, %w : index
      pgpu.if %lt {
        pgpu.execution_group %p extents(%w) segment 0 roles ["axis0"] {
        ^bb0(%j: index):
          %a = pgpu.gather %x[%c0, %j] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, W], in>[index, index] -> f32
          pgpu.scatter %a, %u[%j] valid %true : i1 : f32, !pgpu.view<f32, [W], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %r = pgpu.binary sub %p, %w : index
        pgpu.execution_group %r extents(%n) segment 1 roles ["axis0"] {
        ^bb0(%i: index):
          %b = pgpu.gather %x[%i, %c0] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, W], in>[index, index] -> f32
          pgpu.scatter %b, %v[%i] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the second statement reads a view the kernel writes (an InOut updated by the
// COM: first): only reads of `In` views are known to see no sibling's writes.
// CHECK-LABEL: pgpu.kernel @inout
// CHECK: pgpu.if
// CHECK: segment 0
// CHECK: segment 1
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @inout(%x: !pgpu.view<f32, [N], in>, %z: !pgpu.view<f32, [N], inout>, %o: !pgpu.view<f32, [N], out>) {
    %cst = arith.constant 0.0 : f32
    %true = arith.constant true
    %n = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %t = pgpu.binary add %n, %n : index
    // expected-remark @+1 {{pgpu-merge-segments: segments kept apart: a segment reads a view the kernel writes}}
    pgpu.program_space(%t) {
    ^bb0(%p: index):
      %lt = pgpu.cmp lt %p, %n : index
      pgpu.if %lt {
        pgpu.execution_group %p extents(%n) segment 0 roles ["axis0"] {
        ^bb0(%i: index):
          %a = pgpu.gather %x[%i] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.scatter %a, %z[%i] valid %true : i1 : f32, !pgpu.view<f32, [N], inout>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %r = pgpu.binary sub %p, %n : index
        pgpu.execution_group %r extents(%n) segment 1 roles ["axis0"] {
        ^bb0(%i: index):
          %b = pgpu.gather %z[%i] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N], inout>[index] -> f32
          pgpu.scatter %b, %o[%i] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a segment's member loops (a foreach over a row): its body is not straight-line
// COM: code, and the later passes block it as its own workset.
// CHECK-LABEL: pgpu.kernel @loops
// CHECK: pgpu.if
// CHECK: segment 0
// CHECK: segment 1
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @loops(%x: !pgpu.view<f32, [N, M], in>, %u: !pgpu.view<f32, [N, M], out>, %v: !pgpu.view<f32, [N, M], out>) {
    %cst = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %n = pgpu.extent %x[0] : !pgpu.view<f32, [N, M], in>
    %m = pgpu.extent %x[1] : !pgpu.view<f32, [N, M], in>
    %t = pgpu.binary add %n, %n : index
    // expected-remark @+1 {{pgpu-merge-segments: segments kept apart: a segment's body has loops, control or structured ops}}
    pgpu.program_space(%t) {
    ^bb0(%p: index):
      %lt = pgpu.cmp lt %p, %n : index
      pgpu.if %lt {
        pgpu.execution_group %p extents(%n) segment 0 roles ["axis0"] {
        ^bb0(%i: index):
          pgpu.foreach %c0 to %m {
          ^bb0(%j: index):
            %a = pgpu.load %x[%i, %j] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, M], in>[index, index] -> f32
            pgpu.store %a, %u[%i, %j] valid %true : i1 : f32, !pgpu.view<f32, [N, M], out>[index, index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      } else {
        %r = pgpu.binary sub %p, %n : index
        pgpu.execution_group %r extents(%n) segment 1 roles ["axis0"] {
        ^bb0(%i: index):
          pgpu.foreach %c0 to %m {
          ^bb0(%j: index):
            %b = pgpu.load %x[%i, %j] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, M], in>[index, index] -> f32
            %c = pgpu.binary add %b, %b : f32
            pgpu.store %c, %v[%i, %j] valid %true : i1 : f32, !pgpu.view<f32, [N, M], out>[index, index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
