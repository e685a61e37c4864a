// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: Before: a stream compaction (a counting sort's pass): each member e scatters the positions of the
// COM: slots equal to e at their rank among them, an exclusive cumsum of the mask. After: the scatter holds
// COM: one pgpu.range_scan along the slots whose emit region computes the coordinate from the prefix at each
// COM: position (offset + rank) and scatters there under the mask: the scan is consumed as an address, in
// COM: place, as it is formed (ScanValues.cpp).
// CHECK-LABEL: pgpu.kernel @compact_by_rank
// CHECK: pgpu.range_scan %{{.*}} to %{{.*}} identity(%{{.*}} : i32) exclusive element {
// CHECK: } emit {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[P:.*]]: i32):
// CHECK: %[[AT:.*]] = pgpu.binary add %{{.*}}, %[[P]] : i32
// CHECK: %[[C:.*]] = pgpu.cast %[[AT]] : i32 to index
// CHECK: pgpu.scatter %{{.*}}, %{{.*}}[%[[C]]] valid %{{.*}}
// CHECK-NEXT: pgpu.yield{{$}}
module {
  kir.kernel @compact_by_rank(%ids: !kir.view<i32, [N], in>, %out: !kir.view<i32, [C], inout>, %base: i32) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %c0_i32 = arith.constant 0 : i32
    %slots = kir.domain %c0 to %0
    %c4 = arith.constant 4 : index
    %experts = kir.domain %c0 to %c4
    %idx = kir.indices %slots : tensor<?xindex>
    kir.parallel %experts {
    ^bb0(%e: index):
      %x = kir.load %ids[%slots] : !kir.view<i32, [N], in>[!kir.domain] -> tensor<?xi32>
      %ei = kir.cast %e : index to i32
      %eb = kir.broadcast %ei over(%slots) dims [] : i32 -> tensor<?xi32>
      %mine = kir.cmp eq %x, %eb : tensor<?xi32>
      %m = kir.cast %mine : tensor<?xi1> to tensor<?xi32>
      %rank = kir.scan %m axis 0 identity(%c0_i32 : i32) exclusive : (tensor<?xi32>) -> (tensor<?xi32>) {
      ^bb0(%a: i32, %b: i32):
        %c = kir.binary add %a, %b : i32
        kir.yield %c : i32
      }
      %bb = kir.broadcast %base over(%slots) dims [] : i32 -> tensor<?xi32>
      %at = kir.binary add %bb, %rank : tensor<?xi32>
      %ati = kir.cast %at : tensor<?xi32> to tensor<?xindex>
      %v = kir.cast %idx : tensor<?xindex> to tensor<?xi32>
      kir.scatter %v, %out[%ati] valid %mine : tensor<?xi1> : tensor<?xi32>, !kir.view<i32, [C], inout>[tensor<?xindex>]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Before: a masked merge by rank (LLaVA's masked_scatter, per row m): a flagged column k takes the
// COM: source row's element at the number of flagged columns before it. After: one range scan along the
// COM: columns whose emit region gathers at the prefix (clamped) and selects, then stores.
// CHECK-LABEL: pgpu.kernel @merge_by_rank
// CHECK: pgpu.range_scan %{{.*}} to %{{.*}} identity(%{{.*}} : i64) exclusive element {
// CHECK: } emit {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[P:.*]]: i64):
// CHECK: %[[R:.*]] = pgpu.cast %[[P]] : i64 to index
// CHECK: %[[K:.*]] = pgpu.binary min %[[R]], %{{.*}} : index
// CHECK: %[[G:.*]] = pgpu.gather %{{.*}}[%{{.*}}, %[[K]]]
// CHECK: %[[S:.*]] = pgpu.select %{{.*}}, %[[G]], %{{.*}} : i1, f32
// CHECK: pgpu.store %[[S]], %{{.*}}
// CHECK-NEXT: pgpu.yield{{$}}
module {
  kir.kernel @merge_by_rank(%flags: !kir.view<i64, [M, N], in>, %text: !kir.view<f32, [M, N], in>,
                            %src: !kir.view<f32, [M, K], in>, %y: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %2 = kir.extent "K"
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %dn = kir.domain %c0 to %1
    %dm = kir.domain %c0 to %0
    %ones = kir.broadcast %c1_i64 over(%dn) dims [] : i64 -> tensor<?xi64>
    %zeros = kir.broadcast %c0_i64 over(%dn) dims [] : i64 -> tensor<?xi64>
    %last = kir.binary sub %2, %c1 : index
    %lastb = kir.broadcast %last over(%dn) dims [] : index -> tensor<?xindex>
    kir.parallel %dm {
    ^bb0(%m: index):
      %f = kir.load %flags[%m, %dn] : !kir.view<i64, [M, N], in>[index, !kir.domain] -> tensor<?xi64>
      %on = kir.cmp ne %f, %zeros : tensor<?xi64>
      %one = kir.select %on, %ones, %zeros : tensor<?xi1>, tensor<?xi64>
      %rank = kir.scan %one axis 0 identity(%c0_i64 : i64) exclusive : (tensor<?xi64>) -> (tensor<?xi64>) {
      ^bb0(%a: i64, %b: i64):
        %c = kir.binary add %a, %b : i64
        kir.yield %c : i64
      }
      %ri = kir.cast %rank : tensor<?xi64> to tensor<?xindex>
      %k = kir.binary min %ri, %lastb : tensor<?xindex>
      %g = kir.gather %src[%m, %k] : !kir.view<f32, [M, K], in>[index, tensor<?xindex>] -> tensor<?xf32>
      %t = kir.load %text[%m, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %v = kir.select %on, %g, %t : tensor<?xi1>, tensor<?xf32>
      kir.store %v, %y[%m, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a scan's result as a gather's validity (not a coordinate) is still refused at the
// COM: gather, with a note at the scan.
module {
  kir.kernel @scan_as_gather_validity(%x: !kir.view<f32, [M, N], in>, %idx: !kir.view<i32, [N], in>,
                                      %y: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %dn = kir.domain %c0 to %1
    %dm = kir.domain %c0 to %0
    %zeros = kir.broadcast %zero over(%dn) dims [] : f32 -> tensor<?xf32>
    kir.parallel %dm {
    ^bb0(%m: index):
      %row = kir.load %x[%m, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      // expected-note @+1 {{the scan}}
      %s = kir.scan %row axis 0 identity(%zero : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %pos = kir.cmp gt %s, %zeros : tensor<?xf32>
      %i = kir.load %idx[%dn] : !kir.view<i32, [N], in>[!kir.domain] -> tensor<?xi32>
      %ii = kir.cast %i : tensor<?xi32> to tensor<?xindex>
      // expected-error @+1 {{kir-to-pgpu constructs a scan's results where values computed from them by pointwise ops (and reductions over other axes) are stored; a gather uses them}}
      %g = kir.gather %x[%m, %ii] valid %pos : tensor<?xi1> fill %zero : f32 : !kir.view<f32, [M, N], in>[index, tensor<?xindex>] -> tensor<?xf32>
      kir.store %g, %y[%m, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
