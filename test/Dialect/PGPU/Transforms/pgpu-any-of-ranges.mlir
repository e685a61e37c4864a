// RUN: tessel-opt %s -split-input-file -pgpu-any-of-ranges -verify-diagnostics | FileCheck %s

// COM: A window's "some key visible" flag over a tile of BT keys starting at %b: the OR along the
// COM: keys of (t < e) & (t <= s) & (t > s - 8) admits the lanes j with b + j in (s - 8, min(s, e - 1)],
// COM: an interval per row: max(0, s - 8 - b + 1) < min(BT, e - b, s - b + 1). No i1 [BS, BT]
// COM: reduction is left.
// CHECK-LABEL: pgpu.kernel @window_any
// CHECK-NOT: pgpu.reduce
// CHECK: %[[LO:.*]] = pgpu.binary max %{{.*}} : !pgpu.fragment<index, [BS]>
// CHECK: pgpu.binary min %{{.*}} : !pgpu.fragment<index, [BS]>
// CHECK: %[[ANY:.*]] = pgpu.cmp lt %[[LO]], %{{.*}} : !pgpu.fragment<index, [BS]>
// CHECK: pgpu.store %[[ANY]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @window_any(%y: !pgpu.view<i1, [S], out>, %b: index, %e: index)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c1 = arith.constant 1 : index
    %false = arith.constant false
    %S = pgpu.extent %y[0] : !pgpu.view<i1, [S], out>
    %bs = pgpu.param "BS" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %k8 = arith.constant 8 : index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
      %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
      %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
      %ok2 = pgpu.broadcast %ok dims [1] : !pgpu.fragment<i1, [BT]> -> !pgpu.fragment<i1, [BS, BT]>
      %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
      %s2 = pgpu.broadcast %s dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
      %le = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
      %w8 = pgpu.splat %k8 : index -> !pgpu.fragment<index, [BS]>
      %sw = pgpu.binary sub %s, %w8 : !pgpu.fragment<index, [BS]>
      %sw2 = pgpu.broadcast %sw dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
      %gt = pgpu.cmp gt %t2, %sw2 : !pgpu.fragment<index, [BS, BT]>
      %vis = pgpu.binary and %le, %gt : !pgpu.fragment<i1, [BS, BT]>
      %ff = pgpu.splat %false : i1 -> !pgpu.fragment<i1, [BS, BT]>
      %live = pgpu.select %ok2, %vis, %ff : !pgpu.fragment<i1, [BS, BT]>, !pgpu.fragment<i1, [BS, BT]>
      // expected-remark @+1 {{pgpu-any-of-ranges: an OR over 3 coordinate comparison(s)}}
      %any = pgpu.reduce %live axes [1] identity(%false : i1) : (!pgpu.fragment<i1, [BS, BT]>) -> (!pgpu.fragment<i1, [BS]>) {
      ^bb0(%l: i1, %q: i1):
        %a = pgpu.binary or %l, %q : i1
        pgpu.yield %a : i1
      }
      pgpu.store %any, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<i1, [BS]>, !pgpu.view<i1, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Rank 1, positions with an offset and the scalar written on the left (mirrored): the OR over
