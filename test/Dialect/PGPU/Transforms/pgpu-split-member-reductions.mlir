// RUN: tessel-opt %s -split-input-file -pgpu-split-member-reductions -verify-diagnostics | FileCheck %s

// COM: A channel's variance over a strided outer axis and an inner one (a batch norm's statistics,
// COM: corpus 53): the mean's sum over (N, H), then the sum of squares about it (it reads the mean),
// COM: then the quotient stored. Before: one program a channel walks its N x H elements twice. After:
// COM: each channel's outer range is cut into MEMBER_SPLITS slices; members m < MEMBER_SPLITS sum
// COM: slice m and count themselves, members MEMBER_SPLITS + m wait for the count, merge the mean's
// COM: partials and sum slice m of the squares; the channel's last arrival merges both and stores.
// COM: MEMBER_SPLITS = 1 (a member of at most 16384 elements, or members that fill the device) keeps
// COM: the body as it was, in an if directly in the group (member 0 of the split axis, then its only one).
// CHECK-LABEL: pgpu.kernel @channel_variance
// CHECK-SAME: %[[TICKETS:[^:]*]]: !pgpu.buffer<i32, [MEMBER_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: %[[COUNTS:[^:]*]]: !pgpu.buffer<i32, [MEMBER_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: %[[P0:[^:]*]]: !pgpu.buffer<f32, [MEMBER_POINTS, MEMBER_SPLITS], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: %[[P1:[^:]*]]: !pgpu.buffer<f32, [MEMBER_POINTS, MEMBER_SPLITS], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: #pgpu.param<"MEMBER_SPLIT", [1, 2, 4, 8, 16, 32, 64], 16>
// CHECK: %[[PARAM:.*]] = pgpu.param "MEMBER_SPLIT" : index
// CHECK: %[[FILL:.*]] = pgpu.ceil_div %c1056
// CHECK: %[[CUT:.*]] = pgpu.binary max
// CHECK: %[[LARGE:.*]] = pgpu.cmp gt %{{.*}}, %c16384
// CHECK: %[[SPLITS:.*]] = pgpu.select %[[LARGE]], %[[CUT]]
// CHECK: %[[ON:.*]] = pgpu.cmp ne %[[SPLITS]]
// CHECK: pgpu.workspace_extent "MEMBER_SPLITS" = %[[SPLITS]]
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0 roles ["axis0", "member_split"] {
// CHECK-NEXT: ^bb0(%[[CH:.*]]: index, %[[MEMBER:.*]]: index):
// CHECK: pgpu.if %[[ON]] {
// CHECK: %[[EARLY:.*]] = pgpu.cmp lt %[[MEMBER]], %[[SPLITS]]
// CHECK: %[[SEG:.*]] = pgpu.select %[[EARLY]]
// CHECK: pgpu.if %[[EARLY]] {
// CHECK: %[[S:.*]] = pgpu.range_reduce %[[BEGIN:.*]] to %[[END:.*]] identity
// CHECK: pgpu.range_reduce %c0 to %[[INNER:.*]] identity
// CHECK: pgpu.buffer_store %[[S]], %[[P0]][%[[CH]], %[[SEG]]]
// CHECK: pgpu.atomic_rmw add %{{.*}}, %[[COUNTS]][%[[CH]]] {{.*}} order release
// CHECK-NOT: pgpu.range_reduce
// CHECK: } else {
// CHECK: pgpu.while
// CHECK: pgpu.atomic_load %[[COUNTS]][%[[CH]]] {{.*}} order acquire
// CHECK: %[[M:.*]] = pgpu.range_reduce %{{.*}} to %[[SPLITS]] identity
// CHECK: pgpu.buffer_load %[[P0]][%[[CH]],
// CHECK: %[[Q:.*]] = pgpu.range_reduce %[[BEGIN]] to %[[END]] identity
// CHECK: pgpu.range_reduce %c0 to %[[INNER]] identity
// CHECK: pgpu.buffer_store %[[Q]], %[[P1]][%[[CH]], %[[SEG]]]
// CHECK-NOT: pgpu.store
// CHECK: pgpu.last_program %[[TICKETS]][%[[CH]]] arrivals %[[SPLITS]]
// CHECK: pgpu.range_reduce %{{.*}} to %[[SPLITS]] identity
// CHECK: pgpu.buffer_load %[[P0]]
// CHECK: pgpu.range_reduce %{{.*}} to %[[SPLITS]] identity
// CHECK: pgpu.buffer_load %[[P1]]
// CHECK: pgpu.store %{{.*}}, %var[%[[CH]]]
// CHECK: pgpu.atomic_store %{{.*}}, %[[COUNTS]][%[[CH]]] {{.*}} order release
// CHECK: %[[UNSPLIT:.*]] = pgpu.select %[[ON]], %{{.*}}, %{{.*}} : i1, index
// CHECK: %[[WHOLE:.*]] = pgpu.cmp eq %[[MEMBER]], %[[UNSPLIT]] : index
// CHECK-NEXT: pgpu.if %[[WHOLE]] {
// CHECK-NEXT: pgpu.cast
// CHECK-NEXT: pgpu.range_reduce %c0 to %{{.*}} identity
// CHECK: pgpu.range_reduce %c0 to %{{.*}} identity
// CHECK: pgpu.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @channel_variance(%x: !pgpu.view<f32, [N, C, H], in>, %var: !pgpu.view<f32, [C], out>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, H], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [N, C, H], in>
    %2 = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, H], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary mul %0, %2 : index
    pgpu.program_space(%8) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%8) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %10 = pgpu.cast %9 : index to f32
        // expected-remark @+1 {{pgpu-split-member-reductions: each member's range is cut into MEMBER_SPLITS contiguous slices; this reduction's slices run in the first phase}}
        %11 = pgpu.range_reduce %c0 to %4 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %15 = pgpu.range_reduce %c0 to %6 identity(%cst : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %16 = pgpu.load %x[%arg2, %arg1, %arg3] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, C, H], in>[index, index, index] -> f32
            pgpu.yield %16 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %16 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %16 : f32
          }
          pgpu.yield %15 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %15 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %15 : f32
        }
        %12 = pgpu.binary div %11, %10 : f32
        // expected-remark @+1 {{this reduction's slices run in the second phase (after a wait)}}
        %13 = pgpu.range_reduce %c0 to %4 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %15 = pgpu.range_reduce %c0 to %6 identity(%cst : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %16 = pgpu.load %x[%arg2, %arg1, %arg3] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, C, H], in>[index, index, index] -> f32
            %17 = pgpu.binary sub %16, %12 : f32
            %18 = pgpu.binary mul %17, %17 : f32
            pgpu.yield %18 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %16 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %16 : f32
          }
          pgpu.yield %15 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %15 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %15 : f32
        }
        %14 = pgpu.binary div %13, %10 : f32
        pgpu.store %14, %var[%arg1] valid %true : i1 : f32, !pgpu.view<f32, [C], out>[index]
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a long row's variance, reduced over one axis [0, N): the covering rule and the
// COM: staged / packed row paths choose its plan by the row's length at each call.
// CHECK-LABEL: pgpu.kernel @row_variance
// CHECK-NOT: MEMBER_SPLIT
// CHECK: pgpu.range_reduce %c0 to
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
        // expected-remark @+1 {{pgpu-split-member-reductions: not split: the member is reduced over one axis (a row: the call's covering and row-packing defaults choose its plan by its length)}}
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

