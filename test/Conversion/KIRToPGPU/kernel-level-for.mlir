// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// A top-level runtime kir.for carrying a tensor over the kernel's domains whose body only computes
// and reads (a block-scaled GEMM: per K block, the block product scaled by per-row and per-column
// scales, added into the [M, N] accumulator) is replayed in the workset that reads its result: each
// (m, n) element runs the loop over the K blocks carrying its accumulator element, the block
// product a reduction over the block's members, the scales applied to the f32 partial in the
// source's order (acc + (part * sa) * sb). It was refused as "neither a launch-time fact nor a pure
// value read before the worksets" (bench/corpus/185).
// CHECK-LABEL: pgpu.kernel @block_scaled
// CHECK: pgpu.execution_group
// CHECK: [[ACC:%[0-9]+]] = pgpu.for %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK: ^bb0(%{{.*}}: index, %[[C:.*]]: f32):
// CHECK: [[PART:%[0-9]+]] = pgpu.range_reduce
// CHECK: pgpu.load %a
// CHECK: pgpu.load %b
// CHECK: pgpu.binary mul
// CHECK: [[SA:%[0-9]+]] = pgpu.load %sa[%{{.*}}, %{{.*}}]
// CHECK: [[P1:%[0-9]+]] = pgpu.binary mul [[PART]], [[SA]] : f32
// CHECK: [[SB:%[0-9]+]] = pgpu.load %sb[%{{.*}}, %{{.*}}]
// CHECK: [[P2:%[0-9]+]] = pgpu.binary mul [[P1]], [[SB]] : f32
// CHECK: [[NEXT:%[0-9]+]] = pgpu.binary add %[[C]], [[P2]] : f32
// CHECK: pgpu.yield [[NEXT]] : f32
// CHECK: pgpu.store [[ACC]], %out
kir.kernel @block_scaled(%a: !kir.view<f32, [M, K], in>, %b: !kir.view<f32, [N, K], in>,
                         %sa: !kir.view<f32, [M, KB], in>, %sb: !kir.view<f32, [N, KB], in>,
                         %out: !kir.view<f32, [M, N], out>) {
  %0 = kir.extent "M"
  %1 = kir.extent "K"
  %2 = kir.extent "N"
  %3 = kir.extent "KB"
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %rows = kir.domain %c0 to %0
  %cols = kir.domain %c0 to %2
  %ks = kir.domain %c0 to %1
  %kbs = kir.domain %c0 to %3
  %zero = arith.constant 0.0 : f32
  %init = kir.broadcast %zero over(%rows, %cols) dims [] : f32 -> tensor<?x?xf32>
  %acc = kir.for %kbs iter_args(%init : tensor<?x?xf32>) -> tensor<?x?xf32> {
  ^bb0(%kb: index, %c: tensor<?x?xf32>):
    %lo = kir.binary mul %kb, %c4 : index
    %hi = kir.binary add %lo, %c4 : index
    %kk = kir.subregion %ks[%lo : %hi]
    %x = kir.load %a[%rows, %kk] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %y = kir.load %b[%cols, %kk] : !kir.view<f32, [N, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %part = kir.contract %x, %y reduce([1], [1]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    %s1 = kir.load %sa[%rows, %kb] : !kir.view<f32, [M, KB], in>[!kir.domain, index] -> tensor<?xf32>
    %s1b = kir.broadcast %s1 over(%rows, %cols) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %p1 = kir.binary mul %part, %s1b : tensor<?x?xf32>
    %s2 = kir.load %sb[%cols, %kb] : !kir.view<f32, [N, KB], in>[!kir.domain, index] -> tensor<?xf32>
    %s2b = kir.broadcast %s2 over(%rows, %cols) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
    %p2 = kir.binary mul %p1, %s2b : tensor<?x?xf32>
    %next = kir.binary add %c, %p2 : tensor<?x?xf32>
    kir.yield %next : tensor<?x?xf32>
  }
  kir.store %acc, %out[%rows, %cols] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
  kir.return
}

// -----

// COM: Must not fire: a top-level loop with a store inside has effects outside any workset.
kir.kernel @store_in_loop(%x: !kir.view<f32, [T, N], in>, %y: !kir.view<f32, [T, N], out>) {
  %0 = kir.extent "T"
  %1 = kir.extent "N"
  %c0 = arith.constant 0 : index
  %ts = kir.domain %c0 to %0
  %ns = kir.domain %c0 to %1
  %zero = arith.constant 0.0 : f32
  %init = kir.broadcast %zero over(%ns) dims [] : f32 -> tensor<?xf32>
  // expected-error @below {{top-level 'kir.for' is neither a launch-time fact nor a pure value read before the worksets}}
  %h = kir.for %ts iter_args(%init : tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%t: index, %c: tensor<?xf32>):
    %xt = kir.load %x[%t, %ns] : !kir.view<f32, [T, N], in>[index, !kir.domain] -> tensor<?xf32>
    %n = kir.binary add %c, %xt : tensor<?xf32>
    kir.store %n, %y[%t, %ns] : tensor<?xf32>, !kir.view<f32, [T, N], out>[index, !kir.domain]
    kir.yield %n : tensor<?xf32>
  }
  kir.return
}

// -----

// COM: Must not fire: the next carry reads the carry at the iteration's index (another position of
// COM: it), so the positions are not independent and the loop is not moved into the elements.
kir.kernel @carry_at_iteration(%x: !kir.view<f32, [N, N], in>, %y: !kir.view<f32, [N], out>) {
  %1 = kir.extent "N"
  %c0 = arith.constant 0 : index
  %ns = kir.domain %c0 to %1
  %zero = arith.constant 0.0 : f32
  %init = kir.broadcast %zero over(%ns) dims [] : f32 -> tensor<?xf32>
  %h = kir.for %ns iter_args(%init : tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%t: index, %c: tensor<?xf32>):
    // expected-error @below {{reads the carried tensor across positions}}
    %e = kir.extract %c[%t] : tensor<?xf32>
    %eb = kir.broadcast %e over(%ns) dims [] : f32 -> tensor<?xf32>
    %xt = kir.load %x[%t, %ns] : !kir.view<f32, [N, N], in>[index, !kir.domain] -> tensor<?xf32>
    %m = kir.binary mul %xt, %eb : tensor<?xf32>
    %n = kir.binary add %c, %m : tensor<?xf32>
    kir.yield %n : tensor<?xf32>
  }
  kir.store %h, %y[%ns] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.return
}

