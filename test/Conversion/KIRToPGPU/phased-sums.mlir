// RUN: tessel-opt %s -split-input-file --kir-to-pgpu --verify-diagnostics | FileCheck %s
// COM: An in-place update after whole-view sums (PhasedSums.cpp; seed 000 §2, §4.4; seed 002 §4): each
// COM: sum becomes a segment whose instances add the sums of 32768-element chunks into a zeroed, kept
// COM: workspace scalar with one atomic add; the worksets using the sum, then the update, wait until the
// COM: launch's ticket counts every instance before their segment and read the sum from workspace; the
// COM: last arrival returns the workspace to zero. A max, or a sum of a rank-2 view, keeps the update
// COM: whole in the last program, with a remark saying why.

// Before (in-place-stores.mlir's last-program form) and after: the norm's chunks, the norm's store
// after a wait, the update after a wait, the reset.
// CHECK-LABEL: pgpu.kernel @clip
// CHECK-SAME: %[[W:[a-z0-9]+]]: !pgpu.buffer<f32, [1], workspace> {pgpu.init = 0.000000e+00 : f32, pgpu.kept
// CHECK-SAME: %[[T:[a-z0-9]+]]: !pgpu.buffer<i32, [1], workspace>
// CHECK: pgpu.execution_group {{.*}} segment 0
// CHECK: %[[LO:.*]] = pgpu.binary mul %{{.*}}, %c32768
// CHECK: pgpu.range_reduce %[[LO]] to
// CHECK: pgpu.scatter_reduce %{{.*}}, %[[W]][
// CHECK: pgpu.while
// CHECK: pgpu.atomic_load %[[T]]{{.*}}order acquire
// CHECK: pgpu.execution_group {{.*}} segment 1
// CHECK: pgpu.buffer_load %[[W]]
// CHECK: pgpu.store {{.*}}, %total
// CHECK: pgpu.while
// CHECK: pgpu.execution_group {{.*}} segment 2
// CHECK: pgpu.buffer_load %[[W]]
// CHECK: pgpu.load %grad
// CHECK: pgpu.store {{.*}}, %grad
// CHECK: pgpu.last_program %[[T]]
// CHECK-NOT: pgpu.store
// CHECK: pgpu.buffer_store %{{.*}}, %[[W]]
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @clip(%grad: !kir.view<f32, [N], inout>, %total: !kir.view<f32, [1], out>) {
    %0 = kir.extent "N"
    %1 = arith.constant 0 : index
    %2 = kir.domain %1 to %0
    %5 = arith.constant 0.0 : f32
    %11 = arith.constant 9.999999974752427e-07 : f32
    %13 = arith.constant 3.0 : f32
    %15 = arith.constant 1.0 : f32
    %3 = kir.load %grad[%2] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %4 = kir.binary mul %3, %3 : tensor<?xf32>
    // expected-remark @+1 {{this whole-view sum is phased: its own segment}}
    %9 = kir.reduce %4 axes [0] identity(%5 : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%6: f32, %7: f32):
      %8 = kir.binary add %6, %7 : f32
      kir.yield %8 : f32
    }
    %10 = kir.unary sqrt %9 : f32
    %12 = kir.binary add %10, %11 : f32
    %14 = kir.binary div %13, %12 : f32
    %16 = kir.binary min %14, %15 : f32
    %17 = kir.broadcast %16 over(%2) dims [] : f32 -> tensor<?xf32>
    %18 = kir.binary mul %3, %17 : tensor<?xf32>
    // expected-remark @+1 {{this in-place update after whole-view sums runs in parallel}}
    kir.store %18, %grad[%2] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    // expected-remark @+1 {{this workset uses a phased sum: its instances wait}}
    kir.store %10, %total[%1] : f32, !kir.view<f32, [1], out>[index]
    kir.return
  }
}

// -----

