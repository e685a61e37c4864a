// RUN: tessel-opt %s -split-input-file -pgpu-fuse-sibling-loops -cse | FileCheck %s

// COM: Both operands' row norms and the GEMM walk one k range and read the same x and y tiles: one
// COM: loop carrying the two norms and the accumulator, each tile read once after the CSE; the
// COM: epilogue reads the fused loop's results (seed 002 §3.4).
// CHECK-LABEL: pgpu.kernel @fuse
// CHECK: %[[F:.*]]:3 = pgpu.for %c0 to %c32 step %{{.*}} iter_args(%[[Z:.*]], %[[Z]], %{{.*}} : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>)
// CHECK-COUNT-1: pgpu.load %x
// CHECK-NOT: pgpu.load %x
// CHECK: pgpu.load %y
// CHECK-NOT: pgpu.load
// CHECK: pgpu.contract
// CHECK-NEXT: pgpu.yield
// CHECK-NOT: pgpu.for
// CHECK: pgpu.broadcast %[[F]]#0 dims [0]
// CHECK: pgpu.broadcast %[[F]]#1 dims [1]
// CHECK: pgpu.binary mul %{{.*}}, %[[F]]#2
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @fuse(%x: !pgpu.view<f32, [16, 32], in>, %y: !pgpu.view<f32, [16, 32], in>,
                    %out: !pgpu.view<f32, [16, 16], out>, %nx: !pgpu.view<f32, [16], out>)
      attributes {params = [#pgpu.param<"TILE_K", [8], 8>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %s = pgpu.param "TILE_K" : index
      %z0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
      %nx0 = pgpu.for %c0 to %c32 step %s iter_args(%z0 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %sq = pgpu.binary mul %l, %l : !pgpu.fragment<f32, [16, 8]>
        %r = pgpu.reduce %sq axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 8]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%u: f32, %v: f32):
          %w = pgpu.binary add %u, %v : f32
          pgpu.yield %w : f32
        }
        %n = pgpu.binary add %c, %r : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      %ny0 = pgpu.for %c0 to %c32 step %s iter_args(%z0 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %y[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %sq = pgpu.binary mul %l, %l : !pgpu.fragment<f32, [16, 8]>
        %r = pgpu.reduce %sq axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 8]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%u: f32, %v: f32):
          %w = pgpu.binary add %u, %v : f32
          pgpu.yield %w : f32
        }
        %n = pgpu.binary add %c, %r : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %acc = pgpu.for %c0 to %c32 step %s iter_args(%a0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %w = pgpu.load %y[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [16, 8]>, !pgpu.fragment<f32, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %bx = pgpu.broadcast %nx0 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %by = pgpu.broadcast %ny0 dims [1] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %sum = pgpu.binary add %bx, %by : !pgpu.fragment<f32, [16, 16]>
      %t = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [16, 16]>
      %dd = pgpu.binary mul %t, %acc : !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %sum, %dd : !pgpu.fragment<f32, [16, 16]>
      %yi = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %yj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      pgpu.store %d, %out[%yi, %yj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: The GEMM first, then the norms: the fused loop takes the last loop's place, and the code
// COM: between that uses the GEMM's result (%h) moves after it.
// CHECK-LABEL: pgpu.kernel @gemm_first
// CHECK: %[[F:.*]]:3 = pgpu.for %c0 to %c32
// CHECK: pgpu.contract
// CHECK: pgpu.yield %{{.*}}, %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [16, 16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>
// CHECK-NEXT: }
// CHECK-NEXT: %[[H:.*]] = pgpu.binary add %[[F]]#0, %[[F]]#0
// CHECK-NOT: pgpu.for
// CHECK: pgpu.binary mul %{{.*}}, %[[H]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @gemm_first(%x: !pgpu.view<f32, [16, 32], in>, %y: !pgpu.view<f32, [16, 32], in>,
                    %out: !pgpu.view<f32, [16, 16], out>, %nx: !pgpu.view<f32, [16], out>)
      attributes {params = [#pgpu.param<"TILE_K", [8], 8>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %s = pgpu.param "TILE_K" : index
      %z0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %acc = pgpu.for %c0 to %c32 step %s iter_args(%a0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %w = pgpu.load %y[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [16, 8]>, !pgpu.fragment<f32, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %h = pgpu.binary add %acc, %acc : !pgpu.fragment<f32, [16, 16]>
      %nx0 = pgpu.for %c0 to %c32 step %s iter_args(%z0 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %sq = pgpu.binary mul %l, %l : !pgpu.fragment<f32, [16, 8]>
        %r = pgpu.reduce %sq axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 8]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%u: f32, %v: f32):
          %w = pgpu.binary add %u, %v : f32
          pgpu.yield %w : f32
        }
        %n = pgpu.binary add %c, %r : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      %ny0 = pgpu.for %c0 to %c32 step %s iter_args(%z0 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %y[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %sq = pgpu.binary mul %l, %l : !pgpu.fragment<f32, [16, 8]>
        %r = pgpu.reduce %sq axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 8]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%u: f32, %v: f32):
          %w = pgpu.binary add %u, %v : f32
          pgpu.yield %w : f32
        }
        %n = pgpu.binary add %c, %r : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      %bx = pgpu.broadcast %nx0 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %by = pgpu.broadcast %ny0 dims [1] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %sum = pgpu.binary add %bx, %by : !pgpu.fragment<f32, [16, 16]>
      %t = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [16, 16]>
      %dd = pgpu.binary mul %t, %h : !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %sum, %dd : !pgpu.fragment<f32, [16, 16]>
      %yi = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %yj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      pgpu.store %d, %out[%yi, %yj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: no contraction in either loop (a row's sum and sum of squares stay two loops,
// COM: the form pgpu-stage-rows and pgpu-pack-rows read).
// CHECK-LABEL: pgpu.kernel @no_contract
// CHECK: pgpu.for %c0 to %c32 {{.*}} -> !pgpu.fragment<f32, [16]> {
// CHECK: pgpu.for %c0 to %c32 {{.*}} -> !pgpu.fragment<f32, [16]> {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @no_contract(%x: !pgpu.view<f32, [16, 32], in>, %y: !pgpu.view<f32, [16, 32], in>,
                    %out: !pgpu.view<f32, [16, 16], out>, %nx: !pgpu.view<f32, [16], out>)
      attributes {params = [#pgpu.param<"TILE_K", [8], 8>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %s = pgpu.param "TILE_K" : index
      %z0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
      %nx0 = pgpu.for %c0 to %c32 step %s iter_args(%z0 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %sq = pgpu.binary mul %l, %l : !pgpu.fragment<f32, [16, 8]>
        %r = pgpu.reduce %l axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 8]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%u: f32, %v: f32):
          %w = pgpu.binary add %u, %v : f32
          pgpu.yield %w : f32
        }
        %n = pgpu.binary add %c, %r : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      %ny0 = pgpu.for %c0 to %c32 step %s iter_args(%z0 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %sq = pgpu.binary mul %l, %l : !pgpu.fragment<f32, [16, 8]>
        %r = pgpu.reduce %sq axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 8]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%u: f32, %v: f32):
          %w = pgpu.binary add %u, %v : f32
          pgpu.yield %w : f32
        }
        %n = pgpu.binary add %c, %r : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      %sn = pgpu.binary add %nx0, %ny0 : !pgpu.fragment<f32, [16]>
      pgpu.store %sn, %nx[%i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [16], out>[!pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire on another bound: the x norm over [0, 16) stays; the y norm joins the GEMM.
// CHECK-LABEL: pgpu.kernel @other_bound
// CHECK: pgpu.for %c0 to %c16 {{.*}} -> !pgpu.fragment<f32, [16]> {
// CHECK: pgpu.for %c0 to %c32 {{.*}} -> !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]> {
// CHECK-NOT: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @other_bound(%x: !pgpu.view<f32, [16, 32], in>, %y: !pgpu.view<f32, [16, 32], in>,
                    %out: !pgpu.view<f32, [16, 16], out>, %nx: !pgpu.view<f32, [16], out>)
      attributes {params = [#pgpu.param<"TILE_K", [8], 8>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %s = pgpu.param "TILE_K" : index
      %z0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
      %nx0 = pgpu.for %c0 to %c16 step %s iter_args(%z0 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %sq = pgpu.binary mul %l, %l : !pgpu.fragment<f32, [16, 8]>
        %r = pgpu.reduce %sq axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 8]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%u: f32, %v: f32):
          %w = pgpu.binary add %u, %v : f32
          pgpu.yield %w : f32
        }
        %n = pgpu.binary add %c, %r : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      %ny0 = pgpu.for %c0 to %c32 step %s iter_args(%z0 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %y[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %sq = pgpu.binary mul %l, %l : !pgpu.fragment<f32, [16, 8]>
        %r = pgpu.reduce %sq axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 8]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%u: f32, %v: f32):
          %w = pgpu.binary add %u, %v : f32
          pgpu.yield %w : f32
        }
        %n = pgpu.binary add %c, %r : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %acc = pgpu.for %c0 to %c32 step %s iter_args(%a0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %w = pgpu.load %y[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [16, 8]>, !pgpu.fragment<f32, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %bx = pgpu.broadcast %nx0 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %by = pgpu.broadcast %ny0 dims [1] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %sum = pgpu.binary add %bx, %by : !pgpu.fragment<f32, [16, 16]>
      %t = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [16, 16]>
      %dd = pgpu.binary mul %t, %acc : !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %sum, %dd : !pgpu.fragment<f32, [16, 16]>
      %yi = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %yj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      pgpu.store %d, %out[%yi, %yj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire across a write: the x norm is stored before the y norm and the GEMM, so it
// COM: stays before the store; the y norm joins the GEMM.
// CHECK-LABEL: pgpu.kernel @write_between
// CHECK: pgpu.for %c0 to %c32 {{.*}} -> !pgpu.fragment<f32, [16]> {
// CHECK: pgpu.store
// CHECK: pgpu.for %c0 to %c32 {{.*}} -> !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]> {
// CHECK-NOT: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @write_between(%x: !pgpu.view<f32, [16, 32], in>, %y: !pgpu.view<f32, [16, 32], in>,
                    %out: !pgpu.view<f32, [16, 16], out>, %nx: !pgpu.view<f32, [16], out>)
      attributes {params = [#pgpu.param<"TILE_K", [8], 8>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %s = pgpu.param "TILE_K" : index
      %z0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
      %nx0 = pgpu.for %c0 to %c32 step %s iter_args(%z0 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %sq = pgpu.binary mul %l, %l : !pgpu.fragment<f32, [16, 8]>
        %r = pgpu.reduce %sq axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 8]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%u: f32, %v: f32):
          %w = pgpu.binary add %u, %v : f32
          pgpu.yield %w : f32
        }
        %n = pgpu.binary add %c, %r : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      pgpu.store %nx0, %nx[%i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [16], out>[!pgpu.fragment<index, [16]>]
      %ny0 = pgpu.for %c0 to %c32 step %s iter_args(%z0 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %y[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %sq = pgpu.binary mul %l, %l : !pgpu.fragment<f32, [16, 8]>
        %r = pgpu.reduce %sq axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 8]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%u: f32, %v: f32):
          %w = pgpu.binary add %u, %v : f32
          pgpu.yield %w : f32
        }
        %n = pgpu.binary add %c, %r : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %acc = pgpu.for %c0 to %c32 step %s iter_args(%a0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %w = pgpu.load %y[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [16, 8]>, !pgpu.fragment<f32, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %bx = pgpu.broadcast %nx0 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %by = pgpu.broadcast %ny0 dims [1] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %sum = pgpu.binary add %bx, %by : !pgpu.fragment<f32, [16, 16]>
      %t = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [16, 16]>
      %dd = pgpu.binary mul %t, %acc : !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %sum, %dd : !pgpu.fragment<f32, [16, 16]>
      %yi = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %yj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      pgpu.store %d, %out[%yi, %yj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire where the second loop uses the first's result (here its init): the x norm
// COM: stays before the loop that continues it.
// CHECK-LABEL: pgpu.kernel @dependent
// CHECK: %[[N:.*]] = pgpu.for %c0 to %c32 {{.*}} -> !pgpu.fragment<f32, [16]> {
// CHECK: pgpu.for %c0 to %c32 step %{{.*}} iter_args(%[[N]], %{{.*}} : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>)
// CHECK-NOT: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @dependent(%x: !pgpu.view<f32, [16, 32], in>, %y: !pgpu.view<f32, [16, 32], in>,
                    %out: !pgpu.view<f32, [16, 16], out>, %nx: !pgpu.view<f32, [16], out>)
      attributes {params = [#pgpu.param<"TILE_K", [8], 8>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %s = pgpu.param "TILE_K" : index
      %z0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
      %nx0 = pgpu.for %c0 to %c32 step %s iter_args(%z0 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %sq = pgpu.binary mul %l, %l : !pgpu.fragment<f32, [16, 8]>
        %r = pgpu.reduce %sq axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 8]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%u: f32, %v: f32):
          %w = pgpu.binary add %u, %v : f32
          pgpu.yield %w : f32
        }
        %n = pgpu.binary add %c, %r : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      %ny0 = pgpu.for %c0 to %c32 step %s iter_args(%nx0 : !pgpu.fragment<f32, [16]>) -> !pgpu.fragment<f32, [16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %y[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %sq = pgpu.binary mul %l, %l : !pgpu.fragment<f32, [16, 8]>
        %r = pgpu.reduce %sq axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 8]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%u: f32, %v: f32):
          %w = pgpu.binary add %u, %v : f32
          pgpu.yield %w : f32
        }
        %n = pgpu.binary add %c, %r : !pgpu.fragment<f32, [16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16]>
      }
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %acc = pgpu.for %c0 to %c32 step %s iter_args(%a0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %w = pgpu.load %y[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [16, 8]>, !pgpu.fragment<f32, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %bx = pgpu.broadcast %nx0 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %by = pgpu.broadcast %ny0 dims [1] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %sum = pgpu.binary add %bx, %by : !pgpu.fragment<f32, [16, 16]>
      %t = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [16, 16]>
      %dd = pgpu.binary mul %t, %acc : !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %sum, %dd : !pgpu.fragment<f32, [16, 16]>
      %yi = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %yj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      pgpu.store %d, %out[%yi, %yj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire where both loops hold a contraction (two products of one x, SwiGLU's gate and
// COM: up): one loop would keep both accumulator tiles live.
// CHECK-LABEL: pgpu.kernel @two_products
// CHECK: pgpu.for %c0 to %c32 {{.*}} -> !pgpu.fragment<f32, [16, 16]> {
// CHECK: pgpu.for %c0 to %c32 {{.*}} -> !pgpu.fragment<f32, [16, 16]> {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @two_products(%x: !pgpu.view<f32, [16, 32], in>, %y: !pgpu.view<f32, [16, 32], in>,
                    %out: !pgpu.view<f32, [16, 16], out>, %nx: !pgpu.view<f32, [16], out>)
      attributes {params = [#pgpu.param<"TILE_K", [8], 8>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %s = pgpu.param "TILE_K" : index
      %z0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %acc = pgpu.for %c0 to %c32 step %s iter_args(%a0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %w = pgpu.load %y[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [16, 8]>, !pgpu.fragment<f32, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %b0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %acc2 = pgpu.for %c0 to %c32 step %s iter_args(%b0 : !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%k: index, %c: !pgpu.fragment<f32, [16, 16]>):
        %kk = pgpu.iota %k : !pgpu.fragment<index, [8]>
        %mk = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 8]>
        %kb = pgpu.broadcast %kk dims [1] : !pgpu.fragment<index, [8]> -> !pgpu.fragment<index, [16, 8]>
        %l = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %w = pgpu.load %x[%mk, %kb] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 32], in>[!pgpu.fragment<index, [16, 8]>, !pgpu.fragment<index, [16, 8]>] -> !pgpu.fragment<f32, [16, 8]>
        %wt = pgpu.transpose %w [1, 0] : !pgpu.fragment<f32, [16, 8]> -> !pgpu.fragment<f32, [8, 16]>
        %n = pgpu.contract %l, %wt, %c reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [16, 8]>, !pgpu.fragment<f32, [8, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %n : !pgpu.fragment<f32, [16, 16]>
      }
      %bx = pgpu.broadcast %z0 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %by = pgpu.broadcast %z0 dims [1] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %sum = pgpu.binary add %bx, %by : !pgpu.fragment<f32, [16, 16]>
      %t = pgpu.splat %two : f32 -> !pgpu.fragment<f32, [16, 16]>
      %dd = pgpu.binary mul %acc2, %acc : !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %sum, %dd : !pgpu.fragment<f32, [16, 16]>
      %yi = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %yj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      pgpu.store %d, %out[%yi, %yj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}