// -----

// A loop nest carrying one tensor (issue 47: refused as 'reads the carried tensor across positions',
// which it does not): the inner kir.for takes the outer carry as its own, so at each position of the
// store's workset the nest is two pgpu.for loops carrying the element.
// CHECK-LABEL: pgpu.kernel @nested
// CHECK: [[OUT:%[0-9]+]] = pgpu.for %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
// CHECK: ^bb0(%[[A:.*]]: index, %[[H:.*]]: f32):
// CHECK: [[AM:%[0-9]+]] = pgpu.binary mul %[[A]]
// CHECK: [[AC:%[0-9]+]] = pgpu.binary add %{{.*}}, [[AM]] : index
// CHECK: [[IN:%[0-9]+]] = pgpu.for %{{.*}} iter_args(%[[H]] : f32) -> f32 {
// CHECK: ^bb0(%[[B:.*]]: index, %[[G:.*]]: f32):
// CHECK: [[BM:%[0-9]+]] = pgpu.binary mul %[[B]]
// CHECK: [[BC:%[0-9]+]] = pgpu.binary add %{{.*}}, [[BM]] : index
// CHECK: [[M:%[0-9]+]] = pgpu.binary mul %[[G]]
// CHECK: [[V:%[0-9]+]] = pgpu.load %x[[[AC]], [[BC]],
// CHECK: [[S:%[0-9]+]] = pgpu.binary add [[M]], [[V]] : f32
// CHECK: pgpu.yield [[S]] : f32
// CHECK: pgpu.yield [[IN]] : f32
// CHECK: pgpu.store [[OUT]], %y
kir.kernel @nested(%x: !kir.view<f32, [A, B, N], in>, %y: !kir.view<f32, [N], out>) {
  %0 = kir.extent "A"
  %1 = kir.extent "B"
  %2 = kir.extent "N"
  %c0 = arith.constant 0 : index
  %cols = kir.domain %c0 to %2
  %zero = arith.constant 0.0 : f32
  %init = kir.broadcast %zero over(%cols) dims [] : f32 -> tensor<?xf32>
  %as = kir.domain %c0 to %0
  %bs = kir.domain %c0 to %1
  %half = arith.constant 0.5 : f32
  %halves = kir.broadcast %half over(%cols) dims [] : f32 -> tensor<?xf32>
  %h = kir.for %as iter_args(%init : tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: index, %c: tensor<?xf32>):
    %g = kir.for %bs iter_args(%c : tensor<?xf32>) -> tensor<?xf32> {
    ^bb0(%b: index, %d: tensor<?xf32>):
      %m = kir.binary mul %d, %halves : tensor<?xf32>
      %v = kir.load %x[%a, %b, %cols] : !kir.view<f32, [A, B, N], in>[index, index, !kir.domain] -> tensor<?xf32>
      %s = kir.binary add %m, %v : tensor<?xf32>
      kir.yield %s : tensor<?xf32>
    }
    kir.yield %g : tensor<?xf32>
  }
  kir.store %h, %y[%cols] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.return
}

// -----

// Must not fire: the inner loop of the nest sums the carry it takes (across positions).
kir.kernel @nested_sum(%x: !kir.view<f32, [A, B, N], in>, %y: !kir.view<f32, [N], out>) {
  %0 = kir.extent "A"
  %1 = kir.extent "B"
  %2 = kir.extent "N"
  %c0 = arith.constant 0 : index
  %cols = kir.domain %c0 to %2
  %zero = arith.constant 0.0 : f32
  %init = kir.broadcast %zero over(%cols) dims [] : f32 -> tensor<?xf32>
  %as = kir.domain %c0 to %0
  %bs = kir.domain %c0 to %1
  %h = kir.for %as iter_args(%init : tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: index, %c: tensor<?xf32>):
    %g = kir.for %bs iter_args(%c : tensor<?xf32>) -> tensor<?xf32> {
    ^bb0(%b: index, %d: tensor<?xf32>):
      %v = kir.load %x[%a, %b, %cols] : !kir.view<f32, [A, B, N], in>[index, index, !kir.domain] -> tensor<?xf32>
      // expected-error @below {{reads the carried tensor across positions}}
      %t = kir.reduce %d axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%p: f32, %q: f32):
        %r = kir.binary add %p, %q : f32
        kir.yield %r : f32
      }
      %tb = kir.broadcast %t over(%cols) dims [] : f32 -> tensor<?xf32>
      %w = kir.binary mul %v, %tb : tensor<?xf32>
      %s = kir.binary add %d, %w : tensor<?xf32>
      kir.yield %s : tensor<?xf32>
    }
    kir.yield %g : tensor<?xf32>
  }
  kir.store %h, %y[%cols] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.return
}
