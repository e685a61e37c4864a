// RUN: tessel-opt %tessel_src/examples/kir/vector_add.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Whole-tensor fused pointwise Z = relu(X + Y) * scale: no parallel.

// CHECK: module attributes {kir.compile_options = #kir.compile_options<>}
// CHECK-LABEL: kir.kernel @vector_add(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: !kir.view<f32, [N], in>, %[[Y:[a-zA-Z0-9_]+]]: !kir.view<f32, [N], in>, %[[Z:[a-zA-Z0-9_]+]]: !kir.view<f32, [N], out>, %[[SCALE:[a-zA-Z0-9_]+]]: f32)
// CHECK-NOT: kir.parallel
// CHECK-DAG: %[[ZERO:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[NN:[a-zA-Z0-9_]+]] = kir.extent "N"
// CHECK: %[[DN:[a-zA-Z0-9_]+]] = kir.domain %c0 to %[[NN]]
// CHECK-NEXT: %[[XS:[a-zA-Z0-9_]+]] = kir.load %[[X]][%[[DN]]] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
// CHECK-NEXT: %[[YS:[a-zA-Z0-9_]+]] = kir.load %[[Y]][%[[DN]]] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
// CHECK-NEXT: %[[SUM:[a-zA-Z0-9_]+]] = kir.binary add %[[XS]], %[[YS]] : tensor<?xf32>
// CHECK-NEXT: %[[ZS:[a-zA-Z0-9_]+]] = kir.broadcast %[[ZERO]] over(%[[DN]]) dims [] : f32 -> tensor<?xf32>
// CHECK-NEXT: %[[RELU:[a-zA-Z0-9_]+]] = kir.binary max %[[SUM]], %[[ZS]] : tensor<?xf32>
// CHECK-NEXT: %[[SC:[a-zA-Z0-9_]+]] = kir.broadcast %[[SCALE]] over(%[[DN]]) dims [] : f32 -> tensor<?xf32>
// CHECK-NEXT: %[[OUT:[a-zA-Z0-9_]+]] = kir.binary mul %[[RELU]], %[[SC]] : tensor<?xf32>
// CHECK-NEXT: kir.store %[[OUT]], %[[Z]][%[[DN]]] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
// CHECK-NEXT: kir.return
