// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: Before: a scan stored at kernel level, no kir.parallel (the DSL fuzzer's kernel_level_scan). After:
// COM: one workset over the other axis (M lines, one program instance each), its body one range scan
// COM: along N storing each prefix, as if the kernel had written a kir.parallel over the rows.
// CHECK-LABEL: pgpu.kernel @rows_cumsum
// CHECK: pgpu.execution_group %{{.*}} extents(%[[M:.*]]) segment 0
// CHECK-NEXT: ^bb0(%[[ROW:.*]]: index):
// CHECK: pgpu.range_scan %{{.*}} to %{{.*}} identity(%{{.*}} : f32) element {
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}]
// CHECK: } emit {
// CHECK: pgpu.store %{{.*}}, %y[%{{.*}}, %{{.*}}]
module {
  kir.kernel @rows_cumsum(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %dm = kir.domain %c0 to %0
    %dn = kir.domain %c0 to %1
    %xs = kir.load %x[%dm, %dn] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %s = kir.scan %xs axis 1 identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?x?xf32>) {
    ^bb0(%a: f32, %b: f32):
      %c = kir.binary add %a, %b : f32
      kir.yield %c : f32
    }
    kir.store %s, %y[%dm, %dn] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
}

// -----

// COM: Before: LLaVA's merge at kernel level (corpus 264): token t of a flagged run takes image row
// COM: rank(t), an exclusive cumsum of the flags down the tokens, for every feature d. After: one workset
// COM: over the features, each instance one exclusive range scan down the tokens gathering at the prefix.
// CHECK-LABEL: pgpu.kernel @merge_tokens
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0
// CHECK: pgpu.range_scan %{{.*}} to %{{.*}} identity(%{{.*}} : i64) exclusive element {
// CHECK: } emit {
// CHECK: %[[R:.*]] = pgpu.cast %{{.*}} : i64 to index
// CHECK: pgpu.gather %image[%[[R]], %{{.*}}]
// CHECK: pgpu.store %{{.*}}, %out[%{{.*}}, %{{.*}}]
module {
  kir.kernel @merge_tokens(%ids: !kir.view<i64, [T], in>, %text: !kir.view<f32, [T, D], in>,
                           %image: !kir.view<f32, [NI, D], in>, %out: !kir.view<f32, [T, D], out>, %tok: i64) {
    %0 = kir.extent "T"
    %1 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %dt = kir.domain %c0 to %0
    %dd = kir.domain %c0 to %1
    %c1_i64 = arith.constant 1 : i64
    %c0_i64 = arith.constant 0 : i64
    %tokb = kir.broadcast %tok over(%dt) dims [] : i64 -> tensor<?xi64>
    %ones = kir.broadcast %c1_i64 over(%dt) dims [] : i64 -> tensor<?xi64>
    %zeros = kir.broadcast %c0_i64 over(%dt) dims [] : i64 -> tensor<?xi64>
    %x = kir.load %ids[%dt] : !kir.view<i64, [T], in>[!kir.domain] -> tensor<?xi64>
    %img = kir.cmp eq %x, %tokb : tensor<?xi64>
    %one = kir.select %img, %ones, %zeros : tensor<?xi1>, tensor<?xi64>
    %rank = kir.scan %one axis 0 identity(%c0_i64 : i64) exclusive : (tensor<?xi64>) -> (tensor<?xi64>) {
    ^bb0(%a: i64, %b: i64):
      %c = kir.binary add %a, %b : i64
      kir.yield %c : i64
    }
    %r = kir.cast %rank : tensor<?xi64> to tensor<?xindex>
    %keep = kir.broadcast %img over(%dt, %dd) dims [0] : tensor<?xi1> -> tensor<?x?xi1>
    %g = kir.gather %image[%r, %dd] : !kir.view<f32, [NI, D], in>[tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
    %t = kir.load %text[%dt, %dd] : !kir.view<f32, [T, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %v = kir.select %keep, %g, %t : tensor<?x?xi1>, tensor<?x?xf32>
    kir.store %v, %out[%dt, %dd] : tensor<?x?xf32>, !kir.view<f32, [T, D], out>[!kir.domain, !kir.domain]
    kir.return
  }
}

// -----

// COM: Must not fire: a scatter-add at kernel level whose addresses come from a scan stays refused.
module {
  kir.kernel @scatter_add_by_rank(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], inout>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %dn = kir.domain %c0 to %0
    %ones = kir.broadcast %c1_i32 over(%dn) dims [] : i32 -> tensor<?xi32>
    %xs = kir.load %x[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %rank = kir.scan %ones axis 0 identity(%c0_i32 : i32) exclusive : (tensor<?xi32>) -> (tensor<?xi32>) {
    ^bb0(%a: i32, %b: i32):
      %c = kir.binary add %a, %b : i32
      kir.yield %c : i32
    }
    %r = kir.cast %rank : tensor<?xi32> to tensor<?xindex>
    // expected-error @+1 {{kir-to-pgpu: a top-level scatter-reduce computed from a scan is not constructed yet}}
    kir.scatter_reduce %xs, %y[%r] : tensor<?xf32>, !kir.view<f32, [N], inout>[tensor<?xindex>] {
    ^bb0(%a: f32, %b: f32):
      %c = kir.binary add %a, %b : f32
      kir.yield %c : f32
    }
    kir.return
  }
}
