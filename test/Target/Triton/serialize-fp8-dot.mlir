// An FP8 contraction in the Triton provider (docs/language.md, FP8): e4m3 x e4m3 tiles feed tl.dot
// directly (pgpu-form-tiles reads through the exact f32 widenings), with max_num_imprecise_acc = the
// K tile, so each tile's sum of FP8 products is promoted into the f32 accumulator (sm_90's FP8 MMAs
// sum more narrowly than f32 within one instruction chain). tl.dot takes K >= 32 for 8-bit operands,
// so TILE_K's candidates start at 32 here, defaulting to 128, and the tile stays 128x128
// (pgpu-triton-legalize); the f16 GEMM keeps its 16.
// RUN: tessel compile %s --emit=source --target=triton | FileCheck %s
// RUN: tessel compile %tessel_src/examples/kir/gemm.mlir --emit=source --target=triton | FileCheck %s --check-prefix=F16

// CHECK: fp8_gemm_PARAMS = {{.*}}'TILE_K': ([32, 64, 128], 128)
// CHECK: def _fp8_gemm_kernel(
// CHECK: tl.load(a + {{.*}}other=_to_f8e4m3(
// CHECK: tl.load(b + {{.*}}other=_to_f8e4m3(
// CHECK-NOT: _f8_to_f32
// CHECK: = tl.dot(v{{[0-9]+}}, v{{[0-9]+}}, v{{[0-9]+}}, max_num_imprecise_acc=128)
// CHECK: _check_view('a', a, torch.float8_e4m3fn, ('M', 'K')

// F16: _PARAMS = {{.*}}'TILE_K': ([16, 32, 64, 128], 64)
// F16-NOT: max_num_imprecise_acc
module {
  kir.kernel @fp8_gemm(%a: !kir.view<f8E4M3FN, [M, K], in>, %b: !kir.view<f8E4M3FN, [K, N], in>,
                       %c: !kir.view<bf16, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %2 = kir.extent "N"
    %z = arith.constant 0 : index
    %4 = kir.domain %z to %0
    %5 = kir.domain %z to %2
    %6 = kir.domain %z to %1
    %7 = kir.load %a[%4, %6] : !kir.view<f8E4M3FN, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf8E4M3FN>
    %8 = kir.load %b[%6, %5] : !kir.view<f8E4M3FN, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf8E4M3FN>
    %9 = kir.contract %7, %8 reduce([1], [0]) batch([], []) : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN> -> tensor<?x?xf32>
    %10 = kir.cast %9 : tensor<?x?xf32> to tensor<?x?xbf16>
    kir.store %10, %c[%4, %5] : tensor<?x?xbf16>, !kir.view<bf16, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
}
