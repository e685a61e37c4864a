// RUN: tessel-opt %s -split-input-file -pgpu-chain-scans -verify-diagnostics | FileCheck %s

// COM: Each row n's region scan over T in BLOCK-wide segments: its segments become program
// COM: instances (a leading axis of ceil_div(T, BLOCK) members under SCAN_CHAIN = 2), the state
// COM: handed on through a two-slot workspace ring and a per-row flag; the ordered scan stays as the
// COM: SCAN_CHAIN = 1 realization; the final-state store runs in the last segment's program only.
// CHECK-LABEL: pgpu.kernel @rows
// CHECK-SAME: %[[FLAGS:[^:]*]]: !pgpu.buffer<i32, [N], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: !pgpu.buffer<f32, [N, 2], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: !pgpu.buffer<f32, [N, 2, BLOCK], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: #pgpu.param<"SCAN_CHAIN", [1, 2], 1>
// CHECK: pgpu.ceil_div
// CHECK: pgpu.param "SCAN_CHAIN"
// CHECK: %[[COUNT:.*]] = pgpu.binary add %{{.*}}, %{{.*}} : index
// CHECK: %[[GRID:.*]] = pgpu.binary mul %{{.*}}, %[[COUNT]] : index
// CHECK: pgpu.program_space(%[[GRID]])
// CHECK: pgpu.execution_group %{{.*}} extents(%[[COUNT]], %{{.*}}) segment 0 roles ["segments", "axis0"] {
// CHECK-NEXT: ^bb0(%[[C:.*]]: index, %[[N:.*]]: index):
// CHECK: %[[LAST:.*]] = pgpu.cmp eq %{{.*}}, %[[COUNT]] : index
// CHECK: pgpu.if %{{.*}} -> f32, !pgpu.fragment<f32, [BLOCK]> {
// COM: The segment's summary first (its reads overlap the wait); zeros stand in for an empty one.
// CHECK: %[[SUM:.*]]:2 = pgpu.if %{{.*}} -> f32, !pgpu.fragment<f32, [BLOCK]> {
// CHECK: pgpu.load %x
// CHECK: } else {
// CHECK: pgpu.splat
// CHECK: pgpu.if %{{.*}} -> f32, !pgpu.fragment<f32, [BLOCK]> {
// CHECK: } else {
// CHECK: pgpu.while {
// CHECK: pgpu.atomic_load %[[FLAGS]][%[[N]]] valid %{{.*}} order acquire sharing invocation
// CHECK: pgpu.condition
// CHECK: pgpu.buffer_load
// CHECK: pgpu.buffer_load
// COM: Then the link: apply the summary to the state before, publish.
// CHECK: pgpu.if %{{.*}} -> f32, !pgpu.fragment<f32, [BLOCK]> {
// CHECK-NOT: pgpu.load %x
// CHECK: pgpu.binary add %{{.*}}, %[[SUM]]#0 : f32
// CHECK: pgpu.buffer_store
// CHECK: pgpu.buffer_store
// CHECK: pgpu.atomic_store %{{.*}}, %[[FLAGS]][%[[N]]] valid %{{.*}} order release sharing invocation
// CHECK: pgpu.store %{{.*}}, %y
// CHECK: } else {
// CHECK: pgpu.region_scan
// CHECK: pgpu.if %[[LAST]] {
// CHECK-NEXT: pgpu.store %{{.*}}, %total
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @rows(%x: !pgpu.view<f32, [N, T], in>, %y: !pgpu.view<f32, [N, T], out>, %total: !pgpu.view<f32, [N], out>) attributes {params = [#pgpu.param<"BLOCK", [1, 2, 4], 2>]} {
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
        %lanes = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK]>
        %s:2 = pgpu.region_scan %c0 to %T step %bt identity(%zero, %lanes : f32, !pgpu.fragment<f32, [BLOCK]>)
            init(%zero, %lanes : f32, !pgpu.fragment<f32, [BLOCK]>)
            operands(%x, %y, %n : !pgpu.view<f32, [N, T], in>, !pgpu.view<f32, [N, T], out>, index)
            -> (f32, !pgpu.fragment<f32, [BLOCK]>)
        summarize {
        ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N, T], in>, %yv: !pgpu.view<f32, [N, T], out>, %row: index):
          %z = arith.constant 0.0 : f32
          %t = arith.constant true
          %v = pgpu.load %xv[%row, %b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, T], in>[index, index] -> f32
          %f = pgpu.splat %v : f32 -> !pgpu.fragment<f32, [BLOCK]>
          pgpu.yield %v, %f : f32, !pgpu.fragment<f32, [BLOCK]>
        } combine {
        ^bb0(%l: f32, %lf: !pgpu.fragment<f32, [BLOCK]>, %r: f32, %rf: !pgpu.fragment<f32, [BLOCK]>):
          %a = pgpu.binary add %l, %r : f32
          %af = pgpu.binary add %lf, %rf : !pgpu.fragment<f32, [BLOCK]>
          pgpu.yield %a, %af : f32, !pgpu.fragment<f32, [BLOCK]>
        } apply {
        ^bb0(%d: f32, %df: !pgpu.fragment<f32, [BLOCK]>, %st: f32, %sf: !pgpu.fragment<f32, [BLOCK]>):
          %a = pgpu.binary add %st, %d : f32
          %af = pgpu.binary add %sf, %df : !pgpu.fragment<f32, [BLOCK]>
          pgpu.yield %a, %af : f32, !pgpu.fragment<f32, [BLOCK]>
        } emit {
        ^bb0(%b: index, %e: index, %st: f32, %sf: !pgpu.fragment<f32, [BLOCK]>, %xv: !pgpu.view<f32, [N, T], in>, %yv: !pgpu.view<f32, [N, T], out>, %row: index):
          %z = arith.constant 0.0 : f32
          %t = arith.constant true
          %v = pgpu.load %xv[%row, %b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, T], in>[index, index] -> f32
          %o = pgpu.binary add %st, %v : f32
          pgpu.store %o, %yv[%row, %b] valid %t : i1 : f32, !pgpu.view<f32, [N, T], out>[index, index]
          pgpu.yield
        }
        pgpu.store %s#0, %total[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the scan runs inside a loop of the program (its segments are not the
// COM: program's): the remark says why and the IR is unchanged.
// CHECK-LABEL: pgpu.kernel @in_loop
// CHECK-NOT: SCAN_CHAIN
// CHECK: pgpu.for
// CHECK: pgpu.region_scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @in_loop(%x: !pgpu.view<f32, [N, T], in>, %total: !pgpu.view<f32, [N], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, T], in>
    %T = pgpu.extent %x[1] : !pgpu.view<f32, [N, T], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%c1) segment 0 roles ["axis0"] {
      ^bb0(%q: index):
        pgpu.for %c0 to %N step %c1 {
        ^bb0(%n: index):
          // expected-remark @below {{pgpu-chain-scans: not chained: a region scan runs inside a loop or structured op ('pgpu.for')}}
          %s = pgpu.region_scan %c0 to %T step %c1 identity(%zero : f32) init(%zero : f32)
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
          } apply {
          ^bb0(%d: f32, %st: f32):
            %a = pgpu.binary add %st, %d : f32
            pgpu.yield %a : f32
          } emit {
          ^bb0(%b: index, %e: index, %st: f32, %xv: !pgpu.view<f32, [N, T], in>, %row: index):
            pgpu.yield
          }
          pgpu.store %s, %total[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
