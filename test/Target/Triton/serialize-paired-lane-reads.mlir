// Issue 41: a read whose last coordinate is k / 2 over a K loop's lanes (packed 4-bit pairs, corpus 80's
// wq[n, k // 2]) reads each byte at lanes 2j and 2j + 1. The Triton serializer loads the pairs once, at
// iv / 2 + [0, P / 2) (contiguous lanes, which Triton vectorizes), and repeats each by join + reshape
// (PairedLaneReads.h); a lane bound in the validity selects the fill past it.
// RUN: tessel compile %s --emit=source --target=triton -o %t.py
// RUN: FileCheck %s --input-file=%t.py
// RUN: tessel compile %s --emit=source --target=triton --param BLK=6 -o %t6.py
// RUN: FileCheck %s --check-prefix=SIX --input-file=%t6.py
// RUN: tessel compile %s --emit=source --target=triton --param BLK=3 -o %t3.py
// RUN: FileCheck %s --check-prefix=ODD --input-file=%t3.py

// CHECK-LABEL: def _pairs_kernel(
// COM: fires: the main loop's reads (pgpu-narrow-predicates left them the rows' validity alone, which both
// COM: lanes of a pair share): the pairs once, repeated, no select.
// CHECK: for [[IV:v[0-9]+]] in range(0, {{v[0-9]+}}, {{v[0-9]+}}):
// CHECK: [[A:v[0-9]+]]_pairs = tl.load(w + (tl.broadcast_to([[ROWS:v[0-9]+]][:, None], [8, 8])) * w_stride0 + (tl.broadcast_to((tl.arange(0, 8) + [[IV]] // 2)[None, :], [8, 8])) * w_stride1, mask=tl.broadcast_to([[ROK:v[0-9]+]][:, None], [8, 8]), other=tl.full([], 0, tl.int8))
// CHECK-NEXT: [[A]] = tl.reshape(tl.join([[A]]_pairs, [[A]]_pairs), [8, 16])
// CHECK: [[B:v[0-9]+]]_pairs = tl.load(
// CHECK-NEXT: [[B]] = tl.reshape(tl.join([[B]]_pairs, [[B]]_pairs), [8, 16])
// COM: must not fire: k / 3 at BLK 16 (runs of 3 lanes, which neither divide 16 nor 16 divides;
// COM: serialize-run-lane-reads.mlir has the runs that do), k / 2 on the view's outer axis (corpus 57's
// COM: wq[k // 2, n]: the join would be a layout conversion a tile), a validity that varies along the
// COM: lanes otherwise (the rows' index below k / 2).
// CHECK-NOT: _pairs = tl.load
// CHECK: = tl.load(w + (v{{[0-9]+}}) * w_stride0 + (v{{[0-9]+}}) * w_stride1, mask=
// CHECK-NOT: _pairs = tl.load
// CHECK: = tl.load(w + (v{{[0-9]+}}) * w_stride0 + (v{{[0-9]+}}) * w_stride1, mask=
// CHECK-NOT: _pairs = tl.load
// CHECK: = tl.load(w + (v{{[0-9]+}}) * w_stride0 + (v{{[0-9]+}}) * w_stride1, mask=
// COM: fires: the tail loop from a multiple of the step, whose lane bound k < K selects the fill at the odd
// COM: lane past it (the bytes are summed: every lane is used); the pairs' mask is lane 2j's bound,
// COM: iv + 2j < K spelled iv / 2 + j < K - K // 2 (a unit-stride run against a bound of known
// COM: divisibility: Triton vectorizes and pipelines the read).
// CHECK: for [[TV:v[0-9]+]] in range({{v[0-9]+}}, [[K:v[0-9]+]], {{v[0-9]+}}):
// CHECK: [[C:v[0-9]+]]_pairs = tl.load(w + (tl.broadcast_to([[ROWS]][:, None], [8, 8])) * w_stride0 + (tl.broadcast_to((tl.arange(0, 8) + [[TV]] // 2)[None, :], [8, 8])) * w_stride1, mask=(tl.broadcast_to(v{{[0-9]+}}[:, None], [8, 8])) & (tl.broadcast_to(((tl.arange(0, 8) + [[TV]] // 2) < (([[K]]) - ([[K]]) // 2))[None, :], [8, 8])), other=tl.full([], 0, tl.int8))
// CHECK-NEXT: [[C]] = tl.where(v{{[0-9]+}}, tl.reshape(tl.join([[C]]_pairs, [[C]]_pairs), [8, 16]), tl.full([], 0, tl.int8))
// CHECK: [[D:v[0-9]+]]_pairs = tl.load(
// CHECK-NEXT: [[D]] = tl.reshape(tl.join([[D]]_pairs, [[D]]_pairs), [8, 16])
// CHECK-NOT: _pairs = tl.load
// CHECK: = tl.load(w + (v{{[0-9]+}}) * w_stride0 + (v{{[0-9]+}}) * w_stride1, mask=
// CHECK-NOT: _pairs = tl.load
// CHECK: = tl.load(w + (v{{[0-9]+}}) * w_stride0 + (v{{[0-9]+}}) * w_stride1, mask=
// CHECK-NOT: _pairs = tl.load
// CHECK: = tl.load(w + (v{{[0-9]+}}) * w_stride0 + (v{{[0-9]+}}) * w_stride1, mask=
// COM: must not fire: a loop from 1 (its trips start off a multiple of the step: k / 2 pairs straddle).
// CHECK: for {{v[0-9]+}} in range(1, [[K]], {{v[0-9]+}}):
// CHECK-NOT: _pairs = tl.load
// CHECK: tl.store(

