// RUN: tessel-opt %s -split-input-file -kir-stage-chained-products | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s -split-input-file -kir-stage-chained-products -kir-to-pgpu | FileCheck %s --check-prefix=PGPU

// COM: One Muon Newton-Schulz step written as one statement per batch member (corpus 340):
// COM: A = x x^T is read along the reduction axis of A A, and Bm = b*A + c*(A A) along that of
// COM: Bm x. A and Bm are staged: each is written to a kernel-level buffer per batch member, one
// COM: kir.parallel over the batch per phase, the last one storing y (the hand-phased form).
// CHECK-LABEL: kir.kernel @newton_schulz
// CHECK: %[[A:.*]] = kir.buffer over(%[[DB:.*]], %[[DM:.*]], %[[DM]]) first_write : !kir.buffer<tensor<?x?x?xf32>>
// CHECK: kir.parallel %[[DB]] {
// CHECK-NEXT: ^bb0(%[[B1:.*]]: index):
// CHECK: %[[X1:.*]] = kir.load %{{.*}}[%[[B1]], %[[DM]], %[[DN:.*]]] : {{.*}} -> tensor<?x?xbf16>
// CHECK: %[[G:.*]] = kir.contract %[[X1]], %[[X1]] reduce([1], [1]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
// CHECK: kir.buffer_store %[[G]], %[[A]][%[[B1]], %[[DM]], %[[DM]]]
// CHECK: %[[BM:.*]] = kir.buffer over(%[[DB]], %[[DM]], %[[DM]]) first_write
// CHECK: kir.parallel %[[DB]] {
// CHECK-NEXT: ^bb0(%[[B2:.*]]: index):
// CHECK: %[[AL:.*]] = kir.buffer_load %[[A]][%[[B2]], %[[DM]], %[[DM]]] {{.*}} -> tensor<?x?xf32>
// CHECK: kir.contract %{{.*}}, %{{.*}} reduce([1], [0]) batch([], [])
// CHECK: kir.buffer_store %{{.*}}, %[[BM]][%[[B2]], %[[DM]], %[[DM]]]
// CHECK: kir.parallel %[[DB]] {
// CHECK-NEXT: ^bb0(%[[B3:.*]]: index):
// CHECK: kir.buffer_load %[[BM]][%[[B3]], %[[DM]], %[[DM]]]
// CHECK: kir.contract %{{.*}}, %{{.*}} reduce([1], [0]) batch([], [])
// CHECK: kir.store %{{.*}}, %{{.*}}[%[[B3]], %[[DM]], %[[DN]]]
// CHECK-NOT: kir.contract
// CHECK: kir.return
// COM: construction phases the three products into segments, the later two waiting.
// PGPU-LABEL: pgpu.kernel @newton_schulz
// PGPU: pgpu.execution_group {{.*}} segment 0
// PGPU: pgpu.buffer_store
// PGPU: pgpu.while
// PGPU: pgpu.execution_group {{.*}} segment 1
// PGPU: pgpu.buffer_load
// PGPU: pgpu.buffer_store
// PGPU: pgpu.while
// PGPU: pgpu.execution_group {{.*}} segment 2
// PGPU: pgpu.buffer_load
kir.kernel @newton_schulz(%X: !kir.view<bf16, [B, M, N], in>, %Y: !kir.view<bf16, [B, M, N], out>) {
  %0 = kir.extent "B"
  %1 = kir.extent "M"
  %2 = kir.extent "N"
  %3 = arith.constant 0 : index
  %4 = kir.domain %3 to %0
  %5 = kir.domain %3 to %1
  %6 = kir.domain %3 to %2
  %10 = arith.constant -4.775000095367432 : f32
  %11 = kir.broadcast %10 over(%4, %5, %5) dims [] : f32 -> tensor<?x?x?xf32>
  %14 = arith.constant 2.0315001010894775 : f32
  %15 = kir.broadcast %14 over(%4, %5, %5) dims [] : f32 -> tensor<?x?x?xf32>
  %19 = arith.constant 3.444499969482422 : f32
  %20 = kir.broadcast %19 over(%4, %5, %6) dims [] : f32 -> tensor<?x?x?xf32>
  %7 = kir.load %X[%4, %5, %6] : !kir.view<bf16, [B, M, N], in>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xbf16>
  %8 = kir.contract %7, %7 reduce([2], [2]) batch([0], [0]) : tensor<?x?x?xbf16>, tensor<?x?x?xbf16> -> tensor<?x?x?xf32>
  %9 = kir.cast %8 : tensor<?x?x?xf32> to tensor<?x?x?xbf16>
  %12 = kir.binary mul %11, %8 : tensor<?x?x?xf32>
  %13 = kir.contract %9, %9 reduce([2], [1]) batch([0], [0]) : tensor<?x?x?xbf16>, tensor<?x?x?xbf16> -> tensor<?x?x?xf32>
  %16 = kir.binary mul %15, %13 : tensor<?x?x?xf32>
  %17 = kir.binary add %12, %16 : tensor<?x?x?xf32>
  %18 = kir.cast %7 : tensor<?x?x?xbf16> to tensor<?x?x?xf32>
  %21 = kir.binary mul %20, %18 : tensor<?x?x?xf32>
  %22 = kir.cast %17 : tensor<?x?x?xf32> to tensor<?x?x?xbf16>
  %23 = kir.contract %22, %7 reduce([2], [1]) batch([0], [0]) : tensor<?x?x?xbf16>, tensor<?x?x?xbf16> -> tensor<?x?x?xf32>
  %24 = kir.binary add %21, %23 : tensor<?x?x?xf32>
  %25 = kir.cast %24 : tensor<?x?x?xf32> to tensor<?x?x?xbf16>
  kir.store %25, %Y[%4, %5, %6] : tensor<?x?x?xbf16>, !kir.view<bf16, [B, M, N], out>[!kir.domain, !kir.domain, !kir.domain]
  kir.return
}

