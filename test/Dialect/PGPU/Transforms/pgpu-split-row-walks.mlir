// RUN: tessel-opt %s -split-input-file -pgpu-split-row-walks | FileCheck %s

// COM: A row's variance (corpus 137) after pgpu-stage-rows and pgpu-pack-rows: ROWS rows a program,
// COM: a row that fits one block on the staged path, a longer one walked block by block twice (the
// COM: mean's sum, then the squares about it). After: the staged path as it was; the blocked path's
// COM: walks cut into MEMBER_SPLITS slices of blocks where the staged test fails (a launch fact);
// COM: members m < MEMBER_SPLITS sum slice m of each row and count themselves at the row, members
// COM: MEMBER_SPLITS + m wait for the row's count, merge the mean's partials in slice order and sum
// COM: slice m of the squares; the row's last arrival merges both and stores. MEMBER_SPLITS = 1
// COM: runs the row as it was (the else branch). MEMBER_SPLIT defaults to 64, capped by
// COM: max(ceil(8 * SMs / rows), ceil(blocks / 8)): with many long rows, slices of at most 8 blocks
// COM: (the second phase's re-read of its slice stays within L2).
// CHECK-LABEL: pgpu.kernel @long_row_variance
// CHECK-SAME: %[[TICKETS:[^:]*]]: !pgpu.buffer<i32, [MEMBER_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: %[[COUNTS:[^:]*]]: !pgpu.buffer<i32, [MEMBER_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: %[[P0:[^:]*]]: !pgpu.buffer<f32, [MEMBER_POINTS, MEMBER_SPLITS], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: %[[P1:[^:]*]]: !pgpu.buffer<f32, [MEMBER_POINTS, MEMBER_SPLITS], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: #pgpu.param<"MEMBER_SPLIT", [1, 2, 4, 8, 16, 32, 64], 64>
// CHECK: pgpu.param "BLOCK" : index
// CHECK: %[[BLOCKS:.*]] = pgpu.ceil_div
// CHECK-NEXT: pgpu.param "MEMBER_SPLIT" : index
// CHECK: %[[FILL:.*]] = pgpu.ceil_div %c1056
// CHECK: %[[SLICES:.*]] = pgpu.ceil_div %[[BLOCKS]], %c8
// CHECK: pgpu.binary max %[[FILL]], %[[SLICES]]
// CHECK: %[[STAGED:.*]] = pgpu.binary and
// CHECK: %[[SPLITS:.*]] = pgpu.select %[[STAGED]], %{{.*}}, %{{.*}} : i1, index
// CHECK: %[[ON:.*]] = pgpu.cmp ne %[[SPLITS]]
// CHECK: pgpu.workspace_extent "MEMBER_SPLITS" = %[[SPLITS]]
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0 roles ["axis0", "member_split"] {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[MEMBER:.*]]: index):
// CHECK: %[[UNSPLIT:.*]] = pgpu.select %[[ON]]
// CHECK: %[[WHOLE:.*]] = pgpu.cmp eq %[[MEMBER]], %[[UNSPLIT]]
// CHECK: pgpu.if %[[WHOLE]] {
// CHECK-NEXT: pgpu.if
// CHECK: pgpu.reduce %{{.*}} axes [1]
// CHECK: } else {
// CHECK: pgpu.for %c0 to
// CHECK: pgpu.for %c0 to
// CHECK: pgpu.store
// CHECK: pgpu.if %[[ON]] {
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %c1 {
// CHECK-NEXT: ^bb0(%[[ROW:.*]]: index):
// CHECK-NEXT: %[[EARLY:.*]] = pgpu.cmp lt %[[MEMBER]], %[[SPLITS]]
// CHECK: %[[SEG:.*]] = pgpu.select %[[EARLY]]
// CHECK: %[[BEGIN:.*]] = pgpu.binary min
// CHECK: %[[END:.*]] = pgpu.binary min
// CHECK: pgpu.if %[[EARLY]] {
// CHECK-NEXT: %[[S0:.*]] = pgpu.for %[[BEGIN]] to %[[END]] step
// CHECK: pgpu.buffer_store %[[S0]], %[[P0]][%[[ROW]], %[[SEG]]]
// CHECK-NOT: pgpu.for
// CHECK: pgpu.atomic_rmw add %{{.*}}, %[[COUNTS]][%[[ROW]]] {{.*}} order release
// CHECK: } else {
// CHECK: pgpu.while {
// CHECK: pgpu.atomic_load %[[COUNTS]][%[[ROW]]] {{.*}} order acquire
// CHECK: pgpu.for %{{.*}} to %[[SPLITS]] step
// CHECK: pgpu.buffer_load %[[P0]][%[[ROW]],
// CHECK: %[[S1:.*]] = pgpu.for %[[BEGIN]] to %[[END]] step
// CHECK: pgpu.buffer_store %[[S1]], %[[P1]][%[[ROW]], %[[SEG]]]
// CHECK-NOT: pgpu.store
// CHECK: pgpu.last_program %[[TICKETS]][%[[ROW]]] arrivals %[[SPLITS]]
// CHECK: pgpu.buffer_load %[[P0]]
// CHECK: pgpu.buffer_load %[[P1]]
// CHECK: pgpu.store %{{.*}}, %var[%[[ROW]]]
// CHECK: pgpu.atomic_store %{{.*}}, %[[COUNTS]][%[[ROW]]] {{.*}} order release
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @long_row_variance(%x: !pgpu.view<f32, [R, N], in>, %var: !pgpu.view<f32, [R], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">, #pgpu.param<"ROWS", [1, 2, 4, 8, 16, 32, 64, 128], 1>]} {
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
    %6 = pgpu.param "ROWS" : index
    %7 = pgpu.ceil_div %5, %6 : index
    pgpu.program_space(%7) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%7) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %8 = pgpu.cast %1 : index to f32
        %9 = pgpu.param "BLOCK" : index
        %10 = pgpu.binary sub %3, %c0 : index
        %11 = pgpu.cmp lt %c0, %3 : index
        %12 = pgpu.cmp le %10, %9 : index
        %13 = pgpu.binary and %11, %12 : i1
        %14 = pgpu.binary mul %arg1, %6 : index
        pgpu.if %13 {
          %15 = pgpu.iota %14 : !pgpu.fragment<index, [ROWS]>
          %16 = pgpu.splat %5 : index -> !pgpu.fragment<index, [ROWS]>
          %17 = pgpu.cmp lt %15, %16 : !pgpu.fragment<index, [ROWS]>
          %18 = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
          %19 = pgpu.splat %3 : index -> !pgpu.fragment<index, [BLOCK]>
          %20 = pgpu.cmp lt %18, %19 : !pgpu.fragment<index, [BLOCK]>
          %21 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
          %22 = pgpu.binary and %21, %20 : !pgpu.fragment<i1, [BLOCK]>
          %23 = pgpu.broadcast %15 dims [0] : !pgpu.fragment<index, [ROWS]> -> !pgpu.fragment<index, [ROWS, BLOCK]>
          %24 = pgpu.broadcast %18 dims [1] : !pgpu.fragment<index, [BLOCK]> -> !pgpu.fragment<index, [ROWS, BLOCK]>
          %25 = pgpu.broadcast %22 dims [1] : !pgpu.fragment<i1, [BLOCK]> -> !pgpu.fragment<i1, [ROWS, BLOCK]>
          %26 = pgpu.broadcast %17 dims [0] : !pgpu.fragment<i1, [ROWS]> -> !pgpu.fragment<i1, [ROWS, BLOCK]>
          %27 = pgpu.binary and %25, %26 : !pgpu.fragment<i1, [ROWS, BLOCK]>
          %28 = pgpu.load %x[%23, %24] valid %27 : !pgpu.fragment<i1, [ROWS, BLOCK]> fill %cst : f32 : !pgpu.view<f32, [R, N], in>[!pgpu.fragment<index, [ROWS, BLOCK]>, !pgpu.fragment<index, [ROWS, BLOCK]>] -> !pgpu.fragment<f32, [ROWS, BLOCK]>
          %29 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [ROWS, BLOCK]>
          %30 = pgpu.select %25, %28, %29 : !pgpu.fragment<i1, [ROWS, BLOCK]>, !pgpu.fragment<f32, [ROWS, BLOCK]>
          %31 = pgpu.reduce %30 axes [1] identity(%cst : f32) : (!pgpu.fragment<f32, [ROWS, BLOCK]>) -> (!pgpu.fragment<f32, [ROWS]>) {
          ^bb0(%arg2: f32, %arg3: f32):
            %45 = pgpu.binary add %arg2, %arg3 : f32
            pgpu.yield %45 : f32
          }
          %32 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [ROWS]>
          %33 = pgpu.binary add %32, %31 : !pgpu.fragment<f32, [ROWS]>
          %34 = pgpu.splat %8 : f32 -> !pgpu.fragment<f32, [ROWS]>
          %35 = pgpu.binary div %33, %34 : !pgpu.fragment<f32, [ROWS]>
          %36 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<f32, [ROWS]> -> !pgpu.fragment<f32, [ROWS, BLOCK]>
          %37 = pgpu.binary sub %28, %36 : !pgpu.fragment<f32, [ROWS, BLOCK]>
          %38 = pgpu.binary mul %37, %37 : !pgpu.fragment<f32, [ROWS, BLOCK]>
          %39 = pgpu.select %25, %38, %29 : !pgpu.fragment<i1, [ROWS, BLOCK]>, !pgpu.fragment<f32, [ROWS, BLOCK]>
          %40 = pgpu.reduce %39 axes [1] identity(%cst : f32) : (!pgpu.fragment<f32, [ROWS, BLOCK]>) -> (!pgpu.fragment<f32, [ROWS]>) {
          ^bb0(%arg2: f32, %arg3: f32):
            %45 = pgpu.binary add %arg2, %arg3 : f32
            pgpu.yield %45 : f32
          }
          %41 = pgpu.binary add %32, %40 : !pgpu.fragment<f32, [ROWS]>
          %42 = pgpu.binary div %41, %34 : !pgpu.fragment<f32, [ROWS]>
          %43 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [ROWS]>
          %44 = pgpu.binary and %43, %17 : !pgpu.fragment<i1, [ROWS]>
          pgpu.store %42, %var[%15] valid %44 : !pgpu.fragment<i1, [ROWS]> : !pgpu.fragment<f32, [ROWS]>, !pgpu.view<f32, [R], out>[!pgpu.fragment<index, [ROWS]>]
          pgpu.yield
        } else {
          %15 = pgpu.binary add %14, %6 : index
          %16 = pgpu.binary min %15, %5 : index
          pgpu.for %14 to %16 step %c1 {
          ^bb0(%arg2: index):
            %17 = pgpu.for %c0 to %3 step %9 iter_args(%cst : f32) -> f32 {
            ^bb0(%arg3: index, %arg4: f32):
              %21 = pgpu.iota %arg3 : !pgpu.fragment<index, [BLOCK]>
              %22 = pgpu.splat %3 : index -> !pgpu.fragment<index, [BLOCK]>
              %23 = pgpu.cmp lt %21, %22 : !pgpu.fragment<index, [BLOCK]>
              %24 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
              %25 = pgpu.binary and %24, %23 : !pgpu.fragment<i1, [BLOCK]>
              %26 = pgpu.load %x[%arg2, %21] valid %25 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f32 : !pgpu.view<f32, [R, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
              %27 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [BLOCK]>
              %28 = pgpu.select %25, %26, %27 : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
              %29 = pgpu.reduce %28 axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
              ^bb0(%arg5: f32, %arg6: f32):
                %31 = pgpu.binary add %arg5, %arg6 : f32
                pgpu.yield %31 : f32
              }
              %30 = pgpu.binary add %arg4, %29 : f32
              pgpu.yield %30 : f32
            }
            %18 = pgpu.binary div %17, %8 : f32
            %19 = pgpu.for %c0 to %3 step %9 iter_args(%cst : f32) -> f32 {
            ^bb0(%arg3: index, %arg4: f32):
              %21 = pgpu.iota %arg3 : !pgpu.fragment<index, [BLOCK]>
              %22 = pgpu.splat %3 : index -> !pgpu.fragment<index, [BLOCK]>
              %23 = pgpu.cmp lt %21, %22 : !pgpu.fragment<index, [BLOCK]>
              %24 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
              %25 = pgpu.binary and %24, %23 : !pgpu.fragment<i1, [BLOCK]>
              %26 = pgpu.load %x[%arg2, %21] valid %25 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f32 : !pgpu.view<f32, [R, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
              %27 = pgpu.splat %18 : f32 -> !pgpu.fragment<f32, [BLOCK]>
              %28 = pgpu.binary sub %26, %27 : !pgpu.fragment<f32, [BLOCK]>
              %29 = pgpu.binary mul %28, %28 : !pgpu.fragment<f32, [BLOCK]>
              %30 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [BLOCK]>
              %31 = pgpu.select %25, %29, %30 : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
              %32 = pgpu.reduce %31 axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
              ^bb0(%arg5: f32, %arg6: f32):
                %34 = pgpu.binary add %arg5, %arg6 : f32
                pgpu.yield %34 : f32
              }
              %33 = pgpu.binary add %arg4, %32 : f32
              pgpu.yield %33 : f32
            }
            %20 = pgpu.binary div %19, %8 : f32
            pgpu.store %20, %var[%arg2] valid %true : i1 : f32, !pgpu.view<f32, [R], out>[index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the second walk reads no other walk's result (one phase: nothing waits).
// CHECK-LABEL: pgpu.kernel @row_sum_of_squares
// CHECK-NOT: MEMBER_SPLIT
// CHECK-NOT: member_split
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @row_sum_of_squares(%x: !pgpu.view<f32, [R, N], in>, %var: !pgpu.view<f32, [R], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">, #pgpu.param<"ROWS", [1, 2, 4, 8, 16, 32, 64, 128], 1>]} {
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
    %6 = pgpu.param "ROWS" : index
    %7 = pgpu.ceil_div %5, %6 : index
    pgpu.program_space(%7) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%7) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %8 = pgpu.cast %1 : index to f32
        %9 = pgpu.param "BLOCK" : index
        %10 = pgpu.binary sub %3, %c0 : index
        %11 = pgpu.cmp lt %c0, %3 : index
        %12 = pgpu.cmp le %10, %9 : index
        %13 = pgpu.binary and %11, %12 : i1
        %14 = pgpu.binary mul %arg1, %6 : index
        pgpu.if %13 {
          %15 = pgpu.iota %14 : !pgpu.fragment<index, [ROWS]>
          %16 = pgpu.splat %5 : index -> !pgpu.fragment<index, [ROWS]>
          %17 = pgpu.cmp lt %15, %16 : !pgpu.fragment<index, [ROWS]>
          %18 = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
          %19 = pgpu.splat %3 : index -> !pgpu.fragment<index, [BLOCK]>
          %20 = pgpu.cmp lt %18, %19 : !pgpu.fragment<index, [BLOCK]>
          %21 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
          %22 = pgpu.binary and %21, %20 : !pgpu.fragment<i1, [BLOCK]>
          %23 = pgpu.broadcast %15 dims [0] : !pgpu.fragment<index, [ROWS]> -> !pgpu.fragment<index, [ROWS, BLOCK]>
          %24 = pgpu.broadcast %18 dims [1] : !pgpu.fragment<index, [BLOCK]> -> !pgpu.fragment<index, [ROWS, BLOCK]>
          %25 = pgpu.broadcast %22 dims [1] : !pgpu.fragment<i1, [BLOCK]> -> !pgpu.fragment<i1, [ROWS, BLOCK]>
          %26 = pgpu.broadcast %17 dims [0] : !pgpu.fragment<i1, [ROWS]> -> !pgpu.fragment<i1, [ROWS, BLOCK]>
          %27 = pgpu.binary and %25, %26 : !pgpu.fragment<i1, [ROWS, BLOCK]>
          %28 = pgpu.load %x[%23, %24] valid %27 : !pgpu.fragment<i1, [ROWS, BLOCK]> fill %cst : f32 : !pgpu.view<f32, [R, N], in>[!pgpu.fragment<index, [ROWS, BLOCK]>, !pgpu.fragment<index, [ROWS, BLOCK]>] -> !pgpu.fragment<f32, [ROWS, BLOCK]>
          %29 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [ROWS, BLOCK]>
          %30 = pgpu.select %25, %28, %29 : !pgpu.fragment<i1, [ROWS, BLOCK]>, !pgpu.fragment<f32, [ROWS, BLOCK]>
          %31 = pgpu.reduce %30 axes [1] identity(%cst : f32) : (!pgpu.fragment<f32, [ROWS, BLOCK]>) -> (!pgpu.fragment<f32, [ROWS]>) {
          ^bb0(%arg2: f32, %arg3: f32):
            %45 = pgpu.binary add %arg2, %arg3 : f32
            pgpu.yield %45 : f32
          }
          %32 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [ROWS]>
          %33 = pgpu.binary add %32, %31 : !pgpu.fragment<f32, [ROWS]>
          %34 = pgpu.splat %8 : f32 -> !pgpu.fragment<f32, [ROWS]>
          %35 = pgpu.binary div %33, %34 : !pgpu.fragment<f32, [ROWS]>
          %36 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<f32, [ROWS]> -> !pgpu.fragment<f32, [ROWS, BLOCK]>
          %37 = pgpu.binary sub %28, %36 : !pgpu.fragment<f32, [ROWS, BLOCK]>
          %38 = pgpu.binary mul %37, %37 : !pgpu.fragment<f32, [ROWS, BLOCK]>
          %39 = pgpu.select %25, %38, %29 : !pgpu.fragment<i1, [ROWS, BLOCK]>, !pgpu.fragment<f32, [ROWS, BLOCK]>
          %40 = pgpu.reduce %39 axes [1] identity(%cst : f32) : (!pgpu.fragment<f32, [ROWS, BLOCK]>) -> (!pgpu.fragment<f32, [ROWS]>) {
          ^bb0(%arg2: f32, %arg3: f32):
            %45 = pgpu.binary add %arg2, %arg3 : f32
            pgpu.yield %45 : f32
          }
          %41 = pgpu.binary add %32, %40 : !pgpu.fragment<f32, [ROWS]>
          %42 = pgpu.binary div %41, %34 : !pgpu.fragment<f32, [ROWS]>
          %43 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [ROWS]>
          %44 = pgpu.binary and %43, %17 : !pgpu.fragment<i1, [ROWS]>
          pgpu.store %42, %var[%15] valid %44 : !pgpu.fragment<i1, [ROWS]> : !pgpu.fragment<f32, [ROWS]>, !pgpu.view<f32, [R], out>[!pgpu.fragment<index, [ROWS]>]
          pgpu.yield
        } else {
          %15 = pgpu.binary add %14, %6 : index
          %16 = pgpu.binary min %15, %5 : index
          pgpu.for %14 to %16 step %c1 {
          ^bb0(%arg2: index):
            %17 = pgpu.for %c0 to %3 step %9 iter_args(%cst : f32) -> f32 {
            ^bb0(%arg3: index, %arg4: f32):
              %21 = pgpu.iota %arg3 : !pgpu.fragment<index, [BLOCK]>
              %22 = pgpu.splat %3 : index -> !pgpu.fragment<index, [BLOCK]>
              %23 = pgpu.cmp lt %21, %22 : !pgpu.fragment<index, [BLOCK]>
              %24 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
              %25 = pgpu.binary and %24, %23 : !pgpu.fragment<i1, [BLOCK]>
              %26 = pgpu.load %x[%arg2, %21] valid %25 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f32 : !pgpu.view<f32, [R, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
              %27 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [BLOCK]>
              %28 = pgpu.select %25, %26, %27 : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
              %29 = pgpu.reduce %28 axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
              ^bb0(%arg5: f32, %arg6: f32):
                %31 = pgpu.binary add %arg5, %arg6 : f32
                pgpu.yield %31 : f32
              }
              %30 = pgpu.binary add %arg4, %29 : f32
              pgpu.yield %30 : f32
            }
            %18 = pgpu.binary div %17, %8 : f32
            %19 = pgpu.for %c0 to %3 step %9 iter_args(%cst : f32) -> f32 {
            ^bb0(%arg3: index, %arg4: f32):
              %21 = pgpu.iota %arg3 : !pgpu.fragment<index, [BLOCK]>
              %22 = pgpu.splat %3 : index -> !pgpu.fragment<index, [BLOCK]>
              %23 = pgpu.cmp lt %21, %22 : !pgpu.fragment<index, [BLOCK]>
              %24 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
              %25 = pgpu.binary and %24, %23 : !pgpu.fragment<i1, [BLOCK]>
              %26 = pgpu.load %x[%arg2, %21] valid %25 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f32 : !pgpu.view<f32, [R, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
              %27 = pgpu.splat %8 : f32 -> !pgpu.fragment<f32, [BLOCK]>
              %28 = pgpu.binary sub %26, %27 : !pgpu.fragment<f32, [BLOCK]>
              %29 = pgpu.binary mul %28, %28 : !pgpu.fragment<f32, [BLOCK]>
              %30 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [BLOCK]>
              %31 = pgpu.select %25, %29, %30 : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
              %32 = pgpu.reduce %31 axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
              ^bb0(%arg5: f32, %arg6: f32):
                %34 = pgpu.binary add %arg5, %arg6 : f32
                pgpu.yield %34 : f32
              }
              %33 = pgpu.binary add %arg4, %32 : f32
              pgpu.yield %33 : f32
            }
            %20 = pgpu.binary div %19, %8 : f32
            pgpu.store %20, %var[%arg2] valid %true : i1 : f32, !pgpu.view<f32, [R], out>[index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the row's loops step by a constant, not a declared block parameter (an
// COM: author's ordered loops: their order is the program's, never regrouped).
// CHECK-LABEL: pgpu.kernel @author_loops
// CHECK-NOT: MEMBER_SPLIT
// CHECK-NOT: member_split
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @author_loops(%x: !pgpu.view<f32, [R, N], in>, %var: !pgpu.view<f32, [R], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">, #pgpu.param<"ROWS", [1, 2, 4, 8, 16, 32, 64, 128], 1>]} {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c512 = arith.constant 512 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [R, N], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [R, N], in>
    %2 = pgpu.ceil_div %1, %c1 : index
    %3 = pgpu.binary max %2, %c0 : index
    %4 = pgpu.ceil_div %0, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.param "ROWS" : index
    %7 = pgpu.ceil_div %5, %6 : index
    pgpu.program_space(%7) {
    ^bb0(%arg0: index):
      pgpu.execution_group %arg0 extents(%7) segment 0 roles ["axis0"] {
      ^bb0(%arg1: index):
        %8 = pgpu.cast %1 : index to f32
        %9 = pgpu.param "BLOCK" : index
        %10 = pgpu.binary sub %3, %c0 : index
        %11 = pgpu.cmp lt %c0, %3 : index
        %12 = pgpu.cmp le %10, %9 : index
        %13 = pgpu.binary and %11, %12 : i1
        %14 = pgpu.binary mul %arg1, %6 : index
        pgpu.if %13 {
          %15 = pgpu.iota %14 : !pgpu.fragment<index, [ROWS]>
          %16 = pgpu.splat %5 : index -> !pgpu.fragment<index, [ROWS]>
          %17 = pgpu.cmp lt %15, %16 : !pgpu.fragment<index, [ROWS]>
          %18 = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
          %19 = pgpu.splat %3 : index -> !pgpu.fragment<index, [BLOCK]>
          %20 = pgpu.cmp lt %18, %19 : !pgpu.fragment<index, [BLOCK]>
          %21 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
          %22 = pgpu.binary and %21, %20 : !pgpu.fragment<i1, [BLOCK]>
          %23 = pgpu.broadcast %15 dims [0] : !pgpu.fragment<index, [ROWS]> -> !pgpu.fragment<index, [ROWS, BLOCK]>
          %24 = pgpu.broadcast %18 dims [1] : !pgpu.fragment<index, [BLOCK]> -> !pgpu.fragment<index, [ROWS, BLOCK]>
          %25 = pgpu.broadcast %22 dims [1] : !pgpu.fragment<i1, [BLOCK]> -> !pgpu.fragment<i1, [ROWS, BLOCK]>
          %26 = pgpu.broadcast %17 dims [0] : !pgpu.fragment<i1, [ROWS]> -> !pgpu.fragment<i1, [ROWS, BLOCK]>
          %27 = pgpu.binary and %25, %26 : !pgpu.fragment<i1, [ROWS, BLOCK]>
          %28 = pgpu.load %x[%23, %24] valid %27 : !pgpu.fragment<i1, [ROWS, BLOCK]> fill %cst : f32 : !pgpu.view<f32, [R, N], in>[!pgpu.fragment<index, [ROWS, BLOCK]>, !pgpu.fragment<index, [ROWS, BLOCK]>] -> !pgpu.fragment<f32, [ROWS, BLOCK]>
          %29 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [ROWS, BLOCK]>
          %30 = pgpu.select %25, %28, %29 : !pgpu.fragment<i1, [ROWS, BLOCK]>, !pgpu.fragment<f32, [ROWS, BLOCK]>
          %31 = pgpu.reduce %30 axes [1] identity(%cst : f32) : (!pgpu.fragment<f32, [ROWS, BLOCK]>) -> (!pgpu.fragment<f32, [ROWS]>) {
          ^bb0(%arg2: f32, %arg3: f32):
            %45 = pgpu.binary add %arg2, %arg3 : f32
            pgpu.yield %45 : f32
          }
          %32 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [ROWS]>
          %33 = pgpu.binary add %32, %31 : !pgpu.fragment<f32, [ROWS]>
          %34 = pgpu.splat %8 : f32 -> !pgpu.fragment<f32, [ROWS]>
          %35 = pgpu.binary div %33, %34 : !pgpu.fragment<f32, [ROWS]>
          %36 = pgpu.broadcast %35 dims [0] : !pgpu.fragment<f32, [ROWS]> -> !pgpu.fragment<f32, [ROWS, BLOCK]>
          %37 = pgpu.binary sub %28, %36 : !pgpu.fragment<f32, [ROWS, BLOCK]>
          %38 = pgpu.binary mul %37, %37 : !pgpu.fragment<f32, [ROWS, BLOCK]>
          %39 = pgpu.select %25, %38, %29 : !pgpu.fragment<i1, [ROWS, BLOCK]>, !pgpu.fragment<f32, [ROWS, BLOCK]>
          %40 = pgpu.reduce %39 axes [1] identity(%cst : f32) : (!pgpu.fragment<f32, [ROWS, BLOCK]>) -> (!pgpu.fragment<f32, [ROWS]>) {
          ^bb0(%arg2: f32, %arg3: f32):
            %45 = pgpu.binary add %arg2, %arg3 : f32
            pgpu.yield %45 : f32
          }
          %41 = pgpu.binary add %32, %40 : !pgpu.fragment<f32, [ROWS]>
          %42 = pgpu.binary div %41, %34 : !pgpu.fragment<f32, [ROWS]>
          %43 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [ROWS]>
          %44 = pgpu.binary and %43, %17 : !pgpu.fragment<i1, [ROWS]>
          pgpu.store %42, %var[%15] valid %44 : !pgpu.fragment<i1, [ROWS]> : !pgpu.fragment<f32, [ROWS]>, !pgpu.view<f32, [R], out>[!pgpu.fragment<index, [ROWS]>]
          pgpu.yield
        } else {
          %15 = pgpu.binary add %14, %6 : index
          %16 = pgpu.binary min %15, %5 : index
          pgpu.for %14 to %16 step %c1 {
          ^bb0(%arg2: index):
            %17 = pgpu.for %c0 to %3 step %c512 iter_args(%cst : f32) -> f32 {
            ^bb0(%arg3: index, %arg4: f32):
              %21 = pgpu.iota %arg3 : !pgpu.fragment<index, [BLOCK]>
              %22 = pgpu.splat %3 : index -> !pgpu.fragment<index, [BLOCK]>
              %23 = pgpu.cmp lt %21, %22 : !pgpu.fragment<index, [BLOCK]>
              %24 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
              %25 = pgpu.binary and %24, %23 : !pgpu.fragment<i1, [BLOCK]>
              %26 = pgpu.load %x[%arg2, %21] valid %25 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f32 : !pgpu.view<f32, [R, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
              %27 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [BLOCK]>
              %28 = pgpu.select %25, %26, %27 : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
              %29 = pgpu.reduce %28 axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
              ^bb0(%arg5: f32, %arg6: f32):
                %31 = pgpu.binary add %arg5, %arg6 : f32
                pgpu.yield %31 : f32
              }
              %30 = pgpu.binary add %arg4, %29 : f32
              pgpu.yield %30 : f32
            }
            %18 = pgpu.binary div %17, %8 : f32
            %19 = pgpu.for %c0 to %3 step %c512 iter_args(%cst : f32) -> f32 {
            ^bb0(%arg3: index, %arg4: f32):
              %21 = pgpu.iota %arg3 : !pgpu.fragment<index, [BLOCK]>
              %22 = pgpu.splat %3 : index -> !pgpu.fragment<index, [BLOCK]>
              %23 = pgpu.cmp lt %21, %22 : !pgpu.fragment<index, [BLOCK]>
              %24 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
              %25 = pgpu.binary and %24, %23 : !pgpu.fragment<i1, [BLOCK]>
              %26 = pgpu.load %x[%arg2, %21] valid %25 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f32 : !pgpu.view<f32, [R, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
              %27 = pgpu.splat %18 : f32 -> !pgpu.fragment<f32, [BLOCK]>
              %28 = pgpu.binary sub %26, %27 : !pgpu.fragment<f32, [BLOCK]>
              %29 = pgpu.binary mul %28, %28 : !pgpu.fragment<f32, [BLOCK]>
              %30 = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [BLOCK]>
              %31 = pgpu.select %25, %29, %30 : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
              %32 = pgpu.reduce %31 axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
              ^bb0(%arg5: f32, %arg6: f32):
                %34 = pgpu.binary add %arg5, %arg6 : f32
                pgpu.yield %34 : f32
              }
              %33 = pgpu.binary add %arg4, %32 : f32
              pgpu.yield %33 : f32
            }
            %20 = pgpu.binary div %19, %8 : f32
            pgpu.store %20, %var[%arg2] valid %true : i1 : f32, !pgpu.view<f32, [R], out>[index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
