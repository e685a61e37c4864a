// RUN: tessel-opt %s -split-input-file -kir-contract-products | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s -split-input-file -kir-contract-products -kir-online-folds | FileCheck %s --check-prefix=FOLD

// COM: Attention written with sums of products (s = sum(q * k, axis=1), o = sum(p * v, axis=0)):
// COM: both sums have an outer-product axis (the keys in k only; the dims in v only), so they become
// COM: contractions; q and k are f16 widened to f32, so the first reads the f16 operands (exact
// COM: products). The products, broadcasts and casts that only fed them are gone.
// CHECK-LABEL: kir.kernel @attention
// CHECK: %[[Q:.*]] = kir.load %q
// CHECK-NEXT: %[[K:.*]] = kir.load %k
// CHECK-NEXT: %[[S:.*]] = kir.contract %[[Q]], %[[K]] reduce([0], [1]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
// CHECK: %[[P:.*]] = kir.unary exp
// CHECK-NEXT: %[[V:.*]] = kir.load %v
// CHECK-NEXT: %[[VF:.*]] = kir.cast %[[V]] : tensor<?x?xf16> to tensor<?x?xf32>
// CHECK-NEXT: kir.contract %[[P]], %[[VF]] reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
// CHECK-NOT: kir.binary mul %{{.*}} : tensor<?x?xf32>
// COM: with kir-online-folds after it, the row is two exact region folds (source numerics).
// FOLD-LABEL: kir.kernel @attention
// FOLD-COUNT-2: kir.region_fold
kir.kernel @attention(%q: !kir.view<f16, [S, D], in>, %k: !kir.view<f16, [T, D], in>, %v: !kir.view<f16, [T, D], in>,
                      %o: !kir.view<f32, [S, D], out>) {
  %c0 = arith.constant 0 : index
  %t = kir.extent "T"
  %d = kir.extent "D"
  %s = kir.extent "S"
  %keys = kir.domain %c0 to %t
  %dims = kir.domain %c0 to %d
  %rows = kir.domain %c0 to %s
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  kir.parallel %rows {
  ^bb0(%i: index):
    %q1 = kir.load %q[%i, %dims] : !kir.view<f16, [S, D], in>[index, !kir.domain] -> tensor<?xf16>
    %qf = kir.cast %q1 : tensor<?xf16> to tensor<?xf32>
    %k2 = kir.load %k[%keys, %dims] : !kir.view<f16, [T, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
    %kf = kir.cast %k2 : tensor<?x?xf16> to tensor<?x?xf32>
    %qb = kir.broadcast %qf over(%keys, %dims) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
    %prod = kir.binary mul %qb, %kf : tensor<?x?xf32>
    %sc = kir.reduce %prod axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%a: f32, %b: f32):
      %r = kir.binary add %a, %b : f32
      kir.yield %r : f32
    }
    %m = kir.reduce %sc axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%a: f32, %b: f32):
      %r = kir.binary max %a, %b : f32
      kir.yield %r : f32
    }
    %mb = kir.broadcast %m over(%keys) dims [] : f32 -> tensor<?xf32>
    %x = kir.binary sub %sc, %mb : tensor<?xf32>
    %p = kir.unary exp %x : tensor<?xf32>
    %v2 = kir.load %v[%keys, %dims] : !kir.view<f16, [T, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
    %vf = kir.cast %v2 : tensor<?x?xf16> to tensor<?x?xf32>
    %pb = kir.broadcast %p over(%keys, %dims) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %pv = kir.binary mul %pb, %vf : tensor<?x?xf32>
    %acc = kir.reduce %pv axes [0] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%a: f32, %b: f32):
      %r = kir.binary add %a, %b : f32
      kir.yield %r : f32
    }
    %l = kir.reduce %p axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%a: f32, %b: f32):
      %r = kir.binary add %a, %b : f32
      kir.yield %r : f32
    }
    %lb = kir.broadcast %l over(%dims) dims [] : f32 -> tensor<?xf32>
    %out = kir.binary div %acc, %lb : tensor<?xf32>
    kir.store %out, %o[%i, %dims] : tensor<?xf32>, !kir.view<f32, [S, D], out>[index, !kir.domain]
    kir.yield
  }
  kir.return
}

