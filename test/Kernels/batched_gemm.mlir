// RUN: tessel-opt %tessel_src/examples/kir/batched_gemm.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Whole-tensor batched gemm: one contraction with batch pair (0, 0) and reduce pair (2, 1).

// CHECK-LABEL: kir.kernel @batched_gemm(
// CHECK-SAME: %[[A:[a-zA-Z0-9_]+]]: !kir.view<f16, [B, M, K], in>, %[[B:[a-zA-Z0-9_]+]]: !kir.view<f16, [B, K, N], in>, %[[C:[a-zA-Z0-9_]+]]: !kir.view<f32, [B, M, N], out>)
// CHECK-NOT: kir.parallel
// CHECK-DAG: %[[NB:[a-zA-Z0-9_]+]] = kir.extent "B"
// CHECK-DAG: %[[NM:[a-zA-Z0-9_]+]] = kir.extent "M"
// CHECK-DAG: %[[NN:[a-zA-Z0-9_]+]] = kir.extent "N"
// CHECK-DAG: %[[NK:[a-zA-Z0-9_]+]] = kir.extent "K"
// CHECK-DAG: %[[DB:[a-zA-Z0-9_]+]] = kir.domain %c0 to %[[NB]]
// CHECK-DAG: %[[DM:[a-zA-Z0-9_]+]] = kir.domain %c0 to %[[NM]]
// CHECK-DAG: %[[DN:[a-zA-Z0-9_]+]] = kir.domain %c0 to %[[NN]]
// CHECK-DAG: %[[DK:[a-zA-Z0-9_]+]] = kir.domain %c0 to %[[NK]]
// CHECK: %[[AT:[a-zA-Z0-9_]+]] = kir.load %[[A]][%[[DB]], %[[DM]], %[[DK]]] : !kir.view<f16, [B, M, K], in>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xf16>
// CHECK-NEXT: %[[BT:[a-zA-Z0-9_]+]] = kir.load %[[B]][%[[DB]], %[[DK]], %[[DN]]] : !kir.view<f16, [B, K, N], in>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xf16>
// CHECK-NEXT: %[[CT:[a-zA-Z0-9_]+]] = kir.contract %[[AT]], %[[BT]] reduce([2], [1]) batch([0], [0]) : tensor<?x?x?xf16>, tensor<?x?x?xf16> -> tensor<?x?x?xf32>
// CHECK-NEXT: kir.store %[[CT]], %[[C]][%[[DB]], %[[DM]], %[[DN]]] : tensor<?x?x?xf32>, !kir.view<f32, [B, M, N], out>[!kir.domain, !kir.domain, !kir.domain]
// CHECK-NEXT: kir.return