// COM: Must not fire: two statistics of a channel that read no other reduction (one phase: nothing waits).
// CHECK-LABEL: pgpu.kernel @channel_sum_squares
// CHECK-NOT: MEMBER_SPLIT
// CHECK: pgpu.range_reduce %c0 to

module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @channel_sum_squares(%x: !pgpu.view<f32, [N, C, H], in>, %out: !pgpu.view<f32, [C], out>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, H], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [N, C, H], in>
    %2 = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, H], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    pgpu.program_space(%8) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%8) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %11 = pgpu.range_reduce %c0 to %4 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %15 = pgpu.range_reduce %c0 to %6 identity(%cst : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %16 = pgpu.load %x[%arg2, %arg1, %arg3] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, C, H], in>[index, index, index] -> f32
            pgpu.yield %16 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %16 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %16 : f32
          }
          pgpu.yield %15 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %15 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %15 : f32
        }
        // expected-remark @+1 {{pgpu-split-member-reductions: not split: no reduction reads another (one phase: nothing waits)}}
        %13 = pgpu.range_reduce %c0 to %4 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %15 = pgpu.range_reduce %c0 to %6 identity(%cst : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %16 = pgpu.load %x[%arg2, %arg1, %arg3] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, C, H], in>[index, index, index] -> f32
            %17 = pgpu.binary mul %16, %16 : f32
            pgpu.yield %17 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %16 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %16 : f32
          }
          pgpu.yield %15 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %15 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %15 : f32
        }
        %14 = pgpu.binary add %13, %11 : f32
        pgpu.store %14, %out[%arg1] valid %true : i1 : f32, !pgpu.view<f32, [C], out>[index]
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
// -----

