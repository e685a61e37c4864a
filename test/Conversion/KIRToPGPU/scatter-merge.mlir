// RUN: tessel-opt %s -split-input-file -kir-to-pgpu | FileCheck %s

// COM: A zero fill, then a scatter-add into the filled view (torch's index_add_ after zeros:
// COM: 101_sorted_segment_sum). The scatter touches what the fill wrote, so it used to run whole in
// COM: the last program, then (merged through a zeroed workspace) left an S*D copy to the last
// COM: program. The fill keeps its segment; the scatter is the last segment, so each of its instances
// COM: waits (acquire) until the ticket counts every instance before its segment, then adds into the
// COM: view itself (seed 000 §2, §4.4, §6; ScatterMerge.cpp): no workspace, an empty finalization
// COM: whose arrivals the waits count.
// CHECK-LABEL: pgpu.kernel @segment_sum(%x: !pgpu.view<f32, [N, D], in>, %ids: !pgpu.view<i32, [N], in>
// CHECK-SAME: %out: !pgpu.view<f32, [S, D], inout>,
// CHECK-SAME: %[[TICKET:.*]]: !pgpu.buffer<i32, [1], workspace>
// CHECK-NOT: !pgpu.buffer<f32
// CHECK: pgpu.program_space
// CHECK-NEXT: ^bb0(%[[PID:.*]]: index):
// CHECK: pgpu.execution_group
// CHECK: pgpu.store %{{.*}}, %out[
// CHECK: } else {
// CHECK-NEXT: %[[R:.*]] = pgpu.binary sub %[[PID]], %{{.*}} : index
// CHECK: pgpu.if
// CHECK-NEXT: %[[BEFORE:.*]] = pgpu.binary sub %[[PID]], %[[R]] : index
// CHECK-NEXT: %[[WANT:.*]] = pgpu.cast %[[BEFORE]] : index to i32
// CHECK: pgpu.while
// CHECK: %[[SEEN:.*]] = pgpu.atomic_load %[[TICKET]][%{{.*}}] {{.*}} order acquire sharing invocation
// CHECK: %[[LESS:.*]] = pgpu.cmp lt %[[SEEN]], %[[WANT]] : i32
// CHECK: pgpu.condition %[[LESS]]
// CHECK: pgpu.execution_group %[[R]]
// CHECK: %[[X:.*]] = pgpu.load %x[
// CHECK: pgpu.scatter_reduce %[[X]], %out[
// CHECK: pgpu.last_program %[[TICKET]] : !pgpu.buffer<i32, [1], workspace> {
// CHECK-NEXT: pgpu.yield
// CHECK-NEXT: }
module {
  kir.kernel @segment_sum(%x: !kir.view<f32, [N, D], in>, %ids: !kir.view<i32, [N], in> {kir.range = [0, "S"]}, %out: !kir.view<f32, [S, D], inout>) {
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

// -----

// COM: A fill of 1.0 (not the add's identity) stays a workset beside the scatter's; the last program
// COM: adds the workspace into the filled view: out = 1 + sums.
// CHECK-LABEL: pgpu.kernel @ones_then_add(
// CHECK-SAME: %[[W:[^:]*]]: !pgpu.buffer<f32, [S, D], workspace> {pgpu.init = 0.000000e+00 : f32, pgpu.kept
// CHECK: pgpu.store %{{.*}}, %out[
// CHECK: pgpu.scatter_reduce %{{.*}}, %[[W]][
// CHECK: pgpu.last_program
// CHECK: %[[SUM:.*]] = pgpu.buffer_load %[[W]][
// CHECK: pgpu.buffer_store %{{.*}}, %[[W]][
// CHECK: %[[OLD:.*]] = pgpu.load %out[
// CHECK: %[[NEW:.*]] = pgpu.binary add %[[OLD]], %[[SUM]] : f32
// CHECK: pgpu.store %[[NEW]], %out[
module {
  kir.kernel @ones_then_add(%x: !kir.view<f32, [N, D], in>, %ids: !kir.view<i32, [N], in> {kir.range = [0, "S"]}, %out: !kir.view<f32, [S, D], inout>) {
    %0 = kir.extent "N"
    %1 = kir.extent "D"
    %2 = kir.extent "S"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %0
    %4 = kir.domain %c0 to %1
    %5 = kir.domain %c0 to %2
    %cst = arith.constant 1.000000e+00 : f32
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

// -----

// COM: Must not fire: a max scatter-reduce (its merge would need the combine's identity, -inf, and
// COM: is not constructed): no workspace; it reduces into the view itself, as a segment after the
// COM: fill (PhasedSums.cpp, phaseFinalizations) whose instances wait until every earlier program
// COM: instance has arrived at the ticket. The last program only returns the ticket.
// CHECK-LABEL: pgpu.kernel @segment_max(%x: !pgpu.view<f32, [N], in>, %ids: !pgpu.view<i32, [N], in>
// CHECK-SAME: %out: !pgpu.view<f32, [S], inout>, %[[TICKET:[^:]*]]: !pgpu.buffer<i32, [1], workspace>
// CHECK-NOT: pgpu.kept
// CHECK: pgpu.execution_group %{{.*}} segment 0
// CHECK: pgpu.atomic_load %[[TICKET]]
// CHECK: pgpu.execution_group %{{.*}} segment 1
// CHECK: pgpu.scatter_reduce %{{.*}}, %out[
// CHECK: pgpu.binary max
// CHECK: pgpu.last_program %[[TICKET]]
// CHECK-NEXT: pgpu.yield
module {
  kir.kernel @segment_max(%x: !kir.view<f32, [N], in>, %ids: !kir.view<i32, [N], in> {kir.range = [0, "S"]}, %out: !kir.view<f32, [S], inout>) {
    %0 = kir.extent "N"
    %2 = kir.extent "S"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %0
    %5 = kir.domain %c0 to %2
    %cst = arith.constant 0.000000e+00 : f32
    %6 = kir.broadcast %cst over(%5) dims [] : f32 -> tensor<?xf32>
    kir.store %6, %out[%5] : tensor<?xf32>, !kir.view<f32, [S], inout>[!kir.domain]
    %7 = kir.index_relation %ids[%3] : !kir.view<i32, [N], in> -> tensor<?xindex>
    %8 = kir.load %x[%3] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    kir.scatter_reduce %8, %out[%7] : tensor<?xf32>, !kir.view<f32, [S], inout>[tensor<?xindex>] {
    ^bb0(%arg0: f32, %arg1: f32):
      %9 = kir.binary max %arg0, %arg1 : f32
      kir.yield %9 : f32
    }
    kir.return
  }
}

// -----

// COM: Must not fire: no earlier workset touches the view (30_index_add): the scatter-add runs in
// COM: parallel into the view itself, no workspace, no last program.
// CHECK-LABEL: pgpu.kernel @index_add(%x: !pgpu.view<f32, [N], in>, %ids: !pgpu.view<i32, [N], in>
// CHECK-SAME: %out: !pgpu.view<f32, [S], inout>)
// CHECK: pgpu.scatter_reduce %{{.*}}, %out[
// CHECK-NOT: pgpu.last_program
module {
  kir.kernel @index_add(%x: !kir.view<f32, [N], in>, %ids: !kir.view<i32, [N], in> {kir.range = [0, "S"]}, %out: !kir.view<f32, [S], inout>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %0
    %7 = kir.index_relation %ids[%3] : !kir.view<i32, [N], in> -> tensor<?xindex>
    %8 = kir.load %x[%3] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    kir.scatter_reduce %8, %out[%7] : tensor<?xf32>, !kir.view<f32, [S], inout>[tensor<?xindex>] {
    ^bb0(%arg0: f32, %arg1: f32):
      %9 = kir.binary add %arg0, %arg1 : f32
      kir.yield %9 : f32
    }
    kir.return
  }
}
