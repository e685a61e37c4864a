// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: A store over a fold's tile domain of a row computed there by a contraction: the softmax of a
// COM: query row's scores written out (kir-online-folds' output for bench/corpus/58_bmm_softmax_scores_b:
// COM: two folds, the maximum and the sum, then the row recomputed for the store). Before: the workset
// COM: was constructed element by element ("a value over a fold's domain is used outside the fold").
// COM: After: both folds on fragments (BLOCK_S query rows, BLOCK_T key tiles, the scores a
// COM: pgpu.contract), then a third traversal of the keys of its own: a pgpu.for stepping by BLOCK_T
// COM: whose body reloads the key tile, recomputes the [BLOCK_S, BLOCK_T] scores as a tile product with
// COM: the query block loaded once before the loop, exp(s - m) / l, and stores it under the tile's
// COM: validity (seed 002 §3.4).
// CHECK-LABEL: pgpu.kernel @stored_scores_source
// CHECK: %[[QB:.*]] = pgpu.load %q
// CHECK: %[[M:.*]] = pgpu.region_fold {{.*}} -> (!pgpu.fragment<f32, [BLOCK_S]>) summarize
// CHECK: pgpu.contract
// CHECK: %[[L:.*]] = pgpu.region_fold {{.*}} -> (!pgpu.fragment<f32, [BLOCK_S]>) summarize
// CHECK: %[[BT:.*]] = pgpu.param "BLOCK_T" : index
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %[[BT]] {
// CHECK: %[[KT:.*]] = pgpu.load %k
// CHECK: %[[S:.*]] = pgpu.contract %[[QB]], %{{.*}}, %{{.*}} reduce([1], [0]) {{.*}} -> !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
// CHECK: pgpu.unary exp
// CHECK: pgpu.binary div
// CHECK: pgpu.store %{{.*}}, %p[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_S, BLOCK_T]> : !pgpu.fragment<f16, [BLOCK_S, BLOCK_T]>
// CHECK: pgpu.yield
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = false>} {
  kir.kernel @stored_scores_source(%q: !kir.view<f16, [S, D], in>, %k: !kir.view<f16, [T, D], in>, %p: !kir.view<f16, [S, T], out>, %scale: f32) {
    %0 = kir.extent "S"
    %1 = kir.extent "D"
    %2 = kir.extent "T"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %2
    %4 = kir.indices %3 : tensor<?xindex>
    %5 = kir.domain %c0 to %1
    %6 = kir.domain %c0 to %0
    %7 = kir.broadcast %scale over(%3) dims [] : f32 -> tensor<?xf32>
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    kir.parallel %6 {
    ^bb0(%arg0: index):
      %8 = kir.load %k[%3, %5] : !kir.view<f16, [T, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %9 = kir.load %q[%arg0, %5] : !kir.view<f16, [S, D], in>[index, !kir.domain] -> tensor<?xf16>
      %10 = kir.region_fold sources(%8, %4 : tensor<?x?xf16>, tensor<?xindex>) axis 0 identity(%cst : f32) operands(%9, %scale : tensor<?xf16>, f32) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xf16>, %arg2: tensor<?xindex>, %arg3: tensor<?xf16>, %arg4: f32):
        %20 = kir.contract %arg1, %arg3 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
        %21 = kir.broadcast_as %arg4 to %20 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %22 = kir.binary mul %20, %21 : tensor<?xf32>
        %cst_1 = arith.constant 0xFF800000 : f32
        %23 = kir.reduce %22 axes [0] identity(%cst_1 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg5: f32, %arg6: f32):
          %24 = kir.binary max %arg5, %arg6 : f32
          kir.yield %24 : f32
        }
        kir.yield %23 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %20 = kir.binary max %arg1, %arg2 : f32
        kir.yield %20 : f32
      }
      %11 = kir.region_fold sources(%8, %4 : tensor<?x?xf16>, tensor<?xindex>) axis 0 identity(%cst_0 : f32) operands(%9, %scale, %10 : tensor<?xf16>, f32, f32) -> (f32) summarize {
      ^bb0(%arg1: tensor<?x?xf16>, %arg2: tensor<?xindex>, %arg3: tensor<?xf16>, %arg4: f32, %arg5: f32):
        %20 = kir.contract %arg1, %arg3 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
        %21 = kir.broadcast_as %arg4 to %20 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %22 = kir.binary mul %20, %21 : tensor<?xf32>
        %23 = kir.broadcast_as %arg5 to %22 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %24 = kir.binary sub %22, %23 : tensor<?xf32>
        %25 = kir.unary exp %24 : tensor<?xf32>
        %cst_1 = arith.constant 0.000000e+00 : f32
        %26 = kir.reduce %25 axes [0] identity(%cst_1 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg6: f32, %arg7: f32):
          %27 = kir.binary add %arg6, %arg7 : f32
          kir.yield %27 : f32
        }
        kir.yield %26 : f32
      } combine {
      ^bb0(%arg1: f32, %arg2: f32):
        %20 = kir.binary add %arg1, %arg2 : f32
        kir.yield %20 : f32
      }
      %12 = kir.contract %8, %9 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %13 = kir.binary mul %12, %7 : tensor<?xf32>
      %14 = kir.broadcast %10 over(%3) dims [] : f32 -> tensor<?xf32>
      %15 = kir.binary sub %13, %14 : tensor<?xf32>
      %16 = kir.unary exp %15 : tensor<?xf32>
      %17 = kir.broadcast %11 over(%3) dims [] : f32 -> tensor<?xf32>
      %18 = kir.binary div %16, %17 : tensor<?xf32>
      %19 = kir.cast %18 : tensor<?xf32> to tensor<?xf16>
      kir.store %19, %p[%arg0, %3] : tensor<?xf16>, !kir.view<f16, [S, T], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}


// -----

// COM: Must not fire: the stored row is read from memory (no contraction over the fold's domain: an
// COM: author's online softmax, a region fold of the row's maximum, then exp(x - m) stored). The row
// COM: path keeps it (the element-wise construction here, pgpu-stage-rows after it), so the workset is
// COM: built element by element and says why.
// CHECK-LABEL: pgpu.kernel @stored_row_from_memory
// CHECK-NOT: pgpu.fragment<f32, [BLOCK_
// CHECK: pgpu.region_fold
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @stored_row_from_memory(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %rows = kir.domain %c0 to %0
    %cols = kir.domain %c0 to %1
    %ninf = arith.constant 0xFF800000 : f32
    // expected-remark @below {{region fold constructed element by element: a value over a fold's domain is used outside the fold ('kir.store')}}
    kir.parallel %rows {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %cols] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %m = kir.region_fold sources(%row : tensor<?xf32>) axis 0 identity(%ninf : f32) -> (f32) summarize {
      ^bb0(%s: tensor<?xf32>):
        %t = kir.reduce %s axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%a: f32, %b: f32):
          %c = kir.binary max %a, %b : f32
          kir.yield %c : f32
        }
        kir.yield %t : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary max %a, %b : f32
        kir.yield %c : f32
      }
      %mb = kir.broadcast %m over(%cols) dims [] : f32 -> tensor<?xf32>
      %d = kir.binary sub %row, %mb : tensor<?xf32>
      %e = kir.unary exp %d : tensor<?xf32>
      kir.store %e, %y[%i, %cols] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
