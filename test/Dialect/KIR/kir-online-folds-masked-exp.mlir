// RUN: tessel-opt %s -split-input-file -kir-online-folds -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: Masked exponentials (issue 41, bench/corpus/190): the block mask C gathered through index tensors
// COM: masks the scores (where(C, s, -inf)) and the exponentials (P = where(C, exp(s - max), 0)); P's sum
// COM: and its product with V are a masked summary. Under source numerics: the exact two-pass folds, the
// COM: gathered mask a source of both; pass 2's guard is the masked exponential itself (one select), and
// COM: no NaN fix-up follows (the source zeroes the masked terms itself, so a row with nothing kept sums
// COM: to 0, which the source guards).
// CHECK-LABEL: kir.kernel @guarded_source
// CHECK: %[[C:.*]] = kir.gather %bm
// CHECK: %[[M:.*]] = kir.region_fold sources(%[[C]], %{{.*}}, %{{.*}} : tensor<?xi1>, tensor<?x?xf16>, tensor<?xindex>) axis 0
// CHECK-SAME: -> (f32) summarize {
// CHECK: kir.binary max
// CHECK: %[[F:.*]]:2 = kir.region_fold sources(%[[C]], %{{.*}}, %{{.*}}, %{{.*}} : tensor<?xi1>, tensor<?x?xf16>, tensor<?x?xf16>, tensor<?xindex>) axis 0
// CHECK-SAME: operands(%{{.*}}, %{{.*}}, %[[M]] : tensor<?xf16>, f32, f32) -> (f32, tensor<?xf32>) summarize {
// CHECK: ^bb0(%[[CS:.*]]: tensor<?xi1>, %{{.*}}: tensor<?x?xf16>, %[[VS:.*]]: tensor<?x?xf16>,
// CHECK: %[[S:.*]] = kir.binary mul
// CHECK: %[[D:.*]] = kir.binary sub %[[S]], %{{.*}}
// CHECK: %[[E:.*]] = kir.unary exp %[[D]]
// CHECK: %[[P:.*]] = kir.select %[[CS]], %[[E]], %{{.*}}
// CHECK-NOT: kir.select
// CHECK: %[[L:.*]] = kir.reduce %[[P]] axes [0]
// CHECK: %[[PH:.*]] = kir.cast %[[P]] : tensor<?xf32> to tensor<?xf16>
// CHECK: %[[ACC:.*]] = kir.contract %[[PH]], %[[VS]] reduce([0], [0])
// CHECK: kir.yield %[[L]], %[[ACC]] : f32, tensor<?xf32>
// CHECK: } combine {
// CHECK-NOT: 0x7FC00000
// CHECK: %[[POS:.*]] = kir.cmp gt %[[F]]#0
// CHECK: kir.binary div %[[F]]#1
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @guarded_source(%q: !kir.view<f16, [B, S, D], in>, %k: !kir.view<f16, [B, T, D], in>, %v: !kir.view<f16, [B, T, D], in>, %bm: !kir.view<i1, [B, SB, TB], in>, %o: !kir.view<f16, [B, S, D], out>, %scale: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "S"
    %2 = kir.extent "D"
    %3 = kir.extent "T"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %3
    %5 = kir.domain %c0 to %2
    %6 = kir.domain %c0 to %0
    %7 = kir.domain %c0 to %1
    %c8 = arith.constant 8 : index
    %8 = kir.indices %4 : tensor<?xindex>
    %9 = kir.broadcast %c8 over(%4) dims [] : index -> tensor<?xindex>
    %10 = kir.broadcast %scale over(%4) dims [] : f32 -> tensor<?xf32>
    %cst = arith.constant 0xFF800000 : f32
    %11 = kir.broadcast %cst over(%4) dims [] : f32 -> tensor<?xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %12 = kir.broadcast %cst_0 over(%4) dims [] : f32 -> tensor<?xf32>
    %13 = kir.broadcast %cst_0 over(%5) dims [] : f32 -> tensor<?xf32>
    %cst_1 = arith.constant 1.000000e+00 : f32
    %one = kir.broadcast %cst_1 over(%4) dims [] : f32 -> tensor<?xf32>
    // expected-remark @below {{kir-online-folds: a maximum and 2 reduction(s) over one axis became two region folds (exact two-pass, source numerics}}
    kir.parallel %6, %7 {
    ^bb0(%arg0: index, %arg1: index):
      %14 = kir.binary div %arg1, %c8 : index
      %15 = kir.binary div %8, %9 : tensor<?xindex>
      %16 = kir.gather %bm[%arg0, %14, %15] : !kir.view<i1, [B, SB, TB], in>[index, index, tensor<?xindex>] -> tensor<?xi1>
      %17 = kir.load %k[%arg0, %4, %5] : !kir.view<f16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %18 = kir.load %q[%arg0, %arg1, %5] : !kir.view<f16, [B, S, D], in>[index, index, !kir.domain] -> tensor<?xf16>
      %19 = kir.contract %17, %18 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %20 = kir.binary mul %19, %10 : tensor<?xf32>
      %21 = kir.select %16, %20, %11 : tensor<?xi1>, tensor<?xf32>
      %22 = kir.reduce %21 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg2: f32, %arg3: f32):
        %36 = kir.binary max %arg2, %arg3 : f32
        kir.yield %36 : f32
      }
      %23 = kir.broadcast %22 over(%4) dims [] : f32 -> tensor<?xf32>
      %24 = kir.binary sub %21, %23 : tensor<?xf32>
      %25 = kir.unary exp %24 : tensor<?xf32>
      %26 = kir.select %16, %25, %12 : tensor<?xi1>, tensor<?xf32>
      %27 = kir.reduce %26 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg2: f32, %arg3: f32):
        %36 = kir.binary add %arg2, %arg3 : f32
        kir.yield %36 : f32
      }
      %28 = kir.cast %26 : tensor<?xf32> to tensor<?xf16>
      %29 = kir.load %v[%arg0, %4, %5] : !kir.view<f16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %30 = kir.contract %28, %29 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
      %31 = kir.cmp gt %27, %cst_0 : f32
      %32 = kir.broadcast %27 over(%5) dims [] : f32 -> tensor<?xf32>
      %33 = kir.binary div %30, %32 : tensor<?xf32>
      %34 = kir.select %31, %33, %13 : i1, tensor<?xf32>
      %35 = kir.cast %34 : tensor<?xf32> to tensor<?xf16>
      kir.store %35, %o[%arg0, %arg1, %5] : tensor<?xf16>, !kir.view<f16, [B, S, D], out>[index, index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: The same kernel under relaxed_normalization: one online fold (ok, m, l, acc), ok = any(C) of the
// COM: slice, P the masked exponential on the slice's maximum.
// CHECK-LABEL: kir.kernel @guarded_relaxed
// CHECK: %[[C:.*]] = kir.gather %bm
// CHECK: %[[F:.*]]:4 = kir.region_fold sources(%[[C]], %{{.*}}, %{{.*}}, %{{.*}} : tensor<?xi1>, tensor<?x?xf16>, tensor<?x?xf16>, tensor<?xindex>) axis 0
// CHECK-SAME: -> (i1, f32, f32, tensor<?xf32>) summarize {
// CHECK: ^bb0(%[[CS:.*]]: tensor<?xi1>,
// CHECK: %[[OK:.*]] = kir.reduce %[[CS]] axes [0]
// CHECK: kir.binary or
// CHECK: %[[E:.*]] = kir.unary exp
// CHECK: %[[P:.*]] = kir.select %[[CS]], %[[E]], %{{.*}}
// CHECK-NOT: kir.select
// CHECK: kir.reduce %[[P]] axes [0]
// CHECK: kir.yield %[[OK]]
// CHECK: } combine {
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @guarded_relaxed(%q: !kir.view<f16, [B, S, D], in>, %k: !kir.view<f16, [B, T, D], in>, %v: !kir.view<f16, [B, T, D], in>, %bm: !kir.view<i1, [B, SB, TB], in>, %o: !kir.view<f16, [B, S, D], out>, %scale: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "S"
    %2 = kir.extent "D"
    %3 = kir.extent "T"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %3
    %5 = kir.domain %c0 to %2
    %6 = kir.domain %c0 to %0
    %7 = kir.domain %c0 to %1
    %c8 = arith.constant 8 : index
    %8 = kir.indices %4 : tensor<?xindex>
    %9 = kir.broadcast %c8 over(%4) dims [] : index -> tensor<?xindex>
    %10 = kir.broadcast %scale over(%4) dims [] : f32 -> tensor<?xf32>
    %cst = arith.constant 0xFF800000 : f32
    %11 = kir.broadcast %cst over(%4) dims [] : f32 -> tensor<?xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %12 = kir.broadcast %cst_0 over(%4) dims [] : f32 -> tensor<?xf32>
    %13 = kir.broadcast %cst_0 over(%5) dims [] : f32 -> tensor<?xf32>
    %cst_1 = arith.constant 1.000000e+00 : f32
    %one = kir.broadcast %cst_1 over(%4) dims [] : f32 -> tensor<?xf32>
    // expected-remark @below {{kir-online-folds: a maximum and 2 reduction(s) over one axis became one region fold (online summary}}
    kir.parallel %6, %7 {
    ^bb0(%arg0: index, %arg1: index):
      %14 = kir.binary div %arg1, %c8 : index
      %15 = kir.binary div %8, %9 : tensor<?xindex>
      %16 = kir.gather %bm[%arg0, %14, %15] : !kir.view<i1, [B, SB, TB], in>[index, index, tensor<?xindex>] -> tensor<?xi1>
      %17 = kir.load %k[%arg0, %4, %5] : !kir.view<f16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %18 = kir.load %q[%arg0, %arg1, %5] : !kir.view<f16, [B, S, D], in>[index, index, !kir.domain] -> tensor<?xf16>
      %19 = kir.contract %17, %18 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %20 = kir.binary mul %19, %10 : tensor<?xf32>
      %21 = kir.select %16, %20, %11 : tensor<?xi1>, tensor<?xf32>
      %22 = kir.reduce %21 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg2: f32, %arg3: f32):
        %36 = kir.binary max %arg2, %arg3 : f32
        kir.yield %36 : f32
      }
      %23 = kir.broadcast %22 over(%4) dims [] : f32 -> tensor<?xf32>
      %24 = kir.binary sub %21, %23 : tensor<?xf32>
      %25 = kir.unary exp %24 : tensor<?xf32>
      %26 = kir.select %16, %25, %12 : tensor<?xi1>, tensor<?xf32>
      %27 = kir.reduce %26 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg2: f32, %arg3: f32):
        %36 = kir.binary add %arg2, %arg3 : f32
        kir.yield %36 : f32
      }
      %28 = kir.cast %26 : tensor<?xf32> to tensor<?xf16>
      %29 = kir.load %v[%arg0, %4, %5] : !kir.view<f16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %30 = kir.contract %28, %29 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
      %31 = kir.cmp gt %27, %cst_0 : f32
      %32 = kir.broadcast %27 over(%5) dims [] : f32 -> tensor<?xf32>
      %33 = kir.binary div %30, %32 : tensor<?xf32>
      %34 = kir.select %31, %33, %13 : i1, tensor<?xf32>
      %35 = kir.cast %34 : tensor<?xf32> to tensor<?xf16>
      kir.store %35, %o[%arg0, %arg1, %5] : tensor<?xf16>, !kir.view<f16, [B, S, D], out>[index, index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: The mask on the other side (where(C, 0, exp(s - max))) and the scores not masked: the maximum is
// COM: over every key, as written (pass 1 reads no mask), and pass 2 computes the select as written.
// CHECK-LABEL: kir.kernel @other_side_unmasked_scores
// CHECK: %[[C:.*]] = kir.gather %bm
// CHECK: %[[M:.*]] = kir.region_fold sources(%{{.*}}, %{{.*}} : tensor<?x?xf16>, tensor<?xindex>) axis 0
// CHECK: %[[F:.*]]:2 = kir.region_fold sources(%[[C]], %{{.*}}, %{{.*}}, %{{.*}} : tensor<?xi1>, tensor<?x?xf16>, tensor<?x?xf16>, tensor<?xindex>) axis 0
// CHECK: ^bb0(%[[CS:.*]]: tensor<?xi1>,
// CHECK: %[[E:.*]] = kir.unary exp
// CHECK: %[[P:.*]] = kir.select %[[CS]], %{{.*}}, %[[E]]
// CHECK: kir.reduce %[[P]] axes [0]
// CHECK: } combine {
// CHECK-NOT: 0x7FC00000
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @other_side_unmasked_scores(%q: !kir.view<f16, [B, S, D], in>, %k: !kir.view<f16, [B, T, D], in>, %v: !kir.view<f16, [B, T, D], in>, %bm: !kir.view<i1, [B, SB, TB], in>, %o: !kir.view<f16, [B, S, D], out>, %scale: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "S"
    %2 = kir.extent "D"
    %3 = kir.extent "T"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %3
    %5 = kir.domain %c0 to %2
    %6 = kir.domain %c0 to %0
    %7 = kir.domain %c0 to %1
    %c8 = arith.constant 8 : index
    %8 = kir.indices %4 : tensor<?xindex>
    %9 = kir.broadcast %c8 over(%4) dims [] : index -> tensor<?xindex>
    %10 = kir.broadcast %scale over(%4) dims [] : f32 -> tensor<?xf32>
    %cst = arith.constant 0xFF800000 : f32
    %11 = kir.broadcast %cst over(%4) dims [] : f32 -> tensor<?xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %12 = kir.broadcast %cst_0 over(%4) dims [] : f32 -> tensor<?xf32>
    %13 = kir.broadcast %cst_0 over(%5) dims [] : f32 -> tensor<?xf32>
    %cst_1 = arith.constant 1.000000e+00 : f32
    %one = kir.broadcast %cst_1 over(%4) dims [] : f32 -> tensor<?xf32>
    // expected-remark @below {{kir-online-folds: a maximum and 2 reduction(s) over one axis became two region folds (exact two-pass, source numerics}}
    kir.parallel %6, %7 {
    ^bb0(%arg0: index, %arg1: index):
      %14 = kir.binary div %arg1, %c8 : index
      %15 = kir.binary div %8, %9 : tensor<?xindex>
      %16 = kir.gather %bm[%arg0, %14, %15] : !kir.view<i1, [B, SB, TB], in>[index, index, tensor<?xindex>] -> tensor<?xi1>
      %17 = kir.load %k[%arg0, %4, %5] : !kir.view<f16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %18 = kir.load %q[%arg0, %arg1, %5] : !kir.view<f16, [B, S, D], in>[index, index, !kir.domain] -> tensor<?xf16>
      %19 = kir.contract %17, %18 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %21 = kir.binary mul %19, %10 : tensor<?xf32>
      %22 = kir.reduce %21 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg2: f32, %arg3: f32):
        %36 = kir.binary max %arg2, %arg3 : f32
        kir.yield %36 : f32
      }
      %23 = kir.broadcast %22 over(%4) dims [] : f32 -> tensor<?xf32>
      %24 = kir.binary sub %21, %23 : tensor<?xf32>
      %25 = kir.unary exp %24 : tensor<?xf32>
      %26 = kir.select %16, %12, %25 : tensor<?xi1>, tensor<?xf32>
      %27 = kir.reduce %26 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg2: f32, %arg3: f32):
        %36 = kir.binary add %arg2, %arg3 : f32
        kir.yield %36 : f32
      }
      %28 = kir.cast %26 : tensor<?xf32> to tensor<?xf16>
      %29 = kir.load %v[%arg0, %4, %5] : !kir.view<f16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %30 = kir.contract %28, %29 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
      %31 = kir.cmp gt %27, %cst_0 : f32
      %32 = kir.broadcast %27 over(%5) dims [] : f32 -> tensor<?xf32>
      %33 = kir.binary div %30, %32 : tensor<?xf32>
      %34 = kir.select %31, %33, %13 : i1, tensor<?xf32>
      %35 = kir.cast %34 : tensor<?xf32> to tensor<?xf16>
      kir.store %35, %o[%arg0, %arg1, %5] : tensor<?xf16>, !kir.view<f16, [B, S, D], out>[index, index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A guard by another mask (D, here C's negation) than the scores' (C): exp(where(C, s, -inf) - m) is
// COM: kept as written (no masked-exponential rewrite, so no NaN fix-up either: the terms are the source's).
// CHECK-LABEL: kir.kernel @guard_by_another_mask
// CHECK: kir.region_fold
// CHECK: %[[F:.*]]:2 = kir.region_fold
// CHECK: ^bb0(%[[CS:.*]]: tensor<?xi1>,
// CHECK: %[[SM:.*]] = kir.select %[[CS]], %{{.*}}, %{{.*}}
// CHECK: %[[D:.*]] = kir.binary sub %[[SM]], %{{.*}}
// CHECK: %[[E:.*]] = kir.unary exp %[[D]]
// CHECK: kir.select %{{.*}}, %[[E]], %{{.*}}
// CHECK: } combine {
// CHECK-NOT: 0x7FC00000
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @guard_by_another_mask(%q: !kir.view<f16, [B, S, D], in>, %k: !kir.view<f16, [B, T, D], in>, %v: !kir.view<f16, [B, T, D], in>, %bm: !kir.view<i1, [B, SB, TB], in>, %o: !kir.view<f16, [B, S, D], out>, %scale: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "S"
    %2 = kir.extent "D"
    %3 = kir.extent "T"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %3
    %5 = kir.domain %c0 to %2
    %6 = kir.domain %c0 to %0
    %7 = kir.domain %c0 to %1
    %c8 = arith.constant 8 : index
    %8 = kir.indices %4 : tensor<?xindex>
    %9 = kir.broadcast %c8 over(%4) dims [] : index -> tensor<?xindex>
    %10 = kir.broadcast %scale over(%4) dims [] : f32 -> tensor<?xf32>
    %cst = arith.constant 0xFF800000 : f32
    %11 = kir.broadcast %cst over(%4) dims [] : f32 -> tensor<?xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %12 = kir.broadcast %cst_0 over(%4) dims [] : f32 -> tensor<?xf32>
    %13 = kir.broadcast %cst_0 over(%5) dims [] : f32 -> tensor<?xf32>
    %cst_1 = arith.constant 1.000000e+00 : f32
    %one = kir.broadcast %cst_1 over(%4) dims [] : f32 -> tensor<?xf32>
    // expected-remark @below {{kir-online-folds: a maximum and 2 reduction(s) over one axis became two region folds (exact two-pass, source numerics}}
    kir.parallel %6, %7 {
    ^bb0(%arg0: index, %arg1: index):
      %14 = kir.binary div %arg1, %c8 : index
      %15 = kir.binary div %8, %9 : tensor<?xindex>
      %16 = kir.gather %bm[%arg0, %14, %15] : !kir.view<i1, [B, SB, TB], in>[index, index, tensor<?xindex>] -> tensor<?xi1>
      %17 = kir.load %k[%arg0, %4, %5] : !kir.view<f16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %18 = kir.load %q[%arg0, %arg1, %5] : !kir.view<f16, [B, S, D], in>[index, index, !kir.domain] -> tensor<?xf16>
      %19 = kir.contract %17, %18 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %20 = kir.binary mul %19, %10 : tensor<?xf32>
      %21 = kir.select %16, %20, %11 : tensor<?xi1>, tensor<?xf32>
      %22 = kir.reduce %21 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg2: f32, %arg3: f32):
        %36 = kir.binary max %arg2, %arg3 : f32
        kir.yield %36 : f32
      }
      %23 = kir.broadcast %22 over(%4) dims [] : f32 -> tensor<?xf32>
      %24 = kir.binary sub %21, %23 : tensor<?xf32>
      %25 = kir.unary exp %24 : tensor<?xf32>
      %true = arith.constant true
      %tt = kir.broadcast %true over(%4) dims [] : i1 -> tensor<?xi1>
      %nc = kir.binary xor %16, %tt : tensor<?xi1>
      %26 = kir.select %nc, %25, %12 : tensor<?xi1>, tensor<?xf32>
      %27 = kir.reduce %26 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg2: f32, %arg3: f32):
        %36 = kir.binary add %arg2, %arg3 : f32
        kir.yield %36 : f32
      }
      %28 = kir.cast %26 : tensor<?xf32> to tensor<?xf16>
      %29 = kir.load %v[%arg0, %4, %5] : !kir.view<f16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %30 = kir.contract %28, %29 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
      %31 = kir.cmp gt %27, %cst_0 : f32
      %32 = kir.broadcast %27 over(%5) dims [] : f32 -> tensor<?xf32>
      %33 = kir.binary div %30, %32 : tensor<?xf32>
      %34 = kir.select %31, %33, %13 : i1, tensor<?xf32>
      %35 = kir.cast %34 : tensor<?xf32> to tensor<?xf16>
      kir.store %35, %o[%arg0, %arg1, %5] : tensor<?xf16>, !kir.view<f16, [B, S, D], out>[index, index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the other side of the select is 1, not 0 (the term is not P-scaled).
// CHECK-LABEL: kir.kernel @other_side_not_zero
// CHECK-NOT: kir.region_fold
// CHECK: kir.reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @other_side_not_zero(%q: !kir.view<f16, [B, S, D], in>, %k: !kir.view<f16, [B, T, D], in>, %v: !kir.view<f16, [B, T, D], in>, %bm: !kir.view<i1, [B, SB, TB], in>, %o: !kir.view<f16, [B, S, D], out>, %scale: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "S"
    %2 = kir.extent "D"
    %3 = kir.extent "T"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %3
    %5 = kir.domain %c0 to %2
    %6 = kir.domain %c0 to %0
    %7 = kir.domain %c0 to %1
    %c8 = arith.constant 8 : index
    %8 = kir.indices %4 : tensor<?xindex>
    %9 = kir.broadcast %c8 over(%4) dims [] : index -> tensor<?xindex>
    %10 = kir.broadcast %scale over(%4) dims [] : f32 -> tensor<?xf32>
    %cst = arith.constant 0xFF800000 : f32
    %11 = kir.broadcast %cst over(%4) dims [] : f32 -> tensor<?xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %12 = kir.broadcast %cst_0 over(%4) dims [] : f32 -> tensor<?xf32>
    %13 = kir.broadcast %cst_0 over(%5) dims [] : f32 -> tensor<?xf32>
    %cst_1 = arith.constant 1.000000e+00 : f32
    %one = kir.broadcast %cst_1 over(%4) dims [] : f32 -> tensor<?xf32>
    kir.parallel %6, %7 {
    ^bb0(%arg0: index, %arg1: index):
      %14 = kir.binary div %arg1, %c8 : index
      %15 = kir.binary div %8, %9 : tensor<?xindex>
      %16 = kir.gather %bm[%arg0, %14, %15] : !kir.view<i1, [B, SB, TB], in>[index, index, tensor<?xindex>] -> tensor<?xi1>
      %17 = kir.load %k[%arg0, %4, %5] : !kir.view<f16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %18 = kir.load %q[%arg0, %arg1, %5] : !kir.view<f16, [B, S, D], in>[index, index, !kir.domain] -> tensor<?xf16>
      %19 = kir.contract %17, %18 reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
      %20 = kir.binary mul %19, %10 : tensor<?xf32>
      %21 = kir.select %16, %20, %11 : tensor<?xi1>, tensor<?xf32>
      // expected-remark @below {{kir-online-folds: the maximum stays a two-pass reduction: a use of exp(x - max) by 'kir.select' that is not a reduction over the axis}}
      %22 = kir.reduce %21 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg2: f32, %arg3: f32):
        %36 = kir.binary max %arg2, %arg3 : f32
        kir.yield %36 : f32
      }
      %23 = kir.broadcast %22 over(%4) dims [] : f32 -> tensor<?xf32>
      %24 = kir.binary sub %21, %23 : tensor<?xf32>
      %25 = kir.unary exp %24 : tensor<?xf32>
      %26 = kir.select %16, %25, %one : tensor<?xi1>, tensor<?xf32>
      %27 = kir.reduce %26 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg2: f32, %arg3: f32):
        %36 = kir.binary add %arg2, %arg3 : f32
        kir.yield %36 : f32
      }
      %28 = kir.cast %26 : tensor<?xf32> to tensor<?xf16>
      %29 = kir.load %v[%arg0, %4, %5] : !kir.view<f16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %30 = kir.contract %28, %29 reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
      %31 = kir.cmp gt %27, %cst_0 : f32
      %32 = kir.broadcast %27 over(%5) dims [] : f32 -> tensor<?xf32>
      %33 = kir.binary div %30, %32 : tensor<?xf32>
      %34 = kir.select %31, %33, %13 : i1, tensor<?xf32>
      %35 = kir.cast %34 : tensor<?xf32> to tensor<?xf16>
      kir.store %35, %o[%arg0, %arg1, %5] : tensor<?xf16>, !kir.view<f16, [B, S, D], out>[index, index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a mask varying along another axis than the keys, the heads of a per-row [H, T]
// COM: score tile (multi-query decode): per-row masks are not folded, so the exponentials stay as written.
// CHECK-LABEL: kir.kernel @per_row_mask
// CHECK-NOT: kir.region_fold
// CHECK: kir.reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @per_row_mask(%q: !kir.view<bf16, [B, H, D], in>, %k: !kir.view<bf16, [B, T, D], in>, %v: !kir.view<bf16, [B, T, D], in>, %keep: !kir.view<i1, [B, H, T], in>, %o: !kir.view<bf16, [B, H, D], out>, %scale: f32) {
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
    %z = kir.broadcast %cst_0 over(%3, %5) dims [] : f32 -> tensor<?x?xf32>
    kir.parallel %7 {
    ^bb0(%arg0: index):
      %9 = kir.load %k[%arg0, %5, %6] : !kir.view<bf16, [B, T, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %10 = kir.load %q[%arg0, %3, %6] : !kir.view<bf16, [B, H, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %11 = kir.contract %10, %9 reduce([1], [1]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
      %12 = kir.binary mul %11, %8 : tensor<?x?xf32>
      // expected-remark @below {{kir-online-folds: the maximum stays a two-pass reduction: a masked exponential with a free axis (per-row masks are not folded)}}
      %13 = kir.reduce %12 axes [1] identity(%cst : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %24 = kir.binary max %arg1, %arg2 : f32
        kir.yield %24 : f32
      }
      %14 = kir.broadcast %13 over(%3, %5) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %15 = kir.binary sub %12, %14 : tensor<?x?xf32>
      %e = kir.unary exp %15 : tensor<?x?xf32>
      %mk = kir.load %keep[%arg0, %3, %5] : !kir.view<i1, [B, H, T], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xi1>
      %16 = kir.select %mk, %e, %z : tensor<?x?xi1>, tensor<?x?xf32>
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
