// RUN: tessel-opt %s -split-input-file -pgpu-split-member-reductions -verify-diagnostics | FileCheck %s

// COM: A long row's variance per row: the mean's sum, then the sum of squares about it (it reads the
// COM: mean), then the quotient stored. Before: one program a row walks the row twice. After: each
// COM: row's range is cut into MEMBER_SPLITS slices; members m < MEMBER_SPLITS sum slice m and count
// COM: themselves, members MEMBER_SPLITS + m wait for the count, merge the mean's partials and sum
// COM: slice m of the squares; the row's last arrival merges both and stores. MEMBER_SPLITS = 1 keeps
// COM: the body as it was.
// CHECK-LABEL: pgpu.kernel @row_variance
// CHECK-SAME: %[[TICKETS:[^:]*]]: !pgpu.buffer<i32, [MEMBER_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: %[[COUNTS:[^:]*]]: !pgpu.buffer<i32, [MEMBER_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: %[[P0:[^:]*]]: !pgpu.buffer<f32, [MEMBER_POINTS, MEMBER_SPLITS], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: %[[P1:[^:]*]]: !pgpu.buffer<f32, [MEMBER_POINTS, MEMBER_SPLITS], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: #pgpu.param<"MEMBER_SPLIT", [1, 2, 4, 8, 16, 32, 64], 16>
// CHECK: %[[PARAM:.*]] = pgpu.param "MEMBER_SPLIT" : index
// CHECK: %[[FILL:.*]] = pgpu.ceil_div %c1056
// CHECK: %[[SPLITS:.*]] = pgpu.binary max
// CHECK: %[[ON:.*]] = pgpu.cmp ne %[[SPLITS]]
// CHECK: pgpu.workspace_extent "MEMBER_SPLITS" = %[[SPLITS]]
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0 roles ["axis0", "member_split"] {
// CHECK-NEXT: ^bb0(%[[ROW:.*]]: index, %[[MEMBER:.*]]: index):
// CHECK: pgpu.if %[[ON]] {
// CHECK: %[[EARLY:.*]] = pgpu.cmp lt %[[MEMBER]], %[[SPLITS]]
// CHECK: %[[SEG:.*]] = pgpu.select %[[EARLY]]
// CHECK: pgpu.if %[[EARLY]] {
// CHECK: %[[S:.*]] = pgpu.range_reduce %[[BEGIN:.*]] to %[[END:.*]] identity
// CHECK: pgpu.buffer_store %[[S]], %[[P0]][%[[ROW]], %[[SEG]]]
// CHECK: pgpu.atomic_rmw add %{{.*}}, %[[COUNTS]][%[[ROW]]] {{.*}} order release
// CHECK-NOT: pgpu.range_reduce
// CHECK: } else {
// CHECK: pgpu.while
// CHECK: pgpu.atomic_load %[[COUNTS]][%[[ROW]]] {{.*}} order acquire
// CHECK: %[[M:.*]] = pgpu.range_reduce %{{.*}} to %[[SPLITS]] identity
// CHECK: pgpu.buffer_load %[[P0]][%[[ROW]],
// CHECK: %[[Q:.*]] = pgpu.range_reduce %[[BEGIN]] to %[[END]] identity
// CHECK: pgpu.buffer_store %[[Q]], %[[P1]][%[[ROW]], %[[SEG]]]
// CHECK-NOT: pgpu.store
// CHECK: pgpu.last_program %[[TICKETS]][%[[ROW]]] arrivals %[[SPLITS]]
// CHECK: pgpu.range_reduce %{{.*}} to %[[SPLITS]] identity
// CHECK: pgpu.buffer_load %[[P0]]
// CHECK: pgpu.range_reduce %{{.*}} to %[[SPLITS]] identity
// CHECK: pgpu.buffer_load %[[P1]]
// CHECK: pgpu.store %{{.*}}, %var[%[[ROW]]]
// CHECK: pgpu.atomic_store %{{.*}}, %[[COUNTS]][%[[ROW]]] {{.*}} order release
// CHECK: } else {
// CHECK: %[[ONLY:.*]] = pgpu.cmp eq %[[MEMBER]], %{{.*}} : index
// CHECK: pgpu.if %[[ONLY]] {
// CHECK: pgpu.range_reduce %c0 to %{{.*}} identity
// CHECK: pgpu.range_reduce %c0 to %{{.*}} identity
// CHECK: pgpu.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @row_variance(%x: !pgpu.view<f32, [R, N], in>, %var: !pgpu.view<f32, [R], out>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [R, N], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [R, N], in>
    %2 = pgpu.ceil_div %1, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %0, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    pgpu.program_space(%5) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%5) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %6 = pgpu.cast %1 : index to f32
        // expected-remark @+1 {{pgpu-split-member-reductions: each member's range is cut into MEMBER_SPLITS contiguous slices; this reduction's slices run in the first phase}}
        %7 = pgpu.range_reduce %c0 to %3 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %11 = pgpu.load %x[%arg1, %arg2] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [R, N], in>[index, index] -> f32
          pgpu.yield %11 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %11 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %11 : f32
        }
        %8 = pgpu.binary div %7, %6 : f32
        // expected-remark @+1 {{this reduction's slices run in the second phase (after a wait)}}
        %9 = pgpu.range_reduce %c0 to %3 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %11 = pgpu.load %x[%arg1, %arg2] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [R, N], in>[index, index] -> f32
          %12 = pgpu.binary sub %11, %8 : f32
          %13 = pgpu.binary mul %12, %12 : f32
          pgpu.yield %13 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %11 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %11 : f32
        }
        %10 = pgpu.binary div %9, %6 : f32
        pgpu.store %10, %var[%arg1] valid %true : i1 : f32, !pgpu.view<f32, [R], out>[index]
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: two statistics of a row that read no other reduction (one phase: nothing waits).
// CHECK-LABEL: pgpu.kernel @row_sum_max
// CHECK-NOT: MEMBER_SPLIT
// CHECK: pgpu.range_reduce %c0 to
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @row_sum_max(%x: !pgpu.view<f32, [R, N], in>, %s: !pgpu.view<f32, [R], out>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [R, N], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [R, N], in>
    pgpu.program_space(%0) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%0) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %7 = pgpu.range_reduce %c0 to %1 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %11 = pgpu.load %x[%arg1, %arg2] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [R, N], in>[index, index] -> f32
          pgpu.yield %11 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %11 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %11 : f32
        }
        // expected-remark @+1 {{pgpu-split-member-reductions: not split: no reduction reads another (one phase: nothing waits)}}
        %9 = pgpu.range_reduce %c0 to %1 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %11 = pgpu.load %x[%arg1, %arg2] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [R, N], in>[index, index] -> f32
          %13 = pgpu.binary mul %11, %11 : f32
          pgpu.yield %13 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %11 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %11 : f32
        }
        %10 = pgpu.binary add %9, %7 : f32
        pgpu.store %10, %s[%arg1] valid %true : i1 : f32, !pgpu.view<f32, [R], out>[index]
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the member reads the view it writes (the mean stored, then read back).
// CHECK-LABEL: pgpu.kernel @reads_written
// CHECK-NOT: MEMBER_SPLIT
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @reads_written(%x: !pgpu.view<f32, [R, N], inout>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [R, N], inout>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [R, N], inout>
    pgpu.program_space(%0) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%0) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %7 = pgpu.range_reduce %c0 to %1 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %11 = pgpu.load %x[%arg1, %arg2] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [R, N], inout>[index, index] -> f32
          pgpu.yield %11 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %11 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %11 : f32
        }
        // expected-remark @+1 {{pgpu-split-member-reductions: not split: the member reads a view it writes}}
        %9 = pgpu.range_reduce %c0 to %1 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %11 = pgpu.load %x[%arg1, %arg2] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [R, N], inout>[index, index] -> f32
          %12 = pgpu.binary sub %11, %7 : f32
          pgpu.yield %12 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %11 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %11 : f32
        }
        pgpu.store %9, %x[%arg1, %c0] valid %true : i1 : f32, !pgpu.view<f32, [R, N], inout>[index, index]
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