// -----

// COM: A product whose kept axes come in the other order than the contraction's (lhs axes, then
// COM: rhs-only axes): y[n, m] = sum_k a[k, m] * b[n, k] is contract(a, b) over (m, n), transposed.
// CHECK-LABEL: kir.kernel @transposed
// CHECK: %[[C:.*]] = kir.contract %{{.*}}, %{{.*}} reduce([0], [1]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT: %[[Y:.*]] = kir.transpose %[[C]] [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT: kir.store %[[Y]]
kir.kernel @transposed(%a: !kir.view<f32, [K, M], in>, %b: !kir.view<f32, [N, K], in>, %y: !kir.view<f32, [N, M], out>) {
  %c0 = arith.constant 0 : index
  %kk = kir.extent "K"
  %mm = kir.extent "M"
  %nn = kir.extent "N"
  %dk = kir.domain %c0 to %kk
  %dm = kir.domain %c0 to %mm
  %dn = kir.domain %c0 to %nn
  %zero = arith.constant 0.0 : f32
  %a2 = kir.load %a[%dk, %dm] : !kir.view<f32, [K, M], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  %b2 = kir.load %b[%dn, %dk] : !kir.view<f32, [N, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  %ab = kir.broadcast %a2 over(%dn, %dk, %dm) dims [1, 2] : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %bb = kir.broadcast %b2 over(%dn, %dk, %dm) dims [0, 1] : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %prod = kir.binary mul %ab, %bb : tensor<?x?x?xf32>
  %s = kir.reduce %prod axes [1] identity(%zero : f32) : (tensor<?x?x?xf32>) -> (tensor<?x?xf32>) {
  ^bb0(%x: f32, %w: f32):
    %r = kir.binary add %x, %w : f32
    kir.yield %r : f32
  }
  kir.store %s, %y[%dn, %dm] : tensor<?x?xf32>, !kir.view<f32, [N, M], out>[!kir.domain, !kir.domain]
  kir.return
}

// -----

// COM: Must not fire: a row's sum of squares (no outer-product axis: the row paths realize it), a
// COM: sum over an axis spread in one factor (sum over j of x[i] * w[i, j], x constant along j), a
// COM: maximum of products, and a row-wise dot of two full matrices (batch and reduce axes only).
// CHECK-LABEL: kir.kernel @stays
// CHECK-NOT: kir.contract
// CHECK-COUNT-4: kir.reduce
kir.kernel @stays(%x: !kir.view<f32, [N], in>, %w: !kir.view<f32, [N, M], in>, %y: !kir.view<f32, [N], out>,
                  %z: !kir.view<f32, [N], out>) {
  %c0 = arith.constant 0 : index
  %nn = kir.extent "N"
  %mm = kir.extent "M"
  %dn = kir.domain %c0 to %nn
  %dm = kir.domain %c0 to %mm
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %x1 = kir.load %x[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  %sq = kir.binary mul %x1, %x1 : tensor<?xf32>
  %ss = kir.reduce %sq axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
  ^bb0(%a: f32, %b: f32):
    %r = kir.binary add %a, %b : f32
    kir.yield %r : f32
  }
  %w2 = kir.load %w[%dn, %dm] : !kir.view<f32, [N, M], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  %xb = kir.broadcast %x1 over(%dn, %dm) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %xw = kir.binary mul %xb, %w2 : tensor<?x?xf32>
  %s1 = kir.reduce %xw axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = kir.binary add %a, %b : f32
    kir.yield %r : f32
  }
  %mx = kir.reduce %xw axes [1] identity(%ninf : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = kir.binary max %a, %b : f32
    kir.yield %r : f32
  }
  %ww = kir.binary mul %w2, %w2 : tensor<?x?xf32>
  %s2 = kir.reduce %ww axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = kir.binary add %a, %b : f32
    kir.yield %r : f32
  }
  %t1 = kir.binary add %s1, %mx : tensor<?xf32>
  kir.store %t1, %y[%dn] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.store %s2, %z[%dn] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.return
}

// -----

