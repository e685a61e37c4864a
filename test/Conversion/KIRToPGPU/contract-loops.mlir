// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: Fused linear cross-entropy (bench/corpus/116, in f16): per row n the logits w[vocab, ks] . x[n, ks]
// COM: folded into max then sum of exp (kir-online-folds' exact two-pass form), and the target logit
// COM: w[labels[n], ks] . x[n, ks] (a rank-0 contraction read by kir.extract). The axis ks is only reduced.
// COM: Before: the workset was constructed element by element ("'kir.extract' not constructed on
// COM: fragments yet"; after that, the target's operands both vary across the lanes), and a free axis
// COM: longer than its block took the element-wise fallback. After: under K <= BLOCK_K the fragment
// COM: variant as before (the [BLOCK_N, BLOCK_K] row block loaded once); else the looped variant, where
// COM: each contraction over ks is a pgpu.for stepping by TILE_K that reads its operands per block and
// COM: accumulates into the carry: the folds' [BLOCK_N, BLOCK_V] logits tiles are tile products over a K
// COM: loop, the target a gathered [BLOCK_N, TILE_K] row block times the lanes' rows, reduced per block.
// CHECK-LABEL: pgpu.kernel @flce
// CHECK-SAME: #pgpu.param<"BLOCK_K", [16, 32, 64, 128, 256], 128, covers = "K">, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>
// CHECK: %[[BK:.*]] = pgpu.param "BLOCK_K" : index
// CHECK: %[[FITS:.*]] = pgpu.cmp le %[[K:.*]], %[[BK]] : index
// CHECK: pgpu.if %[[FITS]] {
// CHECK: pgpu.load %x{{.*}} -> !pgpu.fragment<f16, [BLOCK_N, BLOCK_K]>
// CHECK: pgpu.region_fold
// CHECK: } else {
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.region_fold
// CHECK: %[[TK:.*]] = pgpu.param "TILE_K" : index
// CHECK: %{{.*}} = pgpu.for %{{.*}} to %{{.*}} step %[[TK]] iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_N, BLOCK_V]>) -> !pgpu.fragment<f32, [BLOCK_N, BLOCK_V]> {
// CHECK-NEXT: ^bb0(%[[K0:.*]]: index, %[[ACC:.*]]: !pgpu.fragment<f32, [BLOCK_N, BLOCK_V]>):
// CHECK: pgpu.iota %[[K0]] : !pgpu.fragment<index, [TILE_K]>
// CHECK: pgpu.load %{{.*}} -> !pgpu.fragment<f16, [BLOCK_V, TILE_K]>
// CHECK: pgpu.load %{{.*}} -> !pgpu.fragment<f16, [BLOCK_N, TILE_K]>
// CHECK: %[[P:.*]] = pgpu.contract %{{.*}}, %{{.*}}, %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [BLOCK_N, TILE_K]>, !pgpu.fragment<f16, [TILE_K, BLOCK_V]>
// CHECK-NEXT: %[[S:.*]] = pgpu.binary add %[[P]], %[[ACC]] : !pgpu.fragment<f32, [BLOCK_N, BLOCK_V]>
// CHECK-NEXT: pgpu.yield %[[S]]
// CHECK: pgpu.reduce %{{.*}} axes [1]
// CHECK: pgpu.load %labels
// CHECK: pgpu.param "TILE_K" : index
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_N]>) -> !pgpu.fragment<f32, [BLOCK_N]> {
// CHECK: pgpu.gather %w{{.*}} -> !pgpu.fragment<f16, [BLOCK_N, TILE_K]>
// CHECK: pgpu.load %x{{.*}} -> !pgpu.fragment<f16, [BLOCK_N, TILE_K]>
// CHECK: pgpu.binary mul {{.*}} : !pgpu.fragment<f32, [BLOCK_N, TILE_K]>
// CHECK: pgpu.reduce %{{.*}} axes [1]
// CHECK: pgpu.store %{{.*}}, %loss
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @flce(%x: !kir.view<f16, [N, K], in>, %w: !kir.view<f16, [V, K], in>, %labels: !kir.view<i64, [N], in> {kir.range = [0, "V"]}, %loss: !kir.view<f32, [N], out>) {
    %0 = kir.extent "N"
    %1 = kir.extent "K"
    %2 = kir.extent "V"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %2
    %4 = kir.indices %3 : tensor<?xindex>
    %5 = kir.domain %c0 to %1
    %6 = kir.domain %c0 to %0
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    // expected-remark @+1 {{kir-to-pgpu: where a contraction's paired axis is longer than its block, each contraction over it is a loop over blocks of it, the product accumulated}}
    kir.parallel %6 {
    ^bb0(%arg0: index):
      %7 = kir.load %w[%3, %5] : !kir.view<f16, [V, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %8 = kir.load %x[%arg0, %5] : !kir.view<f16, [N, K], in>[index, !kir.domain] -> tensor<?xf16>
      // expected-remark @+1 {{kir-to-pgpu: region fold constructed on fragments: BLOCK_N lanes, BLOCK_V-wide source tiles}}
      %9 = kir.region_fold sources(%7, %4 : tensor<?x?xf16>, tensor<?xindex>) axis 0 identity(%cst : f32) operands(%8 : tensor<?xf16>) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xf16>, %arg2: tensor<?xindex>, %arg3: tensor<?xf16>):
        %20 = kir.contract %arg1, %arg3 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
        %cst_1 = arith.constant 0xFF800000 : f32
        %21 = kir.reduce %20 axes [0] identity(%cst_1 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg4: f32, %arg5: f32):
          %22 = kir.binary max %arg4, %arg5 : f32
          kir.yield %22 : f32
        }
        kir.yield %21 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %20 = kir.binary max %arg1, %arg2 : f32
        kir.yield %20 : f32
      }
      // expected-remark @+1 {{kir-to-pgpu: region fold constructed on fragments: BLOCK_N lanes, BLOCK_V-wide source tiles}}
      %10 = kir.region_fold sources(%7, %4 : tensor<?x?xf16>, tensor<?xindex>) axis 0 identity(%cst_0 : f32) operands(%8, %9 : tensor<?xf16>, f32) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xf16>, %arg2: tensor<?xindex>, %arg3: tensor<?xf16>, %arg4: f32):
        %20 = kir.contract %arg1, %arg3 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
        %21 = kir.broadcast_as %arg4 to %20 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %22 = kir.binary sub %20, %21 : tensor<?xf32>
        %23 = kir.unary exp %22 : tensor<?xf32>
        %cst_1 = arith.constant 0.000000e+00 : f32
        %24 = kir.reduce %23 axes [0] identity(%cst_1 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg5: f32, %arg6: f32):
          %25 = kir.binary add %arg5, %arg6 : f32
          kir.yield %25 : f32
        }
        kir.yield %24 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %20 = kir.binary add %arg1, %arg2 : f32
        kir.yield %20 : f32
      }
      %11 = kir.unary log %10 : f32
      %12 = kir.binary add %9, %11 : f32
      %13 = kir.load %labels[%arg0] : !kir.view<i64, [N], in>[index] -> i64
      %14 = kir.cast %13 : i64 to index
      %15 = kir.load %w[%14, %5] : !kir.view<f16, [V, K], in>[index, !kir.domain] -> tensor<?xf16>
      %16 = kir.load %x[%arg0, %5] : !kir.view<f16, [N, K], in>[index, !kir.domain] -> tensor<?xf16>
      %17 = kir.contract %15, %16 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?xf16> -> tensor<f32>
      %18 = kir.extract %17[] : tensor<f32>
      %19 = kir.binary sub %12, %18 : f32
      kir.store %19, %loss[%arg0] : f32, !kir.view<f32, [N], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a row of attention, where the head dim is reduced by q . k but free in p @ v. It is
