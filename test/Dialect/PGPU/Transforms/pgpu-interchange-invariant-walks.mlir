// RUN: tessel-opt %s -split-input-file -pgpu-interchange-invariant-walks | FileCheck %s

// COM: A per-segment normalization of CSR rows (GraphNorm: graph g owns rows ptr[g] .. ptr[g+1]):
// COM: construction's nest walks the segment's rows outside and the columns inside, and computes the
// COM: column's sum over the segment again for every row. The nest is interchanged: the columns outside,
// COM: the sum (and the read of w, which does not depend on the row) once per column before the rows'
// COM: walk. The moved read is valid only where the segment has rows (lo < hi): an empty segment reads nothing.
// CHECK-LABEL: pgpu.kernel @segment_center
// CHECK: pgpu.foreach %[[C0:.*]] to %[[F:.*]] {
// CHECK-NEXT: ^bb0(%[[D:.*]]: index):
// CHECK-NEXT: %[[SOME:.*]] = pgpu.cmp lt %[[C0]], %[[N:.*]] : index
// CHECK-NEXT: %[[W:.*]] = pgpu.load %w[%[[D]]] valid %[[SOME]] : i1
// CHECK-NEXT: %[[S:.*]] = pgpu.range_reduce %[[C0]] to %[[N]]
// CHECK: pgpu.gather %x[%{{.*}}, %[[D]]]
// CHECK: %[[MEAN:.*]] = pgpu.binary div %[[S]], %{{.*}} : f32
// CHECK-NEXT: pgpu.foreach %[[C0]] to %[[N]] {
// CHECK-NEXT: ^bb0(%[[R:.*]]: index):
// CHECK-NEXT: %[[ROW:.*]] = pgpu.binary add %{{.*}}, %[[R]] : index
// CHECK-NEXT: %[[V:.*]] = pgpu.gather %x[%[[ROW]], %[[D]]]
// CHECK-NEXT: %[[C:.*]] = pgpu.binary sub %[[V]], %[[MEAN]] : f32
// CHECK-NEXT: %[[Y:.*]] = pgpu.binary mul %[[C]], %[[W]] : f32
// CHECK-NEXT: pgpu.scatter %[[Y]], %out[%[[ROW]], %[[D]]]
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @segment_center(%x: !pgpu.view<f32, [N, F], in>, %ptr: !pgpu.view<i64, [G1], in>, %w: !pgpu.view<f32, [F], in>, %out: !pgpu.view<f32, [N, F], out>, %G: i32) {
    %c0_i64 = arith.constant 0 : i64
    %true = arith.constant true
    %z = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %nn = pgpu.extent %x[0] : !pgpu.view<f32, [N, F], in>
    %ff = pgpu.extent %x[1] : !pgpu.view<f32, [N, F], in>
    %g = pgpu.cast %G : i32 to index
    pgpu.program_space(%g) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%g) segment 0 roles ["axis0"] {
      ^bb0(%gi: index):
        %a = pgpu.load %ptr[%gi] valid %true : i1 fill %c0_i64 : i64 : !pgpu.view<i64, [G1], in>[index] -> i64
        %gi1 = pgpu.binary add %gi, %c1 : index
        %b = pgpu.load %ptr[%gi1] valid %true : i1 fill %c0_i64 : i64 : !pgpu.view<i64, [G1], in>[index] -> i64
        %lo = pgpu.cast %a : i64 to index
        %hi = pgpu.cast %b : i64 to index
        %n0 = pgpu.binary sub %hi, %lo : index
        %n = pgpu.binary max %n0, %c0 : index
        %cnt0 = pgpu.cast %n : index to f32
        %cnt = pgpu.binary max %cnt0, %one : f32
        pgpu.foreach %c0 to %n {
        ^bb0(%r: index):
          pgpu.foreach %c0 to %ff {
          ^bb0(%d: index):
            %wv = pgpu.load %w[%d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [F], in>[index] -> f32
            %row = pgpu.binary add %lo, %r : index
            %v = pgpu.gather %x[%row, %d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [N, F], in>[index, index] -> f32
            %s = pgpu.range_reduce %c0 to %n identity(%z : f32) -> (f32) element {
            ^bb0(%q: index):
              %qr = pgpu.binary add %lo, %q : index
              %e = pgpu.gather %x[%qr, %d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [N, F], in>[index, index] -> f32
              pgpu.yield %e : f32
            } combine {
            ^bb0(%a1: f32, %a2: f32):
              %c = pgpu.binary add %a1, %a2 : f32
              pgpu.yield %c : f32
            }
            %mean = pgpu.binary div %s, %cnt : f32
            %c = pgpu.binary sub %v, %mean : f32
            %y = pgpu.binary mul %c, %wv : f32
            pgpu.scatter %y, %out[%row, %d] valid %true : i1 : f32, !pgpu.view<f32, [N, F], out>[index, index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the statistic reduces over another range than the rows' walk (all N rows, not the
// COM: segment's): the walk's emptiness would not keep its element from reading.
// CHECK-LABEL: pgpu.kernel @other_range
// CHECK: pgpu.foreach %{{.*}} to %[[N:.*]] {
// CHECK-NEXT: ^bb0(%{{.*}}: index):
// CHECK-NEXT: pgpu.foreach
// CHECK: pgpu.range_reduce
// COM: An elementwise 2-d write (no statistic) keeps its rows outside and the contiguous columns inside.
// CHECK-LABEL: pgpu.kernel @elementwise
// CHECK: pgpu.foreach %{{.*}} to %[[M:.*]] {
// CHECK-NEXT: ^bb0(%[[R:.*]]: index):
// CHECK-NEXT: pgpu.foreach
// CHECK-NEXT: ^bb0(%[[D:.*]]: index):
// CHECK-NEXT: pgpu.load %w[%[[D]]] valid %true
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @other_range(%x: !pgpu.view<f32, [N, F], in>, %out: !pgpu.view<f32, [N, F], out>, %M: i32) {
    %true = arith.constant true
    %z = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %nn = pgpu.extent %x[0] : !pgpu.view<f32, [N, F], in>
    %ff = pgpu.extent %x[1] : !pgpu.view<f32, [N, F], in>
    %m = pgpu.cast %M : i32 to index
    pgpu.program_space(%m) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%m) segment 0 roles ["axis0"] {
      ^bb0(%gi: index):
        %n = pgpu.binary min %gi, %nn : index
        pgpu.foreach %c0 to %n {
        ^bb0(%r: index):
          pgpu.foreach %c0 to %ff {
          ^bb0(%d: index):
            %v = pgpu.gather %x[%r, %d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [N, F], in>[index, index] -> f32
            %s = pgpu.range_reduce %c0 to %nn identity(%z : f32) -> (f32) element {
            ^bb0(%q: index):
              %e = pgpu.gather %x[%q, %d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [N, F], in>[index, index] -> f32
              pgpu.yield %e : f32
            } combine {
            ^bb0(%a1: f32, %a2: f32):
              %c = pgpu.binary add %a1, %a2 : f32
              pgpu.yield %c : f32
            }
            %y = pgpu.binary sub %v, %s : f32
            pgpu.scatter %y, %out[%r, %d] valid %true : i1 : f32, !pgpu.view<f32, [N, F], out>[index, index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
  pgpu.kernel @elementwise(%x: !pgpu.view<f32, [M, F], in>, %w: !pgpu.view<f32, [F], in>, %out: !pgpu.view<f32, [M, F], out>) {
    %true = arith.constant true
    %z = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %mm = pgpu.extent %x[0] : !pgpu.view<f32, [M, F], in>
    %ff = pgpu.extent %x[1] : !pgpu.view<f32, [M, F], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%c1) segment 0 roles ["axis0"] {
      ^bb0(%gi: index):
        pgpu.foreach %c0 to %mm {
        ^bb0(%r: index):
          pgpu.foreach %c0 to %ff {
          ^bb0(%d: index):
            %wv = pgpu.load %w[%d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [F], in>[index] -> f32
            %v = pgpu.load %x[%r, %d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [M, F], in>[index, index] -> f32
            %y = pgpu.binary mul %v, %wv : f32
            pgpu.store %y, %out[%r, %d] valid %true : i1 : f32, !pgpu.view<f32, [M, F], out>[index, index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
