// RUN: tessel-opt %s -split-input-file --tessel-pipeline=stop-after=form-tiles | FileCheck %s
// COM: W8A8 (bench/corpus/71_w8a8_gemm): an i8 x i8 matmul into i32. Construction's range_reduce sums
// COM: cast<i32>(x) * cast<i32>(w) in i32. Before: not contraction-shaped (float sums only), so it ran
// COM: as column-reduction tiles. After: the i8 -> i32 widenings are exact and i32 sums wrap alike in
// COM: any order, so it is a pgpu.contract of the i8 tiles into an i32 accumulator.
// CHECK-LABEL: pgpu.kernel @w8a8
// CHECK: pgpu.for {{.*}} -> !pgpu.fragment<i32, [TILE_0, TILE_1]>
// CHECK: pgpu.load %xq{{.*}} -> !pgpu.fragment<i8, [TILE_0, TILE_K]>
// CHECK: pgpu.load %wq{{.*}} -> !pgpu.fragment<i8, [TILE_1, TILE_K]>
// CHECK: pgpu.contract {{.*}} : !pgpu.fragment<i8, [TILE_0, TILE_K]>, !pgpu.fragment<i8, [TILE_K, TILE_1]>, !pgpu.fragment<i32, [TILE_0, TILE_1]>
kir.kernel @w8a8(%xq: !kir.view<i8, [M, K], in>, %wq: !kir.view<i8, [K, N], in>, %y: !kir.view<i32, [M, N], out>) {
  %0 = kir.extent "M"
  %1 = kir.extent "K"
  %2 = kir.extent "N"
  %c0 = arith.constant 0 : index
  %3 = kir.domain %c0 to %0
  %4 = kir.domain %c0 to %2
  %5 = kir.domain %c0 to %1
  %6 = kir.load %xq[%3, %5] : !kir.view<i8, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xi8>
  %7 = kir.load %wq[%5, %4] : !kir.view<i8, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xi8>
  %8 = kir.contract %6, %7 reduce([1], [0]) batch([], []) : tensor<?x?xi8>, tensor<?x?xi8> -> tensor<?x?xi32>
  kir.store %8, %y[%3, %4] : tensor<?x?xi32>, !kir.view<i32, [M, N], out>[!kir.domain, !kir.domain]
  kir.return
}

// -----

// COM: Must not fire: i16 operands into i32 have no tensor-core contraction (Triton's integer dot
// COM: takes i8 only), so the i32 sum of their products stays a reduction.
// CHECK-LABEL: pgpu.kernel @w16
// CHECK-NOT: pgpu.contract
kir.kernel @w16(%xq: !kir.view<i16, [M, K], in>, %wq: !kir.view<i16, [K, N], in>, %y: !kir.view<i32, [M, N], out>) {
  %0 = kir.extent "M"
  %1 = kir.extent "K"
  %2 = kir.extent "N"
  %c0 = arith.constant 0 : index
  %3 = kir.domain %c0 to %0
  %4 = kir.domain %c0 to %2
  %5 = kir.domain %c0 to %1
  %6 = kir.load %xq[%3, %5] : !kir.view<i16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xi16>
  %7 = kir.load %wq[%5, %4] : !kir.view<i16, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xi16>
  %8 = kir.contract %6, %7 reduce([1], [0]) batch([], []) : tensor<?x?xi16>, tensor<?x?xi16> -> tensor<?x?xi32>
  kir.store %8, %y[%3, %4] : tensor<?x?xi32>, !kir.view<i32, [M, N], out>[!kir.domain, !kir.domain]
  kir.return
}
