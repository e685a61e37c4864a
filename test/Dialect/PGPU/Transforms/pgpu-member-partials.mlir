// RUN: tessel-opt %s -split-input-file -pgpu-member-partials -verify-diagnostics | FileCheck %s

// COM: A column sum over the rows that uses each row's value kept in a buffer (the dw of an RMSNorm
// COM: backward): the last program walks every column, each over every row. Instance m adds its
// COM: terms x[m, n] * rs[m] into sum[n] instead; the last program reads sum[n] and zeroes it. The
// COM: term uses the value instance m stored into rs[m], not a reload of it (one thread stores a
// COM: scalar, every thread would read it back); rs, read by no one then, is no longer stored or passed.
// CHECK-LABEL: pgpu.kernel @columns
// CHECK-NOT: [M], workspace
// CHECK-SAME: %[[SUM:[a-z0-9_]+]]: !pgpu.buffer<f32, [N], workspace> {pgpu.init = 0.000000e+00 : f32, pgpu.kept, pgpu.private = "workspace"}
// CHECK: pgpu.execution_group %{{.*}} extents(%[[E:.*]]) segment 0
// CHECK-NEXT: ^bb0(%[[M:.*]]: index):
// CHECK: %[[INV:.*]] = pgpu.unary rsqrt
// CHECK-NOT: pgpu.buffer_store
// CHECK: pgpu.foreach %{{.*}} to %{{.*}} {
// CHECK-NEXT: ^bb0(%[[N:.*]]: index):
// CHECK-NEXT: %[[X:.*]] = pgpu.load %x[%[[M]], %[[N]]]
// CHECK-NEXT: %[[T:.*]] = pgpu.binary mul %[[X]], %[[INV]]
// CHECK: pgpu.scatter_reduce %[[T]], %[[SUM]][%[[N]]]
// CHECK: pgpu.binary add
// CHECK: pgpu.last_program
// CHECK-NOT: pgpu.range_reduce
// CHECK: %[[V:.*]] = pgpu.buffer_load %[[SUM]][%[[C:.*]]] valid
// CHECK-NEXT: pgpu.buffer_store %{{.*}}, %[[SUM]][%[[C]]]
// CHECK-NEXT: pgpu.store %[[V]], %y[%[[C]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @columns(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [N], out>,
                       %rs: !pgpu.buffer<f32, [M], workspace> {pgpu.private = "workspace"},
                       %ticket: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %P = pgpu.binary max %M, %c1 : index
    pgpu.program_space(%P) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %M : index
      pgpu.if %in {
        pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
        ^bb0(%m: index):
          %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
          ^bb0(%k: index):
            %v = pgpu.load %x[%m, %k] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            %q = pgpu.binary mul %v, %v : f32
            pgpu.yield %q : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %inv = pgpu.unary rsqrt %s : f32
          pgpu.buffer_store %inv, %rs[%m] valid %true : i1 : f32, !pgpu.buffer<f32, [M], workspace>[index]
          pgpu.yield
        } {roles = ["axis0"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          // expected-remark @below {{pgpu-member-partials: this sum over the execution group's members is added by each member}}
          %t = pgpu.range_reduce %c0 to %M identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %v = pgpu.load %x[%i, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            %w = pgpu.buffer_load %rs[%i] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [M], workspace>[index] -> f32
            %p = pgpu.binary mul %v, %w : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %t, %y[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
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

// COM: Must not fire: the column sum reads z, which the group writes (the last program must see every
// COM: row's store before it reads; a member has only its own).
// CHECK-LABEL: pgpu.kernel @written
// CHECK-NOT: pgpu.scatter_reduce
// CHECK: pgpu.last_program
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @written(%x: !pgpu.view<f32, [M, N], in>, %z: !pgpu.view<f32, [M, N], out>, %y: !pgpu.view<f32, [N], out>,
                       %ticket: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %P = pgpu.binary max %M, %c1 : index
    pgpu.program_space(%P) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %M : index
      pgpu.if %in {
        pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
        ^bb0(%m: index):
          pgpu.foreach %c0 to %N {
          ^bb0(%k: index):
            %v = pgpu.load %x[%m, %k] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            %q = pgpu.binary mul %v, %v : f32
            pgpu.store %q, %z[%m, %k] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
            pgpu.yield
          }
          pgpu.yield
        } {roles = ["axis0"], segment = 0 : i64}
        pgpu.yield
      }
      // expected-remark @below {{pgpu-member-partials: not rewritten: the element reads a view the kernel writes}}
      pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %t = pgpu.range_reduce %c0 to %M identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %v = pgpu.load %z[%i, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], out>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %t, %y[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
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

// COM: Must not fire: a maximum over the rows (no atomic add merges it) stays in the last program.
// CHECK-LABEL: pgpu.kernel @maximum
// CHECK-NOT: pgpu.scatter_reduce
// CHECK: pgpu.last_program
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @maximum(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [N], out>,
                       %rs: !pgpu.buffer<f32, [M], workspace> {pgpu.private = "workspace"},
                       %ticket: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %P = pgpu.binary max %M, %c1 : index
    pgpu.program_space(%P) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %M : index
      pgpu.if %in {
        pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
        ^bb0(%m: index):
          %v = pgpu.load %x[%m, %c0] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.buffer_store %v, %rs[%m] valid %true : i1 : f32, !pgpu.buffer<f32, [M], workspace>[index]
          pgpu.yield
        } {roles = ["axis0"], segment = 0 : i64}
        pgpu.yield
      }
      // expected-remark @below {{pgpu-member-partials: not rewritten: the reduce is not a sum from zero}}
      pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %t = pgpu.range_reduce %c0 to %M identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %v = pgpu.load %x[%i, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            %w = pgpu.buffer_load %rs[%i] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [M], workspace>[index] -> f32
            %p = pgpu.binary mul %v, %w : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary max %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %t, %y[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
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

// COM: The row value is read back by the group itself too (a reload after the store): the spread still
// COM: uses the stored value (no reload of what one thread stored), but the buffer has a reader left, so
// COM: it stays, with its store.
// CHECK-LABEL: pgpu.kernel @reloaded
// CHECK-SAME: %[[RS:[a-z0-9_]+]]: !pgpu.buffer<f32, [M], workspace>
// CHECK: pgpu.execution_group
// CHECK-NEXT: ^bb0(%[[M:.*]]: index):
// CHECK: %[[V:.*]] = pgpu.load %x[%[[M]], %{{.*}}]
// CHECK-NEXT: pgpu.buffer_store %[[V]], %[[RS]][%[[M]]]
// CHECK-NEXT: %[[BACK:.*]] = pgpu.buffer_load %[[RS]][%[[M]]]
// CHECK-NEXT: pgpu.store %[[BACK]], %z[%[[M]]]
// CHECK-NEXT: pgpu.foreach
// CHECK-NEXT: ^bb0(%[[N:.*]]: index):
// CHECK-NEXT: %[[X:.*]] = pgpu.load %x[%[[M]], %[[N]]]
// CHECK-NEXT: %[[T:.*]] = pgpu.binary mul %[[X]], %[[V]]
// CHECK: pgpu.scatter_reduce %[[T]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @reloaded(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [N], out>, %z: !pgpu.view<f32, [M], out>,
                        %rs: !pgpu.buffer<f32, [M], workspace> {pgpu.private = "workspace"},
                        %ticket: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %P = pgpu.binary max %M, %c1 : index
    pgpu.program_space(%P) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %M : index
      pgpu.if %in {
        pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
        ^bb0(%m: index):
          %v = pgpu.load %x[%m, %c0] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.buffer_store %v, %rs[%m] valid %true : i1 : f32, !pgpu.buffer<f32, [M], workspace>[index]
          %back = pgpu.buffer_load %rs[%m] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [M], workspace>[index] -> f32
          pgpu.store %back, %z[%m] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
          pgpu.yield
        } {roles = ["axis0"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          // expected-remark @below {{pgpu-member-partials: this sum over the execution group's members is added by each member}}
          %t = pgpu.range_reduce %c0 to %M identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %v = pgpu.load %x[%i, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            %w = pgpu.buffer_load %rs[%i] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [M], workspace>[index] -> f32
            %p = pgpu.binary mul %v, %w : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %t, %y[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
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

// COM: Two sums over the rows in one foreach of the columns (a LayerNorm backward's dw and db): each gets
// COM: its own kept workspace, and one foreach at the end of the group adds both terms of a column, so
// COM: the member's read of x[m, n] serves both; the last program reads and zeroes each.
// CHECK-LABEL: pgpu.kernel @two_sums
// CHECK-SAME: %[[S1:[a-z0-9_]+]]: !pgpu.buffer<f32, [N], workspace> {pgpu.init = 0.000000e+00 : f32, pgpu.kept, pgpu.private = "workspace"}
// CHECK-SAME: %[[S2:[a-z0-9_]+]]: !pgpu.buffer<f32, [N], workspace> {pgpu.init = 0.000000e+00 : f32, pgpu.kept, pgpu.private = "workspace"}
// CHECK: pgpu.execution_group
// CHECK-NEXT: ^bb0(%[[M:.*]]: index):
// CHECK: %[[INV:.*]] = pgpu.unary rsqrt
// CHECK: pgpu.foreach %{{.*}} to %{{.*}} {
// CHECK-NEXT: ^bb0(%[[N:.*]]: index):
// CHECK-NEXT: %[[X:.*]] = pgpu.load %x[%[[M]], %[[N]]]
// CHECK-NEXT: %[[T:.*]] = pgpu.binary mul %[[X]], %[[INV]]
// CHECK: pgpu.scatter_reduce %[[T]], %[[S1]][%[[N]]]
// CHECK: %[[X2:.*]] = pgpu.load %x[%[[M]], %[[N]]]
// CHECK: pgpu.scatter_reduce %[[X2]], %[[S2]][%[[N]]]
// CHECK-NOT: pgpu.foreach
// CHECK: pgpu.last_program
// CHECK-NOT: pgpu.range_reduce
// CHECK: %[[V1:.*]] = pgpu.buffer_load %[[S1]][%[[C:.*]]] valid
// CHECK-NEXT: pgpu.buffer_store %{{.*}}, %[[S1]][%[[C]]]
// CHECK: %[[V2:.*]] = pgpu.buffer_load %[[S2]][%[[C]]] valid
// CHECK-NEXT: pgpu.buffer_store %{{.*}}, %[[S2]][%[[C]]]
// CHECK: pgpu.store %[[V1]], %dw[%[[C]]]
// CHECK: pgpu.store %[[V2]], %db[%[[C]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @two_sums(%x: !pgpu.view<f32, [M, N], in>, %dw: !pgpu.view<f32, [N], out>, %db: !pgpu.view<f32, [N], out>,
                        %rs: !pgpu.buffer<f32, [M], workspace> {pgpu.private = "workspace"},
                        %ticket: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %P = pgpu.binary max %M, %c1 : index
    pgpu.program_space(%P) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %M : index
      pgpu.if %in {
        pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
        ^bb0(%m: index):
          %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
          ^bb0(%k: index):
            %v = pgpu.load %x[%m, %k] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            %q = pgpu.binary mul %v, %v : f32
            pgpu.yield %q : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %inv = pgpu.unary rsqrt %s : f32
          pgpu.buffer_store %inv, %rs[%m] valid %true : i1 : f32, !pgpu.buffer<f32, [M], workspace>[index]
          pgpu.yield
        } {roles = ["axis0"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          // expected-remark @below {{pgpu-member-partials: this sum over the execution group's members is added by each member}}
          %t = pgpu.range_reduce %c0 to %M identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %v = pgpu.load %x[%i, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            %w = pgpu.buffer_load %rs[%i] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [M], workspace>[index] -> f32
            %p = pgpu.binary mul %v, %w : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          // expected-remark @below {{pgpu-member-partials: this sum over the execution group's members is added by each member}}
          %u = pgpu.range_reduce %c0 to %M identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %v = pgpu.load %x[%i, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %t, %dw[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.store %u, %db[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
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

// COM: Must not fire: of two reduces over the rows, one is a maximum (no atomic add merges it); neither is
// COM: spread (the last program walks the rows for the maximum anyway).
// CHECK-LABEL: pgpu.kernel @sum_and_max
// CHECK-NOT: pgpu.scatter_reduce
// CHECK: pgpu.last_program
// CHECK: pgpu.range_reduce
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @sum_and_max(%x: !pgpu.view<f32, [M, N], in>, %dw: !pgpu.view<f32, [N], out>, %db: !pgpu.view<f32, [N], out>,
                           %ticket: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %P = pgpu.binary max %M, %c1 : index
    pgpu.program_space(%P) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %M : index
      pgpu.if %in {
        pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
        ^bb0(%m: index):
          pgpu.yield
        } {roles = ["axis0"], segment = 0 : i64}
        pgpu.yield
      }
      // expected-remark @below {{pgpu-member-partials: not rewritten: the reduce is not a sum from zero}}
      pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %t = pgpu.range_reduce %c0 to %M identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %v = pgpu.load %x[%i, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %u = pgpu.range_reduce %c0 to %M identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %v = pgpu.load %x[%i, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary max %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %t, %dw[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
          pgpu.store %u, %db[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
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

// COM: Sums over the members read by a reduction over the columns (corpus 256's load-balance loss:
// COM: per-expert counts of the rows' argmax and mean probabilities, then a sum over the experts of
// COM: their products), and a kernel-level statement's sum of what each row kept (its z-loss). Each
// COM: member adds its column terms into a kept workspace over the columns (sized by a
// COM: workspace_extent of the reduction's bound) and its scalar into a [1] workspace; the last program
// COM: reads them (the reduction's element stays pure) and zeroes the columns after the reduction.
// CHECK-LABEL: pgpu.kernel @column_products
// CHECK-SAME: %[[T:[a-z0-9_]+]]: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32
// CHECK-SAME: %[[SF:[a-z0-9_]+]]: !pgpu.buffer<f32, [MEMBER_COLUMNS], workspace> {pgpu.init = 0.000000e+00 : f32, pgpu.kept
// CHECK-SAME: %[[SZ:[a-z0-9_]+]]: !pgpu.buffer<f32, [1], workspace> {pgpu.init = 0.000000e+00 : f32, pgpu.kept
// CHECK: pgpu.workspace_extent "MEMBER_COLUMNS"
// CHECK: pgpu.execution_group
// CHECK-NEXT: ^bb0(%[[M:.*]]: index):
// CHECK: %[[S:.*]] = pgpu.range_reduce
// CHECK: %[[Q:.*]] = pgpu.binary mul %[[S]], %[[S]]
// CHECK: pgpu.foreach %{{.*}} to %{{.*}} {
// CHECK-NEXT: ^bb0(%[[N:.*]]: index):
// CHECK-NEXT: %[[X:.*]] = pgpu.load %x[%[[M]], %[[N]]]
// CHECK-NEXT: %[[P:.*]] = pgpu.binary div %[[X]], %[[S]]
// CHECK: pgpu.scatter_reduce %[[P]], %[[SF]][%[[N]]]
// CHECK: pgpu.scatter_reduce %[[Q]], %[[SZ]][%{{.*}}]
// CHECK: pgpu.last_program
// CHECK: pgpu.range_reduce
// CHECK-NEXT: ^bb0(%[[C:.*]]: index):
// CHECK-NOT: pgpu.buffer_store
// CHECK: pgpu.buffer_load %[[SF]][%[[C]]]
// CHECK: pgpu.foreach
// CHECK: pgpu.buffer_store %{{.*}}, %[[SF]]
// CHECK: pgpu.store %{{.*}}, %y
// CHECK: pgpu.buffer_load %[[SZ]]
// CHECK-NEXT: pgpu.buffer_store %{{.*}}, %[[SZ]]
// CHECK: pgpu.store %{{.*}}, %w
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @column_products(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [1], out>, %w: !pgpu.view<f32, [1], out>,
                       %rs: !pgpu.buffer<f32, [M], workspace> {pgpu.private = "workspace"},
                       %sq: !pgpu.buffer<f32, [M], workspace> {pgpu.private = "workspace"},
                       %ticket: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %P = pgpu.binary max %M, %c1 : index
    pgpu.program_space(%P) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %M : index
      pgpu.if %in {
        pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
        ^bb0(%m: index):
          %s = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
          ^bb0(%k: index):
            %v = pgpu.load %x[%m, %k] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %q = pgpu.binary mul %s, %s : f32
          pgpu.buffer_store %s, %rs[%m] valid %true : i1 : f32, !pgpu.buffer<f32, [M], workspace>[index]
          pgpu.buffer_store %q, %sq[%m] valid %true : i1 : f32, !pgpu.buffer<f32, [M], workspace>[index]
          pgpu.yield
        } {roles = ["axis0"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
        pgpu.foreach %c0 to %c1 {
        ^bb0(%o: index):
          %t = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
          ^bb0(%n: index):
            // expected-remark @below {{pgpu-member-partials: this sum over the execution group's members is added by each member}}
            %c = pgpu.range_reduce %c0 to %M identity(%zero : f32) -> (f32) element {
            ^bb0(%i: index):
              %v = pgpu.load %x[%i, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
              %d = pgpu.buffer_load %rs[%i] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [M], workspace>[index] -> f32
              %p = pgpu.binary div %v, %d : f32
              pgpu.yield %p : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %a = pgpu.binary add %l, %r : f32
              pgpu.yield %a : f32
            }
            %cc = pgpu.binary mul %c, %c : f32
            pgpu.yield %cc : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %t, %y[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.foreach %c0 to %c1 {
        ^bb0(%o: index):
          // expected-remark @below {{pgpu-member-partials: this sum over the execution group's members is added by each member}}
          %u = pgpu.range_reduce %c0 to %M identity(%zero : f32) -> (f32) element {
          ^bb0(%i: index):
            %d = pgpu.buffer_load %sq[%i] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [M], workspace>[index] -> f32
            pgpu.yield %d : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %h = pgpu.binary mul %u, %u : f32
          pgpu.store %h, %w[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
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

// COM: Must not fire: the sum over the members inside the reduction over the columns reads a value the
// COM: finalization computes (a scale of the column's statement, not available to the members).
// CHECK-LABEL: pgpu.kernel @scaled_in_finalization
// CHECK-NOT: pgpu.scatter_reduce
// CHECK: pgpu.last_program
// CHECK: pgpu.range_reduce
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @scaled_in_finalization(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [1], out>,
                       %ticket: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.000000e+00 : f32
    %true = arith.constant true
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %P = pgpu.binary max %M, %c1 : index
    pgpu.program_space(%P) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %M : index
      pgpu.if %in {
        pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
        ^bb0(%m: index):
          pgpu.yield
        } {roles = ["axis0"], segment = 0 : i64}
        pgpu.yield
      }
      // expected-remark @below {{pgpu-member-partials: not rewritten: the element uses a value the finalization computes}}
      pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
        pgpu.foreach %c0 to %c1 {
        ^bb0(%o: index):
          %f = pgpu.cast %M : index to f32
          %t = pgpu.range_reduce %c0 to %N identity(%zero : f32) -> (f32) element {
          ^bb0(%n: index):
            %c = pgpu.range_reduce %c0 to %M identity(%zero : f32) -> (f32) element {
            ^bb0(%i: index):
              %v = pgpu.load %x[%i, %n] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
              %p = pgpu.binary div %v, %f : f32
              pgpu.yield %p : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %a = pgpu.binary add %l, %r : f32
              pgpu.yield %a : f32
            }
            pgpu.yield %c : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.store %t, %y[%c0] valid %true : i1 : f32, !pgpu.view<f32, [1], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
