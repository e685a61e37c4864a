// RUN: tessel-opt %s -split-input-file -pgpu-form-blocking | FileCheck %s

// COM: A row of constant length (a batched 64x64 matvec's row, A: [B, 64, 64]): the blocked range is
// COM: [0, 64), so BLOCK covers "64": a call's default binds 64, not 512 (448 masked lanes), and
// COM: ROWS then packs rows into [ROWS, 64] tiles.
// CHECK-LABEL: pgpu.kernel @matvec_rows
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "64">
// CHECK: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @matvec_rows(%a: !pgpu.view<f32, [B, 64, 64], in>, %x: !pgpu.view<f32, [B, 64], in>, %y: !pgpu.view<f32, [B, 64], out>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %B = pgpu.extent %a[0] : !pgpu.view<f32, [B, 64, 64], in>
    %all = pgpu.binary mul %B, %c64 : index
    pgpu.program_space (%all) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%B, %c64) segment 0 roles ["axis0", "axis1"] {
      ^bb0(%n: index, %r: index):
        %s = pgpu.range_reduce %c0 to %c64 identity(%z : f32) -> (f32) element {
        ^bb0(%k: index):
          %v = pgpu.load %a[%n, %r, %k] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, 64, 64], in>[index, index, index] -> f32
          %w = pgpu.load %x[%n, %k] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [B, 64], in>[index, index] -> f32
          %p = pgpu.binary mul %v, %w : f32
          pgpu.yield %p : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %y[%n, %r] valid %t : i1 : f32, !pgpu.view<f32, [B, 64], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A window of neighbours clipped to the row (x[max(i - 2, 0) : min(i + 2 + 1, N)], the start's clamp
// COM: nested twice as construction spells it): the end is i + 3 and the start i - 2, one value plus
// COM: constants, so no block needs more than 5 lanes: BLOCK covers "5".
// CHECK-LABEL: pgpu.kernel @window_rows
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "5">
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @window_rows(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    pgpu.program_space (%N) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%N) segment 0 roles ["axis0"] {
      ^bb0(%i: index):
        %lo0 = pgpu.binary sub %i, %c2 : index
        %lo1 = pgpu.binary max %lo0, %c0 : index
        %hi0 = pgpu.binary add %i, %c2 : index
        %hi1 = pgpu.binary add %hi0, %c1 : index
        %hi2 = pgpu.binary min %hi1, %N : index
        %lo = pgpu.binary max %lo1, %c0 : index
        %hi = pgpu.binary min %hi2, %N : index
        %len0 = pgpu.binary sub %hi, %lo : index
        %len = pgpu.binary max %len0, %c0 : index
        %s = pgpu.range_reduce %c0 to %len identity(%z : f32) -> (f32) element {
        ^bb0(%k: index):
          %j = pgpu.binary add %lo, %k : index
          %v = pgpu.load %x[%j] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.store %s, %y[%i] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire (covers): a constant range [0, 64) and a row [0, N) blocked in one kernel span
// COM: different extents, so no one size holds both: BLOCK covers nothing.
// CHECK-LABEL: pgpu.kernel @constant_and_row
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512>]
// CHECK-COUNT-2: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @constant_and_row(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, 2], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %t = arith.constant true
    %z = arith.constant 0.0 : f32
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%pid: index):
      pgpu.execution_group %pid extents(%M) segment 0 roles ["axis0"] {
      ^bb0(%m: index):
        %head = pgpu.range_reduce %c0 to %c64 identity(%z : f32) -> (f32) element {
        ^bb0(%k: index):
          %v = pgpu.load %x[%m, %k] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          pgpu.yield %v : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        %all = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
        ^bb0(%k: index):
          %v = pgpu.load %x[%m, %k] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
          %q = pgpu.binary mul %v, %v : f32
          pgpu.yield %q : f32
        } combine {
        ^bb0(%a1: f32, %a2: f32):
          %c = pgpu.binary add %a1, %a2 : f32
          pgpu.yield %c : f32
        }
        pgpu.store %head, %y[%m, %c0] valid %t : i1 : f32, !pgpu.view<f32, [M, 2], out>[index, index]
        pgpu.store %all, %y[%m, %c1] valid %t : i1 : f32, !pgpu.view<f32, [M, 2], out>[index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
