// A scalar float comparison broadcast to a tensor (`(x[d] > 0.0) & (s > 0.5)`) splats through tl.where:
// Triton 3.6's interpreter keeps a scalar float comparison as float data, which `|` rejects ("ufunc
// 'bitwise_or' not supported"; found by the DSL fuzzer). An integer comparison keeps the `|` splat.
// RUN: tessel compile %s --emit=source --target=triton -o %t.py
// RUN: FileCheck %s --input-file=%t.py

// CHECK-LABEL: def _scalar_masks_kernel(
// CHECK: [[Q:v[0-9]+]] = q > tl.full([], 1, tl.int32)
// CHECK: [[S:v[0-9]+]] = s > tl.full([], 5.000000e-01, tl.float32)
// CHECK: = tl.where([[S]], tl.full([512], 1, tl.int1), tl.full([512], 0, tl.int1))
// CHECK: = tl.full([512], 0, tl.int1) | [[Q]]
module {
  kir.kernel @scalar_masks(%x: !kir.view<f32, [N], in>, %y: !kir.view<i1, [N], out>, %z: !kir.view<i1, [N], out>, %s: f32, %q: i32) {
    %0 = kir.extent "N"
    %1 = arith.constant 0 : index
    %2 = kir.domain %1 to %0
    %4 = arith.constant 0.0 : f32
    %5 = kir.broadcast %4 over(%2) dims [] : f32 -> tensor<?xf32>
    %7 = arith.constant 0.5 : f32
    %15 = arith.constant 1 : i32
    %3 = kir.load %x[%2] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %6 = kir.cmp gt %3, %5 : tensor<?xf32>
    %8 = kir.cmp gt %s, %7 : f32
    %9 = kir.broadcast %8 over(%2) dims [] : i1 -> tensor<?xi1>
    %10 = kir.binary and %6, %9 : tensor<?xi1>
    kir.store %10, %y[%2] : tensor<?xi1>, !kir.view<i1, [N], out>[!kir.domain]
    %16 = kir.cmp gt %q, %15 : i32
    %17 = kir.broadcast %16 over(%2) dims [] : i1 -> tensor<?xi1>
    %18 = kir.binary and %6, %17 : tensor<?xi1>
    kir.store %18, %z[%2] : tensor<?xi1>, !kir.view<i1, [N], out>[!kir.domain]
    kir.return
  }
}
