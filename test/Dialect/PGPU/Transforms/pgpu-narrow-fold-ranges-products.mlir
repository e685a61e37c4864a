// RUN: tessel-opt %s -split-input-file -pgpu-narrow-fold-ranges -verify-diagnostics | FileCheck %s

// pgpu-narrow-fold-ranges on a tiled product's key loop (pgpu-form-tiles: the carry is a contraction's
// accumulator), FlashAttention-2 backward's dq += ds k with ds = where(k <= i, p, 0) * (dp - delta).

// COM: Fires: the loop is read as a fold of contractions from a zero splat, combined by +; the key blocks
// COM: past the tile's last row are skipped (where(false, p, 0) * x is 0, a zero operand leaves the
// COM: accumulator), those wholly at or below its first row run without the mask. Before, the loop
// COM: walked every key block with both masks.
// CHECK-LABEL: pgpu.kernel @product_causal
// CHECK-NOT: pgpu.for
// CHECK: %[[A:.*]] = pgpu.region_fold
// CHECK-NOT: pgpu.cmp le
// CHECK: pgpu.contract
// CHECK: } combine {
// CHECK: pgpu.binary add
// CHECK: %[[B:.*]] = pgpu.region_fold {{.*}} identity(%[[A]] :
// CHECK: pgpu.cmp le
// CHECK: pgpu.contract
// CHECK: } combine {
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.reduce %[[B]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @product_causal(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>)
      attributes {params = [#pgpu.param<"BM", [16], 16>, #pgpu.param<"BT", [16, 32], 16>, #pgpu.param<"BD", [16], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bt = pgpu.param "BT" : index
    pgpu.program_space(%S) {
    ^bb0(%i0: index):
      %rows = pgpu.iota %i0 : !pgpu.fragment<index, [BM]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BD]>
      %p = pgpu.splat %one : f32 -> !pgpu.fragment<f32, [BM, BT]>
      %d = pgpu.splat %i0 : index -> !pgpu.fragment<index, [BM, BT]>
      %df = pgpu.cast %d : !pgpu.fragment<index, [BM, BT]> to !pgpu.fragment<f32, [BM, BT]>
      %r = pgpu.splat %one : f32 -> !pgpu.fragment<f32, [BT, BD]>
      // expected-remark @+1 {{pgpu-narrow-fold-ranges: a blocked reduction loop, read as its region fold: 1 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 1 all-false interval(s) skipped (identity proven)}}
      %sum = pgpu.for %c0 to %T step %bt iter_args(%acc0 : !pgpu.fragment<f32, [BM, BD]>) -> !pgpu.fragment<f32, [BM, BD]> {
      ^bb0(%b: index, %acc: !pgpu.fragment<f32, [BM, BD]>):
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %Tb = pgpu.splat %T : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %Tb : !pgpu.fragment<index, [BT]>
        %ok2 = pgpu.broadcast %ok dims [1] : !pgpu.fragment<i1, [BT]> -> !pgpu.fragment<i1, [BM, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BM, BT]>
        %i2 = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BT]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BT]>
        %vis = pgpu.cmp le %t2, %i2 : !pgpu.fragment<index, [BM, BT]>
        %pm = pgpu.select %vis, %p, %z : !pgpu.fragment<i1, [BM, BT]>, !pgpu.fragment<f32, [BM, BT]>
        %ds = pgpu.binary mul %pm, %df : !pgpu.fragment<f32, [BM, BT]>
        %m2 = pgpu.select %ok2, %ds, %z : !pgpu.fragment<i1, [BM, BT]>, !pgpu.fragment<f32, [BM, BT]>
        %next = pgpu.contract %m2, %r, %acc reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [BM, BT]>, !pgpu.fragment<f32, [BT, BD]>, !pgpu.fragment<f32, [BM, BD]> -> !pgpu.fragment<f32, [BM, BD]>
        pgpu.yield %next : !pgpu.fragment<f32, [BM, BD]>
      }
      %red = pgpu.reduce %sum axes [0, 1] identity(%zero : f32) : (!pgpu.fragment<f32, [BM, BD]>) -> (f32) {
      ^bb0(%l: f32, %q: f32):
        %a = pgpu.binary add %l, %q : f32
        pgpu.yield %a : f32
      }
      %tr = arith.constant true
      pgpu.store %red, %y[%i0] valid %tr : i1 : f32, !pgpu.view<f32, [S], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: no coordinate predicate (a non-causal chain, only the tail mask); the loop stays.
// CHECK-LABEL: pgpu.kernel @product_plain
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.for
// CHECK: pgpu.contract
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @product_plain(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>)
      attributes {params = [#pgpu.param<"BM", [16], 16>, #pgpu.param<"BT", [16, 32], 16>, #pgpu.param<"BD", [16], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bt = pgpu.param "BT" : index
    pgpu.program_space(%S) {
    ^bb0(%i0: index):
      %rows = pgpu.iota %i0 : !pgpu.fragment<index, [BM]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BD]>
      %p = pgpu.splat %one : f32 -> !pgpu.fragment<f32, [BM, BT]>
      %d = pgpu.splat %i0 : index -> !pgpu.fragment<index, [BM, BT]>
      %df = pgpu.cast %d : !pgpu.fragment<index, [BM, BT]> to !pgpu.fragment<f32, [BM, BT]>
      %r = pgpu.splat %one : f32 -> !pgpu.fragment<f32, [BT, BD]>
      %sum = pgpu.for %c0 to %T step %bt iter_args(%acc0 : !pgpu.fragment<f32, [BM, BD]>) -> !pgpu.fragment<f32, [BM, BD]> {
      ^bb0(%b: index, %acc: !pgpu.fragment<f32, [BM, BD]>):
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %Tb = pgpu.splat %T : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %Tb : !pgpu.fragment<index, [BT]>
        %ok2 = pgpu.broadcast %ok dims [1] : !pgpu.fragment<i1, [BT]> -> !pgpu.fragment<i1, [BM, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BM, BT]>
        %i2 = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BT]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BT]>
        %ds = pgpu.binary mul %p, %df : !pgpu.fragment<f32, [BM, BT]>
        %m2 = pgpu.select %ok2, %ds, %z : !pgpu.fragment<i1, [BM, BT]>, !pgpu.fragment<f32, [BM, BT]>
        %next = pgpu.contract %m2, %r, %acc reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [BM, BT]>, !pgpu.fragment<f32, [BT, BD]>, !pgpu.fragment<f32, [BM, BD]> -> !pgpu.fragment<f32, [BM, BD]>
        pgpu.yield %next : !pgpu.fragment<f32, [BM, BD]>
      }
      %red = pgpu.reduce %sum axes [0, 1] identity(%zero : f32) : (!pgpu.fragment<f32, [BM, BD]>) -> (f32) {
      ^bb0(%l: f32, %q: f32):
        %a = pgpu.binary add %l, %q : f32
        pgpu.yield %a : f32
      }
      %tr = arith.constant true
      pgpu.store %red, %y[%i0] valid %tr : i1 : f32, !pgpu.view<f32, [S], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the mask is converted to 0/1 and multiplied (p * f32(k <= i)): 0 * x is not 0 for an
// COM: infinite x, so no key block is proven empty; a product's loop that would only shed its masks
// COM: stays whole (the provider pipelines it), with its mask.
// CHECK-LABEL: pgpu.kernel @product_float_mask
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.for
// CHECK: pgpu.cmp le
// CHECK: pgpu.contract
// CHECK-NOT: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @product_float_mask(%x: !pgpu.view<f32, [T], in>, %y: !pgpu.view<f32, [S], out>)
      attributes {params = [#pgpu.param<"BM", [16], 16>, #pgpu.param<"BT", [16, 32], 16>, #pgpu.param<"BD", [16], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bt = pgpu.param "BT" : index
    pgpu.program_space(%S) {
    ^bb0(%i0: index):
      %rows = pgpu.iota %i0 : !pgpu.fragment<index, [BM]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BD]>
      %p = pgpu.splat %one : f32 -> !pgpu.fragment<f32, [BM, BT]>
      %d = pgpu.splat %i0 : index -> !pgpu.fragment<index, [BM, BT]>
      %df = pgpu.cast %d : !pgpu.fragment<index, [BM, BT]> to !pgpu.fragment<f32, [BM, BT]>
      %r = pgpu.splat %one : f32 -> !pgpu.fragment<f32, [BT, BD]>
      %sum = pgpu.for %c0 to %T step %bt iter_args(%acc0 : !pgpu.fragment<f32, [BM, BD]>) -> !pgpu.fragment<f32, [BM, BD]> {
      ^bb0(%b: index, %acc: !pgpu.fragment<f32, [BM, BD]>):
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %Tb = pgpu.splat %T : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %Tb : !pgpu.fragment<index, [BT]>
        %ok2 = pgpu.broadcast %ok dims [1] : !pgpu.fragment<i1, [BT]> -> !pgpu.fragment<i1, [BM, BT]>
        %t2 = pgpu.broadcast %t dims [1] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BM, BT]>
        %i2 = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BT]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BT]>
        %vis = pgpu.cmp le %t2, %i2 : !pgpu.fragment<index, [BM, BT]>
        %vf = pgpu.cast %vis : !pgpu.fragment<i1, [BM, BT]> to !pgpu.fragment<f32, [BM, BT]>
        %pm = pgpu.binary mul %p, %vf : !pgpu.fragment<f32, [BM, BT]>
        %ds = pgpu.binary mul %pm, %df : !pgpu.fragment<f32, [BM, BT]>
        %m2 = pgpu.select %ok2, %ds, %z : !pgpu.fragment<i1, [BM, BT]>, !pgpu.fragment<f32, [BM, BT]>
        %next = pgpu.contract %m2, %r, %acc reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [BM, BT]>, !pgpu.fragment<f32, [BT, BD]>, !pgpu.fragment<f32, [BM, BD]> -> !pgpu.fragment<f32, [BM, BD]>
        pgpu.yield %next : !pgpu.fragment<f32, [BM, BD]>
      }
      %red = pgpu.reduce %sum axes [0, 1] identity(%zero : f32) : (!pgpu.fragment<f32, [BM, BD]>) -> (f32) {
      ^bb0(%l: f32, %q: f32):
        %a = pgpu.binary add %l, %q : f32
        pgpu.yield %a : f32
      }
      %tr = arith.constant true
      pgpu.store %red, %y[%i0] valid %tr : i1 : f32, !pgpu.view<f32, [S], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