// COM: Must not fire: the member reads the view it writes (a statistic stored, then read back).
// CHECK-LABEL: pgpu.kernel @reads_written
// CHECK-NOT: MEMBER_SPLIT

module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @reads_written(%x: !pgpu.view<f32, [N, C, H], inout>, %out: !pgpu.view<f32, [C], out>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, H], inout>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [N, C, H], inout>
    %2 = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, H], inout>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    pgpu.program_space(%8) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%8) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %11 = pgpu.range_reduce %c0 to %4 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %15 = pgpu.range_reduce %c0 to %6 identity(%cst : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %16 = pgpu.load %x[%arg2, %arg1, %arg3] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, C, H], inout>[index, index, index] -> f32
            pgpu.yield %16 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %16 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %16 : f32
          }
          pgpu.yield %15 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %15 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %15 : f32
        }
        // expected-remark @+1 {{pgpu-split-member-reductions: not split: the member reads a view it writes}}
        %13 = pgpu.range_reduce %c0 to %4 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %15 = pgpu.range_reduce %c0 to %6 identity(%cst : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %16 = pgpu.load %x[%arg2, %arg1, %arg3] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, C, H], inout>[index, index, index] -> f32
            %17 = pgpu.binary sub %16, %11 : f32
            pgpu.yield %17 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %16 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %16 : f32
          }
          pgpu.yield %15 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %15 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %15 : f32
        }
        pgpu.store %13, %x[%c0, %arg1, %c0] valid %true : i1 : f32, !pgpu.view<f32, [N, C, H], inout>[index, index, index]
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
// -----

// COM: Must not fire: a reduction whose element computes beyond its inner reduction (a sum of
// COM: exp(inner sums), the shape of a contraction's row statistic): not a member over several axes.
// CHECK-LABEL: pgpu.kernel @exp_of_inner_sums
// CHECK-NOT: MEMBER_SPLIT