// Must not fire: a max is not a sum (no reassociation into atomic adds here).
// CHECK-LABEL: pgpu.kernel @max_scale
// CHECK-NOT: pgpu.while
// CHECK: pgpu.last_program
// CHECK: pgpu.range_reduce
// CHECK: pgpu.foreach
// CHECK: pgpu.store {{.*}}, %p
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @max_scale(%p: !kir.view<f32, [N], inout>) {
    %0 = kir.extent "N"
    %1 = arith.constant 0 : index
    %2 = kir.domain %1 to %0
    %5 = arith.constant 0xFF800000 : f32
    %10 = arith.constant 1.0 : f32
    %3 = kir.load %p[%2] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %4 = kir.unary abs %3 : tensor<?xf32>
    %9 = kir.reduce %4 axes [0] identity(%5 : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%6: f32, %7: f32):
      %8 = kir.binary max %6, %7 : f32
      kir.yield %8 : f32
    }
    %11 = kir.binary add %9, %10 : f32
    %12 = kir.broadcast %11 over(%2) dims [] : f32 -> tensor<?xf32>
    %13 = kir.binary div %3, %12 : tensor<?xf32>
    // expected-remark @+1 {{not phased: it uses a reduction whose combine is not an add}}
    kir.store %13, %p[%2] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    kir.return
  }
}

// -----

// Must not fire: a whole-view sum of a rank-2 view (not constructed phased yet).
// CHECK-LABEL: pgpu.kernel @normalize_2d
// CHECK-NOT: pgpu.while
// CHECK: pgpu.last_program
// CHECK: pgpu.range_reduce
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @normalize_2d(%p: !kir.view<f32, [M, N], inout>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %6 = arith.constant 0.0 : f32
    %11 = arith.constant 1.0 : f32
    %5 = kir.load %p[%3, %4] : !kir.view<f32, [M, N], inout>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %10 = kir.reduce %5 axes [0, 1] identity(%6 : f32) : (tensor<?x?xf32>) -> (f32) {
    ^bb0(%7: f32, %8: f32):
      %9 = kir.binary add %7, %8 : f32
      kir.yield %9 : f32
    }
    %12 = kir.binary add %10, %11 : f32
    %13 = kir.broadcast %12 over(%3, %4) dims [] : f32 -> tensor<?x?xf32>
    %14 = kir.binary div %5, %13 : tensor<?x?xf32>
    // expected-remark @+1 {{not phased: it uses a reduction of a tensor of rank other than 1}}
    kir.store %14, %p[%3, %4] : tensor<?x?xf32>, !kir.view<f32, [M, N], inout>[!kir.domain, !kir.domain]
    kir.return
  }
}

// -----

