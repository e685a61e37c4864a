// RUN: tessel-opt %s -split-input-file -pgpu-pack-rows -verify-diagnostics | FileCheck %s

// COM: A group beside a last-program finalization whose staged row path scatter-adds row values at
// COM: coordinates the row does not change (pgpu-member-partials' column terms: sum[n] += x[m, n] / s(m)
// COM: over the row's lanes, and a kernel-level scalar: tot[0] += s(m)). Packed, each program's ROWS rows
// COM: are summed first (rows past M add 0) and scattered once: [ROWS, BLOCK] -> [BLOCK] over axis 0,
// COM: [ROWS] -> a scalar. The space keeps an instance for the finalization (max(programs, 1)) and the
// COM: dispatch guard pid < M stays (ceil(M / ROWS) <= M).
// CHECK-LABEL: pgpu.kernel @column_partials
// CHECK: %[[ROWS:.*]] = pgpu.param "ROWS" : index
// CHECK: %[[PROGRAMS:.*]] = pgpu.ceil_div %{{.*}}, %[[ROWS]] : index
// CHECK: %[[SPACE:.*]] = pgpu.binary max %[[PROGRAMS]], %{{.*}} : index
// CHECK: pgpu.program_space(%[[SPACE]])
// CHECK: pgpu.execution_group %{{.*}} extents(%[[PROGRAMS]])
// CHECK: pgpu.if %{{.*}} {
// CHECK: %[[MEMBER:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[LIVE:.*]] = pgpu.cmp lt %[[MEMBER]], %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[LANES:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[LIVE2:.*]] = pgpu.broadcast %[[LIVE]] dims [0] : !pgpu.fragment<i1, [ROWS]> -> !pgpu.fragment<i1, [ROWS, BLOCK]>
// CHECK: %[[Q:.*]] = pgpu.binary div %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: %[[KEPT:.*]] = pgpu.select %[[LIVE2]], %[[Q]], %{{.*}} : !pgpu.fragment<i1, [ROWS, BLOCK]>, !pgpu.fragment<f32, [ROWS, BLOCK]>
// CHECK: %[[COL:.*]] = pgpu.reduce %[[KEPT]] axes [0] {{.*}} -> (!pgpu.fragment<f32, [BLOCK]>)
// CHECK: pgpu.scatter_reduce %[[COL]], %sum[%[[LANES]]] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>
// CHECK: %[[KEPT1:.*]] = pgpu.select %[[LIVE]], %{{.*}}, %{{.*}} : !pgpu.fragment<i1, [ROWS]>, !pgpu.fragment<f32, [ROWS]>
// CHECK: %[[ONE:.*]] = pgpu.reduce %[[KEPT1]] axes [0] {{.*}} -> (f32)
// CHECK: pgpu.scatter_reduce %[[ONE]], %tot[%{{.*}}] valid %{{.*}} : i1 : f32
// CHECK: } else {
// CHECK: pgpu.for
// CHECK: pgpu.last_program
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @column_partials(%x: !pgpu.view<f32, [M, N], in>,
                               %sum: !pgpu.buffer<f32, [N], workspace> {pgpu.init = 0.0 : f32, pgpu.kept, pgpu.private = "workspace"},
                               %tot: !pgpu.buffer<f32, [1], workspace> {pgpu.init = 0.0 : f32, pgpu.kept, pgpu.private = "workspace"},
                               %ticket: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"})
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64, covers = "N">]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    %P = pgpu.binary max %M, %c1 : index
    pgpu.program_space(%P) {
    ^bb0(%pid: index):
      %in = pgpu.cmp lt %pid, %M : index
      pgpu.if %in {
        // expected-remark @below {{pgpu-pack-rows: each program owns ROWS consecutive rows}}
        pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
        ^bb0(%row: index):
          %z = arith.constant 0.0 : f32
          %true = arith.constant true
          %block = pgpu.param "BLOCK" : index
          %nonempty = pgpu.cmp lt %c0, %N : index
          %fits = pgpu.cmp le %N, %block : index
          %once = pgpu.binary and %nonempty, %fits : i1
          pgpu.if %once {
            %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
            %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
            %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %s = pgpu.reduce %v axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%l: f32, %r: f32):
              %a = pgpu.binary add %l, %r : f32
              pgpu.yield %a : f32
            }
            %sb = pgpu.splat %s : f32 -> !pgpu.fragment<f32, [BLOCK]>
            %q = pgpu.binary div %v, %sb : !pgpu.fragment<f32, [BLOCK]>
            pgpu.scatter_reduce %q, %sum[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.buffer<f32, [N], workspace>[!pgpu.fragment<index, [BLOCK]>] {
            ^bb0(%l: f32, %r: f32):
              %a = pgpu.binary add %l, %r : f32
              pgpu.yield %a : f32
            }
            pgpu.scatter_reduce %s, %tot[%c0] valid %true : i1 : f32, !pgpu.buffer<f32, [1], workspace>[index] {
            ^bb0(%l: f32, %r: f32):
              %a = pgpu.binary add %l, %r : f32
              pgpu.yield %a : f32
            }
            pgpu.yield
          } else {
            %all = pgpu.for %c0 to %N step %block iter_args(%z : f32) -> f32 {
            ^bb0(%b: index, %acc: f32):
              %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
              %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
              %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
              %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
              %part = pgpu.reduce %v axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
              ^bb0(%l: f32, %r: f32):
                %a = pgpu.binary add %l, %r : f32
                pgpu.yield %a : f32
              }
              %next = pgpu.binary add %acc, %part : f32
              pgpu.yield %next : f32
            }
            pgpu.scatter_reduce %all, %tot[%c0] valid %true : i1 : f32, !pgpu.buffer<f32, [1], workspace>[index] {
            ^bb0(%l: f32, %r: f32):
              %a = pgpu.binary add %l, %r : f32
              pgpu.yield %a : f32
            }
            pgpu.yield
          }
          pgpu.yield
        } {roles = ["axis0"], segment = 0 : i64}
        pgpu.yield
      }
      pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
        pgpu.foreach %c0 to %N {
        ^bb0(%n: index):
          %zero = arith.constant 0.0 : f32
          %true = arith.constant true
          %v = pgpu.buffer_load %sum[%n] valid %true : i1 fill %zero : f32 : !pgpu.buffer<f32, [N], workspace>[index] -> f32
          pgpu.buffer_store %zero, %sum[%n] valid %true : i1 : f32, !pgpu.buffer<f32, [N], workspace>[index]
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

// COM: Must not fire: the row's scatter-add lands at a coordinate the row computes (a histogram of
// COM: each row's sum bucket): rows of one program would collide in one scatter of a [ROWS] fragment
// COM: (an add is still right, but a packed scatter at row coordinates is not what this rule merges).
// CHECK-LABEL: pgpu.kernel @row_coordinates
// CHECK-NOT: "ROWS"
// CHECK: pgpu.scatter_reduce %{{.*}}, %hist[%{{.*}}] valid %{{.*}} : i1 : f32
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @row_coordinates(%x: !pgpu.view<f32, [M, N], in>,
                               %hist: !pgpu.buffer<f32, [N], workspace> {pgpu.init = 0.0 : f32, pgpu.kept, pgpu.private = "workspace"})
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64, covers = "N">]} {
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      // expected-remark @below {{pgpu-pack-rows: one row per program kept: a scatter-reduce other than an add of a row value at coordinates the row does not change}}
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%row: index):
        %z = arith.constant 0.0 : f32
        %true = arith.constant true
        %block = pgpu.param "BLOCK" : index
        %nonempty = pgpu.cmp lt %c0, %N : index
        %fits = pgpu.cmp le %N, %block : index
        %once = pgpu.binary and %nonempty, %fits : i1
        pgpu.if %once {
          %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %s = pgpu.reduce %v axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          %i = pgpu.cast %s : f32 to index
          pgpu.scatter_reduce %s, %hist[%i] valid %true : i1 : f32, !pgpu.buffer<f32, [N], workspace>[index] {
          ^bb0(%l: f32, %r: f32):
            %a = pgpu.binary add %l, %r : f32
            pgpu.yield %a : f32
          }
          pgpu.yield
        } else {
          pgpu.yield
        }
        pgpu.yield
      } {roles = ["axis0"], segment = 0 : i64}
      pgpu.yield
    }
    pgpu.return
  }
}
