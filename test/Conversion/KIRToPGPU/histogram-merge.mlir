// RUN: tessel-opt %s -split-input-file -kir-to-pgpu | FileCheck %s

// COM: A stored histogram (seed 000 §8) is constructed over its source, not its bins: each element
// COM: adds one to its bin of a zero-filled invocation-workspace partial (a scatter_reduce whose
// COM: collisions combine), values outside [0, B) masked out; the last program instance to arrive
// COM: copies the partial into h. The program space keeps one instance when N = 0 (that instance
// COM: only finalizes: the group is guarded by pid < N).
// CHECK-LABEL: pgpu.kernel @histogram(%x: !pgpu.view<i32, [N], in>, %h: !pgpu.view<i32, [B], out>,
// CHECK-SAME: %[[PART:.*]]: !pgpu.buffer<i32, [B], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"},
// CHECK-SAME: %[[TICKET:.*]]: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"})
// CHECK: %[[TOTAL:.*]] = pgpu.binary max %{{.*}}, %c1{{.*}} : index
// CHECK: pgpu.program_space(%[[TOTAL]]) {
// CHECK-NEXT: ^bb0(%[[PID:.*]]: index):
// CHECK: %[[IN:.*]] = pgpu.cmp lt %[[PID]], %{{.*}} : index
// CHECK: pgpu.if %[[IN]] {
// CHECK: pgpu.execution_group
// CHECK: %[[V:.*]] = pgpu.load %x[
// CHECK: %[[BIN:.*]] = pgpu.cast %[[V]] : i32 to index
// CHECK: pgpu.scatter_reduce %{{.*}}, %[[PART]][%[[BIN]]] valid %{{.*}} : i1 : i32, !pgpu.buffer<i32, [B], workspace>[index] {
// CHECK: pgpu.binary add
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.last_program %[[TICKET]] : !pgpu.buffer<i32, [1], workspace> {
// CHECK: pgpu.foreach
// CHECK: %[[COUNT:.*]] = pgpu.buffer_load %[[PART]][
// CHECK: pgpu.store %[[COUNT]], %h[
module {
  kir.kernel @histogram(%x: !kir.view<i32, [N], in>, %h: !kir.view<i32, [B], out>) {
    %c0 = arith.constant 0 : index
    %n = kir.extent "N"
    %nb = kir.extent "B"
    %dn = kir.domain %c0 to %n
    %db = kir.domain %c0 to %nb
    %vals = kir.load %x[%dn] : !kir.view<i32, [N], in>[!kir.domain] -> tensor<?xi32>
    %counts = kir.histogram %vals bins(%db) : tensor<?xi32> -> tensor<?xi32>
    kir.store %counts, %h[%db] : tensor<?xi32>, !kir.view<i32, [B], out>[!kir.domain]
    kir.return
  }
}

// -----

// COM: Must not fire: the counts flow through more math before the store, so the store is not the
// COM: histogram's: each bin is realized per element (a range_reduce over the source), no workspace.
// CHECK-LABEL: pgpu.kernel @shifted(%x: !pgpu.view<i32, [N], in>, %h: !pgpu.view<i32, [B], out>)
// CHECK-NOT: workspace
// CHECK-NOT: pgpu.last_program
// CHECK: pgpu.range_reduce
// CHECK-NOT: pgpu.scatter_reduce
// CHECK-NOT: pgpu.last_program
module {
  kir.kernel @shifted(%x: !kir.view<i32, [N], in>, %h: !kir.view<i32, [B], out>) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %n = kir.extent "N"
    %nb = kir.extent "B"
    %dn = kir.domain %c0 to %n
    %db = kir.domain %c0 to %nb
    %vals = kir.load %x[%dn] : !kir.view<i32, [N], in>[!kir.domain] -> tensor<?xi32>
    %counts = kir.histogram %vals bins(%db) : tensor<?xi32> -> tensor<?xi32>
    %ones = kir.broadcast %one over(%db) dims [] : i32 -> tensor<?xi32>
    %more = kir.binary add %counts, %ones : tensor<?xi32>
    kir.store %more, %h[%db] : tensor<?xi32>, !kir.view<i32, [B], out>[!kir.domain]
    kir.return
  }
}
