// RUN: tessel-opt %s -split-input-file -kir-row-parallels -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: bench/corpus/58_bmm_softmax_scores: a kernel-level batched T.matmul scaled, softmaxed over its
// COM: last axis and written out. Before: one kernel-level store (constructed one program per output
// COM: element, the row's scores recomputed per element). After: a kir.parallel over (B, S), the axes
// COM: nothing reduces, each member computing its row over T: q read at (b, i) as a [D] row, k at b as
// COM: [T, D], the contraction's batch pair dropped (reduce([0], [1])), the reductions over axis 0, the
// COM: broadcasts of the row's maximum and sum scalars over T, the store at (b, i, keys).
// CHECK-LABEL: kir.kernel @bmm_softmax
// CHECK: %[[B:.*]] = kir.domain
// CHECK: %[[S:.*]] = kir.domain
// CHECK: %[[T:.*]] = kir.domain
// CHECK: %[[D:.*]] = kir.domain
// CHECK-NOT: kir.load
// CHECK: kir.parallel %[[B]], %[[S]] {
// CHECK: ^bb0(%[[b:.*]]: index, %[[i:.*]]: index):
// CHECK: %[[SC:.*]] = kir.broadcast %scale over(%[[T]]) dims [] : f32 -> tensor<?xf32>
// CHECK: %[[Q:.*]] = kir.load %q[%[[b]], %[[i]], %[[D]]] {{.*}} -> tensor<?xf16>
// CHECK: %[[K:.*]] = kir.load %k[%[[b]], %[[T]], %[[D]]] {{.*}} -> tensor<?x?xf16>
// CHECK: %[[X:.*]] = kir.contract %[[Q]], %[[K]] reduce([0], [1]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
// CHECK: %[[SS:.*]] = kir.binary mul %[[X]], %[[SC]] : tensor<?xf32>
// CHECK: %[[M:.*]] = kir.reduce %[[SS]] axes [0] {{.*}} -> (f32)
// CHECK: %[[MB:.*]] = kir.broadcast %[[M]] over(%[[T]]) dims [] : f32 -> tensor<?xf32>
// CHECK: %[[E:.*]] = kir.unary exp
// CHECK: %[[L:.*]] = kir.reduce %[[E]] axes [0] {{.*}} -> (f32)
// CHECK: %[[LB:.*]] = kir.broadcast %[[L]] over(%[[T]]) dims [] : f32 -> tensor<?xf32>
// CHECK: %[[P:.*]] = kir.binary div %[[E]], %[[LB]] : tensor<?xf32>
// CHECK: %[[PH:.*]] = kir.cast %[[P]] : tensor<?xf32> to tensor<?xf16>
// CHECK: kir.store %[[PH]], %p[%[[b]], %[[i]], %[[T]]]
// CHECK: kir.yield
// CHECK-NOT: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @bmm_softmax(%q: !kir.view<f16, [B, S, D], in>, %k: !kir.view<f16, [B, T, D], in>, %p: !kir.view<f16, [B, S, T], out>, %scale: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "S"
    %2 = kir.extent "D"
    %3 = kir.extent "T"
    %4 = arith.constant 0 : index
    %5 = kir.domain %4 to %0
    %6 = kir.domain %4 to %1
    %7 = kir.domain %4 to %3
    %8 = kir.domain %4 to %2
    %12 = kir.broadcast %scale over(%5, %6, %7) dims [] : f32 -> tensor<?x?x?xf32>
    %14 = arith.constant 0xFF800000 : f32
    %22 = arith.constant 0.0 : f32
    %9 = kir.load %q[%5, %6, %8] : !kir.view<f16, [B, S, D], in>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xf16>
    %10 = kir.load %k[%5, %7, %8] : !kir.view<f16, [B, T, D], in>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xf16>
    %11 = kir.contract %9, %10 reduce([2], [2]) batch([0], [0]) : tensor<?x?x?xf16>, tensor<?x?x?xf16> -> tensor<?x?x?xf32>
    %13 = kir.binary mul %11, %12 : tensor<?x?x?xf32>
    %18 = kir.reduce %13 axes [2] identity(%14 : f32) : (tensor<?x?x?xf32>) -> (tensor<?x?xf32>) {
    ^bb0(%15: f32, %16: f32):
      %17 = kir.binary max %15, %16 : f32
      kir.yield %17 : f32
    }
    %19 = kir.broadcast %18 over(%5, %6, %7) dims [0, 1] : tensor<?x?xf32> -> tensor<?x?x?xf32>
    %20 = kir.binary sub %13, %19 : tensor<?x?x?xf32>
    %21 = kir.unary exp %20 : tensor<?x?x?xf32>
    %26 = kir.reduce %21 axes [2] identity(%22 : f32) : (tensor<?x?x?xf32>) -> (tensor<?x?xf32>) {
    ^bb0(%23: f32, %24: f32):
      %25 = kir.binary add %23, %24 : f32
      kir.yield %25 : f32
    }
    %27 = kir.broadcast %26 over(%5, %6, %7) dims [0, 1] : tensor<?x?xf32> -> tensor<?x?x?xf32>
    %28 = kir.binary div %21, %27 : tensor<?x?x?xf32>
    %29 = kir.cast %28 : tensor<?x?x?xf32> to tensor<?x?x?xf16>
    // expected-remark @below {{kir-row-parallels: the store reads a reduction over an axis it writes: it became a parallel over its other 2 axis(es)}}
    kir.store %29, %p[%5, %6, %7] : tensor<?x?x?xf16>, !kir.view<f16, [B, S, T], out>[!kir.domain, !kir.domain, !kir.domain]
    kir.return
  }
}

