// RUN: tessel compile %s --target=triton --emit=source | FileCheck %s
// RUN: tessel compile %tessel_src/examples/kir/layernorm.mlir --target=triton --emit=source | FileCheck %s --check-prefix=ROWS
// RUN: tessel compile %s --target=triton --emit=source --param=STAGES=1 | FileCheck %s --check-prefix=ONE

// COM: A reduction loop of a tile program (triton::pipelinesLoads: it carries values, loads box
// COM: tiles and contracts nothing, in a kernel whose contraction accumulates in a loop) is spelled
// COM: tl.range(..., num_stages=STAGES): Triton pipelines by default only the loads feeding a dot, so
// COM: the row norm |w_i|^2 beside x y^T waited for each [TILE_0, TILE_K] tile in turn (w, which the
// COM: product does not read, keeps its own loop: pgpu-fuse-sibling-loops joins only loops that share
// COM: a read, as |x_i|^2 would join the K loop). Both halves of
// COM: the narrowed norm loop (full blocks, then the tail) are pipelined; the K loop of the dot keeps
// COM: range (Triton pipelines it) and the persistent walk its flatten. Such a kernel takes its boxes
// COM: through pointers by default (TMA 0: with tensor descriptors corpus 113 differed from the peer on
// COM: the H100 in blocks of 8 rows, Triton 3.6; TritonLegalize.cpp, reducesBoxesBesideProducts).
// CHECK: mm_rownorm_PARAMS = {{.*}}'STAGES': ([1, 2, 3, 4, 5, 6], 4){{.*}}'TMA': ([0, 1], 0)
// CHECK: for {{v[0-9]+}} in tl.range({{.*}}, flatten=True):
// CHECK: for [[FULL:v[0-9]+]] in tl.range(0, {{v[0-9]+}}, {{v[0-9]+}}, num_stages=4):
// CHECK: tl.load(w + {{.*}})
// CHECK: for [[TAIL:v[0-9]+]] in tl.range({{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, num_stages=4):
// CHECK: for [[K:v[0-9]+]] in range(0, {{v[0-9]+}}, {{v[0-9]+}}):
// CHECK: tl.dot(

// COM: Must not fire: a binding of one stage pipelines nothing.
// ONE-NOT: num_stages=
// ONE: tl.dot(

// COM: Must not fire: layernorm's row loops load boxes but the program contracts nothing (STAGES is the
// COM: launch's pipeline for dot operands; those walks take LOOP_STAGES: pipelined-walks.mlir).
// ROWS-NOT: num_stages=
// ROWS: for {{v[0-9]+}} in range(

module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @mm_rownorm(%x: !kir.view<f32, [M, D], in>, %y: !kir.view<f32, [N, D], in>, %w: !kir.view<f32, [M, D], in>, %out: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "D"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.extent "N"
    %5 = kir.domain %2 to %4
    %6 = kir.domain %2 to %1
    %11 = arith.constant 0.0 : f32
    %17 = arith.constant 2.0 : f32
    %18 = kir.broadcast %17 over(%3, %5) dims [] : f32 -> tensor<?x?xf32>
    %7 = kir.load %x[%3, %6] : !kir.view<f32, [M, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %8 = kir.load %y[%5, %6] : !kir.view<f32, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %9 = kir.contract %7, %8 reduce([1], [1]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    %21 = kir.load %w[%3, %6] : !kir.view<f32, [M, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %10 = kir.binary mul %21, %21 : tensor<?x?xf32>
    %15 = kir.reduce %10 axes [1] identity(%11 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%12: f32, %13: f32):
      %14 = kir.binary add %12, %13 : f32
      kir.yield %14 : f32
    }
    %16 = kir.broadcast %15 over(%3, %5) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %19 = kir.binary mul %18, %9 : tensor<?x?xf32>
    %20 = kir.binary sub %16, %19 : tensor<?x?xf32>
    kir.store %20, %out[%3, %5] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
}
