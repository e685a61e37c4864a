// RUN: tessel-opt %s -split-input-file -pgpu-split-member-worksets -verify-diagnostics | FileCheck %s

// COM: A sample's channel means kept in workspace, then the sample's planes scaled by them (a
// COM: squeeze-excitation's two ends, corpus 249): two worksets, the second reading the buffer the first
// COM: writes. Before: one program a sample walks its C x H x W elements twice. After: each sample runs as
// COM: 2 * MEMBER_SPLITS programs; phase 0 (member k < MEMBER_SPLITS) runs slice k % MEMBER_SPLITS of the
// COM: means' workset and counts itself; phase 1 waits until the count is MEMBER_SPLITS, writes its slice
// COM: of the planes and arrives at the sample's ticket, whose last arrival returns the count to 0.
// COM: MEMBER_SPLITS = 1 (a first phase of at most 16384 elements, or samples that fill the device) keeps
// COM: the body as it was, in an if directly in the group.
// CHECK-LABEL: pgpu.kernel @scale_planes
// CHECK-SAME: %[[COUNTS:[^:]*]]: !pgpu.buffer<i32, [MEMBER_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: %[[TICKETS:[^:]*]]: !pgpu.buffer<i32, [MEMBER_POINTS], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK-SAME: #pgpu.param<"MEMBER_SPLIT", [1, 2, 4, 8, 16, 32, 64], 16>
// CHECK: %[[PARAM:.*]] = pgpu.param "MEMBER_SPLIT" : index
// CHECK: %[[FILL:.*]] = pgpu.ceil_div %c1056
// CHECK: %[[CUT:.*]] = pgpu.binary max
// CHECK: %[[LARGE:.*]] = pgpu.cmp gt %{{.*}}, %c16384
// CHECK: %[[SPLITS:.*]] = pgpu.select %[[LARGE]], %[[CUT]]
// CHECK: %[[ON:.*]] = pgpu.cmp ne %[[SPLITS]]
// CHECK: pgpu.workspace_extent "MEMBER_POINTS"
// CHECK: %[[TWICE:.*]] = pgpu.binary mul %[[SPLITS]], %c2
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0 roles ["axis0", "member_split"] {
// CHECK-NEXT: ^bb0(%[[N:.*]]: index, %[[MEMBER:.*]]: index):
// CHECK: pgpu.if %[[ON]] {
// CHECK: %[[PHASE:.*]] = pgpu.binary div %[[MEMBER]], %[[SPLITS]]
// CHECK: %[[SEG:.*]] = pgpu.binary rem %[[MEMBER]], %[[SPLITS]]
// CHECK: %[[P0:.*]] = pgpu.cmp eq %[[PHASE]], %c0
// CHECK: pgpu.if %[[P0]] {
// CHECK-NOT: pgpu.while
// CHECK: pgpu.foreach %[[B0:.*]] to %[[E0:.*]] {
// CHECK: pgpu.range_reduce %c0 to
// CHECK: pgpu.buffer_store %{{.*}}, %arg2[%[[N]], %{{.*}}]
// CHECK-NOT: pgpu.store
// CHECK: pgpu.atomic_rmw add %{{.*}}, %[[COUNTS]][%[[N]]] {{.*}} order release
// CHECK: %[[P1:.*]] = pgpu.cmp eq %[[PHASE]], %c1
// CHECK: pgpu.if %[[P1]] {
// CHECK: pgpu.while
// CHECK: pgpu.atomic_load %[[COUNTS]][%[[N]]] {{.*}} order acquire
// CHECK: pgpu.foreach %{{.*}} to %{{.*}} {
// CHECK: pgpu.buffer_load %arg2[%[[N]],
// CHECK: pgpu.store
// CHECK: pgpu.last_program %[[TICKETS]][%[[N]]] arrivals %[[SPLITS]]
// CHECK: pgpu.atomic_store %{{.*}}, %[[COUNTS]][%[[N]]] {{.*}} order release
// CHECK: %[[UNSPLIT:.*]] = pgpu.select %[[ON]], %{{.*}}, %{{.*}} : i1, index
// CHECK: %[[WHOLE:.*]] = pgpu.cmp eq %[[MEMBER]], %[[UNSPLIT]] : index
// CHECK-NEXT: pgpu.if %[[WHOLE]] {
// CHECK-NEXT: pgpu.foreach %c0 to
// CHECK: pgpu.foreach %c0 to
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @scale_planes(%x: !pgpu.view<f32, [N, C, H], in>, %out: !pgpu.view<f32, [N, C, H], out>, %arg2: !pgpu.buffer<f32, [N, C], workspace> {pgpu.private = "workspace"}) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, H], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [N, C, H], in>
    %2 = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, H], in>
    pgpu.program_space(%0) {
    ^bb0(%arg3: index):
      pgpu.execution_group %arg3 extents(%0) segment 0 roles ["axis0"] {
      ^bb0(%arg4: index):
        // expected-remark @+1 {{pgpu-split-member-worksets: each member's worksets run in 2 phases of MEMBER_SPLITS programs; this workset's range is cut into MEMBER_SPLITS contiguous slices, one a program, in phase 0}}
        pgpu.foreach %c0 to %1 {
        ^bb0(%arg5: index):
          %5 = pgpu.range_reduce %c0 to %2 identity(%cst : f32) -> (f32) element {
          ^bb0(%arg6: index):
            %6 = pgpu.load %x[%arg4, %arg5, %arg6] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, C, H], in>[index, index, index] -> f32
            pgpu.yield %6 : f32
          } combine {
          ^bb0(%arg6: f32, %arg7: f32):
            %6 = pgpu.binary add %arg6, %arg7 : f32
            pgpu.yield %6 : f32
          }
          pgpu.buffer_store %5, %arg2[%arg4, %arg5] valid %true : i1 : f32, !pgpu.buffer<f32, [N, C], workspace>[index, index]
          pgpu.yield
        }
        // expected-remark @+1 {{pgpu-split-member-worksets: each member's worksets run in 2 phases of MEMBER_SPLITS programs; this workset's range is cut into MEMBER_SPLITS contiguous slices, one a program, in phase 1 (after a wait for the phases before)}}
        pgpu.foreach %c0 to %1 {
        ^bb0(%arg5: index):
          pgpu.foreach %c0 to %2 {
          ^bb0(%arg6: index):
            %6 = pgpu.load %x[%arg4, %arg5, %arg6] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, C, H], in>[index, index, index] -> f32
            %7 = pgpu.buffer_load %arg2[%arg4, %arg5] valid %true : i1 fill %cst : f32 : !pgpu.buffer<f32, [N, C], workspace>[index, index] -> f32
            %8 = pgpu.binary mul %6, %7 : f32
            pgpu.store %8, %out[%arg4, %arg5, %arg6] valid %true : i1 : f32, !pgpu.view<f32, [N, C, H], out>[index, index, index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: two worksets that read nothing the other writes (one phase: nothing waits).
// CHECK-LABEL: pgpu.kernel @two_sums
// CHECK-NOT: member_split
// CHECK-NOT: MEMBER_SPLIT
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @two_sums(%x: !pgpu.view<f32, [N, C, H], in>, %s: !pgpu.view<f32, [N, C], out>, %t: !pgpu.view<f32, [N, C], out>) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [N, C, H], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [N, C, H], in>
    %2 = pgpu.extent %x[2] : !pgpu.view<f32, [N, C, H], in>
    pgpu.program_space(%0) {
    ^bb0(%arg3: index):
      pgpu.execution_group %arg3 extents(%0) segment 0 roles ["axis0"] {
      ^bb0(%arg4: index):
        pgpu.foreach %c0 to %1 {
        ^bb0(%arg5: index):
          %5 = pgpu.range_reduce %c0 to %2 identity(%cst : f32) -> (f32) element {
          ^bb0(%arg6: index):
            %6 = pgpu.load %x[%arg4, %arg5, %arg6] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, C, H], in>[index, index, index] -> f32
            pgpu.yield %6 : f32
          } combine {
          ^bb0(%arg6: f32, %arg7: f32):
            %6 = pgpu.binary add %arg6, %arg7 : f32
            pgpu.yield %6 : f32
          }
          pgpu.store %5, %s[%arg4, %arg5] valid %true : i1 : f32, !pgpu.view<f32, [N, C], out>[index, index]
          pgpu.yield
        }
        // expected-remark @+1 {{pgpu-split-member-worksets: not split: no workset reads another's buffer (one phase: nothing waits)}}
        pgpu.foreach %c0 to %1 {
        ^bb0(%arg5: index):
          %5 = pgpu.range_reduce %c0 to %2 identity(%cst : f32) -> (f32) element {
          ^bb0(%arg6: index):
            %6 = pgpu.load %x[%arg4, %arg5, %arg6] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, C, H], in>[index, index, index] -> f32
            pgpu.yield %6 : f32
          } combine {
          ^bb0(%arg6: f32, %arg7: f32):
            %6 = pgpu.binary max %arg6, %arg7 : f32
            pgpu.yield %6 : f32
          }
          pgpu.store %5, %t[%arg4, %arg5] valid %true : i1 : f32, !pgpu.view<f32, [N, C], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a workset reads the buffer it writes (another program's slice, unwaited).
// CHECK-LABEL: pgpu.kernel @own_buffer
// CHECK-NOT: member_split
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @own_buffer(%x: !pgpu.view<f32, [N, C], in>, %out: !pgpu.view<f32, [N, C], out>, %arg2: !pgpu.buffer<f32, [N, C], workspace> {pgpu.private = "workspace"}, %arg9: !pgpu.buffer<f32, [N, C], workspace> {pgpu.private = "workspace"}) {
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [N, C], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [N, C], in>
    pgpu.program_space(%0) {
    ^bb0(%arg3: index):
      pgpu.execution_group %arg3 extents(%0) segment 0 roles ["axis0"] {
      ^bb0(%arg4: index):
        pgpu.foreach %c0 to %1 {
        ^bb0(%arg5: index):
          %6 = pgpu.load %x[%arg4, %arg5] valid %true : i1 fill %cst : f32 : !pgpu.view<f32, [N, C], in>[index, index] -> f32
          pgpu.buffer_store %6, %arg2[%arg4, %arg5] valid %true : i1 : f32, !pgpu.buffer<f32, [N, C], workspace>[index, index]
          pgpu.yield
        }
        // expected-remark @+1 {{pgpu-split-member-worksets: not split: a workset reads a buffer it writes}}
        pgpu.foreach %c0 to %1 {
        ^bb0(%arg5: index):
          %6 = pgpu.buffer_load %arg9[%arg4, %c0] valid %true : i1 fill %cst : f32 : !pgpu.buffer<f32, [N, C], workspace>[index, index] -> f32
          pgpu.buffer_store %6, %arg9[%arg4, %arg5] valid %true : i1 : f32, !pgpu.buffer<f32, [N, C], workspace>[index, index]
          pgpu.store %6, %out[%arg4, %arg5] valid %true : i1 : f32, !pgpu.view<f32, [N, C], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