// -----

// COM: Must not fire: a kernel-level GEMM (the contraction reduces D, which the store does not write)
// COM: and a row sum stored per row (the reduction's axis N is not written): no row is read with its
// COM: own summary, the stores stay at kernel level, silently.
// CHECK-LABEL: kir.kernel @gemm_and_rowsum
// CHECK-NOT: kir.parallel
// CHECK: kir.contract
// CHECK: kir.store
// CHECK: kir.reduce
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @gemm_and_rowsum(%a: !kir.view<f16, [M, K], in>, %b: !kir.view<f16, [K, N], in>, %c: !kir.view<f32, [M, N], out>, %x: !kir.view<f32, [M, N], in>, %r: !kir.view<f32, [M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %2 = kir.extent "N"
    %z = arith.constant 0 : index
    %m = kir.domain %z to %0
    %kk = kir.domain %z to %1
    %n = kir.domain %z to %2
    %zero = arith.constant 0.0 : f32
    %av = kir.load %a[%m, %kk] : !kir.view<f16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
    %bv = kir.load %b[%kk, %n] : !kir.view<f16, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
    %cv = kir.contract %av, %bv reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?x?xf16> -> tensor<?x?xf32>
    kir.store %cv, %c[%m, %n] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    %xv = kir.load %x[%m, %n] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %s = kir.reduce %xv axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%p: f32, %q: f32):
      %t = kir.binary add %p, %q : f32
      kir.yield %t : f32
    }
    kir.store %s, %r[%m] : tensor<?xf32>, !kir.view<f32, [M], out>[!kir.domain]
    kir.return
  }
}

// -----

// COM: Must not fire: an in-place row normalization x[m, :] /= sum(x[m, :]) at kernel level reads the
// COM: view it writes; moving the read into a member beside the write is not proven safe, so it stays.
// CHECK-LABEL: kir.kernel @in_place
// CHECK-NOT: kir.parallel
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @in_place(%x: !kir.view<f32, [M, N], inout>) {
    %0 = kir.extent "M"
    %2 = kir.extent "N"
    %z = arith.constant 0 : index
    %m = kir.domain %z to %0
    %n = kir.domain %z to %2
    %zero = arith.constant 0.0 : f32
    %xv = kir.load %x[%m, %n] : !kir.view<f32, [M, N], inout>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %s = kir.reduce %xv axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%p: f32, %q: f32):
      %t = kir.binary add %p, %q : f32
      kir.yield %t : f32
    }
    %sb = kir.broadcast %s over(%m, %n) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %y = kir.binary div %xv, %sb : tensor<?x?xf32>
    // expected-remark @below {{kir-row-parallels: the store stays at kernel level: the row reads a view the kernel writes}}
    kir.store %y, %x[%m, %n] : tensor<?x?xf32>, !kir.view<f32, [M, N], inout>[!kir.domain, !kir.domain]
    kir.return
  }
}

