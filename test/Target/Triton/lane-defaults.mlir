// RUN: tessel-opt %s -split-input-file -pgpu-triton-legalize | FileCheck %s

// COM: sm_90 lane-block defaults (TritonLegalize chooseLaneDefaults): a loop whose iteration loads a
// COM: 64 x 128 key tile, a value tile and a 64 x 64 bias tile (f16) moves 40 KiB an iteration, 320
// COM: bytes a thread at the declared 64 rows and 4 warps: over the 256-byte bound, so the
// COM: contractions' free row block grows to 128 with 8 warps (one warpgroup per 64 rows, 192
// COM: bytes a thread), which keeps the loop's carried accumulator at 64 registers a thread.
// CHECK-LABEL: pgpu.kernel @biased_tiles
// CHECK-SAME: #pgpu.param<"BLOCK_S", [32, 64, 128, 256], 128>
// CHECK-SAME: #pgpu.param<"WARPS", [1, 2, 4, 8, 16], 8, provider = "triton">
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @biased_tiles(%qv: !pgpu.view<f16, [S, 128], in>, %kv: !pgpu.view<f16, [T, 128], in>,
                            %vv: !pgpu.view<f16, [T, 128], in>, %bv: !pgpu.view<f16, [S, T], in>,
                            %ov: !pgpu.view<f32, [S, 128], out>)
      attributes {params = [#pgpu.param<"BLOCK_S", [32, 64, 128, 256], 64>, #pgpu.param<"BLOCK_T", [64], 64>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1024 = arith.constant 1024 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK_S]>
      %d = pgpu.iota %c0 : !pgpu.fragment<index, [128]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [BLOCK_S]> -> !pgpu.fragment<index, [BLOCK_S, 128]>
      %dd = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [128]> -> !pgpu.fragment<index, [BLOCK_S, 128]>
      %q = pgpu.load %qv[%ii, %dd] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [S, 128], in>[!pgpu.fragment<index, [BLOCK_S, 128]>, !pgpu.fragment<index, [BLOCK_S, 128]>] -> !pgpu.fragment<f16, [BLOCK_S, 128]>
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK_S, 128]>
      %r = pgpu.for %c0 to %c1024 step %c64 iter_args(%a0 : !pgpu.fragment<f32, [BLOCK_S, 128]>) -> !pgpu.fragment<f32, [BLOCK_S, 128]> {
      ^bb0(%t: index, %acc: !pgpu.fragment<f32, [BLOCK_S, 128]>):
        %k = pgpu.iota %t : !pgpu.fragment<index, [BLOCK_T]>
        %kk = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [BLOCK_T]> -> !pgpu.fragment<index, [BLOCK_T, 128]>
        %kd = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [128]> -> !pgpu.fragment<index, [BLOCK_T, 128]>
        %kt = pgpu.load %kv[%kk, %kd] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [T, 128], in>[!pgpu.fragment<index, [BLOCK_T, 128]>, !pgpu.fragment<index, [BLOCK_T, 128]>] -> !pgpu.fragment<f16, [BLOCK_T, 128]>
        %v = pgpu.load %vv[%kk, %kd] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [T, 128], in>[!pgpu.fragment<index, [BLOCK_T, 128]>, !pgpu.fragment<index, [BLOCK_T, 128]>] -> !pgpu.fragment<f16, [BLOCK_T, 128]>
        %ktt = pgpu.transpose %kt [1, 0] : !pgpu.fragment<f16, [BLOCK_T, 128]> -> !pgpu.fragment<f16, [128, BLOCK_T]>
        %bi = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [BLOCK_S]> -> !pgpu.fragment<index, [BLOCK_S, BLOCK_T]>
        %bk = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [BLOCK_T]> -> !pgpu.fragment<index, [BLOCK_S, BLOCK_T]>
        %bh = pgpu.load %bv[%bi, %bk] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [S, T], in>[!pgpu.fragment<index, [BLOCK_S, BLOCK_T]>, !pgpu.fragment<index, [BLOCK_S, BLOCK_T]>] -> !pgpu.fragment<f16, [BLOCK_S, BLOCK_T]>
        %b = pgpu.cast %bh : !pgpu.fragment<f16, [BLOCK_S, BLOCK_T]> to !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
        %s = pgpu.contract %q, %ktt, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [BLOCK_S, 128]>, !pgpu.fragment<f16, [128, BLOCK_T]>, !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]> -> !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
        %sb = pgpu.binary add %s, %b : !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
        %e = pgpu.unary exp %sb : !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
        %eh = pgpu.cast %e : !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]> to !pgpu.fragment<f16, [BLOCK_S, BLOCK_T]>
        %an = pgpu.contract %eh, %v, %acc reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [BLOCK_S, BLOCK_T]>, !pgpu.fragment<f16, [BLOCK_T, 128]>, !pgpu.fragment<f32, [BLOCK_S, 128]> -> !pgpu.fragment<f32, [BLOCK_S, 128]>
        pgpu.yield %an : !pgpu.fragment<f32, [BLOCK_S, 128]>
      }
      pgpu.store %r, %ov[%ii, %dd] valid %true : i1 : !pgpu.fragment<f32, [BLOCK_S, 128]>, !pgpu.view<f32, [S, 128], out>[!pgpu.fragment<index, [BLOCK_S, 128]>, !pgpu.fragment<index, [BLOCK_S, 128]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not grow: without the bias tile an iteration loads 32 KiB, 256 bytes a thread at 64 rows
// COM: and 4 warps, within the bound; BLOCK_S and WARPS keep their declared defaults.
// CHECK-LABEL: pgpu.kernel @shared_tiles
// CHECK-SAME: #pgpu.param<"BLOCK_S", [32, 64, 128, 256], 64>
// CHECK-SAME: #pgpu.param<"WARPS", [1, 2, 4, 8, 16], 4, provider = "triton">
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @shared_tiles(%qv: !pgpu.view<f16, [S, 128], in>, %kv: !pgpu.view<f16, [T, 128], in>,
                            %vv: !pgpu.view<f16, [T, 128], in>, %ov: !pgpu.view<f32, [S, 128], out>)
      attributes {params = [#pgpu.param<"BLOCK_S", [32, 64, 128, 256], 64>, #pgpu.param<"BLOCK_T", [64], 64>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c1024 = arith.constant 1024 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK_S]>
      %d = pgpu.iota %c0 : !pgpu.fragment<index, [128]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [BLOCK_S]> -> !pgpu.fragment<index, [BLOCK_S, 128]>
      %dd = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [128]> -> !pgpu.fragment<index, [BLOCK_S, 128]>
      %q = pgpu.load %qv[%ii, %dd] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [S, 128], in>[!pgpu.fragment<index, [BLOCK_S, 128]>, !pgpu.fragment<index, [BLOCK_S, 128]>] -> !pgpu.fragment<f16, [BLOCK_S, 128]>
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK_S, 128]>
      %r = pgpu.for %c0 to %c1024 step %c64 iter_args(%a0 : !pgpu.fragment<f32, [BLOCK_S, 128]>) -> !pgpu.fragment<f32, [BLOCK_S, 128]> {
      ^bb0(%t: index, %acc: !pgpu.fragment<f32, [BLOCK_S, 128]>):
        %k = pgpu.iota %t : !pgpu.fragment<index, [BLOCK_T]>
        %kk = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [BLOCK_T]> -> !pgpu.fragment<index, [BLOCK_T, 128]>
        %kd = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [128]> -> !pgpu.fragment<index, [BLOCK_T, 128]>
        %kt = pgpu.load %kv[%kk, %kd] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [T, 128], in>[!pgpu.fragment<index, [BLOCK_T, 128]>, !pgpu.fragment<index, [BLOCK_T, 128]>] -> !pgpu.fragment<f16, [BLOCK_T, 128]>
        %v = pgpu.load %vv[%kk, %kd] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [T, 128], in>[!pgpu.fragment<index, [BLOCK_T, 128]>, !pgpu.fragment<index, [BLOCK_T, 128]>] -> !pgpu.fragment<f16, [BLOCK_T, 128]>
        %ktt = pgpu.transpose %kt [1, 0] : !pgpu.fragment<f16, [BLOCK_T, 128]> -> !pgpu.fragment<f16, [128, BLOCK_T]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
        %s = pgpu.contract %q, %ktt, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [BLOCK_S, 128]>, !pgpu.fragment<f16, [128, BLOCK_T]>, !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]> -> !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
        %e = pgpu.unary exp %s : !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]>
        %eh = pgpu.cast %e : !pgpu.fragment<f32, [BLOCK_S, BLOCK_T]> to !pgpu.fragment<f16, [BLOCK_S, BLOCK_T]>
        %an = pgpu.contract %eh, %v, %acc reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [BLOCK_S, BLOCK_T]>, !pgpu.fragment<f16, [BLOCK_T, 128]>, !pgpu.fragment<f32, [BLOCK_S, 128]> -> !pgpu.fragment<f32, [BLOCK_S, 128]>
        pgpu.yield %an : !pgpu.fragment<f32, [BLOCK_S, 128]>
      }
      pgpu.store %r, %ov[%ii, %dd] valid %true : i1 : !pgpu.fragment<f32, [BLOCK_S, 128]>, !pgpu.view<f32, [S, 128], out>[!pgpu.fragment<index, [BLOCK_S, 128]>, !pgpu.fragment<index, [BLOCK_S, 128]>]
      pgpu.yield
    }
    pgpu.return
  }
}
