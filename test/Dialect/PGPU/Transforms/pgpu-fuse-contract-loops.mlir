// RUN: tessel-opt %s -split-input-file -pgpu-fuse-contract-loops -cse | FileCheck %s

// COM: A sum of two contractions over one k range, tiled as two K loops continuing one accumulator,
// COM: both reading %b at the same coordinates: one loop, the first's step then the second's; the
// COM: CSE after it reads %b once per block (seed 002 §3.4). Each loop reads its step parameter itself,
// COM: as pgpu-form-tiles builds them: one parameter, one step.
// CHECK-LABEL: pgpu.kernel @fuse
// CHECK: %[[R:.*]] = pgpu.for %c0 to %c32 step %{{.*}} iter_args(%[[Z:.*]] : !pgpu.fragment<f32, [16, 16]>)
// CHECK-NEXT: ^bb0(%[[K:.*]]: index, %[[C:.*]]: !pgpu.fragment<f32, [16, 16]>):
// CHECK-COUNT-1: pgpu.load %b
// CHECK-NOT: pgpu.load %b
// CHECK: %[[C1:.*]] = pgpu.contract %{{.*}}, %{{.*}}, %[[C]] reduce
// CHECK-NOT: pgpu.load %b
// CHECK: %[[C2:.*]] = pgpu.contract %{{.*}}, %{{.*}}, %[[C1]] reduce
// CHECK-NEXT: pgpu.yield %[[C2]]
// CHECK-NOT: pgpu.for
// CHECK: pgpu.store %[[R]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @fuse(%a: !pgpu.view<f16, [16, 32], in>, %e: !pgpu.view<f16, [16, 32], in>,
                    %b: !pgpu.view<f16, [16, 32], in>, %d: !pgpu.view<f16, [16, 32], in>,
                    %y: !pgpu.view<f32, [16, 16], out>)
      attributes {params = [#pgpu.param<"TILE_K", [8], 8>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %s1 = pgpu.param "TILE_K" : index
      %r1 = pgpu.for %c0 to %c32 step %s1 iter_args(%acc0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %a[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %w = pgpu.load %b[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f16, [16, 8]> -> !pgpu.fragment<f16, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 8]>, !pgpu.fragment<f16, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %s2 = pgpu.param "TILE_K" : index
      %r2 = pgpu.for %c0 to %c32 step %s2 iter_args(%r1 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %e[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %w = pgpu.load %b[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f16, [16, 8]> -> !pgpu.fragment<f16, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 8]>, !pgpu.fragment<f16, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %yi = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %yj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      pgpu.store %r2, %y[%yi, %yj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the loops share no read (each contracts its own pair of views, as the
// COM: taps of a convolution read different windows): nothing to save, both loops stay.
// CHECK-LABEL: pgpu.kernel @apart
// CHECK: %[[R1:.*]] = pgpu.for
// CHECK: pgpu.for %c0 to %c32 step %c8 iter_args(%[[R1]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @apart(%a: !pgpu.view<f16, [16, 32], in>, %e: !pgpu.view<f16, [16, 32], in>,
                    %b: !pgpu.view<f16, [16, 32], in>, %d: !pgpu.view<f16, [16, 32], in>,
                    %y: !pgpu.view<f32, [16, 16], out>)
      attributes {params = [#pgpu.param<"TILE_K", [8], 8>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r1 = pgpu.for %c0 to %c32 step %c8 iter_args(%acc0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %a[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %w = pgpu.load %b[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f16, [16, 8]> -> !pgpu.fragment<f16, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 8]>, !pgpu.fragment<f16, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %r2 = pgpu.for %c0 to %c32 step %c8 iter_args(%r1 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %e[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %w = pgpu.load %d[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f16, [16, 8]> -> !pgpu.fragment<f16, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 8]>, !pgpu.fragment<f16, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %yi = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %yj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      pgpu.store %r2, %y[%yi, %yj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the second loop walks another range (its own upper bound).
// CHECK-LABEL: pgpu.kernel @ranges
// CHECK: %[[R1:.*]] = pgpu.for %c0 to %c32
// CHECK: pgpu.for %c0 to %c16 step %c8 iter_args(%[[R1]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @ranges(%a: !pgpu.view<f16, [16, 32], in>, %e: !pgpu.view<f16, [16, 32], in>,
                    %b: !pgpu.view<f16, [16, 32], in>, %d: !pgpu.view<f16, [16, 32], in>,
                    %y: !pgpu.view<f32, [16, 16], out>)
      attributes {params = [#pgpu.param<"TILE_K", [8], 8>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r1 = pgpu.for %c0 to %c32 step %c8 iter_args(%acc0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %a[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %w = pgpu.load %b[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f16, [16, 8]> -> !pgpu.fragment<f16, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 8]>, !pgpu.fragment<f16, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %c16 = arith.constant 16 : index
      %r2 = pgpu.for %c0 to %c16 step %c8 iter_args(%r1 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %e[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %w = pgpu.load %b[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f16, [16, 8]> -> !pgpu.fragment<f16, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 8]>, !pgpu.fragment<f16, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %yi = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %yj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      pgpu.store %r2, %y[%yi, %yj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the second loop's carry is a running maximum, not a contraction's
// COM: accumulator: interleaving its steps with the first loop's would change its value.
// CHECK-LABEL: pgpu.kernel @maximum
// CHECK: %[[R1:.*]] = pgpu.for
// CHECK: pgpu.for %c0 to %c32 step %c8 iter_args(%[[R1]]
// CHECK: pgpu.binary max
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @maximum(%a: !pgpu.view<f16, [16, 32], in>, %e: !pgpu.view<f16, [16, 32], in>,
                    %b: !pgpu.view<f16, [16, 32], in>, %d: !pgpu.view<f16, [16, 32], in>,
                    %y: !pgpu.view<f32, [16, 16], out>)
      attributes {params = [#pgpu.param<"TILE_K", [8], 8>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r1 = pgpu.for %c0 to %c32 step %c8 iter_args(%acc0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %a[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %w = pgpu.load %b[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f16, [16, 8]> -> !pgpu.fragment<f16, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 8]>, !pgpu.fragment<f16, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %r2 = pgpu.for %c0 to %c32 step %c8 iter_args(%r1 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %e[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %w = pgpu.load %b[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f16, [16, 8]> -> !pgpu.fragment<f16, [8, 16]>
        %t = pgpu.contract %l, %wt, %acc0 reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 8]>, !pgpu.fragment<f16, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %n = pgpu.binary max %c, %t : !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %yi = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %yj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      pgpu.store %r2, %y[%yi, %yj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the first loop's result is stored too (a second use).
// CHECK-LABEL: pgpu.kernel @used
// CHECK: %[[R1:.*]] = pgpu.for
// CHECK: pgpu.for %c0 to %c32 step %c8 iter_args(%[[R1]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @used(%a: !pgpu.view<f16, [16, 32], in>, %e: !pgpu.view<f16, [16, 32], in>,
                    %b: !pgpu.view<f16, [16, 32], in>, %d: !pgpu.view<f16, [16, 32], in>,
                    %y: !pgpu.view<f32, [16, 16], out>)
      attributes {params = [#pgpu.param<"TILE_K", [8], 8>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r1 = pgpu.for %c0 to %c32 step %c8 iter_args(%acc0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %a[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %w = pgpu.load %b[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f16, [16, 8]> -> !pgpu.fragment<f16, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 8]>, !pgpu.fragment<f16, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %r2 = pgpu.for %c0 to %c32 step %c8 iter_args(%r1 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %e[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %w = pgpu.load %b[%mk, %kb] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f16, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f16, [16, 8]> -> !pgpu.fragment<f16, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 8]>, !pgpu.fragment<f16, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %ui = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %add = pgpu.binary add %r1, %r2 : !pgpu.fragment<f32, [16, 16]>
      %yi = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %yj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      pgpu.store %add, %y[%yi, %yj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}
