// RUN: tessel-opt %s -split-input-file -kir-row-parallels | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s -split-input-file -kir-row-parallels=keep-summaries=false | FileCheck %s --check-prefix=OFF

// COM: bench/corpus/248's CLIP loss (issue 41): loss[0] sums, over the rows, each row's logsumexp of
// COM: logits = scale * img @ txt^T minus its diagonal, and the same over the columns. At kernel level
// COM: one program computed every dot product element by element. After: one kir.parallel per sum over
// COM: the rows, each member writing its row's value to a buffer the sum reads. The member's axis is a
// COM: position of the (rows, rows) logits, not a domain: the rows' member reads txt whole against its
// COM: img row (the vector on the lhs), the columns' member img whole against its txt row (on the rhs).
// COM: The diagonal's sum of widened products is the member's dot product (rank-0 kir.contract of the
// COM: bf16 rows and its element), whose axis construction then loops over in blocks.
// COM: Must not fire without keep-summaries (cuTile spells no finalization).
// OFF-LABEL: kir.kernel @clip_loss
// OFF-NOT: kir.parallel
// OFF-NOT: kir.buffer
// CHECK-LABEL: kir.kernel @clip_loss
// CHECK: %[[ROWS:.*]] = kir.domain
// CHECK: %[[DIMS:.*]] = kir.domain
// CHECK: %[[B1:.*]] = kir.buffer over(%[[ROWS]]) first_write : !kir.buffer<tensor<?xf32>>
// CHECK: %[[B2:.*]] = kir.buffer over(%[[ROWS]]) first_write : !kir.buffer<tensor<?xf32>>
// CHECK-NEXT: kir.parallel %[[ROWS]] {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index):
// CHECK-NEXT: %[[IMG:.*]] = kir.load %img[%[[I]], %[[DIMS]]] {{.*}} -> tensor<?xbf16>
// CHECK-NEXT: %[[TXT:.*]] = kir.load %txt[%[[ROWS]], %[[DIMS]]] {{.*}} -> tensor<?x?xbf16>
// CHECK-NEXT: kir.contract %[[IMG]], %[[TXT]] reduce([0], [1]) batch([], []) : tensor<?xbf16>, tensor<?x?xbf16> -> tensor<?xf32>
// CHECK-NOT: kir.cast
// CHECK: %[[OWN:.*]] = kir.load %txt[%[[I]], %[[DIMS]]]
// CHECK-NEXT: %[[DOT:.*]] = kir.contract %[[IMG]], %[[OWN]] reduce([0], [0]) batch([], []) : tensor<?xbf16>, tensor<?xbf16> -> tensor<f32>
// CHECK-NEXT: kir.extract %[[DOT]][] : tensor<f32>
// CHECK: kir.buffer_store %{{.*}}, %[[B1]][%[[I]]] : f32
// CHECK-NEXT: kir.yield
// CHECK: kir.parallel %[[ROWS]] {
// CHECK-NEXT: ^bb0(%[[J:.*]]: index):
// CHECK-NEXT: %[[IMGS:.*]] = kir.load %img[%[[ROWS]], %[[DIMS]]] {{.*}} -> tensor<?x?xbf16>
// CHECK-NEXT: %[[TROW:.*]] = kir.load %txt[%[[J]], %[[DIMS]]] {{.*}} -> tensor<?xbf16>
// CHECK-NEXT: kir.contract %[[IMGS]], %[[TROW]] reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?xbf16> -> tensor<?xf32>
// CHECK: kir.buffer_store %{{.*}}, %[[B2]][%[[J]]] : f32
// CHECK-NEXT: kir.yield
// CHECK: %[[R1:.*]] = kir.buffer_load %[[B1]][%[[ROWS]]]
// CHECK-NEXT: kir.reduce %[[R1]] axes [0]
// CHECK: %[[R2:.*]] = kir.buffer_load %[[B2]][%[[ROWS]]]
// CHECK-NEXT: kir.reduce %[[R2]] axes [0]
// CHECK-NOT: kir.contract
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @clip_loss(%img: !kir.view<bf16, [N, D], in>, %txt: !kir.view<bf16, [N, D], in>, %loss: !kir.view<f32, [1], out>, %scale: f32) {
    %0 = kir.extent "N"
    %1 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %4 = kir.broadcast %scale over(%2, %2) dims [] : f32 -> tensor<?x?xf32>
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %5 = kir.broadcast %scale over(%2) dims [] : f32 -> tensor<?xf32>
    %cst_1 = arith.constant 2.000000e+00 : f32
    %6 = kir.load %img[%2, %3] : !kir.view<bf16, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %7 = kir.load %txt[%2, %3] : !kir.view<bf16, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %8 = kir.contract %6, %7 reduce([1], [1]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
    %9 = kir.binary mul %8, %4 : tensor<?x?xf32>
    %10 = kir.reduce %9 axes [1] identity(%cst : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %39 = kir.binary max %arg0, %arg1 : f32
      kir.yield %39 : f32
    }
    %11 = kir.broadcast %10 over(%2, %2) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %12 = kir.binary sub %9, %11 : tensor<?x?xf32>
    %13 = kir.unary exp %12 : tensor<?x?xf32>
    %14 = kir.reduce %13 axes [1] identity(%cst_0 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %39 = kir.binary add %arg0, %arg1 : f32
      kir.yield %39 : f32
    }
    %15 = kir.unary log %14 : tensor<?xf32>
    %16 = kir.binary add %10, %15 : tensor<?xf32>
    %17 = kir.reduce %9 axes [0] identity(%cst : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %39 = kir.binary max %arg0, %arg1 : f32
      kir.yield %39 : f32
    }
    %18 = kir.broadcast %17 over(%2, %2) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
    %19 = kir.binary sub %9, %18 : tensor<?x?xf32>
    %20 = kir.unary exp %19 : tensor<?x?xf32>
    %21 = kir.reduce %20 axes [0] identity(%cst_0 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %39 = kir.binary add %arg0, %arg1 : f32
      kir.yield %39 : f32
    }
    %22 = kir.unary log %21 : tensor<?xf32>
    %23 = kir.binary add %17, %22 : tensor<?xf32>
    %24 = kir.load %img[%2, %3] : !kir.view<bf16, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %25 = kir.cast %24 : tensor<?x?xbf16> to tensor<?x?xf32>
    %26 = kir.load %txt[%2, %3] : !kir.view<bf16, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %27 = kir.cast %26 : tensor<?x?xbf16> to tensor<?x?xf32>
    %28 = kir.binary mul %25, %27 : tensor<?x?xf32>
    %29 = kir.reduce %28 axes [1] identity(%cst_0 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %39 = kir.binary add %arg0, %arg1 : f32
      kir.yield %39 : f32
    }
    %30 = kir.binary mul %29, %5 : tensor<?xf32>
    %31 = kir.binary sub %16, %30 : tensor<?xf32>
    %32 = kir.reduce %31 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %39 = kir.binary add %arg0, %arg1 : f32
      kir.yield %39 : f32
    }
    %33 = kir.binary sub %23, %30 : tensor<?xf32>
    %34 = kir.reduce %33 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %39 = kir.binary add %arg0, %arg1 : f32
      kir.yield %39 : f32
    }
    %35 = kir.binary add %32, %34 : f32
    %36 = kir.cast %0 : index to f32
    %37 = kir.binary mul %cst_1, %36 : f32
    %38 = kir.binary div %35, %37 : f32
    kir.store %38, %loss[%c0] : f32, !kir.view<f32, [1], out>[index]
    kir.return
  }
}


