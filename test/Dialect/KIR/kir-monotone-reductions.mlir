// RUN: tessel-opt %s -split-input-file -kir-monotone-reductions | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s -split-input-file -kir-monotone-reductions -kir-to-pgpu > /dev/null

// COM: The maximum of softmax probabilities p = e / sum(e), e = exp(z - max z) (corpus 178's min-p
// COM: threshold). Before: a maximum over p, a pass over the row after the sum. After: max(e) / sum(e)
// COM: (e >= 0, divided by its own sum), max(e) = exp(max(z - m)) guarded for an empty row,
// COM: max(z - m) = max(z) - m guarded, and max(z) is m itself: no reduction of its own.
// CHECK-LABEL: kir.kernel @softmax_max
// CHECK: %[[M:.*]] = kir.reduce %[[Z:.*]] axes [0] identity(%[[NINF:.*]] : f32)
// CHECK: kir.binary max
// CHECK: %[[S:.*]] = kir.reduce %[[E:.*]] axes [0] identity
// CHECK: kir.binary add
// CHECK-NOT: kir.reduce
// CHECK: %[[NE1:.*]] = kir.cmp lt %{{.*}}, %[[N:.*]] : index
// CHECK: %[[NE2:.*]] = kir.cmp lt %{{.*}}, %[[N]] : index
// CHECK: %[[D:.*]] = kir.binary sub %[[M]], %[[M]] : f32
// CHECK: %[[GD:.*]] = kir.select %[[NE2]], %[[D]], %[[NINF]] : i1, f32
// CHECK: %[[X:.*]] = kir.unary exp %[[GD]] : f32
// CHECK: %[[GX:.*]] = kir.select %[[NE1]], %[[X]], %[[NINF]] : i1, f32
// CHECK: %[[MP:.*]] = kir.binary div %[[GX]], %[[S]] : f32
// CHECK-NOT: kir.reduce
// CHECK: kir.store %[[MP]], %y
kir.kernel @softmax_max(%x: !kir.view<f32, [B, V], in>, %y: !kir.view<f32, [B], out>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %nb = kir.extent "B"
  %nv = kir.extent "V"
  %rows = kir.domain %c0 to %nb
  %cols = kir.domain %c0 to %nv
  kir.parallel %rows {
  ^bb0(%b: index):
    %z = kir.load %x[%b, %cols] : !kir.view<f32, [B, V], in>[index, !kir.domain] -> tensor<?xf32>
    %m = kir.reduce %z axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %q: f32):
      %r = kir.binary max %p, %q : f32
      kir.yield %r : f32
    }
    %mb = kir.broadcast %m over(%cols) dims [] : f32 -> tensor<?xf32>
    %d = kir.binary sub %z, %mb : tensor<?xf32>
    %e = kir.unary exp %d : tensor<?xf32>
    %s = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %q: f32):
      %r = kir.binary add %p, %q : f32
      kir.yield %r : f32
    }
    %sb = kir.broadcast %s over(%cols) dims [] : f32 -> tensor<?xf32>
    %pr = kir.binary div %e, %sb : tensor<?xf32>
    %mp = kir.reduce %pr axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %q: f32):
      %r = kir.binary max %p, %q : f32
      kir.yield %r : f32
    }
    kir.store %mp, %y[%b] : f32, !kir.view<f32, [B], out>[index]
    kir.yield
  }
  kir.return
}

// -----

