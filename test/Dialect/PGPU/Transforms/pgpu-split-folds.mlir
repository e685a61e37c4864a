// RUN: tessel-opt %s -split-input-file -pgpu-split-folds -verify-diagnostics | FileCheck %s

// COM: Each row n's blocked fold over T (a running sum and a row maximum of BLOCK-wide tiles): the
// COM: group gains a trailing axis of FOLD_SPLITS = max(min(FOLD_SPLIT, tiles), 1) segments; under
// COM: FOLD_SPLITS != 1 each segment folds its tiles, stores its summary at [row, segment] of
// COM: workspace sized by named LaunchExprs, and the row's last arrival combines the summaries in
// COM: segment order with the fold's combine, then stores; otherwise segment 0 runs the original.
// COM: The store before the fold (an effect outside it) runs in segment 0 only.
// COM: The segments' summaries stay whole here (a walk of the segments): the max lanes' finishing
// COM: reduction adds them, which is not their combine (max), so they cannot be reduced per segment.
// CHECK-LABEL: pgpu.kernel @rows
// CHECK-SAME: %[[TICKETS:[^:]*]]: !pgpu.buffer<i32, [FOLD_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: %[[SUM:[^:]*]]: !pgpu.buffer<f32, [FOLD_POINTS, FOLD_SPLITS], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: %[[MAX:[^:]*]]: !pgpu.buffer<f32, [FOLD_POINTS, FOLD_SPLITS, BLOCK], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: #pgpu.param<"FOLD_SPLIT", [1, 2, 4, 8, 16, 32, 64], 1>
// CHECK: %[[TILES:.*]] = pgpu.ceil_div
// CHECK: %[[PARAM:.*]] = pgpu.param "FOLD_SPLIT" : index
// CHECK: %[[MIN:.*]] = pgpu.binary min %[[PARAM]], %[[TILES]] : index
// CHECK: %[[SPLITS:.*]] = pgpu.binary max %[[MIN]], %{{.*}} : index
// CHECK: %[[ON:.*]] = pgpu.cmp ne %[[SPLITS]], %{{.*}} : index
// CHECK: %[[WS:.*]] = pgpu.select %[[ON]], %{{.*}}, %{{.*}} : i1, index
// CHECK: pgpu.workspace_extent "FOLD_POINTS" = %[[WS]]
// CHECK: pgpu.workspace_extent "FOLD_SPLITS" = %[[SPLITS]]
// CHECK: %[[GRID:.*]] = pgpu.binary mul %{{.*}}, %[[SPLITS]] : index
// CHECK: pgpu.program_space(%[[GRID]])
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %[[SPLITS]]) segment 0 roles ["axis0", "fold_split"] {
// CHECK-NEXT: ^bb0(%[[N:.*]]: index, %[[SEG:.*]]: index):
// CHECK: %[[FIRST:.*]] = pgpu.cmp eq %[[SEG]], %{{.*}} : index
// CHECK: pgpu.if %[[FIRST]] {
// CHECK-NEXT: pgpu.store %{{.*}}, %first
// CHECK: pgpu.if %[[ON]] {
// CHECK: %[[PART:.*]]:2 = pgpu.region_fold %{{.*}} to %{{.*}} step %{{.*}} identity
// CHECK: pgpu.buffer_store %[[PART]]#0, %[[SUM]][%[[N]], %[[SEG]]]
// CHECK: pgpu.buffer_store %[[PART]]#1, %[[MAX]][%[[N]], %[[SEG]], %{{.*}}]
// CHECK: pgpu.last_program %[[TICKETS]][%[[N]]] arrivals %[[SPLITS]]
// CHECK: %[[WHOLE:.*]]:2 = pgpu.region_fold %{{.*}} to %[[SPLITS]] step %{{.*}} identity
// CHECK: pgpu.buffer_load
// CHECK: pgpu.buffer_load
// CHECK: } combine {
// CHECK: pgpu.binary add
// CHECK: pgpu.binary max
// CHECK: pgpu.reduce %[[WHOLE]]#1
// CHECK: pgpu.store %[[WHOLE]]#0, %sum
// CHECK: } else {
// CHECK: pgpu.if %{{.*}} {
// CHECK: %[[ORIG:.*]]:2 = pgpu.region_fold
// CHECK: pgpu.store %[[ORIG]]#0, %sum
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @rows(%x: !pgpu.view<f32, [N, T], in>, %sum: !pgpu.view<f32, [N], out>, %first: !pgpu.view<f32, [N], out>, %maxsum: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [1, 2, 4], 2>]} {
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, T], in>
    %T = pgpu.extent %x[1] : !pgpu.view<f32, [N, T], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %v0 = pgpu.load %x[%n, %c0] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N, T], in>[index, index] -> f32
        pgpu.store %v0, %first[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        %bt = pgpu.param "BLOCK" : index
        %lanes = pgpu.splat %ninf : f32 -> !pgpu.fragment<f32, [BLOCK]>
        %s:2 = pgpu.region_fold %c0 to %T step %bt identity(%zero, %lanes : f32, !pgpu.fragment<f32, [BLOCK]>)
            operands(%x, %n : !pgpu.view<f32, [N, T], in>, index) -> (f32, !pgpu.fragment<f32, [BLOCK]>)
        summarize {
        ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N, T], in>, %row: index):
          %z = arith.constant 0.0 : f32
          %pos = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %end = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %pos, %end : !pgpu.fragment<index, [BLOCK]>
          %rows = pgpu.splat %row : index -> !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %xv[%rows, %pos] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N, T], in>[!pgpu.fragment<index, [BLOCK]>, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %t = pgpu.reduce %v axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %ni = arith.constant 0xFF800000 : f32
          %fill = pgpu.splat %ni : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %m = pgpu.select %ok, %v, %fill : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          pgpu.yield %t, %m : f32, !pgpu.fragment<f32, [BLOCK]>
        } combine {
        ^bb0(%l: f32, %lm: !pgpu.fragment<f32, [BLOCK]>, %r: f32, %rm: !pgpu.fragment<f32, [BLOCK]>):
          %a = pgpu.binary add %l, %r : f32
          %m = pgpu.binary max %lm, %rm : !pgpu.fragment<f32, [BLOCK]>
          pgpu.yield %a, %m : f32, !pgpu.fragment<f32, [BLOCK]>
        }
        %ms = pgpu.reduce %s#1 axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
        ^bb0(%a: f32, %c: f32):
          %d = pgpu.binary add %a, %c : f32
          pgpu.yield %d : f32
        }
        pgpu.store %s#0, %sum[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.store %ms, %maxsum[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the blocked fold continues the summary of an earlier (unit-segment) one: its
