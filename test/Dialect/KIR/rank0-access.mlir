// RUN: tessel-opt %s | FileCheck %s
// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// An access with no coordinates (a rank-0 view, a scalar buffer) parses and prints as `%x[]`.

// CHECK-LABEL: kir.kernel @rank0(
// CHECK: %[[V:.*]] = kir.load %{{.*}}[] : !kir.view<f32, [], in>[] -> f32
// CHECK: kir.store %[[V]], %{{.*}}[] : f32, !kir.view<f32, [], out>[]
kir.kernel @rank0(%x: !kir.view<f32, [], in>, %y: !kir.view<f32, [], out>) {
  %v = kir.load %x[] : !kir.view<f32, [], in>[] -> f32
  kir.store %v, %y[] : f32, !kir.view<f32, [], out>[]
  kir.return
}

// Non-empty coordinate lists print exactly as before: no space before `[`.
// CHECK-LABEL: kir.kernel @rank1(
// CHECK: kir.load %{{.*}}[%{{.*}}] : !kir.view<f32, [N], in>[index] -> f32
kir.kernel @rank1(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [], out>) {
  %c0 = arith.constant 0 : index
  %v = kir.load %x[%c0] : !kir.view<f32, [N], in>[index] -> f32
  kir.store %v, %y[] : f32, !kir.view<f32, [], out>[]
  kir.return
}
