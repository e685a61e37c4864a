// RUN: tessel-opt %s -split-input-file -kir-annotate-origins -mlir-print-debuginfo | FileCheck %s
// RUN: tessel-opt %s -split-input-file -kir-annotate-origins -kir-annotate-origins -mlir-print-debuginfo | FileCheck %s

// COM: Every op of a kernel gets #kir.origin<kernel, pre-order id>; the original location is kept
// COM: inside the fused location, so diagnostics still point at the source line.
// CHECK-LABEL: kir.kernel @copy
// CHECK: arith.constant 0 : index loc([[L1:#loc[0-9]*]])
// CHECK: kir.extent "N" loc([[L2:#loc[0-9]*]])
// CHECK: kir.domain {{.*}} loc([[L3:#loc[0-9]*]])
// CHECK: kir.parallel
// CHECK: kir.load {{.*}} loc([[L5:#loc[0-9]*]])
// CHECK: kir.store {{.*}} loc([[L6:#loc[0-9]*]])
// CHECK: } loc([[L4:#loc[0-9]*]])
// CHECK: } loc([[L0:#loc[0-9]*]])
// CHECK-DAG: [[L0]] = loc(fused<#kir.origin<"copy", 0>>[
// CHECK-DAG: [[L1]] = loc(fused<#kir.origin<"copy", 1>>[
// CHECK-DAG: [[L2]] = loc(fused<#kir.origin<"copy", 2>>[
// CHECK-DAG: [[L3]] = loc(fused<#kir.origin<"copy", 3>>[
// CHECK-DAG: [[L4]] = loc(fused<#kir.origin<"copy", 4>>[
// CHECK-DAG: [[L5]] = loc(fused<#kir.origin<"copy", 5>>[
// CHECK-DAG: [[L6]] = loc(fused<#kir.origin<"copy", 6>>[
kir.kernel @copy(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  kir.parallel %d {
  ^bb0(%i: index):
    %v = kir.load %x[%i] : !kir.view<f32, [N], in>[index] -> f32
    kir.store %v, %y[%i] : f32, !kir.view<f32, [N], out>[index]
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not fire: an op that already has an origin keeps it (ids are not renumbered), and ops
// COM: outside a kir.kernel get none.
// CHECK-LABEL: kir.kernel @keep
// CHECK: kir.extent "N" loc([[K:#loc[0-9]*]])
// CHECK: [[K]] = loc(fused<#kir.origin<"other", 42>>[
// CHECK-NOT: #kir.origin<"keep", 1>
kir.kernel @keep(%x: !kir.view<f32, [N], in>) {
  %n = kir.extent "N" loc(fused<#kir.origin<"other", 42>>["k.py":3:1])
  kir.return
}
// CHECK-NOT: #kir.origin<{{.*}}>>["outside
%free = arith.constant 1 : i32 loc("outside":1:1)
