// RUN: tessel-opt %s -split-input-file -pgpu-narrow-fold-ranges -verify-diagnostics | FileCheck %s

// COM: A prefix sum over tiles of BT keys for BS lanes: lane s adds x[t] for t <= s. Over a tile
// COM: [b, b + BT) the predicate t <= s is all true while b + BT - 1 <= min(s) (the lanes' first
// COM: member, from the captured iota), and all false once b > max(s). Substituting false gives
// COM: select(false, x, 0) = 0, a sum of zeros = the identity: that suffix is not traversed. The
// COM: fold becomes the all-true tiles (no cmp left: the predicate and the tail mask are true)
// COM: and the mixed ones (the original summarizer), combined in source order.
// CHECK-LABEL: pgpu.kernel @prefix
// CHECK: %[[T:.*]] = pgpu.extent %x[0]
// CHECK: %[[A:.*]] = pgpu.region_fold %{{.*}} to %[[T1:.*]] step %{{.*}} identity
// CHECK-NOT: pgpu.cmp
// CHECK: } combine {
// The mixed interval continues the fold from the all-true interval's summary (no combine after).
// COM: Its tail mask bounds by the whole range (%T, one more operand), not the interval's end: each
// COM: interval ends at a tile boundary or at %T, so the two masks agree on its tiles.
// CHECK: %[[B:.*]] = pgpu.region_fold %[[T1]] to %[[F1:[^ ]*]] step %{{.*}} identity(%[[A]] : {{.*}} operands({{.*}}, %[[T]] :
// CHECK-NEXT: ^bb0(%[[BEGIN:[^:]*]]: index, {{.*}}, %[[WHOLE:[^:]*]]: index):
// CHECK: %[[POS:.*]] = pgpu.iota %[[BEGIN]]
// CHECK-NEXT: %[[WB:.*]] = pgpu.splat %[[WHOLE]]
// CHECK-NEXT: pgpu.cmp lt %[[POS]], %[[WB]]
// CHECK: pgpu.cmp le
// CHECK: } combine {
// CHECK-NOT: pgpu.binary add %[[A]]
// CHECK: pgpu.store %[[B]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @prefix(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{1 all-false interval(s) skipped (identity proven)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not skip: where the predicate is false the summary is a sum of ones, not the
// COM: identity (0): the all-true tiles are still split off, but the mixed fold runs to the end.
// CHECK-LABEL: pgpu.kernel @not_identity
// CHECK: %[[T:.*]] = pgpu.extent %x[0]
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.cmp
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp le
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @not_identity(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{0 all-false interval(s) skipped (identity proven)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>):
        %z = arith.constant 0.0 : f32
        %one = arith.constant 1.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %ones = pgpu.splat %one : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %ones : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: unit segments with no tile positions and no predicate stay one fold.
// CHECK-LABEL: pgpu.kernel @unit
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @unit(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [1], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      // expected-remark @+1 {{not narrowed: the summarizer has no lanes over the fold's tiles (no iota from the tile start): nothing to narrow}}
      %sum = pgpu.region_fold %c0 to %T step %c1 identity(%zero : f32)
          operands(%x : !pgpu.view<f32, [T], in>) -> (f32)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [T], in>):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %v = pgpu.load %xv[%b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T], in>[index] -> f32
        pgpu.yield %v : f32
      } combine {
      ^bb0(%l: f32, %q: f32):
        %a = pgpu.binary add %l, %q : f32
        pgpu.yield %a : f32
      }
      pgpu.store %sum, %y[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A sliding window with a runtime width: lane s sums x[t] for t <= s and s - t < w, w a kernel
// COM: scalar captured by the fold. s - t < w is solved for the tile coordinate: s - t - w < 0 has t with
// COM: coefficient -1, so it is t > s - w, whose lanes' range is [min(s) - w, max(s) - w]. With t <= s the
// COM: band is three folds: the leading mixed tiles (from the first tile that can see a key of the window,
// COM: alignDown(min(s) - w + 1)), the all-true tiles (no cmp left) and the trailing mixed ones; both
// COM: all-false ends are skipped (select(false, x, 0) summed is the identity).
// CHECK-LABEL: pgpu.kernel @window_runtime
// CHECK-SAME: %[[W:[^:]*]]: index
// CHECK: %[[BASE:.*]] = pgpu.binary mul
// CHECK: %[[QMIN:.*]] = pgpu.binary sub %[[BASE]], %[[W]] : index
// CHECK: %[[A:.*]] = pgpu.region_fold
// CHECK: pgpu.cmp lt
// CHECK: pgpu.binary sub
// CHECK: pgpu.cmp lt
// CHECK: } combine {
// CHECK: %[[B:.*]] = pgpu.region_fold {{.*}} identity(%[[A]] :
// CHECK-NOT: pgpu.cmp
// CHECK: } combine {
// CHECK: %[[C:.*]] = pgpu.region_fold {{.*}} identity(%[[B]] :
// CHECK: pgpu.cmp le
// CHECK: pgpu.cmp lt
// CHECK: } combine {
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.store %[[C]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @window_runtime(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %w: index)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{2 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 2 all-false interval(s) skipped (identity proven); 1 predicate(s) solved for the tile coordinate}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %w : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %ww: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %d = pgpu.binary sub %s2, %t2 : !pgpu.fragment<index, [BS, BT]>
        %wb = pgpu.splat %ww : index -> !pgpu.fragment<index, [BS, BT]>
        %c2 = pgpu.cmp lt %d, %wb : !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.binary and %c1, %c2 : !pgpu.fragment<i1, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Chunked local attention's visibility (Llama 4): lane s sees t when (s // c) * c <= t <= s, c a kernel
// COM: scalar (the chunk). The chunk's first key is a lane value under floor division and a product by
// COM: one value c of every lane: both are monotone in s for a fixed c, so the lanes' range is the images
// COM: of the ends, the smaller first, for each of the two steps: s // c in [min(s0 // c, s1 // c), max(..)],
// COM: then that range times c.
// COM: The tiles before the chunk's first key and past the lanes are skipped; the tiles between are all
// COM: true. Before, t >= (s // c) * c had no lane range and kept every tile from 0.
// CHECK-LABEL: pgpu.kernel @chunk
// CHECK-SAME: %[[C:[^:]*]]: index
// CHECK: %[[BASE:.*]] = pgpu.binary mul
// CHECK: %[[D0:.*]] = pgpu.binary div %[[BASE]], %[[C]] : index
// CHECK: %[[D1:.*]] = pgpu.binary div %[[LAST:.*]], %[[C]] : index
// CHECK: %[[DLO:.*]] = pgpu.binary min %[[D0]], %[[D1]] : index
// CHECK: %[[DHI:.*]] = pgpu.binary max %[[D0]], %[[D1]] : index
// CHECK: %[[M0:.*]] = pgpu.binary mul %[[DLO]], %[[C]] : index
// CHECK: %[[M1:.*]] = pgpu.binary mul %[[DHI]], %[[C]] : index
// CHECK: pgpu.binary min %[[M0]], %[[M1]] : index
// CHECK: pgpu.binary max %[[M0]], %[[M1]] : index
// CHECK: %[[A:.*]] = pgpu.region_fold
// CHECK: pgpu.cmp ge
// CHECK: } combine {
// CHECK: %[[B:.*]] = pgpu.region_fold {{.*}} identity(%[[A]] :
// CHECK-NOT: pgpu.cmp
// CHECK: } combine {
// CHECK: %[[E:.*]] = pgpu.region_fold {{.*}} identity(%[[B]] :
// CHECK: pgpu.cmp le
// CHECK: pgpu.cmp ge
// CHECK: } combine {
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.store %[[E]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @chunk(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %w: index)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{2 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 2 all-false interval(s) skipped (identity proven)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %w : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %ww: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %wb = pgpu.splat %ww : index -> !pgpu.fragment<index, [BS, BT]>
        %qq = pgpu.binary div %s2, %wb : !pgpu.fragment<index, [BS, BT]>
        %first = pgpu.binary mul %qq, %wb : !pgpu.fragment<index, [BS, BT]>
        %c2 = pgpu.cmp ge %t2, %first : !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.binary and %c1, %c2 : !pgpu.fragment<i1, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire on the products: t >= s * s multiplies two lane ranges (only a product or quotient by one
// COM: value of every lane is ranged), and t * w <= s names the positions times a factor. Only t <= s is
// COM: narrowed; the other two stay in every interval's summarizer.
// CHECK-LABEL: pgpu.kernel @lane_products
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp ge
// CHECK: pgpu.cmp le
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp ge
// CHECK: pgpu.cmp le
// CHECK: } combine {
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @lane_products(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %w: index)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{1 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 1 all-false interval(s) skipped (identity proven); one predicate kept in every interval: a term beside the tile positions has no lane range (computed in the summarizer, e.g. from loaded data, integer arithmetic that may wrap, or a product of two lane values)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %w : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %ww: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %sq = pgpu.binary mul %s2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %wb = pgpu.splat %ww : index -> !pgpu.fragment<index, [BS, BT]>
        %t3 = pgpu.binary mul %t2, %wb : !pgpu.fragment<index, [BS, BT]>
        %c2 = pgpu.cmp ge %t2, %sq : !pgpu.fragment<index, [BS, BT]>
        %c3 = pgpu.cmp le %t3, %s2 : !pgpu.fragment<index, [BS, BT]>
        %c23 = pgpu.binary and %c2, %c3 : !pgpu.fragment<i1, [BS, BT]>
        %vis = pgpu.binary and %c1, %c23 : !pgpu.fragment<i1, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: The same band with w: T.i32, in the two spellings the DSL emits (it has no implicit promotion): the
// COM: difference of positions cast to i32 (the identity where index is 32-bit, every generated kernel)
// COM: against the scalar, and the scalar sign-extended to index in the summarizer. Both are solved; the
// COM: i32 scalar's range is its value cast to index before the fold.
// CHECK-LABEL: pgpu.kernel @window_i32
// CHECK-SAME: %[[W:[^:]*]]: i32
// CHECK: pgpu.cast %[[W]] : i32 to index
// CHECK: pgpu.region_fold
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.cmp
// CHECK: } combine {
// CHECK: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @window_i32(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %w: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{3 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 3 all-false interval(s) skipped (identity proven); 2 predicate(s) solved for the tile coordinate}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %w : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, i32) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %ww: i32):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %d = pgpu.binary sub %s2, %t2 : !pgpu.fragment<index, [BS, BT]>
        %di = pgpu.cast %d : !pgpu.fragment<index, [BS, BT]> to !pgpu.fragment<i32, [BS, BT]>
        %wb = pgpu.splat %ww : i32 -> !pgpu.fragment<i32, [BS, BT]>
        %c2 = pgpu.cmp lt %di, %wb : !pgpu.fragment<i32, [BS, BT]>
        %wi = pgpu.cast %ww : i32 to index
        %wl = pgpu.splat %wi : index -> !pgpu.fragment<index, [BS, BT]>
        %c3 = pgpu.cmp lt %d, %wl : !pgpu.fragment<index, [BS, BT]>
        %c23 = pgpu.binary and %c2, %c3 : !pgpu.fragment<i1, [BS, BT]>
        %vis = pgpu.binary and %c1, %c23 : !pgpu.fragment<i1, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: s - t < w + t names the positions twice (2t > s - w is not a bound on t alone here).
// CHECK-LABEL: pgpu.kernel @twice
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @twice(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %w: index)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{not narrowed: no tile-coordinate predicate and no tail mask in the summarizer (the tile positions appear twice in one predicate)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %w : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %ww: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %true = arith.constant true
        %ok = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %d = pgpu.binary sub %s2, %t2 : !pgpu.fragment<index, [BS, BT]>
        %wb = pgpu.splat %ww : index -> !pgpu.fragment<index, [BS, BT]>
        %wt = pgpu.binary add %wb, %t2 : !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.cmp lt %d, %wt : !pgpu.fragment<index, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: s - 2t < w has the positions with coefficient 2.
// CHECK-LABEL: pgpu.kernel @scaled
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @scaled(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %w: index)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{not narrowed: no tile-coordinate predicate and no tail mask in the summarizer (the tile positions appear under arithmetic other than index + and -}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %w : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %ww: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %true = arith.constant true
        %ok = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %two = arith.constant 2 : index
        %twos = pgpu.splat %two : index -> !pgpu.fragment<index, [BS, BT]>
        %tt = pgpu.binary mul %t2, %twos : !pgpu.fragment<index, [BS, BT]>
        %d = pgpu.binary sub %s2, %tt : !pgpu.fragment<index, [BS, BT]>
        %wb = pgpu.splat %ww : index -> !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.cmp lt %d, %wb : !pgpu.fragment<index, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the width is loaded from memory inside the summarizer: it has no range before the fold.
// CHECK-LABEL: pgpu.kernel @loaded
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @loaded(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %w: index, %u: !pgpu.view<i32, [1], in>)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{not narrowed: no tile-coordinate predicate and no tail mask in the summarizer (a term beside the tile positions has no lane range}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %w, %u : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index, !pgpu.view<i32, [1], in>) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %ww: index, %uv: !pgpu.view<i32, [1], in>):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %true = arith.constant true
        %ok = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %c0i = arith.constant 0 : index
        %tr = arith.constant true
        %zi = arith.constant 0 : i32
        %wl = pgpu.load %uv[%c0i] valid %tr : i1 fill %zi : i32 : !pgpu.view<i32, [1], in>[index] -> i32
        %wi = pgpu.cast %wl : i32 to index
        %d = pgpu.binary sub %s2, %t2 : !pgpu.fragment<index, [BS, BT]>
        %wb = pgpu.splat %wi : index -> !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.cmp lt %d, %wb : !pgpu.fragment<index, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: t + w > s added in i32 wraps for w near 2^31 (w = INT32_MAX as "no window"), so it is
// COM: not the exact t > s - w.
// CHECK-LABEL: pgpu.kernel @wraps
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @wraps(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %w: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{not narrowed: no tile-coordinate predicate and no tail mask in the summarizer (the tile positions appear under arithmetic other than index + and -}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %w : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, i32) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %ww: i32):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %true = arith.constant true
        %ok = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %ti = pgpu.cast %t2 : !pgpu.fragment<index, [BS, BT]> to !pgpu.fragment<i32, [BS, BT]>
        %si = pgpu.cast %s2 : !pgpu.fragment<index, [BS, BT]> to !pgpu.fragment<i32, [BS, BT]>
        %wb = pgpu.splat %ww : i32 -> !pgpu.fragment<i32, [BS, BT]>
        %tw = pgpu.binary add %ti, %wb : !pgpu.fragment<i32, [BS, BT]>
        %vis = pgpu.cmp gt %tw, %si : !pgpu.fragment<i32, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A union of two prefix-true predicates (prefix-LM: key t visible to lane s when t < P, a runtime
// COM: prefix, or t <= s), the prefix's 1-d comparison broadcast into the 2-d or. A tile is all true
// COM: where either part is: start + BT <= max(P, min(s) + 1), aligned down; all false where both are:
// COM: start >= max(P, max(s) + 1), aligned up, skipped (false for the or gives a sum of zeros). Before,
// COM: the parts were narrowed as an intersection: all true only below min(P, min(s) + 1), and the
// COM: mixed fold ran to T (no part alone proves the identity).
// CHECK-LABEL: pgpu.kernel @prefix_union
// CHECK: pgpu.cast %pre : i32 to index
// COM: T1 = min(alignDown(T), max(diagonal bound, prefix bound)): the union's largest true bound.
// CHECK: %[[TU:.*]] = pgpu.binary max %{{[0-9]+}}, %{{[0-9]+}} : index
// CHECK-NEXT: %[[T1:.*]] = pgpu.binary min %{{.*}}, %[[TU]] : index
// CHECK: %[[FU:.*]] = pgpu.binary max %{{[0-9]+}}, %{{[0-9]+}} : index
// CHECK-NEXT: %[[F1:.*]] = pgpu.binary min %{{.*}}, %[[FU]] : index
// CHECK: pgpu.region_fold %{{[^ ]*}} to %{{[^ ]*}} step
// CHECK-NOT: pgpu.binary or
// CHECK-NOT: pgpu.cmp
// CHECK: } combine {
// CHECK: pgpu.region_fold %{{[^ ]*}} to %{{[^ ]*}} step
// CHECK: pgpu.cmp lt
// CHECK: pgpu.cmp le
// CHECK: pgpu.binary or
// CHECK: } combine {
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @prefix_union(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %pre: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %P = pgpu.cast %pre : i32 to index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{1 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 1 all-false interval(s) skipped (identity proven); 1 union(s) of one direction narrowed as one predicate}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %P : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %pp: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %pb = pgpu.splat %pp : index -> !pgpu.fragment<index, [BT]>
        %c1 = pgpu.cmp lt %t, %pb : !pgpu.fragment<index, [BT]>
        %c1b = pgpu.broadcast %c1 dims [1] : !pgpu.fragment<i1, [BT]> -> !pgpu.fragment<i1, [BS, BT]>
        %c2 = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.binary or %c1b, %c2 : !pgpu.fragment<i1, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A union of two suffix-true predicates (t > s or t >= P): all true from the smaller of their
// COM: true bounds, all false below the smaller of their false bounds (skipped): min, not max.
// CHECK-LABEL: pgpu.kernel @suffix_union
// CHECK: pgpu.binary min
// CHECK: pgpu.region_fold
// CHECK: pgpu.binary or
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.binary or
// CHECK: } combine {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @suffix_union(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %pre: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %P = pgpu.cast %pre : i32 to index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{1 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 1 all-false interval(s) skipped (identity proven); 1 union(s) of one direction narrowed as one predicate}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %P : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %pp: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %pb = pgpu.splat %pp : index -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp gt %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %c2 = pgpu.cmp ge %t2, %pb : !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.binary or %c1, %c2 : !pgpu.fragment<i1, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A union of intervals: t < P (from the start) or t > s (to the end) is not monotone in the tile
// COM: start, so it is not one predicate of one direction; it is two branches, each an interval of tiles.
// COM: Before: one fold over every tile. After: the branch from the start (no leading mixed piece: all
// COM: true, then mixed), then the branch to the end (mixed, all true, mixed), its range starting past
// COM: the first's; tiles in neither are all false (the sum of zeros: skipped). The all-true folds keep no
// COM: comparison.
// CHECK-LABEL: pgpu.kernel @union_two_directions
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.cmp
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp gt
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp gt
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.cmp
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp gt
// CHECK: } combine {
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @union_two_directions(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %pre: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %P = pgpu.cast %pre : i32 to index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{1 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 1 all-false interval(s) skipped (identity proven); a union of 2 intervals narrowed branch by branch (only its tiles visited)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %P : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %pp: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %pb = pgpu.splat %pp : index -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp lt %t2, %pb : !pgpu.fragment<index, [BS, BT]>
        %c2 = pgpu.cmp gt %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.binary or %c1, %c2 : !pgpu.fragment<i1, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire as a union (of one direction or of intervals): the part t < P is also read outside
// COM: the or (a second select), so it is a predicate of its own; the parts are narrowed separately as
// COM: before (t < P false makes the second select the identity: its suffix is skipped, on its own).
// CHECK-LABEL: pgpu.kernel @union_part_used_outside
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.cmp
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: pgpu.binary or
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @union_part_used_outside(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %pre: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %P = pgpu.cast %pre : i32 to index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{2 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 1 all-false interval(s) skipped (identity proven)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %P : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %pp: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %pb = pgpu.splat %pp : index -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp lt %t2, %pb : !pgpu.fragment<index, [BS, BT]>
        %c2 = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.binary or %c1, %c2 : !pgpu.fragment<i1, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m0 = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %c1, %m0, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Streaming attention with sinks: t <= s and (t < 4 or t + P > s). The and of an or is two
// COM: branches in normal form, [0, min(4, s + 1)) and (s - P, s], each an intersection of bounds (the
// COM: window's t + P > s read as the tile coordinate t + P). The sink branch starts at 0 (no sort
// COM: needed: no select) and is all true (no comparison left), then mixed; the window branch is
// COM: visited past it as mixed, all true, mixed. The diagonal t <= s
// COM: is in both branches: its bounds are computed once.
// CHECK-LABEL: pgpu.kernel @sink_window
// CHECK-NOT: pgpu.select
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.cmp
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp le
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp le
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.cmp
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp le
// CHECK: } combine {
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @sink_window(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %pre: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %P = pgpu.cast %pre : i32 to index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{1 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 1 all-false interval(s) skipped (identity proven); a union of 2 intervals narrowed branch by branch (only its tiles visited)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %P : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %pp: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %pb = pgpu.splat %pp : index -> !pgpu.fragment<index, [BS, BT]>
        %c4 = arith.constant 4 : index
        %c4b = pgpu.splat %c4 : index -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %c2 = pgpu.cmp lt %t2, %c4b : !pgpu.fragment<index, [BS, BT]>
        %tw = pgpu.binary add %t2, %pb : !pgpu.fragment<index, [BS, BT]>
        %c3 = pgpu.cmp gt %tw, %s2 : !pgpu.fragment<index, [BS, BT]>
        %sw = pgpu.binary or %c2, %c3 : !pgpu.fragment<i1, [BS, BT]>
        %vis = pgpu.binary and %c1, %sw : !pgpu.fragment<i1, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Two branches that may come in either order: [P, P + 8) and (s, end). Neither starts at 0, so
// COM: their bounds are sorted by their first possible tile (a compare and selects on index scalars)
// COM: before the folds are placed: source order is kept for any P.
// CHECK-LABEL: pgpu.kernel @sorted_branches
// CHECK: %[[SWAP:.*]] = pgpu.cmp lt %{{.*}}, %{{.*}} : index
// CHECK: pgpu.select %[[SWAP]], %{{.*}}, %{{.*}} : i1, index
// CHECK-COUNT-6: pgpu.region_fold
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @sorted_branches(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %pre: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %P = pgpu.cast %pre : i32 to index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{1 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 1 all-false interval(s) skipped (identity proven); 1 predicate(s) solved for the tile coordinate; a union of 2 intervals narrowed branch by branch (only its tiles visited)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %P : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %pp: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %pb = pgpu.splat %pp : index -> !pgpu.fragment<index, [BS, BT]>
        %c8 = arith.constant 8 : index
        %pe = pgpu.binary add %pp, %c8 : index
        %peb = pgpu.splat %pe : index -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp ge %t2, %pb : !pgpu.fragment<index, [BS, BT]>
        %c2 = pgpu.cmp lt %t2, %peb : !pgpu.fragment<index, [BS, BT]>
        %c3 = pgpu.cmp gt %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %win = pgpu.binary and %c1, %c2 : !pgpu.fragment<i1, [BS, BT]>
        %vis = pgpu.binary or %win, %c3 : !pgpu.fragment<i1, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: (t < P or t > s or t < 8) and (t >= P or t <= s) has six branches in normal form, more than four
// COM: (each costs up to three folds): the whole tree is not a union of intervals, but the and's first
// COM: operand is (three branches); false for it makes the and false, so tiles in none of its branches are
// COM: skipped. The second operand's comparisons are narrowed on their own, as global predicates (t >= P
// COM: is true on a suffix: each branch has a leading mixed fold too, three folds a branch).
// CHECK-LABEL: pgpu.kernel @many_branches_operand
// CHECK-COUNT-9: pgpu.region_fold
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @many_branches_operand(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %pre: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %P = pgpu.cast %pre : i32 to index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{3 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 1 all-false interval(s) skipped (identity proven); a union of 3 intervals narrowed branch by branch (only its tiles visited)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %P : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %pp: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %pb = pgpu.splat %pp : index -> !pgpu.fragment<index, [BS, BT]>
        %c8 = arith.constant 8 : index
        %c8b = pgpu.splat %c8 : index -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp lt %t2, %pb : !pgpu.fragment<index, [BS, BT]>
        %c2 = pgpu.cmp gt %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %c3 = pgpu.cmp lt %t2, %c8b : !pgpu.fragment<index, [BS, BT]>
        %c4 = pgpu.cmp ge %t2, %pb : !pgpu.fragment<index, [BS, BT]>
        %c5 = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %o1 = pgpu.binary or %c1, %c2 : !pgpu.fragment<i1, [BS, BT]>
        %o2 = pgpu.binary or %o1, %c3 : !pgpu.fragment<i1, [BS, BT]>
        %o3 = pgpu.binary or %c4, %c5 : !pgpu.fragment<i1, [BS, BT]>
        %vis = pgpu.binary and %o2, %o3 : !pgpu.fragment<i1, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire as a union of intervals: (t < P and (t < 8 or t > s)) or (t >= P and (t <= s or
// COM: t > s or t < 8)) has five branches in normal form, more than four (each costs up to three folds),
// COM: and its root is an or (no operand of an and to fall back to). The comparisons are narrowed on their
// COM: own, as before: no all-false interval is proven, and no tile is skipped.
// CHECK-LABEL: pgpu.kernel @too_many_branches
// CHECK-COUNT-3: pgpu.region_fold
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @too_many_branches(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %pre: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %P = pgpu.cast %pre : i32 to index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{5 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 0 all-false interval(s) skipped (identity proven)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %P : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %pp: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %pb = pgpu.splat %pp : index -> !pgpu.fragment<index, [BS, BT]>
        %c8 = arith.constant 8 : index
        %c8b = pgpu.splat %c8 : index -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp lt %t2, %pb : !pgpu.fragment<index, [BS, BT]>
        %c2 = pgpu.cmp gt %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %c3 = pgpu.cmp lt %t2, %c8b : !pgpu.fragment<index, [BS, BT]>
        %c4 = pgpu.cmp ge %t2, %pb : !pgpu.fragment<index, [BS, BT]>
        %c5 = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %o1 = pgpu.binary or %c3, %c2 : !pgpu.fragment<i1, [BS, BT]>
        %a1 = pgpu.binary and %c1, %o1 : !pgpu.fragment<i1, [BS, BT]>
        %o2 = pgpu.binary or %c5, %c2 : !pgpu.fragment<i1, [BS, BT]>
        %o3 = pgpu.binary or %o2, %c3 : !pgpu.fragment<i1, [BS, BT]>
        %a2 = pgpu.binary and %c4, %o3 : !pgpu.fragment<i1, [BS, BT]>
        %vis = pgpu.binary or %a1, %a2 : !pgpu.fragment<i1, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire as a union of intervals: where t < P or t > s is false the select gives ones, so
// COM: a tile in neither interval is not the identity and must be folded. The comparisons are narrowed
// COM: on their own, as before the union of intervals: no tile skipped, three folds.
// CHECK-LABEL: pgpu.kernel @intervals_not_identity
// CHECK-COUNT-3: pgpu.region_fold
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @intervals_not_identity(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %pre: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %P = pgpu.cast %pre : i32 to index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{2 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 0 all-false interval(s) skipped (identity proven)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %P : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %pp: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %pb = pgpu.splat %pp : index -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp lt %t2, %pb : !pgpu.fragment<index, [BS, BT]>
        %c2 = pgpu.cmp gt %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.binary or %c1, %c2 : !pgpu.fragment<i1, [BS, BT]>
        %one = arith.constant 1.0 : f32
        %zz = pgpu.splat %one : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A union of intervals under an and with loaded data (x > 0, a padding mask): the whole tree is
// COM: not ranged, its or operand is. The intervals are narrowed as in @union_two_directions; the data
// COM: comparison stays in every fold, the all-true ones included (only the union is replaced by true).
// CHECK-LABEL: pgpu.kernel @intervals_and_data
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.cmp {{.*}} : !pgpu.fragment<index
// CHECK: pgpu.cmp gt {{.*}} : !pgpu.fragment<f32, [BS, BT]>
// CHECK-NOT: pgpu.cmp {{.*}} : !pgpu.fragment<index
// CHECK: } combine {
// CHECK-COUNT-4: pgpu.region_fold
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @intervals_and_data(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %pre: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %P = pgpu.cast %pre : i32 to index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{1 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 1 all-false interval(s) skipped (identity proven); a union of 2 intervals narrowed branch by branch (only its tiles visited)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %P : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %pp: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %pb = pgpu.splat %pp : index -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp lt %t2, %pb : !pgpu.fragment<index, [BS, BT]>
        %c2 = pgpu.cmp gt %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %band = pgpu.binary or %c1, %c2 : !pgpu.fragment<i1, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %kept = pgpu.cmp gt %v2, %zz : !pgpu.fragment<f32, [BS, BT]>
        %vis = pgpu.binary and %kept, %band : !pgpu.fragment<i1, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Chunked attention as its reference spells it: lane s sees t when t // w == s // w (block-diagonal),
// COM: w a kernel scalar, the lanes' quotient computed before the fold and captured. An equality of floor
// COM: quotients by one value is a band: t in [m*w + min(w+1, 0), m*w + max(w-1, 0)] with m = s // w (w > 0:
// COM: [m*w, m*w + w - 1]; w < 0: [m*w + w + 1, m*w]), two bounds whose lane ranges are those of m*w. The
// COM: tiles before and past the block's chunks are skipped, those inside run without the equality.
// COM: Before, the equality was no predicate and every tile from 0 to T kept it.
// CHECK-LABEL: pgpu.kernel @chunk_equality
// CHECK-SAME: %[[W:[^:]*]]: index
// CHECK: %[[Q0:.*]] = pgpu.binary div %{{.*}}, %[[W]] : index
// CHECK: %[[Q1:.*]] = pgpu.binary div %{{.*}}, %[[W]] : index
// CHECK: %[[QLO:.*]] = pgpu.binary min %[[Q0]], %[[Q1]] : index
// CHECK: %[[QHI:.*]] = pgpu.binary max %[[Q0]], %[[Q1]] : index
// CHECK: %[[M0:.*]] = pgpu.binary mul %[[QLO]], %[[W]] : index
// CHECK: %[[M1:.*]] = pgpu.binary mul %[[QHI]], %[[W]] : index
// CHECK: %[[MLO:.*]] = pgpu.binary min %[[M0]], %[[M1]] : index
// CHECK: %[[MHI:.*]] = pgpu.binary max %[[M0]], %[[M1]] : index
// CHECK: %[[WP:.*]] = pgpu.binary add %[[W]], %{{.*}} : index
// CHECK: %[[BELOW:.*]] = pgpu.binary min %[[WP]], %{{.*}} : index
// CHECK: %[[WM:.*]] = pgpu.binary sub %[[W]], %{{.*}} : index
// CHECK: %[[ABOVE:.*]] = pgpu.binary max %[[WM]], %{{.*}} : index
// CHECK: pgpu.binary add %[[MLO]], %[[BELOW]] : index
// CHECK: pgpu.binary add %[[MHI]], %[[BELOW]] : index
// CHECK: pgpu.binary add %[[MLO]], %[[ABOVE]] : index
// CHECK: pgpu.binary add %[[MHI]], %[[ABOVE]] : index
// CHECK: %[[A:.*]] = pgpu.region_fold
// CHECK: pgpu.cmp eq
// CHECK: } combine {
// CHECK: %[[B:.*]] = pgpu.region_fold {{.*}} identity(%[[A]] :
// CHECK-NOT: pgpu.cmp
// CHECK: } combine {
// CHECK: %[[E:.*]] = pgpu.region_fold {{.*}} identity(%[[B]] :
// CHECK: pgpu.cmp eq
// CHECK: } combine {
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.store %[[E]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @chunk_equality(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %w: index, %w2: index)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      %wl = pgpu.splat %w : index -> !pgpu.fragment<index, [BS]>
      %sq = pgpu.binary div %s, %wl : !pgpu.fragment<index, [BS]>
      // expected-remark @+1 {{2 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 2 all-false interval(s) skipped (identity proven); 1 equality(ies) of floor quotients read as their band (two bounds)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %w, %sq, %w2 : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index, !pgpu.fragment<index, [BS]>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %ww: index, %sqq: !pgpu.fragment<index, [BS]>, %ww2: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %wb = pgpu.splat %ww : index -> !pgpu.fragment<index, [BT]>
        %tq = pgpu.binary div %t, %wb : !pgpu.fragment<index, [BT]>
        %tq2 = pgpu.broadcast %tq dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %sq2 = pgpu.broadcast %sqq dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.cmp eq %sq2, %tq2 : !pgpu.fragment<index, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the quotients divide by different values (t // w2 == s // w), so no band; only the
// COM: tail mask is narrowed and the equality stays in every interval.
// CHECK-LABEL: pgpu.kernel @chunk_equality_other_divisor
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp eq
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp eq
// CHECK: } combine {
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @chunk_equality_other_divisor(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %w: index, %w2: index)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      %wl = pgpu.splat %w : index -> !pgpu.fragment<index, [BS]>
      %sq = pgpu.binary div %s, %wl : !pgpu.fragment<index, [BS]>
      // expected-remark @+1 {{0 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 0 all-false interval(s) skipped (identity proven)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %w, %sq, %w2 : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index, !pgpu.fragment<index, [BS]>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %ww: index, %sqq: !pgpu.fragment<index, [BS]>, %ww2: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %wb = pgpu.splat %ww2 : index -> !pgpu.fragment<index, [BT]>
        %tq = pgpu.binary div %t, %wb : !pgpu.fragment<index, [BT]>
        %tq2 = pgpu.broadcast %tq dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %sq2 = pgpu.broadcast %sqq dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.cmp eq %sq2, %tq2 : !pgpu.fragment<index, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: an inequality of the quotients (t // w != s // w) is true outside a band, not inside
// COM: one; it stays in every interval.
// CHECK-LABEL: pgpu.kernel @chunk_inequality
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp ne
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp ne
// CHECK: } combine {
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @chunk_inequality(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>, %w: index, %w2: index)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      %wl = pgpu.splat %w : index -> !pgpu.fragment<index, [BS]>
      %sq = pgpu.binary div %s, %wl : !pgpu.fragment<index, [BS]>
      // expected-remark @+1 {{0 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 0 all-false interval(s) skipped (identity proven)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %x, %w, %sq, %w2 : !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>, index, !pgpu.fragment<index, [BS]>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>, %ww: index, %sqq: !pgpu.fragment<index, [BS]>, %ww2: index):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %wb = pgpu.splat %ww : index -> !pgpu.fragment<index, [BT]>
        %tq = pgpu.binary div %t, %wb : !pgpu.fragment<index, [BT]>
        %tq2 = pgpu.broadcast %tq dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %sq2 = pgpu.broadcast %sqq dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.cmp ne %sq2, %tq2 : !pgpu.fragment<index, [BS, BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zz : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A masked row sum, T.sum(T.where(kpos <= i, x[keys], 0)), blocked by pgpu-form-blocking into a
// COM: reduction loop (acc + reduce(block)), is read as the region fold it is: the blocks past the row are
// COM: skipped (the mask false proves the block's reduce the identity of the +), the blocks wholly at or
// COM: below it run without the mask or the tail mask. Before, the loop walked every block with both.
// CHECK-LABEL: pgpu.kernel @loop_causal
// CHECK-NOT: pgpu.for
// CHECK: %[[A:.*]] = pgpu.region_fold {{.*}} identity(%{{.*}} : f32)
// CHECK-NOT: pgpu.cmp
// CHECK: pgpu.reduce
// CHECK: } combine {
// CHECK: pgpu.binary add
// CHECK: %[[B:.*]] = pgpu.region_fold {{.*}} identity(%[[A]] : f32)
// CHECK: pgpu.cmp lt
// CHECK: pgpu.cmp le
// CHECK: } combine {
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.store %[[B]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @loop_causal(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>)
      attributes {params = [#pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bt = pgpu.param "BT" : index
    pgpu.program_space(%S) {
    ^bb0(%i: index):
      // expected-remark @+1 {{pgpu-narrow-fold-ranges: a blocked reduction loop, read as its region fold: 1 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 1 all-false interval(s) skipped (identity proven)}}
      %sum = pgpu.for %c0 to %T step %bt iter_args(%zero : f32) -> f32 {
      ^bb0(%b: index, %acc: f32):
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %Tb = pgpu.splat %T : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %Tb : !pgpu.fragment<index, [BT]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BT]>
        %v = pgpu.load %x[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %zero : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %ib = pgpu.splat %i : index -> !pgpu.fragment<index, [BT]>
        %vis = pgpu.cmp le %t, %ib : !pgpu.fragment<index, [BT]>
        %m = pgpu.select %vis, %v, %z : !pgpu.fragment<i1, [BT]>, !pgpu.fragment<f32, [BT]>
        %m2 = pgpu.select %ok, %m, %z : !pgpu.fragment<i1, [BT]>, !pgpu.fragment<f32, [BT]>
        %r = pgpu.reduce %m2 axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BT]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        %next = pgpu.binary add %acc, %r : f32
        pgpu.yield %next : f32
      }
      %tr = arith.constant true
      pgpu.store %sum, %y[%i] valid %tr : i1 : f32, !pgpu.view<f32, [S], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the mask is loaded data (v > 0), no coordinate predicate; the loop stays as it was.
// CHECK-LABEL: pgpu.kernel @loop_data
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.for
// CHECK: pgpu.cmp gt
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @loop_data(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>)
      attributes {params = [#pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bt = pgpu.param "BT" : index
    pgpu.program_space(%S) {
    ^bb0(%i: index):
      %sum = pgpu.for %c0 to %T step %bt iter_args(%zero : f32) -> f32 {
      ^bb0(%b: index, %acc: f32):
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %Tb = pgpu.splat %T : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %Tb : !pgpu.fragment<index, [BT]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BT]>
        %v = pgpu.load %x[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %zero : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %ib = pgpu.splat %i : index -> !pgpu.fragment<index, [BT]>
        %vis = pgpu.cmp gt %v, %z : !pgpu.fragment<f32, [BT]>
        %m = pgpu.select %vis, %v, %z : !pgpu.fragment<i1, [BT]>, !pgpu.fragment<f32, [BT]>
        %m2 = pgpu.select %ok, %m, %z : !pgpu.fragment<i1, [BT]>, !pgpu.fragment<f32, [BT]>
        %r = pgpu.reduce %m2 axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BT]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        %next = pgpu.binary add %acc, %r : f32
        pgpu.yield %next : f32
      }
      %tr = arith.constant true
      pgpu.store %sum, %y[%i] valid %tr : i1 : f32, !pgpu.view<f32, [S], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the block's contribution reads the carry (r * acc), so the loop is no fold of
// COM: independent blocks; it stays as it was.
// CHECK-LABEL: pgpu.kernel @loop_carry_read
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.for
// CHECK: pgpu.cmp le
// CHECK: pgpu.binary mul
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @loop_carry_read(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>)
      attributes {params = [#pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bt = pgpu.param "BT" : index
    pgpu.program_space(%S) {
    ^bb0(%i: index):
      %sum = pgpu.for %c0 to %T step %bt iter_args(%zero : f32) -> f32 {
      ^bb0(%b: index, %acc: f32):
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %Tb = pgpu.splat %T : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %Tb : !pgpu.fragment<index, [BT]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BT]>
        %v = pgpu.load %x[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %zero : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %ib = pgpu.splat %i : index -> !pgpu.fragment<index, [BT]>
        %vis = pgpu.cmp le %t, %ib : !pgpu.fragment<index, [BT]>
        %m = pgpu.select %vis, %v, %z : !pgpu.fragment<i1, [BT]>, !pgpu.fragment<f32, [BT]>
        %m2 = pgpu.select %ok, %m, %z : !pgpu.fragment<i1, [BT]>, !pgpu.fragment<f32, [BT]>
        %r = pgpu.reduce %m2 axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BT]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        %r2 = pgpu.binary mul %r, %acc : f32
        %next = pgpu.binary add %acc, %r2 : f32
        pgpu.yield %next : f32
      }
      %tr = arith.constant true
      pgpu.store %sum, %y[%i] valid %tr : i1 : f32, !pgpu.view<f32, [S], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A lane bound loaded from data (lane s sums x[t] for starts[s] <= t <= s: a packed token's keys
// COM: from its sequence's start). Before: t >= starts[s] had no lane range (one predicate kept in every
// COM: interval, no tile skipped below the starts). After: a 1-d lane fragment of integers computed before
// COM: the fold ranges between its minimum and maximum over the lanes, two pgpu.reduce before the fold
// COM: (cast to index); the tiles below min(starts) are skipped (identity proven), those in
// COM: [max(starts), min(s)] run without predicates.
// CHECK-LABEL: pgpu.kernel @loaded_lane_start
// CHECK: %[[LO:.*]] = pgpu.reduce %[[ST:.*]] axes [0] identity(%{{.*}} : i32) : (!pgpu.fragment<i32, [BS]>) -> (i32)
// CHECK: pgpu.binary min
// CHECK: pgpu.cast %[[LO]] : i32 to index
// CHECK: %[[HI:.*]] = pgpu.reduce %[[ST]] axes [0] identity(%{{.*}} : i32) : (!pgpu.fragment<i32, [BS]>) -> (i32)
// CHECK: pgpu.binary max
// CHECK: pgpu.cast %[[HI]] : i32 to index
// CHECK: pgpu.region_fold
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.cmp
// CHECK: } combine {
// CHECK: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @loaded_lane_start(%x: !pgpu.view<f32, [T], in>, %starts: !pgpu.view<i32, [S], in>, %y: !pgpu.view<f32, [S], out>)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %z32 = arith.constant 0 : i32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %st = pgpu.load %starts[%s] valid %sok : !pgpu.fragment<i1, [BS]> fill %z32 : i32
          : !pgpu.view<i32, [S], in>[!pgpu.fragment<index, [BS]>] -> !pgpu.fragment<i32, [BS]>
      %lo = pgpu.cast %st : !pgpu.fragment<i32, [BS]> to !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{2 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 2 all-false interval(s) skipped (identity proven)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%s, %lo, %x : !pgpu.fragment<index, [BS]>, !pgpu.fragment<index, [BS]>, !pgpu.view<f32, [T], in>) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %ss: !pgpu.fragment<index, [BS]>, %ll: !pgpu.fragment<index, [BS]>, %xv: !pgpu.view<f32, [T], in>):
        %z = arith.constant 0.0 : f32
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %v2 = pgpu.broadcast %v dims [1] : !pgpu.fragment<f32, [BT]> -> !pgpu.fragment<f32, [BS, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
        %s2 = pgpu.broadcast %ss dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %l2 = pgpu.broadcast %ll dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
        %c1 = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
        %c2 = pgpu.cmp ge %t2, %l2 : !pgpu.fragment<index, [BS, BT]>
        %vis = pgpu.binary and %c1, %c2 : !pgpu.fragment<i1, [BS, BT]>
        %zs = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BS, BT]>
        %m = pgpu.select %vis, %v2, %zs : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<f32, [BS, BT]>
        %r = pgpu.reduce %m axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [BS, BT]>) -> (!pgpu.fragment<f32, [BS]>) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %r : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}
