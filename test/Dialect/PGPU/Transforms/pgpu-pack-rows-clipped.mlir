// RUN: tessel-opt %s -split-input-file -pgpu-pack-rows | FileCheck %s

// COM: Rows that are blocks of 128 columns of a wider row (103_block_absmax_quant's body: member
// COM: (m, j) reduces x[m, 128j : min(128j + 128, N)]): the staged test 0 < n <= BLOCK depends on
// COM: the member through its clipped length n. The program tests its ROWS members at once (the
// COM: length widened to [ROWS], an OR reduction of the rows below the count that fail) and takes the
// COM: packed [ROWS, BLOCK] path when none fails; otherwise it runs each member's own test and either
// COM: path in a loop, as before the packing (an empty block, n = 0, keeps its blocked path).
// CHECK-LABEL: pgpu.kernel @block_absmax
// CHECK-SAME: #pgpu.param<"ROWS", [1, 2, 4, 8, 16, 32, 64, 128], 1>
// CHECK: %[[ROWS:.*]] = pgpu.param "ROWS" : index
// CHECK: pgpu.execution_group %{{.*}} extents(%[[PROGRAMS:.*]]) segment 0 roles ["axis0*axis1"] {
// CHECK: ^bb0(%[[P:.*]]: index):
// CHECK: %[[FIRST:.*]] = pgpu.binary mul %[[P]], %[[ROWS]] : index
// CHECK: %[[MEMBER:.*]] = pgpu.iota %[[FIRST]] : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[LIVE:.*]] = pgpu.cmp lt %[[MEMBER]], %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[J:.*]] = pgpu.binary rem %[[MEMBER]], %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[LEN:.*]] = pgpu.binary max %{{.*}}, %{{.*}} : !pgpu.fragment<index, [ROWS]>
// CHECK: %[[TEST:.*]] = pgpu.binary and %{{.*}}, %{{.*}} : !pgpu.fragment<i1, [ROWS]>
// CHECK: %[[FAILS:.*]] = pgpu.select %[[TEST]], %{{.*}}, %[[LIVE]] : !pgpu.fragment<i1, [ROWS]>, !pgpu.fragment<i1, [ROWS]>
// CHECK: %[[ANY:.*]] = pgpu.reduce %[[FAILS]] axes [0] identity(%false : i1) : (!pgpu.fragment<i1, [ROWS]>) -> (i1)
// CHECK: pgpu.binary or
// CHECK: %[[ALL:.*]] = pgpu.select %[[ANY]], %false, %{{.*}} : i1, i1
// CHECK: pgpu.if %[[ALL]] {
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [ROWS, BLOCK]>
// CHECK: pgpu.reduce %{{.*}} axes [1] {{.*}} : (!pgpu.fragment<f32, [ROWS, BLOCK]>) -> (!pgpu.fragment<f32, [ROWS]>)
// CHECK: pgpu.store %{{.*}}, %scale[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [ROWS]>
// CHECK: pgpu.store %{{.*}}, %q[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [ROWS, BLOCK]>
// CHECK: } else {
// CHECK: %[[END:.*]] = pgpu.binary add %[[FIRST]], %[[ROWS]] : index
// CHECK: %[[LAST:.*]] = pgpu.binary min %[[END]], %{{.*}} : index
// CHECK: pgpu.for %[[FIRST]] to %[[LAST]] step %{{.*}} {
// CHECK: ^bb0(%[[ROW:.*]]: index):
// CHECK: %[[RJ:.*]] = pgpu.binary rem %[[ROW]], %{{.*}} : index
// CHECK: %[[RM:.*]] = pgpu.binary div %[[ROW]], %{{.*}} : index
// CHECK: %[[ROWTEST:.*]] = pgpu.binary and %{{.*}}, %{{.*}} : i1
// CHECK: pgpu.if %[[ROWTEST]] {
// CHECK: pgpu.load %x[%[[RM]], %{{.*}}] {{.*}} -> !pgpu.fragment<bf16, [BLOCK]>
// CHECK: } else {
// CHECK: pgpu.for
// CHECK: pgpu.load %x[%[[RM]], %{{.*}}] {{.*}} -> !pgpu.fragment<bf16, [BLOCK]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @block_absmax(%x: !pgpu.view<bf16, [M, N], in>, %q: !pgpu.view<i8, [M, N], out>, %scale: !pgpu.view<f32, [M, NB], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256], 128, covers = "128">]} {
    %zb = arith.constant 0.0 : bf16
    %true = arith.constant true
    %ninf = arith.constant 0xFF800000 : f32
    %c127 = arith.constant 1.270000e+02 : f32
    %c128 = arith.constant 128 : index
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %x[0] : !pgpu.view<bf16, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<bf16, [M, N], in>
    %NB = pgpu.extent %scale[1] : !pgpu.view<f32, [M, NB], out>
    %all = pgpu.binary mul %M, %NB : index
    pgpu.program_space(%all) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M, %NB) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%m: index, %j: index):
        %lo = pgpu.binary mul %j, %c128 : index
        %e = pgpu.binary add %lo, %c128 : index
        %end = pgpu.binary min %e, %N : index
        %start = pgpu.binary max %lo, %c0 : index
        %d = pgpu.binary sub %end, %start : index
        %n = pgpu.binary max %d, %c0 : index
        %block = pgpu.param "BLOCK" : index
        %nonempty = pgpu.cmp lt %c0, %n : index
        %fits = pgpu.cmp le %n, %block : index
        %once = pgpu.binary and %nonempty, %fits : i1
        pgpu.if %once {
          %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %base = pgpu.splat %start : index -> !pgpu.fragment<index, [BLOCK]>
          %cols = pgpu.binary add %base, %lanes : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%m, %cols] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zb : bf16 : !pgpu.view<bf16, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<bf16, [BLOCK]>
          %f = pgpu.cast %v : !pgpu.fragment<bf16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
          %a = pgpu.unary abs %f : !pgpu.fragment<f32, [BLOCK]>
          %id = pgpu.splat %ninf : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %sel = pgpu.select %ok, %a, %id : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %mx = pgpu.reduce %sel axes [0] identity(%ninf : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%p: f32, %r: f32):
            %t = pgpu.binary max %p, %r : f32
            pgpu.yield %t : f32
          }
          %s = pgpu.binary div %mx, %c127 : f32
          pgpu.store %s, %scale[%m, %j] valid %true : i1 : f32, !pgpu.view<f32, [M, NB], out>[index, index]
          %sv = pgpu.splat %s : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %qf = pgpu.binary div %f, %sv : !pgpu.fragment<f32, [BLOCK]>
          %qi = pgpu.cast %qf : !pgpu.fragment<f32, [BLOCK]> to !pgpu.fragment<i8, [BLOCK]>
          pgpu.store %qi, %q[%m, %cols] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<i8, [BLOCK]>, !pgpu.view<i8, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
          pgpu.yield
        } else {
          %r = pgpu.for %c0 to %n step %block iter_args(%ninf : f32) -> f32 {
          ^bb0(%i: index, %acc: f32):
            %lanes = pgpu.iota %i : !pgpu.fragment<index, [BLOCK]>
            %bound = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
            %base = pgpu.splat %start : index -> !pgpu.fragment<index, [BLOCK]>
            %cols = pgpu.binary add %base, %lanes : !pgpu.fragment<index, [BLOCK]>
            %v = pgpu.load %x[%m, %cols] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zb : bf16 : !pgpu.view<bf16, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<bf16, [BLOCK]>
            %f = pgpu.cast %v : !pgpu.fragment<bf16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
            %a = pgpu.unary abs %f : !pgpu.fragment<f32, [BLOCK]>
            %id = pgpu.splat %ninf : f32 -> !pgpu.fragment<f32, [BLOCK]>
            %sel = pgpu.select %ok, %a, %id : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
            %mx = pgpu.reduce %sel axes [0] identity(%ninf : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%p: f32, %u: f32):
              %t = pgpu.binary max %p, %u : f32
              pgpu.yield %t : f32
            }
            %nx = pgpu.binary max %acc, %mx : f32
            pgpu.yield %nx : f32
          }
          %s = pgpu.binary div %r, %c127 : f32
          pgpu.store %s, %scale[%m, %j] valid %true : i1 : f32, !pgpu.view<f32, [M, NB], out>[index, index]
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

