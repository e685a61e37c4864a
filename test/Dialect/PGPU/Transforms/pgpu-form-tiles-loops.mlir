// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: A block-scaled FP8 GEMM as constructed (corpus 185, DeepSeek-V3 scaling): per output element
// COM: (m, n) a loop over the K blocks kb carries its f32 accumulator element; each trip sums the
// COM: block's products a[m, k] * b[n, k], scales the sum by sa[m, kb] and sb[n // 128, kb] and adds it
// COM: to the carry. The loop's bounds do not depend on the program's axes, so every member of a tile
// COM: runs the same trips: the loop runs once per tile carrying a [TILE_0, TILE_1] tile. Each trip's
// COM: block is a slice of constant width 128 (clamped to K), so one block of TILE_2 = 128 lanes covers
// COM: it: one pgpu.contract of the FP8 tiles from a fresh zero tile (no K loop: the author loop is the
// COM: innermost), then scaled by the [TILE_0] column of sa and the gathered [TILE_1] row of sb
// COM: (broadcast), then added to the carried tile: the source's operations per trip, in loop order.
// CHECK-LABEL: pgpu.kernel @block_scaled_fp8_gemm
// CHECK-SAME: #pgpu.param<"TILE_2", [128], 128, covers = "128">
// CHECK: %[[ZERO:.*]] = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[ACC:.*]] = pgpu.for %c0 to %{{.*}} step %c1 iter_args(%[[ZERO]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
// CHECK-NEXT: ^bb0(%[[KB:.*]]: index, %[[C:.*]]: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
// CHECK: %[[FRESH:.*]] = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK-NOT: pgpu.for
// CHECK: %[[PART:.*]] = pgpu.contract %{{.*}}, %{{.*}}, %[[FRESH]] reduce([1], [0]) batch([], []) : !pgpu.fragment<f8E4M3FN, [TILE_0, TILE_2]>, !pgpu.fragment<f8E4M3FN, [TILE_2, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[SA:.*]] = pgpu.load %sa[%{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f32, [TILE_0]>
// CHECK: %[[SAB:.*]] = pgpu.broadcast %[[SA]] dims [0] : !pgpu.fragment<f32, [TILE_0]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[P1:.*]] = pgpu.binary mul %[[PART]], %[[SAB]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[SB:.*]] = pgpu.gather %sb[%{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f32, [TILE_1]>
// CHECK: %[[SBB:.*]] = pgpu.broadcast %[[SB]] dims [1] : !pgpu.fragment<f32, [TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[P2:.*]] = pgpu.binary mul %[[P1]], %[[SBB]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[NEXT:.*]] = pgpu.binary add %[[C]], %[[P2]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK-NEXT: pgpu.yield %[[NEXT]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[OUT:.*]] = pgpu.cast %[[ACC]] : !pgpu.fragment<f32, [TILE_0, TILE_1]> to !pgpu.fragment<bf16, [TILE_0, TILE_1]>
// CHECK: pgpu.store %[[OUT]], %out
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @block_scaled_fp8_gemm(%a: !pgpu.view<f8E4M3FN, [M, K], in>, %b: !pgpu.view<f8E4M3FN, [N, K], in>, %sa: !pgpu.view<f32, [M, KB], in>, %sb: !pgpu.view<f32, [NB, KB], in>, %out: !pgpu.view<bf16, [M, N], out>) {
    %cst = arith.constant 0.000000e+00 : f8E4M3FN
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c128 = arith.constant 128 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f8E4M3FN, [M, K], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f8E4M3FN, [M, K], in>
    %2 = pgpu.extent %b[0] : !pgpu.view<f8E4M3FN, [N, K], in>
    %3 = pgpu.extent %sa[1] : !pgpu.view<f32, [M, KB], in>
    %4 = pgpu.ceil_div %0, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.ceil_div %2, %c1 : index
    %7 = pgpu.binary max %6, %c0 : index
    %8 = pgpu.ceil_div %3, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    %10 = pgpu.binary mul %5, %7 : index
    pgpu.program_space(%10) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (program axis 1), TILE_2 (one block covering a loop trip's slice of 128); 1 reduction(s) become pgpu.contract; grouped traversal GROUP_0; persistent traversal (PERSIST programs per multiprocessor); a loop in the program body runs once per tile, carrying tiles}}
      pgpu.execution_group %arg0 extents(%5, %7) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%arg1: index, %arg2: index):
        %11 = pgpu.for %c0 to %9 step %c1 iter_args(%cst_0 : f32) -> f32 {
        ^bb0(%arg3: index, %arg4: f32):
          %13 = pgpu.binary mul %arg3, %c128 : index
          %14 = pgpu.binary add %13, %c128 : index
          %15 = pgpu.binary max %13, %c0 : index
          %16 = pgpu.binary min %14, %1 : index
          %17 = pgpu.binary sub %16, %15 : index
          %18 = pgpu.binary max %17, %c0 : index
          %19 = pgpu.range_reduce %c0 to %18 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg5: index):
            %26 = pgpu.binary add %15, %arg5 : index
            %27 = pgpu.load %a[%arg1, %26] valid %true : i1 fill %cst : f8E4M3FN : !pgpu.view<f8E4M3FN, [M, K], in>[index, index] -> f8E4M3FN
            %28 = pgpu.load %b[%arg2, %26] valid %true : i1 fill %cst : f8E4M3FN : !pgpu.view<f8E4M3FN, [N, K], in>[index, index] -> f8E4M3FN
            %29 = pgpu.cast %27 : f8E4M3FN to f32
            %30 = pgpu.cast %28 : f8E4M3FN to f32
            %31 = pgpu.binary mul %29, %30 : f32
            pgpu.yield %31 : f32
          } combine {
          ^bb0(%arg5: f32, %arg6: f32):
            %26 = pgpu.binary add %arg5, %arg6 : f32
            pgpu.yield %26 : f32
          }
          %20 = pgpu.load %sa[%arg1, %arg3] valid %true : i1 fill %cst_0 : f32 : !pgpu.view<f32, [M, KB], in>[index, index] -> f32
          %21 = pgpu.binary mul %19, %20 : f32
          %22 = pgpu.binary div %arg2, %c128 : index
          %23 = pgpu.gather %sb[%22, %arg3] valid %true : i1 fill %cst_0 : f32 : !pgpu.view<f32, [NB, KB], in>[index, index] -> f32
          %24 = pgpu.binary mul %21, %23 : f32
          %25 = pgpu.binary add %arg4, %24 : f32
          pgpu.yield %25 : f32
        }
        %12 = pgpu.cast %11 : f32 to bf16
        pgpu.store %12, %out[%arg1, %arg2] valid %true : i1 : bf16, !pgpu.view<bf16, [M, N], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}


