// RUN: tessel-opt %s -split-input-file -kir-online-folds -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: The corpus spelling of causal attention: a row maximum, exp(s - max), its sum and its
// COM: vecmat with V become one region fold over the keys (seed 002 §1, §3.4); the loads of K and V
// COM: stay where they were, as the fold's sources, with the key positions. The summary is
// COM: (ok, m, l, acc): ok = any(mask) of the slice, m its maximum (0 when empty), the masked
// COM: exponential where(c, exp(s - m), 0) (exact: exp(-inf - m) = 0).
// CHECK-LABEL: kir.kernel @fires
// CHECK: %[[POS:.*]] = kir.indices
// CHECK: kir.parallel
// CHECK: %[[K:.*]] = kir.load %k
// CHECK: %[[Q:.*]] = kir.load %q
// CHECK: %[[V:.*]] = kir.load %v
// CHECK: %[[NO:.*]] = arith.constant false
// CHECK: %[[ZROW:.*]] = kir.broadcast %{{.*}} over(%{{.*}}) dims [] : f32 -> tensor<?xf32>
// CHECK: %[[F:.*]]:4 = kir.region_fold sources(%[[K]], %[[V]], %[[POS]] : tensor<?x?xf16>, tensor<?x?xf16>, tensor<?xindex>) axis 0
// CHECK-SAME: identity(%[[NO]], %{{.*}}, %{{.*}}, %[[ZROW]] : i1, f32, f32, tensor<?xf32>) operands(%[[Q]], %{{.*}} : tensor<?xf16>, index) -> (i1, f32, f32, tensor<?xf32>) summarize {
// CHECK: ^bb0(%[[KS:.*]]: tensor<?x?xf16>, %[[VS:.*]]: tensor<?x?xf16>, %[[PS:.*]]: tensor<?xindex>, %[[QA:.*]]: tensor<?xf16>, %[[I:.*]]: index):
// CHECK: %[[S:.*]] = kir.contract %[[KS]], %[[QA]] reduce([1], [0])
// CHECK: %[[IB:.*]] = kir.broadcast_as %[[I]] to %[[PS]] dims []
// CHECK: %[[VIS:.*]] = kir.cmp le %[[PS]], %[[IB]]
// CHECK: %[[NINF:.*]] = kir.broadcast_as %{{.*}} to %[[S]] dims []
// CHECK: %[[SM:.*]] = kir.select %[[VIS]], %[[S]], %[[NINF]]
// CHECK: %[[TOP:.*]] = kir.reduce %[[SM]] axes [0]
// CHECK: kir.binary max
// CHECK: %[[OK:.*]] = kir.reduce %[[VIS]] axes [0]
// CHECK: kir.binary or
// CHECK: %[[M:.*]] = kir.select %[[OK]], %[[TOP]], %{{.*}} : i1, f32
// CHECK: %[[MB:.*]] = kir.broadcast_as %[[M]] to %[[SM]]
// CHECK: %[[D:.*]] = kir.binary sub %[[S]], %[[MB]]
// CHECK: %[[E:.*]] = kir.unary exp %[[D]]
// CHECK: %[[P:.*]] = kir.select %[[VIS]], %[[E]], %{{.*}}
// CHECK: %[[PH:.*]] = kir.cast %[[P]] : tensor<?xf32> to tensor<?xf16>
// CHECK: %[[ACC:.*]] = kir.contract %[[PH]], %[[VS]] reduce([0], [0])
// CHECK: %[[L:.*]] = kir.reduce %[[P]] axes [0]
// CHECK: kir.binary add
// CHECK: kir.yield %[[OK]], %[[M]], %[[L]], %[[ACC]] : i1, f32, f32, tensor<?xf32>
// CHECK: } combine {
// CHECK: ^bb0(%[[OK1:.*]]: i1, %[[M1:.*]]: f32, %[[L1:.*]]: f32, %[[A1:.*]]: tensor<?xf32>, %[[OK2:.*]]: i1, %[[M2:.*]]: f32, %[[L2:.*]]: f32, %[[A2:.*]]: tensor<?xf32>):
// CHECK: %[[BOTH:.*]] = kir.binary max %[[M1]], %[[M2]] : f32
// CHECK: %[[T:.*]] = kir.select %[[OK1]], %[[BOTH]], %[[M2]]
// CHECK: %[[MX:.*]] = kir.select %[[OK2]], %[[T]], %[[M1]]
// CHECK: %[[D1:.*]] = kir.binary sub %[[M1]], %[[MX]]
// CHECK: %[[E1:.*]] = kir.unary exp %[[D1]]
// CHECK: %[[W1:.*]] = kir.select %[[OK1]], %[[E1]], %{{.*}}
// CHECK: %[[W2:.*]] = kir.select %[[OK2]]
// CHECK: %[[ANY:.*]] = kir.binary or %[[OK1]], %[[OK2]]
// CHECK-DAG: kir.binary mul %[[L2]], %[[W2]]
// CHECK-DAG: kir.binary mul %[[L1]], %[[W1]]
// CHECK: kir.yield %[[ANY]], %[[MX]], %{{.*}}, %{{.*}} : i1, f32, f32, tensor<?xf32>
// CHECK: %[[LB:.*]] = kir.broadcast %[[F]]#2 over
// CHECK: kir.binary div %[[F]]#3, %[[LB]]
// CHECK-NOT: kir.unary exp
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @fires(%q: !kir.view<f16, [S, D], in>, %k: !kir.view<f16, [S, D], in>, %v: !kir.view<f16, [S, D], in>, %o: !kir.view<f16, [S, D], out>) {
    %0 = kir.extent "S"
    %1 = kir.extent "D"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %5 = kir.indices %3 : tensor<?xindex>
    %12 = arith.constant 0xFF800000 : f32
    %13 = kir.broadcast %12 over(%3) dims [] : f32 -> tensor<?xf32>
    %25 = arith.constant 0.0 : f32
    // expected-remark @below {{kir-online-folds: a maximum and 2 reduction(s) over one axis became one region fold}}
    kir.parallel %3 {
    ^bb0(%6: index):
      %7 = kir.load %k[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %8 = kir.load %q[%6, %4] : !kir.view<f16, [S, D], in>[index, !kir.domain] -> tensor<?xf16>
      %9 = kir.contract %7, %8 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %10 = kir.broadcast %6 over(%3) dims [] : index -> tensor<?xindex>
      %11 = kir.cmp le %5, %10 : tensor<?xindex>
      %14 = kir.select %11, %9, %13 : tensor<?xi1>, tensor<?xf32>
      %18 = kir.reduce %14 axes [0] identity(%12 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%15: f32, %16: f32):
        %17 = kir.binary max %15, %16 : f32
        kir.yield %17 : f32
      }
      %19 = kir.broadcast %18 over(%3) dims [] : f32 -> tensor<?xf32>
      %20 = kir.binary sub %14, %19 : tensor<?xf32>
      %21 = kir.unary exp %20 : tensor<?xf32>
      %22 = kir.cast %21 : tensor<?xf32> to tensor<?xf16>
      %23 = kir.load %v[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %24 = kir.contract %22, %23 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
      %29 = kir.reduce %21 axes [0] identity(%25 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%26: f32, %27: f32):
        %28 = kir.binary add %26, %27 : f32
        kir.yield %28 : f32
      }
      %30 = kir.broadcast %29 over(%4) dims [] : f32 -> tensor<?xf32>
      %31 = kir.binary div %24, %30 : tensor<?xf32>
      %32 = kir.cast %31 : tensor<?xf32> to tensor<?xf16>
      kir.store %32, %o[%6, %4] : tensor<?xf16>, !kir.view<f16, [S, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: numerics = source (the default): the online form's rounding is not permitted, but the
// COM: scores are a matvec and P meets V in a vecmat, so the exact two-pass form is built as two
// COM: region folds over the same key tiles: pass 1 the maximum alone (identity -inf, combine max;
// COM: only K and the positions are its sources, q its capture); pass 2 captures the final m and
// COM: sums l and acc with plain additions (no rescaling). Its masked exponential is exact for a
// COM: finite m; where m = -inf on a nonempty row the source's terms are all NaN, and so are the
// COM: rescaled results (the fix-up after the fold).
// CHECK-LABEL: kir.kernel @two_pass_source
// CHECK: %[[POS:.*]] = kir.indices
// CHECK: kir.parallel
// CHECK: %[[K:.*]] = kir.load %k
// CHECK: %[[Q:.*]] = kir.load %q
// CHECK: %[[V:.*]] = kir.load %v
// CHECK: %[[M:.*]] = kir.region_fold sources(%[[K]], %[[POS]] : tensor<?x?xf16>, tensor<?xindex>) axis 0
// CHECK-SAME: identity(%{{.*}} : f32) operands(%[[Q]], %{{.*}} : tensor<?xf16>, index) -> (f32) summarize {
// CHECK: ^bb0(%[[KS:.*]]: tensor<?x?xf16>, %[[PS:.*]]: tensor<?xindex>, %[[QA:.*]]: tensor<?xf16>, %[[I:.*]]: index):
// CHECK: %[[S:.*]] = kir.contract %[[KS]], %[[QA]] reduce([1], [0])
// CHECK: %[[SM:.*]] = kir.select
// CHECK: %[[TOP:.*]] = kir.reduce %[[SM]] axes [0]
// CHECK: kir.binary max
// CHECK: kir.yield %[[TOP]] : f32
// CHECK: } combine {
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK: %[[MAB:.*]] = kir.binary max %[[A]], %[[B]] : f32
// CHECK: kir.yield %[[MAB]] : f32
// CHECK: %[[F:.*]]:2 = kir.region_fold sources(%[[K]], %[[V]], %[[POS]] : tensor<?x?xf16>, tensor<?x?xf16>, tensor<?xindex>) axis 0
// CHECK-SAME: operands(%[[Q]], %{{.*}}, %[[M]] : tensor<?xf16>, index, f32) -> (f32, tensor<?xf32>) summarize {
// CHECK: ^bb0(%[[KS2:.*]]: tensor<?x?xf16>, %[[VS:.*]]: tensor<?x?xf16>, %[[PS2:.*]]: tensor<?xindex>, %{{.*}}: tensor<?xf16>, %{{.*}}: index, %[[MA:.*]]: f32):
// CHECK-NOT: kir.binary max
// CHECK: %[[S2:.*]] = kir.contract %[[KS2]]
// CHECK: %[[VIS:.*]] = kir.cmp le %[[PS2]]
// CHECK: %[[MB:.*]] = kir.broadcast_as %[[MA]] to
// CHECK: %[[D:.*]] = kir.binary sub %[[S2]], %[[MB]]
// CHECK: %[[E:.*]] = kir.unary exp %[[D]]
// CHECK: %[[P:.*]] = kir.select %[[VIS]], %[[E]], %{{.*}}
// CHECK: %[[PH:.*]] = kir.cast %[[P]] : tensor<?xf32> to tensor<?xf16>
// CHECK: %[[ACC:.*]] = kir.contract %[[PH]], %[[VS]] reduce([0], [0])
// CHECK: %[[L:.*]] = kir.reduce %[[P]] axes [0]
// CHECK: kir.yield %[[L]], %[[ACC]] : f32, tensor<?xf32>
// CHECK: } combine {
// CHECK: ^bb0(%[[L1:.*]]: f32, %[[A1:.*]]: tensor<?xf32>, %[[L2:.*]]: f32, %[[A2:.*]]: tensor<?xf32>):
// CHECK-NOT: kir.unary exp
// CHECK: %[[LS:.*]] = kir.binary add %[[L1]], %[[L2]] : f32
// CHECK: %[[AS:.*]] = kir.binary add %[[A1]], %[[A2]] : tensor<?xf32>
// CHECK: kir.yield %[[LS]], %[[AS]]
// CHECK: %[[NE:.*]] = kir.cmp lt %{{.*}}, %{{.*}} : index
// CHECK: %[[NINFM:.*]] = kir.cmp eq %[[M]], %{{.*}} : f32
// CHECK: %[[NANROW:.*]] = kir.binary and %[[NINFM]], %[[NE]] : i1
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: %[[LF:.*]] = kir.select %[[NANROW]], %[[NAN]], %[[F]]#0 : i1, f32
// CHECK: %[[NANA:.*]] = kir.broadcast %{{.*}} over(%{{.*}}) dims [] : f32 -> tensor<?xf32>
// CHECK: %[[ACCF:.*]] = kir.select %[[NANROW]], %[[NANA]], %[[F]]#1 : i1, tensor<?xf32>
// CHECK: %[[LB:.*]] = kir.broadcast %[[LF]] over
// CHECK: kir.binary div %[[ACCF]], %[[LB]]
// CHECK-NOT: kir.unary exp
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @two_pass_source(%q: !kir.view<f16, [S, D], in>, %k: !kir.view<f16, [S, D], in>, %v: !kir.view<f16, [S, D], in>, %o: !kir.view<f16, [S, D], out>) {
    %0 = kir.extent "S"
    %1 = kir.extent "D"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %5 = kir.indices %3 : tensor<?xindex>
    %12 = arith.constant 0xFF800000 : f32
    %13 = kir.broadcast %12 over(%3) dims [] : f32 -> tensor<?xf32>
    %25 = arith.constant 0.0 : f32
    // expected-remark @below {{kir-online-folds: a maximum and 2 reduction(s) over one axis became two region folds (exact two-pass, source numerics}}
    kir.parallel %3 {
    ^bb0(%6: index):
      %7 = kir.load %k[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %8 = kir.load %q[%6, %4] : !kir.view<f16, [S, D], in>[index, !kir.domain] -> tensor<?xf16>
      %9 = kir.contract %7, %8 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %10 = kir.broadcast %6 over(%3) dims [] : index -> tensor<?xindex>
      %11 = kir.cmp le %5, %10 : tensor<?xindex>
      %14 = kir.select %11, %9, %13 : tensor<?xi1>, tensor<?xf32>
      %18 = kir.reduce %14 axes [0] identity(%12 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%15: f32, %16: f32):
        %17 = kir.binary max %15, %16 : f32
        kir.yield %17 : f32
      }
      %19 = kir.broadcast %18 over(%3) dims [] : f32 -> tensor<?xf32>
      %20 = kir.binary sub %14, %19 : tensor<?xf32>
      %21 = kir.unary exp %20 : tensor<?xf32>
      %22 = kir.cast %21 : tensor<?xf32> to tensor<?xf16>
      %23 = kir.load %v[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %24 = kir.contract %22, %23 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
      %29 = kir.reduce %21 axes [0] identity(%25 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%26: f32, %27: f32):
        %28 = kir.binary add %26, %27 : f32
        kir.yield %28 : f32
      }
      %30 = kir.broadcast %29 over(%4) dims [] : f32 -> tensor<?xf32>
      %31 = kir.binary div %24, %30 : tensor<?xf32>
      %32 = kir.cast %31 : tensor<?xf32> to tensor<?xf16>
      kir.store %32, %o[%6, %4] : tensor<?xf16>, !kir.view<f16, [S, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: online_reduction = false turns the online rewrite off; the exact two-pass folds remain.
// CHECK-LABEL: kir.kernel @online_off
// CHECK: kir.region_fold {{.*}} -> (f32) summarize
// CHECK: kir.region_fold {{.*}} -> (f32, tensor<?xf32>) summarize
// CHECK-NOT: kir.region_fold
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, online_reduction = false, optimization_remarks = true>} {
  kir.kernel @online_off(%q: !kir.view<f16, [S, D], in>, %k: !kir.view<f16, [S, D], in>, %v: !kir.view<f16, [S, D], in>, %o: !kir.view<f16, [S, D], out>) {
    %0 = kir.extent "S"
    %1 = kir.extent "D"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %5 = kir.indices %3 : tensor<?xindex>
    %12 = arith.constant 0xFF800000 : f32
    %13 = kir.broadcast %12 over(%3) dims [] : f32 -> tensor<?xf32>
    %25 = arith.constant 0.0 : f32
    // expected-remark @below {{became two region folds (exact two-pass, source numerics}}
    kir.parallel %3 {
    ^bb0(%6: index):
      %7 = kir.load %k[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %8 = kir.load %q[%6, %4] : !kir.view<f16, [S, D], in>[index, !kir.domain] -> tensor<?xf16>
      %9 = kir.contract %7, %8 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %10 = kir.broadcast %6 over(%3) dims [] : index -> tensor<?xindex>
      %11 = kir.cmp le %5, %10 : tensor<?xindex>
      %14 = kir.select %11, %9, %13 : tensor<?xi1>, tensor<?xf32>
      %18 = kir.reduce %14 axes [0] identity(%12 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%15: f32, %16: f32):
        %17 = kir.binary max %15, %16 : f32
        kir.yield %17 : f32
      }
      %19 = kir.broadcast %18 over(%3) dims [] : f32 -> tensor<?xf32>
      %20 = kir.binary sub %14, %19 : tensor<?xf32>
      %21 = kir.unary exp %20 : tensor<?xf32>
      %22 = kir.cast %21 : tensor<?xf32> to tensor<?xf16>
      %23 = kir.load %v[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %24 = kir.contract %22, %23 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
      %29 = kir.reduce %21 axes [0] identity(%25 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%26: f32, %27: f32):
        %28 = kir.binary add %26, %27 : f32
        kir.yield %28 : f32
      }
      %30 = kir.broadcast %29 over(%4) dims [] : f32 -> tensor<?xf32>
      %31 = kir.binary div %24, %30 : tensor<?xf32>
      %32 = kir.cast %31 : tensor<?xf32> to tensor<?xf16>
      kir.store %32, %o[%6, %4] : tensor<?xf16>, !kir.view<f16, [S, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: P itself is stored beside the attention output: before, the store refused the fold (P is
// COM: needed element by element). Now the store is the epilogue: the one online fold summarizes
// COM: (ok, m, l, acc) and, after it, the scores and exp(s - m) are recomputed from the same loads with
// COM: the row's maximum where(ok, m, -inf), for the store of P (a second traversal of the keys).
// CHECK-LABEL: kir.kernel @p_stored
// CHECK: %[[K:.*]] = kir.load %k
// CHECK: %[[Q:.*]] = kir.load %q
// CHECK: %[[F:.*]]:4 = kir.region_fold
// CHECK: } combine {
// CHECK: %[[M:.*]] = kir.select %[[F]]#0, %[[F]]#1, %{{.*}} : i1, f32
// CHECK: %[[S:.*]] = kir.contract %[[K]], %[[Q]] reduce([1], [0])
// CHECK: %[[SM:.*]] = kir.select %{{.*}}, %[[S]], %{{.*}}
// CHECK: %[[MB:.*]] = kir.broadcast %[[M]] over
// CHECK: %[[D:.*]] = kir.binary sub %[[SM]], %[[MB]]
// CHECK: %[[E:.*]] = kir.unary exp %[[D]]
// CHECK: %[[EH:.*]] = kir.cast %[[E]] : tensor<?xf32> to tensor<?xf16>
// CHECK-NOT: kir.reduce
// CHECK: kir.store %{{.*}}, %o
// CHECK: kir.store %[[EH]], %w
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @p_stored(%q: !kir.view<f16, [S, D], in>, %k: !kir.view<f16, [S, D], in>, %v: !kir.view<f16, [S, D], in>, %o: !kir.view<f16, [S, D], out>, %w: !kir.view<f16, [S, S], out>) {
    %0 = kir.extent "S"
    %1 = kir.extent "D"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %5 = kir.indices %3 : tensor<?xindex>
    %12 = arith.constant 0xFF800000 : f32
    %13 = kir.broadcast %12 over(%3) dims [] : f32 -> tensor<?xf32>
    %25 = arith.constant 0.0 : f32
    // expected-remark @below {{became one region fold (online summary, seed 002 §1); 1 store(s) over the axis read the row with the summary, so the row is recomputed after the folds}}
    kir.parallel %3 {
    ^bb0(%6: index):
      %7 = kir.load %k[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %8 = kir.load %q[%6, %4] : !kir.view<f16, [S, D], in>[index, !kir.domain] -> tensor<?xf16>
      %9 = kir.contract %7, %8 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %10 = kir.broadcast %6 over(%3) dims [] : index -> tensor<?xindex>
      %11 = kir.cmp le %5, %10 : tensor<?xindex>
      %14 = kir.select %11, %9, %13 : tensor<?xi1>, tensor<?xf32>
      %18 = kir.reduce %14 axes [0] identity(%12 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%15: f32, %16: f32):
        %17 = kir.binary max %15, %16 : f32
        kir.yield %17 : f32
      }
      %19 = kir.broadcast %18 over(%3) dims [] : f32 -> tensor<?xf32>
      %20 = kir.binary sub %14, %19 : tensor<?xf32>
      %21 = kir.unary exp %20 : tensor<?xf32>
      %22 = kir.cast %21 : tensor<?xf32> to tensor<?xf16>
      %23 = kir.load %v[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %24 = kir.contract %22, %23 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
      %29 = kir.reduce %21 axes [0] identity(%25 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%26: f32, %27: f32):
        %28 = kir.binary add %26, %27 : f32
        kir.yield %28 : f32
      }
      %30 = kir.broadcast %29 over(%4) dims [] : f32 -> tensor<?xf32>
      %31 = kir.binary div %24, %30 : tensor<?xf32>
      %32 = kir.cast %31 : tensor<?xf32> to tensor<?xf16>
      kir.store %32, %o[%6, %4] : tensor<?xf16>, !kir.view<f16, [S, D], out>[index, !kir.domain]
      kir.store %22, %w[%6, %3] : tensor<?xf16>, !kir.view<f16, [S, S], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: The scores s are also stored, cast after the reductions: a value of the axis computation
// COM: computed after them (not an epilogue of a reduction's result), so nothing is folded.
// CHECK-LABEL: kir.kernel @s_used
// CHECK-NOT: kir.region_fold
// CHECK: kir.reduce
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @s_used(%q: !kir.view<f16, [S, D], in>, %k: !kir.view<f16, [S, D], in>, %v: !kir.view<f16, [S, D], in>, %o: !kir.view<f16, [S, D], out>, %w: !kir.view<f16, [S, S], out>) {
    %0 = kir.extent "S"
    %1 = kir.extent "D"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %5 = kir.indices %3 : tensor<?xindex>
    %12 = arith.constant 0xFF800000 : f32
    %13 = kir.broadcast %12 over(%3) dims [] : f32 -> tensor<?xf32>
    %25 = arith.constant 0.0 : f32
    kir.parallel %3 {
    ^bb0(%6: index):
      %7 = kir.load %k[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %8 = kir.load %q[%6, %4] : !kir.view<f16, [S, D], in>[index, !kir.domain] -> tensor<?xf16>
      %9 = kir.contract %7, %8 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %10 = kir.broadcast %6 over(%3) dims [] : index -> tensor<?xindex>
      %11 = kir.cmp le %5, %10 : tensor<?xindex>
      %14 = kir.select %11, %9, %13 : tensor<?xi1>, tensor<?xf32>
      // expected-remark @below {{the maximum stays a two-pass reduction: a value over the axis computed after its reductions}}
      %18 = kir.reduce %14 axes [0] identity(%12 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%15: f32, %16: f32):
        %17 = kir.binary max %15, %16 : f32
        kir.yield %17 : f32
      }
      %19 = kir.broadcast %18 over(%3) dims [] : f32 -> tensor<?xf32>
      %20 = kir.binary sub %14, %19 : tensor<?xf32>
      %21 = kir.unary exp %20 : tensor<?xf32>
      %22 = kir.cast %21 : tensor<?xf32> to tensor<?xf16>
      %23 = kir.load %v[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %24 = kir.contract %22, %23 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
      %29 = kir.reduce %21 axes [0] identity(%25 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%26: f32, %27: f32):
        %28 = kir.binary add %26, %27 : f32
        kir.yield %28 : f32
      }
      %30 = kir.broadcast %29 over(%4) dims [] : f32 -> tensor<?xf32>
      %31 = kir.binary div %24, %30 : tensor<?xf32>
      %32 = kir.cast %31 : tensor<?xf32> to tensor<?xf16>
      kir.store %32, %o[%6, %4] : tensor<?xf16>, !kir.view<f16, [S, D], out>[index, !kir.domain]
      %s16 = kir.cast %14 : tensor<?xf32> to tensor<?xf16>
      kir.store %s16, %w[%6, %3] : tensor<?xf16>, !kir.view<f16, [S, S], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A maximum over two axes (a [keys, dims] tile): not one axis of a rank-1 row.
// CHECK-LABEL: kir.kernel @two_axes
// CHECK-NOT: kir.region_fold
// CHECK: kir.reduce
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @two_axes(%k: !kir.view<f32, [S, D], in>, %o: !kir.view<f32, [S], out>) {
    %0 = kir.extent "S"
    %1 = kir.extent "D"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    kir.parallel %3 {
    ^bb0(%i: index):
      %t = kir.load %k[%3, %4] : !kir.view<f32, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      // expected-remark @below {{a maximum over several axes or of several inputs}}
      %m = kir.reduce %t axes [0, 1] identity(%ninf : f32) : (tensor<?x?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary max %a, %b : f32
        kir.yield %c : f32
      }
      %mb = kir.broadcast %m over(%3, %4) dims [] : f32 -> tensor<?x?xf32>
      %d = kir.binary sub %t, %mb : tensor<?x?xf32>
      %e = kir.unary exp %d : tensor<?x?xf32>
      %l = kir.reduce %e axes [0, 1] identity(%zero : f32) : (tensor<?x?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      kir.store %l, %o[%i] : f32, !kir.view<f32, [S], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A row logsumexp beside the output (m + log(l)): the maximum's use outside stays, as
// COM: where(ok, m, -inf); an unmasked row's ok is m != -inf.
// CHECK-LABEL: kir.kernel @lse
// CHECK: %[[F:.*]]:3 = kir.region_fold
// CHECK: %[[TOP:.*]] = kir.reduce
// CHECK: %[[OK:.*]] = kir.cmp ne %[[TOP]], %{{.*}} : f32
// CHECK: } combine {
// CHECK: %[[M:.*]] = kir.select %[[F]]#0, %[[F]]#1, %{{.*}} : i1, f32
// CHECK: %[[LOG:.*]] = kir.unary log %[[F]]#2
// CHECK: kir.binary add %[[M]], %[[LOG]]
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @lse(%x: !kir.view<f32, [M, N], in>, %o: !kir.view<f32, [M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    // expected-remark @below {{kir-online-folds: a maximum and 1 reduction(s) over one axis became one region fold}}
    kir.parallel %3 {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %4] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %m = kir.reduce %t axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary max %a, %b : f32
        kir.yield %c : f32
      }
      %mb = kir.broadcast %m over(%4) dims [] : f32 -> tensor<?xf32>
      %d = kir.binary sub %t, %mb : tensor<?xf32>
      %e = kir.unary exp %d : tensor<?xf32>
      %l = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %lg = kir.unary log %l : f32
      %r = kir.binary add %m, %lg : f32
      kir.store %r, %o[%i] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: The scores add a row over another domain of the same extent: the row cannot be sliced
// COM: with the keys, so nothing is folded.
// CHECK-LABEL: kir.kernel @other_domain
// CHECK-NOT: kir.region_fold
// CHECK: kir.reduce
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @other_domain(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], in>, %o: !kir.view<f32, [M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %5 = kir.domain %2 to %1
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    kir.parallel %3 {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %4] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %u = kir.load %y[%i, %5] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %s = kir.binary add %t, %u : tensor<?xf32>
      // expected-remark @below {{a pointwise operand over another domain than the axis}}
      %m = kir.reduce %s axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary max %a, %b : f32
        kir.yield %c : f32
      }
      %mb = kir.broadcast %m over(%4) dims [] : f32 -> tensor<?xf32>
      %d = kir.binary sub %s, %mb : tensor<?xf32>
      %e = kir.unary exp %d : tensor<?xf32>
      %l = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      kir.store %l, %o[%i] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: numerics = source: a row read from memory, its maximum and exp-sum (a row logsumexp) is not
// COM: a fold with a contraction; it keeps the row path (pgpu-stage-rows), nothing is folded.
// CHECK-LABEL: kir.kernel @row_lse_source
// CHECK-NOT: kir.region_fold
// CHECK: kir.reduce
// CHECK: kir.unary exp
// CHECK: kir.reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @row_lse_source(%x: !kir.view<f32, [M, N], in>, %o: !kir.view<f32, [M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    kir.parallel %3 {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %4] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      // expected-remark @below {{the exact two-pass folds need a row computed by or reduced into a contraction}}
      %m = kir.reduce %t axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary max %a, %b : f32
        kir.yield %c : f32
      }
      %mb = kir.broadcast %m over(%4) dims [] : f32 -> tensor<?xf32>
      %d = kir.binary sub %t, %mb : tensor<?xf32>
      %e = kir.unary exp %d : tensor<?xf32>
      %l = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %lg = kir.unary log %l : f32
      %r = kir.binary add %m, %lg : f32
      kir.store %r, %o[%i] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: numerics = source, attention with its row logsumexp (m + log(l)) beside the output and no
// COM: mask: pass 1's m is used outside as it is (-inf on an empty row, the reduction's identity);
// COM: the exponential stays as written (no mask), so no fix-up is needed: exp(s - m) is exact.
// CHECK-LABEL: kir.kernel @lse_two_pass
// CHECK: %[[M:.*]] = kir.region_fold {{.*}} -> (f32) summarize
// CHECK-NOT: kir.cmp
// CHECK: %[[F:.*]]:2 = kir.region_fold {{.*}} operands(%{{.*}}, %[[M]] : tensor<?xf32>, f32) -> (f32, tensor<?xf32>) summarize
// CHECK: kir.unary exp
// CHECK: } combine {
// CHECK-NOT: kir.select
// CHECK: %[[LOG:.*]] = kir.unary log %[[F]]#0
// CHECK: kir.binary add %[[M]], %[[LOG]]
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @lse_two_pass(%q: !kir.view<f32, [S, D], in>, %k: !kir.view<f32, [S, D], in>, %v: !kir.view<f32, [S, D], in>, %o: !kir.view<f32, [S, D], out>, %lse: !kir.view<f32, [S], out>) {
    %0 = kir.extent "S"
    %1 = kir.extent "D"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    // expected-remark @below {{a maximum and 2 reduction(s) over one axis became two region folds}}
    kir.parallel %3 {
    ^bb0(%i: index):
      %kt = kir.load %k[%3, %4] : !kir.view<f32, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %qr = kir.load %q[%i, %4] : !kir.view<f32, [S, D], in>[index, !kir.domain] -> tensor<?xf32>
      %s = kir.contract %kt, %qr reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      %m = kir.reduce %s axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary max %a, %b : f32
        kir.yield %c : f32
      }
      %mb = kir.broadcast %m over(%3) dims [] : f32 -> tensor<?xf32>
      %d = kir.binary sub %s, %mb : tensor<?xf32>
      %e = kir.unary exp %d : tensor<?xf32>
      %vt = kir.load %v[%3, %4] : !kir.view<f32, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %acc = kir.contract %e, %vt reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
      %l = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %lb = kir.broadcast %l over(%4) dims [] : f32 -> tensor<?xf32>
      %out = kir.binary div %acc, %lb : tensor<?xf32>
      kir.store %out, %o[%i, %4] : tensor<?xf32>, !kir.view<f32, [S, D], out>[index, !kir.domain]
      %lg = kir.unary log %l : f32
      %r = kir.binary add %m, %lg : f32
      kir.store %r, %lse[%i] : f32, !kir.view<f32, [S], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: numerics = source: the plain row softmax (examples/softmax.py's spelling: a row read, its
// COM: maximum, exp-sum and an elementwise store of e / sum) stays as written: nothing in the row is a
// COM: contraction, so recomputing it for the store would buy nothing; the row path keeps it whole.
// CHECK-LABEL: kir.kernel @row_softmax_source
// CHECK-NOT: kir.region_fold
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @row_softmax_source(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    kir.parallel %3 {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %4] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      // expected-remark @below {{the row is stored over the axis and is neither computed by nor reduced into a contraction}}
      %m = kir.reduce %t axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary max %a, %b : f32
        kir.yield %c : f32
      }
      %mb = kir.broadcast %m over(%4) dims [] : f32 -> tensor<?xf32>
      %d = kir.binary sub %t, %mb : tensor<?xf32>
      %e = kir.unary exp %d : tensor<?xf32>
      %l = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %lb = kir.broadcast %l over(%4) dims [] : f32 -> tensor<?xf32>
      %r = kir.binary div %e, %lb : tensor<?xf32>
      kir.store %r, %y[%i, %4] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: numerics = source: the scores of a key row (a matvec) softmaxed and written out, no V
// COM: (bench/corpus/58_bmm_softmax_scores_b). Before: refused (e / sum(e) is not a reduction), the
// COM: row computed element by element three times. After: pass 1 folds the maximum, pass 2 the sum
// COM: of exp(s - m) with the final m; then the store's row is recomputed from the same loads (the
// COM: matvec, the scale, exp(s - m)) and divided by pass 2's sum: a third traversal of the keys.
// CHECK-LABEL: kir.kernel @stored_scores_source
// CHECK: kir.parallel
// CHECK: %[[K:.*]] = kir.load %k
// CHECK: %[[Q:.*]] = kir.load %q
// CHECK: %[[M:.*]] = kir.region_fold sources(%[[K]], %{{.*}} : tensor<?x?xf16>, tensor<?xindex>) axis 0 identity(%{{.*}} : f32) operands(%[[Q]], %{{.*}} : tensor<?xf16>, f32) -> (f32)
// CHECK: %[[L:.*]] = kir.region_fold sources(%[[K]], %{{.*}}) axis 0 identity(%{{.*}} : f32) operands(%[[Q]], %{{.*}}, %[[M]] : tensor<?xf16>, f32, f32) -> (f32)
// CHECK: } combine {
// CHECK: %[[S:.*]] = kir.contract %[[K]], %[[Q]] reduce([1], [0])
// CHECK: %[[SS:.*]] = kir.binary mul %[[S]], %{{.*}}
// CHECK: %[[MB:.*]] = kir.broadcast %[[M]] over
// CHECK: %[[D:.*]] = kir.binary sub %[[SS]], %[[MB]]
// CHECK: %[[E:.*]] = kir.unary exp %[[D]]
// CHECK: %[[LB:.*]] = kir.broadcast %[[L]] over
// CHECK: %[[P:.*]] = kir.binary div %[[E]], %[[LB]]
// CHECK: %[[PH:.*]] = kir.cast %[[P]]
// CHECK-NOT: kir.reduce
// CHECK: kir.store %[[PH]], %p
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @stored_scores_source(%q: !kir.view<f16, [S, D], in>, %k: !kir.view<f16, [T, D], in>, %p: !kir.view<f16, [S, T], out>, %scale: f32) {
    %0 = kir.extent "S"
    %1 = kir.extent "D"
    %2 = kir.extent "T"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %2
    %4 = kir.domain %c0 to %1
    %5 = kir.domain %c0 to %0
    %6 = kir.broadcast %scale over(%3) dims [] : f32 -> tensor<?xf32>
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    // expected-remark @below {{became two region folds (exact two-pass, source numerics: the maximum, then the reductions of exp(x - max), seed 002 §1); 1 store(s) over the axis read the row with the summary}}
    kir.parallel %5 {
    ^bb0(%i: index):
      %kt = kir.load %k[%3, %4] : !kir.view<f16, [T, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %qi = kir.load %q[%i, %4] : !kir.view<f16, [S, D], in>[index, !kir.domain] -> tensor<?xf16>
      %s0 = kir.contract %kt, %qi reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %s = kir.binary mul %s0, %6 : tensor<?xf32>
      %m = kir.reduce %s axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary max %a, %b : f32
        kir.yield %c : f32
      }
      %mb = kir.broadcast %m over(%3) dims [] : f32 -> tensor<?xf32>
      %d = kir.binary sub %s, %mb : tensor<?xf32>
      %e = kir.unary exp %d : tensor<?xf32>
      %l = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %lb = kir.broadcast %l over(%3) dims [] : f32 -> tensor<?xf32>
      %r = kir.binary div %e, %lb : tensor<?xf32>
      %rh = kir.cast %r : tensor<?xf32> to tensor<?xf16>
      kir.store %rh, %p[%i, %3] : tensor<?xf16>, !kir.view<f16, [S, T], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the normalized row e / sum(e) is summed again (not only stored): a reduction of
// COM: a value computed from a reduction over the same axis needs the row twice over, nothing is folded.
// CHECK-LABEL: kir.kernel @epilogue_summed
// CHECK-NOT: kir.region_fold
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @epilogue_summed(%q: !kir.view<f16, [S, D], in>, %k: !kir.view<f16, [T, D], in>, %p: !kir.view<f16, [S, T], out>, %t: !kir.view<f32, [S], out>) {
    %0 = kir.extent "S"
    %1 = kir.extent "D"
    %2 = kir.extent "T"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %2
    %4 = kir.domain %c0 to %1
    %5 = kir.domain %c0 to %0
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    kir.parallel %5 {
    ^bb0(%i: index):
      %kt = kir.load %k[%3, %4] : !kir.view<f16, [T, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %qi = kir.load %q[%i, %4] : !kir.view<f16, [S, D], in>[index, !kir.domain] -> tensor<?xf16>
      %s = kir.contract %kt, %qi reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      // expected-remark @below {{a value over the axis computed from a reduction is used by 'kir.reduce', not stored over the axis}}
      %m = kir.reduce %s axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary max %a, %b : f32
        kir.yield %c : f32
      }
      %mb = kir.broadcast %m over(%3) dims [] : f32 -> tensor<?xf32>
      %d = kir.binary sub %s, %mb : tensor<?xf32>
      %e = kir.unary exp %d : tensor<?xf32>
      %l = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %lb = kir.broadcast %l over(%3) dims [] : f32 -> tensor<?xf32>
      %r = kir.binary div %e, %lb : tensor<?xf32>
      %rs = kir.reduce %r axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %rh = kir.cast %r : tensor<?xf32> to tensor<?xf16>
      kir.store %rh, %p[%i, %3] : tensor<?xf16>, !kir.view<f16, [S, T], out>[index, !kir.domain]
      kir.store %rs, %t[%i] : f32, !kir.view<f32, [S], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: normalized_weights
// CHECK-LABEL: kir.kernel @normalized_weights
// CHECK: %[[F:.*]]:4 = kir.region_fold
// CHECK: %[[LB:.*]] = kir.broadcast %[[F]]#3 over
// CHECK: %[[OUT:.*]] = kir.binary div %[[F]]#2, %[[LB]]
// CHECK: kir.cast %[[OUT]]
// CHECK-NOT: kir.binary div
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @normalized_weights(%q: !kir.view<f16, [S, D], in>, %k: !kir.view<f16, [S, D], in>, %v: !kir.view<f16, [S, D], in>, %o: !kir.view<f16, [S, D], out>) {
    %0 = kir.extent "S"
    %1 = kir.extent "D"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %12 = arith.constant 0xFF800000 : f32
    %25 = arith.constant 0.0 : f32
    // expected-remark @below {{kir-online-folds: a maximum and 2 reduction(s) over one axis became one region fold}}
    kir.parallel %3 {
    ^bb0(%6: index):
      %7 = kir.load %k[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %8 = kir.load %q[%6, %4] : !kir.view<f16, [S, D], in>[index, !kir.domain] -> tensor<?xf16>
      %9 = kir.contract %7, %8 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %18 = kir.reduce %9 axes [0] identity(%12 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%15: f32, %16: f32):
        %17 = kir.binary max %15, %16 : f32
        kir.yield %17 : f32
      }
      %19 = kir.broadcast %18 over(%3) dims [] : f32 -> tensor<?xf32>
      %20 = kir.binary sub %9, %19 : tensor<?xf32>
      %21 = kir.unary exp %20 : tensor<?xf32>
      %29 = kir.reduce %21 axes [0] identity(%25 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%26: f32, %27: f32):
        %28 = kir.binary add %26, %27 : f32
        kir.yield %28 : f32
      }
      %30 = kir.broadcast %29 over(%3) dims [] : f32 -> tensor<?xf32>
      %31 = kir.binary div %21, %30 : tensor<?xf32>
      %23 = kir.load %v[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %24 = kir.cast %23 : tensor<?x?xf16> to tensor<?x?xf32>
      // expected-remark @below {{kir-online-folds: the contraction's operand 0 was a row divided by its own sum}}
      %32 = kir.contract %31, %24 reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
      %33 = kir.cast %32 : tensor<?xf32> to tensor<?xf16>
      kir.store %33, %o[%6, %4] : tensor<?xf16>, !kir.view<f16, [S, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: normalized_weights_source
// CHECK-LABEL: kir.kernel @normalized_weights_source
// CHECK-NOT: kir.region_fold
// CHECK: %[[P:.*]] = kir.binary div
// CHECK: kir.contract %[[P]]
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @normalized_weights_source(%q: !kir.view<f16, [S, D], in>, %k: !kir.view<f16, [S, D], in>, %v: !kir.view<f16, [S, D], in>, %o: !kir.view<f16, [S, D], out>) {
    %0 = kir.extent "S"
    %1 = kir.extent "D"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %12 = arith.constant 0xFF800000 : f32
    %25 = arith.constant 0.0 : f32
    kir.parallel %3 {
    ^bb0(%6: index):
      %7 = kir.load %k[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %8 = kir.load %q[%6, %4] : !kir.view<f16, [S, D], in>[index, !kir.domain] -> tensor<?xf16>
      %9 = kir.contract %7, %8 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      // expected-remark @below {{kir-online-folds: the maximum stays a two-pass reduction}}
      %18 = kir.reduce %9 axes [0] identity(%12 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%15: f32, %16: f32):
        %17 = kir.binary max %15, %16 : f32
        kir.yield %17 : f32
      }
      %19 = kir.broadcast %18 over(%3) dims [] : f32 -> tensor<?xf32>
      %20 = kir.binary sub %9, %19 : tensor<?xf32>
      %21 = kir.unary exp %20 : tensor<?xf32>
      %29 = kir.reduce %21 axes [0] identity(%25 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%26: f32, %27: f32):
        %28 = kir.binary add %26, %27 : f32
        kir.yield %28 : f32
      }
      %30 = kir.broadcast %29 over(%3) dims [] : f32 -> tensor<?xf32>
      %31 = kir.binary div %21, %30 : tensor<?xf32>
      %23 = kir.load %v[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %24 = kir.cast %23 : tensor<?x?xf16> to tensor<?x?xf32>
      %32 = kir.contract %31, %24 reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
      %33 = kir.cast %32 : tensor<?xf32> to tensor<?xf16>
      kir.store %33, %o[%6, %4] : tensor<?xf16>, !kir.view<f16, [S, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: normalized_weights_cast
// CHECK-LABEL: kir.kernel @normalized_weights_cast
// CHECK-NOT: kir.region_fold
// CHECK: %[[P:.*]] = kir.binary div
// CHECK: %[[H:.*]] = kir.cast %[[P]]
// CHECK: kir.contract %[[H]]
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @normalized_weights_cast(%q: !kir.view<f16, [S, D], in>, %k: !kir.view<f16, [S, D], in>, %v: !kir.view<f16, [S, D], in>, %o: !kir.view<f16, [S, D], out>) {
    %0 = kir.extent "S"
    %1 = kir.extent "D"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %12 = arith.constant 0xFF800000 : f32
    %25 = arith.constant 0.0 : f32
    kir.parallel %3 {
    ^bb0(%6: index):
      %7 = kir.load %k[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %8 = kir.load %q[%6, %4] : !kir.view<f16, [S, D], in>[index, !kir.domain] -> tensor<?xf16>
      %9 = kir.contract %7, %8 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      // expected-remark @below {{kir-online-folds: the maximum stays a two-pass reduction}}
      %18 = kir.reduce %9 axes [0] identity(%12 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%15: f32, %16: f32):
        %17 = kir.binary max %15, %16 : f32
        kir.yield %17 : f32
      }
      %19 = kir.broadcast %18 over(%3) dims [] : f32 -> tensor<?xf32>
      %20 = kir.binary sub %9, %19 : tensor<?xf32>
      %21 = kir.unary exp %20 : tensor<?xf32>
      %29 = kir.reduce %21 axes [0] identity(%25 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%26: f32, %27: f32):
        %28 = kir.binary add %26, %27 : f32
        kir.yield %28 : f32
      }
      %30 = kir.broadcast %29 over(%3) dims [] : f32 -> tensor<?xf32>
      %31 = kir.binary div %21, %30 : tensor<?xf32>
      %22 = kir.cast %31 : tensor<?xf32> to tensor<?xf16>
      %23 = kir.load %v[%3, %4] : !kir.view<f16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
      %32 = kir.contract %22, %23 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
      %33 = kir.cast %32 : tensor<?xf32> to tensor<?xf16>
      kir.store %33, %o[%6, %4] : tensor<?xf16>, !kir.view<f16, [S, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
