// FP8 in the Triton provider (docs/language.md, Element types): f8E4M3FN is tl.float8e4nv and
// f8E5M2 tl.float8e5 (torch.float8_e4m3fn / float8_e5m2 in the wrapper's checks). Conversions to FP8
// go through f32 and the module's _to_f8e4m3 / _to_f8e5m2, which select torch's NaN (e4m3 past 464)
// and inf (e5m2 from 61440 on) where the GPU's cvt.rn.satfinite would saturate; arithmetic widens
// exactly (_f8_to_f32), computes in f32 and rounds once; a splat copies the bits (FP8 has no +).
// A module without FP8 values gets none of the helpers (byte-identical to before).
// RUN: tessel compile %s --emit=pgpu | tessel-opt | FileCheck %s --check-prefix=PGPU
// RUN: tessel compile %s --emit=source --target=triton | FileCheck %s
// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --emit=source --target=triton | FileCheck %s --check-prefix=PLAIN

// PGPU: pgpu.kernel @fp8(%{{.*}}: !pgpu.view<f8E4M3FN, [N], in>, %{{.*}}: !pgpu.view<f8E5M2, [N], out>
// PGPU: pgpu.cast %{{.*}} : !pgpu.fragment<f8E4M3FN, [BLOCK]> to !pgpu.fragment<f8E5M2, [BLOCK]>

// CHECK: if _interpreting():
// CHECK:     def _to_f8e4m3(v):
// CHECK: else:
// CHECK:     @triton.jit
// CHECK-NEXT: def _to_f8e4m3(v):
// CHECK:         return tl.where(tl.abs(v) > 464.0, float('nan'), v).to(tl.float8e4nv)
// CHECK:         inf = tl.where(v > 0, 124, 252).to(tl.uint8).to(tl.float8e5, bitcast=True)
// CHECK-NEXT:    return tl.where(tl.abs(v) >= 61440.0, inf, v.to(tl.float8e5))
// CHECK-LABEL: def _fp8_kernel(
// CHECK: [[P:v[0-9]+]] = tl.load(
// CHECK: [[H:v[0-9]+]] = tl.cast(tl.full([{{[0-9]+}}], 0, tl.uint8) | tl.cast(_to_f8e4m3(tl.full([], 5.000000e-01, tl.float32)), tl.uint8, bitcast=True), tl.float8e4nv, bitcast=True)
// CHECK: [[M:v[0-9]+]] = _to_f8e4m3(_f8_to_f32([[P]]) * _f8_to_f32([[H]]))
// CHECK: = _f8_to_f32([[M]]) > _f8_to_f32(
// CHECK: [[E:v[0-9]+]] = _to_f8e5m2(_f8_to_f32([[M]]))
// CHECK: tl.store({{.*}}, [[E]], mask=
// CHECK-LABEL: def _fp8_checked(
// CHECK: _check_view('p', p, torch.float8_e4m3fn,
// CHECK: _check_view('q', q, torch.float8_e5m2,

// PLAIN-NOT: _f8

kir.kernel @fp8(%p: !kir.view<f8E4M3FN, [N], in>, %q: !kir.view<f8E5M2, [N], out>, %c: !kir.view<i1, [N], out>) {
  %0 = kir.extent "N"
  %1 = arith.constant 0 : index
  %2 = kir.domain %1 to %0
  %x = kir.load %p[%2] : !kir.view<f8E4M3FN, [N], in>[!kir.domain] -> tensor<?xf8E4M3FN>
  %h = arith.constant 0.5 : f8E4M3FN
  %hb = kir.broadcast %h over(%2) dims [] : f8E4M3FN -> tensor<?xf8E4M3FN>
  %m = kir.binary mul %x, %hb : tensor<?xf8E4M3FN>
  %gt = kir.cmp gt %m, %x : tensor<?xf8E4M3FN>
  kir.store %gt, %c[%2] : tensor<?xi1>, !kir.view<i1, [N], out>[!kir.domain]
  %e = kir.cast %m : tensor<?xf8E4M3FN> to tensor<?xf8E5M2>
  kir.store %e, %q[%2] : tensor<?xf8E5M2>, !kir.view<f8E5M2, [N], out>[!kir.domain]
  kir.return
}
