// Issue 41 (corpus 80): a paired read whose lane bound leaves the odd lane past it holding its byte needs
// no select of the fill there when every use discards the lanes past that bound (pgpu::lanesDiscardedOff,
// LoopTrips.h): here the bytes, widened, are selected against the same bound before they are summed.
// RUN: tessel compile %s --emit=source --target=triton -o %t.py
// RUN: FileCheck %s --input-file=%t.py

// CHECK-LABEL: def _discarded_kernel(
// COM: fires: the tail loop (its lane bound k < K kept): the pairs of w[n, k / 2] once, repeated, no select;
// COM: the bytes' only use is the select against the lane bound.
// CHECK: for [[TV:v[0-9]+]] in range({{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}):
// CHECK: [[A:v[0-9]+]]_pairs = tl.load(w + (tl.broadcast_to({{v[0-9]+}}[:, None], [8, 8])) * w_stride0 + (tl.broadcast_to((tl.arange(0, 8) + [[TV]] // 2)[None, :], [8, 8])) * w_stride1
// CHECK-NEXT: [[A]] = tl.reshape(tl.join([[A]]_pairs, [[A]]_pairs), [8, 16])
// COM: must not fire: the same read whose widened bytes are selected against the whole validity (rows and
// COM: lanes), another mask (a second view, so the two reads stay apart): the select of the fill at the odd lane past K stays.
// CHECK: [[B:v[0-9]+]]_pairs = tl.load(v + (tl.broadcast_to({{v[0-9]+}}[:, None], [8, 8])) * v_stride0 + (tl.broadcast_to((tl.arange(0, 8) + [[TV]] // 2)[None, :], [8, 8])) * v_stride1
// CHECK-NEXT: [[B]] = tl.where(v{{[0-9]+}}, tl.reshape(tl.join([[B]]_pairs, [[B]]_pairs), [8, 16]), tl.full([], 0, tl.int8))

module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @discarded(%w: !pgpu.view<i8, [N, KH], in>, %v: !pgpu.view<i8, [N, KH], in>, %y: !pgpu.view<i32, [R], out>) attributes {params = [#pgpu.param<"BLK", [16], 16>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %zi = arith.constant 0 : i32
      %n = pgpu.extent %w[0] : !pgpu.view<i8, [N, KH], in>
      %kh = pgpu.extent %w[1] : !pgpu.view<i8, [N, KH], in>
      %k0 = pgpu.binary mul %kh, %c2 : index
      %k = pgpu.binary sub %k0, %c1 : index
      %blk = pgpu.param "BLK" : index
      %rows = pgpu.iota %c0 : !pgpu.fragment<index, [8]>
      %nn = pgpu.splat %n : index -> !pgpu.fragment<index, [8]>
      %rok = pgpu.cmp lt %rows, %nn : !pgpu.fragment<index, [8]>
      %acc0 = pgpu.splat %zi : i32 -> !pgpu.fragment<i32, [8, BLK]>
      %zero = pgpu.splat %zi : i32 -> !pgpu.fragment<i32, [8, BLK]>
      %acc = pgpu.for %c0 to %k step %blk iter_args(%acc0 : !pgpu.fragment<i32, [8, BLK]>) -> !pgpu.fragment<i32, [8, BLK]> {
      ^bb0(%iv: index, %a: !pgpu.fragment<i32, [8, BLK]>):
        %z8 = arith.constant 0 : i8
        %lanes = pgpu.iota %iv : !pgpu.fragment<index, [BLK]>
        %kk = pgpu.splat %k : index -> !pgpu.fragment<index, [BLK]>
        %lok = pgpu.cmp lt %lanes, %kk : !pgpu.fragment<index, [BLK]>
        %two = pgpu.splat %c2 : index -> !pgpu.fragment<index, [BLK]>
        %half = pgpu.binary div %lanes, %two : !pgpu.fragment<index, [BLK]>
        %r2 = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [8, BLK]>
        %h2 = pgpu.broadcast %half dims [1] : !pgpu.fragment<index, [BLK]> -> !pgpu.fragment<index, [8, BLK]>
        %rok2 = pgpu.broadcast %rok dims [0] : !pgpu.fragment<i1, [8]> -> !pgpu.fragment<i1, [8, BLK]>
        %lok2 = pgpu.broadcast %lok dims [1] : !pgpu.fragment<i1, [BLK]> -> !pgpu.fragment<i1, [8, BLK]>
        %ok = pgpu.binary and %rok2, %lok2 : !pgpu.fragment<i1, [8, BLK]>
        %b0 = pgpu.gather %w[%r2, %h2] valid %ok : !pgpu.fragment<i1, [8, BLK]> fill %z8 : i8 : !pgpu.view<i8, [N, KH], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<i8, [8, BLK]>
        %e0 = pgpu.cast %b0 : !pgpu.fragment<i8, [8, BLK]> to !pgpu.fragment<i32, [8, BLK]>
        %s0 = pgpu.select %lok2, %e0, %zero : !pgpu.fragment<i1, [8, BLK]>, !pgpu.fragment<i32, [8, BLK]>
        %b1 = pgpu.gather %v[%r2, %h2] valid %ok : !pgpu.fragment<i1, [8, BLK]> fill %z8 : i8 : !pgpu.view<i8, [N, KH], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<i8, [8, BLK]>
        %e1 = pgpu.cast %b1 : !pgpu.fragment<i8, [8, BLK]> to !pgpu.fragment<i32, [8, BLK]>
        %s1 = pgpu.select %ok, %e1, %zero : !pgpu.fragment<i1, [8, BLK]>, !pgpu.fragment<i32, [8, BLK]>
        %s = pgpu.binary add %s0, %s1 : !pgpu.fragment<i32, [8, BLK]>
        %sum = pgpu.binary add %a, %s : !pgpu.fragment<i32, [8, BLK]>
        pgpu.yield %sum : !pgpu.fragment<i32, [8, BLK]>
      }
      %red = pgpu.reduce %acc axes [1] identity(%zi : i32) : (!pgpu.fragment<i32, [8, BLK]>) -> (!pgpu.fragment<i32, [8]>) {
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