// -----

// COM: Blocks of 256 (wider than TILE_K's largest candidate): each trip's block product is a K loop of
// COM: TILE_K steps from a fresh zero tile, then scaled by the [TILE_0] column of sa and added.
// CHECK-LABEL: pgpu.kernel @wide_blocks
// CHECK: %[[ACC:.*]] = pgpu.for %c0 to %{{.*}} step %c1 iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[C:.*]]: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
// CHECK: %[[FRESH:.*]] = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[PART:.*]] = pgpu.for %c0 to %{{.*}} step %{{.*}} iter_args(%[[FRESH]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK: pgpu.contract {{.*}} : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>
// CHECK: %[[S:.*]] = pgpu.binary mul %[[PART]], %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[NEXT:.*]] = pgpu.binary add %[[C]], %[[S]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK-NEXT: pgpu.yield %[[NEXT]]
// CHECK: pgpu.store %[[ACC]], %out
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @wide_blocks(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [N, K], in>, %sa: !pgpu.view<f32, [M, KB], in>, %out: !pgpu.view<f32, [M, N], out>) {
    %cst = arith.constant 0.000000e+00 : f16
    %true = arith.constant true
    %c256 = arith.constant 256 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %2 = pgpu.extent %b[0] : !pgpu.view<f16, [N, K], in>
    %3 = pgpu.extent %sa[1] : !pgpu.view<f32, [M, KB], in>
    %4 = pgpu.ceil_div %0, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.ceil_div %2, %c1 : index
    %7 = pgpu.binary max %6, %c0 : index
    %8 = pgpu.ceil_div %3, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    %10 = pgpu.binary mul %5, %7 : index
    pgpu.program_space(%10) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (program axis 1), TILE_K (reduction loop); 1 reduction(s) become pgpu.contract; grouped traversal GROUP_0; persistent traversal (PERSIST programs per multiprocessor); a loop in the program body runs once per tile, carrying tiles}}
      pgpu.execution_group %arg0 extents(%5, %7) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%arg1: index, %arg2: index):
        %11 = pgpu.for %c0 to %9 step %c1 iter_args(%cst_0 : f32) -> f32 {
        ^bb0(%arg3: index, %arg4: f32):
          %12 = pgpu.binary mul %arg3, %c256 : index
          %13 = pgpu.binary add %12, %c256 : index
          %14 = pgpu.binary max %12, %c0 : index
          %15 = pgpu.binary min %13, %1 : index
          %16 = pgpu.binary sub %15, %14 : index
          %17 = pgpu.binary max %16, %c0 : index
          %18 = pgpu.range_reduce %c0 to %17 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg5: index):
            %22 = pgpu.binary add %14, %arg5 : index
            %23 = pgpu.load %a[%arg1, %22] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
            %24 = pgpu.load %b[%arg2, %22] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [N, K], in>[index, index] -> f16
            %25 = pgpu.cast %23 : f16 to f32
            %26 = pgpu.cast %24 : f16 to f32
            %27 = pgpu.binary mul %25, %26 : f32
            pgpu.yield %27 : f32
          } combine {
          ^bb0(%arg5: f32, %arg6: f32):
            %22 = pgpu.binary add %arg5, %arg6 : f32
            pgpu.yield %22 : f32
          }
          %19 = pgpu.load %sa[%arg1, %arg3] valid %true : i1 fill %cst_0 : f32 : !pgpu.view<f32, [M, KB], in>[index, index] -> f32
          %20 = pgpu.binary mul %18, %19 : f32
          %21 = pgpu.binary add %arg4, %20 : f32
          pgpu.yield %21 : f32
        }
        pgpu.store %11, %out[%arg1, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}