// COM: Must not fire: the same row-dependent test where BLOCK covers no constant width (a row of a
// COM: runtime length, a GroupNorm's group: the per-row loop at every call that runs it long). The
// COM: kernel is left exactly as it was (no ROWS, the test on the member's own length).
// CHECK-LABEL: pgpu.kernel @group_rows
// CHECK-NOT: ROWS
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0 roles ["axis0", "axis1"] {
// CHECK: %[[ONCE:.*]] = pgpu.binary and %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: pgpu.if %[[ONCE]] {
// CHECK-NOT: ROWS
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @group_rows(%x: !pgpu.view<bf16, [M, N], in>, %q: !pgpu.view<i8, [M, N], out>, %scale: !pgpu.view<f32, [M, NB], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256], 128>]} {
    %zb = arith.constant 0.0 : bf16
    %true = arith.constant true
    %ninf = arith.constant 0xFF800000 : f32
    %c127 = arith.constant 1.270000e+02 : f32
    %c128 = arith.constant 128 : index
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %x[0] : !pgpu.view<bf16, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<bf16, [M, N], in>
    %NB = pgpu.extent %scale[1] : !pgpu.view<f32, [M, NB], out>
    %all = pgpu.binary mul %M, %NB : index
    pgpu.program_space(%all) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M, %NB) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%m: index, %j: index):
        %lo = pgpu.binary mul %j, %c128 : index
        %e = pgpu.binary add %lo, %c128 : index
        %end = pgpu.binary min %e, %N : index
        %start = pgpu.binary max %lo, %c0 : index
        %d = pgpu.binary sub %end, %start : index
        %n = pgpu.binary max %d, %c0 : index
        %block = pgpu.param "BLOCK" : index
        %nonempty = pgpu.cmp lt %c0, %n : index
        %fits = pgpu.cmp le %n, %block : index
        %once = pgpu.binary and %nonempty, %fits : i1
        pgpu.if %once {
          %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %base = pgpu.splat %start : index -> !pgpu.fragment<index, [BLOCK]>
          %cols = pgpu.binary add %base, %lanes : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%m, %cols] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zb : bf16 : !pgpu.view<bf16, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<bf16, [BLOCK]>
          %f = pgpu.cast %v : !pgpu.fragment<bf16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
          %a = pgpu.unary abs %f : !pgpu.fragment<f32, [BLOCK]>
          %id = pgpu.splat %ninf : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %sel = pgpu.select %ok, %a, %id : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %mx = pgpu.reduce %sel axes [0] identity(%ninf : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%p: f32, %r: f32):
            %t = pgpu.binary max %p, %r : f32
            pgpu.yield %t : f32
          }
          %s = pgpu.binary div %mx, %c127 : f32
          pgpu.store %s, %scale[%m, %j] valid %true : i1 : f32, !pgpu.view<f32, [M, NB], out>[index, index]
          %sv = pgpu.splat %s : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %qf = pgpu.binary div %f, %sv : !pgpu.fragment<f32, [BLOCK]>
          %qi = pgpu.cast %qf : !pgpu.fragment<f32, [BLOCK]> to !pgpu.fragment<i8, [BLOCK]>
          pgpu.store %qi, %q[%m, %cols] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<i8, [BLOCK]>, !pgpu.view<i8, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
          pgpu.yield
        } else {
          %r = pgpu.for %c0 to %n step %block iter_args(%ninf : f32) -> f32 {
          ^bb0(%i: index, %acc: f32):
            %lanes = pgpu.iota %i : !pgpu.fragment<index, [BLOCK]>
            %bound = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
            %base = pgpu.splat %start : index -> !pgpu.fragment<index, [BLOCK]>
            %cols = pgpu.binary add %base, %lanes : !pgpu.fragment<index, [BLOCK]>
            %v = pgpu.load %x[%m, %cols] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zb : bf16 : !pgpu.view<bf16, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<bf16, [BLOCK]>
            %f = pgpu.cast %v : !pgpu.fragment<bf16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
            %a = pgpu.unary abs %f : !pgpu.fragment<f32, [BLOCK]>
            %id = pgpu.splat %ninf : f32 -> !pgpu.fragment<f32, [BLOCK]>
            %sel = pgpu.select %ok, %a, %id : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
            %mx = pgpu.reduce %sel axes [0] identity(%ninf : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%p: f32, %u: f32):
              %t = pgpu.binary max %p, %u : f32
              pgpu.yield %t : f32
            }
            %nx = pgpu.binary max %acc, %mx : f32
            pgpu.yield %nx : f32
          }
          %s = pgpu.binary div %r, %c127 : f32
          pgpu.store %s, %scale[%m, %j] valid %true : i1 : f32, !pgpu.view<f32, [M, NB], out>[index, index]
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

