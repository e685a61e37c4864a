// RUN: tessel-opt %tessel_src/examples/kir/gemv.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Whole-tensor gemv: one f16 x f16 -> f32 contraction of A[M, K] with X[K] over K.

// CHECK-LABEL: kir.kernel @gemv(
// CHECK-SAME: %[[A:[a-zA-Z0-9_]+]]: !kir.view<f16, [M, K], in>, %[[X:[a-zA-Z0-9_]+]]: !kir.view<f16, [K], in>, %[[Y:[a-zA-Z0-9_]+]]: !kir.view<f32, [M], out>)
// CHECK-NOT: kir.parallel
// CHECK: %[[DM:[a-zA-Z0-9_]+]] = kir.domain %c0 to %{{.+}}
// CHECK-NEXT: %[[DK:[a-zA-Z0-9_]+]] = kir.domain %c0 to %{{.+}}
// CHECK-NEXT: %[[AM:[a-zA-Z0-9_]+]] = kir.load %[[A]][%[[DM]], %[[DK]]] : !kir.view<f16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
// CHECK-NEXT: %[[XV:[a-zA-Z0-9_]+]] = kir.load %[[X]][%[[DK]]] : !kir.view<f16, [K], in>[!kir.domain] -> tensor<?xf16>
// CHECK-NEXT: %[[YV:[a-zA-Z0-9_]+]] = kir.contract %[[AM]], %[[XV]] reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
// CHECK-NEXT: kir.store %[[YV]], %[[Y]][%[[DM]]] : tensor<?xf32>, !kir.view<f32, [M], out>[!kir.domain]
// CHECK-NEXT: kir.return