// -----

// COM: Two carries read one block product (CSE merged the two T.matmul of the source): a scaled sum
// COM: and a running maximum. Both become [TILE_0, TILE_1] tiles of one loop (the flattening of a
// COM: carried sum, FlattenCarriedSums.cpp, takes loops with one carry only).
// CHECK-LABEL: pgpu.kernel @two_carries
// CHECK: %[[R:.*]]:2 = pgpu.for %c0 to %{{.*}} step %c1 iter_args(%{{.*}}, %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[ACC:.*]]: !pgpu.fragment<f32, [TILE_0, TILE_1]>, %[[BIG:.*]]: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
// CHECK-NOT: pgpu.for
// CHECK: %[[PART:.*]] = pgpu.contract %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : !pgpu.fragment<f16, [TILE_0, TILE_2]>, !pgpu.fragment<f16, [TILE_2, TILE_1]>
// CHECK: %[[S:.*]] = pgpu.binary mul %[[PART]], %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[A2:.*]] = pgpu.binary add %[[ACC]], %[[S]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[B2:.*]] = pgpu.binary max %[[BIG]], %[[PART]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.yield %[[A2]], %[[B2]]
// CHECK: pgpu.binary sub %[[R]]#0, %[[R]]#1 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @two_carries(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [N, K], in>, %sa: !pgpu.view<f32, [M, KB], in>, %out: !pgpu.view<f32, [M, N], out>) {
    %cst = arith.constant 0.000000e+00 : f16
    %true = arith.constant true
    %c32 = arith.constant 32 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %2 = pgpu.extent %b[0] : !pgpu.view<f16, [N, K], in>
    %3 = pgpu.extent %sa[1] : !pgpu.view<f32, [M, KB], in>
    %4 = pgpu.ceil_div %0, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.ceil_div %2, %c1 : index
    %7 = pgpu.binary max %6, %c0 : index
    %8 = pgpu.ceil_div %3, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    %10 = pgpu.binary mul %5, %7 : index
    pgpu.program_space(%10) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (program axis 1), TILE_2 (one block covering a loop trip's slice of 32); 1 reduction(s) become pgpu.contract; grouped traversal GROUP_0; persistent traversal (PERSIST programs per multiprocessor); a loop in the program body runs once per tile, carrying tiles}}
      pgpu.execution_group %arg0 extents(%5, %7) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%arg1: index, %arg2: index):
        %11:2 = pgpu.for %c0 to %9 step %c1 iter_args(%cst_0, %cst_0 : f32, f32) -> f32, f32 {
        ^bb0(%arg3: index, %arg4: f32, %arg5: f32):
          %13 = pgpu.binary mul %arg3, %c32 : index
          %14 = pgpu.binary add %13, %c32 : index
          %15 = pgpu.binary max %13, %c0 : index
          %16 = pgpu.binary min %14, %1 : index
          %17 = pgpu.binary sub %16, %15 : index
          %18 = pgpu.binary max %17, %c0 : index
          %19 = pgpu.range_reduce %c0 to %18 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg6: index):
            %24 = pgpu.binary add %15, %arg6 : index
            %25 = pgpu.load %a[%arg1, %24] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
            %26 = pgpu.load %b[%arg2, %24] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [N, K], in>[index, index] -> f16
            %27 = pgpu.cast %25 : f16 to f32
            %28 = pgpu.cast %26 : f16 to f32
            %29 = pgpu.binary mul %27, %28 : f32
            pgpu.yield %29 : f32
          } combine {
          ^bb0(%arg6: f32, %arg7: f32):
            %24 = pgpu.binary add %arg6, %arg7 : f32
            pgpu.yield %24 : f32
          }
          %20 = pgpu.load %sa[%arg1, %arg3] valid %true : i1 fill %cst_0 : f32 : !pgpu.view<f32, [M, KB], in>[index, index] -> f32
          %21 = pgpu.binary mul %19, %20 : f32
          %22 = pgpu.binary add %arg4, %21 : f32
          %23 = pgpu.binary max %arg5, %19 : f32
          pgpu.yield %22, %23 : f32, f32
        }
        %12 = pgpu.binary sub %11#0, %11#1 : f32
        pgpu.store %12, %out[%arg1, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}


