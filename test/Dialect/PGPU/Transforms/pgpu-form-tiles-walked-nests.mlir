// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: A reduction that is no contraction nested in another's element body (a Gaussian KDE,
// COM: density[q] = sum_r exp(-sum_d (c[r, d] - x[q, d])^2 * inv), corpus 359): the enclosing sum walks
// COM: blocks of TILE_1 centres, the inner sum walks d one member a trip (step 1, no parameter) carrying
// COM: the [TILE_0, TILE_1] distance tile, exp applies to the tile, and the tile (invalid centre lanes
// COM: at the identity) is reduced along the centres into the [TILE_0] carry (seed 002 §3.3). No
// COM: [TILE_0, TILE_1, d] fragment is formed.
// CHECK-LABEL: pgpu.kernel @kde
// CHECK-SAME: #pgpu.param<"TILE_0", {{.*}} #pgpu.param<"TILE_1", [16, 32, 64, 128], 64>
// CHECK-NOT: TILE_K
// CHECK: %[[KSTEP:.*]] = pgpu.param "TILE_1" : index
// CHECK: %[[SUM:.*]] = pgpu.for %{{.*}} to %{{.*}} step %[[KSTEP]] iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0]>)
// CHECK-NEXT: ^bb0(%[[R:.*]]: index, %[[ACC:.*]]: !pgpu.fragment<f32, [TILE_0]>):
// CHECK: %[[ZERO:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[D2:.*]] = pgpu.for %{{.*}} to %{{.*}} step %[[ONE]] iter_args(%[[ZERO]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[DACC:.*]]: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
// CHECK: pgpu.load %c[{{.*}}] {{.*}} -> !pgpu.fragment<f32, [TILE_1]>
// CHECK: pgpu.load %x[{{.*}}] {{.*}} -> !pgpu.fragment<f32, [TILE_0]>
// CHECK: %[[SQ:.*]] = pgpu.binary mul %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[DNEXT:.*]] = pgpu.binary add %[[DACC]], %[[SQ]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.yield %[[DNEXT]]
// CHECK: %[[E:.*]] = pgpu.unary exp %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[M:.*]] = pgpu.select %{{.*}}, %[[E]], %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.reduce %[[M]] axes [1]
// CHECK: pgpu.store %[[SUM]], %density[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0]> : !pgpu.fragment<f32, [TILE_0]>
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @kde(%x: !pgpu.view<f32, [Q, D], in>, %c: !pgpu.view<f32, [C, D], in>, %density: !pgpu.view<f32, [Q], out>, %inv: f32) {
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %Q = pgpu.extent %x[0] : !pgpu.view<f32, [Q, D], in>
    %D = pgpu.extent %x[1] : !pgpu.view<f32, [Q, D], in>
    %C = pgpu.extent %c[0] : !pgpu.view<f32, [C, D], in>
    pgpu.program_space(%Q) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a reduction nest: TILE_0 (program axis 0), TILE_1 (reduction loop over a nested reduction's tile); 1 nested reduction(s) walk one member a trip over the enclosing one's tile}}
      pgpu.execution_group %pid extents(%Q) segment 0 roles ["axis0"] {
      ^bb0(%q: index):
        %s = pgpu.range_reduce %c0 to %C identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %d2 = pgpu.range_reduce %c0 to %D identity(%z : f32) -> (f32) element {
          ^bb0(%d: index):
            %cv = pgpu.load %c[%r, %d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [C, D], in>[index, index] -> f32
            %xv = pgpu.load %x[%q, %d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [Q, D], in>[index, index] -> f32
            %df = pgpu.binary sub %cv, %xv : f32
            %sq = pgpu.binary mul %df, %df : f32
            pgpu.yield %sq : f32
          } combine {
          ^bb0(%l: f32, %rr: f32):
            %a = pgpu.binary add %l, %rr : f32
            pgpu.yield %a : f32
          }
          %n = pgpu.unary neg %d2 : f32
          %t = pgpu.binary mul %n, %inv : f32
          %e = pgpu.unary exp %t : f32
          pgpu.yield %e : f32
        } combine {
        ^bb0(%l: f32, %rr: f32):
          %a = pgpu.binary add %l, %rr : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %density[%q] valid %true : i1 : f32, !pgpu.view<f32, [Q], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the inner sum's bounds depend on the enclosing member (a triangular sum over
// COM: d < r): its trips would differ across the lanes of a block of r.
// CHECK-LABEL: pgpu.kernel @ragged
// CHECK: pgpu.range_reduce
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @ragged(%x: !pgpu.view<f32, [Q, D], in>, %c: !pgpu.view<f32, [C, D], in>, %density: !pgpu.view<f32, [Q], out>) {
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %Q = pgpu.extent %x[0] : !pgpu.view<f32, [Q, D], in>
    %C = pgpu.extent %c[0] : !pgpu.view<f32, [C, D], in>
    pgpu.program_space(%Q) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: a nested reduction's bounds depend on the enclosing reduction's member}}
      pgpu.execution_group %pid extents(%Q) segment 0 roles ["axis0"] {
      ^bb0(%q: index):
        %s = pgpu.range_reduce %c0 to %C identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %d2 = pgpu.range_reduce %c0 to %r identity(%z : f32) -> (f32) element {
          ^bb0(%d: index):
            %cv = pgpu.load %c[%r, %d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [C, D], in>[index, index] -> f32
            %xv = pgpu.load %x[%q, %d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [Q, D], in>[index, index] -> f32
            %df = pgpu.binary sub %cv, %xv : f32
            %sq = pgpu.binary mul %df, %df : f32
            pgpu.yield %sq : f32
          } combine {
          ^bb0(%l: f32, %rr: f32):
            %a = pgpu.binary add %l, %rr : f32
            pgpu.yield %a : f32
          }
          %e = pgpu.unary exp %d2 : f32
          pgpu.yield %e : f32
        } combine {
        ^bb0(%l: f32, %rr: f32):
          %a = pgpu.binary add %l, %rr : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %density[%q] valid %true : i1 : f32, !pgpu.view<f32, [Q], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the inner sum does not depend on a program axis (a centre's squared norm
// COM: sum_d c[r, d]^2 inside the sum over r): nothing spans a [p, r] tile.
// CHECK-LABEL: pgpu.kernel @norms
// CHECK: pgpu.range_reduce
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @norms(%x: !pgpu.view<f32, [Q], in>, %c: !pgpu.view<f32, [C, D], in>, %out: !pgpu.view<f32, [Q], out>) {
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %Q = pgpu.extent %x[0] : !pgpu.view<f32, [Q], in>
    %C = pgpu.extent %c[0] : !pgpu.view<f32, [C, D], in>
    %D = pgpu.extent %c[1] : !pgpu.view<f32, [C, D], in>
    pgpu.program_space(%Q) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: a reduction nested in another's element body that is no contraction is tiled only when its result depends on the enclosing one's member and one program axis}}
      pgpu.execution_group %pid extents(%Q) segment 0 roles ["axis0"] {
      ^bb0(%q: index):
        %xv = pgpu.load %x[%q] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [Q], in>[index] -> f32
        %s = pgpu.range_reduce %c0 to %C identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %n2 = pgpu.range_reduce %c0 to %D identity(%z : f32) -> (f32) element {
          ^bb0(%d: index):
            %cv = pgpu.load %c[%r, %d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [C, D], in>[index, index] -> f32
            %sq = pgpu.binary mul %cv, %cv : f32
            pgpu.yield %sq : f32
          } combine {
          ^bb0(%l: f32, %rr: f32):
            %a = pgpu.binary add %l, %rr : f32
            pgpu.yield %a : f32
          }
          %t = pgpu.binary mul %n2, %xv : f32
          pgpu.yield %t : f32
        } combine {
        ^bb0(%l: f32, %rr: f32):
          %a = pgpu.binary add %l, %rr : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %out[%q] valid %true : i1 : f32, !pgpu.view<f32, [Q], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: every read depends on both the program axis l and the member t (a per-token
// COM: cosine's h[l, t, d] . h[l + 1, t, d], corpus 332): a tile would gather without reuse.
// CHECK-LABEL: pgpu.kernel @no_reuse
// CHECK: pgpu.range_reduce
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @no_reuse(%h: !pgpu.view<f32, [L, T, D], in>, %out: !pgpu.view<f32, [L], out>) {
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %L = pgpu.extent %h[0] : !pgpu.view<f32, [L, T, D], in>
    %T = pgpu.extent %h[1] : !pgpu.view<f32, [L, T, D], in>
    %D = pgpu.extent %h[2] : !pgpu.view<f32, [L, T, D], in>
    pgpu.program_space(%L) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: a reduction nested in another's element body that is no contraction is tiled only when each read depends on one of the program axis and the enclosing one's member (no reuse otherwise)}}
      pgpu.execution_group %pid extents(%L) segment 0 roles ["axis0"] {
      ^bb0(%l: index):
        %s = pgpu.range_reduce %c0 to %T identity(%z : f32) -> (f32) element {
        ^bb0(%t: index):
          %dot = pgpu.range_reduce %c0 to %D identity(%z : f32) -> (f32) element {
          ^bb0(%d: index):
            %av = pgpu.load %h[%l, %t, %d] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [L, T, D], in>[index, index, index] -> f32
            %sq = pgpu.binary mul %av, %av : f32
            pgpu.yield %sq : f32
          } combine {
          ^bb0(%x: f32, %y: f32):
            %a = pgpu.binary add %x, %y : f32
            pgpu.yield %a : f32
          }
          %e = pgpu.unary sqrt %dot : f32
          pgpu.yield %e : f32
        } combine {
        ^bb0(%x: f32, %y: f32):
          %a = pgpu.binary add %x, %y : f32
          pgpu.yield %a : f32
        }
        pgpu.store %s, %out[%l] valid %true : i1 : f32, !pgpu.view<f32, [L], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
