// RUN: tessel-opt %s -split-input-file | FileCheck %s --check-prefix=PARSE
// RUN: tessel-opt %s -split-input-file -tessel-pipeline=stop-after=construct | FileCheck %s --check-prefix=BUILD
// RUN: tessel run %s:paged --shape NB=5,BS=3,D=4,L=11,MB=4 --seed 3 --out %t.kir | FileCheck %s --check-prefix=SAME
// RUN: tessel run %s:paged --shape NB=5,BS=3,D=4,L=11,MB=4 --seed 3 --stage pgpu --out %t.pgpu | FileCheck %s --check-prefix=SAME
// RUN: tessel run %s:outer --shape NB=5,BS=3,D=4,L=11,MB=4 --seed 3 | FileCheck %s --check-prefix=OUTER
// Paired index tensors (`joint`, seed 000 §6 gathers): token t of a paged cache is block blk[t], slot
// slot[t]; the pair reads one element per (t, d), an [L, D] result. Without `joint` (the kernel
// @outer) the same coordinates are an outer product, [L, L, D].

// PARSE-LABEL: kir.kernel @paged
// PARSE: kir.gather %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {joint = array<i64: -1, 0, -1>} : !kir.view<f32, [NB, BS, D], in>[tensor<?xindex>, tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>

// COM: construction reads both index tensors at the same member t (%T) of the element (t, d).
// BUILD-LABEL: pgpu.kernel @paged
// BUILD: ^bb0(%[[T:[a-z0-9_]+]]: index, %[[D:[a-z0-9_]+]]: index):
// BUILD-NEXT: %[[Q:.*]] = pgpu.binary div %[[T]], %{{.*}} : index
// BUILD-NEXT: %[[BLK:.*]] = pgpu.gather %{{.*}}[%[[Q]]]
// BUILD-NEXT: %[[BI:.*]] = pgpu.cast %[[BLK]] : i32 to index
// BUILD-NEXT: %[[SL:.*]] = pgpu.binary rem %[[T]], %{{.*}} : index
// BUILD-NEXT: %[[V:.*]] = pgpu.gather %{{.*}}[%[[BI]], %[[SL]], %[[D]]]
// BUILD-NEXT: pgpu.store %[[V]], %{{.*}}[%[[T]], %[[D]]]
// COM: without `joint`: two members (t, u) of the [L, L, D] result index blk and slot separately.
// BUILD-LABEL: pgpu.kernel @outer
// BUILD: ^bb0(%[[T2:[a-z0-9_]+]]: index, %[[U2:[a-z0-9_]+]]: index, %[[D2:[a-z0-9_]+]]: index):
// BUILD: pgpu.binary div %[[T2]]
// BUILD: pgpu.binary rem %[[U2]]

// COM: both interpreters give these values (python/tests/test_joint_access.py checks them against NumPy).
// SAME: y: f32[11,4] sum=-1.83312997 hash=4d9d4e345245f12c
// OUTER: big: f32[11,11,4]

kir.kernel @paged(%cache: !kir.view<f32, [NB, BS, D], in>, %table: !kir.view<i32, [MB], in> {kir.range = [0, "NB"]},
                  %y: !kir.view<f32, [L, D], out>) {
  %c0 = arith.constant 0 : index
  %bs = kir.extent "BS"
  %d = kir.extent "D"
  %l = kir.extent "L"
  %dt = kir.domain %c0 to %l
  %dd = kir.domain %c0 to %d
  %t = kir.indices %dt : tensor<?xindex>
  %bsb = kir.broadcast %bs over(%dt) dims [] : index -> tensor<?xindex>
  %q = kir.binary div %t, %bsb : tensor<?xindex>
  %blk32 = kir.gather %table[%q] : !kir.view<i32, [MB], in>[tensor<?xindex>] -> tensor<?xi32>
  %blk = kir.cast %blk32 : tensor<?xi32> to tensor<?xindex>
  %slot = kir.binary rem %t, %bsb : tensor<?xindex>
  %v = kir.gather %cache[%blk, %slot, %dd] {joint = array<i64: -1, 0, -1>} : !kir.view<f32, [NB, BS, D], in>[tensor<?xindex>, tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
  kir.store %v, %y[%dt, %dd] : tensor<?x?xf32>, !kir.view<f32, [L, D], out>[!kir.domain, !kir.domain]
  kir.return
}

// -----

kir.kernel @outer(%cache: !kir.view<f32, [NB, BS, D], in>, %table: !kir.view<i32, [MB], in> {kir.range = [0, "NB"]},
                  %big: !kir.view<f32, [L, L, D], out>) {
  %c0 = arith.constant 0 : index
  %bs = kir.extent "BS"
  %d = kir.extent "D"
  %l = kir.extent "L"
  %dt = kir.domain %c0 to %l
  %dd = kir.domain %c0 to %d
  %t = kir.indices %dt : tensor<?xindex>
  %bsb = kir.broadcast %bs over(%dt) dims [] : index -> tensor<?xindex>
  %q = kir.binary div %t, %bsb : tensor<?xindex>
  %blk32 = kir.gather %table[%q] : !kir.view<i32, [MB], in>[tensor<?xindex>] -> tensor<?xi32>
  %blk = kir.cast %blk32 : tensor<?xi32> to tensor<?xindex>
  %slot = kir.binary rem %t, %bsb : tensor<?xindex>
  %v = kir.gather %cache[%blk, %slot, %dd] : !kir.view<f32, [NB, BS, D], in>[tensor<?xindex>, tensor<?xindex>, !kir.domain] -> tensor<?x?x?xf32>
  kir.store %v, %big[%dt, %dt, %dd] : tensor<?x?x?xf32>, !kir.view<f32, [L, L, D], out>[!kir.domain, !kir.domain, !kir.domain]
  kir.return
}

// -----

// PARSE-LABEL: kir.kernel @unpage
// PARSE: kir.scatter %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {joint = array<i64: -1, 0, -1>} : tensor<?x?xf32>, !kir.view<f32, [NB, BS, D], out>[tensor<?xindex>, tensor<?xindex>, !kir.domain]
kir.kernel @unpage(%y: !kir.view<f32, [L, D], in>, %table: !kir.view<i32, [MB], in>, %cache: !kir.view<f32, [NB, BS, D], out>) {
  %c0 = arith.constant 0 : index
  %bs = kir.extent "BS"
  %d = kir.extent "D"
  %l = kir.extent "L"
  %dt = kir.domain %c0 to %l
  %dd = kir.domain %c0 to %d
  %t = kir.indices %dt : tensor<?xindex>
  %bsb = kir.broadcast %bs over(%dt) dims [] : index -> tensor<?xindex>
  %q = kir.binary div %t, %bsb : tensor<?xindex>
  %blk32 = kir.gather %table[%q] : !kir.view<i32, [MB], in>[tensor<?xindex>] -> tensor<?xi32>
  %blk = kir.cast %blk32 : tensor<?xi32> to tensor<?xindex>
  %slot = kir.binary rem %t, %bsb : tensor<?xindex>
  %v = kir.load %y[%dt, %dd] : !kir.view<f32, [L, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
  kir.scatter %v, %cache[%blk, %slot, %dd] {joint = array<i64: -1, 0, -1>} : tensor<?x?xf32>, !kir.view<f32, [NB, BS, D], out>[tensor<?xindex>, tensor<?xindex>, !kir.domain]
  kir.return
}