// COM: A positive constant scale and a finite shift keep the identity: the minimum of 2.5 * x is
// COM: min(x) * 2.5 and the maximum of x + 1.5 is max(x) + 1.5, no guard.
// CHECK-LABEL: kir.kernel @constant_maps
// CHECK: %[[X:.*]] = kir.load %x
// CHECK: %[[MN:.*]] = kir.reduce %[[X]] axes [0]
// CHECK: kir.binary min
// CHECK: %[[A:.*]] = kir.binary mul %[[MN]], %{{.*}} : f32
// CHECK: kir.store %[[A]], %y
// CHECK: %[[MX:.*]] = kir.reduce %[[X]] axes [0]
// CHECK: kir.binary max
// CHECK: %[[B:.*]] = kir.binary add %[[MX]], %{{.*}} : f32
// CHECK-NOT: kir.select
// CHECK: kir.store %[[B]], %z
kir.kernel @constant_maps(%x: !kir.view<f32, [B, V], in>, %y: !kir.view<f32, [B], out>, %z: !kir.view<f32, [B], out>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %inf = arith.constant 0x7F800000 : f32
  %k = arith.constant 2.5 : f32
  %h = arith.constant 1.5 : f32
  %nb = kir.extent "B"
  %nv = kir.extent "V"
  %rows = kir.domain %c0 to %nb
  %cols = kir.domain %c0 to %nv
  %kb = kir.broadcast %k over(%cols) dims [] : f32 -> tensor<?xf32>
  %hb = kir.broadcast %h over(%cols) dims [] : f32 -> tensor<?xf32>
  kir.parallel %rows {
  ^bb0(%b: index):
    %v = kir.load %x[%b, %cols] : !kir.view<f32, [B, V], in>[index, !kir.domain] -> tensor<?xf32>
    %sc = kir.binary mul %kb, %v : tensor<?xf32>
    %mn = kir.reduce %sc axes [0] identity(%inf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %q: f32):
      %r = kir.binary min %p, %q : f32
      kir.yield %r : f32
    }
    kir.store %mn, %y[%b] : f32, !kir.view<f32, [B], out>[index]
    %sh = kir.binary add %v, %hb : tensor<?xf32>
    %mx = kir.reduce %sh axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %q: f32):
      %r = kir.binary max %p, %q : f32
      kir.yield %r : f32
    }
    kir.store %mx, %z[%b] : f32, !kir.view<f32, [B], out>[index]
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not fire: a scale of unknown sign (a runtime scalar t: a negative t turns the maximum into a
// COM: minimum); a row divided by its own sum whose terms may be negative (the sum may be 0 while a term
// COM: is not, or smaller than a term); the minimum of e / sum(e) (min(e / inf) is NaN where
// COM: min(e) / inf is 0); a max_num combine (drops NaN).
// CHECK-LABEL: kir.kernel @unknown_sign
// CHECK: %[[Q:.*]] = kir.binary div %[[V:.*]], %{{.*}} : tensor<?xf32>
// CHECK: kir.reduce %[[Q]] axes [0]
// CHECK: %[[R:.*]] = kir.binary div %[[V]], %{{.*}} : tensor<?xf32>
// CHECK: kir.reduce %[[R]] axes [0]
// CHECK: %[[P:.*]] = kir.binary div %[[E:.*]], %{{.*}} : tensor<?xf32>
// CHECK: kir.reduce %[[P]] axes [0]
// CHECK: kir.binary min
// CHECK: %[[W:.*]] = kir.unary exp %[[V]]
// CHECK: kir.reduce %[[W]] axes [0]
// CHECK: kir.binary max_num
kir.kernel @unknown_sign(%x: !kir.view<f32, [B, V], in>, %y: !kir.view<f32, [B], out>, %z: !kir.view<f32, [B], out>,
                         %w: !kir.view<f32, [B], out>, %u: !kir.view<f32, [B], out>, %t: f32) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %inf = arith.constant 0x7F800000 : f32
  %zero = arith.constant 0.0 : f32
  %nb = kir.extent "B"
  %nv = kir.extent "V"
  %rows = kir.domain %c0 to %nb
  %cols = kir.domain %c0 to %nv
  %tb = kir.broadcast %t over(%cols) dims [] : f32 -> tensor<?xf32>
  kir.parallel %rows {
  ^bb0(%b: index):
    %v = kir.load %x[%b, %cols] : !kir.view<f32, [B, V], in>[index, !kir.domain] -> tensor<?xf32>
    %q = kir.binary div %v, %tb : tensor<?xf32>
    %mq = kir.reduce %q axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %r: f32):
      %o = kir.binary max %p, %r : f32
      kir.yield %o : f32
    }
    kir.store %mq, %y[%b] : f32, !kir.view<f32, [B], out>[index]
    %s = kir.reduce %v axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %r: f32):
      %o = kir.binary add %p, %r : f32
      kir.yield %o : f32
    }
    %sb = kir.broadcast %s over(%cols) dims [] : f32 -> tensor<?xf32>
    %n = kir.binary div %v, %sb : tensor<?xf32>
    %mn = kir.reduce %n axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %r: f32):
      %o = kir.binary max %p, %r : f32
      kir.yield %o : f32
    }
    kir.store %mn, %z[%b] : f32, !kir.view<f32, [B], out>[index]
    %e = kir.unary exp %v : tensor<?xf32>
    %se = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %r: f32):
      %o = kir.binary add %p, %r : f32
      kir.yield %o : f32
    }
    %seb = kir.broadcast %se over(%cols) dims [] : f32 -> tensor<?xf32>
    %pe = kir.binary div %e, %seb : tensor<?xf32>
    %lo = kir.reduce %pe axes [0] identity(%inf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %r: f32):
      %o = kir.binary min %p, %r : f32
      kir.yield %o : f32
    }
    kir.store %lo, %w[%b] : f32, !kir.view<f32, [B], out>[index]
    %e2 = kir.unary exp %v : tensor<?xf32>
    %mm = kir.reduce %e2 axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %r: f32):
      %o = kir.binary max_num %p, %r : f32
      kir.yield %o : f32
    }
    kir.store %mm, %u[%b] : f32, !kir.view<f32, [B], out>[index]
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not fire: the maximum shifts its own row (s - max s, s = 0.125 * x), the two-pass softmax
// COM: form kir-online-folds turns into a fold. max(x) * 0.125 would read the row as often and hide the
// COM: shift from that pass (a constant-scale attention then stayed two reductions, no fold).
// CHECK-LABEL: kir.kernel @softmax_shift
// CHECK: %[[S:.*]] = kir.binary mul %{{.*}}, %{{.*}} : tensor<?xf32>
// CHECK: %[[M:.*]] = kir.reduce %[[S]] axes [0]
// CHECK: kir.binary max
// CHECK: %[[MB:.*]] = kir.broadcast %[[M]]
// CHECK: kir.binary sub %[[S]], %[[MB]]
kir.kernel @softmax_shift(%x: !kir.view<f32, [B, V], in>, %y: !kir.view<f32, [B, V], out>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %k = arith.constant 0.125 : f32
  %nb = kir.extent "B"
  %nv = kir.extent "V"
  %rows = kir.domain %c0 to %nb
  %cols = kir.domain %c0 to %nv
  %kb = kir.broadcast %k over(%cols) dims [] : f32 -> tensor<?xf32>
  kir.parallel %rows {
  ^bb0(%b: index):
    %v = kir.load %x[%b, %cols] : !kir.view<f32, [B, V], in>[index, !kir.domain] -> tensor<?xf32>
    %s = kir.binary mul %v, %kb : tensor<?xf32>
    %m = kir.reduce %s axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %q: f32):
      %r = kir.binary max %p, %q : f32
      kir.yield %r : f32
    }
    %mb = kir.broadcast %m over(%cols) dims [] : f32 -> tensor<?xf32>
    %d = kir.binary sub %s, %mb : tensor<?xf32>
    %e = kir.unary exp %d : tensor<?xf32>
    %se = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %q: f32):
      %r = kir.binary add %p, %q : f32
      kir.yield %r : f32
    }
    %seb = kir.broadcast %se over(%cols) dims [] : f32 -> tensor<?xf32>
    %pe = kir.binary div %e, %seb : tensor<?xf32>
    kir.store %pe, %y[%b, %cols] : tensor<?xf32>, !kir.view<f32, [B, V], out>[index, !kir.domain]
    kir.yield
  }
  kir.return
}