// -----

// COM: bench/corpus/68_layernorm_backward_dx_b: two row sums of one broadcast product g = w[cols] *
// COM: x[rows, cols]. kir-contract-products made the first a contraction of the 16-bit w [N] and x
// COM: [M, N] (a GEMV, result over M); the second stays a reduction over N, a row read with its own
// COM: summary. Before: the contraction's only result axis is the member M, so a sliced kir.contract
// COM: would yield a scalar (invalid: a contraction yields a tensor). After: in the member it is the
// COM: row's dot product, the operands widened to the f32 accumulator, multiplied and summed over
// COM: axis 0; the product kept by the second sum is sliced as before. (The bmm case above, whose
// COM: contraction keeps the T axis, must keep its kir.contract.)
// CHECK-LABEL: kir.kernel @two_row_sums
// CHECK: kir.parallel
// CHECK: ^bb0(%[[i:.*]]: index):
// CHECK: %[[W:.*]] = kir.load %w[%{{.*}}] {{.*}} -> tensor<?xf16>
// CHECK: %[[X:.*]] = kir.load %x[%[[i]], %{{.*}}] {{.*}} -> tensor<?xf16>
// CHECK-NOT: kir.contract
// CHECK: kir.cast %[[W]] : tensor<?xf16> to tensor<?xf32>
// CHECK: %[[WF:.*]] = kir.cast %[[W]] : tensor<?xf16> to tensor<?xf32>
// CHECK-NEXT: %[[XF:.*]] = kir.cast %[[X]] : tensor<?xf16> to tensor<?xf32>
// CHECK-NEXT: %[[P:.*]] = kir.binary mul %[[WF]], %[[XF]] : tensor<?xf32>
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[D:.*]] = kir.reduce %[[P]] axes [0] identity(%[[Z]] : f32) : (tensor<?xf32>) -> (f32)
// CHECK: kir.binary add
// CHECK: kir.yield
// CHECK-NOT: kir.contract
// CHECK: %[[S:.*]] = kir.reduce {{.*}} -> (f32)
// CHECK: kir.binary add %[[D]], %[[S]] : f32
// CHECK: kir.store
// CHECK: kir.yield
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @two_row_sums(%x: !kir.view<f16, [M, N], in>, %w: !kir.view<f16, [N], in>, %y: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %cst = arith.constant 0.000000e+00 : f32
    %4 = kir.load %w[%3] : !kir.view<f16, [N], in>[!kir.domain] -> tensor<?xf16>
    %5 = kir.load %x[%2, %3] : !kir.view<f16, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
    %wf = kir.cast %4 : tensor<?xf16> to tensor<?xf32>
    %xf = kir.cast %5 : tensor<?x?xf16> to tensor<?x?xf32>
    %6 = kir.broadcast %wf over(%2, %3) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
    %7 = kir.binary mul %6, %xf : tensor<?x?xf32>
    %8 = kir.contract %4, %5 reduce([0], [1]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
    %10 = kir.binary mul %7, %xf : tensor<?x?xf32>
    %11 = kir.reduce %10 axes [1] identity(%cst : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %14 = kir.binary add %arg0, %arg1 : f32
      kir.yield %14 : f32
    }
    %12 = kir.binary add %8, %11 : tensor<?xf32>
    %13 = kir.broadcast %12 over(%2, %3) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    // expected-remark @below {{kir-row-parallels: the store reads a reduction over an axis it writes: it became a parallel over its other 1 axis(es)}}
    kir.store %13, %y[%2, %3] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
}

// -----

// COM: bench/corpus/138_classifier_head: probs = softmax(X @ W + b) with the bias as the matmul's
// COM: init= (docs/language.md's GEMM epilogue). Before: refused ("a contraction with unknown axes or
// COM: an initial value"), the store constructed one program per element, each recomputing its row's
// COM: logits (O(C^2 K) a row). After: the initial value ranges over the result's axes (rows, classes),
// COM: so in a member it loses the row as the result does: a kir.parallel over the rows, the member's
// COM: contraction x[i, :] . W + b[classes] keeping b as its [C] initial value.
// CHECK-LABEL: kir.kernel @classifier_head
// CHECK: %[[M:.*]] = kir.domain
// CHECK: %[[K:.*]] = kir.domain
// CHECK: %[[C:.*]] = kir.domain
// CHECK-NOT: kir.load
// CHECK: kir.parallel %[[M]] {
// CHECK: ^bb0(%[[i:.*]]: index):
// CHECK: %[[X:.*]] = kir.load %x[%[[i]], %[[K]]] {{.*}} -> tensor<?xbf16>
// CHECK: %[[W:.*]] = kir.load %w[%[[K]], %[[C]]] {{.*}} -> tensor<?x?xbf16>
// CHECK: %[[B:.*]] = kir.load %b[%[[C]]] {{.*}} -> tensor<?xf32>
// CHECK: %[[BB:.*]] = kir.broadcast %[[B]] over(%[[C]]) dims [0] : tensor<?xf32> -> tensor<?xf32>
// CHECK: %[[L:.*]] = kir.contract %[[X]], %[[W]] init %[[BB]] reduce([0], [0]) batch([], []) : tensor<?xbf16>, tensor<?x?xbf16>, tensor<?xf32> -> tensor<?xf32>
// CHECK: kir.reduce %[[L]] axes [0] {{.*}} -> (f32)
// CHECK: kir.store {{.*}}, %probs[%[[i]], %[[C]]]
// CHECK: kir.yield
// CHECK-NOT: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @classifier_head(%x: !kir.view<bf16, [M, K], in>, %w: !kir.view<bf16, [K, C], in>, %b: !kir.view<f32, [C], in>, %probs: !kir.view<f32, [M, C], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %2 = kir.extent "C"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %0
    %5 = kir.domain %3 to %1
    %6 = kir.domain %3 to %2
    %12 = arith.constant 0xFF800000 : f32
    %20 = arith.constant 0.0 : f32
    %7 = kir.load %x[%4, %5] : !kir.view<bf16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %8 = kir.load %w[%5, %6] : !kir.view<bf16, [K, C], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %9 = kir.load %b[%6] : !kir.view<f32, [C], in>[!kir.domain] -> tensor<?xf32>
    %10 = kir.broadcast %9 over(%4, %6) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
    %11 = kir.contract %7, %8 init %10 reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?x?xf32> -> tensor<?x?xf32>
    %16 = kir.reduce %11 axes [1] identity(%12 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%13: f32, %14: f32):
      %15 = kir.binary max %13, %14 : f32
      kir.yield %15 : f32
    }
    %17 = kir.broadcast %16 over(%4, %6) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %18 = kir.binary sub %11, %17 : tensor<?x?xf32>
    %19 = kir.unary exp %18 : tensor<?x?xf32>
    %24 = kir.reduce %19 axes [1] identity(%20 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%21: f32, %22: f32):
      %23 = kir.binary add %21, %22 : f32
      kir.yield %23 : f32
    }
    %25 = kir.broadcast %24 over(%4, %6) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %26 = kir.binary div %19, %25 : tensor<?x?xf32>
    // expected-remark @below {{kir-row-parallels: the store reads a reduction over an axis it writes: it became a parallel over its other 1 axis(es)}}
    kir.store %26, %probs[%4, %6] : tensor<?x?xf32>, !kir.view<f32, [M, C], out>[!kir.domain, !kir.domain]
    kir.return
  }
}

