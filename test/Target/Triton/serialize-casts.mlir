// kir.cast float -> integer truncates toward zero, saturates and maps NaN to 0 (KIR cast semantics).
// tl.cast alone is fptosi: PTX saturates it only at 16/32 bits (an i8 wraps) and TRITON_INTERPRET's
// NumPy gives the most negative integer for NaN and out-of-range values, so the serializer converts
// only in-range values and selects the bounds and 0 for the rest; f16 is widened to f32 first (its
// range does not hold 2^31). Integer -> float, integer -> integer and float -> i1 keep tl.cast.
// RUN: tessel compile %s --emit=source --target=triton | FileCheck %s
// CHECK-LABEL: def _casts_kernel(
// CHECK: [[A:v[0-9]+]] = tl.cast(tl.where((([[X:v[0-9]+]] >= -128.0) & ([[X]] < 128.0)), tl.cast(tl.where((([[X]] >= -128.0) & ([[X]] < 128.0)), [[X]], 0.0), tl.int8), tl.where([[X]] >= 128.0, 127, tl.where([[X]] < -128.0, -128, 0))), tl.int8)
// CHECK: = tl.cast(tl.where(((tl.cast([[H:v[0-9]+]], tl.float32) >= -2147483648.0) & (tl.cast([[H]], tl.float32) < 2147483648.0)), tl.cast(tl.where({{.*}}, tl.cast([[H]], tl.float32), 0.0), tl.int32), tl.where(tl.cast([[H]], tl.float32) >= 2147483648.0, 2147483647, tl.where(tl.cast([[H]], tl.float32) < -2147483648.0, -2147483648, 0))), tl.int32)
// CHECK: = tl.cast({{v[0-9]+}}, tl.float32)
// CHECK: = tl.cast({{v[0-9]+}}, tl.int8)
// CHECK: = tl.cast({{v[0-9]+}}, tl.int1)
// CHECK: def _casts_checked(
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @casts(%x: !kir.view<f32, [N], in>, %h: !kir.view<f16, [N], in>, %k: !kir.view<i32, [N], in>, %a: !kir.view<i8, [N], out>, %b: !kir.view<i32, [N], out>, %c: !kir.view<f32, [N], out>, %d: !kir.view<i8, [N], out>, %e: !kir.view<i1, [N], out>) {
    %0 = kir.extent "N"
    %1 = arith.constant 0 : index
    %2 = kir.domain %1 to %0
    %3 = kir.load %x[%2] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %4 = kir.cast %3 : tensor<?xf32> to tensor<?xi8>
    kir.store %4, %a[%2] : tensor<?xi8>, !kir.view<i8, [N], out>[!kir.domain]
    %5 = kir.load %h[%2] : !kir.view<f16, [N], in>[!kir.domain] -> tensor<?xf16>
    %6 = kir.cast %5 : tensor<?xf16> to tensor<?xi32>
    kir.store %6, %b[%2] : tensor<?xi32>, !kir.view<i32, [N], out>[!kir.domain]
    %7 = kir.load %k[%2] : !kir.view<i32, [N], in>[!kir.domain] -> tensor<?xi32>
    %8 = kir.cast %7 : tensor<?xi32> to tensor<?xf32>
    kir.store %8, %c[%2] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    %9 = kir.load %k[%2] : !kir.view<i32, [N], in>[!kir.domain] -> tensor<?xi32>
    %10 = kir.cast %9 : tensor<?xi32> to tensor<?xi8>
    kir.store %10, %d[%2] : tensor<?xi8>, !kir.view<i8, [N], out>[!kir.domain]
    %11 = kir.load %x[%2] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %12 = kir.cast %11 : tensor<?xf32> to tensor<?xi1>
    kir.store %12, %e[%2] : tensor<?xi1>, !kir.view<i1, [N], out>[!kir.domain]
    kir.return
  }
}

