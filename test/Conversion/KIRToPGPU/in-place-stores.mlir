// RUN: tessel-opt %s -split-input-file --kir-to-pgpu --verify-diagnostics | FileCheck %s
// COM: In-place updates at kernel level (seed 000 §4: KIR values have one element per position). A view read
// COM: by replayed values may be written by one workset of plain stores over coordinates C when every read
// COM: of it is a load at C feeding only elementwise ops into that workset's stores: each instance reads and
// COM: writes its own elements. A read before the first store of the view is realized before any store; a
// COM: read after one sees the stored value (forwarded). A reduction of the whole view to a scalar (it
// COM: reads every element) before an in-place update: a plain sum is phased (phased-sums.mlir: its chunks'
// COM: segment, then the update's instances after a wait for every earlier instance, reading the sum from
// COM: workspace); otherwise the update runs whole in the last program instance (seed 000 §8: no barrier
// COM: across instances), the scalar computed there once, before the element loop.
// COM: A read of another element than the one stored, or a later workset that needs the view both before
// COM: and after the update, keeps the error.

// CHECK-LABEL: pgpu.kernel @scale_in_place
// CHECK: %[[OLD:.*]] = pgpu.load %p
// CHECK: %[[G:.*]] = pgpu.load %g
// CHECK: %[[Q:.*]] = pgpu.binary mul %[[G]]
// CHECK: pgpu.store %[[Q]], %q
// CHECK-NOT: pgpu.load %q
// CHECK: %[[Z:.*]] = pgpu.binary mul %[[Q]]
// CHECK: pgpu.binary add %[[OLD]], %[[Z]]
// CHECK: pgpu.store {{.*}}, %p
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @scale_in_place(%p: !kir.view<f32, [N], inout>, %q: !kir.view<f32, [N], inout>, %g: !kir.view<f32, [N], in>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %cst = arith.constant 2.000000e+00 : f32
    %2 = kir.broadcast %cst over(%1) dims [] : f32 -> tensor<?xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %3 = kir.broadcast %cst_0 over(%1) dims [] : f32 -> tensor<?xf32>
    %4 = kir.load %p[%1] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %5 = kir.load %g[%1] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %6 = kir.binary mul %5, %2 : tensor<?xf32>
    kir.store %6, %q[%1] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    %7 = kir.load %q[%1] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %8 = kir.binary mul %7, %3 : tensor<?xf32>
    %9 = kir.binary add %4, %8 : tensor<?xf32>
    %10 = kir.load %g[%1] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %11 = kir.binary add %9, %10 : tensor<?xf32>
    kir.store %11, %p[%1] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    kir.return
  }
}

// -----

// CHECK-LABEL: pgpu.kernel @normalize_in_place
// CHECK: pgpu.program_space
// CHECK: pgpu.execution_group {{.*}} segment 0
// CHECK: pgpu.range_reduce
// CHECK: pgpu.scatter_reduce
// CHECK: pgpu.while
// CHECK: pgpu.execution_group {{.*}} segment 1
// CHECK: pgpu.buffer_load
// CHECK: pgpu.load %p
// CHECK: pgpu.binary div
// CHECK: pgpu.store {{.*}}, %p
// CHECK: pgpu.last_program
// CHECK: pgpu.buffer_store
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @normalize_in_place(%p: !kir.view<f32, [N], inout>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %cst = arith.constant 0.000000e+00 : f32
    %2 = kir.load %p[%1] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %3 = kir.reduce %2 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %6 = kir.binary add %arg0, %arg1 : f32
      kir.yield %6 : f32
    }
    %4 = kir.broadcast %3 over(%1) dims [] : f32 -> tensor<?xf32>
    %5 = kir.binary div %2, %4 : tensor<?xf32>
    kir.store %5, %p[%1] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    kir.return
  }
}

// -----