// -----

// COM: A contraction with an initial value whose every result axis becomes a member: d[m] = x[m, :] . v + c[m]
// COM: scales the row e[m, :] / sum(e[m, :]). In the member it is the dot product of the rows as a sum of
// COM: products, the member's scalar c[i] added after it (the same value up to summation order, seed 000 §5).
// CHECK-LABEL: kir.kernel @scaled_rows
// CHECK: kir.parallel
// CHECK: ^bb0(%[[i:.*]]: index):
// CHECK: %[[X:.*]] = kir.load %x[%[[i]], %{{.*}}] {{.*}} -> tensor<?xf32>
// CHECK: %[[V:.*]] = kir.load %v[%{{.*}}] {{.*}} -> tensor<?xf32>
// CHECK: %[[CI:.*]] = kir.load %c[%[[i]]] {{.*}} -> f32
// CHECK: %[[P:.*]] = kir.binary mul %[[X]], %[[V]] : tensor<?xf32>
// CHECK: %[[S:.*]] = kir.reduce %[[P]] axes [0] {{.*}} -> (f32)
// CHECK: %[[D:.*]] = kir.binary add %[[CI]], %[[S]] : f32
// CHECK-NOT: kir.contract
// CHECK: kir.store
// CHECK: kir.yield
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @scaled_rows(%x: !kir.view<f32, [M, K], in>, %v: !kir.view<f32, [K], in>, %c: !kir.view<f32, [M], in>, %e: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %2 = kir.extent "N"
    %z = arith.constant 0 : index
    %m = kir.domain %z to %0
    %kk = kir.domain %z to %1
    %n = kir.domain %z to %2
    %zero = arith.constant 0.0 : f32
    %xv = kir.load %x[%m, %kk] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %vv = kir.load %v[%kk] : !kir.view<f32, [K], in>[!kir.domain] -> tensor<?xf32>
    %cv = kir.load %c[%m] : !kir.view<f32, [M], in>[!kir.domain] -> tensor<?xf32>
    %d = kir.contract %xv, %vv init %cv reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
    %ev = kir.load %e[%m, %n] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %s = kir.reduce %ev axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%p: f32, %q: f32):
      %t = kir.binary add %p, %q : f32
      kir.yield %t : f32
    }
    %sb = kir.broadcast %s over(%m, %n) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %db = kir.broadcast %d over(%m, %n) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %q = kir.binary div %ev, %sb : tensor<?x?xf32>
    %r = kir.binary mul %q, %db : tensor<?x?xf32>
    // expected-remark @below {{kir-row-parallels: the store reads a reduction over an axis it writes: it became a parallel over its other 1 axis(es)}}
    kir.store %r, %y[%m, %n] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
}

