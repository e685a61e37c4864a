// RUN: tessel compile %s --target=triton --emit=source | FileCheck %s

// COM: The sm_90 contraction defaults of a free accumulator tile contracted with FMAs (f32 operands at
// COM: IEEE precision; TritonLegalize fmaContractionsFit): Triton's FMA lowering holds each thread's
// COM: operand rows and columns for the whole K tile, e + 2 k sqrt(e) registers for e accumulator
// COM: elements a thread. At the declared 128 x 128 with 8 warps (e = 64, k = 16) that is 320 of
// COM: 255: the columns shrink to 64 (e = 32: 213), rows and WARPS stay.
// CHECK: mm_ieee_PARAMS = {'TILE_0': ([16, 32, 64, 128, 256], 128), 'TILE_1': ([16, 32, 64, 128, 256], 64), 'TILE_K': ([16, 32, 64, 128], 16),
// CHECK-SAME: 'WARPS': ([1, 2, 4, 8, 16], 8)
// CHECK: tl.dot({{.*}}, input_precision="ieee")

// COM: Must not fire: TF32 products are a tensor-core dot (operands read from shared memory): the
// COM: declared 128 x 128 tile and its K tile of 64 stay.
// CHECK: mm_tf32_PARAMS = {'TILE_0': ([16, 32, 64, 128, 256], 128), 'TILE_1': ([16, 32, 64, 128, 256], 128), 'TILE_K': ([16, 32, 64, 128], 64),
// CHECK: tl.dot({{.*}}, input_precision="tf32")

module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @mm_ieee(%a: !kir.view<f32, [M, K], in>, %b: !kir.view<f32, [K, N], in>, %c: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "K"
    %2 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %0
    %4 = kir.domain %c0 to %2
    %5 = kir.domain %c0 to %1
    %6 = kir.load %a[%3, %5] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %7 = kir.load %b[%5, %4] : !kir.view<f32, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %8 = kir.contract %6, %7 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    kir.store %8, %c[%3, %4] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
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
}
