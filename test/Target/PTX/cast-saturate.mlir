// kir.cast float -> integer truncates toward zero, saturates and maps NaN to 0. The selector emits
// llvm.fptosi.sat: plain fptosi is poison out of range, and NVPTX widens an i8 result to a 16-bit
// cvt.rzi, which wraps (200.0 gave -56); the saturating intrinsic clamps and tests NaN. Integer ->
// integer and integer -> float are not touched.
// RUN: tessel compile %s --target=ptx --emit=device | FileCheck %s --check-prefix=DEVICE
// RUN: tessel compile %s --target=ptx | FileCheck %s --check-prefix=PTX
// DEVICE-DAG: llvm.call_intrinsic "llvm.fptosi.sat.i8.f32"
// DEVICE-DAG: llvm.call_intrinsic "llvm.fptosi.sat.i32.f16"
// DEVICE-DAG: arith.sitofp
// DEVICE-DAG: arith.trunci
// DEVICE-NOT: arith.fptosi
// PTX-DAG: setp.nan.f32
// PTX-DAG: cvt.rzi.s16.f32
// PTX-DAG: cvt.rzi.s32.f32
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @casts(%x: !kir.view<f32, [N], in>, %h: !kir.view<f16, [N], in>, %k: !kir.view<i32, [N], in>, %a: !kir.view<i8, [N], out>, %b: !kir.view<i32, [N], out>, %c: !kir.view<f32, [N], out>, %d: !kir.view<i8, [N], out>) {
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
    kir.return
  }
}

