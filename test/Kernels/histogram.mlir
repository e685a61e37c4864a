// RUN: tessel-opt %tessel_src/examples/kir/histogram.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Whole-tensor histogram of X[N] into H[B], counting only values in [0, B).

// CHECK-LABEL: kir.kernel @histogram(
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: !kir.view<i32, [N], in> {kir.range = [-3, "B"]}, %[[H:[a-zA-Z0-9_]+]]: !kir.view<i32, [B], out>)
// CHECK-NOT: kir.parallel
// CHECK-DAG: %[[NB:[a-zA-Z0-9_]+]] = kir.extent "B"
// CHECK-DAG: %[[DN:[a-zA-Z0-9_]+]] = kir.domain %c0 to %{{.+}}
// CHECK-DAG: %[[DB:[a-zA-Z0-9_]+]] = kir.domain %c0 to %[[NB]]
// CHECK: %[[VALS:[a-zA-Z0-9_]+]] = kir.load %[[X]][%[[DN]]] : !kir.view<i32, [N], in>[!kir.domain] -> tensor<?xi32>
// CHECK: %[[NBI:[a-zA-Z0-9_]+]] = kir.cast %[[NB]] : index to i32
// CHECK: %[[LO:[a-zA-Z0-9_]+]] = kir.broadcast %{{.+}} over(%[[DN]]) dims [] : i32 -> tensor<?xi32>
// CHECK: %[[HI:[a-zA-Z0-9_]+]] = kir.broadcast %[[NBI]] over(%[[DN]]) dims [] : i32 -> tensor<?xi32>
// CHECK: %[[GE:[a-zA-Z0-9_]+]] = kir.cmp ge %[[VALS]], %[[LO]] : tensor<?xi32>
// CHECK: %[[LT:[a-zA-Z0-9_]+]] = kir.cmp lt %[[VALS]], %[[HI]] : tensor<?xi32>
// CHECK: %[[OK:[a-zA-Z0-9_]+]] = kir.binary and %[[GE]], %[[LT]] : tensor<?xi1>
// CHECK: %[[CNT:[a-zA-Z0-9_]+]] = kir.histogram %[[VALS]] bins(%[[DB]]) valid %[[OK]] : tensor<?xi32>, tensor<?xi1> -> tensor<?xi32>
// CHECK: kir.store %[[CNT]], %[[H]][%[[DB]]] : tensor<?xi32>, !kir.view<i32, [B], out>[!kir.domain]
// CHECK-NOT: kir.parallel