// COM: no loop axis: the workset keeps the guarded fragment form and its element-wise fallback, and
// COM: declares no TILE_ parameter.
// CHECK-LABEL: pgpu.kernel @attn_rows
// CHECK-NOT: TILE_
// CHECK: pgpu.range_reduce
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @attn_rows(%q: !kir.view<f16, [S, D], in>, %k: !kir.view<f16, [T, D], in>, %v: !kir.view<f16, [T, D], in>, %o: !kir.view<f16, [S, D], out>) {
    %0 = kir.extent "T"
    %1 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.indices %2 : tensor<?xindex>
    %4 = kir.extent "S"
    %5 = kir.domain %c0 to %1
    %6 = kir.domain %c0 to %4
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    kir.parallel %6 {
    ^bb0(%arg0: index):
      %7 = kir.load %k[%2, %5] : !kir.view<f16, [T, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %8 = kir.load %q[%arg0, %5] : !kir.view<f16, [S, D], in>[index, !kir.domain] -> tensor<?xf16>
      %9 = kir.load %v[%2, %5] : !kir.view<f16, [T, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %10 = kir.region_fold sources(%7, %3 : tensor<?x?xf16>, tensor<?xindex>) axis 0 identity(%cst : f32) operands(%8 : tensor<?xf16>) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xf16>, %arg2: tensor<?xindex>, %arg3: tensor<?xf16>):
        %16 = kir.contract %arg1, %arg3 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
        %cst_2 = arith.constant 0xFF800000 : f32
        %17 = kir.reduce %16 axes [0] identity(%cst_2 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg4: f32, %arg5: f32):
          %18 = kir.binary max %arg4, %arg5 : f32
          kir.yield %18 : f32
        }
        kir.yield %17 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %16 = kir.binary max %arg1, %arg2 : f32
        kir.yield %16 : f32
      }
      %cst_1 = arith.constant 0.000000e+00 : f32
      %11 = kir.broadcast %cst_1 over(%5) dims [] : f32 -> tensor<?xf32>
      %12:2 = kir.region_fold sources(%7, %9, %3 : tensor<?x?xf16>, tensor<?x?xf16>, tensor<?xindex>) axis 0 identity(%cst_0, %11 : f32, tensor<?xf32>) operands(%8, %10 : tensor<?xf16>, f32) -> (f32, tensor<?xf32>) summarize {
      ^bb0(%arg1: tensor<?x?xf16>, %arg2: tensor<?x?xf16>, %arg3: tensor<?xindex>, %arg4: tensor<?xf16>, %arg5: f32):
        %16 = kir.contract %arg1, %arg4 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
        %17 = kir.broadcast_as %arg5 to %16 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %18 = kir.binary sub %16, %17 : tensor<?xf32>
        %19 = kir.unary exp %18 : tensor<?xf32>
        %20 = kir.cast %19 : tensor<?xf32> to tensor<?xf16>
        %21 = kir.contract %20, %arg2 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
        %cst_2 = arith.constant 0.000000e+00 : f32
        %22 = kir.reduce %19 axes [0] identity(%cst_2 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg6: f32, %arg7: f32):
          %23 = kir.binary add %arg6, %arg7 : f32
          kir.yield %23 : f32
        }
        kir.yield %22, %21 : f32, tensor<?xf32>
      } combine {
      ^bb0(%arg1: f32, %arg2: tensor<?xf32>, %arg3: f32, %arg4: tensor<?xf32>):
        %16 = kir.binary add %arg1, %arg3 : f32
        %17 = kir.binary add %arg2, %arg4 : tensor<?xf32>
        kir.yield %16, %17 : f32, tensor<?xf32>
      }
      %13 = kir.broadcast %12#0 over(%5) dims [] : f32 -> tensor<?xf32>
      %14 = kir.binary div %12#1, %13 : tensor<?xf32>
      %15 = kir.cast %14 : tensor<?xf32> to tensor<?xf16>
      kir.store %15, %o[%arg0, %5] : tensor<?xf16>, !kir.view<f16, [S, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
