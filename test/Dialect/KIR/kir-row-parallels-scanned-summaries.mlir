// RUN: tessel-opt %s -split-input-file -kir-row-parallels -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: Top-k routing with capacity (corpus 323): each token's argmax over the experts (`first`), at
// COM: kernel level, is read by a parallel over the experts whose member counts, in token order, the
// COM: tokens routed to it (a cumsum of `first == e`). Before: construction replayed the argmax at every
// COM: step of the scan (a row reduction per token per step, unblockable). After: a parallel over the
// COM: tokens before it computes each token's argmax once into a buffer (i64) that the member reads.
// CHECK-LABEL: kir.kernel @route
// CHECK: %[[BUF:.*]] = kir.buffer over(%[[T:.*]]) first_write : !kir.buffer<tensor<?xi64>>
// CHECK: kir.parallel %[[T]] {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index):
// CHECK-NEXT: %[[ROW:.*]] = kir.load %{{.*}}[%[[I]], %{{.*}}] : {{.*}} -> tensor<?xf32>
// CHECK-NEXT: %{{.*}}, %[[IDX:.*]] = kir.arg_reduce argmax %[[ROW]] axis 0
// CHECK-NEXT: %[[W:.*]] = kir.cast %[[IDX]] : index to i64
// CHECK-NEXT: kir.buffer_store %[[W]], %[[BUF]][%[[I]]]
// CHECK-NEXT: kir.yield
// CHECK: kir.parallel %{{.*}} {
// CHECK-NEXT: ^bb0(%{{.*}}: index):
// CHECK-NEXT: %[[BACK:.*]] = kir.buffer_load %[[BUF]][%[[T]]]
// CHECK-NEXT: %[[FIRST:.*]] = kir.cast %[[BACK]] : tensor<?xi64> to tensor<?xindex>
// CHECK: kir.cmp eq %[[FIRST]], %{{.*}}
// CHECK: kir.scan
// CHECK-NOT: kir.arg_reduce
// CHECK: kir.return
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @route(%logits: !kir.view<f32, [T, E], in>, %pos: !kir.view<i32, [T, E], out>) {
    %0 = kir.extent "T"
    %1 = kir.extent "E"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %7 = kir.broadcast %c1_i32 over(%2) dims [] : i32 -> tensor<?xi32>
    %8 = kir.broadcast %c0_i32 over(%2) dims [] : i32 -> tensor<?xi32>
    %12 = kir.load %logits[%2, %3] : !kir.view<f32, [T, E], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %values, %indices = kir.arg_reduce argmax %12 axis 1 tie lowest nan propagate : tensor<?x?xf32> -> tensor<?xf32>, tensor<?xindex>
    // expected-remark @below {{kir-row-parallels: 1 row summary(ies) this parallel's member scans or reduces per step}}
    kir.parallel %3 {
    ^bb0(%arg0: index):
      %17 = kir.broadcast %arg0 over(%2) dims [] : index -> tensor<?xindex>
      %18 = kir.cmp eq %indices, %17 : tensor<?xindex>
      %21 = kir.select %18, %7, %8 : tensor<?xi1>, tensor<?xi32>
      %23 = kir.scan %21 axis 0 identity(%c0_i32 : i32) : (tensor<?xi32>) -> (tensor<?xi32>) {
      ^bb0(%arg1: i32, %arg2: i32):
        %40 = kir.binary add %arg1, %arg2 : i32
        kir.yield %40 : i32
      }
      kir.store %23, %pos[%2, %arg0] : tensor<?xi32>, !kir.view<i32, [T, E], out>[!kir.domain, index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the member reads the argmax only pointwise into a store (one walk realizes it once
// COM: per element; a buffer would only add traffic).
// CHECK-LABEL: kir.kernel @onehot
// CHECK-NOT: kir.buffer
// CHECK: kir.arg_reduce
// CHECK: kir.parallel
// CHECK-NOT: kir.buffer_load
// CHECK: kir.return
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @onehot(%logits: !kir.view<f32, [T, E], in>, %hot: !kir.view<i32, [T, E], out>) {
    %0 = kir.extent "T"
    %1 = kir.extent "E"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %7 = kir.broadcast %c1_i32 over(%2) dims [] : i32 -> tensor<?xi32>
    %8 = kir.broadcast %c0_i32 over(%2) dims [] : i32 -> tensor<?xi32>
    %12 = kir.load %logits[%2, %3] : !kir.view<f32, [T, E], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %values, %indices = kir.arg_reduce argmax %12 axis 1 tie lowest nan propagate : tensor<?x?xf32> -> tensor<?xf32>, tensor<?xindex>
    kir.parallel %3 {
    ^bb0(%arg0: index):
      %17 = kir.broadcast %arg0 over(%2) dims [] : index -> tensor<?xindex>
      %18 = kir.cmp eq %indices, %17 : tensor<?xindex>
      %21 = kir.select %18, %7, %8 : tensor<?xi1>, tensor<?xi32>
      kir.store %21, %hot[%2, %arg0] : tensor<?xi32>, !kir.view<i32, [T, E], out>[!kir.domain, index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the summary's row reads a view the kernel writes (a member would read it at
// COM: another point than the kernel-level value; a remark says why).
// CHECK-LABEL: kir.kernel @written
// CHECK-NOT: kir.buffer
// CHECK: kir.return
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @written(%x: !kir.view<f32, [T, E], inout>, %pos: !kir.view<i32, [T, E], out>) {
    %0 = kir.extent "T"
    %1 = kir.extent "E"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant 0.0 : f32
    %7 = kir.broadcast %c1_i32 over(%2) dims [] : i32 -> tensor<?xi32>
    %8 = kir.broadcast %c0_i32 over(%2) dims [] : i32 -> tensor<?xi32>
    %12 = kir.load %x[%2, %3] : !kir.view<f32, [T, E], inout>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %values, %indices = kir.arg_reduce argmax %12 axis 1 tie lowest nan propagate : tensor<?x?xf32> -> tensor<?xf32>, tensor<?xindex>
    // expected-remark @below {{kir-row-parallels: a row summary this parallel scans stays replayed: the row reads a view the kernel writes}}
    kir.parallel %3 {
    ^bb0(%arg0: index):
      %17 = kir.broadcast %arg0 over(%2) dims [] : index -> tensor<?xindex>
      %18 = kir.cmp eq %indices, %17 : tensor<?xindex>
      %21 = kir.select %18, %7, %8 : tensor<?xi1>, tensor<?xi32>
      %23 = kir.scan %21 axis 0 identity(%c0_i32 : i32) : (tensor<?xi32>) -> (tensor<?xi32>) {
      ^bb0(%arg1: i32, %arg2: i32):
        %40 = kir.binary add %arg1, %arg2 : i32
        kir.yield %40 : i32
      }
      kir.store %23, %pos[%2, %arg0] : tensor<?xi32>, !kir.view<i32, [T, E], out>[!kir.domain, index]
      kir.store %cst, %x[%c0, %arg0] : f32, !kir.view<f32, [T, E], inout>[index, index]
      kir.yield
    }
    kir.return
  }
}
