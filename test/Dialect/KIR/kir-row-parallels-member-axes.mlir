// RUN: tessel-opt %s -split-input-file -kir-row-parallels -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: The gated delta rule's in-place state update (corpus 243): S <- S + k (v - S^T k)^T stored back to
// COM: the view it read. Before: kir-to-pgpu refused it (the combination S^T k, a tensor over V, would be
// COM: realized element by element at the store, reading rows already stored). After: V, which nothing
// COM: reduces and which indexes the read and the store of state, becomes a member axis; each member
// COM: (b, v) reads its column state[b, :, v], reduces it to a scalar, then stores the column.
// CHECK-LABEL: kir.kernel @delta_rule
// CHECK: kir.parallel %[[B:.*]], %[[V:.*]] {
// CHECK-NEXT: ^bb0(%[[IB:.*]]: index, %[[IV:.*]]: index):
// CHECK: %[[S:.*]] = kir.load %state[%[[IB]], %{{.*}}, %[[IV]]] {{.*}} -> tensor<?xf32>
// CHECK: %[[P:.*]] = kir.reduce %{{.*}} axes [0] {{.*}} -> (f32)
// CHECK: kir.load %v[%[[IB]], %[[IV]]] {{.*}} -> f32
// CHECK: kir.store %{{.*}}, %state[%[[IB]], %{{.*}}, %[[IV]]] : tensor<?xf32>
// CHECK-NOT: kir.parallel
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @delta_rule(%state: !kir.view<f32, [B, K, V], inout>, %k: !kir.view<f32, [B, K], in>, %v: !kir.view<f32, [B, V], in>) {
    %0 = kir.extent "B"
    %1 = kir.extent "K"
    %2 = kir.extent "V"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %1
    %5 = kir.domain %3 to %2
    %6 = kir.domain %3 to %0
    %12 = arith.constant 0.0 : f32
    // expected-remark @below {{kir-row-parallels: the member stores a view it reads in place with values combined across another axis}}
    kir.parallel %6 {
    ^bb0(%7: index):
      %8 = kir.load %k[%7, %4] : !kir.view<f32, [B, K], in>[index, !kir.domain] -> tensor<?xf32>
      %9 = kir.load %state[%7, %4, %5] : !kir.view<f32, [B, K, V], inout>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %10 = kir.broadcast %8 over(%4, %5) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %11 = kir.binary mul %9, %10 : tensor<?x?xf32>
      %16 = kir.reduce %11 axes [0] identity(%12 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%13: f32, %14: f32):
        %15 = kir.binary add %13, %14 : f32
        kir.yield %15 : f32
      }
      %17 = kir.load %v[%7, %5] : !kir.view<f32, [B, V], in>[index, !kir.domain] -> tensor<?xf32>
      %18 = kir.binary sub %17, %16 : tensor<?xf32>
      %19 = kir.broadcast %8 over(%4, %5) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %20 = kir.broadcast %18 over(%4, %5) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
      %21 = kir.binary mul %19, %20 : tensor<?x?xf32>
      %22 = kir.binary add %9, %21 : tensor<?x?xf32>
      kir.store %22, %state[%7, %4, %5] : tensor<?x?xf32>, !kir.view<f32, [B, K, V], inout>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: both stored axes are combined (row sums and column sums of the state): no axis
// COM: leaves each member's values independent of the others', so the member stays (kir-to-pgpu refuses it).
// CHECK-LABEL: kir.kernel @both_axes_mixed
// CHECK: kir.parallel %{{[^,]*}} {
// CHECK: kir.load %state[%{{.*}}, %{{.*}}, %{{.*}}] {{.*}} -> tensor<?x?xf32>
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @both_axes_mixed(%state: !kir.view<f32, [B, K, V], inout>) {
    %0 = kir.extent "B"
    %1 = kir.extent "K"
    %2 = kir.extent "V"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %1
    %5 = kir.domain %3 to %2
    %6 = kir.domain %3 to %0
    %9 = arith.constant 0.0 : f32
    // expected-remark @below {{kir-row-parallels: the member stores a view it reads in place and keeps its axes: no axis of the member's stores is free}}
    kir.parallel %6 {
    ^bb0(%7: index):
      %8 = kir.load %state[%7, %4, %5] : !kir.view<f32, [B, K, V], inout>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %13 = kir.reduce %8 axes [1] identity(%9 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%10: f32, %11: f32):
        %12 = kir.binary add %10, %11 : f32
        kir.yield %12 : f32
      }
      %17 = kir.reduce %8 axes [0] identity(%9 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%14: f32, %15: f32):
        %16 = kir.binary add %14, %15 : f32
        kir.yield %16 : f32
      }
      %18 = kir.broadcast %13 over(%4, %5) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %19 = kir.broadcast %17 over(%4, %5) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
      %20 = kir.binary mul %18, %19 : tensor<?x?xf32>
      %21 = kir.binary add %8, %20 : tensor<?x?xf32>
      kir.store %21, %state[%7, %4, %5] : tensor<?x?xf32>, !kir.view<f32, [B, K, V], inout>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A state update stored whole and summed along its rows (Mamba-2's state update, corpus 244):
// COM: h' = h * a + outer(xs, bm) stored to state, y = sum_n h' * c. Before: the member kept [P, N], and
// COM: construction replayed h' in the reduction's walk and again in the store's (state read twice). After:
// COM: P, reduced by nothing and indexing the state's read and both stores, is a member axis: each member
// COM: (b, p) computes its row of h' once, stores it and reduces it.
// CHECK-LABEL: kir.kernel @state_update
// CHECK: kir.parallel %[[B:.*]], %[[P:.*]] {
// CHECK-NEXT: ^bb0(%[[IB:.*]]: index, %[[IP:.*]]: index):
// CHECK: kir.load %state[%[[IB]], %[[IP]], %{{.*}}] {{.*}} -> tensor<?xf32>
// CHECK: kir.reduce %{{.*}} axes [0] {{.*}} -> (f32)
// CHECK-DAG: kir.store %{{.*}}, %y[%[[IB]], %[[IP]]] : f32
// CHECK-DAG: kir.store %{{.*}}, %state[%[[IB]], %[[IP]], %{{.*}}] : tensor<?xf32>
// CHECK-NOT: kir.parallel
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @state_update(%state: !kir.view<f32, [B, P, N], inout>, %x: !kir.view<f32, [B, P], in>, %bm: !kir.view<f32, [B, N], in>, %c: !kir.view<f32, [B, N], in>, %y: !kir.view<f32, [B, P], out>, %a: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "P"
    %2 = kir.extent "N"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %1
    %5 = kir.domain %3 to %2
    %6 = kir.domain %3 to %0
    // expected-remark @below {{kir-row-parallels: the member stores a tensor that a reduction keeping another axis also reads (construction would replay it in both walks)}}
    kir.parallel %6 {
    ^bb0(%7: index):
      %8 = kir.load %x[%7, %4] : !kir.view<f32, [B, P], in>[index, !kir.domain] -> tensor<?xf32>
      %9 = kir.load %state[%7, %4, %5] : !kir.view<f32, [B, P, N], inout>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %10 = kir.broadcast %a over(%4, %5) dims [] : f32 -> tensor<?x?xf32>
      %11 = kir.binary mul %9, %10 : tensor<?x?xf32>
      %12 = kir.load %bm[%7, %5] : !kir.view<f32, [B, N], in>[index, !kir.domain] -> tensor<?xf32>
      %13 = kir.broadcast %8 over(%4, %5) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %14 = kir.broadcast %12 over(%4, %5) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
      %15 = kir.binary mul %13, %14 : tensor<?x?xf32>
      %16 = kir.binary add %11, %15 : tensor<?x?xf32>
      %17 = kir.load %c[%7, %5] : !kir.view<f32, [B, N], in>[index, !kir.domain] -> tensor<?xf32>
      %18 = kir.contract %16, %17 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      kir.store %18, %y[%7, %4] : tensor<?xf32>, !kir.view<f32, [B, P], out>[index, !kir.domain]
      kir.store %16, %state[%7, %4, %5] : tensor<?x?xf32>, !kir.view<f32, [B, P, N], inout>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the stored tensor is summed over its rows (a column sum, y[b, n]), so the axis left
// COM: for members, N, is the stored view's innermost coordinate: a member per column would walk the
// COM: state with a stride. The member keeps its axes (construction's two walks, each contiguous).
// CHECK-LABEL: kir.kernel @column_sum_of_update
// CHECK: kir.parallel %{{[^,]*}} {
// CHECK: kir.load %state[%{{.*}}, %{{.*}}, %{{.*}}] {{.*}} -> tensor<?x?xf32>
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @column_sum_of_update(%state: !kir.view<f32, [B, P, N], inout>, %y: !kir.view<f32, [B, N], out>, %a: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "P"
    %2 = kir.extent "N"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %1
    %5 = kir.domain %3 to %2
    %6 = kir.domain %3 to %0
    %z = arith.constant 0.0 : f32
    // expected-remark @below {{kir-row-parallels: the member stores a tensor that a reduction keeping another axis also reads, and keeps its axes: no axis of the member's stores is free}}
    kir.parallel %6 {
    ^bb0(%7: index):
      %9 = kir.load %state[%7, %4, %5] : !kir.view<f32, [B, P, N], inout>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %10 = kir.broadcast %a over(%4, %5) dims [] : f32 -> tensor<?x?xf32>
      %11 = kir.binary mul %9, %10 : tensor<?x?xf32>
      %16 = kir.reduce %11 axes [0] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%13: f32, %14: f32):
        %15 = kir.binary add %13, %14 : f32
        kir.yield %15 : f32
      }
      kir.store %16, %y[%7, %5] : tensor<?xf32>, !kir.view<f32, [B, N], out>[index, !kir.domain]
      kir.store %11, %state[%7, %4, %5] : tensor<?x?xf32>, !kir.view<f32, [B, P, N], inout>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire, silently: the stored tensor feeds no reduction (nothing is walked twice).
// CHECK-LABEL: kir.kernel @plain_update
// CHECK: kir.parallel %{{[^,]*}} {
// CHECK: kir.load %state[%{{.*}}, %{{.*}}, %{{.*}}] {{.*}} -> tensor<?x?xf32>
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @plain_update(%state: !kir.view<f32, [B, P, N], inout>, %a: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "P"
    %2 = kir.extent "N"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %1
    %5 = kir.domain %3 to %2
    %6 = kir.domain %3 to %0
    kir.parallel %6 {
    ^bb0(%7: index):
      %9 = kir.load %state[%7, %4, %5] : !kir.view<f32, [B, P, N], inout>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %10 = kir.broadcast %a over(%4, %5) dims [] : f32 -> tensor<?x?xf32>
      %11 = kir.binary mul %9, %10 : tensor<?x?xf32>
      kir.store %11, %state[%7, %4, %5] : tensor<?x?xf32>, !kir.view<f32, [B, P, N], inout>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