// The norm's store (a later statement using the scalar) waits for the sum, before the update.
// CHECK-LABEL: pgpu.kernel @clip_in_place
// CHECK: pgpu.execution_group {{.*}} segment 0
// CHECK: pgpu.range_reduce
// CHECK: pgpu.execution_group {{.*}} segment 1
// CHECK: pgpu.store {{.*}}, %t
// CHECK: pgpu.execution_group {{.*}} segment 2
// CHECK: pgpu.store {{.*}}, %p
// CHECK: pgpu.last_program
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @clip_in_place(%p: !kir.view<f32, [N], inout>, %t: !kir.view<f32, [1], out>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %cst = arith.constant 0.000000e+00 : f32
    %2 = kir.load %p[%1] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %3 = kir.binary mul %2, %2 : tensor<?xf32>
    %4 = kir.reduce %3 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %9 = kir.binary add %arg0, %arg1 : f32
      kir.yield %9 : f32
    }
    %5 = kir.unary sqrt %4 : f32
    %6 = kir.broadcast %5 over(%1) dims [] : f32 -> tensor<?xf32>
    %7 = kir.binary div %2, %6 : tensor<?xf32>
    kir.store %7, %p[%1] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    kir.store %5, %t[%c0] : f32, !kir.view<f32, [1], out>[index]
    kir.return
  }
}

// -----

// Must not fire: every element also reads element 0, which one instance writes.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @other_element(%p: !kir.view<f32, [N], inout>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %cst = arith.constant 0.000000e+00 : f32
    %2 = kir.load %p[%1] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    %3 = kir.reduce %2 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %9 = kir.binary add %arg0, %arg1 : f32
      kir.yield %9 : f32
    }
    %4 = kir.load %p[%c0] : !kir.view<f32, [N], inout>[index] -> f32
    %5 = kir.binary add %3, %4 : f32
    %6 = kir.broadcast %5 over(%1) dims [] : f32 -> tensor<?xf32>
    %7 = kir.binary mul %2, %6 : tensor<?xf32>
    // expected-error @+1 {{this workset writes a view that values before the worksets read}}
    kir.store %7, %p[%1] : tensor<?xf32>, !kir.view<f32, [N], inout>[!kir.domain]
    kir.return
  }
}

// -----

// COM: A scalar updated in place at an index coordinate (bench/corpus/260_amp_unscale_inf_check:
// COM: found_inf[0] = T.where(bad, 1.0, found_inf[0])): one instance stores the one element, its scalar read
// COM: realized where it stands, before the store. Before: refused (only tensor stores over domains were
// COM: in-place updates). After: the load of %f, the select, then the store of %f.
// CHECK-LABEL: pgpu.kernel @flag_in_place
// CHECK: %[[OLD:.*]] = pgpu.load %f
// CHECK: %[[NEW:.*]] = pgpu.select %{{.*}}, %{{.*}}, %[[OLD]]
// CHECK: pgpu.store %[[NEW]], %f
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @flag_in_place(%g: !kir.view<f32, [N], in>, %f: !kir.view<f32, [1], inout>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %false = arith.constant false
    %one = arith.constant 1.000000e+00 : f32
    %cst = arith.constant 0.000000e+00 : f32
    %z = kir.broadcast %cst over(%1) dims [] : f32 -> tensor<?xf32>
    %2 = kir.load %g[%1] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %3 = kir.cmp lt %2, %z : tensor<?xf32>
    %4 = kir.reduce %3 axes [0] identity(%false : i1) : (tensor<?xi1>) -> (i1) {
    ^bb0(%arg0: i1, %arg1: i1):
      %9 = kir.binary or %arg0, %arg1 : i1
      kir.yield %9 : i1
    }
    %5 = kir.load %f[%c0] : !kir.view<f32, [1], inout>[index] -> f32
    %6 = kir.select %4, %one, %5 : i1, f32
    kir.store %6, %f[%c0] : f32, !kir.view<f32, [1], inout>[index]
    kir.return
  }
}

// -----

// Must not fire: the scalar read of %f also feeds another workset's store (%o, over a domain), which
// would read %f after the scalar store in some instance.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @flag_read_elsewhere(%f: !kir.view<f32, [1], inout>, %o: !kir.view<f32, [N], out>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %one = arith.constant 1.000000e+00 : f32
    %5 = kir.load %f[%c0] : !kir.view<f32, [1], inout>[index] -> f32
    %6 = kir.binary add %5, %one : f32
    // expected-error @+1 {{this workset writes a view that values before the worksets read}}
    kir.store %6, %f[%c0] : f32, !kir.view<f32, [1], inout>[index]
    %7 = kir.broadcast %5 over(%1) dims [] : f32 -> tensor<?xf32>
    kir.store %7, %o[%1] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    kir.return
  }
}