// COM: identity is that fold's result, not a constant, and each segment would count it again.
// CHECK-LABEL: pgpu.kernel @continued
// CHECK-NOT: FOLD_SPLIT
// CHECK-NOT: workspace_extent
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @continued(%x: !pgpu.view<f32, [N, T], in>, %sum: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [1, 2, 4], 2>]} {
    %c0 = arith.constant 0 : index
    %c5 = arith.constant 5 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, T], in>
    %T = pgpu.extent %x[1] : !pgpu.view<f32, [N, T], in>
    %mid = pgpu.binary min %c5, %T : index
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %bt = pgpu.param "BLOCK" : index
        %c1 = arith.constant 1 : index
        // expected-remark @below {{pgpu-split-folds: this fold is not split: it is not blocked (unit segments: one member per summarize)}}
        %head = pgpu.region_fold %c0 to %mid step %c1 identity(%zero : f32)
            operands(%x, %n : !pgpu.view<f32, [N, T], in>, index) -> (f32)
        summarize {
        ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N, T], in>, %row: index):
          %z = arith.constant 0.0 : f32
          %t = arith.constant true
          %v = pgpu.load %xv[%row, %b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, T], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary add %l, %r : f32
          pgpu.yield %a : f32
        }
        // expected-remark @below {{pgpu-split-folds: this fold is not split: its identity is not a constant}}
        %s = pgpu.region_fold %mid to %T step %bt identity(%head : f32)
            operands(%x, %n : !pgpu.view<f32, [N, T], in>, index) -> (f32)
        summarize {
        ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N, T], in>, %row: index):
          %z = arith.constant 0.0 : f32
          %t = arith.constant true
          %v = pgpu.load %xv[%row, %b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, T], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary add %l, %r : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %sum[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: 256 rows (a constant point count) already fill the 132 multiprocessors.
// CHECK-LABEL: pgpu.kernel @full
// CHECK-NOT: FOLD_SPLIT
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @full(%x: !pgpu.view<f32, [256, T], in>, %sum: !pgpu.view<f32, [256], out>) attributes {params = [#pgpu.param<"BLOCK", [1, 2, 4], 2>]} {
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %T = pgpu.extent %x[1] : !pgpu.view<f32, [256, T], in>
    pgpu.program_space(%c256) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%c256) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %bt = pgpu.param "BLOCK" : index
        // expected-remark @below {{pgpu-split-folds: not split: the group has 256 programs, at least the target's 132 multiprocessors: it fills the machine already}}
        %s = pgpu.region_fold %c0 to %T step %bt identity(%zero : f32)
            operands(%x, %n : !pgpu.view<f32, [256, T], in>, index) -> (f32)
        summarize {
        ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [256, T], in>, %row: index):
          %z = arith.constant 0.0 : f32
          %t = arith.constant true
          %v = pgpu.load %xv[%row, %b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [256, T], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary add %l, %r : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %sum[%n] valid %true : i1 : f32, !pgpu.view<f32, [256], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A kernel-level fold (a group without axes: one point) that is one segment of construction's
// COM: chain beside an elementwise segment: the fold's group gains the fold_split axis, its count
// COM: 1 becomes 1 * FOLD_SPLITS in the chain's bound and shift, the space's total grows by the
// COM: same (total - 1 + 1 * FOLD_SPLITS), the point is 0, and one point's split reaches 1024.
// COM: The fold's [BLOCK] summary is used only by its finishing reduction, whose combine (add) is
// COM: the summary's lane-wise combine: each segment reduces its lanes and stores one scalar at
// COM: [point, segment], and the last arrival loads the FOLD_SPLITS scalars as one [1024] fragment
// COM: (1024: FOLD_SPLIT's largest candidate, so one block; the identity past FOLD_SPLITS), reduces
// COM: it and stores: no walk of the segments one [BLOCK] summary at a time.
// CHECK-LABEL: pgpu.kernel @loss_and_grad
// CHECK-SAME: !pgpu.buffer<i32, [FOLD_POINTS], workspace>
// CHECK-SAME: %[[PARTS:[^:]*]]: !pgpu.buffer<f32, [FOLD_POINTS, FOLD_SPLITS], workspace>
// CHECK-SAME: #pgpu.param<"FOLD_SPLIT", [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], 1>
// CHECK: %[[G:.*]] = pgpu.ceil_div
// CHECK: %[[ALL:.*]] = pgpu.binary add %{{.*}}, %[[G]] : index
// CHECK: pgpu.param "FOLD_SPLIT"
// CHECK: %[[SPLITS:.*]] = pgpu.binary max %{{.*}}, %{{.*}} : index
// CHECK: pgpu.workspace_extent "FOLD_SPLITS" = %[[SPLITS]]
// CHECK: %[[GROWN:.*]] = pgpu.binary mul %{{.*}}, %[[SPLITS]] : index
// CHECK: %[[OTHERS:.*]] = pgpu.binary sub %[[ALL]], %{{.*}} : index
// CHECK: %[[TOTAL:.*]] = pgpu.binary add %[[OTHERS]], %[[GROWN]] : index
// CHECK: pgpu.program_space(%[[TOTAL]]) {
// CHECK: %[[FIRST:.*]] = pgpu.cmp lt %{{.*}}, %[[GROWN]] : index
// CHECK: pgpu.if %[[FIRST]] {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[SPLITS]]) segment 0 roles ["fold_split"] {
// CHECK-NEXT: ^bb0(%[[SEG:.*]]: index):
// CHECK: %[[P0:.*]] = arith.constant 0 : index
// CHECK: %[[PART:.*]] = pgpu.region_fold
// CHECK: %[[LANES:.*]] = pgpu.reduce %[[PART]] axes [0]
// CHECK: pgpu.buffer_store %[[LANES]], %[[PARTS]][%[[P0]], %[[SEG]]] valid
// CHECK: pgpu.last_program %{{.*}}[%[[P0]]] arrivals %[[SPLITS]]
// CHECK: %[[CAP:.*]] = arith.constant 1024 : index
// CHECK: %[[ALLPARTS:.*]] = pgpu.for %{{.*}} to %[[SPLITS]] step %[[CAP]] iter_args(%{{.*}} : f32) -> f32 {
// CHECK: %[[AT:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [1024]>
// CHECK: %[[OK:.*]] = pgpu.cmp lt %[[AT]], %{{.*}} : !pgpu.fragment<index, [1024]>
// CHECK: %[[BLOCK:.*]] = pgpu.buffer_load %[[PARTS]][%[[P0]], %[[AT]]] valid %[[OK]]
// CHECK-SAME: -> !pgpu.fragment<f32, [1024]>
// CHECK: %[[R:.*]] = pgpu.reduce %[[BLOCK]] axes [0]
// CHECK: pgpu.binary add
// CHECK: %[[NEXT:.*]] = pgpu.binary add %{{.*}}, %[[R]] : f32
// CHECK: pgpu.yield %[[NEXT]] : f32
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.store %[[ALLPARTS]], %l[
// CHECK: } else {
// CHECK: %[[R:.*]] = pgpu.binary sub %{{.*}}, %[[GROWN]] : index
// CHECK: pgpu.execution_group %[[R]] extents(%[[G]]) segment 1
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @loss_and_grad(%p: !pgpu.view<f32, [N], in>, %l: !pgpu.view<f32, [1], out>, %g: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %N = pgpu.extent %p[0] : !pgpu.view<f32, [N], in>
    %G = pgpu.ceil_div %N, %c1 : index
    %all = pgpu.binary add %c1, %G : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      %first = pgpu.cmp lt %pid, %c1 : index
      pgpu.if %first {
        pgpu.execution_group %pid extents() segment 0 roles [] {
          %bt = pgpu.param "BLOCK" : index
          %id = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %acc = pgpu.region_fold %c0 to %N step %bt identity(%id : !pgpu.fragment<f32, [BLOCK]>) operands(%p : !pgpu.view<f32, [N], in>) -> (!pgpu.fragment<f32, [BLOCK]>) summarize {
          ^bb0(%b: index, %e: index, %v: !pgpu.view<f32, [N], in>):
            %zz = arith.constant 0.0 : f32
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %v[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zz : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %x : !pgpu.fragment<f32, [BLOCK]>
          } combine {
          ^bb0(%a: !pgpu.fragment<f32, [BLOCK]>, %c: !pgpu.fragment<f32, [BLOCK]>):
            %s = pgpu.binary add %a, %c : !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %s : !pgpu.fragment<f32, [BLOCK]>
          }
          %sum = pgpu.reduce %acc axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %c: f32):
            %s = pgpu.binary add %a, %c : f32
            pgpu.yield %s : f32
          }
          pgpu.store %sum, %l[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %rest = pgpu.binary sub %pid, %c1 : index
        pgpu.execution_group %rest extents(%G) segment 1 roles ["n"] {
        ^bb0(%n: index):
          %v = pgpu.load %p[%n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.store %v, %g[%n] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Two folds in sequence in one block (source numerics' two-pass softmax: a row maximum, then the
// COM: sum of exp(x - max) that reads it): the later fold is split; the earlier one, alone before it
// COM: over the same segments, is split in a first phase. Before (s33) it ran whole in every segment's
// COM: program. After: 2 * FOLD_SPLITS programs a row where split: member m < FOLD_SPLITS folds segment m
// COM: of the maximum, stores it at [row, m] and counts itself (release); member FOLD_SPLITS + c waits
// COM: (acquire) until the count is FOLD_SPLITS, folds the stored maxima in segment order (max: the
// COM: same bits as the whole fold) and then its segment c of the sums with that complete maximum; the
// COM: sums' last arrival returns the count to 0 and adds the segments' scalar sums as [64]-lane loads.
// COM: Unsplit (FOLD_SPLITS = 1, `on` false: a launch fact the provider specializes): one program a
// COM: row, the original maximum, then a copy of the block's rest as it was (no wait, no atomics).
// CHECK-LABEL: pgpu.kernel @two_pass
// CHECK-SAME: %[[COUNT:[^:]*]]: !pgpu.buffer<i32, [FOLD_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}, %[[MAXES:[^:]*]]: !pgpu.buffer<f32, [FOLD_POINTS, FOLD_SPLITS], workspace>
// CHECK-SAME: #pgpu.param<"FOLD_SPLIT", [1, 2, 4, 8, 16, 32, 64], 1>
// CHECK: %[[ON:.*]] = pgpu.cmp ne %[[SPLITS:.*]], %{{.*}} : index
// CHECK: %[[TWICE:.*]] = pgpu.binary add %[[SPLITS]], %[[SPLITS]] : index
// CHECK: %[[MEMBERS:.*]] = pgpu.select %[[ON]], %[[TWICE]], %[[SPLITS]] : i1, index
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %[[MEMBERS]]) segment 0 roles ["axis0", "fold_split"] {
// CHECK-NEXT: ^bb0(%[[N:.*]]: index, %[[M:.*]]: index):
// CHECK-NEXT: %[[LATE:.*]] = pgpu.cmp ge %[[M]], %[[SPLITS]]
// CHECK-NEXT: %[[EARLY:.*]] = pgpu.cmp lt %[[M]], %[[SPLITS]]
// CHECK-NEXT: %[[BACK:.*]] = pgpu.binary sub %[[M]], %[[SPLITS]]
// CHECK-NEXT: %[[SEG:.*]] = pgpu.select %[[LATE]], %[[BACK]], %[[M]]
// CHECK: %[[MAX:.*]] = pgpu.if %[[ON]] -> f32 {
// CHECK-NEXT: pgpu.if %[[EARLY]] -> f32 {
// CHECK: %[[MPART:.*]] = pgpu.region_fold %{{.*}} to %{{.*}} step
// CHECK: pgpu.buffer_store %[[MPART]], %[[MAXES]][%[[N]], %[[SEG]]]
// CHECK: pgpu.atomic_rmw add %{{.*}}, %[[COUNT]][%[[N]]] {{.*}} order release sharing invocation
// CHECK: } else {
// CHECK: pgpu.while {
// CHECK-NEXT: pgpu.atomic_load %[[COUNT]][%[[N]]] {{.*}} order acquire
// CHECK: pgpu.region_fold %{{.*}} to %[[SPLITS]] step %{{.*}} identity(%{{.*}} : f32) operands(%[[MAXES]], %[[N]] :
// CHECK: pgpu.buffer_load
// CHECK: pgpu.binary max
// CHECK: } else {
// CHECK-NEXT: pgpu.region_fold %[[C0:[^ ]*]] to %[[T:[^ ]*]] step
// CHECK: pgpu.if %[[ON]] {
// CHECK-NEXT: pgpu.if %[[LATE]] {
// CHECK: %[[PART:.*]] = pgpu.region_fold %{{.*}} to %{{.*}} step %{{.*}} identity(%{{.*}} : f32)
// CHECK-SAME: operands(%{{.*}}, %[[N]], %[[MAX]] :
// CHECK: pgpu.buffer_store %[[PART]], %{{.*}}[%[[N]], %[[SEG]]]
// CHECK: pgpu.last_program
// CHECK: pgpu.atomic_store %{{.*}}, %[[COUNT]][%[[N]]]
// CHECK: %[[WHOLE:.*]] = pgpu.for %{{.*}} to %[[SPLITS]] step
// CHECK: pgpu.buffer_load %{{.*}}[%[[N]], %{{.*}}] valid
// CHECK: pgpu.store %[[WHOLE]], %sum
// CHECK: } else {
// CHECK: %[[ORIG:.*]] = pgpu.region_fold %[[C0]] to %[[T]] step %{{.*}} identity(%{{.*}} : f32)
// CHECK-SAME: operands(%{{.*}}, %[[N]], %[[MAX]] :
// CHECK: pgpu.store %[[ORIG]], %sum
// CHECK: } else {
// CHECK: %[[ONLY:.*]] = pgpu.cmp eq %[[SEG]]
// CHECK-NEXT: pgpu.if %[[ONLY]] {
// CHECK: %[[COPY:.*]] = pgpu.region_fold %[[C0]] to %[[T]] step %{{.*}} identity(%{{.*}} : f32)
// CHECK-SAME: operands(%{{.*}}, %[[N]], %[[MAX]] :
// CHECK: pgpu.store %[[COPY]], %sum
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @two_pass(%x: !pgpu.view<f32, [N, T], in>, %sum: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [1, 2, 4], 2>]} {
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, T], in>
    %T = pgpu.extent %x[1] : !pgpu.view<f32, [N, T], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %bt = pgpu.param "BLOCK" : index
        // expected-remark @below {{pgpu-split-folds: this fold is split in a first phase}}
        %m = pgpu.region_fold %c0 to %T step %bt identity(%ninf : f32)
            operands(%x, %n : !pgpu.view<f32, [N, T], in>, index) -> (f32)
        summarize {
        ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N, T], in>, %row: index):
          %ni = arith.constant 0xFF800000 : f32
          %t = arith.constant true
          %v = pgpu.load %xv[%row, %b] valid %t : i1 fill %ni : f32 : !pgpu.view<f32, [N, T], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary max %l, %r : f32
          pgpu.yield %a : f32
        }
        // expected-remark @below {{pgpu-split-folds: the fold's tiles are cut into FOLD_SPLIT contiguous segments}}
        %s = pgpu.region_fold %c0 to %T step %bt identity(%zero : f32)
            operands(%x, %n, %m : !pgpu.view<f32, [N, T], in>, index, f32) -> (f32)
        summarize {
        ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N, T], in>, %row: index, %mx: f32):
          %z = arith.constant 0.0 : f32
          %t = arith.constant true
          %v = pgpu.load %xv[%row, %b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, T], in>[index, index] -> f32
          %d = pgpu.binary sub %v, %mx : f32
          %ex = pgpu.unary exp %d : f32
          pgpu.yield %ex : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary add %l, %r : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %sum[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: The first phase keeps its product tiles (issue 41 item 1: corpus 116, fused linear cross-entropy).
// COM: Both folds compute the same [1, BLOCK] tile of a @ w per segment with a K loop (a pgpu.for over
// COM: TILE_K blocks holding a pgpu.contract). Before, the maximum's first phase and the sums' second
// COM: phase each ran that K loop: the product twice. After: a first-phase program runs a loop over its
// COM: segments computing each tile once and storing it at [point, segment] of workspace [FOLD_POINTS,
// COM: FOLD_TILES, 1, BLOCK]; its maximum's fold and the second phase's sums' fold load the tile (no
// COM: pgpu.contract in them); the unsplit branches (FOLD_SPLITS = 1: FOLD_POINTS is 0) recompute as before.
// CHECK-LABEL: pgpu.kernel @two_pass_product
// CHECK-SAME: %[[TILES:[^:]*]]: !pgpu.buffer<f32, [FOLD_POINTS, FOLD_TILES, 1, BLOCK], workspace>
// CHECK: pgpu.workspace_extent "FOLD_TILES"
// CHECK: ^bb0(%[[N:.*]]: index, %{{.*}}: index):
// CHECK: pgpu.for %[[B:.*]] to %[[E:.*]] step %[[S:[^ ]*]] {
// CHECK-NEXT: ^bb0(%[[IV:.*]]: index):
// CHECK: pgpu.for %c0 to
// CHECK: pgpu.contract
// CHECK: pgpu.buffer_store %{{.*}}, %[[TILES]][%[[N]], %{{.*}}]
// CHECK: pgpu.region_fold %[[B]] to %[[E]] step %[[S]] {{.*}}%[[TILES]], %[[N]],
// CHECK-NOT: pgpu.contract
// CHECK: pgpu.buffer_load {{.*}}FOLD_TILES
// CHECK-NOT: pgpu.contract
// CHECK: pgpu.atomic_rmw add
// CHECK: } else {
// CHECK: pgpu.contract
// CHECK: pgpu.region_fold {{.*}}%[[TILES]], %[[N]],
// CHECK-NOT: pgpu.contract
// CHECK: pgpu.last_program
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @two_pass_product(%a: !pgpu.view<f16, [N, K], in>, %w: !pgpu.view<f16, [K, T], in>, %sum: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [16, 32], 16>, #pgpu.param<"TILE_K", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %hzero = arith.constant 0.0 : f16
    %ninf = arith.constant 0xFF800000 : f32
    %N = pgpu.extent %a[0] : !pgpu.view<f16, [N, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [N, K], in>
    %T = pgpu.extent %w[1] : !pgpu.view<f16, [K, T], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %bt = pgpu.param "BLOCK" : index
        // expected-remark @below {{pgpu-split-folds: this fold is split in a first phase}}
        // expected-remark @below {{pgpu-split-folds: the first phase computes each segment's product tile once}}
        %m = pgpu.region_fold %c0 to %T step %bt identity(%ninf : f32)
            operands(%a, %w, %n, %K : !pgpu.view<f16, [N, K], in>, !pgpu.view<f16, [K, T], in>, index, index) -> (f32)
        summarize {
        ^bb0(%b: index, %e: index, %av: !pgpu.view<f16, [N, K], in>, %wv: !pgpu.view<f16, [K, T], in>, %row: index, %k: index):
          %tk = pgpu.param "TILE_K" : index
          %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [1, BLOCK]>
          %cols = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %prod = pgpu.for %c0 to %k step %tk iter_args(%acc0 : !pgpu.fragment<f32, [1, BLOCK]>) -> !pgpu.fragment<f32, [1, BLOCK]> {
          ^bb0(%i: index, %acc: !pgpu.fragment<f32, [1, BLOCK]>):
            %ks = pgpu.iota %i : !pgpu.fragment<index, [TILE_K]>
            %kl = pgpu.splat %k : index -> !pgpu.fragment<index, [TILE_K]>
            %kok = pgpu.cmp lt %ks, %kl : !pgpu.fragment<index, [TILE_K]>
            %rows = pgpu.splat %row : index -> !pgpu.fragment<index, [1, TILE_K]>
            %ak = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [1, TILE_K]>
            %aok = pgpu.broadcast %kok dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [1, TILE_K]>
            %x = pgpu.load %av[%rows, %ak] valid %aok : !pgpu.fragment<i1, [1, TILE_K]> fill %hzero : f16 : !pgpu.view<f16, [N, K], in>[!pgpu.fragment<index, [1, TILE_K]>, !pgpu.fragment<index, [1, TILE_K]>] -> !pgpu.fragment<f16, [1, TILE_K]>
            %wk = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_K, BLOCK]>
            %wc = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK]> -> !pgpu.fragment<index, [TILE_K, BLOCK]>
            %cl = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %cok = pgpu.cmp lt %cols, %cl : !pgpu.fragment<index, [BLOCK]>
            %wok1 = pgpu.broadcast %cok dims [1] : !pgpu.fragment<i1, [BLOCK]> -> !pgpu.fragment<i1, [TILE_K, BLOCK]>
            %wok2 = pgpu.broadcast %kok dims [0] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_K, BLOCK]>
            %wok = pgpu.binary and %wok1, %wok2 : !pgpu.fragment<i1, [TILE_K, BLOCK]>
            %y = pgpu.load %wv[%wk, %wc] valid %wok : !pgpu.fragment<i1, [TILE_K, BLOCK]> fill %hzero : f16 : !pgpu.view<f16, [K, T], in>[!pgpu.fragment<index, [TILE_K, BLOCK]>, !pgpu.fragment<index, [TILE_K, BLOCK]>] -> !pgpu.fragment<f16, [TILE_K, BLOCK]>
            %c = pgpu.contract %x, %y, %acc reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [1, TILE_K]>, !pgpu.fragment<f16, [TILE_K, BLOCK]>, !pgpu.fragment<f32, [1, BLOCK]> -> !pgpu.fragment<f32, [1, BLOCK]>
            pgpu.yield %c : !pgpu.fragment<f32, [1, BLOCK]>
          }
          %r = pgpu.reduce %prod axes [0, 1] identity(%ninf : f32) : (!pgpu.fragment<f32, [1, BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %q: f32):
            %mx = pgpu.binary max %l, %q : f32
            pgpu.yield %mx : f32
          }
          pgpu.yield %r : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a2 = pgpu.binary max %l, %r : f32
          pgpu.yield %a2 : f32
        }
        // expected-remark @below {{pgpu-split-folds: the fold's tiles are cut into FOLD_SPLIT contiguous segments}}
        %s = pgpu.region_fold %c0 to %T step %bt identity(%zero : f32)
            operands(%a, %w, %n, %K, %m : !pgpu.view<f16, [N, K], in>, !pgpu.view<f16, [K, T], in>, index, index, f32) -> (f32)
        summarize {
        ^bb0(%b: index, %e: index, %av: !pgpu.view<f16, [N, K], in>, %wv: !pgpu.view<f16, [K, T], in>, %row: index, %k: index, %mv: f32):
          %tk = pgpu.param "TILE_K" : index
          %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [1, BLOCK]>
          %cols = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %prod = pgpu.for %c0 to %k step %tk iter_args(%acc0 : !pgpu.fragment<f32, [1, BLOCK]>) -> !pgpu.fragment<f32, [1, BLOCK]> {
          ^bb0(%i: index, %acc: !pgpu.fragment<f32, [1, BLOCK]>):
            %ks = pgpu.iota %i : !pgpu.fragment<index, [TILE_K]>
            %kl = pgpu.splat %k : index -> !pgpu.fragment<index, [TILE_K]>
            %kok = pgpu.cmp lt %ks, %kl : !pgpu.fragment<index, [TILE_K]>
            %rows = pgpu.splat %row : index -> !pgpu.fragment<index, [1, TILE_K]>
            %ak = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [1, TILE_K]>
            %aok = pgpu.broadcast %kok dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [1, TILE_K]>
            %x = pgpu.load %av[%rows, %ak] valid %aok : !pgpu.fragment<i1, [1, TILE_K]> fill %hzero : f16 : !pgpu.view<f16, [N, K], in>[!pgpu.fragment<index, [1, TILE_K]>, !pgpu.fragment<index, [1, TILE_K]>] -> !pgpu.fragment<f16, [1, TILE_K]>
            %wk = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_K, BLOCK]>
            %wc = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK]> -> !pgpu.fragment<index, [TILE_K, BLOCK]>
            %cl = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %cok = pgpu.cmp lt %cols, %cl : !pgpu.fragment<index, [BLOCK]>
            %wok1 = pgpu.broadcast %cok dims [1] : !pgpu.fragment<i1, [BLOCK]> -> !pgpu.fragment<i1, [TILE_K, BLOCK]>
            %wok2 = pgpu.broadcast %kok dims [0] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_K, BLOCK]>
            %wok = pgpu.binary and %wok1, %wok2 : !pgpu.fragment<i1, [TILE_K, BLOCK]>
            %y = pgpu.load %wv[%wk, %wc] valid %wok : !pgpu.fragment<i1, [TILE_K, BLOCK]> fill %hzero : f16 : !pgpu.view<f16, [K, T], in>[!pgpu.fragment<index, [TILE_K, BLOCK]>, !pgpu.fragment<index, [TILE_K, BLOCK]>] -> !pgpu.fragment<f16, [TILE_K, BLOCK]>
            %c = pgpu.contract %x, %y, %acc reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [1, TILE_K]>, !pgpu.fragment<f16, [TILE_K, BLOCK]>, !pgpu.fragment<f32, [1, BLOCK]> -> !pgpu.fragment<f32, [1, BLOCK]>
            pgpu.yield %c : !pgpu.fragment<f32, [1, BLOCK]>
          }
          %ms = pgpu.splat %mv : f32 -> !pgpu.fragment<f32, [1, BLOCK]>
          %d = pgpu.binary sub %prod, %ms : !pgpu.fragment<f32, [1, BLOCK]>
          %ex = pgpu.unary exp %d : !pgpu.fragment<f32, [1, BLOCK]>
          %r = pgpu.reduce %ex axes [0, 1] identity(%zero : f32) : (!pgpu.fragment<f32, [1, BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %q: f32):
            %ad = pgpu.binary add %l, %q : f32
            pgpu.yield %ad : f32
          }
          pgpu.yield %r : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a2 = pgpu.binary add %l, %r : f32
          pgpu.yield %a2 : f32
        }
        pgpu.store %s, %sum[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire (no tiles kept): the sums' product reads another matrix (w2) than the maximum's,
// COM: so the tiles differ; both phases run their own K loops as before.
// CHECK-LABEL: pgpu.kernel @two_pass_other_product
// CHECK-NOT: FOLD_TILES
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @two_pass_other_product(%a: !pgpu.view<f16, [N, K], in>, %w: !pgpu.view<f16, [K, T], in>, %w2: !pgpu.view<f16, [K, T], in>, %sum: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [16, 32], 16>, #pgpu.param<"TILE_K", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %hzero = arith.constant 0.0 : f16
    %ninf = arith.constant 0xFF800000 : f32
    %N = pgpu.extent %a[0] : !pgpu.view<f16, [N, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [N, K], in>
    %T = pgpu.extent %w[1] : !pgpu.view<f16, [K, T], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %bt = pgpu.param "BLOCK" : index
        // expected-remark @below {{pgpu-split-folds: this fold is split in a first phase}}
        %m = pgpu.region_fold %c0 to %T step %bt identity(%ninf : f32)
            operands(%a, %w, %n, %K : !pgpu.view<f16, [N, K], in>, !pgpu.view<f16, [K, T], in>, index, index) -> (f32)
        summarize {
        ^bb0(%b: index, %e: index, %av: !pgpu.view<f16, [N, K], in>, %wv: !pgpu.view<f16, [K, T], in>, %row: index, %k: index):
          %tk = pgpu.param "TILE_K" : index
          %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [1, BLOCK]>
          %cols = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %prod = pgpu.for %c0 to %k step %tk iter_args(%acc0 : !pgpu.fragment<f32, [1, BLOCK]>) -> !pgpu.fragment<f32, [1, BLOCK]> {
          ^bb0(%i: index, %acc: !pgpu.fragment<f32, [1, BLOCK]>):
            %ks = pgpu.iota %i : !pgpu.fragment<index, [TILE_K]>
            %kl = pgpu.splat %k : index -> !pgpu.fragment<index, [TILE_K]>
            %kok = pgpu.cmp lt %ks, %kl : !pgpu.fragment<index, [TILE_K]>
            %rows = pgpu.splat %row : index -> !pgpu.fragment<index, [1, TILE_K]>
            %ak = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [1, TILE_K]>
            %aok = pgpu.broadcast %kok dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [1, TILE_K]>
            %x = pgpu.load %av[%rows, %ak] valid %aok : !pgpu.fragment<i1, [1, TILE_K]> fill %hzero : f16 : !pgpu.view<f16, [N, K], in>[!pgpu.fragment<index, [1, TILE_K]>, !pgpu.fragment<index, [1, TILE_K]>] -> !pgpu.fragment<f16, [1, TILE_K]>
            %wk = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_K, BLOCK]>
            %wc = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK]> -> !pgpu.fragment<index, [TILE_K, BLOCK]>
            %cl = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %cok = pgpu.cmp lt %cols, %cl : !pgpu.fragment<index, [BLOCK]>
            %wok1 = pgpu.broadcast %cok dims [1] : !pgpu.fragment<i1, [BLOCK]> -> !pgpu.fragment<i1, [TILE_K, BLOCK]>
            %wok2 = pgpu.broadcast %kok dims [0] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_K, BLOCK]>
            %wok = pgpu.binary and %wok1, %wok2 : !pgpu.fragment<i1, [TILE_K, BLOCK]>
            %y = pgpu.load %wv[%wk, %wc] valid %wok : !pgpu.fragment<i1, [TILE_K, BLOCK]> fill %hzero : f16 : !pgpu.view<f16, [K, T], in>[!pgpu.fragment<index, [TILE_K, BLOCK]>, !pgpu.fragment<index, [TILE_K, BLOCK]>] -> !pgpu.fragment<f16, [TILE_K, BLOCK]>
            %c = pgpu.contract %x, %y, %acc reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [1, TILE_K]>, !pgpu.fragment<f16, [TILE_K, BLOCK]>, !pgpu.fragment<f32, [1, BLOCK]> -> !pgpu.fragment<f32, [1, BLOCK]>
            pgpu.yield %c : !pgpu.fragment<f32, [1, BLOCK]>
          }
          %r = pgpu.reduce %prod axes [0, 1] identity(%ninf : f32) : (!pgpu.fragment<f32, [1, BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %q: f32):
            %mx = pgpu.binary max %l, %q : f32
            pgpu.yield %mx : f32
          }
          pgpu.yield %r : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a2 = pgpu.binary max %l, %r : f32
          pgpu.yield %a2 : f32
        }
        // expected-remark @below {{pgpu-split-folds: the fold's tiles are cut into FOLD_SPLIT contiguous segments}}
        %s = pgpu.region_fold %c0 to %T step %bt identity(%zero : f32)
            operands(%a, %w2, %n, %K, %m : !pgpu.view<f16, [N, K], in>, !pgpu.view<f16, [K, T], in>, index, index, f32) -> (f32)
        summarize {
        ^bb0(%b: index, %e: index, %av: !pgpu.view<f16, [N, K], in>, %wv: !pgpu.view<f16, [K, T], in>, %row: index, %k: index, %mv: f32):
          %tk = pgpu.param "TILE_K" : index
          %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [1, BLOCK]>
          %cols = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
          %prod = pgpu.for %c0 to %k step %tk iter_args(%acc0 : !pgpu.fragment<f32, [1, BLOCK]>) -> !pgpu.fragment<f32, [1, BLOCK]> {
          ^bb0(%i: index, %acc: !pgpu.fragment<f32, [1, BLOCK]>):
            %ks = pgpu.iota %i : !pgpu.fragment<index, [TILE_K]>
            %kl = pgpu.splat %k : index -> !pgpu.fragment<index, [TILE_K]>
            %kok = pgpu.cmp lt %ks, %kl : !pgpu.fragment<index, [TILE_K]>
            %rows = pgpu.splat %row : index -> !pgpu.fragment<index, [1, TILE_K]>
            %ak = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [1, TILE_K]>
            %aok = pgpu.broadcast %kok dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [1, TILE_K]>
            %x = pgpu.load %av[%rows, %ak] valid %aok : !pgpu.fragment<i1, [1, TILE_K]> fill %hzero : f16 : !pgpu.view<f16, [N, K], in>[!pgpu.fragment<index, [1, TILE_K]>, !pgpu.fragment<index, [1, TILE_K]>] -> !pgpu.fragment<f16, [1, TILE_K]>
            %wk = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_K, BLOCK]>
            %wc = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK]> -> !pgpu.fragment<index, [TILE_K, BLOCK]>
            %cl = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %cok = pgpu.cmp lt %cols, %cl : !pgpu.fragment<index, [BLOCK]>
            %wok1 = pgpu.broadcast %cok dims [1] : !pgpu.fragment<i1, [BLOCK]> -> !pgpu.fragment<i1, [TILE_K, BLOCK]>
            %wok2 = pgpu.broadcast %kok dims [0] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_K, BLOCK]>
            %wok = pgpu.binary and %wok1, %wok2 : !pgpu.fragment<i1, [TILE_K, BLOCK]>
            %y = pgpu.load %wv[%wk, %wc] valid %wok : !pgpu.fragment<i1, [TILE_K, BLOCK]> fill %hzero : f16 : !pgpu.view<f16, [K, T], in>[!pgpu.fragment<index, [TILE_K, BLOCK]>, !pgpu.fragment<index, [TILE_K, BLOCK]>] -> !pgpu.fragment<f16, [TILE_K, BLOCK]>
            %c = pgpu.contract %x, %y, %acc reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [1, TILE_K]>, !pgpu.fragment<f16, [TILE_K, BLOCK]>, !pgpu.fragment<f32, [1, BLOCK]> -> !pgpu.fragment<f32, [1, BLOCK]>
            pgpu.yield %c : !pgpu.fragment<f32, [1, BLOCK]>
          }
          %ms = pgpu.splat %mv : f32 -> !pgpu.fragment<f32, [1, BLOCK]>
          %d = pgpu.binary sub %prod, %ms : !pgpu.fragment<f32, [1, BLOCK]>
          %ex = pgpu.unary exp %d : !pgpu.fragment<f32, [1, BLOCK]>
          %r = pgpu.reduce %ex axes [0, 1] identity(%zero : f32) : (!pgpu.fragment<f32, [1, BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %q: f32):
            %ad = pgpu.binary add %l, %q : f32
            pgpu.yield %ad : f32
          }
          pgpu.yield %r : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a2 = pgpu.binary add %l, %r : f32
          pgpu.yield %a2 : f32
        }
        pgpu.store %s, %sum[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire (the first phase): the maximum's fold walks other segments (its step BLOCK2, the
// COM: sums' BLOCK): its segments are not the split fold's, so it runs whole in every segment's program
// COM: as before; one program a segment, no count, no wait.
// CHECK-LABEL: pgpu.kernel @two_pass_steps
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %[[SPLITS:[^)]*]]) segment 0 roles ["axis0", "fold_split"] {
// CHECK: %[[MAX:.*]] = pgpu.region_fold %{{.*}} to %{{.*}} step
// CHECK-NOT: pgpu.atomic_rmw
// CHECK-NOT: pgpu.while
// CHECK: pgpu.last_program
// CHECK-NOT: pgpu.atomic_store
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @two_pass_steps(%x: !pgpu.view<f32, [N, T], in>, %sum: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [1, 2, 4], 2>, #pgpu.param<"BLOCK2", [1, 2, 4], 4>]} {
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, T], in>
    %T = pgpu.extent %x[1] : !pgpu.view<f32, [N, T], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %bt = pgpu.param "BLOCK" : index
        %b2 = pgpu.param "BLOCK2" : index
        // expected-remark @below {{pgpu-split-folds: this fold runs whole in every segment's program (a later fold in its block is split and reads it)}}
        %m = pgpu.region_fold %c0 to %T step %b2 identity(%ninf : f32)
            operands(%x, %n : !pgpu.view<f32, [N, T], in>, index) -> (f32)
        summarize {
        ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N, T], in>, %row: index):
          %ni = arith.constant 0xFF800000 : f32
          %t = arith.constant true
          %v = pgpu.load %xv[%row, %b] valid %t : i1 fill %ni : f32 : !pgpu.view<f32, [N, T], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary max %l, %r : f32
          pgpu.yield %a : f32
        }
        // expected-remark @below {{pgpu-split-folds: the fold's tiles are cut into FOLD_SPLIT contiguous segments}}
        %s = pgpu.region_fold %c0 to %T step %bt identity(%zero : f32)
            operands(%x, %n, %m : !pgpu.view<f32, [N, T], in>, index, f32) -> (f32)
        summarize {
        ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N, T], in>, %row: index, %mx: f32):
          %z = arith.constant 0.0 : f32
          %t = arith.constant true
          %v = pgpu.load %xv[%row, %b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, T], in>[index, index] -> f32
          %d = pgpu.binary sub %v, %mx : f32
          %ex = pgpu.unary exp %d : f32
          pgpu.yield %ex : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary add %l, %r : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %sum[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: two folds run in one program but not in sequence in one block (the second inside
// COM: a branch the first's program also takes): neither is split.
// CHECK-LABEL: pgpu.kernel @nested_pair
// CHECK-NOT: FOLD_SPLIT
// CHECK-NOT: pgpu.last_program
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @nested_pair(%x: !pgpu.view<f32, [N, T], in>, %sum: !pgpu.view<f32, [N], out>, %big: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [1, 2, 4], 2>]} {
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, T], in>
    %T = pgpu.extent %x[1] : !pgpu.view<f32, [N, T], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %bt = pgpu.param "BLOCK" : index
        // expected-remark @below {{pgpu-split-folds: not split: two folds run in one program outside one block}}
        %m = pgpu.region_fold %c0 to %T step %bt identity(%ninf : f32)
            operands(%x, %n : !pgpu.view<f32, [N, T], in>, index) -> (f32)
        summarize {
        ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N, T], in>, %row: index):
          %ni = arith.constant 0xFF800000 : f32
          %t = arith.constant true
          %v = pgpu.load %xv[%row, %b] valid %t : i1 fill %ni : f32 : !pgpu.view<f32, [N, T], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary max %l, %r : f32
          pgpu.yield %a : f32
        }
        pgpu.store %m, %big[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.if %true {
          // expected-remark @below {{pgpu-split-folds: not split: two folds run in one program outside one block}}
          %s = pgpu.region_fold %c0 to %T step %bt identity(%zero : f32)
              operands(%x, %n : !pgpu.view<f32, [N, T], in>, index) -> (f32)
          summarize {
          ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N, T], in>, %row: index):
            %z = arith.constant 0.0 : f32
            %t = arith.constant true
            %v = pgpu.load %xv[%row, %b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, T], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %s, %sum[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A kernel-level fold whose lanes' finishing reduction (max) is not their combine (add): the
// COM: segments keep whole [BLOCK] summaries, the last arrival walks them one at a time, and the
// COM: one point's split stops at 256.
// CHECK-LABEL: pgpu.kernel @loss_serial
// CHECK-SAME: !pgpu.buffer<f32, [FOLD_POINTS, FOLD_SPLITS, BLOCK], workspace>
// CHECK-SAME: #pgpu.param<"FOLD_SPLIT", [1, 2, 4, 8, 16, 32, 64, 128, 256], 1>
// CHECK: pgpu.last_program
// CHECK: pgpu.region_fold
// CHECK: pgpu.buffer_load
// CHECK: pgpu.reduce
// CHECK: pgpu.binary max
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @loss_serial(%p: !pgpu.view<f32, [N], in>, %l: !pgpu.view<f32, [1], out>, %g: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %N = pgpu.extent %p[0] : !pgpu.view<f32, [N], in>
    %G = pgpu.ceil_div %N, %c1 : index
    %all = pgpu.binary add %c1, %G : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      %first = pgpu.cmp lt %pid, %c1 : index
      pgpu.if %first {
        pgpu.execution_group %pid extents() segment 0 roles [] {
          %bt = pgpu.param "BLOCK" : index
          %id = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %acc = pgpu.region_fold %c0 to %N step %bt identity(%id : !pgpu.fragment<f32, [BLOCK]>) operands(%p : !pgpu.view<f32, [N], in>) -> (!pgpu.fragment<f32, [BLOCK]>) summarize {
          ^bb0(%b: index, %e: index, %v: !pgpu.view<f32, [N], in>):
            %zz = arith.constant 0.0 : f32
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %v[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zz : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %x : !pgpu.fragment<f32, [BLOCK]>
          } combine {
          ^bb0(%a: !pgpu.fragment<f32, [BLOCK]>, %c: !pgpu.fragment<f32, [BLOCK]>):
            %s = pgpu.binary add %a, %c : !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %s : !pgpu.fragment<f32, [BLOCK]>
          }
          %sum = pgpu.reduce %acc axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %c: f32):
            %s = pgpu.binary max %a, %c : f32
            pgpu.yield %s : f32
          }
          pgpu.store %sum, %l[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %rest = pgpu.binary sub %pid, %c1 : index
        pgpu.execution_group %rest extents(%G) segment 1 roles ["n"] {
        ^bb0(%n: index):
          %v = pgpu.load %p[%n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.store %v, %g[%n] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: The finishing reduction's identity is defined after the fold (in the ops that move to the
// COM: unsplit branch): the split branch clones the constant, so the segment's reduction and the
// COM: last arrival's combine use a value that dominates them.
// CHECK-LABEL: pgpu.kernel @identity_after
// CHECK: pgpu.if %{{.*}} {
// CHECK: %[[PART:.*]] = pgpu.region_fold
// CHECK: } combine {
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: pgpu.reduce %[[PART]] axes [0] identity(%[[ZERO]] : f32)
// CHECK: pgpu.last_program
// CHECK: pgpu.for %{{.*}} iter_args(%[[ZERO]] : f32) -> f32
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @identity_after(%p: !pgpu.view<f32, [N], in>, %l: !pgpu.view<f32, [1], out>, %g: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %N = pgpu.extent %p[0] : !pgpu.view<f32, [N], in>
    %G = pgpu.ceil_div %N, %c1 : index
    %all = pgpu.binary add %c1, %G : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      %first = pgpu.cmp lt %pid, %c1 : index
      pgpu.if %first {
        pgpu.execution_group %pid extents() segment 0 roles [] {
          %bt = pgpu.param "BLOCK" : index
          %id = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %acc = pgpu.region_fold %c0 to %N step %bt identity(%id : !pgpu.fragment<f32, [BLOCK]>) operands(%p : !pgpu.view<f32, [N], in>) -> (!pgpu.fragment<f32, [BLOCK]>) summarize {
          ^bb0(%b: index, %e: index, %v: !pgpu.view<f32, [N], in>):
            %zz = arith.constant 0.0 : f32
            %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %ends = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %ends : !pgpu.fragment<index, [BLOCK]>
            %x = pgpu.load %v[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zz : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %x : !pgpu.fragment<f32, [BLOCK]>
          } combine {
          ^bb0(%a: !pgpu.fragment<f32, [BLOCK]>, %c: !pgpu.fragment<f32, [BLOCK]>):
            %s = pgpu.binary add %a, %c : !pgpu.fragment<f32, [BLOCK]>
            pgpu.yield %s : !pgpu.fragment<f32, [BLOCK]>
          }
          %z2 = arith.constant 0.0 : f32
          %sum = pgpu.reduce %acc axes [0] identity(%z2 : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %c: f32):
            %s = pgpu.binary add %a, %c : f32
            pgpu.yield %s : f32
          }
          pgpu.store %sum, %l[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } else {
        %rest = pgpu.binary sub %pid, %c1 : index
        pgpu.execution_group %rest extents(%G) segment 1 roles ["n"] {
        ^bb0(%n: index):
          %v = pgpu.load %p[%n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.store %v, %g[%n] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: The fold lies in a branch the launch takes by a launch-uniform condition (T <= 4096); the other
// COM: branch holds no split fold (a row kept whole elsewhere: pgpu-keep-fold-tiles' kept tiles, a
// COM: staged row), so its segments past the first would be programs without work. FOLD_SPLITS is the
// COM: split only where the launch takes the fold's branch: select(T <= 4096, max(min(FOLD_SPLIT,
// COM: tiles), 1), 1), the condition hoisted before the space; the grid and workspace follow it.
// COM: (@rows above, a fold directly in the group, keeps its FOLD_SPLITS unselected.)
// CHECK-LABEL: pgpu.kernel @branch_only
// CHECK: %[[MIN:.*]] = pgpu.binary min %{{.*}}, %{{.*}} : index
// CHECK: %[[RAW:.*]] = pgpu.binary max %[[MIN]], %{{.*}} : index
// CHECK: %[[TAKEN:.*]] = pgpu.cmp le %{{.*}}, %{{.*}} : index
// CHECK: %[[SPLITS:.*]] = pgpu.select %[[TAKEN]], %[[RAW]], %{{.*}} : i1, index
// CHECK: %[[ON:.*]] = pgpu.cmp ne %[[SPLITS]], %{{.*}} : index
// CHECK: pgpu.workspace_extent "FOLD_SPLITS" = %[[SPLITS]]
// CHECK: %[[GRID:.*]] = pgpu.binary mul %{{.*}}, %[[SPLITS]] : index
// CHECK: pgpu.program_space(%[[GRID]])
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @branch_only(%x: !pgpu.view<f32, [N, T], in>, %sum: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [1, 2, 4], 2>]} {
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, T], in>
    %T = pgpu.extent %x[1] : !pgpu.view<f32, [N, T], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %bt = pgpu.param "BLOCK" : index
        %lim = arith.constant 4096 : index
        %short = pgpu.cmp le %T, %lim : index
        pgpu.if %short {
          %s = pgpu.region_fold %c0 to %T step %bt identity(%zero : f32)
              operands(%x, %n : !pgpu.view<f32, [N, T], in>, index) -> (f32)
          summarize {
          ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N, T], in>, %row: index):
            %z = arith.constant 0.0 : f32
            %pos = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
            %end = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %pos, %end : !pgpu.fragment<index, [BLOCK]>
            %rows = pgpu.splat %row : index -> !pgpu.fragment<index, [BLOCK]>
            %v = pgpu.load %xv[%rows, %pos] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N, T], in>[!pgpu.fragment<index, [BLOCK]>, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %t = pgpu.reduce %v axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%l: f32, %r: f32):
              %a = pgpu.binary add %l, %r : f32
              pgpu.yield %a : f32
            }
            pgpu.yield %t : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %s, %sum[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        } else {
          pgpu.store %zero, %sum[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A segment of construction's chain followed by a segment that waits (pgpu.while on the launch's
// COM: ticket) before its group, ending in a guard without else (an in-place update after another
// COM: workset's reduction of its view: corpus 260_b's gradients after the overflow flag): the fold's
// COM: segment grows to FOLD_SPLITS programs in the chain's bound and shift, so the waiting segment's
// COM: target (its linear start) counts the split programs too.
// CHECK-LABEL: pgpu.kernel @waiting_chain
// CHECK: pgpu.param "FOLD_SPLIT"
// CHECK-NEXT: pgpu.binary min
// CHECK-NEXT: %[[SPLITS:.*]] = pgpu.binary max %{{.*}}, %c1{{.*}} : index
// CHECK: %[[GROWN:.*]] = pgpu.binary mul %c1{{.*}}, %[[SPLITS]] : index
// CHECK: pgpu.program_space
// CHECK-NEXT: ^bb0(%[[PID:.*]]: index):
// CHECK-NEXT: pgpu.cmp lt %[[PID]], %[[GROWN]] : index
// CHECK: pgpu.execution_group %[[PID]] extents(%[[SPLITS]]) segment 0 roles ["fold_split"]
// CHECK: pgpu.last_program
// CHECK: %[[REST:.*]] = pgpu.binary sub %[[PID]], %[[GROWN]] : index
// CHECK: %[[START:.*]] = pgpu.binary sub %[[PID]], %[[REST]] : index
// CHECK: pgpu.while
// CHECK: pgpu.execution_group %[[REST]] extents(%{{.*}}) segment 1 roles ["axis0"]
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @waiting_chain(%grads: !pgpu.view<f32, [N], inout>, %found_inf: !pgpu.view<f32, [1], out>, %inv_scale: !pgpu.view<f32, [1], in>, %arg0: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) attributes {params = [#pgpu.param<"BLOCK_P", [256, 512, 1024, 2048, 4096], 2048>, #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512>]} {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %false = arith.constant false
    %cst_1 = arith.constant 0x7F800000 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %grads[0] : !pgpu.view<f32, [N], inout>
    %1 = pgpu.ceil_div %0, %c1 : index
    %2 = pgpu.binary max %1, %c0 : index
    %3 = pgpu.param "BLOCK_P" : index
    %4 = pgpu.ceil_div %2, %3 : index
    %5 = pgpu.binary add %c1, %4 : index
    %6 = pgpu.binary max %5, %c1 : index
    pgpu.program_space(%6) {
    ^bb0(%arg1: index):
      %7 = pgpu.cmp lt %arg1, %c1 : index
      pgpu.if %7 {
        pgpu.execution_group %arg1 extents() segment 0 roles [] {
          %8 = pgpu.splat %false : i1 -> !pgpu.fragment<i1, [BLOCK]>
          %9 = pgpu.param "BLOCK" : index
          // expected-remark @+1 {{pgpu-split-folds: the fold's tiles are cut into FOLD_SPLIT contiguous segments}}
          %10 = pgpu.region_fold %c0 to %2 step %9 identity(%8 : !pgpu.fragment<i1, [BLOCK]>) operands(%grads : !pgpu.view<f32, [N], inout>) -> (!pgpu.fragment<i1, [BLOCK]>) summarize {
          ^bb0(%arg2: index, %arg3: index, %arg4: !pgpu.view<f32, [N], inout>):
            %13 = pgpu.iota %arg2 : !pgpu.fragment<index, [BLOCK]>
            %14 = pgpu.splat %arg3 : index -> !pgpu.fragment<index, [BLOCK]>
            %15 = pgpu.cmp lt %13, %14 : !pgpu.fragment<index, [BLOCK]>
            %16 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
            %17 = pgpu.binary and %16, %15 : !pgpu.fragment<i1, [BLOCK]>
            %18 = pgpu.load %arg4[%13] valid %17 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f32 : !pgpu.view<f32, [N], inout>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %19 = pgpu.unary abs %18 : !pgpu.fragment<f32, [BLOCK]>
            %20 = pgpu.splat %cst_1 : f32 -> !pgpu.fragment<f32, [BLOCK]>
            %21 = pgpu.cmp lt %19, %20 : !pgpu.fragment<f32, [BLOCK]>
            %22 = pgpu.unary not %21 : !pgpu.fragment<i1, [BLOCK]>
            %23 = pgpu.select %15, %22, %8 : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<i1, [BLOCK]>
            pgpu.yield %23 : !pgpu.fragment<i1, [BLOCK]>
          } combine {
          ^bb0(%arg2: !pgpu.fragment<i1, [BLOCK]>, %arg3: !pgpu.fragment<i1, [BLOCK]>):
            %13 = pgpu.binary or %arg2, %arg3 : !pgpu.fragment<i1, [BLOCK]>
            pgpu.yield %13 : !pgpu.fragment<i1, [BLOCK]>
          }
          %11 = pgpu.reduce %10 axes [0] identity(%false : i1) : (!pgpu.fragment<i1, [BLOCK]>) -> (i1) {
          ^bb0(%arg2: i1, %arg3: i1):
            %13 = pgpu.binary or %arg2, %arg3 : i1
            pgpu.yield %13 : i1
          }
          %12 = pgpu.select %11, %cst_0, %cst : i1, f32
          pgpu.store %12, %found_inf[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        } {roles = [], segment = 0 : i64}
        pgpu.yield
      } else {
        %8 = pgpu.binary sub %arg1, %c1 : index
        %9 = pgpu.cmp lt %8, %4 : index
        pgpu.if %9 {
          %10 = pgpu.binary sub %arg1, %8 : index
          %11 = pgpu.cast %10 : index to i32
          pgpu.while {
            %12 = pgpu.atomic_load %arg0[%c0] valid %true : i1 order acquire sharing invocation : !pgpu.buffer<i32, [1], workspace>[index] -> i32
            %13 = pgpu.cmp lt %12, %11 : i32
            pgpu.condition %13
          } do {
            pgpu.yield
          }
          pgpu.execution_group %8 extents(%4) segment 1 roles ["axis0"] {
          ^bb0(%arg2: index):
            %12 = pgpu.binary mul %arg2, %3 : index
            %13 = pgpu.binary add %12, %3 : index
            %14 = pgpu.binary min %13, %2 : index
            %15 = pgpu.param "BLOCK" : index
            pgpu.for %12 to %14 step %15 {
            ^bb0(%arg3: index):
              %16 = pgpu.iota %arg3 : !pgpu.fragment<index, [BLOCK]>
              %17 = pgpu.splat %14 : index -> !pgpu.fragment<index, [BLOCK]>
              %18 = pgpu.cmp lt %16, %17 : !pgpu.fragment<index, [BLOCK]>
              %19 = pgpu.load %inv_scale[%c0] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [1], in>[index] -> f32
              %20 = pgpu.splat %true : i1 -> !pgpu.fragment<i1, [BLOCK]>
              %21 = pgpu.binary and %20, %18 : !pgpu.fragment<i1, [BLOCK]>
              %22 = pgpu.load %grads[%16] valid %21 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f32 : !pgpu.view<f32, [N], inout>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
              %23 = pgpu.splat %19 : f32 -> !pgpu.fragment<f32, [BLOCK]>
              %24 = pgpu.binary mul %22, %23 : !pgpu.fragment<f32, [BLOCK]>
              pgpu.store %24, %grads[%16] valid %21 : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [N], inout>[!pgpu.fragment<index, [BLOCK]>]
              pgpu.yield
            }
            pgpu.yield
          } {roles = ["axis0"], segment = 1 : i64}
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.last_program %arg0 : !pgpu.buffer<i32, [1], workspace> {
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

