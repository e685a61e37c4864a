// RUN: tessel-opt %s -split-input-file -pgpu-flatten-worksets -verify-diagnostics | FileCheck %s

// COM: A loop over B around a row workset (the batched GEMV spelled with T.parallel(b) around
// COM: T.matvec): the foreach over the rows is the program's whole body, so it becomes program axis 1
// COM: and the program space grows by its trip count; the member is the new coordinate.
// CHECK-LABEL: pgpu.kernel @rows
// CHECK: %[[B:.*]] = pgpu.extent %x[0]
// CHECK: %[[M:.*]] = pgpu.extent %x[1]
// CHECK: %[[G:.*]] = pgpu.binary mul %[[B]], %[[M]] : index
// CHECK: pgpu.program_space(%[[G]]) {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[B]], %[[M]]) segment 0 roles ["b", "axis1"]
// CHECK-NEXT: ^bb0(%[[PB:.*]]: index, %[[PM:.*]]: index):
// CHECK-NOT: pgpu.foreach
// CHECK: %[[V:.*]] = pgpu.load %x[%[[PB]], %[[PM]]]
// CHECK: pgpu.store %{{.*}}, %y[%[[PB]], %[[PM]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @rows(%x: !pgpu.view<f32, [B, M], in>, %y: !pgpu.view<f32, [B, M], out>) {
    %c0 = arith.constant 0 : index
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, M], in>
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [B, M], in>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%B) segment 0 roles ["b"] {
      ^bb0(%b: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is the program's whole body becomes program axis 1}}
        pgpu.foreach %c0 to %M {
        ^bb0(%m: index):
          %v = pgpu.load %x[%b, %m] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, M], in>[index, index] -> f32
          %w = pgpu.binary mul %v, %v : f32
          pgpu.store %w, %y[%b, %m] valid %t : i1 : f32, !pgpu.view<f32, [B, M], out>[index, index]
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

// COM: Nested worksets flatten one after the other; a workset starting past 0 offsets its member and
// COM: its trip count max(hi - lo, 0) is clamped.
// CHECK-LABEL: pgpu.kernel @nested
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[N:.*]] = pgpu.extent %x[0]
// CHECK: %[[M:.*]] = pgpu.extent %x[1]
// CHECK: %[[G1:.*]] = pgpu.binary mul %[[C1]], %[[N]] : index
// CHECK: %[[D:.*]] = pgpu.binary sub %[[M]], %[[C1]] : index
// CHECK: %[[T:.*]] = pgpu.binary max %[[D]], %{{.*}} : index
// CHECK: %[[G2:.*]] = pgpu.binary mul %[[G1]], %[[T]] : index
// CHECK: pgpu.program_space(%[[G2]]) {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[C1]], %[[N]], %[[T]]) segment 0 roles ["one", "axis1", "axis2"]
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[I:.*]]: index, %[[J:.*]]: index):
// CHECK: %[[JJ:.*]] = pgpu.binary add %[[C1]], %[[J]] : index
// CHECK: pgpu.store %{{.*}}, %y[%[[I]], %[[JJ]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @nested(%x: !pgpu.view<f32, [N, M], in>, %y: !pgpu.view<f32, [N, M], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, M], in>
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [N, M], in>
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%c1) segment 0 roles ["one"] {
      ^bb0(%o: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.foreach %c0 to %N {
        ^bb0(%i: index):
          pgpu.foreach %c1 to %M {
          ^bb0(%j: index):
            %v = pgpu.load %x[%i, %j] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, M], in>[index, index] -> f32
            pgpu.store %v, %y[%i, %j] valid %t : i1 : f32, !pgpu.view<f32, [N, M], out>[index, index]
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

// -----

// COM: Must not fire: a store after the workset would run once per new program.
// CHECK-LABEL: pgpu.kernel @after
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @after(%x: !pgpu.view<f32, [B, M], in>, %y: !pgpu.view<f32, [B, M], out>) {
    %c0 = arith.constant 0 : index
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, M], in>
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [B, M], in>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: not flattened: the program does more after the workset}}
      pgpu.execution_group %p extents(%B) segment 0 roles ["b"] {
      ^bb0(%b: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.foreach %c0 to %M {
        ^bb0(%m: index):
          %v = pgpu.load %x[%b, %m] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, M], in>[index, index] -> f32
          pgpu.store %v, %y[%b, %m] valid %t : i1 : f32, !pgpu.view<f32, [B, M], out>[index, index]
          pgpu.yield
        }
        pgpu.store %z, %y[%b, %c0] valid %t : i1 : f32, !pgpu.view<f32, [B, M], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the workset's bound depends on the program (a triangle).
// CHECK-LABEL: pgpu.kernel @triangle
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @triangle(%x: !pgpu.view<f32, [B, M], in>, %y: !pgpu.view<f32, [B, M], out>) {
    %c0 = arith.constant 0 : index
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, M], in>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: not flattened: its bounds are not launch-uniform}}
      pgpu.execution_group %p extents(%B) segment 0 roles ["b"] {
      ^bb0(%b: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.foreach %c0 to %b {
        ^bb0(%m: index):
          %v = pgpu.load %x[%b, %m] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, M], in>[index, index] -> f32
          pgpu.store %v, %y[%b, %m] valid %t : i1 : f32, !pgpu.view<f32, [B, M], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