// -----

// COM: Logit soft-capping under a mask (corpus 17's first fold: the maximum of where(visible, c * tanh(y / c),
// COM: -inf)). c * tanh(y / c) is non-decreasing for either sign of c, so the maximum is taken over
// COM: where(visible, y, -inf) and the map applied once to it, kept -inf where no key is visible (tanh(-inf)
// COM: = -1): any(visible). c is a runtime scalar: where c and y are both 0 the term is 0 / 0 = NaN, so y
// COM: takes NaN there. A positive constant cap (the second row) needs no NaN: y / 30 is never 0 / 0.
// CHECK-LABEL: kir.kernel @soft_cap
// CHECK: %[[Y:.*]] = kir.load %x
// CHECK: %[[VIS:.*]] = kir.cmp le
// CHECK: %[[ANY:.*]] = kir.reduce %[[VIS]] axes [0] identity(%{{.*}} : i1)
// CHECK: kir.binary or
// CHECK: %[[CZ:.*]] = kir.cmp eq %c, %{{.*}} : f32
// CHECK: %[[YZ:.*]] = kir.cmp eq %[[Y]], %{{.*}} : tensor<?xf32>
// CHECK: %[[BOTH:.*]] = kir.binary and %{{.*}}, %[[YZ]] : tensor<?xi1>
// CHECK: %[[YN:.*]] = kir.select %[[BOTH]], %{{.*}}, %[[Y]]
// CHECK: %[[MY:.*]] = kir.select %[[VIS]], %[[YN]], %{{.*}} : tensor<?xi1>, tensor<?xf32>
// CHECK: %[[M:.*]] = kir.reduce %[[MY]] axes [0] identity(%[[NINF:.*]] : f32)
// CHECK: kir.binary max
// CHECK: %[[Q:.*]] = kir.binary div %[[M]], %c : f32
// CHECK: %[[T:.*]] = kir.unary tanh %[[Q]] : f32
// CHECK: %[[F:.*]] = kir.binary mul %c, %[[T]] : f32
// CHECK: %[[G:.*]] = kir.select %[[ANY]], %[[F]], %[[NINF]] : i1, f32
// CHECK: kir.store %[[G]], %y
// CHECK: kir.reduce %[[VIS]] axes [0]
// CHECK-NOT: kir.cmp eq
// CHECK: %[[MY2:.*]] = kir.select %[[VIS]], %[[Y]], %{{.*}} : tensor<?xi1>, tensor<?xf32>
// CHECK: kir.reduce %[[MY2]] axes [0]
// CHECK: kir.unary tanh %{{.*}} : f32
// CHECK: kir.store %{{.*}}, %z
// CHECK-NOT: kir.unary tanh %{{.*}} : tensor<?xf32>
kir.kernel @soft_cap(%x: !kir.view<f32, [B, V], in>, %y: !kir.view<f32, [B], out>, %z: !kir.view<f32, [B], out>, %c: f32) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %k = arith.constant 30.0 : f32
  %nb = kir.extent "B"
  %nv = kir.extent "V"
  %rows = kir.domain %c0 to %nb
  %cols = kir.domain %c0 to %nv
  %cb = kir.broadcast %c over(%cols) dims [] : f32 -> tensor<?xf32>
  %kb = kir.broadcast %k over(%cols) dims [] : f32 -> tensor<?xf32>
  %fill = kir.broadcast %ninf over(%cols) dims [] : f32 -> tensor<?xf32>
  %pos = kir.indices %cols : tensor<?xindex>
  kir.parallel %rows {
  ^bb0(%b: index):
    %v = kir.load %x[%b, %cols] : !kir.view<f32, [B, V], in>[index, !kir.domain] -> tensor<?xf32>
    %bb = kir.broadcast %b over(%cols) dims [] : index -> tensor<?xindex>
    %vis = kir.cmp le %pos, %bb : tensor<?xindex>
    %q = kir.binary div %v, %cb : tensor<?xf32>
    %t = kir.unary tanh %q : tensor<?xf32>
    %s = kir.binary mul %cb, %t : tensor<?xf32>
    %ms = kir.select %vis, %s, %fill : tensor<?xi1>, tensor<?xf32>
    %m = kir.reduce %ms axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %r: f32):
      %o = kir.binary max %p, %r : f32
      kir.yield %o : f32
    }
    kir.store %m, %y[%b] : f32, !kir.view<f32, [B], out>[index]
    %q2 = kir.binary div %v, %kb : tensor<?xf32>
    %t2 = kir.unary tanh %q2 : tensor<?xf32>
    %s2 = kir.binary mul %t2, %kb : tensor<?xf32>
    %ms2 = kir.select %vis, %s2, %fill : tensor<?xi1>, tensor<?xf32>
    %m2 = kir.reduce %ms2 axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %r: f32):
      %o = kir.binary max %p, %r : f32
      kir.yield %o : f32
    }
    kir.store %m2, %z[%b] : f32, !kir.view<f32, [B], out>[index]
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not fire: a cap whose two sides differ (c * tanh(y / d): not monotone for c and d of opposite
// COM: signs), an approximate tanh (tanh.approx need not be monotone), and a masked row filled with 0 rather
// COM: than the maximum's identity (max(where(v, f(y), 0)) is not f of anything).
// CHECK-LABEL: kir.kernel @soft_cap_kept
// CHECK-COUNT-3: kir.unary tanh %{{.*}} : tensor<?xf32>
// CHECK-NOT: kir.unary tanh %{{.*}} : f32
kir.kernel @soft_cap_kept(%x: !kir.view<f32, [B, V], in>, %y: !kir.view<f32, [B], out>, %z: !kir.view<f32, [B], out>,
                          %w: !kir.view<f32, [B], out>, %c: f32, %d: f32) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %nb = kir.extent "B"
  %nv = kir.extent "V"
  %rows = kir.domain %c0 to %nb
  %cols = kir.domain %c0 to %nv
  %cb = kir.broadcast %c over(%cols) dims [] : f32 -> tensor<?xf32>
  %db = kir.broadcast %d over(%cols) dims [] : f32 -> tensor<?xf32>
  %fill = kir.broadcast %ninf over(%cols) dims [] : f32 -> tensor<?xf32>
  %zfill = kir.broadcast %zero over(%cols) dims [] : f32 -> tensor<?xf32>
  %pos = kir.indices %cols : tensor<?xindex>
  kir.parallel %rows {
  ^bb0(%b: index):
    %v = kir.load %x[%b, %cols] : !kir.view<f32, [B, V], in>[index, !kir.domain] -> tensor<?xf32>
    %bb = kir.broadcast %b over(%cols) dims [] : index -> tensor<?xindex>
    %vis = kir.cmp le %pos, %bb : tensor<?xindex>
    %q = kir.binary div %v, %db : tensor<?xf32>
    %t = kir.unary tanh %q : tensor<?xf32>
    %s = kir.binary mul %cb, %t : tensor<?xf32>
    %m = kir.reduce %s axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %r: f32):
      %o = kir.binary max %p, %r : f32
      kir.yield %o : f32
    }
    kir.store %m, %y[%b] : f32, !kir.view<f32, [B], out>[index]
    %q2 = kir.binary div %v, %cb : tensor<?xf32>
    %t2 = kir.unary tanh %q2 {approximate} : tensor<?xf32>
    %s2 = kir.binary mul %cb, %t2 : tensor<?xf32>
    %m2 = kir.reduce %s2 axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %r: f32):
      %o = kir.binary max %p, %r : f32
      kir.yield %o : f32
    }
    kir.store %m2, %z[%b] : f32, !kir.view<f32, [B], out>[index]
    %t3 = kir.unary tanh %q2 : tensor<?xf32>
    %s3 = kir.binary mul %cb, %t3 : tensor<?xf32>
    %ms3 = kir.select %vis, %s3, %zfill : tensor<?xi1>, tensor<?xf32>
    %m3 = kir.reduce %ms3 axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%p: f32, %r: f32):
      %o = kir.binary max %p, %r : f32
      kir.yield %o : f32
    }
    kir.store %m3, %w[%b] : f32, !kir.view<f32, [B], out>[index]
    kir.yield
  }
  kir.return
}
