// RUN: tessel-opt %s -split-input-file -pgpu-online-normalize -verify-diagnostics | FileCheck %s

// COM: A row's maximum loop and the exp-sum loop that needs the final maximum become one loop (seed 002
// COM: §1, §3): a running maximum m', the sum rescaled by exp(m - m') (1 when equal), the tile
// COM: exponentiated against m' (0 while m' is -inf). The normalized store still reads the row.
// CHECK-LABEL: pgpu.kernel @fuse
// CHECK: pgpu.param "BLOCK"
// CHECK-NEXT: %[[NI:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]]:2 = pgpu.for %{{.*}} iter_args(%{{.*}}, %{{.*}} : f32, f32) -> f32, f32
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[M:.*]]: f32, %[[S:.*]]: f32):
// CHECK: %[[BM:.*]] = pgpu.reduce
// CHECK: %[[M2:.*]] = pgpu.binary max %[[M]], %[[BM]] : f32
// CHECK: %[[NONE:.*]] = pgpu.cmp eq %[[M2]], %[[NI]] : f32
// CHECK: %[[REF:.*]] = pgpu.select %[[NONE]], %[[Z]], %[[M2]] : i1, f32
// CHECK: %[[SAME:.*]] = pgpu.cmp eq %[[M]], %[[M2]] : f32
// CHECK: %[[DM:.*]] = pgpu.binary sub %[[M]], %[[M2]] : f32
// CHECK: %[[G:.*]] = pgpu.unary exp %[[DM]] : f32
// CHECK: %[[SC:.*]] = pgpu.select %[[SAME]], %[[ONE]], %[[G]] : i1, f32
// CHECK: %[[S2:.*]] = pgpu.binary mul %[[S]], %[[SC]] : f32
// CHECK: %[[REFS:.*]] = pgpu.splat %[[REF]]
// CHECK: %[[D:.*]] = pgpu.binary sub %{{.*}}, %[[REFS]]
// CHECK: pgpu.unary exp %[[D]]
// CHECK: %[[T:.*]] = pgpu.reduce
// CHECK: %[[SN:.*]] = pgpu.binary add %[[S2]], %[[T]] : f32
// CHECK: pgpu.yield %[[M2]], %[[SN]] : f32, f32
// CHECK-NOT: iter_args
// CHECK: pgpu.splat %[[R]]#0
// CHECK: pgpu.splat %[[R]]#1
// CHECK: pgpu.store
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @fuse(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %mm = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %n = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%mm) {
    ^bb0(%row: index):
        %blk = pgpu.param "BLOCK" : index
        // expected-remark @+1 {{pgpu-online-normalize: the exp-sum loop joins the maximum loop}}
        %m = pgpu.for %c0 to %n step %blk iter_args(%cst : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %l = pgpu.iota %i : !pgpu.fragment<index, [BLOCK]>
          %nb = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %l, %nb : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %l] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %cst_0 : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %ninf = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %vm = pgpu.select %ok, %v, %ninf : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %t = pgpu.reduce %vm axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %b: f32):
            %r = pgpu.binary max %a, %b : f32
            pgpu.yield %r : f32
          }
          %nm = pgpu.binary max %acc, %t : f32
          pgpu.yield %nm : f32
        }
        %s = pgpu.for %c0 to %n step %blk iter_args(%cst_0 : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %l = pgpu.iota %i : !pgpu.fragment<index, [BLOCK]>
          %nb = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %l, %nb : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %l] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %cst_0 : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %ms = pgpu.splat %m : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %d = pgpu.binary sub %v, %ms : !pgpu.fragment<f32, [BLOCK]>
          %e = pgpu.unary exp %d : !pgpu.fragment<f32, [BLOCK]>
          %z = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %w = pgpu.select %ok, %e, %z : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %t = pgpu.reduce %w axes [0] identity(%cst_0 : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %b: f32):
            %r = pgpu.binary add %a, %b : f32
            pgpu.yield %r : f32
          }
          %ns = pgpu.binary add %acc, %t : f32
          pgpu.yield %ns : f32
        }
        pgpu.for %c0 to %n step %blk {
        ^bb0(%i: index):
          %l = pgpu.iota %i : !pgpu.fragment<index, [BLOCK]>
          %nb = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %l, %nb : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %l] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %cst_0 : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %ms = pgpu.splat %m : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %d = pgpu.binary sub %v, %ms : !pgpu.fragment<f32, [BLOCK]>
          %e = pgpu.unary exp %d : !pgpu.fragment<f32, [BLOCK]>
          %ss = pgpu.splat %s : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %q = pgpu.binary div %e, %ss : !pgpu.fragment<f32, [BLOCK]>
          pgpu.store %q, %y[%row, %l] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
          pgpu.yield
        }
        pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: numerics = source (the rounding of the rescaled sum is not permitted).
