// pgpu.histogram is spelled tl.histogram over the bound bin count, masked by its validity (seed 000
// §8: the active values lie in the bins); other count types are cast from Triton's int32 counts.
// RUN: tessel compile %tessel_src/examples/pgpu/bin_tile_histogram.mlir --emit=source --target=triton --param NB=128 | FileCheck %s
// CHECK: bin_tile_histogram_PARAMS = {'NB': ([64, 128, 256, 512, 1024], 128)
// CHECK-LABEL: def _bin_tile_histogram_kernel(
// CHECK: [[PART:v[0-9]+]] = tl.histogram([[REL:v[0-9]+]], 128, mask=[[OK:v[0-9]+]])
// CHECK: = {{v[0-9]+}} + [[PART]]
// RUN: tessel compile %s --emit=source --target=triton | FileCheck %s --check-prefix=I64
// I64: = tl.cast(tl.histogram({{v[0-9]+}}, 16, mask=tl.full([], 1, tl.int1)), tl.int64)
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @counts64(%x: !pgpu.view<i32, [N], in>, %h: !pgpu.view<i64, [B], out>)
      attributes {params = [#pgpu.param<"NB", [16], 16>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0 : i32
      %t = arith.constant true
      %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [NB]>
      %v = pgpu.load %x[%lanes] valid %t : i1 fill %z : i32 : !pgpu.view<i32, [N], in>[!pgpu.fragment<index, [NB]>] -> !pgpu.fragment<i32, [NB]>
      %c = pgpu.histogram %v valid %t : !pgpu.fragment<i32, [NB]>, i1 -> !pgpu.fragment<i64, [NB]>
      pgpu.store %c, %h[%lanes] valid %t : i1 : !pgpu.fragment<i64, [NB]>, !pgpu.view<i64, [B], out>[!pgpu.fragment<index, [NB]>]
      pgpu.yield
    }
    pgpu.return
  }
}
