// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: Per-sample gradient norms by ghost clipping (corpus 281, issue 41): sq[b] = sum_{t,s}
// COM: (A_b A_b^T)[t, s] * (G_b G_b^T)[t, s], as construction realizes it: a reduction over t whose
// COM: element is a reduction over s whose element holds two contractions over k, free on t and s.
// COM: t and s are blocked by their own TILE_1 and TILE_2 (seed 002 §3.3-§3.4): per [TILE_1, TILE_2]
// COM: block each Gram tile is a K loop of pgpu.contract over [TILE, TILE_K] operand tiles, their
// COM: product is reduced along s into the [TILE_1] carry. The walk over t blocks is a region fold
// COM: (summary: the block's [TILE_1] sums; combine: the sum's, lane-wise) reduced to the scalar after
// COM: it, so pgpu-split-folds may cut a sample's t blocks across programs. Launch-time extents are
// COM: cloned into the summarize region (a K loop over a view's extent stays recognizable as one).
// CHECK-LABEL: pgpu.kernel @gram_norms
// CHECK-SAME: #pgpu.param<"TILE_1", [16, 32, 64, 128], 64>, #pgpu.param<"TILE_2", [16, 32, 64, 128], 64>, #pgpu.param<"TILE_K"
// CHECK: %[[ID:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [TILE_1]>
// CHECK: %[[T0:.*]] = pgpu.param "TILE_1" : index
// CHECK: %[[FOLD:.*]] = pgpu.region_fold %{{.*}} to %{{.*}} step %[[T0]] identity(%[[ID]] : !pgpu.fragment<f32, [TILE_1]>) {{.*}} -> (!pgpu.fragment<f32, [TILE_1]>) summarize {
// CHECK: pgpu.extent
// CHECK: %[[S0:.*]] = pgpu.param "TILE_2" : index
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %[[S0]] iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_1]>) -> !pgpu.fragment<f32, [TILE_1]>
// CHECK: %[[GA:.*]] = pgpu.for {{.*}} -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
// CHECK: pgpu.load %{{.*}}[{{.*}}] {{.*}} -> !pgpu.fragment<bf16, [TILE_1, TILE_K]>
// CHECK: pgpu.load %{{.*}}[{{.*}}] {{.*}} -> !pgpu.fragment<bf16, [TILE_2, TILE_K]>
// CHECK: pgpu.contract {{.*}} -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
// CHECK: %[[GG:.*]] = pgpu.for {{.*}} -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
// CHECK: pgpu.load %{{.*}}[{{.*}}] {{.*}} -> !pgpu.fragment<bf16, [TILE_1, TILE_K]>
// CHECK: pgpu.contract {{.*}} -> !pgpu.fragment<f32, [TILE_1, TILE_2]>
// CHECK: %[[E:.*]] = pgpu.binary mul %[[GA]], %[[GG]] : !pgpu.fragment<f32, [TILE_1, TILE_2]>
// CHECK: pgpu.reduce %{{.*}} axes [1] {{.*}} -> (!pgpu.fragment<f32, [TILE_1]>)
// CHECK: pgpu.yield %{{.*}} : !pgpu.fragment<f32, [TILE_1]>
// CHECK: } combine {
// CHECK: pgpu.binary add %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [TILE_1]>
// CHECK: %[[N2:.*]] = pgpu.reduce %[[FOLD]] axes [0] {{.*}} -> (f32)
// CHECK: pgpu.store %[[N2]], %sq[{{.*}}]
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @gram_norms(%a: !pgpu.view<bf16, [B, T, K], in>, %g: !pgpu.view<bf16, [B, T, N], in>, %sq: !pgpu.view<f32, [B], out>) {
    %h0 = arith.constant 0.0 : bf16
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %B = pgpu.extent %a[0] : !pgpu.view<bf16, [B, T, K], in>
    %T = pgpu.extent %a[1] : !pgpu.view<bf16, [B, T, K], in>
    %K = pgpu.extent %a[2] : !pgpu.view<bf16, [B, T, K], in>
    %N = pgpu.extent %g[2] : !pgpu.view<bf16, [B, T, N], in>
    pgpu.program_space(%B) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_1 (reduction loop over a nested contraction's tile), TILE_2 (reduction loop over a nested contraction's tile), TILE_K (reduction loop), TILE_K (reduction loop); 2 reduction(s) become pgpu.contract}}
      pgpu.execution_group %pid extents(%B) segment 0 roles ["axis0"] {
      ^bb0(%b: index):
        %n2 = pgpu.range_reduce %c0 to %T identity(%z : f32) -> (f32) element {
        ^bb0(%t: index):
          %row = pgpu.range_reduce %c0 to %T identity(%z : f32) -> (f32) element {
          ^bb0(%s: index):
            %ga = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
            ^bb0(%k: index):
              %x = pgpu.load %a[%b, %t, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, K], in>[index, index, index] -> bf16
              %y = pgpu.load %a[%b, %s, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, K], in>[index, index, index] -> bf16
              %xf = pgpu.cast %x : bf16 to f32
              %yf = pgpu.cast %y : bf16 to f32
              %p = pgpu.binary mul %xf, %yf : f32
              pgpu.yield %p : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %q = pgpu.binary add %l, %r : f32
              pgpu.yield %q : f32
            }
            %gg = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
            ^bb0(%k: index):
              %x = pgpu.load %g[%b, %t, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, N], in>[index, index, index] -> bf16
              %y = pgpu.load %g[%b, %s, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, N], in>[index, index, index] -> bf16
              %xf = pgpu.cast %x : bf16 to f32
              %yf = pgpu.cast %y : bf16 to f32
              %p = pgpu.binary mul %xf, %yf : f32
              pgpu.yield %p : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %q = pgpu.binary add %l, %r : f32
              pgpu.yield %q : f32
            }
            %e = pgpu.binary mul %ga, %gg : f32
            pgpu.yield %e : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %q = pgpu.binary add %l, %r : f32
            pgpu.yield %q : f32
          }
          pgpu.yield %row : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %q = pgpu.binary add %l, %r : f32
          pgpu.yield %q : f32
        }
        pgpu.store %n2, %sq[%b] valid %true : i1 : f32, !pgpu.view<f32, [B], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the inner reduction's range depends on t (a triangular sum over s <= t): its
