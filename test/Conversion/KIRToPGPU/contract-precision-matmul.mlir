// RUN: tessel compile %s --emit=pgpu | FileCheck %s
// RUN: tessel compile %s --target=triton --emit=source | FileCheck %s --check-prefix=TRITON
// COM: A contraction outside a region fold/scan is constructed element by element: precision tf32
// COM: rounds each product's operands with pointwise ops (KIRToPGPU roundTF32), and pgpu-form-tiles
// COM: re-forms the tile contraction from products of two such roundings with precision tf32 on it
// COM: (the rounding dropped: the op rounds). tf32x3's per-k sum of three exact terms is not a
// COM: single product: it stays a blocked reduction of those terms (exact, not a tensor-core dot).

// CHECK-LABEL: pgpu.kernel @mm_tf32
// CHECK: pgpu.contract {{.*}} precision tf32 : !pgpu.fragment<f32, [TILE_0, TILE_K]>, !pgpu.fragment<f32, [TILE_K, TILE_1]>
// CHECK-LABEL: pgpu.kernel @mm_tf32x3
// CHECK-NOT: pgpu.contract
// CHECK: pgpu.bitcast
// CHECK-NOT: pgpu.contract
// CHECK: pgpu.return

// COM: pgpu-split-contractions gives the K loop two copies (the split chunk's loop, then the unsplit
// COM: loop under SPLIT_K = 1): each keeps the contraction's precision. tf32x3 has no tensor-core dot.
// TRITON: tl.dot(_mm_tf32_tf32({{.*}}), _mm_tf32_tf32({{.*}}), {{.*}}, input_precision="tf32")
// TRITON: tl.dot(_mm_tf32_tf32({{.*}}), _mm_tf32_tf32({{.*}}), {{.*}}, input_precision="tf32")
// TRITON-NOT: tl.dot(

module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @mm_tf32(%a: !kir.view<f32, [M, K], in>, %b: !kir.view<f32, [K, N], in>, %c: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %2 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %0
    %4 = kir.domain %c0 to %2
    %5 = kir.domain %c0 to %1
    %6 = kir.load %a[%3, %5] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %7 = kir.load %b[%5, %4] : !kir.view<f32, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %8 = kir.contract %6, %7 reduce([1], [0]) batch([], []) precision tf32 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    kir.store %8, %c[%3, %4] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
  kir.kernel @mm_tf32x3(%a: !kir.view<f32, [M, K], in>, %b: !kir.view<f32, [K, N], in>, %c: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %2 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %0
    %4 = kir.domain %c0 to %2
    %5 = kir.domain %c0 to %1
    %6 = kir.load %a[%3, %5] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %7 = kir.load %b[%5, %4] : !kir.view<f32, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %8 = kir.contract %6, %7 reduce([1], [0]) batch([], []) precision tf32x3 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    kir.store %8, %c[%3, %4] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
}
