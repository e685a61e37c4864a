// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: A window that slides inward at the ends (NATTEN's neighbourhood: keys [start, start + 7) with
// COM: start = min(max(t - 3, 0), TOTAL - 7)): the start is the lane's coordinate plus an offset, clamped
// COM: to program-uniform limits, so the lanes' ranges overlap in all but a block's width. Before: the
// COM: range was a member's own (one query per program, matrix-vector products over its 7 keys). After:
// COM: the queries are the lanes and the fold walks the union of their ranges in key tiles (tile
// COM: products), each lane masking the keys outside its own window (as lane-domain-folds.mlir).
// CHECK-LABEL: pgpu.kernel @window_clamped
// CHECK-SAME: params = [#pgpu.param<"BLOCK_TOTAL", [16, 32, 64, 128, 256], 64>, #pgpu.param<"BLOCK_A0"
// CHECK: %[[LANES:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_TOTAL]>
// CHECK: %[[UPPER:.*]] = pgpu.reduce %{{.*}} axes [0]
// CHECK: pgpu.binary max
// CHECK: %[[FIRST:.*]] = pgpu.reduce %{{.*}} axes [0]
// CHECK: pgpu.binary min
// CHECK: %[[LOWER:.*]] = pgpu.binary min %[[FIRST]], %[[UPPER]] : index
// CHECK: %[[TILE:.*]] = pgpu.param "BLOCK_A0" : index
// CHECK: pgpu.region_fold %[[LOWER]] to %[[UPPER]] step %[[TILE]]
// CHECK: pgpu.contract %{{.*}} : !pgpu.fragment<bf16, [BLOCK_TOTAL, BLOCK_D]>, !pgpu.fragment<bf16, [BLOCK_D, BLOCK_A0]>, !pgpu.fragment<f32, [BLOCK_TOTAL, BLOCK_A0]>
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @window_clamped(%q: !kir.view<bf16, [TOTAL, H, D], in>, %k: !kir.view<bf16, [TOTAL, H, D], in>, %o: !kir.view<f32, [TOTAL, H], out>) {
    %0 = kir.extent "TOTAL"
    %1 = kir.extent "H"
    %2 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %0
    %4 = kir.domain %c0 to %2
    %5 = kir.domain %c0 to %1
    %c1 = arith.constant 1 : index
    %cst = arith.constant 0xFF800000 : f32
    kir.parallel %3, %5 {
    ^bb0(%arg0: index, %arg1: index):
      %c3 = arith.constant 3 : index
      %c7 = arith.constant 7 : index
      %w0 = kir.binary sub %arg0, %c3 : index
      %w1 = kir.binary max %w0, %c0 : index
      %w2 = kir.binary sub %0, %c7 : index
      %7 = kir.binary min %w1, %w2 : index
      %8 = kir.binary add %7, %c7 : index
      %9 = kir.subregion %3[%7 : %8]
      %10 = kir.indices %9 : tensor<?xindex>
      %11 = kir.load %k[%9, %arg1, %4] : !kir.view<bf16, [TOTAL, H, D], in>[!kir.domain, index, !kir.domain] -> tensor<?x?xbf16>
      %12 = kir.load %q[%arg0, %arg1, %4] : !kir.view<bf16, [TOTAL, H, D], in>[index, index, !kir.domain] -> tensor<?xbf16>
      %13 = kir.region_fold sources(%11, %10 : tensor<?x?xbf16>, tensor<?xindex>) axis 0 identity(%cst : f32) operands(%12 : tensor<?xbf16>) -> (f32) summarize {
      ^bb0(%arg2: tensor<?x?xbf16>, %arg3: tensor<?xindex>, %arg4: tensor<?xbf16>):
        %14 = kir.contract %arg2, %arg4 reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?xbf16> -> tensor<?xf32>
        %cst_0 = arith.constant 0xFF800000 : f32
        %15 = kir.reduce %14 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg5: f32, %arg6: f32):
          %16 = kir.binary max %arg5, %arg6 : f32
          kir.yield %16 : f32
        }
        kir.yield %15 : f32
      } combine {
      ^bb0(%arg2: f32, %arg3: f32):
        %14 = kir.binary max %arg2, %arg3 : f32
        kir.yield %14 : f32
      }
      kir.store %13, %o[%arg0, %arg1] : f32, !kir.view<f32, [TOTAL, H], out>[index, index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the start clamped by a value loaded per lane (min(t, starts[t])) and the end too:
// COM: neither bound is the lane's coordinate plus a uniform offset, clamped to uniform limits, so the
// COM: lanes' ranges may be disjoint; each program folds one member's own range, as before.
// CHECK-LABEL: pgpu.kernel @window_data_clamped
// CHECK-NOT: BLOCK_TOTAL
// CHECK: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @window_data_clamped(%q: !kir.view<bf16, [TOTAL, H, D], in>, %k: !kir.view<bf16, [TOTAL, H, D], in>, %starts: !kir.view<i32, [TOTAL], in>, %o: !kir.view<f32, [TOTAL, H], out>) {
    %0 = kir.extent "TOTAL"
    %1 = kir.extent "H"
    %2 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %0
    %4 = kir.domain %c0 to %2
    %5 = kir.domain %c0 to %1
    %c1 = arith.constant 1 : index
    %cst = arith.constant 0xFF800000 : f32
    kir.parallel %3, %5 {
    ^bb0(%arg0: index, %arg1: index):
      %6 = kir.load %starts[%arg0] : !kir.view<i32, [TOTAL], in>[index] -> i32
      %s = kir.cast %6 : i32 to index
      %7 = kir.binary min %arg0, %s : index
      %t1 = kir.binary add %arg0, %c1 : index
      %8 = kir.binary max %t1, %s : index
      %9 = kir.subregion %3[%7 : %8]
      %10 = kir.indices %9 : tensor<?xindex>
      %11 = kir.load %k[%9, %arg1, %4] : !kir.view<bf16, [TOTAL, H, D], in>[!kir.domain, index, !kir.domain] -> tensor<?x?xbf16>
      %12 = kir.load %q[%arg0, %arg1, %4] : !kir.view<bf16, [TOTAL, H, D], in>[index, index, !kir.domain] -> tensor<?xbf16>
      %13 = kir.region_fold sources(%11, %10 : tensor<?x?xbf16>, tensor<?xindex>) axis 0 identity(%cst : f32) operands(%12 : tensor<?xbf16>) -> (f32) summarize {
      ^bb0(%arg2: tensor<?x?xbf16>, %arg3: tensor<?xindex>, %arg4: tensor<?xbf16>):
        %14 = kir.contract %arg2, %arg4 reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?xbf16> -> tensor<?xf32>
        %cst_0 = arith.constant 0xFF800000 : f32
        %15 = kir.reduce %14 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg5: f32, %arg6: f32):
          %16 = kir.binary max %arg5, %arg6 : f32
          kir.yield %16 : f32
        }
        kir.yield %15 : f32
      } combine {
      ^bb0(%arg2: f32, %arg3: f32):
        %14 = kir.binary max %arg2, %arg3 : f32
        kir.yield %14 : f32
      }
      kir.store %13, %o[%arg0, %arg1] : f32, !kir.view<f32, [TOTAL, H], out>[index, index]
      kir.yield
    }
    kir.return
  }
}
