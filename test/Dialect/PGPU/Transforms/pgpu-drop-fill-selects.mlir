// RUN: tessel-opt %s -split-input-file -pgpu-drop-fill-selects | FileCheck %s --enable-var-scope

// COM: A packed nearest-centroid row (corpus 171's staged path): a centroid's [BLOCK] row and the rows'
// COM: [ROWS, BLOCK] tile, both read with fill 0 where the column mask %m is false (the tile's validity a
// COM: conjunction holding the same broadcast of %m). There (0 - 0) * (0 - 0) = 0, the select's false
// COM: value: the select goes and the reduction sums the products.
// CHECK-LABEL: pgpu.kernel @squared_distances
// CHECK: %[[D:.*]] = pgpu.binary sub
// CHECK: %[[P:.*]] = pgpu.binary mul %[[D]], %[[D]]
// CHECK-NOT: pgpu.select
// CHECK: pgpu.reduce %[[P]] axes [1]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @squared_distances(%x: !pgpu.view<f32, [N, D], in>, %c: !pgpu.view<f32, [16, D], in>,
                                 %y: !pgpu.view<f32, [N], out>)
      attributes {params = [#pgpu.param<"BLOCK", [32], 32, covers = "D">, #pgpu.param<"ROWS", [4], 4>]} {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, D], in>
    %D = pgpu.extent %x[1] : !pgpu.view<f32, [N, D], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      %rows = pgpu.iota %p : !pgpu.fragment<index, [ROWS]>
      %ns = pgpu.splat %N : index -> !pgpu.fragment<index, [ROWS]>
      %r = pgpu.cmp lt %rows, %ns : !pgpu.fragment<index, [ROWS]>
      %cols = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
      %ds = pgpu.splat %D : index -> !pgpu.fragment<index, [BLOCK]>
      %m = pgpu.cmp lt %cols, %ds : !pgpu.fragment<index, [BLOCK]>
      %rr = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [ROWS]> -> !pgpu.fragment<index, [ROWS, BLOCK]>
      %cc = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK]> -> !pgpu.fragment<index, [ROWS, BLOCK]>
      %m2 = pgpu.broadcast %m dims [1] : !pgpu.fragment<i1, [BLOCK]> -> !pgpu.fragment<i1, [ROWS, BLOCK]>
      %r2 = pgpu.broadcast %r dims [0] : !pgpu.fragment<i1, [ROWS]> -> !pgpu.fragment<i1, [ROWS, BLOCK]>
      %v = pgpu.binary and %m2, %r2 : !pgpu.fragment<i1, [ROWS, BLOCK]>
      %xt = pgpu.load %x[%rr, %cc] valid %v : !pgpu.fragment<i1, [ROWS, BLOCK]> fill %z : f32 : !pgpu.view<f32, [N, D], in>[!pgpu.fragment<index, [ROWS, BLOCK]>, !pgpu.fragment<index, [ROWS, BLOCK]>] -> !pgpu.fragment<f32, [ROWS, BLOCK]>
      %cr = pgpu.load %c[%c0, %cols] valid %m : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [16, D], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
      %c2 = pgpu.broadcast %cr dims [1] : !pgpu.fragment<f32, [BLOCK]> -> !pgpu.fragment<f32, [ROWS, BLOCK]>
      %d = pgpu.binary sub %c2, %xt : !pgpu.fragment<f32, [ROWS, BLOCK]>
      %sq = pgpu.binary mul %d, %d : !pgpu.fragment<f32, [ROWS, BLOCK]>
      %zs = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [ROWS, BLOCK]>
      %s = pgpu.select %m2, %sq, %zs : !pgpu.fragment<i1, [ROWS, BLOCK]>, !pgpu.fragment<f32, [ROWS, BLOCK]>
      %sum = pgpu.reduce %s axes [1] identity(%z : f32) : (!pgpu.fragment<f32, [ROWS, BLOCK]>) -> (!pgpu.fragment<f32, [ROWS]>) {
      ^bb0(%a: f32, %b: f32):
        %t = pgpu.binary add %a, %b : f32
        pgpu.yield %t : f32
      }
      pgpu.store %sum, %y[%rows] valid %r : !pgpu.fragment<i1, [ROWS]> : !pgpu.fragment<f32, [ROWS]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [ROWS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a max fold's -inf beside the read's 0 fill (the masked lanes differ), a read whose
// COM: validity does not imply the mask (%t, not %m), and a product with a kernel scalar (no constant).
// CHECK-LABEL: pgpu.kernel @kept
// CHECK: pgpu.select %[[M:.*]], %{{.*}}, %{{.*}}
// CHECK: pgpu.select %[[M]], %{{.*}}, %{{.*}}
// CHECK: pgpu.select %[[M]], %{{.*}}, %{{.*}}
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @kept(%x: !pgpu.view<f32, [N, D], in>, %y: !pgpu.view<f32, [N], out>, %s: f32)
      attributes {params = [#pgpu.param<"BLOCK", [32], 32, covers = "D">]} {
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, D], in>
    %D = pgpu.extent %x[1] : !pgpu.view<f32, [N, D], in>
    pgpu.program_space(%N) {
    ^bb0(%n: index):
      %cols = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
      %ds = pgpu.splat %D : index -> !pgpu.fragment<index, [BLOCK]>
      %m = pgpu.cmp lt %cols, %ds : !pgpu.fragment<index, [BLOCK]>
      %c7 = arith.constant 7 : index
      %sevens = pgpu.splat %c7 : index -> !pgpu.fragment<index, [BLOCK]>
      %t = pgpu.cmp lt %cols, %sevens : !pgpu.fragment<index, [BLOCK]>
      %xr = pgpu.load %x[%n, %cols] valid %m : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N, D], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
      %ni = pgpu.splat %ninf : f32 -> !pgpu.fragment<f32, [BLOCK]>
      %a = pgpu.select %m, %xr, %ni : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
      %xt = pgpu.load %x[%n, %cols] valid %t : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N, D], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
      %zs = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK]>
      %b = pgpu.select %m, %xt, %zs : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
      %ss = pgpu.splat %s : f32 -> !pgpu.fragment<f32, [BLOCK]>
      %e = pgpu.binary add %xr, %ss : !pgpu.fragment<f32, [BLOCK]>
      %c = pgpu.select %m, %e, %zs : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
      %ab = pgpu.binary add %a, %b : !pgpu.fragment<f32, [BLOCK]>
      %abc = pgpu.binary add %ab, %c : !pgpu.fragment<f32, [BLOCK]>
      %sum = pgpu.reduce %abc axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
      ^bb0(%p: f32, %q: f32):
        %r = pgpu.binary add %p, %q : f32
        pgpu.yield %r : f32
      }
      %true = arith.constant true
      pgpu.store %sum, %y[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