// -----

// COM: A loop that only adds each block's product to its carry (`acc = acc + T.matmul(...)` over K blocks
// COM: of 32, clamped to K: the block's range depends on the trip, so the loop is no rectangle to
// COM: flatten). The carry is used only by that add, which the trip yields: the block's tile product
// COM: accumulates into the carried tile (an add-reduction regrouped, seed 000 §8), no zero tile and no
// COM: tile add.
// CHECK-LABEL: pgpu.kernel @plain
// CHECK: pgpu.for %c0 to %{{.*}} step %c1 iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[C:.*]]: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
// CHECK-NOT: pgpu.for
// CHECK: %[[K:.*]] = pgpu.contract %{{.*}}, %{{.*}}, %[[C]] {{.*}} : !pgpu.fragment<f16, [TILE_0, TILE_2]>, !pgpu.fragment<f16, [TILE_2, TILE_1]>
// CHECK-NOT: pgpu.binary add
// CHECK: pgpu.yield %[[K]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @plain(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [N, K], in>, %out: !pgpu.view<f32, [M, N], out>) {
    %cst = arith.constant 0.000000e+00 : f16
    %true = arith.constant true
    %c32 = arith.constant 32 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %2 = pgpu.extent %b[0] : !pgpu.view<f16, [N, K], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.binary div %1, %c32 : index
    %8 = pgpu.ceil_div %7, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    %10 = pgpu.binary mul %4, %6 : index
    pgpu.program_space(%10) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (program axis 1), TILE_2 (one block covering a loop trip's slice of 32); 1 reduction(s) become pgpu.contract; 1 contraction(s) accumulate into a loop's carried tile; grouped traversal GROUP_0; persistent traversal (PERSIST programs per multiprocessor); a loop in the program body runs once per tile, carrying tiles}}
      pgpu.execution_group %arg0 extents(%4, %6) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%arg1: index, %arg2: index):
        %11 = pgpu.for %c0 to %9 step %c1 iter_args(%cst_0 : f32) -> f32 {
        ^bb0(%arg3: index, %arg4: f32):
          %12 = pgpu.binary mul %arg3, %c32 : index
          %13 = pgpu.binary add %12, %c32 : index
          %14 = pgpu.binary max %12, %c0 : index
          %15 = pgpu.binary min %13, %1 : index
          %16 = pgpu.binary sub %15, %14 : index
          %17 = pgpu.binary max %16, %c0 : index
          %18 = pgpu.range_reduce %c0 to %17 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg5: index):
            %20 = pgpu.binary add %14, %arg5 : index
            %21 = pgpu.load %a[%arg1, %20] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
            %22 = pgpu.load %b[%arg2, %20] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [N, K], in>[index, index] -> f16
            %23 = pgpu.cast %21 : f16 to f32
            %24 = pgpu.cast %22 : f16 to f32
            %25 = pgpu.binary mul %23, %24 : f32
            pgpu.yield %25 : f32
          } combine {
          ^bb0(%arg5: f32, %arg6: f32):
            %20 = pgpu.binary add %arg5, %arg6 : f32
            pgpu.yield %20 : f32
          }
          %19 = pgpu.binary add %arg4, %18 : f32
          pgpu.yield %19 : f32
        }
        pgpu.store %11, %out[%arg1, %arg2] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}


