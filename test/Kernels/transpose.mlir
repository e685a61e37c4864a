// RUN: tessel-opt %tessel_src/examples/kir/transpose.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Whole-tensor transpose: load X[M, N], swap the axes, store to OUT[N, M].

// CHECK-LABEL: kir.kernel @transpose(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: !kir.view<f32, [M, N], in>, %[[OUT:[a-zA-Z0-9_]+]]: !kir.view<f32, [N, M], out>)
// CHECK-NOT: kir.parallel
// CHECK-DAG: %[[NM:[a-zA-Z0-9_]+]] = kir.extent "M"
// CHECK-DAG: %[[NN:[a-zA-Z0-9_]+]] = kir.extent "N"
// CHECK-DAG: %[[DM:[a-zA-Z0-9_]+]] = kir.domain %c0 to %[[NM]]
// CHECK-DAG: %[[DN:[a-zA-Z0-9_]+]] = kir.domain %c0 to %[[NN]]
// CHECK: %[[XT:[a-zA-Z0-9_]+]] = kir.load %[[X]][%[[DM]], %[[DN]]] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
// CHECK-NEXT: %[[YT:[a-zA-Z0-9_]+]] = kir.transpose %[[XT]] [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT: kir.store %[[YT]], %[[OUT]][%[[DN]], %[[DM]]] : tensor<?x?xf32>, !kir.view<f32, [N, M], out>[!kir.domain, !kir.domain]
// CHECK-NEXT: kir.return