// COM: Paged decode: the keys of row b are read through a block table (joint gathers). With the sums
// COM: as contractions, kir-online-folds takes the gathered K and V tiles as fold sources (a read's
// COM: result is sliced, its coordinates are not); the block ids and slots only feed coordinates and
// COM: stay before the folds; the cast of the V tile is computed on each slice.
// FOLD-LABEL: kir.kernel @paged
// FOLD: kir.parallel
// FOLD: %[[BLK:.*]] = kir.gather %table
// FOLD: %[[K:.*]] = kir.gather %kc[{{.*}}] {joint = array<i64: -1, 0, -1>}
// FOLD: %[[V:.*]] = kir.gather %vc[{{.*}}] {joint = array<i64: -1, 0, -1>}
// FOLD: kir.region_fold sources(%[[K]]
// FOLD: kir.region_fold sources(%[[K]], %[[V]]
// FOLD: kir.cast %{{.*}} : tensor<?x?xf16> to tensor<?x?xf32>
kir.kernel @paged(%q: !kir.view<f16, [B, D], in>, %kc: !kir.view<f16, [NB, BS, D], in>, %vc: !kir.view<f16, [NB, BS, D], in>,
                  %table: !kir.view<i32, [B, MB], in>, %lens: !kir.view<i32, [B], in>, %o: !kir.view<f32, [B, D], out>) {
  %c0 = arith.constant 0 : index
  %bb = kir.extent "B"
  %bs = kir.extent "BS"
  %d = kir.extent "D"
  %rows = kir.domain %c0 to %bb
  %dims = kir.domain %c0 to %d
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  kir.parallel %rows {
  ^bb0(%b: index):
    %len32 = kir.load %lens[%b] : !kir.view<i32, [B], in>[index] -> i32
    %len = kir.cast %len32 : i32 to index
    %toks = kir.domain %c0 to %len
    %t = kir.indices %toks : tensor<?xindex>
    %bsb = kir.broadcast %bs over(%toks) dims [] : index -> tensor<?xindex>
    %qt = kir.binary div %t, %bsb : tensor<?xindex>
    %blk32 = kir.gather %table[%b, %qt] : !kir.view<i32, [B, MB], in>[index, tensor<?xindex>] -> tensor<?xi32>
    %blk = kir.cast %blk32 : tensor<?xi32> to tensor<?xindex>
    %slot = kir.binary rem %t, %bsb : tensor<?xindex>
    %k2 = kir.gather %kc[%blk, %slot, %dims] {joint = array<i64: -1, 0, -1>} : !kir.view<f16, [NB, BS, D], in>[tensor<?xindex>, tensor<?xindex>, !kir.domain] -> tensor<?x?xf16>
    %v2 = kir.gather %vc[%blk, %slot, %dims] {joint = array<i64: -1, 0, -1>} : !kir.view<f16, [NB, BS, D], in>[tensor<?xindex>, tensor<?xindex>, !kir.domain] -> tensor<?x?xf16>
    %q1 = kir.load %q[%b, %dims] : !kir.view<f16, [B, D], in>[index, !kir.domain] -> tensor<?xf16>
    %sc = kir.contract %q1, %k2 reduce([0], [1]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
    %m = kir.reduce %sc axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%a: f32, %c: f32):
      %r = kir.binary max %a, %c : f32
      kir.yield %r : f32
    }
    %mb = kir.broadcast %m over(%toks) dims [] : f32 -> tensor<?xf32>
    %x = kir.binary sub %sc, %mb : tensor<?xf32>
    %p = kir.unary exp %x : tensor<?xf32>
    %vf = kir.cast %v2 : tensor<?x?xf16> to tensor<?x?xf32>
    %acc = kir.contract %p, %vf reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
    %l = kir.reduce %p axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%a: f32, %c: f32):
      %r = kir.binary add %a, %c : f32
      kir.yield %r : f32
    }
    %lb = kir.broadcast %l over(%dims) dims [] : f32 -> tensor<?xf32>
    %out = kir.binary div %acc, %lb : tensor<?xf32>
    kir.store %out, %o[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
    kir.yield
  }
  kir.return
}
