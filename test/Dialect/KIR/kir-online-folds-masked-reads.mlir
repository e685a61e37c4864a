// RUN: tessel-opt %s -split-input-file -kir-online-folds -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: Masked reads over a key domain the member defines (issue 41/43, bench/corpus/300: tree
// COM: attention, keys 0 .. P + N of sequence b, the tree mask read only at tree keys,
// COM: `(~(kp >= P)) | load(tree_mask, kp - P, valid=kp >= P, fill=False)`). Before: refused ("a
// COM: masked load over the axis"), the softmax kept element by element. After: the masked gather is a
// COM: fold source like an unmasked one (its validity and coordinates computed before the folds,
// COM: seed 002 §3.4); the position test it shares with the mask stays there for it and is also
// COM: recomputed in each summarizer from the key positions.
// CHECK-LABEL: kir.kernel @tree_keys
// CHECK: %[[IDX:.*]] = kir.indices %[[KEYS:.*]] : tensor<?xindex>
// CHECK-NEXT: %[[POS:.*]] = kir.indices %[[KEYS]] : tensor<?xindex>
// CHECK: %[[IN:.*]] = kir.cmp ge %[[POS]], %{{.*}} : tensor<?xindex>
// CHECK: %[[REL:.*]] = kir.binary sub %[[POS]], %{{.*}} : tensor<?xindex>
// CHECK: %[[TREE:.*]] = kir.gather %tree_mask[%{{.*}}, %{{.*}}, %[[REL]]] valid %[[IN]] : tensor<?xi1> fill %false : i1
// CHECK: %[[M:.*]] = kir.region_fold sources(%[[TREE]], %{{.*}}, %[[IDX]] : tensor<?xi1>, tensor<?x?xbf16>, tensor<?xindex>)
// CHECK: kir.cmp ge
// CHECK-NEXT: kir.unary not
// CHECK-NEXT: kir.binary or
// CHECK: kir.binary max
// CHECK: kir.region_fold sources(%[[TREE]], %{{.*}}, %{{.*}}, %{{.*}} : tensor<?xi1>, tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?xindex>)
// CHECK-SAME: operands(%{{.*}}, %{{.*}}, %{{.*}}, %[[M]] :
// CHECK-NOT: kir.reduce %{{.*}} axes [0] identity(%cst : f32)
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @tree_keys(%q: !kir.view<bf16, [B, H, N, D], in>, %k: !kir.view<bf16, [B, H, S, D], in>, %v: !kir.view<bf16, [B, H, S, D], in>, %prefix_len: !kir.view<i32, [B], in>, %tree_mask: !kir.view<i1, [B, N, N], in>, %out: !kir.view<bf16, [B, H, N, D], out>, %scale: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "H"
    %2 = kir.extent "N"
    %3 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %3
    %5 = kir.domain %c0 to %0
    %6 = kir.domain %c0 to %1
    %7 = kir.domain %c0 to %2
    %false = arith.constant false
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    // expected-remark @below {{kir-online-folds: a maximum and 2 reduction(s) over one axis became two region folds}}
    kir.parallel %5, %6, %7 {
    ^bb0(%arg0: index, %arg1: index, %arg2: index):
      %8 = kir.load %prefix_len[%arg0] : !kir.view<i32, [B], in>[index] -> i32
      %9 = kir.cast %8 : i32 to index
      %10 = kir.binary add %9, %2 : index
      %11 = kir.domain %c0 to %10
      %12 = kir.indices %11 : tensor<?xindex>
      %13 = kir.broadcast %9 over(%11) dims [] : index -> tensor<?xindex>
      %14 = kir.cmp ge %12, %13 : tensor<?xindex>
      %15 = kir.unary not %14 : tensor<?xi1>
      %17 = kir.binary sub %12, %13 : tensor<?xindex>
      %18 = kir.gather %tree_mask[%arg0, %arg2, %17] valid %14 : tensor<?xi1> fill %false : i1 : !kir.view<i1, [B, N, N], in>[index, index, tensor<?xindex>] -> tensor<?xi1>
      %19 = kir.binary or %15, %18 : tensor<?xi1>
      %20 = kir.load %k[%arg0, %arg1, %11, %4] : !kir.view<bf16, [B, H, S, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %21 = kir.cast %20 : tensor<?x?xbf16> to tensor<?x?xf32>
      %22 = kir.load %q[%arg0, %arg1, %arg2, %4] : !kir.view<bf16, [B, H, N, D], in>[index, index, index, !kir.domain] -> tensor<?xbf16>
      %23 = kir.cast %22 : tensor<?xbf16> to tensor<?xf32>
      %24 = kir.contract %21, %23 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      %25 = kir.broadcast %scale over(%11) dims [] : f32 -> tensor<?xf32>
      %26 = kir.binary mul %24, %25 : tensor<?xf32>
      %27 = kir.broadcast %cst over(%11) dims [] : f32 -> tensor<?xf32>
      %28 = kir.select %19, %26, %27 : tensor<?xi1>, tensor<?xf32>
      %29 = kir.reduce %28 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %40 = kir.binary max %arg3, %arg4 : f32
        kir.yield %40 : f32
      }
      %30 = kir.broadcast %29 over(%11) dims [] : f32 -> tensor<?xf32>
      %31 = kir.binary sub %28, %30 : tensor<?xf32>
      %32 = kir.unary exp %31 : tensor<?xf32>
      %33 = kir.load %v[%arg0, %arg1, %11, %4] : !kir.view<bf16, [B, H, S, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %34 = kir.cast %33 : tensor<?x?xbf16> to tensor<?x?xf32>
      %35 = kir.contract %32, %34 reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
      %36 = kir.reduce %32 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %40 = kir.binary add %arg3, %arg4 : f32
        kir.yield %40 : f32
      }
      %37 = kir.broadcast %36 over(%4) dims [] : f32 -> tensor<?xf32>
      %38 = kir.binary div %35, %37 : tensor<?xf32>
      %39 = kir.cast %38 : tensor<?xf32> to tensor<?xbf16>
      kir.store %39, %out[%arg0, %arg1, %arg2, %4] : tensor<?xbf16>, !kir.view<bf16, [B, H, N, D], out>[index, index, index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the masked read's validity reads x - max (keys whose shifted score is above
// COM: -1): it cannot be computed before the folds that find the maximum.
// CHECK-LABEL: kir.kernel @validity_after_max
// CHECK-NOT: kir.region_fold
// CHECK: kir.reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @validity_after_max(%q: !kir.view<bf16, [B, H, N, D], in>, %k: !kir.view<bf16, [B, H, S, D], in>, %v: !kir.view<bf16, [B, H, S, D], in>, %prefix_len: !kir.view<i32, [B], in>, %tree_mask: !kir.view<i1, [B, N, N], in>, %out: !kir.view<bf16, [B, H, N, D], out>, %scale: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "H"
    %2 = kir.extent "N"
    %3 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %3
    %5 = kir.domain %c0 to %0
    %6 = kir.domain %c0 to %1
    %7 = kir.domain %c0 to %2
    %false = arith.constant false
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    kir.parallel %5, %6, %7 {
    ^bb0(%arg0: index, %arg1: index, %arg2: index):
      %8 = kir.load %prefix_len[%arg0] : !kir.view<i32, [B], in>[index] -> i32
      %9 = kir.cast %8 : i32 to index
      %10 = kir.binary add %9, %2 : index
      %11 = kir.domain %c0 to %10
      %12 = kir.indices %11 : tensor<?xindex>
      %13 = kir.broadcast %9 over(%11) dims [] : index -> tensor<?xindex>
      %14 = kir.cmp ge %12, %13 : tensor<?xindex>
      %15 = kir.unary not %14 : tensor<?xi1>
      %17 = kir.binary sub %12, %13 : tensor<?xindex>
      %20 = kir.load %k[%arg0, %arg1, %11, %4] : !kir.view<bf16, [B, H, S, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %21 = kir.cast %20 : tensor<?x?xbf16> to tensor<?x?xf32>
      %22 = kir.load %q[%arg0, %arg1, %arg2, %4] : !kir.view<bf16, [B, H, N, D], in>[index, index, index, !kir.domain] -> tensor<?xbf16>
      %23 = kir.cast %22 : tensor<?xbf16> to tensor<?xf32>
      %24 = kir.contract %21, %23 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      %25 = kir.broadcast %scale over(%11) dims [] : f32 -> tensor<?xf32>
      %26 = kir.binary mul %24, %25 : tensor<?xf32>
      // expected-remark @below {{kir-online-folds: the maximum stays a two-pass reduction: an exp of something other than x - max, or another use of x - max}}
      %29 = kir.reduce %26 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %40 = kir.binary max %arg3, %arg4 : f32
        kir.yield %40 : f32
      }
      %30 = kir.broadcast %29 over(%11) dims [] : f32 -> tensor<?xf32>
      %31 = kir.binary sub %26, %30 : tensor<?xf32>
      %32 = kir.unary exp %31 : tensor<?xf32>
      %cm1 = arith.constant -1.000000e+00 : f32
      %m1 = kir.broadcast %cm1 over(%11) dims [] : f32 -> tensor<?xf32>
      %ok = kir.cmp gt %31, %m1 : tensor<?xf32>
      %18 = kir.gather %tree_mask[%arg0, %arg2, %17] valid %ok : tensor<?xi1> fill %false : i1 : !kir.view<i1, [B, N, N], in>[index, index, tensor<?xindex>] -> tensor<?xi1>
      %zs = kir.broadcast %cst_0 over(%11) dims [] : f32 -> tensor<?xf32>
      %p = kir.select %18, %32, %zs : tensor<?xi1>, tensor<?xf32>
      %33 = kir.load %v[%arg0, %arg1, %11, %4] : !kir.view<bf16, [B, H, S, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
      %34 = kir.cast %33 : tensor<?x?xbf16> to tensor<?x?xf32>
      %35 = kir.contract %p, %34 reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
      %36 = kir.reduce %p axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg3: f32, %arg4: f32):
        %40 = kir.binary add %arg3, %arg4 : f32
        kir.yield %40 : f32
      }
      %37 = kir.broadcast %36 over(%4) dims [] : f32 -> tensor<?xf32>
      %38 = kir.binary div %35, %37 : tensor<?xf32>
      %39 = kir.cast %38 : tensor<?xf32> to tensor<?xbf16>
      kir.store %39, %out[%arg0, %arg1, %arg2, %4] : tensor<?xbf16>, !kir.view<bf16, [B, H, N, D], out>[index, index, index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