// COM: t in [b, b + BT) of (t + 3 >= q) is the scalar test max(0, q - (b + 3)) < BT.
// CHECK-LABEL: pgpu.kernel @scalar_any
// CHECK-NOT: pgpu.reduce
// CHECK: %[[K0:.*]] = pgpu.binary add %{{.*}}, %{{.*}} : index
// CHECK: %[[D:.*]] = pgpu.binary sub %{{.*}}, %[[K0]] : index
// CHECK: %[[LO:.*]] = pgpu.binary max %{{.*}}, %[[D]] : index
// CHECK: pgpu.cmp lt %[[LO]], %{{.*}} : index
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @scalar_any(%y: !pgpu.view<i1, [1], out>, %b: index, %q: index)
      attributes {params = [#pgpu.param<"BT", [16, 32], 16>]} {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %false = arith.constant false
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %c3 = arith.constant 3 : index
      %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
      %three = pgpu.splat %c3 : index -> !pgpu.fragment<index, [BT]>
      %k = pgpu.binary add %t, %three : !pgpu.fragment<index, [BT]>
      %qs = pgpu.splat %q : index -> !pgpu.fragment<index, [BT]>
      %c = pgpu.cmp le %qs, %k : !pgpu.fragment<index, [BT]>
      // expected-remark @+1 {{an OR over 1 coordinate comparison(s)}}
      %any = pgpu.reduce %c axes [0] identity(%false : i1) : (!pgpu.fragment<i1, [BT]>) -> (i1) {
      ^bb0(%l: i1, %r: i1):
        %a = pgpu.binary or %l, %r : i1
        pgpu.yield %a : i1
      }
      %true = arith.constant true
      pgpu.store %any, %y[%c0] valid %true : i1 : i1, !pgpu.view<i1, [1], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: one conjunct is a loaded flag, another compares with a value that varies along
// COM: the reduced axis.
// CHECK-LABEL: pgpu.kernel @not_ranges
// CHECK: pgpu.reduce
// CHECK: pgpu.reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @not_ranges(%f: !pgpu.view<i1, [T], in>, %u: !pgpu.view<index, [S, T], in>, %y: !pgpu.view<i1, [S], out>, %w: !pgpu.view<i1, [S], out>, %b: index)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %false = arith.constant false
    %c0 = arith.constant 0 : index
    %S = pgpu.extent %y[0] : !pgpu.view<i1, [S], out>
    %bs = pgpu.param "BS" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %true = arith.constant true
      %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
      %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BS, BT]>
      %s2 = pgpu.broadcast %s dims [0] : !pgpu.fragment<index, [BS]> -> !pgpu.fragment<index, [BS, BT]>
      %le = pgpu.cmp le %t2, %s2 : !pgpu.fragment<index, [BS, BT]>
      %fl = pgpu.load %f[%t] valid %true : i1 fill %false : i1 : !pgpu.view<i1, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<i1, [BT]>
      %fl2 = pgpu.broadcast %fl dims [1] : !pgpu.fragment<i1, [BT]> -> !pgpu.fragment<i1, [BS, BT]>
      %both = pgpu.binary and %le, %fl2 : !pgpu.fragment<i1, [BS, BT]>
      // expected-remark @+1 {{the reduction stays: a conjunct is not a comparison}}
      %any = pgpu.reduce %both axes [1] identity(%false : i1) : (!pgpu.fragment<i1, [BS, BT]>) -> (!pgpu.fragment<i1, [BS]>) {
      ^bb0(%l: i1, %q: i1):
        %a = pgpu.binary or %l, %q : i1
        pgpu.yield %a : i1
      }
      %uv = pgpu.load %u[%s2, %t2] valid %true : i1 fill %c0 : index : !pgpu.view<index, [S, T], in>[!pgpu.fragment<index, [BS, BT]>, !pgpu.fragment<index, [BS, BT]>] -> !pgpu.fragment<index, [BS, BT]>
      %lu = pgpu.cmp lt %t2, %uv : !pgpu.fragment<index, [BS, BT]>
      // expected-remark @+1 {{the reduction stays: a comparison is not between the reduced positions and a value constant along them}}
      %anyu = pgpu.reduce %lu axes [1] identity(%false : i1) : (!pgpu.fragment<i1, [BS, BT]>) -> (!pgpu.fragment<i1, [BS]>) {
      ^bb0(%l: i1, %q: i1):
        %a = pgpu.binary or %l, %q : i1
        pgpu.yield %a : i1
      }
      pgpu.store %any, %y[%s] valid %true : i1 : !pgpu.fragment<i1, [BS]>, !pgpu.view<i1, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.store %anyu, %w[%s] valid %true : i1 : !pgpu.fragment<i1, [BS]>, !pgpu.view<i1, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}
