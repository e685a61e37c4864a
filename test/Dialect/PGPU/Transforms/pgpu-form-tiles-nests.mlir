// RUN: tessel-opt %s -split-input-file -pgpu-form-tiles -verify-diagnostics | FileCheck %s

// COM: A contraction whose left operand is a pointwise function of another contraction (a LoRA
// COM: delta, y[m, n] = sum_r f16(sum_k x[m, k] a[k, r]) b[r, n]), as construction realizes it:
// COM: the inner sum nested in the outer sum's element body, once per member r. The inner
// COM: contraction's free axes are the program axis m and the outer's reduced axis r, so (seed 002
// COM: §3.3-§3.4) r is blocked by its own TILE_2: the constant extent 16 (spelled
// COM: max(ceil_div(16, 1), 0)) fits the smallest candidate, so TILE_2 has the one candidate 16 and r
// COM: is one block, no loop. A K loop accumulates the [TILE_0, TILE_2] tile of x·a, the rounding
// COM: to f16 applies to the tile, and the outer contraction takes it as its left operand against
// COM: the [TILE_2, TILE_1] tile of b.
// CHECK-LABEL: pgpu.kernel @lora_delta
// CHECK-SAME: #pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_2", [16], 16>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>
// CHECK: %[[ACC0:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK-NOT: pgpu.for
// CHECK: pgpu.iota %{{.*}} : !pgpu.fragment<index, [TILE_2]>
// CHECK: %[[XA0:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
// CHECK: %[[KSTEP:.*]] = pgpu.param "TILE_K" : index
// CHECK: %[[XA:.*]] = pgpu.for %{{.*}} to %{{.*}} step %[[KSTEP]] iter_args(%[[XA0]] : !pgpu.fragment<f32, [TILE_0, TILE_2]>)
// CHECK: %[[X:.*]] = pgpu.load %x[{{.*}}] {{.*}} -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
// CHECK: %[[A:.*]] = pgpu.load %a[{{.*}}] {{.*}} -> !pgpu.fragment<f16, [TILE_2, TILE_K]>
// CHECK: %[[AT:.*]] = pgpu.transpose %[[A]] [1, 0] : !pgpu.fragment<f16, [TILE_2, TILE_K]> -> !pgpu.fragment<f16, [TILE_K, TILE_2]>
// CHECK: pgpu.contract %[[X]], %[[AT]], %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_2]>, !pgpu.fragment<f32, [TILE_0, TILE_2]> -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
// CHECK: %[[XAH:.*]] = pgpu.cast %[[XA]] : !pgpu.fragment<f32, [TILE_0, TILE_2]> to !pgpu.fragment<f16, [TILE_0, TILE_2]>
// CHECK-NOT: pgpu.for
// CHECK: %[[B:.*]] = pgpu.load %b[{{.*}}] {{.*}} -> !pgpu.fragment<f16, [TILE_1, TILE_2]>
// CHECK: %[[LHS:.*]] = pgpu.select %{{.*}}, %[[XAH]], %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_2]>, !pgpu.fragment<f16, [TILE_0, TILE_2]>
// CHECK: %[[BT:.*]] = pgpu.transpose %[[B]] [1, 0]
// CHECK: %[[DELTA:.*]] = pgpu.contract %[[LHS]], %[[BT]], %[[ACC0]] reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_2]>, !pgpu.fragment<f16, [TILE_2, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.store %[[DELTA]], %y[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @lora_delta(%x: !pgpu.view<f16, [M, K], in>, %a: !pgpu.view<f16, [K, 16], in>, %b: !pgpu.view<f16, [16, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %h0 = arith.constant 0.0 : f16
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %x[1] : !pgpu.view<f16, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f16, [16, N], in>
    %rd = pgpu.ceil_div %c16, %c1 : index
    %R = pgpu.binary max %rd, %c0 : index
    %MN = pgpu.binary mul %M, %N : index
    pgpu.program_space(%MN) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (program axis 1), TILE_2 (reduction loop over a nested contraction's tile), TILE_K (reduction loop); 2 reduction(s) become pgpu.contract; grouped traversal GROUP_0}}
      pgpu.execution_group %pid extents(%M, %N) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%m: index, %n: index):
        %d = pgpu.range_reduce %c0 to %R identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %xa = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %xv = pgpu.load %x[%m, %k] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
            %av = pgpu.load %a[%k, %r] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [K, 16], in>[index, index] -> f16
            %xf = pgpu.cast %xv : f16 to f32
            %af = pgpu.cast %av : f16 to f32
            %p = pgpu.binary mul %xf, %af : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %rr: f32):
            %t = pgpu.binary add %l, %rr : f32
            pgpu.yield %t : f32
          }
          %xah = pgpu.cast %xa : f32 to f16
          %bv = pgpu.load %b[%r, %n] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [16, N], in>[index, index] -> f16
          %xaf = pgpu.cast %xah : f16 to f32
          %bf = pgpu.cast %bv : f16 to f32
          %q = pgpu.binary mul %xaf, %bf : f32
          pgpu.yield %q : f32
        } combine {
        ^bb0(%l: f32, %rr: f32):
          %t = pgpu.binary add %l, %rr : f32
          pgpu.yield %t : f32
        }
        pgpu.store %d, %y[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: The enclosing reduction is a max-plus (max over r of (x·a)[m, r] + b[r, n]), not a
// COM: contraction: inside its loop over blocks of r, the K loop accumulates x·a's [TILE_0, TILE_2]
// COM: tile, b's column is added to it, and the tile is max-reduced along r into the [TILE_0] carry
// COM: (invalid r lanes at -inf, the identity). n stays one member per program. The constant r
// COM: extent 16 is one block but stays a one-trip loop: only a contraction's single block is
// COM: realized without one.
// CHECK-LABEL: pgpu.kernel @max_plus
// CHECK: %[[NINF:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [TILE_0]>
// CHECK: %[[RSTEP:.*]] = pgpu.param "TILE_2" : index
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %[[RSTEP]] iter_args(%[[NINF]] : !pgpu.fragment<f32, [TILE_0]>)
// CHECK: %[[XA:.*]] = pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_2]>)
// CHECK: pgpu.contract %{{.*}}, %{{.*}}, %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_2]>, !pgpu.fragment<f32, [TILE_0, TILE_2]>
// CHECK: %[[SUM:.*]] = pgpu.binary add %[[XA]], %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_2]>
// CHECK: %[[LANES:.*]] = pgpu.select %{{.*}}, %[[SUM]], %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_2]>
// CHECK: pgpu.reduce %[[LANES]] axes [1] identity(%{{.*}} : f32) : (!pgpu.fragment<f32, [TILE_0, TILE_2]>) -> (!pgpu.fragment<f32, [TILE_0]>)
// CHECK: pgpu.binary max
// CHECK: pgpu.binary max %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [TILE_0]>
// CHECK: pgpu.store %{{.*}}, %y[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0]> : !pgpu.fragment<f32, [TILE_0]>
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @max_plus(%x: !pgpu.view<f16, [M, K], in>, %a: !pgpu.view<f16, [K, 16], in>, %b: !pgpu.view<f32, [16, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %h0 = arith.constant 0.0 : f16
    %f0 = arith.constant 0.0 : f32
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %x[1] : !pgpu.view<f16, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f32, [16, N], in>
    %MN = pgpu.binary mul %M, %N : index
    pgpu.program_space(%MN) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_0 (program axis 0), TILE_2 (reduction loop over a nested contraction's tile), TILE_K (reduction loop); 1 reduction(s) become pgpu.contract}}
      pgpu.execution_group %pid extents(%M, %N) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%m: index, %n: index):
        %d = pgpu.range_reduce %c0 to %c16 identity(%ninf : f32) -> (f32) element {
        ^bb0(%r: index):
          %xa = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %xv = pgpu.load %x[%m, %k] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
            %av = pgpu.load %a[%k, %r] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [K, 16], in>[index, index] -> f16
            %xf = pgpu.cast %xv : f16 to f32
            %af = pgpu.cast %av : f16 to f32
            %p = pgpu.binary mul %xf, %af : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %rr: f32):
            %t = pgpu.binary add %l, %rr : f32
            pgpu.yield %t : f32
          }
          %bv = pgpu.load %b[%r, %n] valid %true : i1 fill %f0 : f32 : !pgpu.view<f32, [16, N], in>[index, index] -> f32
          %q = pgpu.binary add %xa, %bv : f32
          pgpu.yield %q : f32
        } combine {
        ^bb0(%l: f32, %rr: f32):
          %t = pgpu.binary max %l, %rr : f32
          pgpu.yield %t : f32
        }
        pgpu.store %d, %y[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----
// COM: A bias gradient (kir-vjp's d_bias of c = sigmoid(a·b + bias), issue 45): per column n,
// COM: d[n] = sum_m dy[m, n] * s(1 - s) with s = sigmoid((a·b)[m, n] + bias[n]), the forward's
// COM: product recomputed per member m inside the column sum. The nested contraction's free axes
// COM: are the program axis n and the enclosing sum's m: one program per TILE_0 columns walks m in
// COM: blocks of TILE_1, a K loop accumulates the [TILE_0, TILE_1] tile of (a·b)^T, the pointwise
// COM: derivative applies to the tile, and the tile is summed along m into the [TILE_0] carry:
// COM: the forward's product once in tiles, not a K-long dot product per element.
// CHECK-LABEL: pgpu.kernel @bias_gradient
// CHECK-SAME: #pgpu.param<"TILE_1", [16, 32, 64, 128], 64>
// CHECK: %[[ZERO:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [TILE_0]>
// CHECK: %[[MSTEP:.*]] = pgpu.param "TILE_1" : index
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %[[MSTEP]] iter_args(%[[ZERO]] : !pgpu.fragment<f32, [TILE_0]>)
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK: pgpu.contract %{{.*}}, %{{.*}}, %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [TILE_0, TILE_K]>, !pgpu.fragment<f16, [TILE_K, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[DY:.*]] = pgpu.load %dy[{{.*}}] {{.*}} -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.unary sigmoid %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[G:.*]] = pgpu.binary mul %[[DY]], %{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[LANES:.*]] = pgpu.select %{{.*}}, %[[G]], %{{.*}} : !pgpu.fragment<i1, [TILE_0, TILE_1]>
// CHECK: pgpu.reduce %[[LANES]] axes [1] identity(%{{.*}} : f32) : (!pgpu.fragment<f32, [TILE_0, TILE_1]>) -> (!pgpu.fragment<f32, [TILE_0]>)
// CHECK: pgpu.store %{{.*}}, %d[{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [TILE_0]> : !pgpu.fragment<f32, [TILE_0]>
// CHECK-NOT: pgpu.range_reduce
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @bias_gradient(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>, %bias: !pgpu.view<f32, [N], in>, %dy: !pgpu.view<f32, [M, N], in>, %d: !pgpu.view<f32, [N], out>) {
    %h0 = arith.constant 0.0 : f16
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f16, [K, N], in>
    pgpu.program_space(%N) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (reduction loop over a nested contraction's tile), TILE_K (reduction loop); 1 reduction(s) become pgpu.contract}}
      pgpu.execution_group %pid extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%n: index):
        %bn = pgpu.load %bias[%n] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
        %g = pgpu.range_reduce %c0 to %M identity(%z : f32) -> (f32) element {
        ^bb0(%m: index):
          %ab = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %av = pgpu.load %a[%m, %k] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
            %bv = pgpu.load %b[%k, %n] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
            %af = pgpu.cast %av : f16 to f32
            %bf = pgpu.cast %bv : f16 to f32
            %p = pgpu.binary mul %af, %bf : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %rr: f32):
            %t = pgpu.binary add %l, %rr : f32
            pgpu.yield %t : f32
          }
          %dyv = pgpu.load %dy[%m, %n] valid %true : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %pre = pgpu.binary add %bn, %ab : f32
          %s = pgpu.unary sigmoid %pre : f32
          %ms = pgpu.binary sub %one, %s : f32
          %ds = pgpu.binary mul %s, %ms : f32
          %q = pgpu.binary mul %dyv, %ds : f32
          pgpu.yield %q : f32
        } combine {
        ^bb0(%l: f32, %rr: f32):
          %t = pgpu.binary add %l, %rr : f32
          pgpu.yield %t : f32
        }
        pgpu.store %g, %d[%n] valid %true : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the nested reduction is a max over k of x[m, k] * a[k, r] (not a sum of
// COM: products: no contraction) and depends on the enclosing member r (it cannot be computed once
// COM: before the enclosing sum): the nest stays element by element.
// CHECK-LABEL: pgpu.kernel @sum_of_max_products
// CHECK: pgpu.execution_group
// CHECK: pgpu.range_reduce
// CHECK: pgpu.range_reduce
// CHECK-NOT: pgpu.contract
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @sum_of_max_products(%x: !pgpu.view<f16, [M, K], in>, %a: !pgpu.view<f16, [K, R], in>, %y: !pgpu.view<f32, [M], out>) {
    %h0 = arith.constant 0.0 : f16
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %c0 = arith.constant 0 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %x[1] : !pgpu.view<f16, [M, K], in>
    %R = pgpu.extent %a[1] : !pgpu.view<f16, [K, R], in>
    pgpu.program_space(%M) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: a reduction nested in another's element body is tiled only when the inner one is a contraction}}
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        %d = pgpu.range_reduce %c0 to %R identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %mx = pgpu.range_reduce %c0 to %K identity(%ninf : f32) -> (f32) element {
          ^bb0(%k: index):
            %xv = pgpu.load %x[%m, %k] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
            %av = pgpu.load %a[%k, %r] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [K, R], in>[index, index] -> f16
            %xf = pgpu.cast %xv : f16 to f32
            %af = pgpu.cast %av : f16 to f32
            %p = pgpu.binary mul %xf, %af : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %rr: f32):
            %t = pgpu.binary max %l, %rr : f32
            pgpu.yield %t : f32
          }
          pgpu.yield %mx : f32
        } combine {
        ^bb0(%l: f32, %rr: f32):
          %t = pgpu.binary add %l, %rr : f32
          pgpu.yield %t : f32
        }
        pgpu.store %d, %y[%m] valid %true : i1 : f32, !pgpu.view<f32, [M], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the nested contraction's k range depends on the enclosing member r (a
