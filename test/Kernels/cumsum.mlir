// RUN: tessel-opt %tessel_src/examples/kir/cumsum.mlir > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// Row prefix sums: inclusive forward, and exclusive reverse.

// CHECK-LABEL: kir.kernel @cumsum(
// CHECK: %[[ZERO:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ROW:[a-zA-Z0-9_]+]] = kir.load
// CHECK-NEXT: %[[SUMS:[a-zA-Z0-9_]+]] = kir.scan %[[ROW]] axis 0 identity(%[[ZERO]] : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
// CHECK-NEXT: ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: f32):
// CHECK-NEXT: %[[S:[a-zA-Z0-9_]+]] = kir.binary add %[[A]], %[[B]] : f32
// CHECK-NEXT: kir.yield %[[S]] : f32
// CHECK: kir.store %[[SUMS]]
// CHECK: kir.return

// CHECK-LABEL: kir.kernel @cumsum_exclusive_reverse(
// CHECK: %[[ZERO2:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ROW2:[a-zA-Z0-9_]+]] = kir.load
// CHECK-NEXT: %[[SUMS2:[a-zA-Z0-9_]+]] = kir.scan %[[ROW2]] axis 0 identity(%[[ZERO2]] : f32) exclusive reverse : (tensor<?xf32>) -> (tensor<?xf32>) {
// CHECK: kir.binary add
// CHECK: kir.store %[[SUMS2]]