// -----

// COM: Must not fire: the initial value is read over the result's domains in the other order (bt[classes,
// COM: rows] where the result is over (rows, classes)); a member could not drop the row from it as from the
// COM: result: the store stays at kernel level, the remark says why.
// CHECK-LABEL: kir.kernel @init_other_axes
// CHECK-NOT: kir.parallel
// CHECK: kir.contract
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @init_other_axes(%x: !kir.view<f32, [M, K], in>, %w: !kir.view<f32, [K, M], in>, %bt: !kir.view<f32, [M, M], in>, %probs: !kir.view<f32, [M, M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %0
    %5 = kir.domain %3 to %1
    %6 = kir.domain %3 to %0
    %20 = arith.constant 0.0 : f32
    %7 = kir.load %x[%4, %5] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %8 = kir.load %w[%5, %6] : !kir.view<f32, [K, M], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %9 = kir.load %bt[%6, %4] : !kir.view<f32, [M, M], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %11 = kir.contract %7, %8 init %9 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    %24 = kir.reduce %11 axes [1] identity(%20 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%21: f32, %22: f32):
      %23 = kir.binary add %21, %22 : f32
      kir.yield %23 : f32
    }
    %25 = kir.broadcast %24 over(%4, %6) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %26 = kir.binary div %11, %25 : tensor<?x?xf32>
    // expected-remark @below {{kir-row-parallels: the store stays at kernel level: a contraction whose initial value is not over the result's domains}}
    kir.store %26, %probs[%4, %6] : tensor<?x?xf32>, !kir.view<f32, [M, M], out>[!kir.domain, !kir.domain]
    kir.return
  }
}
