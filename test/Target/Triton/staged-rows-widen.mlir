// RUN: tessel-opt %s -split-input-file -pgpu-triton-legalize | FileCheck %s

// COM: A row staged by pgpu-stage-rows (the guarded single-iteration path of its blocked loops, here
// COM: a max then the store of x - max, as the pass leaves it) gains the doublings of BLOCK's largest
// COM: candidate whose f32 row block takes at most half the register file (128 KiB): 32768. The
// COM: default stays; a 32000-float row (corpus 13_log_softmax) then covers in one block, read once.
// CHECK-LABEL: pgpu.kernel @rowmax_shift
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768], 512, covers = "N">
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rowmax_shift(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">]} {
    %0 = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%0) {
    ^bb0(%arg0: index):
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0xFF800000 : f32
      %cst_0 = arith.constant 0.000000e+00 : f32
      %2 = pgpu.param "BLOCK" : index
      %3 = pgpu.binary sub %1, %c0 : index
      %4 = pgpu.cmp lt %c0, %1 : index
      %5 = pgpu.cmp le %3, %2 : index
      %6 = pgpu.binary and %4, %5 : i1
      pgpu.if %6 {
        %7 = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
        %8 = pgpu.splat %1 : index -> !pgpu.fragment<index, [BLOCK]>
        %9 = pgpu.cmp lt %7, %8 : !pgpu.fragment<index, [BLOCK]>
        %10 = pgpu.load %x[%arg0, %7] valid %9 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
        %11 = pgpu.reduce %10 axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
        ^bb0(%arg1: f32, %arg2: f32):
          %19 = pgpu.binary max %arg1, %arg2 : f32
          pgpu.yield %19 : f32
        }
        %12 = pgpu.binary max %cst, %11 : f32
        %13 = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
        %14 = pgpu.splat %1 : index -> !pgpu.fragment<index, [BLOCK]>
        %15 = pgpu.cmp lt %13, %14 : !pgpu.fragment<index, [BLOCK]>
        %16 = pgpu.load %x[%arg0, %13] valid %15 : !pgpu.fragment<i1, [BLOCK]> fill %cst_0 : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
        %17 = pgpu.splat %12 : f32 -> !pgpu.fragment<f32, [BLOCK]>
        %18 = pgpu.binary sub %16, %17 : !pgpu.fragment<f32, [BLOCK]>
        pgpu.store %18, %y[%arg0, %13] valid %15 : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
        pgpu.yield
      } else {
        %7 = pgpu.for %c0 to %1 step %2 iter_args(%cst : f32) -> f32 {
        ^bb0(%arg1: index, %arg2: f32):
          %8 = pgpu.iota %arg1 : !pgpu.fragment<index, [BLOCK]>
          %9 = pgpu.splat %1 : index -> !pgpu.fragment<index, [BLOCK]>
          %10 = pgpu.cmp lt %8, %9 : !pgpu.fragment<index, [BLOCK]>
          %11 = pgpu.load %x[%arg0, %8] valid %10 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %12 = pgpu.reduce %11 axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%arg3: f32, %arg4: f32):
            %14 = pgpu.binary max %arg3, %arg4 : f32
            pgpu.yield %14 : f32
          }
          %13 = pgpu.binary max %arg2, %12 : f32
          pgpu.yield %13 : f32
        }
        pgpu.for %c0 to %1 step %2 {
        ^bb0(%arg1: index):
          %8 = pgpu.iota %arg1 : !pgpu.fragment<index, [BLOCK]>
          %9 = pgpu.splat %1 : index -> !pgpu.fragment<index, [BLOCK]>
          %10 = pgpu.cmp lt %8, %9 : !pgpu.fragment<index, [BLOCK]>
          %11 = pgpu.load %x[%arg0, %8] valid %10 : !pgpu.fragment<i1, [BLOCK]> fill %cst_0 : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %12 = pgpu.splat %7 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %13 = pgpu.binary sub %11, %12 : !pgpu.fragment<f32, [BLOCK]>
          pgpu.store %13, %y[%arg0, %8] valid %10 : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
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

// COM: Must not fire: the same loops without the staged path (no pgpu-stage-rows guard) keep BLOCK's
// COM: candidates; such a row is read per block whatever BLOCK is.
// CHECK-LABEL: pgpu.kernel @rowmax_shift_blocked
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rowmax_shift_blocked(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %ninf = arith.constant 0xFF800000 : f32
      %z = arith.constant 0.0 : f32
      %block = pgpu.param "BLOCK" : index
      %max = pgpu.for %c0 to %N step %block iter_args(%ninf : f32) -> f32 {
      ^bb0(%b: index, %acc: f32):
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
        %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %ninf : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
        %part = pgpu.reduce %v axes [0] identity(%ninf : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
        ^bb0(%l: f32, %r: f32):
          %m = pgpu.binary max %l, %r : f32
          pgpu.yield %m : f32
        }
        %next = pgpu.binary max %acc, %part : f32
        pgpu.yield %next : f32
      }
      pgpu.for %c0 to %N step %block {
      ^bb0(%b: index):
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
        %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
        %mb = pgpu.splat %max : f32 -> !pgpu.fragment<f32, [BLOCK]>
        %d = pgpu.binary sub %v, %mb : !pgpu.fragment<f32, [BLOCK]>
        pgpu.store %d, %y[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: an f64 row block of 16384 already takes 128 KiB, half the register file.
// CHECK-LABEL: pgpu.kernel @rowmax_shift_f64
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rowmax_shift_f64(%x: !pgpu.view<f64, [M, N], in>, %y: !pgpu.view<f64, [M, N], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">]} {
    %0 = pgpu.extent %x[0] : !pgpu.view<f64, [M, N], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<f64, [M, N], in>
    pgpu.program_space(%0) {
    ^bb0(%arg0: index):
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0xFFF0000000000000 : f64
      %cst_0 = arith.constant 0.000000e+00 : f64
      %2 = pgpu.param "BLOCK" : index
      %3 = pgpu.binary sub %1, %c0 : index
      %4 = pgpu.cmp lt %c0, %1 : index
      %5 = pgpu.cmp le %3, %2 : index
      %6 = pgpu.binary and %4, %5 : i1
      pgpu.if %6 {
        %7 = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
        %8 = pgpu.splat %1 : index -> !pgpu.fragment<index, [BLOCK]>
        %9 = pgpu.cmp lt %7, %8 : !pgpu.fragment<index, [BLOCK]>
        %10 = pgpu.load %x[%arg0, %7] valid %9 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f64 : !pgpu.view<f64, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f64, [BLOCK]>
        %11 = pgpu.reduce %10 axes [0] identity(%cst : f64) : (!pgpu.fragment<f64, [BLOCK]>) -> (f64) {
        ^bb0(%arg1: f64, %arg2: f64):
          %19 = pgpu.binary max %arg1, %arg2 : f64
          pgpu.yield %19 : f64
        }
        %12 = pgpu.binary max %cst, %11 : f64
        %13 = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
        %14 = pgpu.splat %1 : index -> !pgpu.fragment<index, [BLOCK]>
        %15 = pgpu.cmp lt %13, %14 : !pgpu.fragment<index, [BLOCK]>
        %16 = pgpu.load %x[%arg0, %13] valid %15 : !pgpu.fragment<i1, [BLOCK]> fill %cst_0 : f64 : !pgpu.view<f64, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f64, [BLOCK]>
        %17 = pgpu.splat %12 : f64 -> !pgpu.fragment<f64, [BLOCK]>
        %18 = pgpu.binary sub %16, %17 : !pgpu.fragment<f64, [BLOCK]>
        pgpu.store %18, %y[%arg0, %13] valid %15 : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f64, [BLOCK]>, !pgpu.view<f64, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
        pgpu.yield
      } else {
        %7 = pgpu.for %c0 to %1 step %2 iter_args(%cst : f64) -> f64 {
        ^bb0(%arg1: index, %arg2: f64):
          %8 = pgpu.iota %arg1 : !pgpu.fragment<index, [BLOCK]>
          %9 = pgpu.splat %1 : index -> !pgpu.fragment<index, [BLOCK]>
          %10 = pgpu.cmp lt %8, %9 : !pgpu.fragment<index, [BLOCK]>
          %11 = pgpu.load %x[%arg0, %8] valid %10 : !pgpu.fragment<i1, [BLOCK]> fill %cst : f64 : !pgpu.view<f64, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f64, [BLOCK]>
          %12 = pgpu.reduce %11 axes [0] identity(%cst : f64) : (!pgpu.fragment<f64, [BLOCK]>) -> (f64) {
          ^bb0(%arg3: f64, %arg4: f64):
            %14 = pgpu.binary max %arg3, %arg4 : f64
            pgpu.yield %14 : f64
          }
          %13 = pgpu.binary max %arg2, %12 : f64
          pgpu.yield %13 : f64
        }
        pgpu.for %c0 to %1 step %2 {
        ^bb0(%arg1: index):
          %8 = pgpu.iota %arg1 : !pgpu.fragment<index, [BLOCK]>
          %9 = pgpu.splat %1 : index -> !pgpu.fragment<index, [BLOCK]>
          %10 = pgpu.cmp lt %8, %9 : !pgpu.fragment<index, [BLOCK]>
          %11 = pgpu.load %x[%arg0, %8] valid %10 : !pgpu.fragment<i1, [BLOCK]> fill %cst_0 : f64 : !pgpu.view<f64, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f64, [BLOCK]>
          %12 = pgpu.splat %7 : f64 -> !pgpu.fragment<f64, [BLOCK]>
          %13 = pgpu.binary sub %11, %12 : !pgpu.fragment<f64, [BLOCK]>
          pgpu.store %13, %y[%arg0, %8] valid %10 : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f64, [BLOCK]>, !pgpu.view<f64, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
