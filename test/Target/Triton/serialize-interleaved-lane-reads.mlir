// Issue 41: reads of a row's even and odd columns over a loop's lanes j = iv + [0, P) (corpus 80_b's
// x[rows, 2 * j] and x[rows, 2 * j + 1] beside packed nibbles' bytes j) are stride-2 reads, element by
// element. The Triton serializer reads the contiguous run 2 * iv + [0, 2P) once per read, masked by the
// lanes' validity (lane t / 2: 2 * iv + t < 2 * b) and by the view's extent (the other parity's column of
// the last lane may lie past it), and splits it into even and odd columns (InterleavedLaneRead).
// RUN: tessel compile %s --emit=source --target=triton -o %t.py
// RUN: FileCheck %s --input-file=%t.py

// CHECK-LABEL: def _cols_kernel(
// COM: fires: the even columns (2 * j) and the odd ones (1 + 2 * j, either operand order). The main loop
// COM: (pgpu-narrow-predicates left it the rows' validity): rows and x's extent.
// CHECK: for [[IV:v[0-9]+]] in range(0, {{v[0-9]+}}, {{v[0-9]+}}):
// CHECK: [[A:v[0-9]+]]_run = tl.load(x + (tl.broadcast_to([[ROWS:v[0-9]+]][:, None], [8, 32])) * x_stride0 + (tl.broadcast_to(((tl.arange(0, 32) + 2 * [[IV]]))[None, :], [8, 32])) * x_stride1, mask=(tl.broadcast_to([[ROK:v[0-9]+]][:, None], [8, 32])) & (tl.broadcast_to(((tl.arange(0, 32) + 2 * [[IV]]) < _extent_K)[None, :], [8, 32])), other=tl.full([], 0.000000e+00, tl.float16))
// CHECK-NEXT: [[A]]_even, [[A]]_odd = tl.split(tl.reshape([[A]]_run, [8, 16, 2]))
// CHECK-NEXT: [[A]] = [[A]]_even
// CHECK: [[B:v[0-9]+]]_run = tl.load(x + (tl.broadcast_to([[ROWS]][:, None], [8, 32])) * x_stride0 + (tl.broadcast_to(((tl.arange(0, 32) + 2 * [[IV]]))[None, :], [8, 32])) * x_stride1, mask=
// CHECK-NEXT: [[B]]_even, [[B]]_odd = tl.split(tl.reshape([[B]]_run, [8, 16, 2]))
// CHECK-NEXT: [[B]] = [[B]]_odd
// COM: must not fire: stride 3, offset 2 (2 * j + 2 is the next lane's even column: not this run),
// COM: 2 * j on the view's outer axis.
// CHECK-NOT: _run = tl.load
// CHECK: = tl.load(x + (v{{[0-9]+}}) * x_stride0 + (v{{[0-9]+}}) * x_stride1, mask=
// CHECK: = tl.load(x + (v{{[0-9]+}}) * x_stride0 + (v{{[0-9]+}}) * x_stride1, mask=
// CHECK: = tl.load(x + (v{{[0-9]+}}) * x_stride0 + (v{{[0-9]+}}) * x_stride1, mask=
// COM: fires: the tail loop, whose lane bound j < KH is, for the run's column t, 2 * iv + t < 2 * KH.
// CHECK: for [[TV:v[0-9]+]] in range({{v[0-9]+}}, [[KH:v[0-9]+]], {{v[0-9]+}}):
// CHECK: [[C:v[0-9]+]]_run = tl.load(x + (tl.broadcast_to([[ROWS]][:, None], [8, 32])) * x_stride0 + (tl.broadcast_to(((tl.arange(0, 32) + 2 * [[TV]]))[None, :], [8, 32])) * x_stride1, mask=((tl.broadcast_to([[ROK]][:, None], [8, 32])) & (tl.broadcast_to(((tl.arange(0, 32) + 2 * [[TV]]) < 2 * ([[KH]]))[None, :], [8, 32]))) & (tl.broadcast_to(((tl.arange(0, 32) + 2 * [[TV]]) < _extent_K)[None, :], [8, 32])), other=tl.full([], 0.000000e+00, tl.float16))
// CHECK-NEXT: [[C]]_even, [[C]]_odd = tl.split(tl.reshape([[C]]_run, [8, 16, 2]))
// CHECK-NEXT: [[C]] = [[C]]_even
// CHECK: tl.store(

