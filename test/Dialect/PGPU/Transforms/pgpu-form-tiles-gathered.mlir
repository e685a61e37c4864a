// RUN: tessel-opt %s -split-input-file --tessel-pipeline=stop-after=form-tiles | FileCheck %s
// COM: An expert's GEMM over its rows [offsets[e], offsets[e + 1]) (corpus 06, MoE): the tile index
// COM: is decomposed by a tile count computed from the loaded offsets, and the rows start at the
// COM: loaded offsets[e] (construction's member read is a gather). Both are scalars read from data,
// COM: one value for every lane of a tile: the tiles are boxes at a runtime position, pgpu.load
// COM: (seed 000 §6; before issue 41, pgpu.gather, which no provider spells as a box or TMA). The
// COM: rows' tile reads zero on its invalid k lanes (a zero fill): no select before the contraction.
// COM: The rows' write stays a unique scatter (offsets need not be ordered: groups may overlap).
// CHECK-LABEL: pgpu.kernel @moe_grouped_gemm
// CHECK: pgpu.load %offsets
// CHECK-NOT: pgpu.gather
// CHECK: %[[X:.*]] = pgpu.load %x[{{.*}}] {{.*}} -> !pgpu.fragment<bf16, [TILE_1, TILE_K]>
// CHECK: pgpu.load %w[{{.*}}] {{.*}} -> !pgpu.fragment<bf16, [TILE_2, TILE_K]>
// CHECK-NOT: pgpu.select
// CHECK: pgpu.contract %[[X]],
// CHECK: pgpu.scatter %{{.*}}, %y[
kir.kernel @moe_grouped_gemm(%x: !kir.view<bf16, [M, K], in>, %w: !kir.view<bf16, [E, K, N], in>, %offsets: !kir.view<i32, [E1], in>, %y: !kir.view<bf16, [M, N], out>) {
  %0 = kir.extent "M"
  %1 = kir.extent "K"
  %2 = kir.extent "E"
  %3 = kir.extent "N"
  %4 = arith.constant 0 : index
  %5 = kir.domain %4 to %0
  %6 = kir.domain %4 to %3
  %7 = kir.domain %4 to %1
  %8 = kir.domain %4 to %2
  %11 = arith.constant 1 : index
  kir.parallel %8 {
  ^bb0(%9: index):
    %10 = kir.load %offsets[%9] : !kir.view<i32, [E1], in>[index] -> i32
    %12 = kir.binary add %9, %11 : index
    %13 = kir.load %offsets[%12] : !kir.view<i32, [E1], in>[index] -> i32
    %14 = kir.cast %10 : i32 to index
    %15 = kir.cast %13 : i32 to index
    %16 = kir.subregion %5[%14 : %15]
    %17 = kir.load %x[%16, %7] : !kir.view<bf16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %18 = kir.load %w[%9, %7, %6] : !kir.view<bf16, [E, K, N], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %19 = kir.contract %17, %18 reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
    %20 = kir.cast %19 : tensor<?x?xf32> to tensor<?x?xbf16>
    kir.store %20, %y[%16, %6] : tensor<?x?xbf16>, !kir.view<bf16, [M, N], out>[!kir.domain, !kir.domain]
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not change: a dense GEMM's tiles are read at coordinates free of loaded data: pgpu.load.
// CHECK-LABEL: pgpu.kernel @gemm
// CHECK-NOT: pgpu.gather
// CHECK: pgpu.load %a[{{.*}}] {{.*}} -> !pgpu.fragment<bf16
// CHECK: pgpu.load %b[{{.*}}] {{.*}} -> !pgpu.fragment<bf16
kir.kernel @gemm(%a: !kir.view<bf16, [M, K], in>, %b: !kir.view<bf16, [K, N], in>, %c: !kir.view<f32, [M, N], out>) {
  %c0 = arith.constant 0 : index
  %m = kir.extent "M"
  %k = kir.extent "K"
  %n = kir.extent "N"
  %dm = kir.domain %c0 to %m
  %dk = kir.domain %c0 to %k
  %dn = kir.domain %c0 to %n
  %at = kir.load %a[%dm, %dk] : !kir.view<bf16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
  %bt = kir.load %b[%dk, %dn] : !kir.view<bf16, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
  %p = kir.contract %at, %bt reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
  kir.store %p, %c[%dm, %dn] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
  kir.return
}

// -----

// COM: Must not fire: the rows are picked by an index read per row (x[idx[m], k]): the row tile's
// COM: coordinates take data lane by lane, an index relation: the tile stays a pgpu.gather (and its
// COM: k lanes are zeroed by its fill, no select); the weight's tile, free of data, a pgpu.load.
// CHECK-LABEL: pgpu.kernel @gathered_rows_gemm
// CHECK: pgpu.load %idx[{{.*}}] {{.*}} -> !pgpu.fragment<i32, [TILE_0]>
// CHECK: %[[X:.*]] = pgpu.gather %x[{{.*}}] {{.*}} -> !pgpu.fragment<bf16, [TILE_0, TILE_K]>
// CHECK: pgpu.load %w[{{.*}}] {{.*}} -> !pgpu.fragment<bf16
// CHECK: pgpu.contract %[[X]],
kir.kernel @gathered_rows_gemm(%x: !kir.view<bf16, [V, K], in>, %idx: !kir.view<i32, [M], in>, %w: !kir.view<bf16, [K, N], in>, %y: !kir.view<f32, [M, N], out>) {
  %0 = kir.extent "M"
  %1 = kir.extent "K"
  %2 = kir.extent "N"
  %3 = arith.constant 0 : index
  %4 = kir.domain %3 to %0
  %5 = kir.domain %3 to %2
  %6 = kir.domain %3 to %1
  %7 = kir.load %idx[%4] : !kir.view<i32, [M], in>[!kir.domain] -> tensor<?xi32>
  %8 = kir.cast %7 : tensor<?xi32> to tensor<?xindex>
  %9 = kir.gather %x[%8, %6] : !kir.view<bf16, [V, K], in>[tensor<?xindex>, !kir.domain] -> tensor<?x?xbf16>
  %10 = kir.load %w[%6, %5] : !kir.view<bf16, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
  %11 = kir.contract %9, %10 reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
  kir.store %11, %y[%4, %5] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
  kir.return
}