// CHECK-LABEL: pgpu.kernel @source
// CHECK-COUNT-2: iter_args
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @source(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %mm = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %n = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%mm) {
    ^bb0(%row: index):
        %blk = pgpu.param "BLOCK" : index
        %m = pgpu.for %c0 to %n step %blk iter_args(%cst : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %l = pgpu.iota %i : !pgpu.fragment<index, [BLOCK]>
          %nb = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %l, %nb : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %l] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %cst_0 : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %ninf = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %vm = pgpu.select %ok, %v, %ninf : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %t = pgpu.reduce %vm axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %b: f32):
            %r = pgpu.binary max %a, %b : f32
            pgpu.yield %r : f32
          }
          %nm = pgpu.binary max %acc, %t : f32
          pgpu.yield %nm : f32
        }
        // expected-remark @+1 {{pgpu-online-normalize: not joined to the maximum loop: needs numerics = relaxed_normalization}}
        %s = pgpu.for %c0 to %n step %blk iter_args(%cst_0 : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %l = pgpu.iota %i : !pgpu.fragment<index, [BLOCK]>
          %nb = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %l, %nb : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %l] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %cst_0 : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %ms = pgpu.splat %m : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %d = pgpu.binary sub %v, %ms : !pgpu.fragment<f32, [BLOCK]>
          %e = pgpu.unary exp %d : !pgpu.fragment<f32, [BLOCK]>
          %z = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %w = pgpu.select %ok, %e, %z : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %t = pgpu.reduce %w axes [0] identity(%cst_0 : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %b: f32):
            %r = pgpu.binary add %a, %b : f32
            pgpu.yield %r : f32
          }
          %ns = pgpu.binary add %acc, %t : f32
          pgpu.yield %ns : f32
        }
        pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the sum uses the maximum other than through exp(x - max).
// CHECK-LABEL: pgpu.kernel @notexp
// CHECK-COUNT-2: iter_args
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @notexp(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %mm = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %n = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%mm) {
    ^bb0(%row: index):
        %blk = pgpu.param "BLOCK" : index
        %m = pgpu.for %c0 to %n step %blk iter_args(%cst : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %l = pgpu.iota %i : !pgpu.fragment<index, [BLOCK]>
          %nb = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %l, %nb : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %l] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %cst_0 : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %ninf = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %vm = pgpu.select %ok, %v, %ninf : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %t = pgpu.reduce %vm axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %b: f32):
            %r = pgpu.binary max %a, %b : f32
            pgpu.yield %r : f32
          }
          %nm = pgpu.binary max %acc, %t : f32
          pgpu.yield %nm : f32
        }
        // expected-remark @+1 {{pgpu-online-normalize: not joined to the maximum loop: the maximum is used other than through exp(x - max)}}
        %s = pgpu.for %c0 to %n step %blk iter_args(%cst_0 : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %l = pgpu.iota %i : !pgpu.fragment<index, [BLOCK]>
          %nb = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %l, %nb : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %l] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %cst_0 : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %ms = pgpu.splat %m : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %d = pgpu.binary sub %v, %ms : !pgpu.fragment<f32, [BLOCK]>
          %e = pgpu.binary mul %d, %d : !pgpu.fragment<f32, [BLOCK]>
          %z = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %w = pgpu.select %ok, %e, %z : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %t = pgpu.reduce %w axes [0] identity(%cst_0 : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %b: f32):
            %r = pgpu.binary add %a, %b : f32
            pgpu.yield %r : f32
          }
          %ns = pgpu.binary add %acc, %t : f32
          pgpu.yield %ns : f32
        }
        pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a sum starting from a nonzero value cannot be rescaled.
// CHECK-LABEL: pgpu.kernel @nonzero
// CHECK-COUNT-2: iter_args
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @nonzero(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %mm = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %n = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space(%mm) {
    ^bb0(%row: index):
        %blk = pgpu.param "BLOCK" : index
        %m = pgpu.for %c0 to %n step %blk iter_args(%cst : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %l = pgpu.iota %i : !pgpu.fragment<index, [BLOCK]>
          %nb = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %l, %nb : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %l] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %cst_0 : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %ninf = pgpu.splat %cst : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %vm = pgpu.select %ok, %v, %ninf : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %t = pgpu.reduce %vm axes [0] identity(%cst : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %b: f32):
            %r = pgpu.binary max %a, %b : f32
            pgpu.yield %r : f32
          }
          %nm = pgpu.binary max %acc, %t : f32
          pgpu.yield %nm : f32
        }
        // expected-remark @+1 {{pgpu-online-normalize: not joined to the maximum loop: a sum does not start from zero}}
        %s = pgpu.for %c0 to %n step %blk iter_args(%cst : f32) -> f32 {
        ^bb0(%i: index, %acc: f32):
          %l = pgpu.iota %i : !pgpu.fragment<index, [BLOCK]>
          %nb = pgpu.splat %n : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %l, %nb : !pgpu.fragment<index, [BLOCK]>
          %v = pgpu.load %x[%row, %l] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %cst_0 : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %ms = pgpu.splat %m : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %d = pgpu.binary sub %v, %ms : !pgpu.fragment<f32, [BLOCK]>
          %e = pgpu.unary exp %d : !pgpu.fragment<f32, [BLOCK]>
          %z = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [BLOCK]>
          %w = pgpu.select %ok, %e, %z : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
          %t = pgpu.reduce %w axes [0] identity(%cst_0 : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
          ^bb0(%a: f32, %b: f32):
            %r = pgpu.binary add %a, %b : f32
            pgpu.yield %r : f32
          }
          %ns = pgpu.binary add %acc, %t : f32
          pgpu.yield %ns : f32
        }
        pgpu.yield
    }
    pgpu.return
  }
}