// COM: triangular nest, sum_r (sum_{k < r} x[m, k] a[k, r]) b[r, n]): its [m, r] values are no
// COM: rectangular tile of one K loop.
// CHECK-LABEL: pgpu.kernel @triangular
// CHECK: pgpu.execution_group
// CHECK: pgpu.range_reduce
// CHECK: pgpu.range_reduce
// CHECK-NOT: pgpu.contract
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @triangular(%x: !pgpu.view<f16, [M, 16], in>, %a: !pgpu.view<f16, [16, 16], in>, %b: !pgpu.view<f16, [16, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %h0 = arith.constant 0.0 : f16
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f16, [M, 16], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f16, [16, N], in>
    %MN = pgpu.binary mul %M, %N : index
    pgpu.program_space(%MN) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: not tiled: a nested contraction's bounds depend on the enclosing reduction's member}}
      pgpu.execution_group %pid extents(%M, %N) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%m: index, %n: index):
        %d = pgpu.range_reduce %c0 to %c16 identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %xa = pgpu.range_reduce %c0 to %r identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %xv = pgpu.load %x[%m, %k] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [M, 16], in>[index, index] -> f16
            %av = pgpu.load %a[%k, %r] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [16, 16], in>[index, index] -> f16
            %xf = pgpu.cast %xv : f16 to f32
            %af = pgpu.cast %av : f16 to f32
            %p = pgpu.binary mul %xf, %af : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %rr: f32):
            %t = pgpu.binary add %l, %rr : f32
            pgpu.yield %t : f32
          }
          %bv = pgpu.load %b[%r, %n] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [16, N], in>[index, index] -> f16
          %bf = pgpu.cast %bv : f16 to f32
          %q = pgpu.binary mul %xa, %bf : f32
          pgpu.yield %q : f32
        } combine {
        ^bb0(%l: f32, %rr: f32):
          %t = pgpu.binary add %l, %rr : f32
          pgpu.yield %t : f32
        }
        pgpu.store %d, %y[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: LoRA forward, y = x·w + f16(x·a)·b: the base contraction's K loop and the nested x·a (r one
// COM: block, the same k range, reading only what is computed before the base) share one loop
// COM: (seed 002 §3.4 co-realization): two accumulators, one load of the x tile feeding both
// COM: contractions; after it the delta contracts the rounded [TILE_0, TILE_2] tile with b into the
// COM: base's accumulator (an addend that is a contraction's accumulator, used only by the sum).
// CHECK-LABEL: pgpu.kernel @lora_forward
// CHECK: %[[BASE0:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: %[[XA0:.*]] = pgpu.splat %{{.*}} : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_3]>
// CHECK: %[[LOOP:.*]]:2 = pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[BASE0]], %[[XA0]] : !pgpu.fragment<f32, [TILE_0, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_3]>)
// CHECK: %[[X:.*]] = pgpu.load %x[{{.*}}] {{.*}} -> !pgpu.fragment<f16, [TILE_0, TILE_K]>
// CHECK: pgpu.load %w
// CHECK-NOT: pgpu.load %x
// CHECK: pgpu.load %a
// CHECK-NOT: pgpu.load %x
// CHECK: %[[XAN:.*]] = pgpu.contract %[[X]], %{{.*}} -> !pgpu.fragment<f32, [TILE_0, TILE_3]>
// CHECK: %[[BASEN:.*]] = pgpu.contract %[[X]], %{{.*}} -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK: pgpu.yield %[[BASEN]], %[[XAN]]
// CHECK: pgpu.cast %[[LOOP]]#1 : !pgpu.fragment<f32, [TILE_0, TILE_3]> to !pgpu.fragment<f16, [TILE_0, TILE_3]>
// CHECK-NOT: pgpu.for
// CHECK: %[[DELTA:.*]] = pgpu.contract %{{.*}}, %{{.*}}, %[[LOOP]]#0 {{.*}} -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
// CHECK-NOT: pgpu.binary add
// CHECK: pgpu.store %[[DELTA]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @lora_forward(%x: !pgpu.view<f16, [M, K], in>, %w: !pgpu.view<f16, [K, N], in>, %a: !pgpu.view<f16, [K, 16], in>, %b: !pgpu.view<f16, [16, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %h0 = arith.constant 0.0 : f16
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %x[1] : !pgpu.view<f16, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f16, [16, N], in>
    %MN = pgpu.binary mul %M, %N : index
    pgpu.program_space(%MN) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (program axis 1), TILE_K (reduction loop), TILE_3 (reduction loop over a nested contraction's tile), TILE_K (reduction loop); 3 reduction(s) become pgpu.contract; 1 contraction(s) continue another's accumulator (one K over their sum); grouped traversal GROUP_0}}
      pgpu.execution_group %pid extents(%M, %N) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%m: index, %n: index):
        %base = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
        ^bb0(%k: index):
          %xv = pgpu.load %x[%m, %k] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
          %wv = pgpu.load %w[%k, %n] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
          %xf = pgpu.cast %xv : f16 to f32
          %wf = pgpu.cast %wv : f16 to f32
          %p = pgpu.binary mul %xf, %wf : f32
          pgpu.yield %p : f32
        } combine {
        ^bb0(%l: f32, %rr: f32):
          %t = pgpu.binary add %l, %rr : f32
          pgpu.yield %t : f32
        }
        %d = pgpu.range_reduce %c0 to %c16 identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %xa = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %xv = pgpu.load %x[%m, %k] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
            %av = pgpu.load %a[%k, %r] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [K, 16], in>[index, index] -> f16
            %xf = pgpu.cast %xv : f16 to f32
            %af = pgpu.cast %av : f16 to f32
            %p = pgpu.binary mul %xf, %af : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %rr: f32):
            %t = pgpu.binary add %l, %rr : f32
            pgpu.yield %t : f32
          }
          %xah = pgpu.cast %xa : f32 to f16
          %bv = pgpu.load %b[%r, %n] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [16, N], in>[index, index] -> f16
          %xaf = pgpu.cast %xah : f16 to f32
          %bf = pgpu.cast %bv : f16 to f32
          %q = pgpu.binary mul %xaf, %bf : f32
          pgpu.yield %q : f32
        } combine {
        ^bb0(%l: f32, %rr: f32):
          %t = pgpu.binary add %l, %rr : f32
          pgpu.yield %t : f32
        }
        %sum = pgpu.binary add %base, %d : f32
        pgpu.store %sum, %y[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fuse: the rank R is symbolic, so TILE_3 (16..128) may not cover it and r stays a
// COM: loop over blocks; x·a is accumulated per r block in its own K loop inside it (x read there
// COM: again), not in the base's loop.
// CHECK-LABEL: pgpu.kernel @lora_rank_r
// CHECK-SAME: #pgpu.param<"TILE_3", [16, 32, 64, 128], 64>
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK: pgpu.load %x
// CHECK: pgpu.load %w
// CHECK-NOT: pgpu.load %a
// CHECK: pgpu.param "TILE_3" : index
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_1]>)
// CHECK: pgpu.for %{{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [TILE_0, TILE_3]>)
// CHECK: pgpu.load %x
// CHECK: pgpu.load %a
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @lora_rank_r(%x: !pgpu.view<f16, [M, K], in>, %w: !pgpu.view<f16, [K, N], in>, %a: !pgpu.view<f16, [K, R], in>, %b: !pgpu.view<f16, [R, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
    %h0 = arith.constant 0.0 : f16
    %true = arith.constant true
    %z = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %M = pgpu.extent %x[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %x[1] : !pgpu.view<f16, [M, K], in>
    %N = pgpu.extent %b[1] : !pgpu.view<f16, [R, N], in>
    %R = pgpu.extent %a[1] : !pgpu.view<f16, [K, R], in>
    %MN = pgpu.binary mul %M, %N : index
    pgpu.program_space(%MN) {
    ^bb0(%pid: index):
      // expected-remark @+1 {{pgpu-form-tiles: tiled a contraction nest: TILE_0 (program axis 0), TILE_1 (program axis 1), TILE_K (reduction loop), TILE_3 (reduction loop over a nested contraction's tile), TILE_K (reduction loop); 3 reduction(s) become pgpu.contract; 1 contraction(s) continue another's accumulator (one K over their sum); grouped traversal GROUP_0}}
      pgpu.execution_group %pid extents(%M, %N) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%m: index, %n: index):
        %base = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
        ^bb0(%k: index):
          %xv = pgpu.load %x[%m, %k] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
          %wv = pgpu.load %w[%k, %n] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [K, N], in>[index, index] -> f16
          %xf = pgpu.cast %xv : f16 to f32
          %wf = pgpu.cast %wv : f16 to f32
          %p = pgpu.binary mul %xf, %wf : f32
          pgpu.yield %p : f32
        } combine {
        ^bb0(%l: f32, %rr: f32):
          %t = pgpu.binary add %l, %rr : f32
          pgpu.yield %t : f32
        }
        %d = pgpu.range_reduce %c0 to %R identity(%z : f32) -> (f32) element {
        ^bb0(%r: index):
          %xa = pgpu.range_reduce %c0 to %K identity(%z : f32) -> (f32) element {
          ^bb0(%k: index):
            %xv = pgpu.load %x[%m, %k] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [M, K], in>[index, index] -> f16
            %av = pgpu.load %a[%k, %r] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [K, R], in>[index, index] -> f16
            %xf = pgpu.cast %xv : f16 to f32
            %af = pgpu.cast %av : f16 to f32
            %p = pgpu.binary mul %xf, %af : f32
            pgpu.yield %p : f32
          } combine {
          ^bb0(%l: f32, %rr: f32):
            %t = pgpu.binary add %l, %rr : f32
            pgpu.yield %t : f32
          }
          %xah = pgpu.cast %xa : f32 to f16
          %bv = pgpu.load %b[%r, %n] valid %true : i1 fill %h0 : f16 : !pgpu.view<f16, [R, N], in>[index, index] -> f16
          %xaf = pgpu.cast %xah : f16 to f32
          %bf = pgpu.cast %bv : f16 to f32
          %q = pgpu.binary mul %xaf, %bf : f32
          pgpu.yield %q : f32
        } combine {
        ^bb0(%l: f32, %rr: f32):
          %t = pgpu.binary add %l, %rr : f32
          pgpu.yield %t : f32
        }
        %sum = pgpu.binary add %base, %d : f32
        pgpu.store %sum, %y[%m, %n] valid %true : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
