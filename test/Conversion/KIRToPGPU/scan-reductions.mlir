// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: Before: a sum along the scan's own axis of the squared prefixes (it needs every prefix of the
// COM: line). After: one ordered pgpu.for over N, one member a trip, carrying the running prefix and the
// COM: sum: the member is read at the trip, combined into the prefix, squared and added to the sum; no
// COM: range_scan, no range_reduce.
// CHECK-LABEL: pgpu.kernel @sum_of_cumsum
// CHECK-NOT: pgpu.range_scan
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.execution_group
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[W:.*]]:2 = pgpu.for %[[ZERO]] to %{{.*}} step %[[ONE]] iter_args(%{{.*}}, %{{.*}} : f32, f32) -> f32, f32
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[P:.*]]: f32, %[[S:.*]]: f32):
// CHECK: %[[X:.*]] = pgpu.load %{{.*}}[%{{.*}}, %{{.*}}]
// CHECK: %[[P2:.*]] = pgpu.binary add %[[P]], %[[X]] : f32
// CHECK: %[[Q:.*]] = pgpu.binary mul %[[P2]], %[[P2]] : f32
// CHECK: %[[S2:.*]] = pgpu.binary add %[[S]], %[[Q]] : f32
// CHECK: pgpu.yield %[[P2]], %[[S2]] : f32, f32
// CHECK: pgpu.store %[[W]]#1
module {
  kir.kernel @sum_of_cumsum(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %dn = kir.domain %c0 to %1
    %dm = kir.domain %c0 to %0
    %zero = arith.constant 0.0 : f32
    kir.parallel %dm {
    ^bb0(%m: index):
      %row = kir.load %x[%m, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %s = kir.scan %row axis 0 identity(%zero : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %sq = kir.binary mul %s, %s : tensor<?xf32>
      %t = kir.reduce %sq axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      kir.store %t, %y[%m] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a sum of what the scan combines (its input, not its results) stays a range_reduce
// COM: that blocking may regroup, beside the stored scan's range_scan.
// CHECK-LABEL: pgpu.kernel @sum_beside_cumsum
// CHECK-NOT: pgpu.for
// CHECK: pgpu.range_reduce
// CHECK: pgpu.range_scan
module {
  kir.kernel @sum_beside_cumsum(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>, %t: !kir.view<f32, [M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %dn = kir.domain %c0 to %1
    %dm = kir.domain %c0 to %0
    %zero = arith.constant 0.0 : f32
    kir.parallel %dm {
    ^bb0(%m: index):
      %row = kir.load %x[%m, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %total = kir.reduce %row axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      kir.store %total, %t[%m] : f32, !kir.view<f32, [M], out>[index]
      %s = kir.scan %row axis 0 identity(%zero : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      kir.store %s, %y[%m, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Refused at the reduction, named as written: the scan runs over the first axis of a [N, 2] tile
// COM: (two lines), which one walk of a line does not carry.
module {
  kir.kernel @sum_of_two_line_cumsum(%x: !kir.view<f32, [M, N, 2], in>, %y: !kir.view<f32, [M, 2], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %dn = kir.domain %c0 to %1
    %dm = kir.domain %c0 to %0
    %d2 = kir.domain %c0 to %c2
    %zero = arith.constant 0.0 : f32
    kir.parallel %dm {
    ^bb0(%m: index):
      %tile = kir.load %x[%m, %dn, %d2] : !kir.view<f32, [M, N, 2], in>[index, !kir.domain, !kir.domain] -> tensor<?x2xf32>
      // expected-note @+1 {{the scan}}
      %s = kir.scan %tile axis 0 identity(%zero : f32) : (tensor<?x2xf32>) -> (tensor<?x2xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      // expected-error @+1 {{kir-to-pgpu constructs a reduction along a scan's axis of its results (a reduction (T.sum, T.max, T.reduce, ...)) as one ordered walk when it reduces that one axis of scans of lines (rank 1)}}
      %t = kir.reduce %s axes [0] identity(%zero : f32) : (tensor<?x2xf32>) -> (tensor<2xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      kir.store %t, %y[%m, %d2] : tensor<2xf32>, !kir.view<f32, [M, 2], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
