// RUN: tessel-opt %s -split-input-file -kir-row-parallels | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s -split-input-file -kir-row-parallels=keep-summaries=false | FileCheck %s --check-prefix=OFF

// COM: bench/corpus/256_switch_load_balance_loss (issue 41): column sums over the tokens (frac[e], the
// COM: share of tokens whose argmax is e; pmean[e], the mean of each token's softmax) read each token's
// COM: max, softmax denominator and argmax, written without a T.parallel. Replayed, every element of each
// COM: column sum recomputed the token's reductions over the experts (O(E*T*E)). After: a parallel over
// COM: the tokens computes each token's values once (the argmax's index kept as i64) into buffers over the
// COM: tokens; the column sums read them, and the z-loss's scalar sum of lse^2 joins the same parallel.
// CHECK-LABEL: kir.kernel @switch_load_balance_loss
// CHECK-DAG: %[[TOP:.*]] = kir.buffer over(%[[TOKS:.*]]) first_write : !kir.buffer<tensor<?xi64>>
// CHECK-DAG: %[[MX:.*]] = kir.buffer over(%[[TOKS]]) first_write : !kir.buffer<tensor<?xf32>>
// CHECK: kir.parallel %[[TOKS]] {
// CHECK: kir.reduce
// CHECK: kir.arg_reduce argmax
// CHECK: %[[I:.*]] = kir.cast %{{.*}} : index to i64
// CHECK: kir.buffer_store %[[I]], %[[TOP]][%arg0]
// CHECK: kir.yield
// CHECK-NEXT: }
// CHECK: kir.buffer_load %[[TOP]][%[[TOKS]]]
// CHECK: kir.reduce %{{.*}} axes [0]
// CHECK-NOT: kir.arg_reduce
// CHECK: kir.store %{{.*}}, %aux
// CHECK: %[[LSE2:.*]] = kir.buffer_load %{{.*}}[%[[TOKS]]]
// CHECK-NEXT: kir.reduce %[[LSE2]] axes [0]
// CHECK: kir.store %{{.*}}, %z
// OFF-LABEL: kir.kernel @switch_load_balance_loss
// OFF-NOT: kir.parallel
// OFF-NOT: kir.buffer
// OFF: kir.store
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @switch_load_balance_loss(%logits: !kir.view<f32, [T, E], in>, %aux: !kir.view<f32, [1], out>, %z: !kir.view<f32, [1], out>) {
    %0 = kir.extent "T"
    %1 = kir.extent "E"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %4 = kir.indices %3 : tensor<?xindex>
    %5 = kir.broadcast %4 over(%2, %3) dims [1] : tensor<?xindex> -> tensor<?x?xindex>
    %cst_1 = arith.constant 1.000000e+00 : f32
    %6 = kir.broadcast %cst_1 over(%2, %3) dims [] : f32 -> tensor<?x?xf32>
    %7 = kir.broadcast %cst_0 over(%2, %3) dims [] : f32 -> tensor<?x?xf32>
    %8 = kir.load %logits[%2, %3] : !kir.view<f32, [T, E], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %9 = kir.reduce %8 axes [1] identity(%cst : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %35 = kir.binary max %arg0, %arg1 : f32
      kir.yield %35 : f32
    }
    %10 = kir.broadcast %9 over(%2, %3) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %11 = kir.binary sub %8, %10 : tensor<?x?xf32>
    %12 = kir.unary exp %11 : tensor<?x?xf32>
    %13 = kir.reduce %12 axes [1] identity(%cst_0 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %35 = kir.binary add %arg0, %arg1 : f32
      kir.yield %35 : f32
    }
    %14 = kir.broadcast %13 over(%2, %3) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %15 = kir.binary div %12, %14 : tensor<?x?xf32>
    %values, %indices = kir.arg_reduce argmax %8 axis 1 tie lowest nan propagate : tensor<?x?xf32> -> tensor<?xf32>, tensor<?xindex>
    %16 = kir.broadcast %indices over(%2, %3) dims [0] : tensor<?xindex> -> tensor<?x?xindex>
    %17 = kir.cmp eq %16, %5 : tensor<?x?xindex>
    %18 = kir.cast %0 : index to f32
    %19 = kir.select %17, %6, %7 : tensor<?x?xi1>, tensor<?x?xf32>
    %20 = kir.reduce %19 axes [0] identity(%cst_0 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %35 = kir.binary add %arg0, %arg1 : f32
      kir.yield %35 : f32
    }
    %21 = kir.broadcast %18 over(%3) dims [] : f32 -> tensor<?xf32>
    %22 = kir.binary div %20, %21 : tensor<?xf32>
    %23 = kir.reduce %15 axes [0] identity(%cst_0 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %35 = kir.binary add %arg0, %arg1 : f32
      kir.yield %35 : f32
    }
    %24 = kir.broadcast %18 over(%3) dims [] : f32 -> tensor<?xf32>
    %25 = kir.binary div %23, %24 : tensor<?xf32>
    %26 = kir.cast %1 : index to f32
    %27 = kir.binary mul %22, %25 : tensor<?xf32>
    %28 = kir.reduce %27 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %35 = kir.binary add %arg0, %arg1 : f32
      kir.yield %35 : f32
    }
    %29 = kir.binary mul %26, %28 : f32
    kir.store %29, %aux[%c0] : f32, !kir.view<f32, [1], out>[index]
    %30 = kir.unary log %13 : tensor<?xf32>
    %31 = kir.binary add %9, %30 : tensor<?xf32>
    %32 = kir.binary mul %31, %31 : tensor<?xf32>
    %33 = kir.reduce %32 axes [0] identity(%cst_0 : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %35 = kir.binary add %arg0, %arg1 : f32
      kir.yield %35 : f32
    }
    %34 = kir.binary div %33, %18 : f32
    kir.store %34, %z[%c0] : f32, !kir.view<f32, [1], out>[index]
    kir.return
  }
}

// -----

// COM: Must not fire: a row's max stored once at row level, and a column sum of the loaded values that
// COM: reads no row summary: no parallel, no buffer.
// CHECK-LABEL: kir.kernel @row_max_once
// CHECK-NOT: kir.parallel
// CHECK-NOT: kir.buffer
// CHECK: kir.return
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @row_max_once(%x: !kir.view<f32, [N, D], in>, %y: !kir.view<f32, [N], out>, %s: !kir.view<f32, [D], out>) {
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
      %7 = kir.binary max %arg0, %arg1 : f32
      kir.yield %7 : f32
    }
    kir.store %5, %y[%2] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    %6 = kir.reduce %4 axes [0] identity(%cst_0 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %7 = kir.binary add %arg0, %arg1 : f32
      kir.yield %7 : f32
    }
    kir.store %6, %s[%3] : tensor<?xf32>, !kir.view<f32, [D], out>[!kir.domain]
    kir.return
  }
}