// COM: blocks would differ per lane of t.
// CHECK-LABEL: pgpu.kernel @gram_triangular
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @gram_triangular(%a: !pgpu.view<bf16, [B, T, K], in>, %g: !pgpu.view<bf16, [B, T, N], in>, %sq: !pgpu.view<f32, [B], out>) {
    %h0 = arith.constant 0.0 : bf16
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %B = pgpu.extent %a[0] : !pgpu.view<bf16, [B, T, K], in>
    %T = pgpu.extent %a[1] : !pgpu.view<bf16, [B, T, K], in>
    %K = pgpu.extent %a[2] : !pgpu.view<bf16, [B, T, K], in>
    %N = pgpu.extent %g[2] : !pgpu.view<bf16, [B, T, N], in>
    pgpu.program_space(%B) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: the program body has nested loops, control, atomics, or loop bounds that depend on the program}}
      pgpu.execution_group %pid extents(%B) segment 0 roles ["axis0"] {
      ^bb0(%b: index):
        %n2 = pgpu.range_reduce %c0 to %T identity(%z : f32) -> (f32) element {
        ^bb0(%t: index):
          %row = pgpu.range_reduce %c0 to %t identity(%z : f32) -> (f32) element {
          ^bb0(%s: index):
            %ga = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
            ^bb0(%k: index):
              %x = pgpu.load %a[%b, %t, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, K], in>[index, index, index] -> bf16
              %y = pgpu.load %a[%b, %s, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, K], in>[index, index, index] -> bf16
              %xf = pgpu.cast %x : bf16 to f32
              %yf = pgpu.cast %y : bf16 to f32
              %p = pgpu.binary mul %xf, %yf : f32
              pgpu.yield %p : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %q = pgpu.binary add %l, %r : f32
              pgpu.yield %q : f32
            }
            %gg = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
            ^bb0(%k: index):
              %x = pgpu.load %g[%b, %t, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, N], in>[index, index, index] -> bf16
              %y = pgpu.load %g[%b, %s, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, N], in>[index, index, index] -> bf16
              %xf = pgpu.cast %x : bf16 to f32
              %yf = pgpu.cast %y : bf16 to f32
              %p = pgpu.binary mul %xf, %yf : f32
              pgpu.yield %p : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %q = pgpu.binary add %l, %r : f32
              pgpu.yield %q : f32
            }
            %e = pgpu.binary mul %ga, %gg : f32
            pgpu.yield %e : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %q = pgpu.binary add %l, %r : f32
            pgpu.yield %q : f32
          }
          pgpu.yield %row : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %q = pgpu.binary add %l, %r : f32
          pgpu.yield %q : f32
        }
        pgpu.store %n2, %sq[%b] valid %true : i1 : f32, !pgpu.view<f32, [B], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the first product's operands are both free on t only (a row's sum of squares,
