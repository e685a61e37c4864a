// RUN: tessel-opt %tessel_src/examples/kir/cross_entropy.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Row cross-entropy: logsumexp of the row minus the target logit, read with a
// scalar load at the target index (an i32 view with a kir.range).

// CHECK-LABEL: kir.kernel @cross_entropy(
// CHECK-SAME: %[[L:[a-zA-Z0-9_]+]]: !kir.view<f32, [M, C], in>, %[[TG:[a-zA-Z0-9_]+]]: !kir.view<i32, [M], in> {kir.range = [0, "C"]}, %[[LOSS:[a-zA-Z0-9_]+]]: !kir.view<f32, [M], out>)
// CHECK-DAG: %[[NINF:[a-zA-Z0-9_]+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK: kir.parallel
// CHECK-NEXT: ^bb0(%[[I:[a-zA-Z0-9_]+]]: index):
// CHECK-NEXT: %[[ROW:[a-zA-Z0-9_]+]] = kir.load %[[L]][%[[I]], %[[DC:[a-zA-Z0-9_]+]]] : !kir.view<f32, [M, C], in>[index, !kir.domain] -> tensor<?xf32>
// CHECK-NEXT: %[[MX:[a-zA-Z0-9_]+]] = kir.reduce %[[ROW]] axes [0] identity(%[[NINF]] : f32) : (tensor<?xf32>) -> (f32) {
// CHECK: kir.binary max
// CHECK: %[[MXB:[a-zA-Z0-9_]+]] = kir.broadcast %[[MX]] over(%[[DC]]) dims [] : f32 -> tensor<?xf32>
// CHECK-NEXT: %[[SH:[a-zA-Z0-9_]+]] = kir.binary sub %[[ROW]], %[[MXB]] : tensor<?xf32>
// CHECK-NEXT: %[[E:[a-zA-Z0-9_]+]] = kir.unary exp %[[SH]] : tensor<?xf32>
// CHECK-NEXT: %[[SUM:[a-zA-Z0-9_]+]] = kir.reduce %[[E]] axes [0] identity(%[[ZERO]] : f32) : (tensor<?xf32>) -> (f32) {
// CHECK: kir.binary add
// CHECK: %[[LOG:[a-zA-Z0-9_]+]] = kir.unary log %[[SUM]] : f32
// CHECK-NEXT: %[[LSE:[a-zA-Z0-9_]+]] = kir.binary add %[[MX]], %[[LOG]] : f32
// CHECK-NEXT: %[[T32:[a-zA-Z0-9_]+]] = kir.load %[[TG]][%[[I]]] : !kir.view<i32, [M], in>[index] -> i32
// CHECK-NEXT: %[[T:[a-zA-Z0-9_]+]] = kir.cast %[[T32]] : i32 to index
// CHECK-NEXT: %[[PICK:[a-zA-Z0-9_]+]] = kir.load %[[L]][%[[I]], %[[T]]] : !kir.view<f32, [M, C], in>[index, index] -> f32
// CHECK-NEXT: %[[RES:[a-zA-Z0-9_]+]] = kir.binary sub %[[LSE]], %[[PICK]] : f32
// CHECK-NEXT: kir.store %[[RES]], %[[LOSS]][%[[I]]] : f32, !kir.view<f32, [M], out>[index]
// CHECK-NEXT: kir.yield
