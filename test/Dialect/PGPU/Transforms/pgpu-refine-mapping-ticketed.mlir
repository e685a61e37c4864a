// RUN: tessel-opt %s --tessel-pipeline=stop-after=refine-mapping | FileCheck %s

// COM: A ticketed chain of two segments (a zero fill, then a scatter-add whose instances wait for every
// COM: instance before their segment: kir-to-pgpu's index_add_ into zeros). pgpu-refine-mapping
// COM: matches the chain although its last guard has no else (the instance past every segment only
// COM: arrives) and a wait precedes the scatter's group: each segment takes BLOCK_P members a
// COM: program, the wait stays before its group, the total keeps one instance for the finalization.
// COM: Before this, such a chain kept one element per program.
// CHECK: #pgpu.param<"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>
// CHECK: %[[BP:.*]] = pgpu.param "BLOCK_P" : index
// CHECK: %[[FILL:.*]] = pgpu.ceil_div %{{.*}}, %[[BP]] : index
// CHECK: %[[BP2:.*]] = pgpu.param "BLOCK_P" : index
// CHECK: %[[ADDS:.*]] = pgpu.ceil_div %{{.*}}, %[[BP2]] : index
// CHECK: %[[SUM:.*]] = pgpu.binary add %[[FILL]], %[[ADDS]] : index
// CHECK: %[[TOTAL:.*]] = pgpu.binary max %[[SUM]], %{{.*}} : index
// CHECK: pgpu.program_space(%[[TOTAL]])
// CHECK: pgpu.cmp lt %{{.*}}, %[[FILL]] : index
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0
// CHECK: pgpu.foreach
// CHECK: pgpu.store
// CHECK: } else {
// CHECK: pgpu.if
// CHECK: pgpu.while
// CHECK: pgpu.atomic_load {{.*}} order acquire
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 1
// CHECK: pgpu.foreach
// CHECK: pgpu.scatter_reduce
// CHECK: pgpu.last_program
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @sorted_segment_sum(%x: !kir.view<f32, [N, D], in>, %ids: !kir.view<i32, [N], in> {kir.range = [0, "S"]}, %out: !kir.view<f32, [S, D], inout>) {
    %0 = kir.extent "N"
    %1 = kir.extent "D"
    %2 = kir.extent "S"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %0
    %4 = kir.domain %c0 to %1
    %5 = kir.domain %c0 to %2
    %cst = arith.constant 0.000000e+00 : f32
    %6 = kir.broadcast %cst over(%5, %4) dims [] : f32 -> tensor<?x?xf32>
    kir.store %6, %out[%5, %4] : tensor<?x?xf32>, !kir.view<f32, [S, D], inout>[!kir.domain, !kir.domain]
    %7 = kir.index_relation %ids[%3] : !kir.view<i32, [N], in> -> tensor<?xindex>
    %8 = kir.load %x[%3, %4] : !kir.view<f32, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    kir.scatter_reduce %8, %out[%7, %4] : tensor<?x?xf32>, !kir.view<f32, [S, D], inout>[tensor<?xindex>, !kir.domain] {
    ^bb0(%arg0: f32, %arg1: f32):
      %9 = kir.binary add %arg0, %arg1 : f32
      kir.yield %9 : f32
    }
    kir.return
  }
}