// -----

// COM: Must not fire: the rows' values hold no contraction (a mean of row logsumexps of x, corpus 274's
// COM: shape): the kernel-level sums stay, for split-row-reductions.
// CHECK-LABEL: kir.kernel @mean_row_lse
// CHECK-NOT: kir.parallel
// CHECK-NOT: kir.buffer
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @mean_row_lse(%x: !kir.view<f32, [N, D], in>, %loss: !kir.view<f32, [1], out>) {
    %0 = kir.extent "N"
    %1 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %4 = kir.load %x[%2, %3] : !kir.view<f32, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %5 = kir.reduce %4 axes [1] identity(%cst : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %15 = kir.binary max %arg0, %arg1 : f32
      kir.yield %15 : f32
    }
    %6 = kir.broadcast %5 over(%2, %3) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %7 = kir.binary sub %4, %6 : tensor<?x?xf32>
    %8 = kir.unary exp %7 : tensor<?x?xf32>
    %9 = kir.reduce %8 axes [1] identity(%cst_0 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %15 = kir.binary add %arg0, %arg1 : f32
      kir.yield %15 : f32
    }
    %10 = kir.unary log %9 : tensor<?xf32>
    %11 = kir.binary add %5, %10 : tensor<?xf32>
    %12 = kir.reduce %11 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %15 = kir.binary add %arg0, %arg1 : f32
      kir.yield %15 : f32
    }
    %13 = kir.cast %0 : index to f32
    %14 = kir.binary div %12, %13 : f32
    kir.store %14, %loss[%c0] : f32, !kir.view<f32, [1], out>[index]
    kir.return
  }
}


