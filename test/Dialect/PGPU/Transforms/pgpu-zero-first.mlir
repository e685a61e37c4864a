// RUN: tessel-opt %s -split-input-file -pgpu-zero-first -verify-diagnostics | FileCheck %s

// COM: Split partials merged by pgpu-atomic-partials: instance (s, n) adds its partial into sum[n]; the
// COM: last of the S instances of n reads sum[n], zeroes it and stores it to y[n]. Instead, the s = 0
// COM: instance stores 0 to y[n] and arrives before its main loop; every other instance waits until
// COM: the ticket is nonzero (acquire), adds its partial into y[n] and arrives; the last arrival has
// COM: nothing left to do. Without a persistent walk every instance has one item (the test is `true`).
// CHECK-LABEL: pgpu.kernel @partials
// CHECK: pgpu.execution_group %{{.*}} extents(%[[S:.*]], %{{.*}}) segment 0 roles ["s", "n"] {
// CHECK-NEXT: ^bb0(%[[SPLIT:.*]]: index, %[[N:.*]]: index):
// CHECK: %[[FIRST:.*]] = pgpu.binary and %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: pgpu.if %[[FIRST]] {
// CHECK-NEXT: pgpu.store %{{.*}}, %y[%[[N]]] valid %{{.*}} : i1 : f32, !pgpu.view<f32, [N], out>[index]
// CHECK-NEXT: pgpu.last_program %tickets[%[[N]]] arrivals %[[S]]
// CHECK-NEXT: pgpu.yield
// CHECK: %[[P:.*]] = pgpu.for
// CHECK: pgpu.if %{{.*}} {
// CHECK: pgpu.if %{{.*}} {
// CHECK-NEXT: pgpu.while {
// CHECK-NEXT: %[[SEEN:.*]] = pgpu.atomic_load %tickets[%[[N]]] valid %{{.*}} : i1 order acquire sharing invocation
// CHECK: pgpu.condition
// CHECK: pgpu.scatter_reduce %[[P]], %y[%[[N]]]
// CHECK: pgpu.last_program %tickets[%[[N]]] arrivals %[[S]] : !pgpu.buffer<i32, [N], workspace> {
// CHECK-NEXT: pgpu.yield
// CHECK: } else {
// CHECK-NEXT: pgpu.scatter_reduce %[[P]], %sum[%[[N]]]
// CHECK: pgpu.last_program %tickets[%[[N]]] arrivals %[[S]]
// CHECK-NEXT: pgpu.buffer_load %sum[%[[N]]]
// CHECK-NEXT: pgpu.buffer_store
// CHECK-NEXT: pgpu.store
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @partials(%x: !pgpu.view<f32, [S, N], in>, %y: !pgpu.view<f32, [N], out>,
                 %tickets: !pgpu.buffer<i32, [N], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"},
                 %sum: !pgpu.buffer<f32, [N], workspace> {pgpu.init = 0.000000e+00 : f32, pgpu.kept, pgpu.private = "workspace"}) {
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
        %p = pgpu.for %c0 to %c1 step %c1 iter_args(%zero : f32) -> f32 {
        ^bb0(%k: index, %acc: f32):
          %v = pgpu.load %x[%s, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [S, N], in>[index, index] -> f32
          %a = pgpu.binary add %acc, %v : f32
          pgpu.yield %a : f32
        }
        pgpu.scatter_reduce %p, %sum[%n] valid %true : i1 : f32, !pgpu.buffer<f32, [N], workspace>[index] {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary add %l, %r : f32
          pgpu.yield %a : f32
        }
        pgpu.last_program %tickets[%n] arrivals %S : !pgpu.buffer<i32, [N], workspace> {
          %t = pgpu.buffer_load %sum[%n] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [N], workspace>[index] -> f32
          pgpu.buffer_store %zero, %sum[%n] valid %true : i1 : f32, !pgpu.buffer<f32, [N], workspace>[index]
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

// COM: A persistent walk: the new form only when the walk's items fit the program instances, a
// COM: launch-uniform test computed before the walk (items <= programs); the old merge otherwise.
// CHECK-LABEL: pgpu.kernel @walked
// CHECK: pgpu.program_space(%[[G:.*]]) {
// CHECK: %[[ALONE:.*]] = pgpu.cmp le %[[E:.*]], %[[G]] : index
// CHECK: pgpu.for %{{.*}} to %[[E]] step %[[G]] {
// CHECK: pgpu.binary and %[[ALONE]], %{{.*}} : i1
// CHECK: pgpu.if %[[ALONE]] {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @walked(%x: !pgpu.view<f32, [S, N], in>, %y: !pgpu.view<f32, [N], out>,
                 %tickets: !pgpu.buffer<i32, [N], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"},
                 %sum: !pgpu.buffer<f32, [N], workspace> {pgpu.init = 0.000000e+00 : f32, pgpu.kept, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %S = arith.constant 4 : index
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [S, N], in>
    %E = pgpu.binary mul %S, %N : index
    %G = pgpu.binary min %E, %c8 : index
    pgpu.program_space(%G) {
    ^bb0(%pid: index):
      pgpu.for %pid to %E step %G {
      ^bb0(%item: index):
        pgpu.execution_group %item extents(%S, %N) segment 0 roles ["s", "n"] {
        ^bb0(%s: index, %n: index):
          %p = pgpu.for %c0 to %c1 step %c1 iter_args(%zero : f32) -> f32 {
          ^bb0(%k: index, %acc: f32):
            %v = pgpu.load %x[%s, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [S, N], in>[index, index] -> f32
            %a = pgpu.binary add %acc, %v : f32
            pgpu.yield %a : f32
          }
          pgpu.scatter_reduce %p, %sum[%n] valid %true : i1 : f32, !pgpu.buffer<f32, [N], workspace>[index] {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.last_program %tickets[%n] arrivals %S : !pgpu.buffer<i32, [N], workspace> {
            %t = pgpu.buffer_load %sum[%n] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [N], workspace>[index] -> f32
            pgpu.buffer_store %zero, %sum[%n] valid %true : i1 : f32, !pgpu.buffer<f32, [N], workspace>[index]
            pgpu.store %t, %y[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
            pgpu.yield
          }
          pgpu.yield
        } {roles = ["s", "n"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the output is read elsewhere (zeroing it first would change what that read sees).
// CHECK-LABEL: pgpu.kernel @read_elsewhere
// CHECK-NOT: pgpu.atomic_load
// CHECK-NOT: pgpu.while
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @read_elsewhere(%x: !pgpu.view<f32, [S, N], in>, %y: !pgpu.view<f32, [N], inout>,
                 %tickets: !pgpu.buffer<i32, [N], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"},
                 %sum: !pgpu.buffer<f32, [N], workspace> {pgpu.init = 0.000000e+00 : f32, pgpu.kept, pgpu.private = "workspace"}) {
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
        %p = pgpu.for %c0 to %c1 step %c1 iter_args(%zero : f32) -> f32 {
        ^bb0(%k: index, %acc: f32):
          %v = pgpu.load %y[%n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [N], inout>[index] -> f32
          %a = pgpu.binary add %acc, %v : f32
          pgpu.yield %a : f32
        }
        pgpu.scatter_reduce %p, %sum[%n] valid %true : i1 : f32, !pgpu.buffer<f32, [N], workspace>[index] {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary add %l, %r : f32
          pgpu.yield %a : f32
        }
        // expected-remark @below {{pgpu-zero-first: not rewritten: the output view is accessed elsewhere}}
        pgpu.last_program %tickets[%n] arrivals %S : !pgpu.buffer<i32, [N], workspace> {
          %t = pgpu.buffer_load %sum[%n] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [N], workspace>[index] -> f32
          pgpu.buffer_store %zero, %sum[%n] valid %true : i1 : f32, !pgpu.buffer<f32, [N], workspace>[index]
          pgpu.store %t, %y[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], inout>[index]
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

// COM: Must not fire: the arrivals are the instances along the faster axis (an instance would wait on
// COM: one with a larger linear index, which need not have started).
// CHECK-LABEL: pgpu.kernel @fast_arrivals
// CHECK-NOT: pgpu.atomic_load
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @fast_arrivals(%x: !pgpu.view<f32, [S, N], in>, %y: !pgpu.view<f32, [N], out>,
                 %tickets: !pgpu.buffer<i32, [N], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"},
                 %sum: !pgpu.buffer<f32, [N], workspace> {pgpu.init = 0.000000e+00 : f32, pgpu.kept, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %S = arith.constant 4 : index
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [S, N], in>
    %E = pgpu.binary mul %S, %N : index
    pgpu.program_space(%E) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%N, %S) segment 0 roles ["n", "s"] {
      ^bb0(%n: index, %s: index):
        %p = pgpu.for %c0 to %c1 step %c1 iter_args(%zero : f32) -> f32 {
        ^bb0(%k: index, %acc: f32):
          %v = pgpu.load %x[%s, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [S, N], in>[index, index] -> f32
          %a = pgpu.binary add %acc, %v : f32
          pgpu.yield %a : f32
        }
        pgpu.scatter_reduce %p, %sum[%n] valid %true : i1 : f32, !pgpu.buffer<f32, [N], workspace>[index] {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary add %l, %r : f32
          pgpu.yield %a : f32
        }
        // expected-remark @below {{pgpu-zero-first: not rewritten: the arrivals are not the instances along the group's slowest axis}}
        pgpu.last_program %tickets[%n] arrivals %S : !pgpu.buffer<i32, [N], workspace> {
          %t = pgpu.buffer_load %sum[%n] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [N], workspace>[index] -> f32
          pgpu.buffer_store %zero, %sum[%n] valid %true : i1 : f32, !pgpu.buffer<f32, [N], workspace>[index]
          pgpu.store %t, %y[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["n", "s"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire, and must not crash (issue 47: the candidate's main loop was read uninitialized
// COM: when the group body has no loop; pgpu-member-tickets' split partials reach the pass so): every
// COM: other fact holds, but there is no main loop to zero the output ahead of.
// CHECK-LABEL: pgpu.kernel @no_main_loop
// CHECK-NOT: pgpu.atomic_load
// CHECK-NOT: pgpu.while
// CHECK: pgpu.last_program
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @no_main_loop(%x: !pgpu.view<f32, [S, N], in>, %y: !pgpu.view<f32, [N], out>,
                 %tickets: !pgpu.buffer<i32, [N], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"},
                 %sum: !pgpu.buffer<f32, [N], workspace> {pgpu.init = 0.000000e+00 : f32, pgpu.kept, pgpu.private = "workspace"}) {
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
        pgpu.scatter_reduce %v, %sum[%n] valid %true : i1 : f32, !pgpu.buffer<f32, [N], workspace>[index] {
        ^bb0(%l: f32, %r: f32):
          %a = pgpu.binary add %l, %r : f32
          pgpu.yield %a : f32
        }
        // expected-remark @below {{pgpu-zero-first: not rewritten: no loop before the merge to zero the output ahead of}}
        pgpu.last_program %tickets[%n] arrivals %S : !pgpu.buffer<i32, [N], workspace> {
          %t = pgpu.buffer_load %sum[%n] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [N], workspace>[index] -> f32
          pgpu.buffer_store %zero, %sum[%n] valid %true : i1 : f32, !pgpu.buffer<f32, [N], workspace>[index]
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
