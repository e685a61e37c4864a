// RUN: tessel-opt %s -split-input-file -kir-chained-folds | FileCheck %s --enable-var-scope

// COM: Non-causal linear attention: kv = contract(pk, v) and z = sum(pk) over the sequence, then
// COM: pq @ kv and pq . z traverse the sequence again. Both sums become one region fold over
// COM: (pk, v) along axis 0 (pk read once), placed before the later contractions, which read it.
// CHECK-LABEL: kir.kernel @linear_attention
// CHECK: %[[PK:.*]] = kir.binary add
// CHECK: %[[V:.*]] = kir.cast %{{.*}} : tensor<?x?xbf16> to tensor<?x?xf32>
// CHECK: %[[KV0:.*]] = kir.broadcast %{{.*}} over(%{{.*}}, %{{.*}}) dims [] : f32 -> tensor<?x?xf32>
// CHECK: %[[Z0:.*]] = kir.broadcast %{{.*}} over(%{{.*}}) dims [] : f32 -> tensor<?xf32>
// CHECK: %[[F:.*]]:2 = kir.region_fold sources(%[[PK]], %[[V]] : tensor<?x?xf32>, tensor<?x?xf32>) axis 0 identity(%[[KV0]], %[[Z0]] : tensor<?x?xf32>, tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) summarize {
// CHECK-NEXT: ^bb0(%[[S0:.*]]: tensor<?x?xf32>, %[[S1:.*]]: tensor<?x?xf32>):
// CHECK-NEXT: %[[C:.*]] = kir.contract %[[S0]], %[[S1]] reduce([0], [0]) batch([], [])
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = kir.reduce %[[S0]] axes [0] identity(%[[ZERO]] : f32)
// CHECK: kir.yield %[[C]], %[[R]] : tensor<?x?xf32>, tensor<?xf32>
// CHECK-NEXT: } combine {
// CHECK-NEXT: ^bb0(%[[A0:.*]]: tensor<?x?xf32>, %[[A1:.*]]: tensor<?xf32>, %[[B0:.*]]: tensor<?x?xf32>, %[[B1:.*]]: tensor<?xf32>):
// CHECK-NEXT: %[[E0:.*]] = kir.binary add %[[A0]], %[[B0]] : tensor<?x?xf32>
// CHECK-NEXT: %[[E1:.*]] = kir.binary add %[[A1]], %[[B1]] : tensor<?xf32>
// CHECK-NEXT: kir.yield %[[E0]], %[[E1]]
// CHECK: kir.contract %{{.*}}, %[[F]]#0 reduce([1], [0])
// CHECK-NEXT: kir.contract %{{.*}}, %[[F]]#1 reduce([1], [0])
// CHECK-NOT: kir.reduce
kir.kernel @linear_attention(%q: !kir.view<bf16, [S, D], in>, %k: !kir.view<bf16, [S, D], in>,
                             %v: !kir.view<bf16, [S, D], in>, %o: !kir.view<f32, [B, S, D], out>) {
  %c0 = arith.constant 0 : index
  %s = kir.extent "S"
  %d = kir.extent "D"
  %nb = kir.extent "B"
  %seq = kir.domain %c0 to %s
  %dims = kir.domain %c0 to %d
  %bs = kir.domain %c0 to %nb
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ones = kir.broadcast %one over(%seq, %dims) dims [] : f32 -> tensor<?x?xf32>
  kir.parallel %bs {
  ^bb0(%b: index):
    %k2 = kir.load %k[%seq, %dims] : !kir.view<bf16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %kf = kir.cast %k2 : tensor<?x?xbf16> to tensor<?x?xf32>
    %pk = kir.binary add %kf, %ones : tensor<?x?xf32>
    %v2 = kir.load %v[%seq, %dims] : !kir.view<bf16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %vf = kir.cast %v2 : tensor<?x?xbf16> to tensor<?x?xf32>
    %kv = kir.contract %pk, %vf reduce([0], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    %z = kir.reduce %pk axes [0] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%x: f32, %y: f32):
      %r = kir.binary add %x, %y : f32
      kir.yield %r : f32
    }
    %q2 = kir.load %q[%seq, %dims] : !kir.view<bf16, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %qf = kir.cast %q2 : tensor<?x?xbf16> to tensor<?x?xf32>
    %pq = kir.binary add %qf, %ones : tensor<?x?xf32>
    %num = kir.contract %pq, %kv reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    %den = kir.contract %pq, %z reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
    %denb = kir.broadcast %den over(%seq, %dims) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %out = kir.binary div %num, %denb : tensor<?x?xf32>
    kir.store %out, %o[%b, %seq, %dims] : tensor<?x?xf32>, !kir.view<f32, [B, S, D], out>[index, !kir.domain, !kir.domain]
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not fire: the contraction over the sequence is stored as it is (no later traversal of
// COM: the sequence reads it), and the row sum feeds elementwise code only (the row paths keep it).
// CHECK-LABEL: kir.kernel @not_chained
// CHECK-NOT: kir.region_fold
// CHECK: kir.contract %{{.*}}, %{{.*}} reduce([0], [0])
// CHECK: kir.reduce
kir.kernel @not_chained(%k: !kir.view<f32, [S, D], in>, %v: !kir.view<f32, [S, D], in>,
                        %o: !kir.view<f32, [B, D, D], out>, %p: !kir.view<f32, [B, S, D], out>) {
  %c0 = arith.constant 0 : index
  %s = kir.extent "S"
  %d = kir.extent "D"
  %nb = kir.extent "B"
  %seq = kir.domain %c0 to %s
  %dims = kir.domain %c0 to %d
  %bs = kir.domain %c0 to %nb
  %zero = arith.constant 0.0 : f32
  kir.parallel %bs {
  ^bb0(%b: index):
    %kf = kir.load %k[%seq, %dims] : !kir.view<f32, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %vf = kir.load %v[%seq, %dims] : !kir.view<f32, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %kv = kir.contract %kf, %vf reduce([0], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    kir.store %kv, %o[%b, %dims, %dims] : tensor<?x?xf32>, !kir.view<f32, [B, D, D], out>[index, !kir.domain, !kir.domain]
    %z = kir.reduce %kf axes [0] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%x: f32, %y: f32):
      %r = kir.binary add %x, %y : f32
      kir.yield %r : f32
    }
    %zb = kir.broadcast %z over(%seq, %dims) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
    %c = kir.binary sub %kf, %zb : tensor<?x?xf32>
    kir.store %c, %p[%b, %seq, %dims] : tensor<?x?xf32>, !kir.view<f32, [B, S, D], out>[index, !kir.domain, !kir.domain]
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not fire: a maximum over the sequence is not a sum (its combine is max), though a later
// COM: contraction over the sequence reads it.
// CHECK-LABEL: kir.kernel @max_chained
// CHECK-NOT: kir.region_fold
kir.kernel @max_chained(%k: !kir.view<f32, [S, D], in>, %o: !kir.view<f32, [B, S], out>) {
  %c0 = arith.constant 0 : index
  %s = kir.extent "S"
  %d = kir.extent "D"
  %nb = kir.extent "B"
  %seq = kir.domain %c0 to %s
  %dims = kir.domain %c0 to %d
  %bs = kir.domain %c0 to %nb
  %ninf = arith.constant 0xFF800000 : f32
  kir.parallel %bs {
  ^bb0(%b: index):
    %kf = kir.load %k[%seq, %dims] : !kir.view<f32, [S, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %m = kir.reduce %kf axes [0] identity(%ninf : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%x: f32, %y: f32):
      %r = kir.binary max %x, %y : f32
      kir.yield %r : f32
    }
    %y = kir.contract %kf, %m reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
    kir.store %y, %o[%b, %seq] : tensor<?xf32>, !kir.view<f32, [B, S], out>[index, !kir.domain]
    kir.yield
  }
  kir.return
}