// Must not fire: a later workset reads the update's output at other elements (q[i] = p[n - 1 - i]):
// it is a finalization itself, so the update keeps the last program too (both run there, in order).
// CHECK-LABEL: pgpu.kernel @read_after
// CHECK-NOT: pgpu.while
// CHECK: pgpu.last_program
// CHECK: pgpu.store {{.*}}, %p
// CHECK: pgpu.store {{.*}}, %q
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @read_after(%p: !kir.view<f32, [N], inout>, %q: !kir.view<f32, [N], out>) {
    %0 = kir.extent "N"
    %1 = arith.constant 0 : index
    %2 = kir.domain %1 to %0
    %4 = arith.constant 0.0 : f32
    %9 = arith.constant 1.0 : f32
    %14 = arith.constant 1 : index
    %3 = kir.load %p[%2] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %8 = kir.reduce %3 axes [0] identity(%4 : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%5: f32, %6: f32):
      %7 = kir.binary add %5, %6 : f32
      kir.yield %7 : f32
    }
    %10 = kir.binary add %8, %9 : f32
    %11 = kir.broadcast %10 over(%2) dims [] : f32 -> tensor<?xf32>
    %12 = kir.binary div %3, %11 : tensor<?xf32>
    // expected-remark @+1 {{not phased: another workset also takes the last arrival or waits}}
    kir.store %12, %p[%2] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    // expected-remark @+1 {{this workset uses what an earlier workset writes (or writes what it uses): it runs whole in the last program instance}}
    kir.parallel %2 {
    ^bb0(%13: index):
      %15 = kir.binary sub %0, %14 : index
      %16 = kir.binary sub %15, %13 : index
      %17 = kir.load %p[%16] : !kir.view<f32, [N], inout>[index] -> f32
      kir.store %17, %q[%13] : f32, !kir.view<f32, [N], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// An in-place update ordered after another workset's reduction of its view (mixed-precision
// unscaling, corpus 260_b): the T.any is phased like a sum (an or in an i32 workspace, one atomic a
// chunk), the flag's workset waits and reads it, the update waits and runs in parallel; nothing is
// left for the last program. The flag is stored over T.domain(0, 1): a unit axis is no group axis
// (a kernel-level statement, coordinate 0).
// CHECK-LABEL: pgpu.kernel @unscale
// CHECK: pgpu.execution_group %{{.*}} segment 0 roles ["axis0"]
// CHECK: pgpu.range_reduce
// CHECK: pgpu.scatter_reduce
// CHECK: pgpu.while
// CHECK: pgpu.execution_group %{{.*}} extents() segment 1 roles []
// CHECK: pgpu.store %{{.*}}, %found_inf[
// CHECK: pgpu.while
// CHECK: pgpu.execution_group %{{.*}} segment 2 roles ["axis0"]
// CHECK: pgpu.store %{{.*}}, %grads[
// CHECK: pgpu.last_program
// CHECK-NOT: pgpu.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @unscale(%grads: !kir.view<f32, [N], inout>, %found_inf: !kir.view<f32, [1], inout>, %inv_scale: !kir.view<f32, [1], in>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %cst = arith.constant 0x7F800000 : f32
    %2 = kir.broadcast %cst over(%1) dims [] : f32 -> tensor<?xf32>
    %false = arith.constant false
    %c1 = arith.constant 1 : index
    %3 = kir.domain %c0 to %c1
    %cst_0 = arith.constant 1.000000e+00 : f32
    %4 = kir.broadcast %cst_0 over(%3) dims [] : f32 -> tensor<?xf32>
    %5 = kir.load %grads[%1] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %6 = kir.load %inv_scale[%c0] : !kir.view<f32, [1], in>[index] -> f32
    %7 = kir.broadcast %6 over(%1) dims [] : f32 -> tensor<?xf32>
    %8 = kir.binary mul %5, %7 : tensor<?xf32>
    // expected-remark @+1 {{this in-place update after whole-view sums runs in parallel}}
    kir.store %8, %grads[%1] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    %9 = kir.unary abs %5 : tensor<?xf32>
    %10 = kir.cmp lt %9, %2 : tensor<?xf32>
    %11 = kir.unary not %10 : tensor<?xi1>
    // expected-remark @+1 {{this whole-view sum is phased}}
    %12 = kir.reduce %11 axes [0] identity(%false : i1) : (tensor<?xi1>) -> (i1) {
    ^bb0(%arg0: i1, %arg1: i1):
      %15 = kir.binary or %arg0, %arg1 : i1
      kir.yield %15 : i1
    }
    %13 = kir.load %found_inf[%3] : !kir.view<f32, [1], inout>[!kir.domain] -> tensor<?xf32>
    %14 = kir.select %12, %4, %13 : i1, tensor<?xf32>
    // expected-remark @+1 {{this workset uses a phased sum}}
    kir.store %14, %found_inf[%3] : tensor<?xf32>, !kir.view<f32, [1], inout>[!kir.domain]
    kir.return
  }
}

// -----

// A workset that looks its elements up in a kernel-level buffer an earlier workset wrote (a per-row
// table, histogram equalization's lookup, corpus 233) and reduces nothing is phased: a segment after
// the table's, its instances waiting, then running in parallel; the last program is empty.
// CHECK-LABEL: pgpu.kernel @table_lookup
// CHECK: pgpu.while
// CHECK: pgpu.buffer_load
// CHECK: pgpu.store {{.*}}, %y
// CHECK: pgpu.last_program
// CHECK-NOT: pgpu.store
// CHECK-NOT: pgpu.buffer_load
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @table_lookup(%w: !kir.view<f32, [B, 16], in>, %x: !kir.view<i32, [B, L], in> {kir.range = [0, 16]},
                           %y: !kir.view<f32, [B, L], out>) {
    %nb = kir.extent "B"
    %nl = kir.extent "L"
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %two = arith.constant 2.0 : f32
    %rows = kir.domain %c0 to %nb
    %cols = kir.domain %c0 to %nl
    %bins = kir.domain %c0 to %c16
    %tab = kir.buffer over(%rows, %bins) first_write : !kir.buffer<tensor<?x?xf32>>
    kir.parallel %rows {
    ^bb0(%r: index):
      %v = kir.load %w[%r, %bins] : !kir.view<f32, [B, 16], in>[index, !kir.domain] -> tensor<?xf32>
      %s = kir.broadcast %two over(%bins) dims [] : f32 -> tensor<?xf32>
      %t = kir.binary mul %v, %s : tensor<?xf32>
      kir.buffer_store %t, %tab[%r, %bins] : tensor<?xf32>, !kir.buffer<tensor<?x?xf32>>[index, !kir.domain]
      kir.yield
    }
    // expected-remark @+1 {{it is a segment after them, its instances waiting until every earlier program instance has arrived}}
    kir.parallel %rows, %cols {
    ^bb0(%r: index, %c: index):
      %p = kir.load %x[%r, %c] : !kir.view<i32, [B, L], in>[index, index] -> i32
      %i = kir.cast %p : i32 to index
      %e = kir.buffer_load %tab[%r, %i] : !kir.buffer<tensor<?x?xf32>>[index, index] -> f32
      kir.store %e, %y[%r, %c] : f32, !kir.view<f32, [B, L], out>[index, index]
      kir.yield
    }
    kir.return
  }
}