// COM: fires at any even step (3 pairs at BLK = 6).
// SIX: _pairs = tl.load(w + (tl.broadcast_to({{v[0-9]+}}[:, None], [8, 3]))
// SIX: tl.reshape(tl.join({{v[0-9]+}}_pairs, {{v[0-9]+}}_pairs), [8, 6])

// COM: must not fire: an odd step (trips start at odd k: the pairs straddle trips).
// ODD-NOT: _pairs = tl.load

module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @pairs(%w: !pgpu.view<i8, [N, KH], in>, %y: !pgpu.view<i32, [R], out>) attributes {params = [#pgpu.param<"BLK", [3, 6, 16], 16>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c8 = arith.constant 8 : index
      %z8 = arith.constant 0 : i8
      %o8 = arith.constant 1 : i8
      %zi = arith.constant 0 : i32
      %n = pgpu.extent %w[0] : !pgpu.view<i8, [N, KH], in>
      %kh = pgpu.extent %w[1] : !pgpu.view<i8, [N, KH], in>
      %k = pgpu.binary mul %kh, %c2 : index
      %blk = pgpu.param "BLK" : index
      %rows = pgpu.iota %c0 : !pgpu.fragment<index, [8]>
      %nn = pgpu.splat %n : index -> !pgpu.fragment<index, [8]>
      %rok = pgpu.cmp lt %rows, %nn : !pgpu.fragment<index, [8]>
      %acc0 = pgpu.splat %zi : i32 -> !pgpu.fragment<i32, [8, BLK]>
      %acc = pgpu.for %c0 to %k step %blk iter_args(%acc0 : !pgpu.fragment<i32, [8, BLK]>) -> !pgpu.fragment<i32, [8, BLK]> {
      ^bb0(%iv: index, %a: !pgpu.fragment<i32, [8, BLK]>):
        %lanes = pgpu.iota %iv : !pgpu.fragment<index, [BLK]>
        %kk = pgpu.splat %k : index -> !pgpu.fragment<index, [BLK]>
        %lok = pgpu.cmp lt %lanes, %kk : !pgpu.fragment<index, [BLK]>
        %two = pgpu.splat %c2 : index -> !pgpu.fragment<index, [BLK]>
        %three = pgpu.splat %c3 : index -> !pgpu.fragment<index, [BLK]>
        %half = pgpu.binary div %lanes, %two : !pgpu.fragment<index, [BLK]>
        %third = pgpu.binary div %lanes, %three : !pgpu.fragment<index, [BLK]>
        %r2 = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [8, BLK]>
        %h2 = pgpu.broadcast %half dims [1] : !pgpu.fragment<index, [BLK]> -> !pgpu.fragment<index, [8, BLK]>
        %q2 = pgpu.broadcast %third dims [1] : !pgpu.fragment<index, [BLK]> -> !pgpu.fragment<index, [8, BLK]>
        %rok2 = pgpu.broadcast %rok dims [0] : !pgpu.fragment<i1, [8]> -> !pgpu.fragment<i1, [8, BLK]>
        %lok2 = pgpu.broadcast %lok dims [1] : !pgpu.fragment<i1, [BLK]> -> !pgpu.fragment<i1, [8, BLK]>
        %ok = pgpu.binary and %rok2, %lok2 : !pgpu.fragment<i1, [8, BLK]>
        %b0 = pgpu.gather %w[%r2, %h2] valid %ok : !pgpu.fragment<i1, [8, BLK]> fill %z8 : i8 : !pgpu.view<i8, [N, KH], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<i8, [8, BLK]>
        // COM: %b1's own fill keeps it a read of its own once the main loop's lane bound is true (else
        // COM: pgpu-reuse-input-reads takes %b0 for it there: the same rows' validity and fill).
        %b1 = pgpu.gather %w[%r2, %h2] valid %rok2 : !pgpu.fragment<i1, [8, BLK]> fill %o8 : i8 : !pgpu.view<i8, [N, KH], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<i8, [8, BLK]>
        %b2 = pgpu.gather %w[%r2, %q2] valid %ok : !pgpu.fragment<i1, [8, BLK]> fill %z8 : i8 : !pgpu.view<i8, [N, KH], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<i8, [8, BLK]>
        %b3 = pgpu.gather %w[%h2, %r2] valid %ok : !pgpu.fragment<i1, [8, BLK]> fill %z8 : i8 : !pgpu.view<i8, [N, KH], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<i8, [8, BLK]>
        %rb = pgpu.cmp lt %r2, %h2 : !pgpu.fragment<index, [8, BLK]>
        %b4 = pgpu.gather %w[%r2, %h2] valid %rb : !pgpu.fragment<i1, [8, BLK]> fill %z8 : i8 : !pgpu.view<i8, [N, KH], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<i8, [8, BLK]>
        %s01 = pgpu.binary add %b0, %b1 : !pgpu.fragment<i8, [8, BLK]>
        %s23 = pgpu.binary add %b2, %b3 : !pgpu.fragment<i8, [8, BLK]>
        %s = pgpu.binary add %s01, %s23 : !pgpu.fragment<i8, [8, BLK]>
        %s4 = pgpu.binary add %s, %b4 : !pgpu.fragment<i8, [8, BLK]>
        %e = pgpu.cast %s4 : !pgpu.fragment<i8, [8, BLK]> to !pgpu.fragment<i32, [8, BLK]>
        %sum = pgpu.binary add %a, %e : !pgpu.fragment<i32, [8, BLK]>
        pgpu.yield %sum : !pgpu.fragment<i32, [8, BLK]>
      }
      %one = pgpu.for %c1 to %k step %blk iter_args(%acc : !pgpu.fragment<i32, [8, BLK]>) -> !pgpu.fragment<i32, [8, BLK]> {
      ^bb0(%iv: index, %a: !pgpu.fragment<i32, [8, BLK]>):
        %lanes = pgpu.iota %iv : !pgpu.fragment<index, [BLK]>
        %two = pgpu.splat %c2 : index -> !pgpu.fragment<index, [BLK]>
        %half = pgpu.binary div %lanes, %two : !pgpu.fragment<index, [BLK]>
        %r2 = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [8, BLK]>
        %h2 = pgpu.broadcast %half dims [1] : !pgpu.fragment<index, [BLK]> -> !pgpu.fragment<index, [8, BLK]>
        %rok2 = pgpu.broadcast %rok dims [0] : !pgpu.fragment<i1, [8]> -> !pgpu.fragment<i1, [8, BLK]>
        %b = pgpu.gather %w[%r2, %h2] valid %rok2 : !pgpu.fragment<i1, [8, BLK]> fill %z8 : i8 : !pgpu.view<i8, [N, KH], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<i8, [8, BLK]>
        %e = pgpu.cast %b : !pgpu.fragment<i8, [8, BLK]> to !pgpu.fragment<i32, [8, BLK]>
        %sum = pgpu.binary add %a, %e : !pgpu.fragment<i32, [8, BLK]>
        pgpu.yield %sum : !pgpu.fragment<i32, [8, BLK]>
      }
      %red = pgpu.reduce %one axes [1] identity(%zi : i32) : (!pgpu.fragment<i32, [8, BLK]>) -> (!pgpu.fragment<i32, [8]>) {
      ^bb0(%l: i32, %r: i32):
        %t = pgpu.binary add %l, %r : i32
        pgpu.yield %t : i32
      }
      pgpu.store %red, %y[%rows] valid %rok : !pgpu.fragment<i1, [8]> : !pgpu.fragment<i32, [8]>, !pgpu.view<i32, [R], out>[!pgpu.fragment<index, [8]>]
      pgpu.yield
    }
    pgpu.return
  }
}