module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @cols(%x: !pgpu.view<f16, [M, K], in>, %y: !pgpu.view<f32, [R], out>) attributes {params = [#pgpu.param<"BLK", [16], 16>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %zf = arith.constant 0.0 : f16
      %zacc = arith.constant 0.0 : f32
      %m = pgpu.extent %x[0] : !pgpu.view<f16, [M, K], in>
      %k = pgpu.extent %x[1] : !pgpu.view<f16, [M, K], in>
      %kh = pgpu.binary div %k, %c2 : index
      %blk = pgpu.param "BLK" : index
      %rows = pgpu.iota %c0 : !pgpu.fragment<index, [8]>
      %mm = pgpu.splat %m : index -> !pgpu.fragment<index, [8]>
      %rok = pgpu.cmp lt %rows, %mm : !pgpu.fragment<index, [8]>
      %acc0 = pgpu.splat %zacc : f32 -> !pgpu.fragment<f32, [8, BLK]>
      %acc = pgpu.for %c0 to %kh step %blk iter_args(%acc0 : !pgpu.fragment<f32, [8, BLK]>) -> !pgpu.fragment<f32, [8, BLK]> {
      ^bb0(%iv: index, %a: !pgpu.fragment<f32, [8, BLK]>):
        %lanes = pgpu.iota %iv : !pgpu.fragment<index, [BLK]>
        %khs = pgpu.splat %kh : index -> !pgpu.fragment<index, [BLK]>
        %lok = pgpu.cmp lt %lanes, %khs : !pgpu.fragment<index, [BLK]>
        %one = pgpu.splat %c1 : index -> !pgpu.fragment<index, [BLK]>
        %two = pgpu.splat %c2 : index -> !pgpu.fragment<index, [BLK]>
        %three = pgpu.splat %c3 : index -> !pgpu.fragment<index, [BLK]>
        %ev = pgpu.binary mul %two, %lanes : !pgpu.fragment<index, [BLK]>
        %od = pgpu.binary add %one, %ev : !pgpu.fragment<index, [BLK]>
        %tr = pgpu.binary mul %lanes, %three : !pgpu.fragment<index, [BLK]>
        %nx = pgpu.binary add %ev, %two : !pgpu.fragment<index, [BLK]>
        %r2 = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [8, BLK]>
        %ev2 = pgpu.broadcast %ev dims [1] : !pgpu.fragment<index, [BLK]> -> !pgpu.fragment<index, [8, BLK]>
        %od2 = pgpu.broadcast %od dims [1] : !pgpu.fragment<index, [BLK]> -> !pgpu.fragment<index, [8, BLK]>
        %tr2 = pgpu.broadcast %tr dims [1] : !pgpu.fragment<index, [BLK]> -> !pgpu.fragment<index, [8, BLK]>
        %nx2 = pgpu.broadcast %nx dims [1] : !pgpu.fragment<index, [BLK]> -> !pgpu.fragment<index, [8, BLK]>
        %rok2 = pgpu.broadcast %rok dims [0] : !pgpu.fragment<i1, [8]> -> !pgpu.fragment<i1, [8, BLK]>
        %lok2 = pgpu.broadcast %lok dims [1] : !pgpu.fragment<i1, [BLK]> -> !pgpu.fragment<i1, [8, BLK]>
        %ok = pgpu.binary and %rok2, %lok2 : !pgpu.fragment<i1, [8, BLK]>
        %a0 = pgpu.gather %x[%r2, %ev2] valid %ok : !pgpu.fragment<i1, [8, BLK]> fill %zf : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<f16, [8, BLK]>
        %a1 = pgpu.gather %x[%r2, %od2] valid %ok : !pgpu.fragment<i1, [8, BLK]> fill %zf : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<f16, [8, BLK]>
        %a2 = pgpu.gather %x[%r2, %tr2] valid %ok : !pgpu.fragment<i1, [8, BLK]> fill %zf : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<f16, [8, BLK]>
        %a3 = pgpu.gather %x[%r2, %nx2] valid %ok : !pgpu.fragment<i1, [8, BLK]> fill %zf : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<f16, [8, BLK]>
        %a4 = pgpu.gather %x[%ev2, %r2] valid %ok : !pgpu.fragment<i1, [8, BLK]> fill %zf : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [8, BLK]>, !pgpu.fragment<index, [8, BLK]>] -> !pgpu.fragment<f16, [8, BLK]>
        %s01 = pgpu.binary add %a0, %a1 : !pgpu.fragment<f16, [8, BLK]>
        %s23 = pgpu.binary add %a2, %a3 : !pgpu.fragment<f16, [8, BLK]>
        %s = pgpu.binary add %s01, %s23 : !pgpu.fragment<f16, [8, BLK]>
        %s4 = pgpu.binary add %s, %a4 : !pgpu.fragment<f16, [8, BLK]>
        %e = pgpu.cast %s4 : !pgpu.fragment<f16, [8, BLK]> to !pgpu.fragment<f32, [8, BLK]>
        %sum = pgpu.binary add %a, %e : !pgpu.fragment<f32, [8, BLK]>
        pgpu.yield %sum : !pgpu.fragment<f32, [8, BLK]>
      }
      %red = pgpu.reduce %acc axes [1] identity(%zacc : f32) : (!pgpu.fragment<f32, [8, BLK]>) -> (!pgpu.fragment<f32, [8]>) {
      ^bb0(%l: f32, %r: f32):
        %t = pgpu.binary add %l, %r : f32
        pgpu.yield %t : f32
      }
      pgpu.store %red, %y[%rows] valid %rok : !pgpu.fragment<i1, [8]> : !pgpu.fragment<f32, [8]>, !pgpu.view<f32, [R], out>[!pgpu.fragment<index, [8]>]
      pgpu.yield
    }
    pgpu.return
  }
}