// -----

// COM: Must not fire: the second sum's rows read the first sum's result (lse - mean(lse)): a parallel
// COM: before the sums could not read it (a remark says so with optimization_remarks).
// CHECK-LABEL: kir.kernel @centered_lse
// CHECK-NOT: kir.parallel
// CHECK-NOT: kir.buffer
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @centered_lse(%a: !kir.view<f16, [N, D], in>, %b: !kir.view<f16, [N, D], in>, %loss: !kir.view<f32, [1], out>) {
    %0 = kir.extent "N"
    %1 = kir.extent "D"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %4 = kir.load %a[%2, %3] : !kir.view<f16, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
    %5 = kir.load %b[%2, %3] : !kir.view<f16, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
    %6 = kir.contract %4, %5 reduce([1], [1]) batch([], []) : tensor<?x?xf16>, tensor<?x?xf16> -> tensor<?x?xf32>
    %7 = kir.reduce %6 axes [1] identity(%cst : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %23 = kir.binary max %arg0, %arg1 : f32
      kir.yield %23 : f32
    }
    %8 = kir.broadcast %7 over(%2, %2) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %9 = kir.binary sub %6, %8 : tensor<?x?xf32>
    %10 = kir.unary exp %9 : tensor<?x?xf32>
    %11 = kir.reduce %10 axes [1] identity(%cst_0 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %23 = kir.binary add %arg0, %arg1 : f32
      kir.yield %23 : f32
    }
    %12 = kir.unary log %11 : tensor<?xf32>
    %13 = kir.binary add %7, %12 : tensor<?xf32>
    %14 = kir.reduce %13 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %23 = kir.binary add %arg0, %arg1 : f32
      kir.yield %23 : f32
    }
    %15 = kir.cast %0 : index to f32
    %16 = kir.binary div %14, %15 : f32
    %17 = kir.broadcast %16 over(%2) dims [] : f32 -> tensor<?xf32>
    %18 = kir.binary sub %13, %17 : tensor<?xf32>
    %19 = kir.broadcast %16 over(%2) dims [] : f32 -> tensor<?xf32>
    %20 = kir.binary sub %13, %19 : tensor<?xf32>
    %21 = kir.binary mul %18, %20 : tensor<?xf32>
    %22 = kir.reduce %21 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %23 = kir.binary add %arg0, %arg1 : f32
      kir.yield %23 : f32
    }
    kir.store %22, %loss[%c0] : f32, !kir.view<f32, [1], out>[index]
    kir.return
  }
}

