// The folds pgpu-split-folds leaves of one reduction (the unsplit path's fold, each segment's fold, and
// the last arrival's fold of the segments' summaries) each get a pgpu-narrow-fold-ranges remark at the
// op. Before, the last arrival's read "not narrowed: no tile-coordinate predicate and no tail mask"
// beside the two "tail mask(s): tiles split" ones, a contradiction (bench/corpus/149, 157); it now says
// which fold it is and that it has nothing to narrow. A sum over the middle axis (149's spelling).
// RUN: tessel compile %s --emit=source --target=triton -o /dev/null 2>&1 | FileCheck %s

// CHECK: remark: pgpu-split-folds: the fold's tiles are cut into FOLD_SPLIT contiguous segments
// CHECK: remark: pgpu-narrow-fold-ranges: 0 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 0 all-false interval(s) skipped (identity proven)
// CHECK-NEXT: kir.reduce
// CHECK-NEXT: ^
// CHECK-NEXT: remark: pgpu-narrow-fold-ranges: not narrowed: the last arrival's fold of the segments' summaries (pgpu-split-folds) has no lanes over tiles: nothing to narrow
// CHECK-NOT: no tile-coordinate predicate and no tail mask
// CHECK: remark: pgpu-narrow-fold-ranges: 0 coordinate predicate(s) and 1 tail mask(s)
// CHECK-NOT: remark: pgpu-narrow-fold-ranges
// CHECK: remark: pgpu-realize-folds
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @sum_middle_axis(%x: !kir.view<f32, [A, B, C], in>, %out: !kir.view<f32, [A, C], out>) {
    %0 = kir.extent "A"
    %1 = kir.extent "B"
    %2 = kir.extent "C"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %0
    %5 = kir.domain %3 to %1
    %6 = kir.domain %3 to %2
    %8 = arith.constant 0.0 : f32
    %7 = kir.load %x[%4, %5, %6] : !kir.view<f32, [A, B, C], in>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xf32>
    %12 = kir.reduce %7 axes [1] identity(%8 : f32) : (tensor<?x?x?xf32>) -> (tensor<?x?xf32>) {
    ^bb0(%9: f32, %10: f32):
      %11 = kir.binary add %9, %10 : f32
      kir.yield %11 : f32
    }
    kir.store %12, %out[%4, %6] : tensor<?x?xf32>, !kir.view<f32, [A, C], out>[!kir.domain, !kir.domain]
    kir.return
  }
}
