// RUN: tessel compile %s --emit=source 2>&1 | FileCheck %s

// COM: Issue 47: split partials finalized per member (pgpu-member-tickets, then pgpu-atomic-partials)
// COM: reach pgpu-zero-first with no loop in the group body; the pass read its candidate's main loop
// COM: uninitialized there and crashed under --emit=source. It declines (the remark) and the source is
// COM: the last arrival's merge (pgpu-zero-first.mlir @no_main_loop holds the pass-level case).
// CHECK: remark: pgpu-zero-first: not rewritten: no loop before the merge to zero the output ahead of
// CHECK: def _partials_kernel(
// CHECK: def partials(
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @partials(%x: !pgpu.view<f32, [S, N], in>, %y: !pgpu.view<f32, [N], out>,
                 %part: !pgpu.buffer<f32, [4, N], workspace> {pgpu.private = "workspace"},
                 %ticket: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %S = arith.constant 4 : index
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [S, N], in>
    %E = pgpu.binary mul %S, %N : index
    %G = pgpu.binary max %E, %c1 : index
    pgpu.program_space(%G) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %E : index
      pgpu.if %in {
        pgpu.execution_group %pid extents(%S, %N) segment 0 roles ["s", "n"] {
        ^bb0(%s: index, %n: index):
          %t = arith.constant true
          %z = arith.constant 0.0 : f32
          %v = pgpu.load %x[%s, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [S, N], in>[index, index] -> f32
          pgpu.buffer_store %v, %part[%s, %n] valid %t : i1 : f32, !pgpu.buffer<f32, [4, N], workspace>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
        %t = arith.constant true
        %z = arith.constant 0.0 : f32
        pgpu.foreach %c0 to %N {
        ^bb0(%i: index):
          %sum = pgpu.range_reduce %c0 to %S identity(%z : f32) -> (f32) element {
          ^bb0(%j: index):
            %w = pgpu.buffer_load %part[%j, %i] valid %t : i1 fill %z : f32 : !pgpu.buffer<f32, [4, N], workspace>[index, index] -> f32
            pgpu.yield %w : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %sum, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
