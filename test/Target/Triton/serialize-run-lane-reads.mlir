// Issue 41: a read whose last coordinate is (s * k) / G over a K loop's lanes, s dividing G (a group-quantized
// weight's zero point over the byte axis j of packed nibbles, corpus 80_b's zeros[n, (2 * j) // 128]), reads
// one element for each run of c = G / s lanes. The Triton serializer loads the trip's P / c elements once,
// at iv / c + [0, P / c), and repeats each over its run (broadcast + reshape, PairedLaneReads.h); where P
// divides c, one element a trip. A lane bound in the validity: the run's first lane decides, the result
// selects the fill past it.
// RUN: tessel compile %s --emit=source --target=triton -o %t.py
// RUN: FileCheck %s --input-file=%t.py
// RUN: tessel compile %s --emit=source --target=triton --param BLK=32 -o %t32.py
// RUN: FileCheck %s --check-prefix=ONE --input-file=%t32.py
// RUN: tessel compile %s --emit=source --target=triton --param BLK=48 -o %t48.py
// RUN: FileCheck %s --check-prefix=ODD --input-file=%t48.py

// CHECK-LABEL: def _runs_kernel(
// COM: fires at BLK 128: (2 * k) / 128 takes two values a trip, each over 64 lanes. The main loop
// COM: (pgpu-narrow-predicates left it the rows' validity alone): the two once, repeated, no select.
// CHECK: for [[IV:v[0-9]+]] in range(0, {{v[0-9]+}}, {{v[0-9]+}}):
// CHECK: [[A:v[0-9]+]]_runs = tl.load(z + (tl.broadcast_to([[ROWS:v[0-9]+]][:, None], [8, 2])) * z_stride0 + (tl.broadcast_to((tl.arange(0, 2) + [[IV]] // 64)[None, :], [8, 2])) * z_stride1, mask=tl.broadcast_to([[ROK:v[0-9]+]][:, None], [8, 2]), other=tl.full([], 0, tl.int8))
// CHECK-NEXT: [[A]] = tl.reshape(tl.broadcast_to([[A]]_runs[:, :, None], [8, 2, 64]), [8, 128])
// COM: must not fire: (3 * k) / 128 (3 does not divide 128: runs of unequal length).
// CHECK-NOT: _runs = tl.load
// CHECK: = tl.load(z + (v{{[0-9]+}}) * z_stride0 + (v{{[0-9]+}}) * z_stride1, mask=
// COM: fires: the tail loop, whose lane bound k < K is, for a run's first lane, iv / 64 + j < ceil(K / 64);
// COM: the fill past it selected.
// CHECK: for [[TV:v[0-9]+]] in range({{v[0-9]+}}, [[K:v[0-9]+]], {{v[0-9]+}}):
// CHECK: [[B:v[0-9]+]]_runs = tl.load(z + (tl.broadcast_to([[ROWS]][:, None], [8, 2])) * z_stride0 + (tl.broadcast_to((tl.arange(0, 2) + [[TV]] // 64)[None, :], [8, 2])) * z_stride1, mask=(tl.broadcast_to([[ROK]][:, None], [8, 2])) & (tl.broadcast_to(((tl.arange(0, 2) + [[TV]] // 64) < ((([[K]]) + 63) // 64))[None, :], [8, 2])), other=tl.full([], 0, tl.int8))
// CHECK-NEXT: [[B]] = tl.where(v{{[0-9]+}}, tl.reshape(tl.broadcast_to([[B]]_runs[:, :, None], [8, 2, 64]), [8, 128]), tl.full([], 0, tl.int8))
// CHECK-NOT: _runs = tl.load
// CHECK: = tl.load(z + (v{{[0-9]+}}) * z_stride0 + (v{{[0-9]+}}) * z_stride1, mask=
// CHECK: tl.store(