// -----

// A T.any of the gradients an in-place update scales, stored to a flag by another workset (bench/corpus/
// 260_amp_unscale_inf_check). Before: the update and the any both whole in one program each (the update
// in the last). After: the any is phased like a sum, an i1 or held in an i32 workspace (0 or 1) or-ed in
// with one atomic or a chunk; the flag's workset waits and reads it back (!= 0); the update waits too.
// CHECK-LABEL: pgpu.kernel @any_flag
// CHECK-SAME: %[[W:[a-z0-9]+]]: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.kept
// CHECK: pgpu.execution_group {{.*}} segment 0
// CHECK: pgpu.range_reduce
// CHECK: %[[P:.*]] = pgpu.select %{{.*}}, %c1_i32, %c0_i32
// CHECK: pgpu.scatter_reduce %[[P]], %[[W]][
// CHECK: pgpu.binary or
// CHECK: pgpu.execution_group {{.*}} segment 1
// CHECK: %[[A:.*]] = pgpu.buffer_load %[[W]]
// CHECK: pgpu.cmp ne %[[A]]
// CHECK: pgpu.store {{.*}}, %found
// CHECK: pgpu.execution_group {{.*}} segment 2
// CHECK: pgpu.load %g
// CHECK: pgpu.store {{.*}}, %g
// CHECK: pgpu.last_program
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @any_flag(%g: !kir.view<f32, [N], inout>, %found: !kir.view<f32, [1], inout>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %false = arith.constant false
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %z = kir.broadcast %zero over(%1) dims [] : f32 -> tensor<?xf32>
    %h = kir.broadcast %half over(%1) dims [] : f32 -> tensor<?xf32>
    %2 = kir.load %g[%1] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %3 = kir.binary mul %2, %h : tensor<?xf32>
    kir.store %3, %g[%1] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    %4 = kir.cmp lt %2, %z : tensor<?xf32>
    %5 = kir.reduce %4 axes [0] identity(%false : i1) : (tensor<?xi1>) -> (i1) {
    ^bb0(%a: i1, %b: i1):
      %r = kir.binary or %a, %b : i1
      kir.yield %r : i1
    }
    %6 = kir.load %found[%c0] : !kir.view<f32, [1], inout>[index] -> f32
    %7 = kir.select %5, %one, %6 : i1, f32
    kir.store %7, %found[%c0] : f32, !kir.view<f32, [1], inout>[index]
    kir.return
  }
}


// -----

// Must not drop the axis: two flags (T.domain(0, 2)) are two members of an axis.
// CHECK-LABEL: pgpu.kernel @two_flags
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0 roles ["axis0"]
// CHECK: pgpu.store %{{.*}}, %flags[
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @two_flags(%grads: !kir.view<f32, [N], inout>, %flags: !kir.view<f32, [2], inout>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %cst = arith.constant 2.000000e+00 : f32
    %2 = kir.broadcast %cst over(%1) dims [] : f32 -> tensor<?xf32>
    %cst_0 = arith.constant 0x7F800000 : f32
    %3 = kir.broadcast %cst_0 over(%1) dims [] : f32 -> tensor<?xf32>
    %false = arith.constant false
    %c2 = arith.constant 2 : index
    %4 = kir.domain %c0 to %c2
    %cst_1 = arith.constant 1.000000e+00 : f32
    %5 = kir.broadcast %cst_1 over(%4) dims [] : f32 -> tensor<?xf32>
    %6 = kir.load %grads[%1] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %7 = kir.binary mul %6, %2 : tensor<?xf32>
    // expected-remark @+1 {{this in-place update after whole-view sums runs in parallel}}
    kir.store %7, %grads[%1] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    %8 = kir.unary abs %6 : tensor<?xf32>
    %9 = kir.cmp lt %8, %3 : tensor<?xf32>
    %10 = kir.unary not %9 : tensor<?xi1>
    // expected-remark @+1 {{this whole-view sum is phased}}
    %11 = kir.reduce %10 axes [0] identity(%false : i1) : (tensor<?xi1>) -> (i1) {
    ^bb0(%arg0: i1, %arg1: i1):
      %14 = kir.binary or %arg0, %arg1 : i1
      kir.yield %14 : i1
    }
    %12 = kir.load %flags[%4] : !kir.view<f32, [2], inout>[!kir.domain] -> tensor<?xf32>
    %13 = kir.select %11, %5, %12 : i1, tensor<?xf32>
    // expected-remark @+1 {{this workset uses a phased sum}}
    kir.store %13, %flags[%4] : tensor<?xf32>, !kir.view<f32, [2], inout>[!kir.domain]
    kir.return
  }
}


