// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: Rows x contiguous (issue 41): a 2x2 pool's window over planes [C, H, W], flattened to program
// COM: axes (c, i, ow). Every access's innermost coordinate walks ow (the gathers at 2 * ow + dx, the
// COM: store at ow), the innermost program axis, and the store depends on i too: i and ow are blocked
// COM: as [TILE_1, TILE_2] (TILE_2 covering OW), c stays one scalar a program, decoded once from the
// COM: program id, and the tiles walk in row-major order (no grouped traversal: no operand reuse).
// CHECK-LABEL: pgpu.kernel @pool
// CHECK-SAME: #pgpu.param<"TILE_1", [1, 2, 4, 8, 16, 32], 8>
// CHECK-SAME: #pgpu.param<"TILE_2", [16, 32, 64, 128, 256], 64, covers = "OW">
// CHECK-NOT: GROUP_
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}, %{{.*}}) segment 0 roles ["c", "i", "ow"]
// CHECK-NEXT: ^bb0(%[[C:.*]]: index, %[[I:.*]]: index, %[[W:.*]]: index):
// CHECK: %[[ROWS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [TILE_1]>
// CHECK: %[[COLS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [TILE_2]>
// CHECK: %[[CC:.*]] = pgpu.splat %[[C]] : index -> !pgpu.fragment<index, [TILE_1, TILE_2]>
// CHECK: pgpu.gather %x[%[[CC]], %{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1, TILE_2]>
// CHECK: pgpu.store %{{.*}}, %y[%{{.*}}, %{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_1, TILE_2]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @pool(%x: !pgpu.view<f16, [C, H, W], in>, %y: !pgpu.view<f16, [C, OH, OW], out>) {
    %f0 = arith.constant 0.0 : f16
    %true = arith.constant true
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %C = pgpu.extent %x[0] : !pgpu.view<f16, [C, H, W], in>
    %OH = pgpu.extent %y[1] : !pgpu.view<f16, [C, OH, OW], out>
    %OW = pgpu.extent %y[2] : !pgpu.view<f16, [C, OH, OW], out>
    %p0 = pgpu.binary mul %C, %OH : index
    %p = pgpu.binary mul %p0, %OW : index
    pgpu.program_space(%p) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled for contiguous accesses: TILE_1 (program axis 1), TILE_2 (program axis 2)}}
      pgpu.execution_group %pid extents(%C, %OH, %OW) segment 0 roles ["c", "i", "ow"] {
      ^bb0(%c: index, %i: index, %ow: index):
        %h = pgpu.binary mul %c2, %i : index
        %w0 = pgpu.binary mul %c2, %ow : index
        %w1 = pgpu.binary add %w0, %c1 : index
        %a = pgpu.gather %x[%c, %h, %w0] valid %true : i1 fill %f0 : f16 : !pgpu.view<f16, [C, H, W], in>[index, index, index] -> f16
        %b = pgpu.gather %x[%c, %h, %w1] valid %true : i1 fill %f0 : f16 : !pgpu.view<f16, [C, H, W], in>[index, index, index] -> f16
        %m = pgpu.binary max %a, %b : f16
        pgpu.store %m, %y[%c, %i, %ow] valid %true : i1 : f16, !pgpu.view<f16, [C, OH, OW], out>[index, index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the contiguous extent is a constant under a row tile's smallest run (16): most
// COM: lanes of each tile would be masked, where the flat walk packs the 8-wide rows densely.
// CHECK-LABEL: pgpu.kernel @narrow
// CHECK-NOT: TILE_
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}, %{{.*}}] valid %{{.*}} : i1
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @narrow(%x: !pgpu.view<f32, [C, M, 8], in>, %y: !pgpu.view<f32, [C, M, 8], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %c8 = arith.constant 8 : index
    %C = pgpu.extent %x[0] : !pgpu.view<f32, [C, M, 8], in>
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [C, M, 8], in>
    %p0 = pgpu.binary mul %C, %M : index
    %p = pgpu.binary mul %p0, %c8 : index
    pgpu.program_space(%p) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: no contraction, and every access walks the same axis (one-axis blocking serves it): its constant extent is narrower than a row tile's smallest run}}
      pgpu.execution_group %pid extents(%C, %M, %c8) segment 0 roles ["axis0", "axis1", "axis2"] {
      ^bb0(%c: index, %i: index, %j: index):
        %v = pgpu.load %x[%c, %i, %j] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [C, M, 8], in>[index, index, index] -> f32
        pgpu.store %v, %y[%c, %i, %j] valid %true : i1 : f32, !pgpu.view<f32, [C, M, 8], out>[index, index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: one program axis (a 1-d copy): no row axis to block beside it.
// CHECK-LABEL: pgpu.kernel @vector
// CHECK-NOT: TILE_
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @vector(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    pgpu.program_space(%N) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: no contraction, and every access walks the same axis (one-axis blocking serves it): it is not the innermost of two or more program axes}}
      pgpu.execution_group %pid extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%i: index):
        %v = pgpu.load %x[%i] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        pgpu.store %v, %y[%i] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: every access walks program axis 1, which is not the innermost program axis (the
// COM: members' order runs along axis 2, whose accesses are strided).
// CHECK-LABEL: pgpu.kernel @outer_walk
// CHECK-NOT: TILE_
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @outer_walk(%x: !pgpu.view<f32, [C, M, N], in>, %y: !pgpu.view<f32, [C, M, N], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %C = pgpu.extent %x[0] : !pgpu.view<f32, [C, M, N], in>
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [C, M, N], in>
    %N = pgpu.extent %x[2] : !pgpu.view<f32, [C, M, N], in>
    %p0 = pgpu.binary mul %C, %N : index
    %p = pgpu.binary mul %p0, %M : index
    pgpu.program_space(%p) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: no contraction, and every access walks the same axis (one-axis blocking serves it): it is not the innermost of two or more program axes}}
      pgpu.execution_group %pid extents(%C, %N, %M) segment 0 roles ["axis0", "axis1", "axis2"] {
      ^bb0(%c: index, %j: index, %i: index):
        %v = pgpu.load %x[%c, %i, %j] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [C, M, N], in>[index, index, index] -> f32
        pgpu.store %v, %y[%c, %i, %j] valid %true : i1 : f32, !pgpu.view<f32, [C, M, N], out>[index, index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: two program axes (an [M, N] elementwise map): the flat walk decodes one row
// COM: coordinate per lane and runs its long rows vectorized.
// CHECK-LABEL: pgpu.kernel @two_axes
// CHECK-NOT: TILE_
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @two_axes(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %p = pgpu.binary mul %M, %N : index
    pgpu.program_space(%p) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: no contraction, and every access walks the same axis (one-axis blocking serves it): two program axes, whose flat walk decodes one row coordinate per lane}}
      pgpu.execution_group %pid extents(%M, %N) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%i: index, %j: index):
        %v = pgpu.load %x[%i, %j] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        pgpu.store %v, %y[%i, %j] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
