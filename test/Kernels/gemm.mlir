// RUN: tessel-opt %tessel_src/examples/kir/gemm.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// C[M, N] = A[M, K] x B[K, N] (+ bias): one f16 x f16 -> f32 contraction per row of A.

// CHECK: module attributes {kir.compile_options = #kir.compile_options<>}
// CHECK-LABEL: kir.kernel @gemm(
// CHECK-SAME: %[[A:[a-zA-Z0-9_]+]]: !kir.view<f16, [M, K], in>, %[[B:[a-zA-Z0-9_]+]]: !kir.view<f16, [K, N], in>, %[[BIAS:[a-zA-Z0-9_]+]]: !kir.view<f32, [N], in>, %[[C:[a-zA-Z0-9_]+]]: !kir.view<f32, [M, N], out>)
// CHECK-SAME: attributes {constexprs = {HAS_BIAS = false}}
// CHECK-DAG: %[[DM:[a-zA-Z0-9_]+]] = kir.domain %c0 to %{{.+}}
// CHECK-DAG: %[[HB:[a-zA-Z0-9_]+]] = kir.constexpr "HAS_BIAS" : i1
// CHECK: %[[BMAT:[a-zA-Z0-9_]+]] = kir.load %[[B]][%[[DK:[a-zA-Z0-9_]+]], %[[DN:[a-zA-Z0-9_]+]]] : !kir.view<f16, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
// CHECK: %[[INIT:[a-zA-Z0-9_]+]] = kir.if constexpr %[[HB]] -> tensor<?xf32> {
// CHECK: kir.load %[[BIAS]][%[[DN]]]
// CHECK: } else {
// CHECK: kir.broadcast %{{.+}} over(%[[DN]]) dims [] : f32 -> tensor<?xf32>
// CHECK: kir.parallel %[[DM]] {
// CHECK-NEXT: ^bb0(%[[M:[a-zA-Z0-9_]+]]: index):
// CHECK-NEXT: %[[AROW:[a-zA-Z0-9_]+]] = kir.load %[[A]][%[[M]], %[[DK]]] : !kir.view<f16, [M, K], in>[index, !kir.domain] -> tensor<?xf16>
// CHECK-NEXT: %[[CROW:[a-zA-Z0-9_]+]] = kir.contract %[[AROW]], %[[BMAT]] init %[[INIT]] reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16>, tensor<?xf32> -> tensor<?xf32>
// CHECK-NEXT: kir.store %[[CROW]], %[[C]][%[[M]], %[[DN]]] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
// CHECK-NEXT: kir.yield
// CHECK: kir.return
