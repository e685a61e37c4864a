// RUN: tessel-opt %s -split-input-file -pgpu-member-tickets -verify-diagnostics | FileCheck %s

// COM: Split partials: program (s, n) writes part[s, n]; the finalization's member n sums part[*, n],
// COM: what the S instances with coordinate n wrote. It moves into the group under ticket n, awaited
// COM: by S arrivals; the whole-space finalization, its guard and the extra instance go.
// CHECK-LABEL: pgpu.kernel @partials
// CHECK-SAME: %[[TICKETS:[a-z0-9_]+]]: !pgpu.buffer<i32, [N], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}
// CHECK: %[[S:.*]] = arith.constant 4 : index
// CHECK: %[[E:.*]] = pgpu.binary mul %[[S]], %{{.*}} : index
// CHECK: pgpu.program_space(%[[E]]) {
// CHECK-NOT: pgpu.if
// CHECK: pgpu.execution_group %{{.*}} extents(%[[S]], %{{.*}}) segment 0 roles ["s", "n"] {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[NN:.*]]: index):
// CHECK: pgpu.buffer_store %{{.*}}, %part[
// CHECK-NEXT: pgpu.last_program %[[TICKETS]][%[[NN]]] arrivals %[[S]] : !pgpu.buffer<i32, [N], workspace> {
// CHECK: pgpu.range_reduce %{{.*}} to %[[S]]
// CHECK: pgpu.buffer_load %part[%{{.*}}, %[[NN]]]
// CHECK: pgpu.store %{{.*}}, %y[%[[NN]]]
// CHECK: pgpu.yield
// CHECK-NEXT: }
// CHECK-NEXT: pgpu.yield
// CHECK-NEXT: } {roles
// CHECK-NOT: pgpu.last_program
// CHECK: pgpu.return
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
      // expected-remark @+1 {{pgpu-member-tickets: each member's finalization runs in the last instance that shares its ticket (group axes 2)}}
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

// -----

// COM: Must not fire: member n reads part[*, 0], which other instances than n's wrote.
// CHECK-LABEL: pgpu.kernel @beyond
// CHECK: pgpu.if
// CHECK: pgpu.last_program %ticket :
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @beyond(%x: !pgpu.view<f32, [S, N], in>, %y: !pgpu.view<f32, [N], out>,
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
      // expected-remark @+1 {{pgpu-member-tickets: the finalization waits for every instance: the finalization reads what the group wrote beyond its member's slice}}
      pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
        %t = arith.constant true
        %z = arith.constant 0.0 : f32
        pgpu.foreach %c0 to %N {
        ^bb0(%i: index):
          %sum = pgpu.range_reduce %c0 to %S identity(%z : f32) -> (f32) element {
          ^bb0(%j: index):
            %w = pgpu.buffer_load %part[%j, %c0] valid %t : i1 fill %z : f32 : !pgpu.buffer<f32, [4, N], workspace>[index, index] -> f32
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

// -----

// COM: Must not fire: S is a view extent and may be 0: no instance would arrive at a member's ticket.
// CHECK-LABEL: pgpu.kernel @empty_splits
// CHECK: pgpu.last_program %ticket :
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @empty_splits(%x: !pgpu.view<f32, [S, N], in>, %y: !pgpu.view<f32, [N], out>,
                 %part: !pgpu.buffer<f32, [4, N], workspace> {pgpu.private = "workspace"},
                 %ticket: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %S = pgpu.extent %x[0] : !pgpu.view<f32, [S, N], in>
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
      // expected-remark @+1 {{pgpu-member-tickets: the finalization waits for every instance: an axis the tickets wait along may be empty (no instance would arrive)}}
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

// -----

// COM: Must not fire: a conditional write leaves elements the member would read unwritten by the
// COM: instances sharing its ticket (the slice is not theirs alone to publish).
// CHECK-LABEL: pgpu.kernel @conditional
// CHECK: pgpu.last_program %ticket :
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @conditional(%x: !pgpu.view<f32, [S, N], in>, %y: !pgpu.view<f32, [N], out>,
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
          %odd = pgpu.cmp lt %s, %c1 : index
          pgpu.if %odd {
            pgpu.buffer_store %v, %part[%s, %n] valid %t : i1 : f32, !pgpu.buffer<f32, [4, N], workspace>[index, index]
            pgpu.yield
          }
          pgpu.yield
        }
        pgpu.yield
      }
      // expected-remark @+1 {{pgpu-member-tickets: the finalization waits for every instance: the group writes conditionally, atomically or by scatter}}
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