// -----

// COM: Must not fire: each trip stores (a write in the loop; construction keeps such a loop in a workset).
// CHECK-LABEL: pgpu.kernel @store_in_loop
// CHECK-NOT: TILE_
// CHECK: pgpu.for
// CHECK: pgpu.range_reduce
// CHECK: pgpu.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @store_in_loop(%a: !pgpu.view<f8E4M3FN, [M, K], in>, %b: !pgpu.view<f8E4M3FN, [N, K], in>, %sa: !pgpu.view<f32, [M, KB], in>, %sb: !pgpu.view<f32, [NB, KB], in>, %out: !pgpu.view<bf16, [M, N], out>) {
    %cst = arith.constant 0.000000e+00 : f8E4M3FN
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c128 = arith.constant 128 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f8E4M3FN, [M, K], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f8E4M3FN, [M, K], in>
    %2 = pgpu.extent %b[0] : !pgpu.view<f8E4M3FN, [N, K], in>
    %3 = pgpu.extent %sa[1] : !pgpu.view<f32, [M, KB], in>
    %4 = pgpu.ceil_div %0, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.ceil_div %2, %c1 : index
    %7 = pgpu.binary max %6, %c0 : index
    %8 = pgpu.ceil_div %3, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    %10 = pgpu.binary mul %5, %7 : index
    pgpu.program_space(%10) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: the program body has nested loops, control, atomics, or loop bounds that depend on the program}}
      pgpu.execution_group %arg0 extents(%5, %7) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%arg1: index, %arg2: index):
        %11 = pgpu.for %c0 to %9 step %c1 iter_args(%cst_0 : f32) -> f32 {
        ^bb0(%arg3: index, %arg4: f32):
          %13 = pgpu.binary mul %arg3, %c128 : index
          %14 = pgpu.binary add %13, %c128 : index
          %15 = pgpu.binary max %13, %c0 : index
          %16 = pgpu.binary min %14, %1 : index
          %17 = pgpu.binary sub %16, %15 : index
          %18 = pgpu.binary max %17, %c0 : index
          %19 = pgpu.range_reduce %c0 to %18 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg5: index):
            %26 = pgpu.binary add %15, %arg5 : index
            %27 = pgpu.load %a[%arg1, %26] valid %true : i1 fill %cst : f8E4M3FN : !pgpu.view<f8E4M3FN, [M, K], in>[index, index] -> f8E4M3FN
            %28 = pgpu.load %b[%arg2, %26] valid %true : i1 fill %cst : f8E4M3FN : !pgpu.view<f8E4M3FN, [N, K], in>[index, index] -> f8E4M3FN
            %29 = pgpu.cast %27 : f8E4M3FN to f32
            %30 = pgpu.cast %28 : f8E4M3FN to f32
            %31 = pgpu.binary mul %29, %30 : f32
            pgpu.yield %31 : f32
          } combine {
          ^bb0(%arg5: f32, %arg6: f32):
            %26 = pgpu.binary add %arg5, %arg6 : f32
            pgpu.yield %26 : f32
          }
          %20 = pgpu.load %sa[%arg1, %arg3] valid %true : i1 fill %cst_0 : f32 : !pgpu.view<f32, [M, KB], in>[index, index] -> f32
          %21 = pgpu.binary mul %19, %20 : f32
          %22 = pgpu.binary div %arg2, %c128 : index
          %23 = pgpu.gather %sb[%22, %arg3] valid %true : i1 fill %cst_0 : f32 : !pgpu.view<f32, [NB, KB], in>[index, index] -> f32
          %24 = pgpu.binary mul %21, %23 : f32
          %25 = pgpu.binary add %arg4, %24 : f32
          %s = pgpu.cast %25 : f32 to bf16
          pgpu.store %s, %out[%arg1, %arg2] valid %true : i1 : bf16, !pgpu.view<bf16, [M, N], out>[index, index]
          pgpu.yield %25 : f32
        }
        %12 = pgpu.cast %11 : f32 to bf16
        pgpu.store %12, %out[%arg1, %arg2] valid %true : i1 : bf16, !pgpu.view<bf16, [M, N], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}