// COM: not a Gram tile over (t, s)): no contraction over t and s to tile.
// CHECK-LABEL: pgpu.kernel @gram_row_norm
// CHECK: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @gram_row_norm(%a: !pgpu.view<bf16, [B, T, K], in>, %g: !pgpu.view<bf16, [B, T, N], in>, %sq: !pgpu.view<f32, [B], out>) {
    %h0 = arith.constant 0.0 : bf16
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %B = pgpu.extent %a[0] : !pgpu.view<bf16, [B, T, K], in>
    %T = pgpu.extent %a[1] : !pgpu.view<bf16, [B, T, K], in>
    %K = pgpu.extent %a[2] : !pgpu.view<bf16, [B, T, K], in>
    %N = pgpu.extent %g[2] : !pgpu.view<bf16, [B, T, N], in>
    pgpu.program_space(%B) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: the program body has nested loops, control, atomics, or loop bounds that depend on the program}}
      pgpu.execution_group %pid extents(%B) segment 0 roles ["axis0"] {
      ^bb0(%b: index):
        %n2 = pgpu.range_reduce %c0 to %T identity(%z : f32) -> (f32) element {
        ^bb0(%t: index):
          %row = pgpu.range_reduce %c0 to %T identity(%z : f32) -> (f32) element {
          ^bb0(%s: index):
            %ga = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
            ^bb0(%k: index):
              %x = pgpu.load %a[%b, %t, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, K], in>[index, index, index] -> bf16
              %y = pgpu.load %a[%b, %t, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, K], in>[index, index, index] -> bf16
              %xf = pgpu.cast %x : bf16 to f32
              %yf = pgpu.cast %y : bf16 to f32
              %p = pgpu.binary mul %xf, %yf : f32
              pgpu.yield %p : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %q = pgpu.binary add %l, %r : f32
              pgpu.yield %q : f32
            }
            %gg = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
            ^bb0(%k: index):
              %x = pgpu.load %g[%b, %t, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, N], in>[index, index, index] -> bf16
              %y = pgpu.load %g[%b, %s, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, N], in>[index, index, index] -> bf16
              %xf = pgpu.cast %x : bf16 to f32
              %yf = pgpu.cast %y : bf16 to f32
              %p = pgpu.binary mul %xf, %yf : f32
              pgpu.yield %p : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %q = pgpu.binary add %l, %r : f32
              pgpu.yield %q : f32
            }
            %e = pgpu.binary mul %ga, %gg : f32
            pgpu.yield %e : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %q = pgpu.binary add %l, %r : f32
            pgpu.yield %q : f32
          }
          pgpu.yield %row : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %q = pgpu.binary add %l, %r : f32
          pgpu.yield %q : f32
        }
        pgpu.store %n2, %sq[%b] valid %true : i1 : f32, !pgpu.view<f32, [B], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A group without axes (a kernel-level sum over (i, j) of a Gram tile's function, SigLIP's
// COM: pairwise loss) is tiled alike: one program whose fold over t blocks pgpu-split-folds spreads
// COM: across programs; no element-by-element dot product is left.
// CHECK-LABEL: pgpu.kernel @gram_kernel_level
// CHECK: pgpu.program_space(%{{.*}}) {
// CHECK: pgpu.execution_group %{{.*}} extents() segment 0
// CHECK: pgpu.region_fold %{{.*}} step %{{.*}} identity(%{{.*}} : !pgpu.fragment<f32, [TILE_0]>)
// CHECK: pgpu.contract {{.*}} -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.contract {{.*}} -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.reduce %{{.*}} axes [0]
// CHECK: pgpu.store
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @gram_kernel_level(%a: !pgpu.view<bf16, [B, T, K], in>, %g: !pgpu.view<bf16, [B, T, N], in>, %sq: !pgpu.view<f32, [B], out>) {
    %h0 = arith.constant 0.0 : bf16
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %B = pgpu.extent %a[0] : !pgpu.view<bf16, [B, T, K], in>
    %T = pgpu.extent %a[1] : !pgpu.view<bf16, [B, T, K], in>
    %K = pgpu.extent %a[2] : !pgpu.view<bf16, [B, T, K], in>
    %N = pgpu.extent %g[2] : !pgpu.view<bf16, [B, T, N], in>
    pgpu.program_space(%c1) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_0 (reduction loop over a nested contraction's tile), TILE_1 (reduction loop over a nested contraction's tile), TILE_K (reduction loop), TILE_K (reduction loop); 2 reduction(s) become pgpu.contract}}
      pgpu.execution_group %pid extents() segment 0 roles [] {
        %n2 = pgpu.range_reduce %c0 to %T identity(%z : f32) -> (f32) element {
        ^bb0(%t: index):
          %row = pgpu.range_reduce %c0 to %T identity(%z : f32) -> (f32) element {
          ^bb0(%s: index):
            %ga = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
            ^bb0(%k: index):
              %x = pgpu.load %a[%c0, %t, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, K], in>[index, index, index] -> bf16
              %y = pgpu.load %a[%c0, %s, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, K], in>[index, index, index] -> bf16
              %xf = pgpu.cast %x : bf16 to f32
              %yf = pgpu.cast %y : bf16 to f32
              %p = pgpu.binary mul %xf, %yf : f32
              pgpu.yield %p : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %q = pgpu.binary add %l, %r : f32
              pgpu.yield %q : f32
            }
            %gg = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
            ^bb0(%k: index):
              %x = pgpu.load %g[%c0, %t, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, N], in>[index, index, index] -> bf16
              %y = pgpu.load %g[%c0, %s, %k] valid %true : i1 fill %h0 : bf16 : !pgpu.view<bf16, [B, T, N], in>[index, index, index] -> bf16
              %xf = pgpu.cast %x : bf16 to f32
              %yf = pgpu.cast %y : bf16 to f32
              %p = pgpu.binary mul %xf, %yf : f32
              pgpu.yield %p : f32
            } combine {
            ^bb0(%l: f32, %r: f32):
              %q = pgpu.binary add %l, %r : f32
              pgpu.yield %q : f32
            }
            %e = pgpu.binary mul %ga, %gg : f32
            pgpu.yield %e : f32
          } combine {
          ^bb0(%l: f32, %r: f32):
            %q = pgpu.binary add %l, %r : f32
            pgpu.yield %q : f32
          }
          pgpu.yield %row : f32
        } combine {
        ^bb0(%l: f32, %r: f32):
          %q = pgpu.binary add %l, %r : f32
          pgpu.yield %q : f32
        }
        pgpu.store %n2, %sq[%c0] valid %true : i1 : f32, !pgpu.view<f32, [B], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
