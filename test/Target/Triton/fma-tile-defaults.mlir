// RUN: tessel-opt %s -split-input-file -pgpu-triton-legalize | FileCheck %s

// COM: The tile default of a fold or scan whose contractions are spelled with FMAs (TritonLegalize
// COM: chooseFmaTileDefaults): f32 operands at IEEE precision are tl.dot's FMA path, which holds in
// COM: each thread the operand rows and columns its accumulator elements need. The loop's step,
// COM: BLOCK_T (a free tile: it covers no shape symbol), sizes both contractions' operands, so it
// COM: defaults to its smallest candidate tl.dot takes (16: 8 is below tl.dot's smallest extent), and
// COM: WARPS follows the model: 8 at the declared 128 accumulator rows, 4 at 16.
// CHECK-LABEL: pgpu.kernel @fma_scan
// CHECK-SAME: #pgpu.param<"BLOCK_T", [8, 16, 32, 64, 128], 16>
// CHECK-SAME: #pgpu.param<"WARPS", [1, 2, 4, 8, 16], 4, provider = "triton">
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @fma_scan(%xv: !pgpu.view<f32, [T, 64], in>, %wv: !pgpu.view<f32, [64, 64], in>,
                   %sv: !pgpu.view<f32, [64, 64], out>)
      attributes {params = [#pgpu.param<"BLOCK_T", [8, 16, 32, 64, 128], 128>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %fill = arith.constant 0.0 : f32
    %zero = arith.constant 0.0 : f32
    %n = pgpu.extent %xv[0] : !pgpu.view<f32, [T, 64], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %d = pgpu.iota %c0 : !pgpu.fragment<index, [64]>
      %di = pgpu.broadcast %d dims [0] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [64, 64]>
      %dj = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [64, 64]>
      %w = pgpu.load %wv[%di, %dj] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [64, 64], in>[!pgpu.fragment<index, [64, 64]>, !pgpu.fragment<index, [64, 64]>] -> !pgpu.fragment<f32, [64, 64]>
      %bt = pgpu.param "BLOCK_T" : index
      %s0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [64, 64]>
      %r = pgpu.for %c0 to %n step %bt iter_args(%s0 : !pgpu.fragment<f32, [64, 64]>) -> !pgpu.fragment<f32, [64, 64]> {
      ^bb0(%t: index, %s: !pgpu.fragment<f32, [64, 64]>):
        %k = pgpu.iota %t : !pgpu.fragment<index, [BLOCK_T]>
        %kk = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [BLOCK_T]> -> !pgpu.fragment<index, [BLOCK_T, 64]>
        %kd = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [BLOCK_T, 64]>
        %x = pgpu.load %xv[%kk, %kd] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [T, 64], in>[!pgpu.fragment<index, [BLOCK_T, 64]>, !pgpu.fragment<index, [BLOCK_T, 64]>] -> !pgpu.fragment<f32, [BLOCK_T, 64]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK_T, 64]>
        %y = pgpu.contract %x, %w, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [BLOCK_T, 64]>, !pgpu.fragment<f32, [64, 64]>, !pgpu.fragment<f32, [BLOCK_T, 64]> -> !pgpu.fragment<f32, [BLOCK_T, 64]>
        %xt = pgpu.transpose %x [1, 0] : !pgpu.fragment<f32, [BLOCK_T, 64]> -> !pgpu.fragment<f32, [64, BLOCK_T]>
        %s1 = pgpu.contract %xt, %y, %s reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [64, BLOCK_T]>, !pgpu.fragment<f32, [BLOCK_T, 64]>, !pgpu.fragment<f32, [64, 64]> -> !pgpu.fragment<f32, [64, 64]>
        pgpu.yield %s1 : !pgpu.fragment<f32, [64, 64]>
      }
      pgpu.store %r, %sv[%di, %dj] valid %true : i1 : !pgpu.fragment<f32, [64, 64]>, !pgpu.view<f32, [64, 64], out>[!pgpu.fragment<index, [64, 64]>, !pgpu.fragment<index, [64, 64]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: f16 operands are a tensor-core dot (operands read from shared memory); BLOCK_T
// COM: keeps its declared 128, WARPS its 8.
// CHECK-LABEL: pgpu.kernel @tensor_core_scan
// CHECK-SAME: #pgpu.param<"BLOCK_T", [8, 16, 32, 64, 128], 128>
// CHECK-SAME: #pgpu.param<"WARPS", [1, 2, 4, 8, 16], 8, provider = "triton">
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @tensor_core_scan(%xv: !pgpu.view<f16, [T, 64], in>, %wv: !pgpu.view<f16, [64, 64], in>,
                   %sv: !pgpu.view<f32, [64, 64], out>)
      attributes {params = [#pgpu.param<"BLOCK_T", [8, 16, 32, 64, 128], 128>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %fill = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %n = pgpu.extent %xv[0] : !pgpu.view<f16, [T, 64], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %d = pgpu.iota %c0 : !pgpu.fragment<index, [64]>
      %di = pgpu.broadcast %d dims [0] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [64, 64]>
      %dj = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [64, 64]>
      %w = pgpu.load %wv[%di, %dj] valid %true : i1 fill %fill : f16 : !pgpu.view<f16, [64, 64], in>[!pgpu.fragment<index, [64, 64]>, !pgpu.fragment<index, [64, 64]>] -> !pgpu.fragment<f16, [64, 64]>
      %bt = pgpu.param "BLOCK_T" : index
      %s0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [64, 64]>
      %r = pgpu.for %c0 to %n step %bt iter_args(%s0 : !pgpu.fragment<f32, [64, 64]>) -> !pgpu.fragment<f32, [64, 64]> {
      ^bb0(%t: index, %s: !pgpu.fragment<f32, [64, 64]>):
        %k = pgpu.iota %t : !pgpu.fragment<index, [BLOCK_T]>
        %kk = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [BLOCK_T]> -> !pgpu.fragment<index, [BLOCK_T, 64]>
        %kd = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [BLOCK_T, 64]>
        %x = pgpu.load %xv[%kk, %kd] valid %true : i1 fill %fill : f16 : !pgpu.view<f16, [T, 64], in>[!pgpu.fragment<index, [BLOCK_T, 64]>, !pgpu.fragment<index, [BLOCK_T, 64]>] -> !pgpu.fragment<f16, [BLOCK_T, 64]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK_T, 64]>
        %y = pgpu.contract %x, %w, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [BLOCK_T, 64]>, !pgpu.fragment<f16, [64, 64]>, !pgpu.fragment<f32, [BLOCK_T, 64]> -> !pgpu.fragment<f32, [BLOCK_T, 64]>
        %yc = pgpu.cast %y : !pgpu.fragment<f32, [BLOCK_T, 64]> to !pgpu.fragment<f16, [BLOCK_T, 64]>
        %xt = pgpu.transpose %x [1, 0] : !pgpu.fragment<f16, [BLOCK_T, 64]> -> !pgpu.fragment<f16, [64, BLOCK_T]>
        %s1 = pgpu.contract %xt, %yc, %s reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [64, BLOCK_T]>, !pgpu.fragment<f16, [BLOCK_T, 64]>, !pgpu.fragment<f32, [64, 64]> -> !pgpu.fragment<f32, [64, 64]>
        pgpu.yield %s1 : !pgpu.fragment<f32, [64, 64]>
      }
      pgpu.store %r, %sv[%di, %dj] valid %true : i1 : !pgpu.fragment<f32, [64, 64]>, !pgpu.view<f32, [64, 64], out>[!pgpu.fragment<index, [64, 64]>, !pgpu.fragment<index, [64, 64]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: f32 operands rounded to TF32 (an explicit precision) are a tensor-core dot too.
// CHECK-LABEL: pgpu.kernel @tf32_scan
// CHECK-SAME: #pgpu.param<"BLOCK_T", [8, 16, 32, 64, 128], 128>
// CHECK-SAME: #pgpu.param<"WARPS", [1, 2, 4, 8, 16], 8, provider = "triton">
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @tf32_scan(%xv: !pgpu.view<f32, [T, 64], in>, %wv: !pgpu.view<f32, [64, 64], in>,
                   %sv: !pgpu.view<f32, [64, 64], out>)
      attributes {params = [#pgpu.param<"BLOCK_T", [8, 16, 32, 64, 128], 128>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %fill = arith.constant 0.0 : f32
    %zero = arith.constant 0.0 : f32
    %n = pgpu.extent %xv[0] : !pgpu.view<f32, [T, 64], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %d = pgpu.iota %c0 : !pgpu.fragment<index, [64]>
      %di = pgpu.broadcast %d dims [0] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [64, 64]>
      %dj = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [64, 64]>
      %w = pgpu.load %wv[%di, %dj] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [64, 64], in>[!pgpu.fragment<index, [64, 64]>, !pgpu.fragment<index, [64, 64]>] -> !pgpu.fragment<f32, [64, 64]>
      %bt = pgpu.param "BLOCK_T" : index
      %s0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [64, 64]>
      %r = pgpu.for %c0 to %n step %bt iter_args(%s0 : !pgpu.fragment<f32, [64, 64]>) -> !pgpu.fragment<f32, [64, 64]> {
      ^bb0(%t: index, %s: !pgpu.fragment<f32, [64, 64]>):
        %k = pgpu.iota %t : !pgpu.fragment<index, [BLOCK_T]>
        %kk = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [BLOCK_T]> -> !pgpu.fragment<index, [BLOCK_T, 64]>
        %kd = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [BLOCK_T, 64]>
        %x = pgpu.load %xv[%kk, %kd] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [T, 64], in>[!pgpu.fragment<index, [BLOCK_T, 64]>, !pgpu.fragment<index, [BLOCK_T, 64]>] -> !pgpu.fragment<f32, [BLOCK_T, 64]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK_T, 64]>
        %y = pgpu.contract %x, %w, %z reduce([1], [0]) batch([], []) precision tf32 : !pgpu.fragment<f32, [BLOCK_T, 64]>, !pgpu.fragment<f32, [64, 64]>, !pgpu.fragment<f32, [BLOCK_T, 64]> -> !pgpu.fragment<f32, [BLOCK_T, 64]>
        %xt = pgpu.transpose %x [1, 0] : !pgpu.fragment<f32, [BLOCK_T, 64]> -> !pgpu.fragment<f32, [64, BLOCK_T]>
        %s1 = pgpu.contract %xt, %y, %s reduce([1], [0]) batch([], []) precision tf32 : !pgpu.fragment<f32, [64, BLOCK_T]>, !pgpu.fragment<f32, [BLOCK_T, 64]>, !pgpu.fragment<f32, [64, 64]> -> !pgpu.fragment<f32, [64, 64]>
        pgpu.yield %s1 : !pgpu.fragment<f32, [64, 64]>
      }
      pgpu.store %r, %sv[%di, %dj] valid %true : i1 : !pgpu.fragment<f32, [64, 64]>, !pgpu.view<f32, [64, 64], out>[!pgpu.fragment<index, [64, 64]>, !pgpu.fragment<index, [64, 64]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a step that covers a shape symbol is not free to shrink (a call binds it to the
// COM: symbol's size).
// CHECK-LABEL: pgpu.kernel @covering_scan
// CHECK-SAME: #pgpu.param<"BLOCK_T", [8, 16, 32, 64, 128], 128, covers = "T">
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @covering_scan(%xv: !pgpu.view<f32, [T, 64], in>, %wv: !pgpu.view<f32, [64, 64], in>,
                   %sv: !pgpu.view<f32, [64, 64], out>)
      attributes {params = [#pgpu.param<"BLOCK_T", [8, 16, 32, 64, 128], 128, covers = "T">]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %fill = arith.constant 0.0 : f32
    %zero = arith.constant 0.0 : f32
    %n = pgpu.extent %xv[0] : !pgpu.view<f32, [T, 64], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %d = pgpu.iota %c0 : !pgpu.fragment<index, [64]>
      %di = pgpu.broadcast %d dims [0] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [64, 64]>
      %dj = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [64, 64]>
      %w = pgpu.load %wv[%di, %dj] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [64, 64], in>[!pgpu.fragment<index, [64, 64]>, !pgpu.fragment<index, [64, 64]>] -> !pgpu.fragment<f32, [64, 64]>
      %bt = pgpu.param "BLOCK_T" : index
      %s0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [64, 64]>
      %r = pgpu.for %c0 to %n step %bt iter_args(%s0 : !pgpu.fragment<f32, [64, 64]>) -> !pgpu.fragment<f32, [64, 64]> {
      ^bb0(%t: index, %s: !pgpu.fragment<f32, [64, 64]>):
        %k = pgpu.iota %t : !pgpu.fragment<index, [BLOCK_T]>
        %kk = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [BLOCK_T]> -> !pgpu.fragment<index, [BLOCK_T, 64]>
        %kd = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [BLOCK_T, 64]>
        %x = pgpu.load %xv[%kk, %kd] valid %true : i1 fill %fill : f32 : !pgpu.view<f32, [T, 64], in>[!pgpu.fragment<index, [BLOCK_T, 64]>, !pgpu.fragment<index, [BLOCK_T, 64]>] -> !pgpu.fragment<f32, [BLOCK_T, 64]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK_T, 64]>
        %y = pgpu.contract %x, %w, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [BLOCK_T, 64]>, !pgpu.fragment<f32, [64, 64]>, !pgpu.fragment<f32, [BLOCK_T, 64]> -> !pgpu.fragment<f32, [BLOCK_T, 64]>
        %xt = pgpu.transpose %x [1, 0] : !pgpu.fragment<f32, [BLOCK_T, 64]> -> !pgpu.fragment<f32, [64, BLOCK_T]>
        %s1 = pgpu.contract %xt, %y, %s reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [64, BLOCK_T]>, !pgpu.fragment<f32, [BLOCK_T, 64]>, !pgpu.fragment<f32, [64, 64]> -> !pgpu.fragment<f32, [64, 64]>
        pgpu.yield %s1 : !pgpu.fragment<f32, [64, 64]>
      }
      pgpu.store %r, %sv[%di, %dj] valid %true : i1 : !pgpu.fragment<f32, [64, 64]>, !pgpu.view<f32, [64, 64], out>[!pgpu.fragment<index, [64, 64]>, !pgpu.fragment<index, [64, 64]>]
      pgpu.yield
    }
    pgpu.return
  }
}
