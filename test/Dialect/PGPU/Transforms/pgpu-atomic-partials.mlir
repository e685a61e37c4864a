// RUN: tessel-opt %s -split-input-file -pgpu-atomic-partials -verify-diagnostics | FileCheck %s

// COM: Split partials after pgpu-member-tickets: instance (s, n) stores its partial to part[s, n]; the
// COM: last of the S instances of n sums part[0..S, n]. The partial is merged into sum[n] by a
// COM: scatter-add instead; the last arrival reads sum[n], stores 0 back, and uses it; part goes.
// CHECK-LABEL: pgpu.kernel @partials
// CHECK-NOT: %part
// CHECK-SAME: %[[SUM:[a-z0-9_]+]]: !pgpu.buffer<f32, [N], workspace> {pgpu.init = 0.000000e+00 : f32, pgpu.kept, pgpu.private = "workspace"}
// CHECK: pgpu.execution_group %{{.*}} extents(%[[S:.*]], %{{.*}}) segment 0 roles ["s", "n"] {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[N:.*]]: index):
// CHECK: %[[P:.*]] = pgpu.range_reduce
// CHECK: pgpu.scatter_reduce %[[P]], %[[SUM]][%[[N]]] valid %{{.*}} : i1 : f32, !pgpu.buffer<f32, [N], workspace>[index] {
// CHECK: pgpu.binary add
// CHECK: pgpu.last_program %{{.*}}[%[[N]]] arrivals %[[S]]
// CHECK-NEXT: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: %[[V:.*]] = pgpu.buffer_load %[[SUM]][%[[N]]] valid %[[TRUE]] : i1 fill %[[Z:.*]] : f32
// CHECK-NEXT: pgpu.buffer_store %[[Z]], %[[SUM]][%[[N]]] valid %[[TRUE]]
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.store %[[V]], %y[%[[N]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @partials(%x: !pgpu.view<f32, [S, N], in>, %y: !pgpu.view<f32, [N], out>,
                 %part: !pgpu.buffer<f32, [4, N], workspace> {pgpu.private = "workspace"},
                 %tickets: !pgpu.buffer<i32, [N], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %S = arith.constant 4 : index
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [S, N], in>
    %E = pgpu.binary mul %S, %N : index
    pgpu.program_space(%E) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%S, %N) segment 0 roles ["s", "n"] {
      ^bb0(%s: index, %n: index):
        %p = pgpu.range_reduce %c0 to %c1 identity(%zero : f32) -> (f32) element {
        ^bb0(%k: index):
          %v = pgpu.load %x[%s, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [S, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary add %l, %r : f32
          pgpu.yield %a : f32
        }
        pgpu.buffer_store %p, %part[%s, %n] valid %true : i1 : f32, !pgpu.buffer<f32, [4, N], workspace>[index, index]
        // expected-remark @below {{pgpu-atomic-partials: each instance adds its partial}}
        pgpu.last_program %tickets[%n] arrivals %S : !pgpu.buffer<i32, [N], workspace> {
          %t = pgpu.range_reduce %c0 to %S identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %w = pgpu.buffer_load %part[%i, %n] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [4, N], workspace>[index, index] -> f32
            pgpu.yield %w : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %t, %y[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["s", "n"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a maximum over the partials (no atomic add merges it) keeps the last arrival's reduce.
// CHECK-LABEL: pgpu.kernel @maxima
// CHECK: pgpu.buffer_store %{{.*}}, %part[
// CHECK-NOT: pgpu.scatter_reduce
// CHECK: pgpu.range_reduce %{{.*}} to %{{.*}} identity
// CHECK: pgpu.buffer_load %part[
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @maxima(%x: !pgpu.view<f32, [S, N], in>, %y: !pgpu.view<f32, [N], out>,
                 %part: !pgpu.buffer<f32, [4, N], workspace> {pgpu.private = "workspace"},
                 %tickets: !pgpu.buffer<i32, [N], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.000000e+00 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %true = arith.constant true
    %S = arith.constant 4 : index
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [S, N], in>
    %E = pgpu.binary mul %S, %N : index
    pgpu.program_space(%E) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%S, %N) segment 0 roles ["s", "n"] {
      ^bb0(%s: index, %n: index):
        %v = pgpu.load %x[%s, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [S, N], in>[index, index] -> f32
        pgpu.buffer_store %v, %part[%s, %n] valid %true : i1 : f32, !pgpu.buffer<f32, [4, N], workspace>[index, index]
        // expected-remark @below {{pgpu-atomic-partials: not rewritten: the reduce is not a sum from zero}}
        pgpu.last_program %tickets[%n] arrivals %S : !pgpu.buffer<i32, [N], workspace> {
          %t = pgpu.range_reduce %c0 to %S identity(%ninf : f32) -> (f32) element {
          ^bb0(%i: index):
            %w = pgpu.buffer_load %part[%i, %n] valid %true : i1 fill %ninf : f32 : !pgpu.buffer<f32, [4, N], workspace>[index, index] -> f32
            pgpu.yield %w : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary max %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %t, %y[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["s", "n"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the partials are also read outside the finalization.
// CHECK-LABEL: pgpu.kernel @reread
// CHECK-NOT: pgpu.scatter_reduce
// CHECK: pgpu.range_reduce %{{.*}} to %{{.*}} identity
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @reread(%x: !pgpu.view<f32, [S, N], in>, %y: !pgpu.view<f32, [N], out>, %z: !pgpu.view<f32, [S, N], out>,
                 %part: !pgpu.buffer<f32, [4, N], workspace> {pgpu.private = "workspace"},
                 %tickets: !pgpu.buffer<i32, [N], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %S = arith.constant 4 : index
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [S, N], in>
    %E = pgpu.binary mul %S, %N : index
    pgpu.program_space(%E) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%S, %N) segment 0 roles ["s", "n"] {
      ^bb0(%s: index, %n: index):
        %v = pgpu.load %x[%s, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [S, N], in>[index, index] -> f32
        pgpu.buffer_store %v, %part[%s, %n] valid %true : i1 : f32, !pgpu.buffer<f32, [4, N], workspace>[index, index]
        %again = pgpu.buffer_load %part[%s, %n] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [4, N], workspace>[index, index] -> f32
        pgpu.store %again, %z[%s, %n] valid %true : i1 : f32, !pgpu.view<f32, [S, N], out>[index, index]
        // expected-remark @below {{pgpu-atomic-partials: not rewritten: the partials are used elsewhere}}
        pgpu.last_program %tickets[%n] arrivals %S : !pgpu.buffer<i32, [N], workspace> {
          %t = pgpu.range_reduce %c0 to %S identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %w = pgpu.buffer_load %part[%i, %n] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [4, N], workspace>[index, index] -> f32
            pgpu.yield %w : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %t, %y[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["s", "n"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
