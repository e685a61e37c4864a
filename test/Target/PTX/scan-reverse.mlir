// RUN: tessel compile %s --target=ptx --emit=device | FileCheck %s

// COM: A reverse exclusive scan (the suite spells its reverse kernel over reversed coordinates,
// COM: so only a hand-written program reaches this path): lanes exchange downwards, the first
// COM: element in scan order (lane 31) takes the identity, warps fold from the last one.
// CHECK-LABEL: gpu.func @rscan(
// CHECK-NOT: gpu.shuffle {{ *}}up
// CHECK: gpu.shuffle {{ *}}down
// CHECK: arith.cmpi eq, %{{.*}}, %c31 : index
// CHECK: gpu.barrier
// CHECK-NOT: gpu.shuffle {{ *}}up
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rscan(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
      %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
      %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
      %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
      %s = pgpu.scan %v axis 0 identity(%z : f32) exclusive reverse : (!pgpu.fragment<f32, [BLOCK]>) -> (!pgpu.fragment<f32, [BLOCK]>) {
      ^bb0(%a: f32, %b: f32):
        %c = pgpu.binary add %a, %b : f32
        pgpu.yield %c : f32
      }
      pgpu.store %s, %y[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
      pgpu.yield
    }
    pgpu.return
  }
}
