// RUN: tessel-opt %s -split-input-file -pgpu-flatten-worksets -verify-diagnostics | FileCheck %s

// COM: A loop over B around a row workset (the batched GEMV spelled with T.parallel(b) around
// COM: T.matvec): the foreach over the rows is the program's whole body, so it becomes program axis 1
// COM: and the program space grows by its trip count; the member is the new coordinate.
// CHECK-LABEL: pgpu.kernel @rows
// CHECK: %[[B:.*]] = pgpu.extent %x[0]
// CHECK: %[[M:.*]] = pgpu.extent %x[1]
// CHECK: %[[G:.*]] = pgpu.binary mul %[[B]], %[[M]] : index
// CHECK: pgpu.program_space(%[[G]]) {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[B]], %[[M]]) segment 0 roles ["b", "axis1"]
// CHECK-NEXT: ^bb0(%[[PB:.*]]: index, %[[PM:.*]]: index):
// CHECK-NOT: pgpu.foreach
// CHECK: %[[V:.*]] = pgpu.load %x[%[[PB]], %[[PM]]]
// CHECK: pgpu.store %{{.*}}, %y[%[[PB]], %[[PM]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @rows(%x: !pgpu.view<f32, [B, M], in>, %y: !pgpu.view<f32, [B, M], out>) {
    %c0 = arith.constant 0 : index
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, M], in>
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [B, M], in>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%B) segment 0 roles ["b"] {
      ^bb0(%b: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is the program's whole body becomes program axis 1}}
        pgpu.foreach %c0 to %M {
        ^bb0(%m: index):
          %v = pgpu.load %x[%b, %m] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, M], in>[index, index] -> f32
          %w = pgpu.binary mul %v, %v : f32
          pgpu.store %w, %y[%b, %m] valid %t : i1 : f32, !pgpu.view<f32, [B, M], out>[index, index]
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

// COM: Nested worksets flatten one after the other; a workset starting past 0 offsets its member and
// COM: its trip count max(hi - lo, 0) is clamped.
// CHECK-LABEL: pgpu.kernel @nested
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[N:.*]] = pgpu.extent %x[0]
// CHECK: %[[M:.*]] = pgpu.extent %x[1]
// CHECK: %[[G1:.*]] = pgpu.binary mul %[[C1]], %[[N]] : index
// CHECK: %[[D:.*]] = pgpu.binary sub %[[M]], %[[C1]] : index
// CHECK: %[[T:.*]] = pgpu.binary max %[[D]], %{{.*}} : index
// CHECK: %[[G2:.*]] = pgpu.binary mul %[[G1]], %[[T]] : index
// CHECK: pgpu.program_space(%[[G2]]) {
// CHECK: pgpu.execution_group %{{.*}} extents(%[[C1]], %[[N]], %[[T]]) segment 0 roles ["one", "axis1", "axis2"]
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[I:.*]]: index, %[[J:.*]]: index):
// CHECK: %[[JJ:.*]] = pgpu.binary add %[[C1]], %[[J]] : index
// CHECK: pgpu.store %{{.*}}, %y[%[[I]], %[[JJ]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @nested(%x: !pgpu.view<f32, [N, M], in>, %y: !pgpu.view<f32, [N, M], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, M], in>
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [N, M], in>
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%c1) segment 0 roles ["one"] {
      ^bb0(%o: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.foreach %c0 to %N {
        ^bb0(%i: index):
          pgpu.foreach %c1 to %M {
          ^bb0(%j: index):
            %v = pgpu.load %x[%i, %j] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, M], in>[index, index] -> f32
            pgpu.store %v, %y[%i, %j] valid %t : i1 : f32, !pgpu.view<f32, [N, M], out>[index, index]
            pgpu.yield
          }
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

// COM: Must not fire: a store after the workset would run once per new program.
// CHECK-LABEL: pgpu.kernel @after
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @after(%x: !pgpu.view<f32, [B, M], in>, %y: !pgpu.view<f32, [B, M], out>) {
    %c0 = arith.constant 0 : index
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, M], in>
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [B, M], in>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: not flattened: the program does more after the workset}}
      pgpu.execution_group %p extents(%B) segment 0 roles ["b"] {
      ^bb0(%b: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.foreach %c0 to %M {
        ^bb0(%m: index):
          %v = pgpu.load %x[%b, %m] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, M], in>[index, index] -> f32
          pgpu.store %v, %y[%b, %m] valid %t : i1 : f32, !pgpu.view<f32, [B, M], out>[index, index]
          pgpu.yield
        }
        pgpu.store %z, %y[%b, %c0] valid %t : i1 : f32, !pgpu.view<f32, [B, M], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the workset's bound depends on the program (a triangle).
// CHECK-LABEL: pgpu.kernel @triangle
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @triangle(%x: !pgpu.view<f32, [B, M], in>, %y: !pgpu.view<f32, [B, M], out>) {
    %c0 = arith.constant 0 : index
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, M], in>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: not flattened: its bounds are not launch-uniform}}
      pgpu.execution_group %p extents(%B) segment 0 roles ["b"] {
      ^bb0(%b: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.foreach %c0 to %b {
        ^bb0(%m: index):
          %v = pgpu.load %x[%b, %m] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, M], in>[index, index] -> f32
          pgpu.store %v, %y[%b, %m] valid %t : i1 : f32, !pgpu.view<f32, [B, M], out>[index, index]
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

// COM: Under construction's dispatch guard beside a last-program finalization (split-K's sum): the
// COM: row and column worksets flatten as well; the guard bounds the members by the product of the
// COM: group's extents and the space keeps one instance for the finalization (its count is the
// COM: space's own, so it follows).
// CHECK-LABEL: pgpu.kernel @guarded
// CHECK: %[[SM:.*]] = pgpu.binary mul %[[S:.*]], %[[M:.*]] : index
// CHECK-NEXT: arith.constant 1
// CHECK-NEXT: pgpu.binary max %[[SM]]
// CHECK-NEXT: %[[SMN:.*]] = pgpu.binary mul %[[SM]], %[[N:.*]] : index
// CHECK-NEXT: arith.constant 1
// CHECK-NEXT: %[[G:.*]] = pgpu.binary max %[[SMN]], %{{.*}} : index
// CHECK: pgpu.program_space(%[[G]]) {
// CHECK: pgpu.cmp lt %{{.*}}, %[[SMN]] : index
// CHECK: pgpu.execution_group %{{.*}} extents(%[[S]], %[[M]], %[[N]]) segment 0
// CHECK-NOT: pgpu.foreach
// CHECK: pgpu.buffer_store
// CHECK: pgpu.last_program %arg1 :
// CHECK: pgpu.foreach
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @guarded(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>, %c: !pgpu.view<f32, [M, N], out>, %arg0: !pgpu.buffer<f32, [4, M, N], workspace> {pgpu.private = "workspace"}, %arg1: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) {
    %cst = arith.constant 0.000000e+00 : f16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %1 = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %2 = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %2, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %c4, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary add %1, %c3 : index
    %10 = pgpu.binary div %9, %c4 : index
    %11 = pgpu.binary max %8, %c1 : index
    pgpu.program_space(%11) {
    ^bb0(%arg2: index):
      %12 = pgpu.cmp lt %arg2, %8 : index
      pgpu.if %12 {
        pgpu.execution_group %arg2 extents(%8) segment 0 roles ["axis0"] {
        ^bb0(%arg3: index):
          %13 = pgpu.binary mul %arg3, %10 : index
          %14 = pgpu.binary min %13, %1 : index
          %15 = pgpu.binary add %arg3, %c1 : index
          %16 = pgpu.binary mul %15, %10 : index
          %17 = pgpu.binary min %16, %1 : index
          %18 = pgpu.binary max %14, %c0 : index
          %19 = pgpu.binary min %17, %1 : index
          %20 = pgpu.binary sub %19, %18 : index
          %21 = pgpu.binary max %20, %c0 : index
          pgpu.foreach %c0 to %4 {
          ^bb0(%arg4: index):
            pgpu.foreach %c0 to %6 {
            ^bb0(%arg5: index):
              %22 = pgpu.range_reduce %c0 to %21 identity(%cst_0 : f32) -> (f32) element {
              ^bb0(%arg6: index):
                %23 = pgpu.binary add %18, %arg6 : index
                %24 = pgpu.load %a[%arg4, %23] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
                %25 = pgpu.load %b[%23, %arg5] valid %true : i1 fill %cst : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
                %26 = pgpu.cast %24 : f16 to f32
                %27 = pgpu.cast %25 : f16 to f32
                %28 = pgpu.binary mul %26, %27 : f32
                pgpu.yield %28 : f32
              } combine {
              ^bb0(%arg6: f32, %arg7: f32):
                %23 = pgpu.binary add %arg6, %arg7 : f32
                pgpu.yield %23 : f32
              }
              pgpu.buffer_store %22, %arg0[%arg3, %arg4, %arg5] valid %true : i1 : f32, !pgpu.buffer<f32, [4, M, N], workspace>[index, index, index]
              pgpu.yield
            }
            pgpu.yield
          }
          pgpu.yield
        } {roles = ["axis0"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.last_program %arg1 : !pgpu.buffer<i32, [1], workspace> {
        %13 = pgpu.binary mul %4, %6 : index
        pgpu.foreach %c0 to %13 {
        ^bb0(%arg3: index):
          %14:2 = pgpu.delinearize %arg3 by(%4, %6) : index, index
          %15 = pgpu.range_reduce %c0 to %8 identity(%cst_0 : f32) -> (f32) element {
          ^bb0(%arg4: index):
            %16 = pgpu.buffer_load %arg0[%arg4, %14#0, %14#1] valid %true : i1 fill %cst_0 : f32 : !pgpu.buffer<f32, [4, M, N], workspace>[index, index, index] -> f32
            pgpu.yield %16 : f32
          } combine {
          ^bb0(%arg4: f32, %arg5: f32):
            %16 = pgpu.binary add %arg4, %arg5 : f32
            pgpu.yield %16 : f32
          }
          pgpu.store %15, %c[%14#0, %14#1] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: A per-row read of an `In` view before a nest of worksets (a sequence's length, then its
// COM: (position, dim) points): no program writes %len, so each new program reads it again and gets
// COM: the same value; the nest flattens whole, the read stays at the top of the body.
// CHECK-LABEL: pgpu.kernel @row_read
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}, %{{.*}}) segment 0 roles ["b", "axis1", "axis2"]
// CHECK-NEXT: ^bb0(%[[PB:.*]]: index, %[[PM:.*]]: index, %[[PD:.*]]: index):
// CHECK-NOT: pgpu.foreach
// CHECK: %[[L:.*]] = pgpu.load %len[%[[PB]]]
// CHECK: %[[N:.*]] = pgpu.cast %[[L]] : i32 to index
// CHECK: pgpu.cmp lt %[[PM]], %[[N]] : index
// CHECK: pgpu.store %{{.*}}, %y[%[[PB]], %[[PM]], %[[PD]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @row_read(%len: !pgpu.view<i32, [B], in>, %x: !pgpu.view<f32, [B, M, D], in>, %y: !pgpu.view<f32, [B, M, D], out>) {
    %c0 = arith.constant 0 : index
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, M, D], in>
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [B, M, D], in>
    %D = pgpu.extent %x[2] : !pgpu.view<f32, [B, M, D], in>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%B) segment 0 roles ["b"] {
      ^bb0(%b: index):
        %z = arith.constant 0.0 : f32
        %zi = arith.constant 0 : i32
        %t = arith.constant true
        %l = pgpu.load %len[%b] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [B], in>[index] -> i32
        %n = pgpu.cast %l : i32 to index
        // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is the program's whole body becomes program axis 1}}
        pgpu.foreach %c0 to %M {
        ^bb0(%m: index):
          // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is the program's whole body becomes program axis 2}}
          pgpu.foreach %c0 to %D {
          ^bb0(%d: index):
            %live = pgpu.cmp lt %m, %n : index
            %v = pgpu.load %x[%b, %m, %d] valid %live : i1 fill %z : f32 : !pgpu.view<f32, [B, M, D], in>[index, index, index] -> f32
            pgpu.store %v, %y[%b, %m, %d] valid %t : i1 : f32, !pgpu.view<f32, [B, M, D], out>[index, index, index]
            pgpu.yield
          }
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

// COM: Must not fire: a per-row read before a workset of one axis (a row scaled by its own value):
// COM: the row form stays, one program a member, walked in blocks by pgpu-form-blocking.
// CHECK-LABEL: pgpu.kernel @one_row
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @one_row(%s: !pgpu.view<f32, [B], in>, %x: !pgpu.view<f32, [B, M], in>, %y: !pgpu.view<f32, [B, M], out>) {
    %c0 = arith.constant 0 : index
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, M], in>
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [B, M], in>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: not flattened: the program reads before a workset of one axis}}
      pgpu.execution_group %p extents(%B) segment 0 roles ["b"] {
      ^bb0(%b: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %k = pgpu.load %s[%b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B], in>[index] -> f32
        pgpu.foreach %c0 to %M {
        ^bb0(%m: index):
          %v = pgpu.load %x[%b, %m] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, M], in>[index, index] -> f32
          %w = pgpu.binary mul %v, %k : f32
          pgpu.store %w, %y[%b, %m] valid %t : i1 : f32, !pgpu.view<f32, [B, M], out>[index, index]
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

// COM: Must not fire: the read before the workset is of an InOut view, which the members write (a new
// COM: program could read an element another has already written).
// CHECK-LABEL: pgpu.kernel @inout_read
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @inout_read(%y: !pgpu.view<f32, [B, M], inout>) {
    %c0 = arith.constant 0 : index
    %B = pgpu.extent %y[0] : !pgpu.view<f32, [B, M], inout>
    %M = pgpu.extent %y[1] : !pgpu.view<f32, [B, M], inout>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: not flattened: the program does more than the workset}}
      pgpu.execution_group %p extents(%B) segment 0 roles ["b"] {
      ^bb0(%b: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %first = pgpu.load %y[%b, %c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, M], inout>[index, index] -> f32
        pgpu.foreach %c0 to %M {
        ^bb0(%m: index):
          %v = pgpu.load %y[%b, %m] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, M], inout>[index, index] -> f32
          %w = pgpu.binary sub %v, %first : f32
          pgpu.store %w, %y[%b, %m] valid %t : i1 : f32, !pgpu.view<f32, [B, M], inout>[index, index]
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

// COM: Must not fire: a read before a workset whose members loop (a sum over a row's live prefix per
// COM: column): the row form stays for pgpu-tile-column-reductions.
// CHECK-LABEL: pgpu.kernel @looping_members
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @looping_members(%len: !pgpu.view<i32, [B], in>, %x: !pgpu.view<f32, [B, K, M], in>, %y: !pgpu.view<f32, [B, M], out>) {
    %c0 = arith.constant 0 : index
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, K, M], in>
    %M = pgpu.extent %x[2] : !pgpu.view<f32, [B, K, M], in>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: not flattened: the program reads before a workset whose members loop}}
      pgpu.execution_group %p extents(%B) segment 0 roles ["b"] {
      ^bb0(%b: index):
        %z = arith.constant 0.0 : f32
        %zi = arith.constant 0 : i32
        %t = arith.constant true
        %l = pgpu.load %len[%b] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [B], in>[index] -> i32
        %n = pgpu.cast %l : i32 to index
        pgpu.foreach %c0 to %M {
        ^bb0(%m: index):
          %s = pgpu.range_reduce %c0 to %n identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %v = pgpu.load %x[%b, %k, %m] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, K, M], in>[index, index, index] -> f32
            pgpu.yield %v : f32
          } combine {
          ^bb0(%u: f32, %w: f32):
            %a = pgpu.binary add %u, %w : f32
            pgpu.yield %a : f32
          }
          pgpu.store %s, %y[%b, %m] valid %t : i1 : f32, !pgpu.view<f32, [B, M], out>[index, index]
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

// COM: Reads that offset the members' coordinates (a packed sequence's start row, corpus 250's re-pad:
// COM: x[start + p] for p < len, zeros after) are addresses, not values the members compute with: the
// COM: nest flattens whole and every new program reads start and the next start again.
// CHECK-LABEL: pgpu.kernel @offset_nest
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}, %{{.*}}) segment 0 roles ["b", "axis1", "axis2"]
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[P:.*]]: index, %[[D:.*]]: index):
// CHECK-NOT: pgpu.foreach
// CHECK: %[[S:.*]] = pgpu.cast
// CHECK: %[[R:.*]] = pgpu.binary add %[[S]], %[[P]]
// CHECK: pgpu.gather %x[%[[R]], %[[D]]]
// CHECK: pgpu.store %{{.*}}, %y[%[[B]], %[[P]], %[[D]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @offset_nest(%cu: !pgpu.view<i32, [B1], in>, %x: !pgpu.view<f32, [T, D], in>, %y: !pgpu.view<f32, [B, S, D], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %B = pgpu.extent %y[0] : !pgpu.view<f32, [B, S, D], out>
    %S = pgpu.extent %y[1] : !pgpu.view<f32, [B, S, D], out>
    %D = pgpu.extent %y[2] : !pgpu.view<f32, [B, S, D], out>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%B) segment 0 roles ["b"] {
      ^bb0(%b: index):
        %z = arith.constant 0.0 : f32
        %zi = arith.constant 0 : i32
        %t = arith.constant true
        %l0 = pgpu.load %cu[%b] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [B1], in>[index] -> i32
        %start = pgpu.cast %l0 : i32 to index
        %b1 = pgpu.binary add %b, %c1 : index
        %l1 = pgpu.load %cu[%b1] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [B1], in>[index] -> i32
        %end = pgpu.cast %l1 : i32 to index
        %len = pgpu.binary sub %end, %start : index
        // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is the program's whole body becomes program axis 1}}
        pgpu.foreach %c0 to %S {
        ^bb0(%s: index):
          // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is the program's whole body becomes program axis 2}}
          pgpu.foreach %c0 to %D {
          ^bb0(%d: index):
            %row = pgpu.binary add %start, %s : index
            %in = pgpu.cmp lt %s, %len : index
            %v = pgpu.gather %x[%row, %d] valid %in : i1 fill %z : f32 : !pgpu.view<f32, [T, D], in>[index, index] -> f32
            pgpu.store %v, %y[%b, %s, %d] valid %t : i1 : f32, !pgpu.view<f32, [B, S, D], out>[index, index, index]
            pgpu.yield
          }
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

// COM: Must not fire: the read offsets a coordinate and also enters the members' arithmetic (the start
// COM: row added to the value): a value the members compute with keeps the row form.
// CHECK-LABEL: pgpu.kernel @offset_and_value
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @offset_and_value(%cu: !pgpu.view<i32, [B], in>, %x: !pgpu.view<f32, [T, D], in>, %y: !pgpu.view<f32, [B, S, D], out>) {
    %c0 = arith.constant 0 : index
    %B = pgpu.extent %y[0] : !pgpu.view<f32, [B, S, D], out>
    %S = pgpu.extent %y[1] : !pgpu.view<f32, [B, S, D], out>
    %D = pgpu.extent %y[2] : !pgpu.view<f32, [B, S, D], out>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: not flattened: the program reads a value its members compute with before the workset}}
      pgpu.execution_group %p extents(%B) segment 0 roles ["b"] {
      ^bb0(%b: index):
        %z = arith.constant 0.0 : f32
        %zi = arith.constant 0 : i32
        %t = arith.constant true
        %l0 = pgpu.load %cu[%b] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [B], in>[index] -> i32
        %start = pgpu.cast %l0 : i32 to index
        %f = pgpu.cast %l0 : i32 to f32
        pgpu.foreach %c0 to %S {
        ^bb0(%s: index):
          pgpu.foreach %c0 to %D {
          ^bb0(%d: index):
            %row = pgpu.binary add %start, %s : index
            %v = pgpu.gather %x[%row, %d] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [T, D], in>[index, index] -> f32
            %w = pgpu.binary add %v, %f : f32
            pgpu.store %w, %y[%b, %s, %d] valid %t : i1 : f32, !pgpu.view<f32, [B, S, D], out>[index, index, index]
            pgpu.yield
          }
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

// COM: Must not fire: a per-member read whose value enters the members' arithmetic (a per-channel
// COM: scale, corpus 102_b's weights and bias) before a nest of worksets: the row form stays; only
// COM: reads that bound or mask the members (a sequence's length) are repeated per program.
// CHECK-LABEL: pgpu.kernel @scaled_nest
// CHECK: pgpu.foreach
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @scaled_nest(%s: !pgpu.view<f32, [B], in>, %x: !pgpu.view<f32, [B, H, W], in>, %y: !pgpu.view<f32, [B, H, W], out>) {
    %c0 = arith.constant 0 : index
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, H, W], in>
    %H = pgpu.extent %x[1] : !pgpu.view<f32, [B, H, W], in>
    %W = pgpu.extent %x[2] : !pgpu.view<f32, [B, H, W], in>
    pgpu.program_space (%B) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: not flattened: the program reads a value its members compute with before the workset}}
      pgpu.execution_group %p extents(%B) segment 0 roles ["b"] {
      ^bb0(%b: index):
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        %k = pgpu.load %s[%b] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B], in>[index] -> f32
        pgpu.foreach %c0 to %H {
        ^bb0(%h: index):
          pgpu.foreach %c0 to %W {
          ^bb0(%w: index):
            %v = pgpu.load %x[%b, %h, %w] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, H, W], in>[index, index, index] -> f32
            %r = pgpu.binary mul %v, %k : f32
            pgpu.store %r, %y[%b, %h, %w] valid %t : i1 : f32, !pgpu.view<f32, [B, H, W], out>[index, index, index]
            pgpu.yield
          }
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

// COM: Sibling worksets over the same range writing different views and reading none they write (a
// COM: pool's values and its argmax indices, one workset per stored output) become one workset, which
// COM: then flattens: each member runs the first body, then the second.
// CHECK-LABEL: pgpu.kernel @siblings
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0 roles ["m", "axis1"]
// CHECK-NEXT: ^bb0(%[[M:.*]]: index, %[[N:.*]]: index):
// CHECK-NOT: pgpu.foreach
// CHECK: pgpu.store %{{.*}}, %y[%[[M]], %[[N]]]
// CHECK: pgpu.store %{{.*}}, %z[%[[M]], %[[N]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @siblings(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>, %z: !pgpu.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: sibling worksets over the same range, writing different views or elements and reading none they write, became one workset}}
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        %f0 = arith.constant 0.0 : f32
        %t = arith.constant true
        // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is the program's whole body becomes program axis 1}}
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %v = pgpu.load %x[%m, %n] valid %t : i1 fill %f0 : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.store %v, %y[%m, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        %two = arith.constant 2.0 : f32
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %v = pgpu.load %x[%m, %n] valid %t : i1 fill %f0 : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %w = pgpu.binary mul %v, %two : f32
          pgpu.store %w, %z[%m, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Must not fire: the second workset reads the view the first writes (y, in-out): member n of the
// COM: second may read what member n' != n of the first writes, so they stay one after the other.
// CHECK-LABEL: pgpu.kernel @siblings_dependent
// CHECK: pgpu.foreach
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @siblings_dependent(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], inout>, %z: !pgpu.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: not flattened: the program runs several worksets}}
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        %f0 = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %v = pgpu.load %x[%m, %n] valid %t : i1 fill %f0 : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.store %v, %y[%m, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], inout>[index, index]
          pgpu.yield
        }
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %r = pgpu.binary sub %N, %n : index
          %l = pgpu.binary sub %r, %c1 : index
          %v = pgpu.load %y[%m, %l] valid %t : i1 fill %f0 : f32 : !pgpu.view<f32, [M, N], inout>[index, index] -> f32
          pgpu.store %v, %z[%m, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Must not fire: the worksets' ranges differ ([0, N) and [1, N)).
// CHECK-LABEL: pgpu.kernel @siblings_ranges
// CHECK: pgpu.foreach
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @siblings_ranges(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>, %z: !pgpu.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: not flattened: the program runs several worksets}}
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        %f0 = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %v = pgpu.load %x[%m, %n] valid %t : i1 fill %f0 : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.store %v, %y[%m, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
          pgpu.yield
        }
        pgpu.foreach %c1 to %N {
        ^bb0(%n: index):
          %v = pgpu.load %x[%m, %n] valid %t : i1 fill %f0 : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.store %v, %z[%m, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Sibling worksets writing one view at interleaved elements (a GPT-J rotary embedding's
// COM: out[m, 2n] and out[m, 2n + 1], corpus 207: one workset per statement) become one workset: the
// COM: coordinates differ modulo 2 for any two members, so no element is written by both and their
// COM: order does not matter. The member then reads its pair once (before: each workset read both
// COM: elements again, x read twice).
// CHECK-LABEL: pgpu.kernel @interleaved
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0 roles ["m", "axis1"]
// CHECK-NOT: pgpu.foreach
// CHECK: %[[E:.*]] = pgpu.binary mul %{{.*}}, %[[N:.*]] : index
// CHECK: pgpu.scatter %{{.*}}, %y[%{{.*}}, %[[E]]]
// CHECK: %[[E2:.*]] = pgpu.binary mul %{{.*}}, %[[N]] : index
// CHECK: %[[O2:.*]] = pgpu.binary add %[[E2]], %{{.*}} : index
// CHECK: pgpu.scatter %{{.*}}, %y[%{{.*}}, %[[O2]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @interleaved(%x: !pgpu.view<f32, [M, D], in>, %y: !pgpu.view<f32, [M, D], out>, %n2: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, D], in>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: sibling worksets over the same range, writing different views or elements and reading none they write, became one workset}}
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        %f0 = arith.constant 0.0 : f32
        %t = arith.constant true
        // expected-remark @+1 {{pgpu-flatten-worksets: the workset that is the program's whole body becomes program axis 1}}
        pgpu.foreach %c0 to %n2 {
        ^bb0(%n: index):
          %e = pgpu.binary mul %c2, %n : index
          %o = pgpu.binary add %e, %c1 : index
          %a = pgpu.gather %x[%m, %e] valid %t : i1 fill %f0 : f32 : !pgpu.view<f32, [M, D], in>[index, index] -> f32
          %b = pgpu.gather %x[%m, %o] valid %t : i1 fill %f0 : f32 : !pgpu.view<f32, [M, D], in>[index, index] -> f32
          %d = pgpu.binary sub %a, %b : f32
          pgpu.scatter %d, %y[%m, %e] valid %t : i1 : f32, !pgpu.view<f32, [M, D], out>[index, index]
          pgpu.yield
        }
        pgpu.foreach %c0 to %n2 {
        ^bb0(%n: index):
          %e = pgpu.binary mul %c2, %n : index
          %o = pgpu.binary add %e, %c1 : index
          %a = pgpu.gather %x[%m, %e] valid %t : i1 fill %f0 : f32 : !pgpu.view<f32, [M, D], in>[index, index] -> f32
          %b = pgpu.gather %x[%m, %o] valid %t : i1 fill %f0 : f32 : !pgpu.view<f32, [M, D], in>[index, index] -> f32
          %s = pgpu.binary add %a, %b : f32
          pgpu.scatter %s, %y[%m, %o] valid %t : i1 : f32, !pgpu.view<f32, [M, D], out>[index, index]
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

// COM: Must not fire: both worksets write y at 2n and 2n + 2, which are equal modulo 2 (member n + 1
// COM: of the first writes what member n of the second wrote: the second's value must stay last).
// CHECK-LABEL: pgpu.kernel @interleaved_overlap
// CHECK: pgpu.foreach
// CHECK: pgpu.foreach
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @interleaved_overlap(%x: !pgpu.view<f32, [M, D], in>, %y: !pgpu.view<f32, [M, D], out>, %n2: index) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, D], in>
    pgpu.program_space (%M) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-flatten-worksets: not flattened: the program runs several worksets}}
      pgpu.execution_group %p extents(%M) segment 0 roles ["m"] {
      ^bb0(%m: index):
        %f0 = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.foreach %c0 to %n2 {
        ^bb0(%n: index):
          %e = pgpu.binary mul %c2, %n : index
          %a = pgpu.gather %x[%m, %e] valid %t : i1 fill %f0 : f32 : !pgpu.view<f32, [M, D], in>[index, index] -> f32
          pgpu.scatter %a, %y[%m, %e] valid %t : i1 : f32, !pgpu.view<f32, [M, D], out>[index, index]
          pgpu.yield
        }
        pgpu.foreach %c0 to %n2 {
        ^bb0(%n: index):
          %e = pgpu.binary mul %c2, %n : index
          %o = pgpu.binary add %e, %c2 : index
          %a = pgpu.gather %x[%m, %e] valid %t : i1 fill %f0 : f32 : !pgpu.view<f32, [M, D], in>[index, index] -> f32
          pgpu.scatter %a, %y[%m, %o] valid %t : i1 : f32, !pgpu.view<f32, [M, D], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
