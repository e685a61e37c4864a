// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: A region fold over a domain whose bounds vary across the lanes: token t of a packed batch folds
// COM: its keys toks[start(t) : t + 1] (start loaded per token; varlen causal attention's own sequence).
// COM: Before: the innermost axis (the heads) made a batched contraction (each head its own key rows)
// COM: and the tokens' range a member's own, so each program owned one (token, head) and walked its
// COM: keys with matrix-vector products. After: the tokens are the lanes (the heads share nothing, the
// COM: tokens share key tiles), each lane's range [max(start, 0), min(t + 1, TOTAL)) is computed
// COM: before the fold, the fold walks the union of the valid lanes' non-empty ranges (pgpu.reduce
// COM: max of the ends, min of the starts) and each lane masks the members outside its own range in
// COM: the [BLOCK_TOTAL, BLOCK_A0] tile its contraction makes (a tile product, seed 002 §3.4).
// CHECK-LABEL: pgpu.kernel @causal_from
// CHECK-SAME: params = [#pgpu.param<"BLOCK_TOTAL", [16, 32, 64, 128, 256], 64>, #pgpu.param<"BLOCK_A0", [16, 32, 64, 128, 256], 64>
// CHECK: %[[LANES:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_TOTAL]>
// CHECK: %[[LANEOK:.*]] = pgpu.cmp lt %[[LANES]], %{{.*}} : !pgpu.fragment<index, [BLOCK_TOTAL]>
// CHECK: pgpu.load %starts[%[[LANES]]] valid %[[LANEOK]]
// CHECK: %[[LO:.*]] = pgpu.binary max %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK_TOTAL]>
// CHECK: %[[HI:.*]] = pgpu.binary min %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK_TOTAL]>
// CHECK: %[[SOME:.*]] = pgpu.cmp lt %[[LO]], %[[HI]] : !pgpu.fragment<index, [BLOCK_TOTAL]>
// CHECK: %[[COUNTED:.*]] = pgpu.binary and %[[LANEOK]], %[[SOME]]
// CHECK: %[[UPPER:.*]] = pgpu.reduce %{{.*}} axes [0]
// CHECK: pgpu.binary max
// CHECK: %[[FIRST:.*]] = pgpu.reduce %{{.*}} axes [0]
// CHECK: pgpu.binary min
// CHECK: %[[LOWER:.*]] = pgpu.binary min %[[FIRST]], %[[UPPER]] : index
// CHECK: %[[TILE:.*]] = pgpu.param "BLOCK_A0" : index
// CHECK: pgpu.region_fold %[[LOWER]] to %[[UPPER]] step %[[TILE]]
// CHECK-NEXT: ^bb0(%[[B:[^:]*]]: index, %{{[^:]*}}: index, %[[LOS:[^:]*]]: !pgpu.fragment<index, [BLOCK_TOTAL]>, %[[HIS:[^:]*]]: !pgpu.fragment<index, [BLOCK_TOTAL]>
// CHECK: %[[POS:.*]] = pgpu.iota %[[B]] : !pgpu.fragment<index, [BLOCK_A0]>
// CHECK: %[[POS2:.*]] = pgpu.broadcast %[[POS]] dims [1] : !pgpu.fragment<index, [BLOCK_A0]> -> !pgpu.fragment<index, [BLOCK_TOTAL, BLOCK_A0]>
// CHECK: %[[GE:.*]] = pgpu.cmp ge %[[POS2]], %{{.*}} : !pgpu.fragment<index, [BLOCK_TOTAL, BLOCK_A0]>
// CHECK: %[[LT:.*]] = pgpu.cmp lt %[[POS2]], %{{.*}} : !pgpu.fragment<index, [BLOCK_TOTAL, BLOCK_A0]>
// CHECK: %[[MINE:.*]] = pgpu.binary and %[[GE]], %[[LT]] : !pgpu.fragment<i1, [BLOCK_TOTAL, BLOCK_A0]>
// CHECK: %[[S:.*]] = pgpu.contract %{{.*}} : !pgpu.fragment<bf16, [BLOCK_TOTAL, BLOCK_D]>, !pgpu.fragment<bf16, [BLOCK_D, BLOCK_A0]>, !pgpu.fragment<f32, [BLOCK_TOTAL, BLOCK_A0]>
// CHECK: %[[M:.*]] = pgpu.select %[[MINE]], %[[S]], %{{.*}} : !pgpu.fragment<i1, [BLOCK_TOTAL, BLOCK_A0]>
// CHECK: pgpu.reduce %[[M]] axes [1]
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @causal_from(%q: !kir.view<bf16, [TOTAL, H, D], in>, %k: !kir.view<bf16, [TOTAL, H, D], in>, %starts: !kir.view<i32, [TOTAL], in>, %o: !kir.view<f32, [TOTAL, H], out>) {
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
      %7 = kir.cast %6 : i32 to index
      %8 = kir.binary add %arg0, %c1 : index
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

// COM: Must not fire: both bounds of the lanes' domain are data (sequence b's tokens cu[b] : cu[b + 1],
// COM: single-query decode): the lanes' ranges may be disjoint and their union BLOCK times a lane's
// COM: work, so no lane axis is made of b either; each program owns one (b, h) and folds its own range
// COM: from 0 to its size, as before.
// CHECK-LABEL: pgpu.kernel @seq_per_lane
// CHECK-SAME: params = [#pgpu.param<"BLOCK_A0", [16, 32, 64, 128, 256], 64>, #pgpu.param<"BLOCK_D"
// CHECK-NOT: BLOCK_B
// CHECK: %[[TILE:.*]] = pgpu.param "BLOCK_A0" : index
// CHECK-NEXT: pgpu.region_fold %c0{{[_0-9]*}} to %{{.*}} step %[[TILE]] identity(%{{.*}} : f32)
// CHECK-NOT: BLOCK_B
// CHECK: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @seq_per_lane(%q: !kir.view<bf16, [B, H, D], in>, %k: !kir.view<bf16, [TT, H, D], in>, %cu: !kir.view<i32, [B1], in>, %o: !kir.view<f32, [B, H], out>) {
    %0 = kir.extent "B"
    %1 = kir.extent "H"
    %2 = kir.extent "D"
    %3 = kir.extent "TT"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %3
    %5 = kir.domain %c0 to %2
    %6 = kir.domain %c0 to %0
    %7 = kir.domain %c0 to %1
    %c1 = arith.constant 1 : index
    %cst = arith.constant 0xFF800000 : f32
    kir.parallel %6, %7 {
    ^bb0(%arg0: index, %arg1: index):
      %8 = kir.load %cu[%arg0] : !kir.view<i32, [B1], in>[index] -> i32
      %9 = kir.binary add %arg0, %c1 : index
      %10 = kir.load %cu[%9] : !kir.view<i32, [B1], in>[index] -> i32
      %11 = kir.cast %8 : i32 to index
      %12 = kir.cast %10 : i32 to index
      %13 = kir.subregion %4[%11 : %12]
      %14 = kir.indices %13 : tensor<?xindex>
      %15 = kir.load %k[%13, %arg1, %5] : !kir.view<bf16, [TT, H, D], in>[!kir.domain, index, !kir.domain] -> tensor<?x?xbf16>
      %16 = kir.load %q[%arg0, %arg1, %5] : !kir.view<bf16, [B, H, D], in>[index, index, !kir.domain] -> tensor<?xbf16>
      %17 = kir.region_fold sources(%15, %14 : tensor<?x?xbf16>, tensor<?xindex>) axis 0 identity(%cst : f32) operands(%16 : tensor<?xbf16>) -> (f32) summarize {
      ^bb0(%arg2: tensor<?x?xbf16>, %arg3: tensor<?xindex>, %arg4: tensor<?xbf16>):
        %18 = kir.contract %arg2, %arg4 reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?xbf16> -> tensor<?xf32>
        %cst_0 = arith.constant 0xFF800000 : f32
        %19 = kir.reduce %18 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%arg5: f32, %arg6: f32):
          %20 = kir.binary max %arg5, %arg6 : f32
          kir.yield %20 : f32
        }
        kir.yield %19 : f32
      } combine {
      ^bb0(%arg2: f32, %arg3: f32):
        %18 = kir.binary max %arg2, %arg3 : f32
        kir.yield %18 : f32
      }
      kir.store %17, %o[%arg0, %arg1] : f32, !kir.view<f32, [B, H], out>[index, index]
      kir.yield
    }
    kir.return
  }
}

