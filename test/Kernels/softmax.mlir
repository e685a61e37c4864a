// RUN: tessel-opt %tessel_src/examples/kir/softmax.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Row softmax: max, exp(x - max), sum, divide.

// CHECK-LABEL: kir.kernel @softmax(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: !kir.view<f32, [M, N], in>, %[[Y:[a-zA-Z0-9_]+]]: !kir.view<f32, [M, N], out>)
// CHECK-DAG: %[[NINF:[a-zA-Z0-9_]+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK: kir.parallel %[[DM:[a-zA-Z0-9_]+]] {
// CHECK-NEXT: ^bb0(%[[I:[a-zA-Z0-9_]+]]: index):
// CHECK-NEXT: %[[ROW:[a-zA-Z0-9_]+]] = kir.load %[[X]][%[[I]], %[[DN:[a-zA-Z0-9_]+]]] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
// CHECK-NEXT: %[[MX:[a-zA-Z0-9_]+]] = kir.reduce %[[ROW]] axes [0] identity(%[[NINF]] : f32) : (tensor<?xf32>) -> (f32) {
// CHECK: kir.binary max
// CHECK: %[[MXB:[a-zA-Z0-9_]+]] = kir.broadcast %[[MX]] over(%[[DN]]) dims [] : f32 -> tensor<?xf32>
// CHECK-NEXT: %[[SH:[a-zA-Z0-9_]+]] = kir.binary sub %[[ROW]], %[[MXB]] : tensor<?xf32>
// CHECK-NEXT: %[[E:[a-zA-Z0-9_]+]] = kir.unary exp %[[SH]] : tensor<?xf32>
// CHECK-NEXT: %[[SUM:[a-zA-Z0-9_]+]] = kir.reduce %[[E]] axes [0] identity(%[[ZERO]] : f32) : (tensor<?xf32>) -> (f32) {
// CHECK: kir.binary add
// CHECK: %[[SUMB:[a-zA-Z0-9_]+]] = kir.broadcast %[[SUM]] over(%[[DN]]) dims [] : f32 -> tensor<?xf32>
// CHECK-NEXT: %[[OUT:[a-zA-Z0-9_]+]] = kir.binary div %[[E]], %[[SUMB]] : tensor<?xf32>
// CHECK-NEXT: kir.store %[[OUT]], %[[Y]][%[[I]], %[[DN]]]
