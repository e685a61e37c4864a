// RUN: tessel-opt %tessel_src/examples/kir/cummax.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Inclusive row cummax: one kir.scan per row, max combine, identity -inf.

// CHECK-LABEL: kir.kernel @cummax(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: !kir.view<f32, [M, N], in>, %[[Y:[a-zA-Z0-9_]+]]: !kir.view<f32, [M, N], out>)
// CHECK: %[[NINF:[a-zA-Z0-9_]+]] = arith.constant 0xFF800000 : f32
// CHECK: kir.parallel
// CHECK-NEXT: ^bb0(%[[I:[a-zA-Z0-9_]+]]: index):
// CHECK-NEXT: %[[ROW:[a-zA-Z0-9_]+]] = kir.load %[[X]][%[[I]], %[[DN:[a-zA-Z0-9_]+]]] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
// CHECK-NEXT: %[[CM:[a-zA-Z0-9_]+]] = kir.scan %[[ROW]] axis 0 identity(%[[NINF]] : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
// CHECK-NEXT: ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: f32):
// CHECK-NEXT: %[[C:[a-zA-Z0-9_]+]] = kir.binary max %[[A]], %[[B]] : f32
// CHECK-NEXT: kir.yield %[[C]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: kir.store %[[CM]], %[[Y]][%[[I]], %[[DN]]] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
// CHECK-NOT: exclusive
// CHECK-NOT: reverse