// COM: fires at BLK 32: 32 divides the run of 64, one element a trip (iv / 64), repeated over the trip.
// ONE: _runs = tl.load(z + (tl.broadcast_to({{v[0-9]+}}[:, None], [8, 1])) * z_stride0 + (tl.broadcast_to((tl.arange(0, 1) + {{v[0-9]+}} // 64)[None, :], [8, 1])) * z_stride1, mask=tl.broadcast_to({{v[0-9]+}}[:, None], [8, 1]), other=tl.full([], 0, tl.int8))
// ONE-NEXT: tl.reshape(tl.broadcast_to({{v[0-9]+}}_runs[:, :, None], [8, 1, 32]), [8, 32])
// ONE: [[T:v[0-9]+]]_runs = tl.load(z + (tl.broadcast_to({{v[0-9]+}}[:, None], [8, 1])) * z_stride0 + (tl.broadcast_to((tl.arange(0, 1) + [[IV:v[0-9]+]] // 64)[None, :], [8, 1])) * z_stride1, mask=(tl.broadcast_to({{v[0-9]+}}[:, None], [8, 1])) & (tl.broadcast_to(((tl.arange(0, 1) + [[IV]] // 32) < ((({{v[0-9]+}}) + 31) // 32))[None, :], [8, 1])), other=tl.full([], 0, tl.int8))
// ONE-NEXT: [[T]] = tl.where(v{{[0-9]+}}, tl.reshape(tl.broadcast_to([[T]]_runs[:, :, None], [8, 1, 32]), [8, 32]), tl.full([], 0, tl.int8))

// COM: must not fire: BLK 48 (48 and the run of 64 divide neither the other: a trip crosses a run mid-way).
// ODD-NOT: _runs = tl.load

module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @runs(%z: !pgpu.view<i8, [N, G], in>, %y: !pgpu.view<i32, [R], out>) attributes {params = [#pgpu.param<"BLK", [32, 48, 128], 128>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c128 = arith.constant 128 : index
      %z8 = arith.constant 0 : i8
      %zi = arith.constant 0 : i32
      %n = pgpu.extent %z[0] : !pgpu.view<i8, [N, G], in>
      %g = pgpu.extent %z[1] : !pgpu.view<i8, [N, G], in>
      %k = pgpu.binary mul %g, %c128 : index
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
        %grp = pgpu.splat %c128 : index -> !pgpu.fragment<index, [BLK]>
        %k2 = pgpu.binary mul %two, %lanes : !pgpu.fragment<index, [BLK]>
        %k3 = pgpu.binary mul %lanes, %three : !pgpu.fragment<index, [BLK]>
        %g2 = pgpu.binary div %k2, %grp : !pgpu.fragment<index, [BLK]>
        %g3 = pgpu.binary div %k3, %grp : !pgpu.fragment<index, [BLK]>
        %r2 = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [8, BLK]>
        %gg2 = pgpu.broadcast %g2 dims [1] : !pgpu.fragment<index, [BLK]> -> !pgpu.fragment<index, [8, BLK]>
        %gg3 = pgpu.broadcast %g3 dims [1] : !pgpu.fragment<index, [BLK]> -> !pgpu.fragment<index, [8, BLK]>
        %rok2 = pgpu.broadcast %rok dims [0] : !pgpu.fragment<i1, [8]> -> !pgpu.fragment<i1, [8, BLK]>
        %lok2 = pgpu.broadcast %lok dims [1] : !pgpu.fragment<i1, [BLK]> -> !pgpu.fragment<i1, [8, BLK]>
        %ok = pgpu.binary and %rok2, %lok2 : !pgpu.fragment<i1, [8, BLK]>
        %b0 = pgpu.gather %z[%r2, %gg2] valid %ok : !pgpu.fragment<i1, [8, BLK]> fill %z8 : i8 : !pgpu.view<i8, [N, G], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<i8, [8, BLK]>
        %b1 = pgpu.gather %z[%r2, %gg3] valid %ok : !pgpu.fragment<i1, [8, BLK]> fill %z8 : i8 : !pgpu.view<i8, [N, G], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<i8, [8, BLK]>
        %s = pgpu.binary add %b0, %b1 : !pgpu.fragment<i8, [8, BLK]>
        %e = pgpu.cast %s : !pgpu.fragment<i8, [8, BLK]> to !pgpu.fragment<i32, [8, BLK]>
        %sum = pgpu.binary add %a, %e : !pgpu.fragment<i32, [8, BLK]>
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