module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @exp_of_inner_sums(%x: !pgpu.view<f32, [N, C, H], in>, %out: !pgpu.view<f32, [C], out>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, H], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [N, C, H], in>
    %2 = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, H], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %1, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    pgpu.program_space(%8) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%8) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %11 = pgpu.range_reduce %c0 to %4 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %15 = pgpu.range_reduce %c0 to %6 identity(%cst : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %16 = pgpu.load %x[%arg2, %arg1, %arg3] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, C, H], in>[index, index, index] -> f32
            pgpu.yield %16 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %16 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %16 : f32
          }
          pgpu.yield %15 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %15 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %15 : f32
        }
        // expected-remark @+1 {{pgpu-split-member-reductions: not split: a reduction's element holds a loop or reduction besides a perfect nest}}
        %13 = pgpu.range_reduce %c0 to %4 identity(%cst : f32) -> (f32) element {
        ^bb0(%arg2: index):
          %15 = pgpu.range_reduce %c0 to %6 identity(%cst : f32) -> (f32) element {
          ^bb0(%arg3: index):
            %16 = pgpu.load %x[%arg2, %arg1, %arg3] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, C, H], in>[index, index, index] -> f32
            %17 = pgpu.binary sub %16, %11 : f32
            pgpu.yield %17 : f32
          } combine {
          ^bb0(%arg3: f32, %arg4: f32):
            %16 = pgpu.binary add %arg3, %arg4 : f32
            pgpu.yield %16 : f32
          }
          %19 = pgpu.unary exp %15 : f32
          pgpu.yield %19 : f32
        } combine {
        ^bb0(%arg2: f32, %arg3: f32):
          %15 = pgpu.binary add %arg2, %arg3 : f32
          pgpu.yield %15 : f32
        }
        pgpu.store %13, %out[%arg1] valid %true : i1 : f32, !pgpu.view<f32, [C], out>[index]
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A group norm over channels-last data (corpus 235): a group's statistics over (H, W, its clipped
// COM: channels, computed in the program), then the normalized writes over the same nest. Three phases:
// COM: members [0, S) sum their slice of H, [S, 2S) wait, merge the mean and sum the squares of their
// COM: slice, [2S, 3S) wait for those, merge both and write their slice of the workset; the group's last
// COM: third-phase arrival returns both counts to 0.
// CHECK-LABEL: pgpu.kernel @group_norm_nhwc
// CHECK-SAME: %[[TICKETS:[^:]*]]: !pgpu.buffer<i32, [MEMBER_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: %[[COUNT0:[^:]*]]: !pgpu.buffer<i32, [MEMBER_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: %[[COUNT1:[^:]*]]: !pgpu.buffer<i32, [MEMBER_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-NOT: pgpu.cmp gt %{{.*}}, %c16384
// CHECK: pgpu.workspace_extent "MEMBER_SPLITS" = %[[SPLITS:.*]]
// CHECK: pgpu.binary mul %[[SPLITS]], %c3
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}, %{{.*}}) segment 0 roles ["axis0", "axis1", "member_split"] {
// CHECK: pgpu.atomic_rmw add %{{.*}}, %[[COUNT0]]
// CHECK: pgpu.atomic_load %[[COUNT0]]{{.*}} order acquire
// CHECK: pgpu.if %[[THIRD:.*]] {
// CHECK: pgpu.atomic_load %[[COUNT1]]{{.*}} order acquire
// CHECK: pgpu.foreach %[[BEGIN:[^ ]*]] to %[[END:[^ ]*]] {
// CHECK: pgpu.store
// CHECK: pgpu.last_program %[[TICKETS]]
// CHECK: pgpu.atomic_store %{{.*}}, %[[COUNT0]]
// CHECK: pgpu.atomic_store %{{.*}}, %[[COUNT1]]
// CHECK: } else {
// CHECK: pgpu.range_reduce %[[BEGIN]] to %[[END]]
// CHECK-NOT: pgpu.store
// CHECK: pgpu.atomic_rmw add %{{.*}}, %[[COUNT1]]{{.*}} order release
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @group_norm_nhwc(%x: !pgpu.view<bf16, [N, H, W, C], in>, %gamma: !pgpu.view<f32, [C], in>, %beta: !pgpu.view<f32, [C], in>, %out: !pgpu.view<bf16, [N, H, W, C], out>, %G: i32, %eps: f32) {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<bf16, [N, H, W, C], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<bf16, [N, H, W, C], in>
    %2 = pgpu.extent %x[2] : !pgpu.view<bf16, [N, H, W, C], in>
    %3 = pgpu.extent %x[3] : !pgpu.view<bf16, [N, H, W, C], in>
    %4 = pgpu.ceil_div %1, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.ceil_div %2, %c1 : index
    %7 = pgpu.binary max %6, %c0 : index
    %8 = pgpu.ceil_div %0, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    %10 = pgpu.cast %G : i32 to index
    %11 = pgpu.binary div %3, %10 : index
    %12 = pgpu.binary mul %1, %2 : index
    %13 = pgpu.binary mul %12, %11 : index
    %14 = pgpu.ceil_div %10, %c1 : index
    %15 = pgpu.binary max %14, %c0 : index
    %16 = pgpu.binary mul %9, %15 : index
    pgpu.program_space(%16) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%9, %15) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%arg1: index, %arg2: index):
        %17 = pgpu.cast %13 : index to f32
        %18 = pgpu.binary mul %arg2, %11 : index
        %19 = pgpu.binary add %18, %11 : index
        %20 = pgpu.binary max %18, %c0 : index
        %21 = pgpu.binary min %19, %3 : index
        %22 = pgpu.binary sub %21, %20 : index
        %23 = pgpu.binary max %22, %c0 : index
        // expected-remark @+1 {{this reduction's slices run in the first phase}}
        %24 = pgpu.range_reduce %c0 to %5 identity(%cst_0 : f32) -> (f32) element {
        ^bb0(%arg3: index):
          %30 = pgpu.range_reduce %c0 to %7 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg4: index):
            %31 = pgpu.range_reduce %c0 to %23 identity(%cst_0 : f32) -> (f32) element {
            ^bb0(%arg5: index):
              %32 = pgpu.binary add %20, %arg5 : index
              %33 = pgpu.load %x[%arg1, %arg3, %arg4, %32] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [N, H, W, C], in>[index, index, index, index] -> bf16
              %34 = pgpu.cast %33 : bf16 to f32
              pgpu.yield %34 : f32
            } combine {
            ^bb0(%arg5: f32, %arg6: f32):
              %32 = pgpu.binary add %arg5, %arg6 : f32
              pgpu.yield %32 : f32
            }
            pgpu.yield %31 : f32
          } combine {
          ^bb0(%arg4: f32, %arg5: f32):
            %31 = pgpu.binary add %arg4, %arg5 : f32
            pgpu.yield %31 : f32
          }
          pgpu.yield %30 : f32
        } combine {
        ^bb0(%arg3: f32, %arg4: f32):
          %30 = pgpu.binary add %arg3, %arg4 : f32
          pgpu.yield %30 : f32
        }
        %25 = pgpu.binary div %24, %17 : f32
        // expected-remark @+1 {{this reduction's slices run in the second phase (after a wait)}}
        %26 = pgpu.range_reduce %c0 to %5 identity(%cst_0 : f32) -> (f32) element {
        ^bb0(%arg3: index):
          %30 = pgpu.range_reduce %c0 to %7 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg4: index):
            %31 = pgpu.range_reduce %c0 to %23 identity(%cst_0 : f32) -> (f32) element {
            ^bb0(%arg5: index):
              %32 = pgpu.binary add %20, %arg5 : index
              %33 = pgpu.load %x[%arg1, %arg3, %arg4, %32] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [N, H, W, C], in>[index, index, index, index] -> bf16
              %34 = pgpu.cast %33 : bf16 to f32
              %35 = pgpu.binary sub %34, %25 : f32
              %36 = pgpu.binary mul %35, %35 : f32
              pgpu.yield %36 : f32
            } combine {
            ^bb0(%arg5: f32, %arg6: f32):
              %32 = pgpu.binary add %arg5, %arg6 : f32
              pgpu.yield %32 : f32
            }
            pgpu.yield %31 : f32
          } combine {
          ^bb0(%arg4: f32, %arg5: f32):
            %31 = pgpu.binary add %arg4, %arg5 : f32
            pgpu.yield %31 : f32
          }
          pgpu.yield %30 : f32
        } combine {
        ^bb0(%arg3: f32, %arg4: f32):
          %30 = pgpu.binary add %arg3, %arg4 : f32
          pgpu.yield %30 : f32
        }
        %27 = pgpu.binary div %26, %17 : f32
        %28 = pgpu.binary add %27, %eps : f32
        %29 = pgpu.unary rsqrt %28 : f32
        pgpu.foreach %c0 to %5 {
        ^bb0(%arg3: index):
          pgpu.foreach %c0 to %7 {
          ^bb0(%arg4: index):
            pgpu.foreach %c0 to %23 {
            ^bb0(%arg5: index):
              %30 = pgpu.binary add %20, %arg5 : index
              %31 = pgpu.load %x[%arg1, %arg3, %arg4, %30] valid %true : i1 fill %cst : bf16 : !pgpu.view<bf16, [N, H, W, C], in>[index, index, index, index] -> bf16
              %32 = pgpu.cast %31 : bf16 to f32
              %33 = pgpu.binary sub %32, %25 : f32
              %34 = pgpu.binary mul %33, %29 : f32
              %35 = pgpu.load %gamma[%30] valid %true : i1 fill %cst_0 : f32 : !pgpu.view<f32, [C], in>[index] -> f32
              %36 = pgpu.binary mul %34, %35 : f32
              %37 = pgpu.load %beta[%30] valid %true : i1 fill %cst_0 : f32 : !pgpu.view<f32, [C], in>[index] -> f32
              %38 = pgpu.binary add %36, %37 : f32
              %39 = pgpu.cast %38 : f32 to bf16
              pgpu.store %39, %out[%arg1, %arg3, %arg4, %30] valid %true : i1 : bf16, !pgpu.view<bf16, [N, H, W, C], out>[index, index, index, index]
              pgpu.yield
            }
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
