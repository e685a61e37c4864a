// Tensor descriptors are keyed by their view and box spelling (ValueSpelling.cpp descriptorAccess): two
// boxes of one rank-3 view X[A, B, C] with the same block sizes that walk different axes, a [1, 16, 16]
// box (a fixed first coordinate: a splat of the program index) and a [16, 1, 16] box (a fixed middle
// coordinate), get two descriptors of their own block shapes, each load reading through its own.
// Must not share: a single descriptor keyed by (view, 16, 16) would read one of them with the wrong box.
// RUN: tessel compile %s --target=triton --emit=source --param=TMA=1 | FileCheck %s

// CHECK-DAG: # [[D0:_desc[0-9]+]]: x's [1, 16, 16] boxes of shape [_extent_A, _extent_B, _extent_C], strides [x_stride0, x_stride1, x_stride2] (made on the host)
// CHECK-DAG: # [[D1:_desc[0-9]+]]: x's [16, 1, 16] boxes of shape [_extent_A, _extent_B, _extent_C], strides [x_stride0, x_stride1, x_stride2] (made on the host)
// CHECK: tl.reshape([[D0]].load([{{v[0-9]+}}, 0, 0]), [16, 16])
// CHECK: tl.reshape([[D1]].load([0, {{v[0-9]+}}, 0]), [16, 16])
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @box_keys(%x: !pgpu.view<f32, [A, B, C], in>, %y: !pgpu.view<f32, [P, 16, 16], out>)
      attributes {params = [#pgpu.param<"R", [16], 16>]} {
    %P = pgpu.extent %y[0] : !pgpu.view<f32, [P, 16, 16], out>
    pgpu.program_space (%P) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %true = arith.constant true
      %zero = arith.constant 0.0 : f32
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [R]>
      %rows = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [R]> -> !pgpu.fragment<index, [R, R]>
      %cols = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [R]> -> !pgpu.fragment<index, [R, R]>
      %fixed = pgpu.splat %p : index -> !pgpu.fragment<index, [R, R]>
      %u = pgpu.load %x[%fixed, %rows, %cols] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [A, B, C], in>[!pgpu.fragment<index, [R, R]>, !pgpu.fragment<index, [R, R]>, !pgpu.fragment<index, [R, R]>] -> !pgpu.fragment<f32, [R, R]>
      %w = pgpu.load %x[%rows, %p, %cols] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [A, B, C], in>[!pgpu.fragment<index, [R, R]>, index, !pgpu.fragment<index, [R, R]>] -> !pgpu.fragment<f32, [R, R]>
      %s = pgpu.binary add %u, %w : !pgpu.fragment<f32, [R, R]>
      pgpu.store %s, %y[%p, %rows, %cols] valid %true : i1 : !pgpu.fragment<f32, [R, R]>, !pgpu.view<f32, [P, 16, 16], out>[index, !pgpu.fragment<index, [R, R]>, !pgpu.fragment<index, [R, R]>]
      pgpu.yield
    }
    pgpu.return
  }
}