// -----

// COM: Must not fire: the loop's trips depend on the row (a program axis): the members of a tile would
// COM: run different trips.
// CHECK-LABEL: pgpu.kernel @bounds_on_row
// CHECK-NOT: TILE_
// CHECK: %[[UB:.*]] = pgpu.binary min %{{.*}}, %arg1 : index
// CHECK-NEXT: pgpu.for %c0 to %[[UB]] step
// CHECK: pgpu.range_reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @bounds_on_row(%a: !pgpu.view<f8E4M3FN, [M, K], in>, %b: !pgpu.view<f8E4M3FN, [N, K], in>, %sa: !pgpu.view<f32, [M, KB], in>, %sb: !pgpu.view<f32, [NB, KB], in>, %out: !pgpu.view<bf16, [M, N], out>) {
    %cst = arith.constant 0.000000e+00 : f8E4M3FN
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c128 = arith.constant 128 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f8E4M3FN, [M, K], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f8E4M3FN, [M, K], in>
    %2 = pgpu.extent %b[0] : !pgpu.view<f8E4M3FN, [N, K], in>
    %3 = pgpu.extent %sa[1] : !pgpu.view<f32, [M, KB], in>
    %4 = pgpu.ceil_div %0, %c1 : index
    %5 = pgpu.binary max %4, %c0 : index
    %6 = pgpu.ceil_div %2, %c1 : index
    %7 = pgpu.binary max %6, %c0 : index
    %8 = pgpu.ceil_div %3, %c1 : index
    %9 = pgpu.binary max %8, %c0 : index
    %10 = pgpu.binary mul %5, %7 : index
    pgpu.program_space(%10) {
    ^bb0(%arg0: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: the program body has nested loops, control, atomics, or loop bounds that depend on the program}}
      pgpu.execution_group %arg0 extents(%5, %7) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%arg1: index, %arg2: index):
        %ub = pgpu.binary min %9, %arg1 : index
        %11 = pgpu.for %c0 to %ub step %c1 iter_args(%cst_0 : f32) -> f32 {
        ^bb0(%arg3: index, %arg4: f32):
          %13 = pgpu.binary mul %arg3, %c128 : index
          %14 = pgpu.binary add %13, %c128 : index
          %15 = pgpu.binary max %13, %c0 : index
          %16 = pgpu.binary min %14, %1 : index
          %17 = pgpu.binary sub %16, %15 : index
          %18 = pgpu.binary max %17, %c0 : index
          %19 = pgpu.range_reduce %c0 to %18 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg5: index):
            %26 = pgpu.binary add %15, %arg5 : index
            %27 = pgpu.load %a[%arg1, %26] valid %true : i1 fill %cst : f8E4M3FN : !pgpu.view<f8E4M3FN, [M, K], in>[index, index] -> f8E4M3FN
            %28 = pgpu.load %b[%arg2, %26] valid %true : i1 fill %cst : f8E4M3FN : !pgpu.view<f8E4M3FN, [N, K], in>[index, index] -> f8E4M3FN
            %29 = pgpu.cast %27 : f8E4M3FN to f32
            %30 = pgpu.cast %28 : f8E4M3FN to f32
            %31 = pgpu.binary mul %29, %30 : f32
            pgpu.yield %31 : f32
          } combine {
          ^bb0(%arg5: f32, %arg6: f32):
            %26 = pgpu.binary add %arg5, %arg6 : f32
            pgpu.yield %26 : f32
          }
          %20 = pgpu.load %sa[%arg1, %arg3] valid %true : i1 fill %cst_0 : f32 : !pgpu.view<f32, [M, KB], in>[index, index] -> f32
          %21 = pgpu.binary mul %19, %20 : f32
          %22 = pgpu.binary div %arg2, %c128 : index
          %23 = pgpu.gather %sb[%22, %arg3] valid %true : i1 fill %cst_0 : f32 : !pgpu.view<f32, [NB, KB], in>[index, index] -> f32
          %24 = pgpu.binary mul %21, %23 : f32
          %25 = pgpu.binary add %arg4, %24 : f32
          pgpu.yield %25 : f32
        }
        %12 = pgpu.cast %11 : f32 to bf16
        pgpu.store %12, %out[%arg1, %arg2] valid %true : i1 : bf16, !pgpu.view<bf16, [M, N], out>[index, index]
        pgpu.yield
      } {roles = ["axis0", "axis1"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

