// kir.unary round (ties to even) per provider. Triton has no tl function for it: below 2^23 (2^52 in
// f64) adding and subtracting that power rounds the magnitude exactly; the sign is put back with
// `* -1.0` (Triton's `-x` is 0 - x, which loses -0.0); f16 rounds in f32. PTX selects
// llvm.roundeven (cvt.rni); cuTile rejects the kind at the op.
// RUN: tessel compile %s --emit=source --target=triton | FileCheck %s --check-prefix=TRITON
// RUN: tessel compile %s --target=ptx | FileCheck %s --check-prefix=PTX
// RUN: not tessel compile %s --emit=source --target=cutile 2>&1 | FileCheck %s --check-prefix=CUTILE
// TRITON-LABEL: def _rounds_kernel(
// TRITON: = tl.where((tl.abs([[X:v[0-9]+]]) < 8388608.0) & ([[X]] != 0), tl.where([[X]] < 0, ((tl.abs([[X]]) + 8388608.0) - 8388608.0) * -1.0, ((tl.abs([[X]]) + 8388608.0) - 8388608.0)), [[X]])
// TRITON: = tl.cast(tl.where((tl.abs(tl.cast([[H:v[0-9]+]], tl.float32)) < 8388608.0)
// TRITON-SAME: tl.float16)
// TRITON: = tl.where((tl.abs([[D:v[0-9]+]]) < 4503599627370496.0) & ([[D]] != 0)
// PTX-DAG: cvt.rni.f32.f32
// PTX-DAG: cvt.rni.f64.f64
// CUTILE: error: {{.*}}'round' (ties to even) is not spelled by the cuTile provider yet
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @rounds(%x: !kir.view<f32, [N], in>, %h: !kir.view<f16, [N], in>, %d: !kir.view<f64, [N], in>, %y: !kir.view<f32, [N], out>, %z: !kir.view<f16, [N], out>, %w: !kir.view<f64, [N], out>) {
    %0 = kir.extent "N"
    %1 = arith.constant 0 : index
    %2 = kir.domain %1 to %0
    %3 = kir.load %x[%2] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %4 = kir.unary round %3 : tensor<?xf32>
    kir.store %4, %y[%2] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    %5 = kir.load %h[%2] : !kir.view<f16, [N], in>[!kir.domain] -> tensor<?xf16>
    %6 = kir.unary round %5 : tensor<?xf16>
    kir.store %6, %z[%2] : tensor<?xf16>, !kir.view<f16, [N], out>[!kir.domain]
    %7 = kir.load %d[%2] : !kir.view<f64, [N], in>[!kir.domain] -> tensor<?xf64>
    %8 = kir.unary round %7 : tensor<?xf64>
    kir.store %8, %w[%2] : tensor<?xf64>, !kir.view<f64, [N], out>[!kir.domain]
    kir.return
  }
}

