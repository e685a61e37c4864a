// RUN: tessel-opt %s -split-input-file -kir-row-parallels -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: Greedy verification (corpus 290): per sequence b, best = argmax of each step's logits over the
// COM: vocabulary feeds a min (the first rejection) and the store of the tokens. Before: construction
// COM: replayed the argmax in the min's loop and again in the store's walk (logits read twice). After:
// COM: the fork (the cast of the indices) is written once per member to a buffer over (sequences,
// COM: steps) and both consumers read it back.
// CHECK-LABEL: kir.kernel @verify
// CHECK: %[[BUF:.*]] = kir.buffer over(%{{.*}}, %{{.*}}) first_write : !kir.buffer<tensor<?x?xi32>>
// CHECK: kir.parallel
// CHECK: %{{.*}}, %[[IDX:.*]] = kir.arg_reduce argmax
// CHECK: %[[BEST:.*]] = kir.cast %[[IDX]]
// CHECK: kir.buffer_store %[[BEST]], %[[BUF]][
// CHECK: %[[BACK:.*]] = kir.buffer_load %[[BUF]][
// CHECK: kir.cmp ne %{{.*}}, %[[BACK]]
// CHECK: kir.reduce
// CHECK: kir.select %{{.*}}, %[[BACK]], %{{.*}}
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @verify(%logits: !kir.view<f32, [B, K1, V], in>, %draft: !kir.view<i32, [B, K1], in>, %tokens: !kir.view<i32, [B, K1], out>, %n: !kir.view<i32, [B], out>) {
    %0 = kir.extent "B"
    %1 = kir.extent "K1"
    %2 = kir.extent "V"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %1
    %5 = kir.domain %c0 to %2
    %6 = kir.domain %c0 to %0
    %7 = kir.indices %4 : tensor<?xindex>
    %9 = kir.broadcast %1 over(%4) dims [] : index -> tensor<?xindex>
    %c-1_i32 = arith.constant -1 : i32
    %big = arith.constant 2147483647 : index
    %10 = kir.broadcast %c-1_i32 over(%4) dims [] : i32 -> tensor<?xi32>
    // expected-remark @below {{kir-row-parallels: 1 tensor(s) computed by a reduction feed a reduction and another consumer}}
    kir.parallel %6 {
    ^bb0(%arg0: index):
      %11 = kir.load %logits[%arg0, %4, %5] : !kir.view<f32, [B, K1, V], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %values, %indices = kir.arg_reduce argmax %11 axis 1 tie lowest nan propagate : tensor<?x?xf32> -> tensor<?xf32>, tensor<?xindex>
      %12 = kir.cast %indices : tensor<?xindex> to tensor<?xi32>
      %14 = kir.load %draft[%arg0, %4] : !kir.view<i32, [B, K1], in>[index, !kir.domain] -> tensor<?xi32>
      %15 = kir.cmp ne %14, %12 : tensor<?xi32>
      %16 = kir.select %15, %7, %9 : tensor<?xi1>, tensor<?xindex>
      %17 = kir.reduce %16 axes [0] identity(%big : index) : (tensor<?xindex>) -> (index) {
      ^bb0(%arg1: index, %arg2: index):
        %22 = kir.binary min %arg1, %arg2 : index
        kir.yield %22 : index
      }
      %18 = kir.broadcast %17 over(%4) dims [] : index -> tensor<?xindex>
      %19 = kir.cmp le %7, %18 : tensor<?xindex>
      %20 = kir.select %19, %12, %10 : tensor<?xi1>, tensor<?xi32>
      kir.store %20, %tokens[%arg0, %4] : tensor<?xi32>, !kir.view<i32, [B, K1], out>[index, !kir.domain]
      %21 = kir.cast %17 : index to i32
      kir.store %21, %n[%arg0] : i32, !kir.view<i32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the row maxima feed two stores and no reduction. Construction realizes both
// COM: stores in one walk of the rows (one replay), so a buffer would only add a round trip.
// CHECK-LABEL: kir.kernel @two_stores
// CHECK-NOT: kir.buffer
// CHECK: kir.parallel
// CHECK-NOT: kir.buffer_store
// CHECK: kir.store
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @two_stores(%x: !kir.view<f32, [B, M, N], in>, %a: !kir.view<f32, [B, M], out>, %c: !kir.view<f32, [B, M], out>) {
    %0 = kir.extent "B"
    %1 = kir.extent "M"
    %2 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %1
    %5 = kir.domain %c0 to %2
    %6 = kir.domain %c0 to %0
    %ninf = arith.constant 0xFF800000 : f32
    kir.parallel %6 {
    ^bb0(%arg0: index):
      %11 = kir.load %x[%arg0, %4, %5] : !kir.view<f32, [B, M, N], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %12 = kir.reduce %11 axes [1] identity(%ninf : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %22 = kir.binary max %arg1, %arg2 : f32
        kir.yield %22 : f32
      }
      %13 = kir.unary exp %12 : tensor<?xf32>
      kir.store %12, %a[%arg0, %4] : tensor<?xf32>, !kir.view<f32, [B, M], out>[index, !kir.domain]
      kir.store %13, %c[%arg0, %4] : tensor<?xf32>, !kir.view<f32, [B, M], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the row maxima feed only a reduction (through pointwise ops): one traversal.
// CHECK-LABEL: kir.kernel @one_consumer
// CHECK-NOT: kir.buffer
// CHECK: kir.return
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @one_consumer(%x: !kir.view<f32, [B, M, N], in>, %s: !kir.view<f32, [B], out>) {
    %0 = kir.extent "B"
    %1 = kir.extent "M"
    %2 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %4 = kir.domain %c0 to %1
    %5 = kir.domain %c0 to %2
    %6 = kir.domain %c0 to %0
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    kir.parallel %6 {
    ^bb0(%arg0: index):
      %11 = kir.load %x[%arg0, %4, %5] : !kir.view<f32, [B, M, N], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %12 = kir.reduce %11 axes [1] identity(%ninf : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %22 = kir.binary max %arg1, %arg2 : f32
        kir.yield %22 : f32
      }
      %13 = kir.unary exp %12 : tensor<?xf32>
      %14 = kir.reduce %13 axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg1: f32, %arg2: f32):
        %22 = kir.binary add %arg1, %arg2 : f32
        kir.yield %22 : f32
      }
      kir.store %14, %s[%arg0] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A row that passes through a constant spread over its domain at kernel level (94_knn_top8_b's
// COM: |k|^2 - 2 q.k, the 2.0 broadcast before the parallel) forks into an argmin and a select: kept.
// COM: Before, the broadcast's axes were unknown, so the row was replayed by both consumers.
// CHECK-LABEL: kir.kernel @outer_constant
// CHECK: %[[BUF:.*]] = kir.buffer over(%{{.*}}, %{{.*}}) first_write : !kir.buffer<tensor<?x?xf32>>
// CHECK: kir.parallel
// CHECK: %[[D:.*]] = kir.binary sub
// CHECK: kir.buffer_store %[[D]], %[[BUF]][
// CHECK: %[[BACK:.*]] = kir.buffer_load %[[BUF]][
// CHECK: kir.arg_reduce argmin %[[BACK]]
// CHECK: kir.select %{{.*}}, %{{.*}}, %[[BACK]]
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @outer_constant(%q: !kir.view<f32, [M, D], in>, %k: !kir.view<f32, [N, D], in>, %dist: !kir.view<f32, [M, 2], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "D"
    %2 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %3 = kir.domain %c0 to %2
    %4 = kir.domain %c0 to %1
    %5 = kir.indices %3 : tensor<?xindex>
    %6 = kir.domain %c0 to %0
    %zero = arith.constant 0.000000e+00 : f32
    %two = arith.constant 2.000000e+00 : f32
    %7 = kir.broadcast %two over(%3) dims [] : f32 -> tensor<?xf32>
    %inf = arith.constant 0x7F800000 : f32
    %8 = kir.broadcast %inf over(%3) dims [] : f32 -> tensor<?xf32>
    // expected-remark @below {{kir-row-parallels: 1 tensor(s) computed by a reduction feed a reduction and another consumer}}
    kir.parallel %6 {
    ^bb0(%arg0: index):
      %9 = kir.load %q[%arg0, %4] : !kir.view<f32, [M, D], in>[index, !kir.domain] -> tensor<?xf32>
      %10 = kir.load %k[%3, %4] : !kir.view<f32, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %11 = kir.binary mul %10, %10 : tensor<?x?xf32>
      %12 = kir.reduce %11 axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%arg1: f32, %arg2: f32):
        %20 = kir.binary add %arg1, %arg2 : f32
        kir.yield %20 : f32
      }
      %13 = kir.contract %10, %9 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      %14 = kir.binary mul %7, %13 : tensor<?xf32>
      %15 = kir.binary sub %12, %14 : tensor<?xf32>
      %values, %indices = kir.arg_reduce argmin %15 axis 0 tie lowest nan propagate : tensor<?xf32> -> f32, index
      kir.store %values, %dist[%arg0, %c0] : f32, !kir.view<f32, [M, 2], out>[index, index]
      %16 = kir.broadcast %indices over(%3) dims [] : index -> tensor<?xindex>
      %17 = kir.cmp eq %5, %16 : tensor<?xindex>
      %18 = kir.select %17, %8, %15 : tensor<?xi1>, tensor<?xf32>
      %values_1, %indices_2 = kir.arg_reduce argmin %18 axis 0 tie lowest nan propagate : tensor<?xf32> -> f32, index
      kir.store %values_1, %dist[%arg0, %c1] : f32, !kir.view<f32, [M, 2], out>[index, index]
      kir.yield
    }
    kir.return
  }
}