// -----

// Must not phase the reduction: a T.all (an and, identity true) is no zero-filled or, so no atomic
// workspace; the all's workset keeps its own segment (pgpu-split-folds splits a kernel-level
// reduction) and the update, which uses no whole-view value, waits for it and runs in parallel.
// CHECK-LABEL: pgpu.kernel @all_flag
// CHECK-NOT: pgpu.scatter_reduce
// CHECK: pgpu.execution_group %{{.*}} extents() segment 0 roles []
// CHECK: pgpu.store %{{.*}}, %found[
// CHECK: pgpu.while
// CHECK: pgpu.execution_group %{{.*}} segment 1 roles ["axis0"]
// CHECK: pgpu.store %{{.*}}, %g[
// CHECK: pgpu.last_program
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @all_flag(%g: !kir.view<f32, [N], inout>, %found: !kir.view<f32, [1], inout>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %true = arith.constant true
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %z = kir.broadcast %zero over(%1) dims [] : f32 -> tensor<?xf32>
    %h = kir.broadcast %half over(%1) dims [] : f32 -> tensor<?xf32>
    %2 = kir.load %g[%1] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %3 = kir.binary mul %2, %h : tensor<?xf32>
    kir.store %3, %g[%1] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    %4 = kir.cmp lt %2, %z : tensor<?xf32>
    %5 = kir.reduce %4 axes [0] identity(%true : i1) : (tensor<?xi1>) -> (i1) {
    ^bb0(%a: i1, %b: i1):
      %r = kir.binary and %a, %b : i1
      kir.yield %r : i1
    }
    %6 = kir.load %found[%c0] : !kir.view<f32, [1], inout>[index] -> f32
    %7 = kir.select %5, %one, %6 : i1, f32
    kir.store %7, %found[%c0] : f32, !kir.view<f32, [1], inout>[index]
    kir.return
  }
}

// -----

// Must not fire: the later workset sums a kernel-level buffer over the earlier parallel's members
// (a column sum of per-row values): pgpu-member-partials adds those terms as the members finish, so
// the finalization stays in the last program.
// CHECK-LABEL: pgpu.kernel @member_sum
// CHECK-NOT: pgpu.while
// CHECK: pgpu.last_program
// CHECK: pgpu.range_reduce
// CHECK: pgpu.buffer_load
// CHECK: pgpu.store {{.*}}, %y
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @member_sum(%w: !kir.view<f32, [B, 16], in>, %y: !kir.view<f32, [16], out>) {
    %nb = kir.extent "B"
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    %rows = kir.domain %c0 to %nb
    %bins = kir.domain %c0 to %c16
    %tab = kir.buffer over(%rows, %bins) first_write : !kir.buffer<tensor<?x?xf32>>
    kir.parallel %rows {
    ^bb0(%r: index):
      %v = kir.load %w[%r, %bins] : !kir.view<f32, [B, 16], in>[index, !kir.domain] -> tensor<?xf32>
      %s = kir.broadcast %two over(%bins) dims [] : f32 -> tensor<?xf32>
      %t = kir.binary mul %v, %s : tensor<?xf32>
      kir.buffer_store %t, %tab[%r, %bins] : tensor<?xf32>, !kir.buffer<tensor<?x?xf32>>[index, !kir.domain]
      kir.yield
    }
    %all = kir.buffer_load %tab[%rows, %bins] : !kir.buffer<tensor<?x?xf32>>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %sum = kir.reduce %all axes [0] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%u: f32, %q: f32):
      %o = kir.binary add %u, %q : f32
      kir.yield %o : f32
    }
    // expected-remark @+1 {{not phased: a finalization reduces what it reads from a kernel-level buffer}}
    kir.store %sum, %y[%bins] : tensor<?xf32>, !kir.view<f32, [16], out>[!kir.domain]
    kir.return
  }
}
