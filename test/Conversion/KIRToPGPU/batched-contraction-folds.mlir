// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: Single-query (decode) attention's score fold with grouped-query heads: member (b, h) reads the
// COM: key rows of its key/value head k[b, h // G] and its own query q[b, h], so both operands of the
// COM: contraction vary across the innermost parallel axis. Before: the workset was constructed element
// COM: by element ("both operands vary across the lanes"), every score recomputed per output element.
// COM: After: the lanes are gathered by group (seed 000 §6: h // G is a coordinate fact): lane block
// COM: `block` is chunk block % ceil(G / BLOCK_HQ) of group q = block / ceil(G / BLOCK_HQ), its lanes
// COM: [q*G + chunk*BLOCK_HQ, min(HQ, q*G + G)), so h // G is the program's scalar q; the group's key
// COM: tile is loaded once per step at k[b, q] and scored against the [BLOCK_HQ, BLOCK_D] query tile by
// COM: one pgpu.contract (seed 002 §3.4 region-fold realization). G < 1 takes the element-wise fallback.
// CHECK-LABEL: pgpu.kernel @gqa_decode_max
// CHECK-SAME: params = [#pgpu.param<"BLOCK_HQ", [16, 32, 64, 128, 256], 16>, #pgpu.param<"BLOCK_T", [16, 32, 64, 128, 256], 64>
// CHECK: %[[G:.*]] = pgpu.binary div %{{.*}}, %{{.*}} : index
// CHECK: %[[GS:.*]] = pgpu.binary max %[[G]], %{{.*}} : index
// CHECK: %[[NG:.*]] = pgpu.ceil_div %{{.*}}, %[[GS]] : index
// CHECK: %[[NC:.*]] = pgpu.ceil_div %[[GS]], %{{.*}} : index
// CHECK: %[[NL:.*]] = pgpu.binary mul %[[NG]], %[[NC]] : index
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %[[NL]]) segment 0 roles ["axis0", "axis1"] {
// CHECK: %[[CH:.*]] = pgpu.ceil_div %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[Q:.*]] = pgpu.binary div %[[BLK:.*]], %[[CH]] : index
// CHECK-NEXT: %[[C:.*]] = pgpu.binary rem %[[BLK]], %[[CH]] : index
// CHECK-NEXT: %[[QB:.*]] = pgpu.binary mul %[[Q]], %[[GG:.*]] : index
// CHECK: %[[BASE:.*]] = pgpu.binary add %[[QB]], %{{.*}} : index
// CHECK-NEXT: %[[END:.*]] = pgpu.binary add %[[QB]], %[[GG]] : index
// CHECK-NEXT: %[[LIM:.*]] = pgpu.binary min %{{.*}}, %[[END]] : index
// CHECK-NEXT: %[[POS:.*]] = pgpu.iota %[[BASE]] : !pgpu.fragment<index, [BLOCK_HQ]>
// CHECK: pgpu.cmp ge %[[G]], %{{.*}} : index
// CHECK: pgpu.load %q[%{{.*}}, %{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f32, [BLOCK_HQ, BLOCK_D]>
// CHECK: pgpu.region_fold {{.*}} operands({{.*}}%[[Q]]
// CHECK: pgpu.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_T, BLOCK_D]> {{.*}} -> !pgpu.fragment<f32, [BLOCK_T, BLOCK_D]>
// CHECK: pgpu.contract {{.*}} : !pgpu.fragment<f32, [BLOCK_HQ, BLOCK_D]>, !pgpu.fragment<f32, [BLOCK_D, BLOCK_T]>, !pgpu.fragment<f32, [BLOCK_HQ, BLOCK_T]> -> !pgpu.fragment<f32, [BLOCK_HQ, BLOCK_T]>
// CHECK: } combine {
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @gqa_decode_max(%q: !kir.view<f32, [B, HQ, D], in>, %k: !kir.view<f32, [B, HKV, T, D], in>,
                         %y: !kir.view<f32, [B, HQ], out>) {
    %c0 = arith.constant 0 : index
    %ninf = arith.constant 0xFF800000 : f32
    %nb = kir.extent "B"
    %nh = kir.extent "HQ"
    %nd = kir.extent "D"
    %nkv = kir.extent "HKV"
    %nt = kir.extent "T"
    %dt = kir.domain %c0 to %nt
    %dd = kir.domain %c0 to %nd
    %db = kir.domain %c0 to %nb
    %dh = kir.domain %c0 to %nh
    %grp = kir.binary div %nh, %nkv : index
    // expected-remark @+1 {{kir-to-pgpu: where a contraction's paired axis is longer than its block, each contraction over it is a loop over blocks of it}}
    kir.parallel %db, %dh {
    ^bb0(%b: index, %h: index):
      %kh = kir.binary div %h, %grp : index
      %kt = kir.load %k[%b, %kh, %dt, %dd] : !kir.view<f32, [B, HKV, T, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %qv = kir.load %q[%b, %h, %dd] : !kir.view<f32, [B, HQ, D], in>[index, index, !kir.domain] -> tensor<?xf32>
      // expected-remark @+1 {{kir-to-pgpu: region fold constructed on fragments: BLOCK_HQ lanes of one group (the lanes' `// G` quotient, a scalar of the program: their keys are one tile), BLOCK_T-wide source tiles}}
      %m = kir.region_fold sources(%kt : tensor<?x?xf32>) axis 0 identity(%ninf : f32) operands(%qv : tensor<?xf32>) -> (f32) summarize {
      ^bb0(%sl: tensor<?x?xf32>, %qc: tensor<?xf32>):
        %s = kir.contract %sl, %qc reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
        %ni = arith.constant 0xFF800000 : f32
        %r = kir.reduce %s axes [0] identity(%ni : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%p: f32, %o: f32):
          %x = kir.binary max %p, %o : f32
          kir.yield %x : f32
        }
        kir.yield %r : f32
      } combine {
      ^bb0(%a1: f32, %a2: f32):
        %x = kir.binary max %a1, %a2 : f32
        kir.yield %x : f32
      }
      kir.store %m, %y[%b, %h] : f32, !kir.view<f32, [B, HQ], out>[index, index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Heads interleaved over the key/value heads (h % HKV): each lane reads its own keys and no
// COM: quotient groups them. Before: element by element. After: one member per program (no lane
// COM: parameter), the fold still over BLOCK_T-wide key tiles whose summarizer loads one
// COM: [BLOCK_T, BLOCK_D] key tile and scores it against the query vector by a broadcast multiply and
// COM: a sum over D.
// CHECK-LABEL: pgpu.kernel @interleaved_decode_max
// CHECK-SAME: params = [#pgpu.param<"BLOCK_T", [16, 32, 64, 128, 256], 64>, #pgpu.param<"BLOCK_D", [16, 32, 64, 128, 256], 128, covers = "D">, #pgpu.param<"TILE_D", [16, 32, 64, 128], 64>]
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0 roles ["axis0", "axis1"] {
// CHECK: %[[QV:.*]] = pgpu.load %q[%{{.*}}, %{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f32, [BLOCK_D]>
// CHECK: %[[STEP:.*]] = pgpu.param "BLOCK_T" : index
// CHECK: pgpu.region_fold %{{.*}} to %{{.*}} step %[[STEP]] identity(%{{.*}} : f32)
// CHECK: %[[KH:.*]] = pgpu.binary rem %{{.*}}, %{{.*}} : index
// CHECK: %[[KT:.*]] = pgpu.load %{{.*}}[%{{.*}}, %[[KH]], %{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_T, BLOCK_D]> {{.*}} -> !pgpu.fragment<f32, [BLOCK_T, BLOCK_D]>
// CHECK: %[[QB:.*]] = pgpu.broadcast %{{.*}} dims [1] : !pgpu.fragment<f32, [BLOCK_D]> -> !pgpu.fragment<f32, [BLOCK_T, BLOCK_D]>
// CHECK: %[[PR:.*]] = pgpu.binary mul %[[KT]], %[[QB]] : !pgpu.fragment<f32, [BLOCK_T, BLOCK_D]>
// CHECK: pgpu.reduce %[[PR]] axes [1]
// CHECK: pgpu.reduce %{{.*}} axes [0]
// CHECK: } combine {
// CHECK: pgpu.store %{{.*}}, %y[%{{.*}}, %{{.*}}]
// CHECK-NOT: BLOCK_HQ
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @interleaved_decode_max(%q: !kir.view<f32, [B, HQ, D], in>, %k: !kir.view<f32, [B, HKV, T, D], in>,
                         %y: !kir.view<f32, [B, HQ], out>) {
    %c0 = arith.constant 0 : index
    %ninf = arith.constant 0xFF800000 : f32
    %nb = kir.extent "B"
    %nh = kir.extent "HQ"
    %nd = kir.extent "D"
    %nkv = kir.extent "HKV"
    %nt = kir.extent "T"
    %dt = kir.domain %c0 to %nt
    %dd = kir.domain %c0 to %nd
    %db = kir.domain %c0 to %nb
    %dh = kir.domain %c0 to %nh
    %grp = kir.binary div %nh, %nkv : index
    // expected-remark @+1 {{kir-to-pgpu: where a contraction's paired axis is longer than its block, each contraction over it is a loop over blocks of it}}
    kir.parallel %db, %dh {
    ^bb0(%b: index, %h: index):
      %kh = kir.binary rem %h, %nkv : index
      %kt = kir.load %k[%b, %kh, %dt, %dd] : !kir.view<f32, [B, HKV, T, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %qv = kir.load %q[%b, %h, %dd] : !kir.view<f32, [B, HQ, D], in>[index, index, !kir.domain] -> tensor<?xf32>
      // expected-remark @+1 {{kir-to-pgpu: region fold constructed on fragments: one member per program (a contraction's operands both vary across the members: no tile product to share), BLOCK_T-wide source tiles}}
      %m = kir.region_fold sources(%kt : tensor<?x?xf32>) axis 0 identity(%ninf : f32) operands(%qv : tensor<?xf32>) -> (f32) summarize {
      ^bb0(%sl: tensor<?x?xf32>, %qc: tensor<?xf32>):
        %s = kir.contract %sl, %qc reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
        %ni = arith.constant 0xFF800000 : f32
        %r = kir.reduce %s axes [0] identity(%ni : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%p: f32, %o: f32):
          %x = kir.binary max %p, %o : f32
          kir.yield %x : f32
        }
        kir.yield %r : f32
      } combine {
      ^bb0(%a1: f32, %a2: f32):
        %x = kir.binary max %a1, %a2 : f32
        kir.yield %x : f32
      }
      kir.store %m, %y[%b, %h] : f32, !kir.view<f32, [B, HQ], out>[index, index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the keys are the sequence's, shared by every head (multi-query), so only the
// COM: query varies across the lanes: plain lanes stay (BLOCK_HQ heads per program, default 64, one key
// COM: tile per step shared by all of them in a tile product), as for prefill attention's query rows.
// CHECK-LABEL: pgpu.kernel @shared_keys
// CHECK-SAME: #pgpu.param<"BLOCK_HQ", [16, 32, 64, 128, 256], 64>
// CHECK-NOT: pgpu.binary rem
// CHECK: pgpu.region_fold
// CHECK: pgpu.contract
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @shared_keys(%q: !kir.view<f32, [B, HQ, D], in>, %k: !kir.view<f32, [B, T, D], in>,
                         %y: !kir.view<f32, [B, HQ], out>) {
    %c0 = arith.constant 0 : index
    %ninf = arith.constant 0xFF800000 : f32
    %nb = kir.extent "B"
    %nh = kir.extent "HQ"
    %nd = kir.extent "D"
    %nt = kir.extent "T"
    %dt = kir.domain %c0 to %nt
    %dd = kir.domain %c0 to %nd
    %db = kir.domain %c0 to %nb
    %dh = kir.domain %c0 to %nh
    // expected-remark @+1 {{kir-to-pgpu: where a contraction's paired axis is longer than its block, each contraction over it is a loop over blocks of it}}
    kir.parallel %db, %dh {
    ^bb0(%b: index, %h: index):
      %kt = kir.load %k[%b, %dt, %dd] : !kir.view<f32, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %qv = kir.load %q[%b, %h, %dd] : !kir.view<f32, [B, HQ, D], in>[index, index, !kir.domain] -> tensor<?xf32>
      // expected-remark @+1 {{kir-to-pgpu: region fold constructed on fragments: BLOCK_HQ lanes, BLOCK_T-wide source tiles}}
      %m = kir.region_fold sources(%kt : tensor<?x?xf32>) axis 0 identity(%ninf : f32) operands(%qv : tensor<?xf32>) -> (f32) summarize {
      ^bb0(%sl: tensor<?x?xf32>, %qc: tensor<?xf32>):
        %s = kir.contract %sl, %qc reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
        %ni = arith.constant 0xFF800000 : f32
        %r = kir.reduce %s axes [0] identity(%ni : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%p: f32, %o: f32):
          %x = kir.binary max %p, %o : f32
          kir.yield %x : f32
        }
        kir.yield %r : f32
      } combine {
      ^bb0(%a1: f32, %a2: f32):
        %x = kir.binary max %a1, %a2 : f32
        kir.yield %x : f32
      }
      kir.store %m, %y[%b, %h] : f32, !kir.view<f32, [B, HQ], out>[index, index]
      kir.yield
    }
    kir.return
  }
}
