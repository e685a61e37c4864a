// RUN: tessel-opt %s -split-input-file -canonicalize | FileCheck %s --enable-var-scope

// COM: kir.record_get of a kir.record is the named field's value (not the field at the same
// COM: position of another record type); the record then dies.
// CHECK-LABEL: kir.kernel @record_get_of_record
// CHECK-NOT: kir.record
// CHECK: %[[Z:.*]] = arith.constant 0.0
// CHECK-NOT: kir.record
// CHECK: kir.store %[[Z]], %{{.*}}[%{{.*}}]
// CHECK-NOT: kir.record
kir.kernel @record_get_of_record(%y: !kir.view<f32, [1], out>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %r = kir.record %one, %zero : f32, f32 -> !kir.record<m: f32, den: f32>
  %d = kir.record_get %r["den"] : !kir.record<m: f32, den: f32> -> f32
  kir.store %d, %y[%c0] : f32, !kir.view<f32, [1], out>[index]
  kir.return
}

// -----

// COM: Must not fold: a record that is not built by kir.record here (a region fold's result).
// CHECK-LABEL: kir.kernel @record_get_of_fold
// CHECK: %[[S:.*]] = kir.region_fold
// CHECK: kir.record_get %[[S]]["m"]
kir.kernel @record_get_of_fold(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [1], out>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %id = kir.record %zero : f32 -> !kir.record<m: f32>
  %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  %s = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%id : !kir.record<m: f32>) -> (!kir.record<m: f32>)
  summarize {
  ^bb0(%sl: tensor<?xf32>):
    %z = arith.constant 0.0 : f32
    %r = kir.record %z : f32 -> !kir.record<m: f32>
    kir.yield %r : !kir.record<m: f32>
  } combine {
  ^bb0(%p: !kir.record<m: f32>, %q: !kir.record<m: f32>):
    kir.yield %q : !kir.record<m: f32>
  }
  %m = kir.record_get %s["m"] : !kir.record<m: f32> -> f32
  kir.store %m, %y[%c0] : f32, !kir.view<f32, [1], out>[index]
  kir.return
}
