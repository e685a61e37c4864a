// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: Construction's dispatch chain of three segments (kir-to-pgpu of c = a @ b; o = 2 * x;
// COM: d[i // S, i % S, j] = a @ b): pid < S0 ? g0(pid) : (r1 = pid - S0; r1 < S1 ? g1(r1) :
// COM: g2(r1 - S1)). Each product's segment is tiled on its own (no grid-stride walk across
// COM: segments: no PERSIST); its bound and shift become its tile count (the product of the tiled
// COM: group's extents, the grouped traversal's one axis), and the grid is the sum of the counts.
// COM: The elementwise segment does not tile and keeps its count L; the head-major store through
// COM: div/rem of the rows is a fragment pointer computation like any other.
// CHECK-LABEL: pgpu.kernel @three
// CHECK-SAME: #pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>]
// CHECK-NOT: PERSIST
// CHECK: pgpu.extent %x[0]
// CHECK-NEXT: pgpu.ceil_div
// CHECK-NEXT: %[[L:.*]] = pgpu.binary max %{{.*}}, %c0 : index
// CHECK: pgpu.param "TILE_1" : index
// CHECK-NEXT: %[[TN0:.*]] = pgpu.ceil_div
// CHECK-NEXT: pgpu.binary mul %[[TM0:.*]], %[[TN0]] : index
// CHECK-NEXT: %[[C0:.*]] = pgpu.binary mul %[[TM0]], %[[TN0]] : index
// CHECK: pgpu.param "TILE_1" : index
// CHECK-NEXT: %[[TN2:.*]] = pgpu.ceil_div
// CHECK-NEXT: pgpu.binary mul %[[TM2:.*]], %[[TN2]] : index
// CHECK-NEXT: %[[C2:.*]] = pgpu.binary mul %[[TM2]], %[[TN2]] : index
// CHECK-NEXT: %[[A:.*]] = pgpu.binary add %[[C0]], %[[L]] : index
// CHECK-NEXT: %[[TOTAL:.*]] = pgpu.binary add %[[A]], %[[C2]] : index
// CHECK-NEXT: pgpu.program_space(%[[TOTAL]]) {
// CHECK-NEXT: ^bb0(%[[PID:.*]]: index):
// CHECK-NEXT: %[[IN0:.*]] = pgpu.cmp lt %[[PID]], %[[C0]] : index
// CHECK-NEXT: pgpu.if %[[IN0]] {
// CHECK-NEXT: pgpu.execution_group %[[PID]] extents(%[[C0]]) segment 0 roles ["grouped tiles"] {
// CHECK: pgpu.contract
// CHECK: pgpu.store %{{.*}}, %c[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_1]>
// CHECK: } else {
// CHECK-NEXT: %[[R1:.*]] = pgpu.binary sub %[[PID]], %[[C0]] : index
// CHECK-NEXT: %[[IN1:.*]] = pgpu.cmp lt %[[R1]], %[[L]] : index
// CHECK-NEXT: pgpu.if %[[IN1]] {
// CHECK-NEXT: pgpu.execution_group %[[R1]] extents(%[[L]]) segment 1 roles ["axis0"] {
// CHECK-NEXT: ^bb0(%{{.*}}: index):
// CHECK-NEXT: pgpu.load %x[%{{.*}}] valid %true : i1 fill %{{.*}} : f32 : !pgpu.view<f32, [L], in>[index] -> f32
// CHECK: } else {
// CHECK-NEXT: %[[R2:.*]] = pgpu.binary sub %[[R1]], %[[L]] : index
// CHECK-NEXT: pgpu.execution_group %[[R2]] extents(%[[C2]]) segment 2 roles ["grouped tiles"] {
// CHECK: pgpu.contract
// CHECK: %[[HI:.*]] = pgpu.binary div %{{.*}}, %{{.*}} : !pgpu.fragment<index, [TILE_0]>
// CHECK: %[[LO:.*]] = pgpu.binary rem %{{.*}}, %{{.*}} : !pgpu.fragment<index, [TILE_0]>
// CHECK: pgpu.scatter %{{.*}}, %d[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f32, [TILE_0, TILE_1]>
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @three(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>, %x: !pgpu.view<f32, [L], in>, %c: !pgpu.view<f32, [M, N], out>, %o: !pgpu.view<f32, [L], out>, %d: !pgpu.view<f32, [B, S, N], out>) {
    %cst = arith.constant 0.000000e+00 : f16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant 2.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %2 = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %2, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.extent %x[0] : !pgpu.view<f32, [L], in>
    %10 = pgpu.ceil_div %9, %c1 : index
    %11 = pgpu.binary max %10, %c0 : index
    %12 = pgpu.extent %d[1] : !pgpu.view<f32, [B, S, N], out>
    %13 = pgpu.binary mul %4, %8 : index
    %14 = pgpu.binary add %13, %11 : index
    %15 = pgpu.binary add %14, %13 : index
    pgpu.program_space(%15) {
    ^bb0(%arg0: index):
      %16 = pgpu.cmp lt %arg0, %13 : index
      pgpu.if %16 {
        // expected-remark @+1 {{pgpu-form-tiles: segment 0 of 3: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (program axis 1), TILE_K (reduction loop); 1 reduction(s) become pgpu.contract; grouped traversal GROUP_0}}
        pgpu.execution_group %arg0 extents(%4, %8) segment 0 roles ["axis0", "axis1"] {
        ^bb0(%arg1: index, %arg2: index):
          %17 = pgpu.range_reduce %c0 to %6 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %18 = pgpu.load %a[%arg1, %arg3] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
            %19 = pgpu.load %b[%arg3, %arg2] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
            %20 = pgpu.cast %18 : f16 to f32
            %21 = pgpu.cast %19 : f16 to f32
            %22 = pgpu.binary mul %20, %21 : f32
            pgpu.yield %22 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %18 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %18 : f32
          }
          pgpu.store %17, %c[%arg1, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        } {roles = ["axis0", "axis1"], segment = 0 : i64}
        pgpu.yield
      } else {
        %17 = pgpu.binary sub %arg0, %13 : index
        %18 = pgpu.cmp lt %17, %11 : index
        pgpu.if %18 {
          // expected-remark @+1 {{pgpu-form-tiles: not tiled (segment 1 of 3): no contraction, and every access walks the same axis (one-axis blocking serves it)}}
          pgpu.execution_group %17 extents(%11) segment 1 roles ["axis0"] {
          ^bb0(%arg1: index):
            %19 = pgpu.load %x[%arg1] valid %true : i1 fill %cst_0 : f32 : !pgpu.view<f32, [L], in>[index] -> f32
            %20 = pgpu.binary mul %19, %cst_1 : f32
            pgpu.store %20, %o[%arg1] valid %true : i1 : f32, !pgpu.view<f32, [L], out>[index]
            pgpu.yield
          } {roles = ["axis0"], segment = 1 : i64}
          pgpu.yield
        } else {
          %19 = pgpu.binary sub %17, %11 : index
          // expected-remark @+1 {{pgpu-form-tiles: segment 2 of 3: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (program axis 1), TILE_K (reduction loop); 1 reduction(s) become pgpu.contract; grouped traversal GROUP_0}}
          pgpu.execution_group %19 extents(%4, %8) segment 2 roles ["axis0", "axis1"] {
          ^bb0(%arg1: index, %arg2: index):
            %20 = pgpu.range_reduce %c0 to %6 identity(%cst_0 : f32) -> (f32) element {
            ^bb0(%arg3: index):
              %23 = pgpu.load %a[%arg1, %arg3] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
              %24 = pgpu.load %b[%arg3, %arg2] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
              %25 = pgpu.cast %23 : f16 to f32
              %26 = pgpu.cast %24 : f16 to f32
              %27 = pgpu.binary mul %25, %26 : f32
              pgpu.yield %27 : f32
            } combine {
            ^bb0(%arg3: f32, %arg4: f32):
              %23 = pgpu.binary add %arg3, %arg4 : f32
              pgpu.yield %23 : f32
            }
            %21 = pgpu.binary div %arg1, %12 : index
            %22 = pgpu.binary rem %arg1, %12 : index
            pgpu.scatter %20, %d[%21, %22, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [B, S, N], out>[index, index, index]
            pgpu.yield
          } {roles = ["axis0", "axis1"], segment = 2 : i64}
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

// COM: Must not fire: a chain of two segments, neither of them a contraction or a transpose: each
// COM: says why, and the counts, bounds and shifts stay construction's.
// CHECK-LABEL: pgpu.kernel @two_copies
// CHECK-NOT: TILE_
// CHECK: %[[N:.*]] = pgpu.extent %x[0]
// CHECK: %[[TOTAL:.*]] = pgpu.binary add %[[N]], %[[N]] : index
// CHECK-NEXT: pgpu.program_space(%[[TOTAL]]) {
// CHECK-NEXT: ^bb0(%[[PID:.*]]: index):
// CHECK-NEXT: pgpu.cmp lt %[[PID]], %[[N]] : index
// CHECK: pgpu.execution_group %[[PID]] extents(%[[N]]) segment 0 roles ["axis0"] {
// CHECK: %[[R:.*]] = pgpu.binary sub %[[PID]], %[[N]] : index
// CHECK-NEXT: pgpu.execution_group %[[R]] extents(%[[N]]) segment 1 roles ["axis0"] {
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", multiprocessors = 132>} {
  pgpu.kernel @two_copies(%x: !pgpu.view<f32, [N], in>, %o: !pgpu.view<f32, [N], out>, %p: !pgpu.view<f32, [N], out>) {
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %n = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %total = pgpu.binary add %n, %n : index
    pgpu.program_space(%total) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %n : index
      pgpu.if %in {
        // expected-remark @+1 {{pgpu-form-tiles: not tiled (segment 0 of 2): no contraction, and every access walks the same axis (one-axis blocking serves it)}}
        pgpu.execution_group %pid extents(%n) segment 0 roles ["axis0"] {
        ^bb0(%i: index):
          %v = pgpu.load %x[%i] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.store %v, %o[%i] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %r = pgpu.binary sub %pid, %n : index
        // expected-remark @+1 {{pgpu-form-tiles: not tiled (segment 1 of 2): no contraction, and every access walks the same axis (one-axis blocking serves it)}}
        pgpu.execution_group %r extents(%n) segment 1 roles ["axis0"] {
        ^bb0(%i: index):
          %v = pgpu.load %x[%i] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.store %v, %p[%i] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
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

// COM: Must not fire: a product's segment beside dispatch code that is not construction's chain (the
// COM: second bound compares the program id with a prefix sum, not the shifted coordinate with the
// COM: segment's count): the space says so and nothing is tiled.
// CHECK-LABEL: pgpu.kernel @not_a_chain
// CHECK-NOT: TILE_
// CHECK: pgpu.range_reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", multiprocessors = 132>} {
  pgpu.kernel @not_a_chain(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>, %x: !pgpu.view<f32, [L], in>, %o: !pgpu.view<f32, [L], out>, %p: !pgpu.view<f32, [L], out>) {
    %true = arith.constant true
    %z16 = arith.constant 0.0 : f16
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %m = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %k = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %n = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    %l = pgpu.extent %x[0] : !pgpu.view<f32, [L], in>
    %s0 = pgpu.binary mul %m, %n : index
    %e1 = pgpu.binary add %s0, %l : index
    %total = pgpu.binary add %e1, %l : index
    // expected-remark @+1 {{pgpu-form-tiles: not tiled: the program space has dispatch code other than one group or construction's chain of segments (a last-program finalization or a guard)}}
    pgpu.program_space(%total) {
    ^bb0(%pid: index):
      %in0 = pgpu.cmp lt %pid, %s0 : index
      pgpu.if %in0 {
        pgpu.execution_group %pid extents(%m, %n) segment 0 roles ["axis0", "axis1"] {
        ^bb0(%i: index, %j: index):
          %acc = pgpu.range_reduce %c0 to %k identity(%z : f32) -> (f32) element {
          ^bb0(%kk: index):
            %x0 = pgpu.load %a[%i, %kk] valid %true : i1 fill %z16 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
            %y0 = pgpu.load %b[%kk, %j] valid %true : i1 fill %z16 : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
            %x1 = pgpu.cast %x0 : f16 to f32
            %y1 = pgpu.cast %y0 : f16 to f32
            %pr = pgpu.binary mul %x1, %y1 : f32
            pgpu.yield %pr : f32
          } combine {
          ^bb0(%u: f32, %w: f32):
            %s = pgpu.binary add %u, %w : f32
            pgpu.yield %s : f32
          }
          pgpu.store %acc, %c[%i, %j] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %in1 = pgpu.cmp lt %pid, %e1 : index
        pgpu.if %in1 {
          %r1 = pgpu.binary sub %pid, %s0 : index
          pgpu.execution_group %r1 extents(%l) segment 1 roles ["axis0"] {
          ^bb0(%i: index):
            %v = pgpu.load %x[%i] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [L], in>[index] -> f32
            pgpu.store %v, %o[%i] valid %true : i1 : f32, !pgpu.view<f32, [L], out>[index]
            pgpu.yield
          }
          pgpu.yield
        } else {
          %r2 = pgpu.binary sub %pid, %e1 : index
          pgpu.execution_group %r2 extents(%l) segment 2 roles ["axis0"] {
          ^bb0(%i: index):
            %v = pgpu.load %x[%i] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [L], in>[index] -> f32
            pgpu.store %v, %p[%i] valid %true : i1 : f32, !pgpu.view<f32, [L], out>[index]
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
