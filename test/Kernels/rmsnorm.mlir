// RUN: tessel-opt %tessel_src/examples/kir/rmsnorm.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Row RMS norm with runtime eps and weight W[N]: Y = X * rsqrt(mean(X^2) + eps) * W.

// CHECK-LABEL: kir.kernel @rmsnorm(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: !kir.view<f32, [M, N], in>, %[[W:[a-zA-Z0-9_]+]]: !kir.view<f32, [N], in>, %[[Y:[a-zA-Z0-9_]+]]: !kir.view<f32, [M, N], out>, %[[EPS:[a-zA-Z0-9_]+]]: f32)
// CHECK-DAG: %[[ZERO:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[N:[a-zA-Z0-9_]+]] = kir.extent "N"
// CHECK: %[[DN:[a-zA-Z0-9_]+]] = kir.domain %c0 to %[[N]]
// CHECK: %[[NF:[a-zA-Z0-9_]+]] = kir.cast %[[N]] : index to f32
// CHECK: %[[WT:[a-zA-Z0-9_]+]] = kir.load %[[W]][%[[DN]]] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
// CHECK: kir.parallel
// CHECK-NEXT: ^bb0(%[[I:[a-zA-Z0-9_]+]]: index):
// CHECK-NEXT: %[[ROW:[a-zA-Z0-9_]+]] = kir.load %[[X]][%[[I]], %[[DN]]] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
// CHECK-NEXT: %[[SQ:[a-zA-Z0-9_]+]] = kir.binary mul %[[ROW]], %[[ROW]] : tensor<?xf32>
// CHECK-NEXT: %[[SSQ:[a-zA-Z0-9_]+]] = kir.reduce %[[SQ]] axes [0] identity(%[[ZERO]] : f32) : (tensor<?xf32>) -> (f32) {
// CHECK: kir.binary add
// CHECK: %[[MS:[a-zA-Z0-9_]+]] = kir.binary div %[[SSQ]], %[[NF]] : f32
// CHECK-NEXT: %[[MSE:[a-zA-Z0-9_]+]] = kir.binary add %[[MS]], %[[EPS]] : f32
// CHECK-NEXT: %[[R:[a-zA-Z0-9_]+]] = kir.unary rsqrt %[[MSE]] : f32
// CHECK-NEXT: %[[RB:[a-zA-Z0-9_]+]] = kir.broadcast %[[R]] over(%[[DN]]) dims [] : f32 -> tensor<?xf32>
// CHECK-NEXT: %[[XN:[a-zA-Z0-9_]+]] = kir.binary mul %[[ROW]], %[[RB]] : tensor<?xf32>
// CHECK-NEXT: %[[OUT:[a-zA-Z0-9_]+]] = kir.binary mul %[[XN]], %[[WT]] : tensor<?xf32>
// CHECK-NEXT: kir.store %[[OUT]], %[[Y]][%[[I]], %[[DN]]] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
// CHECK-NEXT: kir.yield
