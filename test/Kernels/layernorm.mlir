// RUN: tessel-opt %tessel_src/examples/kir/layernorm.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Row layernorm with runtime eps, weight W[N] and bias Bb[N].

// CHECK-LABEL: kir.kernel @layernorm(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: !kir.view<f32, [M, N], in>, %[[W:[a-zA-Z0-9_]+]]: !kir.view<f32, [N], in>, %[[BB:[a-zA-Z0-9_]+]]: !kir.view<f32, [N], in>, %[[Y:[a-zA-Z0-9_]+]]: !kir.view<f32, [M, N], out>, %[[EPS:[a-zA-Z0-9_]+]]: f32)
// CHECK: %[[N:[a-zA-Z0-9_]+]] = kir.extent "N"
// CHECK: %[[NF:[a-zA-Z0-9_]+]] = kir.cast %[[N]] : index to f32
// CHECK: %[[WT:[a-zA-Z0-9_]+]] = kir.load %[[W]][%[[DN:[a-zA-Z0-9_]+]]] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
// CHECK: %[[BT:[a-zA-Z0-9_]+]] = kir.load %[[BB]][%[[DN]]] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
// CHECK: kir.parallel
// CHECK: %[[ROW:[a-zA-Z0-9_]+]] = kir.load %[[X]][%[[I:[a-zA-Z0-9_]+]], %[[DN]]]
// CHECK: %[[SUM:[a-zA-Z0-9_]+]] = kir.reduce %[[ROW]] axes [0]
// CHECK: kir.binary add
// CHECK: %[[MEAN:[a-zA-Z0-9_]+]] = kir.binary div %[[SUM]], %[[NF]] : f32
// CHECK: %[[XC:[a-zA-Z0-9_]+]] = kir.binary sub %[[ROW]], %{{.+}} : tensor<?xf32>
// CHECK: %[[SQ:[a-zA-Z0-9_]+]] = kir.binary mul %[[XC]], %[[XC]] : tensor<?xf32>
// CHECK: %[[SSQ:[a-zA-Z0-9_]+]] = kir.reduce %[[SQ]] axes [0]
// CHECK: %[[VAR:[a-zA-Z0-9_]+]] = kir.binary div %[[SSQ]], %[[NF]] : f32
// CHECK: %[[VE:[a-zA-Z0-9_]+]] = kir.binary add %[[VAR]], %[[EPS]] : f32
// CHECK: %[[RSTD:[a-zA-Z0-9_]+]] = kir.unary rsqrt %[[VE]] : f32
// CHECK: %[[RB:[a-zA-Z0-9_]+]] = kir.broadcast %[[RSTD]] over(%[[DN]]) dims [] : f32 -> tensor<?xf32>
// CHECK: %[[XH:[a-zA-Z0-9_]+]] = kir.binary mul %[[XC]], %[[RB]] : tensor<?xf32>
// CHECK: %[[SC:[a-zA-Z0-9_]+]] = kir.binary mul %[[XH]], %[[WT]] : tensor<?xf32>
// CHECK: %[[OUT:[a-zA-Z0-9_]+]] = kir.binary add %[[SC]], %[[BT]] : tensor<?xf32>
// CHECK: kir.store %[[OUT]], %[[Y]][%[[I]], %[[DN]]]
