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

// -----

// COM: A histogram stored inside a kir.parallel at [member, bins] (a per-row histogram): each member
// COM: counts its own row alone. Its source elements add one into its row of a kept zero workspace
// COM: partial shaped like the view (values outside [0, 256) masked out), then a loop over the bins
// COM: reads the row, returns it to zero and stores it: no per-bin range_reduce over the source, no
// COM: ticket, no last program.
// CHECK-LABEL: pgpu.kernel @row_histogram(%x: !pgpu.view<i32, [B, L], in>, %h: !pgpu.view<i32, [B, 256], out>,
// CHECK-SAME: %[[PART:[^:]*]]: !pgpu.buffer<i32, [B, 256], workspace> {pgpu.init = 0 : i32, pgpu.kept, pgpu.private = "workspace"})
// CHECK-NOT: pgpu.range_reduce
// CHECK-NOT: pgpu.last_program
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}})
// CHECK-NEXT: ^bb0(%[[M:.*]]: index):
// CHECK: %[[ROW:.*]] = pgpu.binary add %{{.*}}, %{{.*}} : index
// CHECK: pgpu.foreach
// CHECK: %[[V:.*]] = pgpu.load %x[%[[ROW]], %{{.*}}]
// CHECK: %[[GE:.*]] = pgpu.cmp ge %[[V]]
// CHECK: %[[LT:.*]] = pgpu.cmp lt %[[V]]
// CHECK: %[[BIN:.*]] = pgpu.cast %[[V]] : i32 to index
// CHECK: %[[AT:.*]] = pgpu.binary add %{{.*}}, %{{.*}} : index
// CHECK: pgpu.scatter_reduce %{{.*}}, %[[PART]][%[[ROW]], %[[AT]]] valid %{{.*}} : i1 : i32, !pgpu.buffer<i32, [B, 256], workspace>[index, index] {
// CHECK: pgpu.foreach
// CHECK: %[[COUNT:.*]] = pgpu.buffer_load %[[PART]][%[[ROW]], %[[K:.*]]] valid
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: pgpu.buffer_store %[[ZERO]], %[[PART]][%[[ROW]], %[[K]]]
// CHECK: pgpu.store %[[COUNT]], %h[%[[ROW]], %[[K]]]
// CHECK-NOT: pgpu.last_program
module {
  kir.kernel @row_histogram(%x: !kir.view<i32, [B, L], in>, %h: !kir.view<i32, [B, 256], out>) {
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %nb = kir.extent "B"
    %nl = kir.extent "L"
    %dl = kir.domain %c0 to %nl
    %bins = kir.domain %c0 to %c256
    %rows = kir.domain %c0 to %nb
    kir.parallel %rows {
    ^bb0(%r: index):
      %vals = kir.load %x[%r, %dl] : !kir.view<i32, [B, L], in>[index, !kir.domain] -> tensor<?xi32>
      %counts = kir.histogram %vals bins(%bins) : tensor<?xi32> -> tensor<?xi32>
      kir.store %counts, %h[%r, %bins] : tensor<?xi32>, !kir.view<i32, [B, 256], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the bins are the first coordinate (a row's counts stored down a column), so the
// COM: store is no member's row of bins: each bin is realized per element, no workspace.
// CHECK-LABEL: pgpu.kernel @column_histogram(%x: !pgpu.view<i32, [B, L], in>, %h: !pgpu.view<i32, [256, B], out>)
// CHECK-NOT: workspace
// CHECK: pgpu.range_reduce
// CHECK-NOT: pgpu.scatter_reduce
module {
  kir.kernel @column_histogram(%x: !kir.view<i32, [B, L], in>, %h: !kir.view<i32, [256, B], out>) {
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %nb = kir.extent "B"
    %nl = kir.extent "L"
    %dl = kir.domain %c0 to %nl
    %bins = kir.domain %c0 to %c256
    %rows = kir.domain %c0 to %nb
    kir.parallel %rows {
    ^bb0(%r: index):
      %vals = kir.load %x[%r, %dl] : !kir.view<i32, [B, L], in>[index, !kir.domain] -> tensor<?xi32>
      %counts = kir.histogram %vals bins(%bins) : tensor<?xi32> -> tensor<?xi32>
      kir.store %counts, %h[%bins, %r] : tensor<?xi32>, !kir.view<i32, [256, B], out>[!kir.domain, index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A member's histogram stored at its row of a kernel-level buffer (a later statement of the
// COM: member, or a later workset, reads the counts: corpus 233's per-image histogram) is counted the
// COM: same way: one add per source element into the member's row of a kept zero partial, then a loop
// COM: over the bins copies the row into the buffer's workspace and returns it to zero. No per-bin
// COM: range_reduce over the source.
// CHECK-LABEL: pgpu.kernel @buffer_row_histogram(%x: !pgpu.view<i32, [B, L], in>, %h: !pgpu.view<i32, [B, 256], out>,
// CHECK-SAME: %[[COUNTS:[^:]*]]: !pgpu.buffer<i32, [B, 256], workspace> {pgpu.private = "workspace"},
// CHECK-SAME: %[[PART:[^:]*]]: !pgpu.buffer<i32, [B, 256], workspace> {pgpu.init = 0 : i32, pgpu.kept, pgpu.private = "workspace"})
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.execution_group
// CHECK: pgpu.scatter_reduce %{{.*}}, %[[PART]][%[[ROW:.*]], %{{.*}}] valid
// CHECK: pgpu.foreach
// CHECK: %[[COUNT:.*]] = pgpu.buffer_load %[[PART]][%[[ROW]], %[[K:.*]]] valid
// CHECK: pgpu.buffer_store %{{.*}}, %[[PART]][%[[ROW]], %[[K]]]
// CHECK: pgpu.buffer_store %[[COUNT]], %[[COUNTS]][%[[ROW]], %[[K]]]
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.buffer_load %[[COUNTS]]
// CHECK: pgpu.store %{{.*}}, %h[
module {
  kir.kernel @buffer_row_histogram(%x: !kir.view<i32, [B, L], in>, %h: !kir.view<i32, [B, 256], out>) {
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %nb = kir.extent "B"
    %nl = kir.extent "L"
    %dl = kir.domain %c0 to %nl
    %bins = kir.domain %c0 to %c256
    %rows = kir.domain %c0 to %nb
    %counts = kir.buffer over(%rows, %bins) first_write : !kir.buffer<tensor<?x?xi32>>
    kir.parallel %rows {
    ^bb0(%r: index):
      %vals = kir.load %x[%r, %dl] : !kir.view<i32, [B, L], in>[index, !kir.domain] -> tensor<?xi32>
      %hist = kir.histogram %vals bins(%bins) : tensor<?xi32> -> tensor<?xi32>
      kir.buffer_store %hist, %counts[%r, %bins] : tensor<?xi32>, !kir.buffer<tensor<?x?xi32>>[index, !kir.domain]
      %back = kir.buffer_load %counts[%r, %bins] : !kir.buffer<tensor<?x?xi32>>[index, !kir.domain] -> tensor<?xi32>
      %ones = kir.broadcast %one over(%bins) dims [] : i32 -> tensor<?xi32>
      %more = kir.binary add %back, %ones : tensor<?xi32>
      kir.store %more, %h[%r, %bins] : tensor<?xi32>, !kir.view<i32, [B, 256], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the buffer's row is stored down its bins' column (`counts[bins, r]`), no
// COM: member's row of bins: each bin is realized per element, no kept partial.
// CHECK-LABEL: pgpu.kernel @buffer_column_histogram
// CHECK-NOT: pgpu.kept
// CHECK: pgpu.range_reduce
// CHECK-NOT: pgpu.scatter_reduce
module {
  kir.kernel @buffer_column_histogram(%x: !kir.view<i32, [B, L], in>, %h: !kir.view<i32, [256, B], out>) {
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %nb = kir.extent "B"
    %nl = kir.extent "L"
    %dl = kir.domain %c0 to %nl
    %bins = kir.domain %c0 to %c256
    %rows = kir.domain %c0 to %nb
    %counts = kir.buffer over(%bins, %rows) first_write : !kir.buffer<tensor<?x?xi32>>
    kir.parallel %rows {
    ^bb0(%r: index):
      %vals = kir.load %x[%r, %dl] : !kir.view<i32, [B, L], in>[index, !kir.domain] -> tensor<?xi32>
      %hist = kir.histogram %vals bins(%bins) : tensor<?xi32> -> tensor<?xi32>
      kir.buffer_store %hist, %counts[%bins, %r] : tensor<?xi32>, !kir.buffer<tensor<?x?xi32>>[!kir.domain, index]
      %back = kir.buffer_load %counts[%bins, %r] : !kir.buffer<tensor<?x?xi32>>[!kir.domain, index] -> tensor<?xi32>
      kir.store %back, %h[%bins, %r] : tensor<?xi32>, !kir.view<i32, [256, B], out>[!kir.domain, index]
      kir.yield
    }
    kir.return
  }
}