// -----

// COM: Must not fire: one batched GEMM with an epilogue (no product reads another).
// CHECK-LABEL: kir.kernel @gemm_epilogue
// CHECK-NOT: kir.parallel
// CHECK-NOT: kir.buffer
// CHECK: kir.contract %{{.*}}, %{{.*}} reduce([2], [1]) batch([0], [0])
// CHECK: kir.store
kir.kernel @gemm_epilogue(%X: !kir.view<bf16, [B, M, K], in>, %W: !kir.view<bf16, [B, K, N], in>, %Y: !kir.view<f32, [B, M, N], out>) {
  %c0 = arith.constant 0 : index
  %b = kir.extent "B"
  %m = kir.extent "M"
  %k = kir.extent "K"
  %n = kir.extent "N"
  %db = kir.domain %c0 to %b
  %dm = kir.domain %c0 to %m
  %dk = kir.domain %c0 to %k
  %dn = kir.domain %c0 to %n
  %x = kir.load %X[%db, %dm, %dk] : !kir.view<bf16, [B, M, K], in>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xbf16>
  %w = kir.load %W[%db, %dk, %dn] : !kir.view<bf16, [B, K, N], in>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xbf16>
  %p = kir.contract %x, %w reduce([2], [1]) batch([0], [0]) : tensor<?x?x?xbf16>, tensor<?x?x?xbf16> -> tensor<?x?x?xf32>
  %t = kir.unary tanh %p : tensor<?x?x?xf32>
  kir.store %t, %Y[%db, %dm, %dn] : tensor<?x?x?xf32>, !kir.view<f32, [B, M, N], out>[!kir.domain, !kir.domain, !kir.domain]
  kir.return
}

// -----

// COM: Must not fire: a product whose result only feeds pointwise math (its square, added to
// COM: another product of the inputs): no product reads it along a reduction axis.
// CHECK-LABEL: kir.kernel @gram_pointwise
// CHECK-NOT: kir.parallel
// CHECK-NOT: kir.buffer
// CHECK: kir.store
kir.kernel @gram_pointwise(%X: !kir.view<bf16, [B, M, N], in>, %Y: !kir.view<f32, [B, M, M], out>) {
  %c0 = arith.constant 0 : index
  %b = kir.extent "B"
  %m = kir.extent "M"
  %n = kir.extent "N"
  %db = kir.domain %c0 to %b
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  %x = kir.load %X[%db, %dm, %dn] : !kir.view<bf16, [B, M, N], in>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xbf16>
  %g = kir.contract %x, %x reduce([2], [2]) batch([0], [0]) : tensor<?x?x?xbf16>, tensor<?x?x?xbf16> -> tensor<?x?x?xf32>
  %sq = kir.binary mul %g, %g : tensor<?x?x?xf32>
  kir.store %sq, %Y[%db, %dm, %dm] : tensor<?x?x?xf32>, !kir.view<f32, [B, M, M], out>[!kir.domain, !kir.domain, !kir.domain]
  kir.return
}

// -----

// COM: Must not fire: a product read as the row operand of the next one (cast(x x^T) x), its own
// COM: operands views: pgpu-stage-operands stages it per row tile already.
// CHECK-LABEL: kir.kernel @gram_row_operand
// CHECK-NOT: kir.parallel
// CHECK-NOT: kir.buffer
// CHECK: kir.store
kir.kernel @gram_row_operand(%X: !kir.view<bf16, [B, M, N], in>, %Y: !kir.view<f32, [B, M, N], out>) {
  %c0 = arith.constant 0 : index
  %b = kir.extent "B"
  %m = kir.extent "M"
  %n = kir.extent "N"
  %db = kir.domain %c0 to %b
  %dm = kir.domain %c0 to %m
  %dn = kir.domain %c0 to %n
  %x = kir.load %X[%db, %dm, %dn] : !kir.view<bf16, [B, M, N], in>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xbf16>
  %g = kir.contract %x, %x reduce([2], [2]) batch([0], [0]) : tensor<?x?x?xbf16>, tensor<?x?x?xbf16> -> tensor<?x?x?xf32>
  %gb = kir.cast %g : tensor<?x?x?xf32> to tensor<?x?x?xbf16>
  %y = kir.contract %gb, %x reduce([2], [1]) batch([0], [0]) : tensor<?x?x?xbf16>, tensor<?x?x?xbf16> -> tensor<?x?x?xf32>
  kir.store %y, %Y[%db, %dm, %dn] : tensor<?x?x?xf32>, !kir.view<f32, [B, M, N], out>[!kir.domain, !kir.domain, !kir.domain]
  kir.return
}
