// RUN: tessel-opt %tessel_src/examples/kir/argmax.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Row argmax: values to V[M] (f32), positions to I[M] (i64).

// CHECK-LABEL: kir.kernel @argmax(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: !kir.view<f32, [M, N], in>, %[[V:[a-zA-Z0-9_]+]]: !kir.view<f32, [M], out>, %[[I:[a-zA-Z0-9_]+]]: !kir.view<i64, [M], out>)
// CHECK: kir.parallel
// CHECK-NEXT: ^bb0(%[[M:[a-zA-Z0-9_]+]]: index):
// CHECK-NEXT: %[[ROW:[a-zA-Z0-9_]+]] = kir.load %[[X]][%[[M]], %{{.+}}] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
// CHECK-NEXT: %[[VAL:[a-zA-Z0-9_]+]], %[[POS:[a-zA-Z0-9_]+]] = kir.arg_reduce argmax %[[ROW]] axis 0 tie lowest nan propagate : tensor<?xf32> -> f32, index
// CHECK-NEXT: %[[POS64:[a-zA-Z0-9_]+]] = kir.cast %[[POS]] : index to i64
// CHECK-NEXT: kir.store %[[VAL]], %[[V]][%[[M]]] : f32, !kir.view<f32, [M], out>[index]
// CHECK-NEXT: kir.store %[[POS64]], %[[I]][%[[M]]] : i64, !kir.view<i64, [M], out>[index]