// COM: Must not fire: the row's length is read from memory (lens[m]), not computed from the member:
// COM: the test's code has an effect, so the kernel is left exactly as it was (no ROWS).
// CHECK-LABEL: pgpu.kernel @loaded_lengths
// CHECK-NOT: ROWS
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0 roles ["axis0"] {
// CHECK: ^bb0(%[[M:.*]]: index):
// CHECK: %[[N:.*]] = pgpu.load %lens[%[[M]]]
// CHECK: pgpu.if
// CHECK-NOT: ROWS
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @loaded_lengths(%x: !pgpu.view<f32, [M, N], in>, %lens: !pgpu.view<index, [M], in>, %y: !pgpu.view<f32, [M], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %z = arith.constant 0.0 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        %n = pgpu.load %lens[%m] valid %true : i1 fill %c0 : index : !pgpu.view<index, [M], in>[index] -> index
        %block = pgpu.param "BLOCK" : index
        %nonempty = pgpu.cmp lt %c0, %n : index
        %fits = pgpu.cmp le %n, %block : index
        %once = pgpu.binary and %nonempty, %fits : i1
        pgpu.if %once {
          %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
          %bound = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%m, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %s = pgpu.reduce %v axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%p: f32, %r: f32):
            %t = pgpu.binary add %p, %r : f32
            pgpu.yield %t : f32
          }
          pgpu.store %s, %y[%m] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
          pgpu.yield
        } else {
          %r = pgpu.for %c0 to %n step %block iter_args(%z : f32) -> f32 {
          ^bb0(%i: index, %acc: f32):
            %lanes = pgpu.iota %i : !pgpu.fragment<index, [BLOCK]>
            %bound = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
            %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
            %v = pgpu.load %x[%m, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
            %s = pgpu.reduce %v axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
            ^bb0(%p: f32, %u: f32):
              %t = pgpu.binary add %p, %u : f32
              pgpu.yield %t : f32
            }
            %nx = pgpu.binary add %acc, %s : f32
            pgpu.yield %nx : f32
          }
          pgpu.store %r, %y[%m] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
