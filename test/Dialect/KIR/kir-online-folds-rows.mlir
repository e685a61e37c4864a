// RUN: tessel-opt %s -split-input-file -kir-online-folds -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: Per-row summaries (multi-query decode, corpus 21_mqa_decode): all query heads of one sequence
// COM: score the shared keys as one [H, T] tile and take the softmax over its last axis. That is H
// COM: independent online folds over the keys, i.e. one region fold whose summary (ok, m, l, acc)
// COM: keeps the free leading axis H: ok, m, l are [H], acc [H, D] (seed 002 §1 per row, §3.4). The
// COM: scale broadcast over [H, T] outside the body is spread over the slice's [H, t] scores; m is
// COM: spread along t (dims [0]); in combine the [H] weights rescale l directly and acc along D.
// CHECK-LABEL: kir.kernel @rows_online
// CHECK: %[[POS:.*]] = kir.indices
// CHECK: kir.parallel
// CHECK: %[[K:.*]] = kir.load %k
// CHECK: %[[Q:.*]] = kir.load %q
// CHECK: %[[V:.*]] = kir.load %v
// CHECK: %[[NO:.*]] = kir.broadcast %{{.*}} over(%[[H:.*]]) dims [] : i1 -> tensor<?xi1>
// CHECK: %[[ZM:.*]] = kir.broadcast %{{.*}} over(%[[H]]) dims [] : f32 -> tensor<?xf32>
// CHECK: %[[ZL:.*]] = kir.broadcast %{{.*}} over(%[[H]]) dims [] : f32 -> tensor<?xf32>
// CHECK: %[[ZA:.*]] = kir.broadcast %{{.*}} over(%[[H]], %{{.*}}) dims [] : f32 -> tensor<?x?xf32>
// CHECK: %[[F:.*]]:4 = kir.region_fold sources(%[[K]], %[[V]], %[[POS]] : tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?xindex>) axis 0
// CHECK-SAME: identity(%[[NO]], %[[ZM]], %[[ZL]], %[[ZA]] : tensor<?xi1>, tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) operands(%[[Q]], %{{.*}} : tensor<?x?xbf16>, f32) -> (tensor<?xi1>, tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) summarize {
// CHECK: ^bb0(%[[KS:.*]]: tensor<?x?xbf16>, %[[VS:.*]]: tensor<?x?xbf16>, %{{.*}}: tensor<?xindex>, %[[QA:.*]]: tensor<?x?xbf16>, %[[SC:.*]]: f32):
// CHECK: %[[S0:.*]] = kir.contract %[[QA]], %[[KS]] reduce([1], [1])
// CHECK: %[[SCB:.*]] = kir.broadcast_as %[[SC]] to %[[S0]] dims [] : f32, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK: %[[S:.*]] = kir.binary mul %[[S0]], %[[SCB]]
// CHECK: %[[TOP:.*]] = kir.reduce %[[S]] axes [1]
// CHECK: kir.binary max
// CHECK: %[[INF:.*]] = kir.broadcast_as %{{.*}} to %[[TOP]] dims [] : f32, tensor<?xf32> -> tensor<?xf32>
// CHECK: %[[OK:.*]] = kir.cmp ne %[[TOP]], %[[INF]] : tensor<?xf32>
// CHECK: %[[M:.*]] = kir.select %[[OK]], %[[TOP]], %{{.*}} : tensor<?xi1>, tensor<?xf32>
// CHECK: %[[MB:.*]] = kir.broadcast_as %[[M]] to %[[S]] dims [0] : tensor<?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK: %[[D:.*]] = kir.binary sub %[[S]], %[[MB]]
// CHECK: %[[E:.*]] = kir.unary exp %[[D]]
// CHECK: %[[EH:.*]] = kir.cast %[[E]] : tensor<?x?xf32> to tensor<?x?xbf16>
// CHECK: %[[ACC:.*]] = kir.contract %[[EH]], %[[VS]] reduce([1], [0])
// CHECK: %[[L:.*]] = kir.reduce %[[E]] axes [1]
// CHECK: kir.binary add
// CHECK: kir.yield %[[OK]], %[[M]], %[[L]], %[[ACC]] : tensor<?xi1>, tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
// CHECK: } combine {
// CHECK: ^bb0(%[[OK1:.*]]: tensor<?xi1>, %[[M1:.*]]: tensor<?xf32>, %[[L1:.*]]: tensor<?xf32>, %[[A1:.*]]: tensor<?x?xf32>, %[[OK2:.*]]: tensor<?xi1>, %[[M2:.*]]: tensor<?xf32>, %[[L2:.*]]: tensor<?xf32>, %[[A2:.*]]: tensor<?x?xf32>):
// CHECK: %[[BOTH:.*]] = kir.binary max %[[M1]], %[[M2]] : tensor<?xf32>
// CHECK: %[[T:.*]] = kir.select %[[OK1]], %[[BOTH]], %[[M2]]
// CHECK: %[[MX:.*]] = kir.select %[[OK2]], %[[T]], %[[M1]]
// CHECK: %[[Z:.*]] = kir.broadcast_as %{{.*}} to %[[MX]] dims [] : f32, tensor<?xf32> -> tensor<?xf32>
// CHECK: %[[D1:.*]] = kir.binary sub %[[M1]], %[[MX]]
// CHECK: %[[E1:.*]] = kir.unary exp %[[D1]]
// CHECK: %[[W1:.*]] = kir.select %[[OK1]], %[[E1]], %[[Z]] : tensor<?xi1>, tensor<?xf32>
// CHECK: %[[W2:.*]] = kir.select %[[OK2]], %{{.*}}, %[[Z]] : tensor<?xi1>, tensor<?xf32>
// CHECK: %[[ANY:.*]] = kir.binary or %[[OK1]], %[[OK2]] : tensor<?xi1>
// CHECK-DAG: kir.binary mul %[[L2]], %[[W2]] : tensor<?xf32>
// CHECK-DAG: kir.binary mul %[[L1]], %[[W1]] : tensor<?xf32>
// CHECK-DAG: %[[W2B:.*]] = kir.broadcast_as %[[W2]] to %[[A2]] dims [0] : tensor<?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-DAG: kir.binary mul %[[A2]], %[[W2B]]
// CHECK-DAG: %[[W1B:.*]] = kir.broadcast_as %[[W1]] to %[[A1]] dims [0]
// CHECK-DAG: kir.binary mul %[[A1]], %[[W1B]]
// CHECK: kir.yield %[[ANY]], %[[MX]], %{{.*}}, %{{.*}} : tensor<?xi1>, tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
// CHECK: %[[LB:.*]] = kir.broadcast %[[F]]#2 over(%[[H]], %{{.*}}) dims [0]
// CHECK: kir.binary div %[[F]]#3, %[[LB]]
// CHECK-NOT: kir.unary exp
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @rows_online(%q: !kir.view<bf16, [B, H, D], in>, %k: !kir.view<bf16, [B, T, D], in>, %v: !kir.view<bf16, [B, T, D], in>, %o: !kir.view<bf16, [B, H, D], out>, %scale: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "H"
    %2 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %1
    %4 = kir.extent "T"
    %5 = kir.domain %c0 to %4
    %6 = kir.domain %c0 to %2
    %7 = kir.domain %c0 to %0
    %8 = kir.broadcast %scale over(%3, %5) dims [] : f32 -> tensor<?x?xf32>
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    // expected-remark @below {{kir-online-folds: a maximum and 2 reduction(s) over one axis became one region fold (online summary, seed 002 §1)}}
    kir.parallel %7 {
    ^bb0(%arg0: index):
      %9 = kir.load %k[%arg0, %5, %6] : !kir.view<bf16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %10 = kir.load %q[%arg0, %3, %6] : !kir.view<bf16, [B, H, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %11 = kir.contract %10, %9 reduce([1], [1]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
      %12 = kir.binary mul %11, %8 : tensor<?x?xf32>
      %13 = kir.reduce %12 axes [1] identity(%cst : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %24 = kir.binary max %arg1, %arg2 : f32
        kir.yield %24 : f32
      }
      %14 = kir.broadcast %13 over(%3, %5) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %15 = kir.binary sub %12, %14 : tensor<?x?xf32>
      %16 = kir.unary exp %15 : tensor<?x?xf32>
      %17 = kir.cast %16 : tensor<?x?xf32> to tensor<?x?xbf16>
      %18 = kir.load %v[%arg0, %5, %6] : !kir.view<bf16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %19 = kir.contract %17, %18 reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
      %20 = kir.reduce %16 axes [1] identity(%cst_0 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %24 = kir.binary add %arg1, %arg2 : f32
        kir.yield %24 : f32
      }
      %21 = kir.broadcast %20 over(%3, %6) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %22 = kir.binary div %19, %21 : tensor<?x?xf32>
      %23 = kir.cast %22 : tensor<?x?xf32> to tensor<?x?xbf16>
      kir.store %23, %o[%arg0, %3, %6] : tensor<?x?xbf16>, !kir.view<bf16, [B, H, D], out>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Under source numerics the same body becomes the exact two-pass form with per-row summaries:
// COM: pass 1 folds the [H] maxima (identity -inf over H, combine max), pass 2 captures them and sums
// COM: l [H] and acc [H, D] with the final maxima spread along t (dims [0]).
// CHECK-LABEL: kir.kernel @rows_two_pass
// CHECK: kir.parallel
// CHECK: %[[NINF:.*]] = kir.broadcast %{{.*}} over(%[[H:.*]]) dims [] : f32 -> tensor<?xf32>
// CHECK: %[[M:.*]] = kir.region_fold sources(%{{.*}}, %{{.*}} : tensor<?x?xbf16>, tensor<?xindex>) axis 0 identity(%[[NINF]] : tensor<?xf32>) {{.*}} -> (tensor<?xf32>) summarize {
// CHECK: kir.reduce %{{.*}} axes [1]
// CHECK: kir.binary max
// CHECK: } combine {
// CHECK: kir.binary max %{{.*}}, %{{.*}} : tensor<?xf32>
// CHECK: %[[F:.*]]:2 = kir.region_fold sources({{.*}}) axis 0 identity(%{{.*}}, %{{.*}} : tensor<?xf32>, tensor<?x?xf32>) operands(%{{.*}}, %{{.*}}, %[[M]] : tensor<?x?xbf16>, f32, tensor<?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) summarize {
// CHECK: ^bb0(%{{.*}}: tensor<?x?xbf16>, %{{.*}}: tensor<?x?xbf16>, %{{.*}}: tensor<?xindex>, %{{.*}}: tensor<?x?xbf16>, %{{.*}}: f32, %[[MA:.*]]: tensor<?xf32>):
// CHECK: kir.broadcast_as %[[MA]] to %{{.*}} dims [0] : tensor<?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK: kir.unary exp
// CHECK: } combine {
// CHECK: kir.binary add %{{.*}}, %{{.*}} : tensor<?xf32>
// CHECK: kir.binary add %{{.*}}, %{{.*}} : tensor<?x?xf32>
// CHECK: kir.broadcast %[[F]]#0 over(%[[H]], %{{.*}}) dims [0]
// CHECK: kir.binary div %[[F]]#1
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @rows_two_pass(%q: !kir.view<bf16, [B, H, D], in>, %k: !kir.view<bf16, [B, T, D], in>, %v: !kir.view<bf16, [B, T, D], in>, %o: !kir.view<bf16, [B, H, D], out>, %scale: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "H"
    %2 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %1
    %4 = kir.extent "T"
    %5 = kir.domain %c0 to %4
    %6 = kir.domain %c0 to %2
    %7 = kir.domain %c0 to %0
    %8 = kir.broadcast %scale over(%3, %5) dims [] : f32 -> tensor<?x?xf32>
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    // expected-remark @below {{kir-online-folds: a maximum and 2 reduction(s) over one axis became two region folds (exact two-pass, source numerics}}
    kir.parallel %7 {
    ^bb0(%arg0: index):
      %9 = kir.load %k[%arg0, %5, %6] : !kir.view<bf16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %10 = kir.load %q[%arg0, %3, %6] : !kir.view<bf16, [B, H, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %11 = kir.contract %10, %9 reduce([1], [1]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
      %12 = kir.binary mul %11, %8 : tensor<?x?xf32>
      %13 = kir.reduce %12 axes [1] identity(%cst : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %24 = kir.binary max %arg1, %arg2 : f32
        kir.yield %24 : f32
      }
      %14 = kir.broadcast %13 over(%3, %5) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %15 = kir.binary sub %12, %14 : tensor<?x?xf32>
      %16 = kir.unary exp %15 : tensor<?x?xf32>
      %17 = kir.cast %16 : tensor<?x?xf32> to tensor<?x?xbf16>
      %18 = kir.load %v[%arg0, %5, %6] : !kir.view<bf16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %19 = kir.contract %17, %18 reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
      %20 = kir.reduce %16 axes [1] identity(%cst_0 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %24 = kir.binary add %arg1, %arg2 : f32
        kir.yield %24 : f32
      }
      %21 = kir.broadcast %20 over(%3, %6) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %22 = kir.binary div %19, %21 : tensor<?x?xf32>
      %23 = kir.cast %22 : tensor<?x?xf32> to tensor<?x?xbf16>
      kir.store %23, %o[%arg0, %3, %6] : tensor<?x?xbf16>, !kir.view<bf16, [B, H, D], out>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the maximum over the FIRST axis of the [H, T] tile (over the heads, for each
// COM: key) is not a per-row summary over the keys the fold walks.
// CHECK-LABEL: kir.kernel @rows_first_axis
// CHECK-NOT: kir.region_fold
// CHECK: kir.reduce %{{.*}} axes [0]
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @rows_first_axis(%q: !kir.view<f32, [B, H, D], in>, %k: !kir.view<f32, [B, T, D], in>, %o: !kir.view<f32, [B, T], out>) {
    %0 = kir.extent "B"
    %1 = kir.extent "H"
    %2 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %1
    %4 = kir.extent "T"
    %5 = kir.domain %c0 to %4
    %6 = kir.domain %c0 to %2
    %7 = kir.domain %c0 to %0
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    kir.parallel %7 {
    ^bb0(%arg0: index):
      %9 = kir.load %k[%arg0, %5, %6] : !kir.view<f32, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %10 = kir.load %q[%arg0, %3, %6] : !kir.view<f32, [B, H, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %11 = kir.contract %10, %9 reduce([1], [1]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
      // expected-remark @below {{kir-online-folds: the maximum stays a two-pass reduction: not a float maximum of a rank-1 tensor over its only axis or of a rank-2 tensor over its last axis}}
      %13 = kir.reduce %11 axes [0] identity(%cst : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %24 = kir.binary max %arg1, %arg2 : f32
        kir.yield %24 : f32
      }
      %14 = kir.broadcast %13 over(%3, %5) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
      %15 = kir.binary sub %11, %14 : tensor<?x?xf32>
      %16 = kir.unary exp %15 : tensor<?x?xf32>
      %20 = kir.reduce %16 axes [0] identity(%cst_0 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %24 = kir.binary add %arg1, %arg2 : f32
        kir.yield %24 : f32
      }
      kir.store %20, %o[%arg0, %5] : tensor<?xf32>, !kir.view<f32, [B, T], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a masked [H, T] row (where(c, s, -inf)) keeps its two-pass reductions; per-row
// COM: masks are not folded with a free axis.
// CHECK-LABEL: kir.kernel @rows_masked
// CHECK-NOT: kir.region_fold
// CHECK: kir.reduce %{{.*}} axes [1]
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @rows_masked(%q: !kir.view<f32, [B, H, D], in>, %k: !kir.view<f32, [B, T, D], in>, %v: !kir.view<f32, [B, T, D], in>, %o: !kir.view<f32, [B, H, D], out>, %n: index) {
    %0 = kir.extent "B"
    %1 = kir.extent "H"
    %2 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %1
    %4 = kir.extent "T"
    %5 = kir.domain %c0 to %4
    %6 = kir.domain %c0 to %2
    %7 = kir.domain %c0 to %0
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    kir.parallel %7 {
    ^bb0(%arg0: index):
      %9 = kir.load %k[%arg0, %5, %6] : !kir.view<f32, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %10 = kir.load %q[%arg0, %3, %6] : !kir.view<f32, [B, H, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %11 = kir.contract %10, %9 reduce([1], [1]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
      %pos = kir.indices %5 : tensor<?xindex>
      %posb = kir.broadcast %pos over(%3, %5) dims [1] : tensor<?xindex> -> tensor<?x?xindex>
      %nb = kir.broadcast %n over(%3, %5) dims [] : index -> tensor<?x?xindex>
      %c = kir.cmp lt %posb, %nb : tensor<?x?xindex>
      %ninf = kir.broadcast %cst over(%3, %5) dims [] : f32 -> tensor<?x?xf32>
      %s = kir.select %c, %11, %ninf : tensor<?x?xi1>, tensor<?x?xf32>
      // expected-remark @below {{kir-online-folds: the maximum stays a two-pass reduction: a masked row with a free axis (per-row masks are not folded)}}
      %13 = kir.reduce %s axes [1] identity(%cst : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %24 = kir.binary max %arg1, %arg2 : f32
        kir.yield %24 : f32
      }
      %14 = kir.broadcast %13 over(%3, %5) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %15 = kir.binary sub %s, %14 : tensor<?x?xf32>
      %16 = kir.unary exp %15 : tensor<?x?xf32>
      %18 = kir.load %v[%arg0, %5, %6] : !kir.view<f32, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %19 = kir.contract %16, %18 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
      %20 = kir.reduce %16 axes [1] identity(%cst_0 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %24 = kir.binary add %arg1, %arg2 : f32
        kir.yield %24 : f32
      }
      %21 = kir.broadcast %20 over(%3, %6) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %22 = kir.binary div %19, %21 : tensor<?x?xf32>
      kir.store %22, %o[%arg0, %3, %6] : tensor<?x?xf32>, !kir.view<f32, [B, H, D], out>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
