// RUN: tessel-opt %tessel_src/examples/kir/embedding.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Embedding lookup (index_relation + gather) and its backward (scatter_reduce add
// into an inout table); ids carry kir.range [0, "V"].

// CHECK-LABEL: kir.kernel @embedding_gather(
// CHECK-SAME: %[[TAB:[a-zA-Z0-9_]+]]: !kir.view<f32, [V, D], in>, %[[IDS:[a-zA-Z0-9_]+]]: !kir.view<i32, [T], in> {kir.range = [0, "V"]}, %[[OUT:[a-zA-Z0-9_]+]]: !kir.view<f32, [T, D], out>)
// CHECK-NOT: kir.parallel
// CHECK: %[[DT:[a-zA-Z0-9_]+]] = kir.domain %c0 to %{{.+}}
// CHECK-NEXT: %[[DD:[a-zA-Z0-9_]+]] = kir.domain %c0 to %{{.+}}
// CHECK-NEXT: %[[ROWS:[a-zA-Z0-9_]+]] = kir.index_relation %[[IDS]][%[[DT]]] : !kir.view<i32, [T], in> -> tensor<?xindex>
// CHECK-NEXT: %[[VALS:[a-zA-Z0-9_]+]] = kir.gather %[[TAB]][%[[ROWS]], %[[DD]]] : !kir.view<f32, [V, D], in>[tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
// CHECK-NEXT: kir.store %[[VALS]], %[[OUT]][%[[DT]], %[[DD]]] : tensor<?x?xf32>, !kir.view<f32, [T, D], out>[!kir.domain, !kir.domain]
// CHECK-NEXT: kir.return

// CHECK-LABEL: kir.kernel @embedding_scatter_add(
// CHECK-SAME: %[[GO:[a-zA-Z0-9_]+]]: !kir.view<f32, [T, D], in>, %[[IDS2:[a-zA-Z0-9_]+]]: !kir.view<i32, [T], in> {kir.range = [0, "V"]}, %[[GT:[a-zA-Z0-9_]+]]: !kir.view<f32, [V, D], inout>)
// CHECK-NOT: kir.parallel
// CHECK: %[[DT2:[a-zA-Z0-9_]+]] = kir.domain %c0 to %{{.+}}
// CHECK-NEXT: %[[DD2:[a-zA-Z0-9_]+]] = kir.domain %c0 to %{{.+}}
// CHECK-NEXT: %[[ROWS2:[a-zA-Z0-9_]+]] = kir.index_relation %[[IDS2]][%[[DT2]]] : !kir.view<i32, [T], in> -> tensor<?xindex>
// CHECK-NEXT: %[[G:[a-zA-Z0-9_]+]] = kir.load %[[GO]][%[[DT2]], %[[DD2]]] : !kir.view<f32, [T, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
// CHECK-NEXT: kir.scatter_reduce %[[G]], %[[GT]][%[[ROWS2]], %[[DD2]]] : tensor<?x?xf32>, !kir.view<f32, [V, D], inout>[tensor<?xindex>, !kir.domain] {
// CHECK-NEXT: ^bb0(%[[P:[a-zA-Z0-9_]+]]: f32, %[[Q:[a-zA-Z0-9_]+]]: f32):
// CHECK-NEXT: %[[S:[a-zA-Z0-9_]+]] = kir.binary add %[[P]], %[[Q]] : f32
// CHECK-NEXT: kir.yield %[[S]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: kir.return
