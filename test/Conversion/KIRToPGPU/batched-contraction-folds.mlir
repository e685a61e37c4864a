// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: Single-query (decode) attention's score fold: each member (b, h) reads its own key rows
// COM: k[b, h // G] and its own query q[b, h], so the contraction's operands both vary across the
// COM: innermost parallel axis and no key tile is shared by a block of lanes. Before: the workset was
// COM: constructed element by element ("both operands vary across the lanes"), every score recomputed per
// COM: output element. After: one member per program (no lane parameter), the fold a pgpu.region_fold
// COM: over BLOCK_T-wide tiles of the key axis whose summarizer loads one [BLOCK_T, BLOCK_D] key tile
// COM: (the kv head h // G a scalar of the program) and scores it against the query vector by a
// COM: broadcast multiply and a sum over D (seed 002 §3.4 region-fold realization).
// CHECK-LABEL: pgpu.kernel @decode_max
// CHECK-SAME: params = [#pgpu.param<"BLOCK_T", [16, 32, 64, 128, 256], 64>, #pgpu.param<"BLOCK_D", [16, 32, 64, 128, 256], 128, covers = "D">]
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0 roles ["axis0", "axis1"] {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[H:.*]]: index):
// CHECK: %[[QV:.*]] = pgpu.load %q[%{{.*}}, %{{.*}}, %{{.*}}] {{.*}} -> !pgpu.fragment<f32, [BLOCK_D]>
// CHECK: %[[STEP:.*]] = pgpu.param "BLOCK_T" : index
// CHECK: pgpu.region_fold %{{.*}} to %{{.*}} step %[[STEP]] identity(%{{.*}} : f32)
// CHECK: %[[KH:.*]] = pgpu.binary div %{{.*}}, %{{.*}} : index
// CHECK: %[[KT:.*]] = pgpu.load %{{.*}}[%{{.*}}, %[[KH]], %{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_T, BLOCK_D]> {{.*}} -> !pgpu.fragment<f32, [BLOCK_T, BLOCK_D]>
// CHECK: %[[QB:.*]] = pgpu.broadcast %{{.*}} dims [1] : !pgpu.fragment<f32, [BLOCK_D]> -> !pgpu.fragment<f32, [BLOCK_T, BLOCK_D]>
// CHECK: %[[PR:.*]] = pgpu.binary mul %[[KT]], %[[QB]] : !pgpu.fragment<f32, [BLOCK_T, BLOCK_D]>
// CHECK: pgpu.reduce %[[PR]] axes [1]
// CHECK: pgpu.reduce %{{.*}} axes [0]
// CHECK: } combine {
// CHECK: pgpu.store %{{.*}}, %y[%{{.*}}, %{{.*}}]
// CHECK-NOT: BLOCK_HQ

module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @decode_max(%q: !kir.view<f32, [B, HQ, D], in>, %k: !kir.view<f32, [B, HKV, T, D], in>,
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
    kir.parallel %db, %dh {
    ^bb0(%b: index, %h: index):
      %kh = kir.binary div %h, %grp : index
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
// COM: query varies across the lanes: the lanes stay (BLOCK_HQ heads per program, one key tile per
// COM: step shared by all of them in a tile product), as for prefill attention's query rows.
// CHECK-LABEL: pgpu.kernel @shared_keys
// CHECK-SAME: #pgpu.param<"BLOCK_HQ"
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
