// RUN: tessel-opt %s -split-input-file -pgpu-tile-column-reductions="scans=true" | FileCheck %s

// COM: A cumulative sum down the columns (one column per program after pgpu-flatten-worksets): the
// COM: programs own blocks of BLOCK_C columns and walk the rows in order, BLOCK_R at a time, carrying
// COM: one running sum per column ([BLOCK_C], the identity first). Each trip scans its [BLOCK_R, BLOCK_C]
// COM: tile along BLOCK_R (invalid rows the identity), adds the carry on the left of every prefix,
// COM: stores the tile and carries its last row on (a pick of lane BLOCK_R - 1 along BLOCK_R).
// CHECK-LABEL: pgpu.kernel @cumsum_columns
// CHECK-SAME: #pgpu.param<"BLOCK_C", [16, 32, 64, 128, 256, 512, 1024], 128>
// CHECK-SAME: #pgpu.param<"BLOCK_R", [2, 4, 8, 16, 32, 64, 128], 16, covers = "M">
// CHECK: %[[COLS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_C]>
// CHECK: %[[ID:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [BLOCK_C]>
// CHECK: %[[BR:.*]] = pgpu.param "BLOCK_R" : index
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %[[BR]] iter_args(%[[ID]] : !pgpu.fragment<f32, [BLOCK_C]>) -> !pgpu.fragment<f32, [BLOCK_C]> {
// CHECK-NEXT: ^bb0(%[[R0:.*]]: index, %[[CARRY:.*]]: !pgpu.fragment<f32, [BLOCK_C]>):
// CHECK: %[[ROWS:.*]] = pgpu.iota %[[R0]] : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: %[[V:.*]] = pgpu.load %x[{{.*}}] valid %{{.*}} -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[M:.*]] = pgpu.select %{{.*}}, %[[V]], %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]>, !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[P:.*]] = pgpu.scan %[[M]] axis 0 identity(%{{.*}} : f32) : (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) -> (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>)
// CHECK: %[[CB:.*]] = pgpu.broadcast %[[CARRY]] dims [1] : !pgpu.fragment<f32, [BLOCK_C]> -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: %[[S:.*]] = pgpu.binary add %[[CB]], %[[P]] : !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.store %[[S]], %y[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]>
// CHECK: %[[LASTI:.*]] = pgpu.binary sub %{{.*}}, %{{.*}} : index
// CHECK: %[[AT:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: pgpu.cmp eq %[[AT]], %{{.*}} : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: %[[LAST:.*]]:2 = pgpu.reduce %[[S]], %{{.*}} axes [0] identity(%{{.*}}, %{{.*}} : f32, index) : (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>, !pgpu.fragment<index, [BLOCK_R, BLOCK_C]>) -> (!pgpu.fragment<f32, [BLOCK_C]>, !pgpu.fragment<index, [BLOCK_C]>)
// CHECK: pgpu.select
// CHECK: pgpu.binary max
// CHECK: pgpu.yield %[[LAST]]#0 : !pgpu.fragment<f32, [BLOCK_C]>
// CHECK-NOT: pgpu.range_scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @cumsum_columns(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.range_scan %c0 to %M identity(%z : f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        } emit {
        ^bb0(%r: index, %s: f32):
          pgpu.store %s, %y[%r, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: An exclusive cumulative sum down the columns: tiled the same way, each row lane's member read at
// COM: the row before it (the identity at the first row: its validity also asks r > lo), so the tile's
// COM: inclusive prefixes are the exclusive ones; the store and the carried last row as above.
// CHECK-LABEL: pgpu.kernel @exclusive_cumsum_columns
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_C]>) -> !pgpu.fragment<f32, [BLOCK_C]> {
// CHECK: %[[ROWS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: %[[IN:.*]] = pgpu.cmp lt %[[ROWS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: %[[PREV:.*]] = pgpu.binary sub %[[ROWS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: %[[PAST:.*]] = pgpu.cmp gt %[[ROWS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_R]>
// CHECK: %[[OK:.*]] = pgpu.binary and %[[IN]], %[[PAST]] : !pgpu.fragment<i1, [BLOCK_R]>
// CHECK: pgpu.load %x[{{.*}}] valid %{{.*}} -> !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.scan %{{.*}} axis 0 identity(%{{.*}} : f32) : (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>) -> (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>)
// CHECK: pgpu.store %{{.*}}, %y[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]>
// CHECK-NOT: pgpu.range_scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @exclusive_cumsum_columns(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.range_scan %c0 to %M identity(%z : f32) exclusive element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        } emit {
        ^bb0(%r: index, %s: f32):
          pgpu.store %s, %y[%r, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Must not fire: a reverse scan (only forward scans are tiled yet).
// CHECK-LABEL: pgpu.kernel @reverse_cumsum
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.range_scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @reverse_cumsum(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.range_scan %c0 to %M identity(%z : f32) reverse element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        } emit {
        ^bb0(%r: index, %s: f32):
          pgpu.store %s, %y[%r, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Must not fire: a scan along the rows' contiguous axis (a row cumsum, x[n, r]); one axis of
// COM: lanes over r is already coalesced (pgpu-form-blocking's blocked scan).
// CHECK-LABEL: pgpu.kernel @cumsum_rows
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.range_scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @cumsum_rows(%x: !pgpu.view<f32, [N, M], in>, %y: !pgpu.view<f32, [N, M], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, M], in>
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [N, M], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %t = arith.constant true
        pgpu.range_scan %c0 to %M identity(%z : f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%n, %r] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, M], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        } emit {
        ^bb0(%r: index, %s: f32):
          pgpu.store %s, %y[%n, %r] valid %t : i1 : f32, !pgpu.view<f32, [N, M], out>[index, index]
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

// COM: A scan of two components (affine maps h -> a h + b down the columns, an EMA): one running map
// COM: per column ([BLOCK_C] each), both tiles scanned together along BLOCK_R; two components keep
// COM: the default [16, 128] tile (2 x 2048 component lanes).
// CHECK-LABEL: pgpu.kernel @ema_columns
// CHECK-SAME: #pgpu.param<"BLOCK_C", [16, 32, 64, 128, 256, 512, 1024], 128>
// CHECK-SAME: #pgpu.param<"BLOCK_R", [2, 4, 8, 16, 32, 64, 128], 16, covers = "M">
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}}, %{{.*}} : !pgpu.fragment<f32, [BLOCK_C]>, !pgpu.fragment<f32, [BLOCK_C]>)
// CHECK: pgpu.scan %{{.*}}, %{{.*}} axis 0 identity(%{{.*}}, %{{.*}} : f32, f32) : (!pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>, !pgpu.fragment<f32, [BLOCK_R, BLOCK_C]>)
// CHECK: pgpu.store %{{.*}}, %y[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BLOCK_R, BLOCK_C]>
// CHECK: pgpu.reduce %{{.*}}, %{{.*}}, %{{.*}} axes [0]
// CHECK-NOT: pgpu.range_scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @ema_columns(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %one = arith.constant 1.0 : f32
        %half = arith.constant 0.5 : f32
        %t = arith.constant true
        pgpu.range_scan %c0 to %M identity(%one, %z : f32, f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %w = pgpu.binary mul %v, %half : f32
          pgpu.yield %half, %w : f32, f32
        } combine {
        ^bb0(%a1: f32, %b1: f32, %a2: f32, %b2: f32):
          %a = pgpu.binary mul %a1, %a2 : f32
          %m = pgpu.binary mul %a2, %b1 : f32
          %b = pgpu.binary add %m, %b2 : f32
          pgpu.yield %a, %b : f32, f32
        } emit {
        ^bb0(%r: index, %a: f32, %h: f32):
          pgpu.store %h, %y[%r, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: A scan of 32 components (16 states of affine maps, a selective scan's recurrence read out by a
// COM: sum over the states): the default tile shrinks with the components, BLOCK_C to 16 (rows of 64
// COM: contiguous bytes) and then BLOCK_R to 8, 32 x 8 x 16 = 4096 component lanes.
// CHECK-LABEL: pgpu.kernel @states_columns
// CHECK-SAME: #pgpu.param<"BLOCK_C", [16, 32, 64, 128, 256, 512, 1024], 16>
// CHECK-SAME: #pgpu.param<"BLOCK_R", [2, 4, 8, 16, 32, 64, 128], 8, covers = "M">
// CHECK: pgpu.scan {{.*}} axis 0
// CHECK-NOT: pgpu.range_scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @states_columns(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %one = arith.constant 1.0 : f32
        %k0 = arith.constant 0.5 : f32
        %k1 = arith.constant 0.51 : f32
        %k2 = arith.constant 0.52 : f32
        %k3 = arith.constant 0.53 : f32
        %k4 = arith.constant 0.54 : f32
        %k5 = arith.constant 0.55 : f32
        %k6 = arith.constant 0.56 : f32
        %k7 = arith.constant 0.5700000000000001 : f32
        %k8 = arith.constant 0.58 : f32
        %k9 = arith.constant 0.59 : f32
        %k10 = arith.constant 0.6 : f32
        %k11 = arith.constant 0.61 : f32
        %k12 = arith.constant 0.62 : f32
        %k13 = arith.constant 0.63 : f32
        %k14 = arith.constant 0.64 : f32
        %k15 = arith.constant 0.65 : f32
        %t = arith.constant true
        pgpu.range_scan %c0 to %M identity(%one, %z, %one, %z, %one, %z, %one, %z, %one, %z, %one, %z, %one, %z, %one, %z, %one, %z, %one, %z, %one, %z, %one, %z, %one, %z, %one, %z, %one, %z, %one, %z : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%r, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %a0 = pgpu.binary mul %v, %k0 : f32
          %b0 = pgpu.binary mul %v, %k0 : f32
          %a1 = pgpu.binary mul %v, %k1 : f32
          %b1 = pgpu.binary mul %v, %k1 : f32
          %a2 = pgpu.binary mul %v, %k2 : f32
          %b2 = pgpu.binary mul %v, %k2 : f32
          %a3 = pgpu.binary mul %v, %k3 : f32
          %b3 = pgpu.binary mul %v, %k3 : f32
          %a4 = pgpu.binary mul %v, %k4 : f32
          %b4 = pgpu.binary mul %v, %k4 : f32
          %a5 = pgpu.binary mul %v, %k5 : f32
          %b5 = pgpu.binary mul %v, %k5 : f32
          %a6 = pgpu.binary mul %v, %k6 : f32
          %b6 = pgpu.binary mul %v, %k6 : f32
          %a7 = pgpu.binary mul %v, %k7 : f32
          %b7 = pgpu.binary mul %v, %k7 : f32
          %a8 = pgpu.binary mul %v, %k8 : f32
          %b8 = pgpu.binary mul %v, %k8 : f32
          %a9 = pgpu.binary mul %v, %k9 : f32
          %b9 = pgpu.binary mul %v, %k9 : f32
          %a10 = pgpu.binary mul %v, %k10 : f32
          %b10 = pgpu.binary mul %v, %k10 : f32
          %a11 = pgpu.binary mul %v, %k11 : f32
          %b11 = pgpu.binary mul %v, %k11 : f32
          %a12 = pgpu.binary mul %v, %k12 : f32
          %b12 = pgpu.binary mul %v, %k12 : f32
          %a13 = pgpu.binary mul %v, %k13 : f32
          %b13 = pgpu.binary mul %v, %k13 : f32
          %a14 = pgpu.binary mul %v, %k14 : f32
          %b14 = pgpu.binary mul %v, %k14 : f32
          %a15 = pgpu.binary mul %v, %k15 : f32
          %b15 = pgpu.binary mul %v, %k15 : f32
          pgpu.yield %a0, %b0, %a1, %b1, %a2, %b2, %a3, %b3, %a4, %b4, %a5, %b5, %a6, %b6, %a7, %b7, %a8, %b8, %a9, %b9, %a10, %b10, %a11, %b11, %a12, %b12, %a13, %b13, %a14, %b14, %a15, %b15 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
        } combine {
        ^bb0(%p0: f32, %q0: f32, %p1: f32, %q1: f32, %p2: f32, %q2: f32, %p3: f32, %q3: f32, %p4: f32, %q4: f32, %p5: f32, %q5: f32, %p6: f32, %q6: f32, %p7: f32, %q7: f32, %p8: f32, %q8: f32, %p9: f32, %q9: f32, %p10: f32, %q10: f32, %p11: f32, %q11: f32, %p12: f32, %q12: f32, %p13: f32, %q13: f32, %p14: f32, %q14: f32, %p15: f32, %q15: f32, %r0: f32, %s0: f32, %r1: f32, %s1: f32, %r2: f32, %s2: f32, %r3: f32, %s3: f32, %r4: f32, %s4: f32, %r5: f32, %s5: f32, %r6: f32, %s6: f32, %r7: f32, %s7: f32, %r8: f32, %s8: f32, %r9: f32, %s9: f32, %r10: f32, %s10: f32, %r11: f32, %s11: f32, %r12: f32, %s12: f32, %r13: f32, %s13: f32, %r14: f32, %s14: f32, %r15: f32, %s15: f32):
          %ca0 = pgpu.binary mul %p0, %r0 : f32
          %cm0 = pgpu.binary mul %r0, %q0 : f32
          %cb0 = pgpu.binary add %cm0, %s0 : f32
          %ca1 = pgpu.binary mul %p1, %r1 : f32
          %cm1 = pgpu.binary mul %r1, %q1 : f32
          %cb1 = pgpu.binary add %cm1, %s1 : f32
          %ca2 = pgpu.binary mul %p2, %r2 : f32
          %cm2 = pgpu.binary mul %r2, %q2 : f32
          %cb2 = pgpu.binary add %cm2, %s2 : f32
          %ca3 = pgpu.binary mul %p3, %r3 : f32
          %cm3 = pgpu.binary mul %r3, %q3 : f32
          %cb3 = pgpu.binary add %cm3, %s3 : f32
          %ca4 = pgpu.binary mul %p4, %r4 : f32
          %cm4 = pgpu.binary mul %r4, %q4 : f32
          %cb4 = pgpu.binary add %cm4, %s4 : f32
          %ca5 = pgpu.binary mul %p5, %r5 : f32
          %cm5 = pgpu.binary mul %r5, %q5 : f32
          %cb5 = pgpu.binary add %cm5, %s5 : f32
          %ca6 = pgpu.binary mul %p6, %r6 : f32
          %cm6 = pgpu.binary mul %r6, %q6 : f32
          %cb6 = pgpu.binary add %cm6, %s6 : f32
          %ca7 = pgpu.binary mul %p7, %r7 : f32
          %cm7 = pgpu.binary mul %r7, %q7 : f32
          %cb7 = pgpu.binary add %cm7, %s7 : f32
          %ca8 = pgpu.binary mul %p8, %r8 : f32
          %cm8 = pgpu.binary mul %r8, %q8 : f32
          %cb8 = pgpu.binary add %cm8, %s8 : f32
          %ca9 = pgpu.binary mul %p9, %r9 : f32
          %cm9 = pgpu.binary mul %r9, %q9 : f32
          %cb9 = pgpu.binary add %cm9, %s9 : f32
          %ca10 = pgpu.binary mul %p10, %r10 : f32
          %cm10 = pgpu.binary mul %r10, %q10 : f32
          %cb10 = pgpu.binary add %cm10, %s10 : f32
          %ca11 = pgpu.binary mul %p11, %r11 : f32
          %cm11 = pgpu.binary mul %r11, %q11 : f32
          %cb11 = pgpu.binary add %cm11, %s11 : f32
          %ca12 = pgpu.binary mul %p12, %r12 : f32
          %cm12 = pgpu.binary mul %r12, %q12 : f32
          %cb12 = pgpu.binary add %cm12, %s12 : f32
          %ca13 = pgpu.binary mul %p13, %r13 : f32
          %cm13 = pgpu.binary mul %r13, %q13 : f32
          %cb13 = pgpu.binary add %cm13, %s13 : f32
          %ca14 = pgpu.binary mul %p14, %r14 : f32
          %cm14 = pgpu.binary mul %r14, %q14 : f32
          %cb14 = pgpu.binary add %cm14, %s14 : f32
          %ca15 = pgpu.binary mul %p15, %r15 : f32
          %cm15 = pgpu.binary mul %r15, %q15 : f32
          %cb15 = pgpu.binary add %cm15, %s15 : f32
          pgpu.yield %ca0, %cb0, %ca1, %cb1, %ca2, %cb2, %ca3, %cb3, %ca4, %cb4, %ca5, %cb5, %ca6, %cb6, %ca7, %cb7, %ca8, %cb8, %ca9, %cb9, %ca10, %cb10, %ca11, %cb11, %ca12, %cb12, %ca13, %cb13, %ca14, %cb14, %ca15, %cb15 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
        } emit {
        ^bb0(%er: index, %ea0: f32, %eh0: f32, %ea1: f32, %eh1: f32, %ea2: f32, %eh2: f32, %ea3: f32, %eh3: f32, %ea4: f32, %eh4: f32, %ea5: f32, %eh5: f32, %ea6: f32, %eh6: f32, %ea7: f32, %eh7: f32, %ea8: f32, %eh8: f32, %ea9: f32, %eh9: f32, %ea10: f32, %eh10: f32, %ea11: f32, %eh11: f32, %ea12: f32, %eh12: f32, %ea13: f32, %eh13: f32, %ea14: f32, %eh14: f32, %ea15: f32, %eh15: f32):
          %sum1 = pgpu.binary add %eh0, %eh1 : f32
          %sum2 = pgpu.binary add %sum1, %eh2 : f32
          %sum3 = pgpu.binary add %sum2, %eh3 : f32
          %sum4 = pgpu.binary add %sum3, %eh4 : f32
          %sum5 = pgpu.binary add %sum4, %eh5 : f32
          %sum6 = pgpu.binary add %sum5, %eh6 : f32
          %sum7 = pgpu.binary add %sum6, %eh7 : f32
          %sum8 = pgpu.binary add %sum7, %eh8 : f32
          %sum9 = pgpu.binary add %sum8, %eh9 : f32
          %sum10 = pgpu.binary add %sum9, %eh10 : f32
          %sum11 = pgpu.binary add %sum10, %eh11 : f32
          %sum12 = pgpu.binary add %sum11, %eh12 : f32
          %sum13 = pgpu.binary add %sum12, %eh13 : f32
          %sum14 = pgpu.binary add %sum13, %eh14 : f32
          %sum15 = pgpu.binary add %sum14, %eh15 : f32
          pgpu.store %sum15, %y[%er, %n] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
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

// COM: Must not fire: a scan of two components along the rows' contiguous axis (an EMA along x[n, r]):
// COM: one axis of lanes over r is already coalesced, however many components.
// CHECK-LABEL: pgpu.kernel @ema_rows
// CHECK-NOT: BLOCK_C
// CHECK: pgpu.range_scan
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @ema_rows(%x: !pgpu.view<f32, [N, M], in>, %y: !pgpu.view<f32, [N, M], out>) {
    %M = pgpu.extent %x[1] : !pgpu.view<f32, [N, M], in>
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N, M], in>
    pgpu.program_space(%N) {
    ^bb0(%p: index):
      pgpu.execution_group %p extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %c0 = arith.constant 0 : index
        %z = arith.constant 0.0 : f32
        %one = arith.constant 1.0 : f32
        %half = arith.constant 0.5 : f32
        %t = arith.constant true
        pgpu.range_scan %c0 to %M identity(%one, %z : f32, f32) element {
        ^bb0(%r: index):
          %v = pgpu.load %x[%n, %r] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N, M], in>[index, index] -> f32
          %w = pgpu.binary mul %v, %half : f32
          pgpu.yield %half, %w : f32, f32
        } combine {
        ^bb0(%a1: f32, %b1: f32, %a2: f32, %b2: f32):
          %a = pgpu.binary mul %a1, %a2 : f32
          %m = pgpu.binary mul %a2, %b1 : f32
          %b = pgpu.binary add %m, %b2 : f32
          pgpu.yield %a, %b : f32, f32
        } emit {
        ^bb0(%r: index, %a: f32, %h: f32):
          pgpu.store %h, %y[%n, %r] valid %t : i1 : f32, !pgpu.view<f32, [N, M], out>[index, index]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

