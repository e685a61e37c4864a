// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: A finalization that scans a kernel-level buffer (PhasedSums.cpp, phaseFinalizations; corpus 323:
// COM: kir-row-parallels keeps each token's argmax in a buffer that a parallel over the experts scans)
// COM: is phased: its own segment after the buffer's writers, its instances waiting for every earlier
// COM: instance and then scanning in parallel (one member each), not whole in the last program.
// CHECK-LABEL: pgpu.kernel @route(
// CHECK: pgpu.execution_group %{{.*}} segment 0
// CHECK: pgpu.buffer_store
// CHECK: pgpu.while
// CHECK: pgpu.execution_group %{{.*}} segment 1
// CHECK: pgpu.range_scan
// CHECK: pgpu.last_program
// CHECK-NEXT: pgpu.yield
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @route(%logits: !kir.view<f32, [T, E], in>, %pos: !kir.view<i32, [T, E], out>) {
    %0 = kir.extent "T"
    %1 = kir.extent "E"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %7 = kir.broadcast %c1_i32 over(%2) dims [] : i32 -> tensor<?xi32>
    %8 = kir.broadcast %c0_i32 over(%2) dims [] : i32 -> tensor<?xi32>
    %buf = kir.buffer over(%2) first_write : !kir.buffer<tensor<?xi64>>
    kir.parallel %2 {
    ^bb0(%i: index):
      %row = kir.load %logits[%i, %3] : !kir.view<f32, [T, E], in>[index, !kir.domain] -> tensor<?xf32>
      %v, %idx = kir.arg_reduce argmax %row axis 0 tie lowest nan propagate : tensor<?xf32> -> f32, index
      %w = kir.cast %idx : index to i64
      kir.buffer_store %w, %buf[%i] : i64, !kir.buffer<tensor<?xi64>>[index]
      kir.yield
    }
    // expected-remark @below {{kir-to-pgpu: this workset uses what an earlier workset writes (or writes what it uses): it is a segment after them}}
    kir.parallel %3 {
    ^bb0(%arg0: index):
      %back = kir.buffer_load %buf[%2] : !kir.buffer<tensor<?xi64>>[!kir.domain] -> tensor<?xi64>
      %first = kir.cast %back : tensor<?xi64> to tensor<?xindex>
      %17 = kir.broadcast %arg0 over(%2) dims [] : index -> tensor<?xindex>
      %18 = kir.cmp eq %first, %17 : tensor<?xindex>
      %21 = kir.select %18, %7, %8 : tensor<?xi1>, tensor<?xi32>
      %23 = kir.scan %21 axis 0 identity(%c0_i32 : i32) : (tensor<?xi32>) -> (tensor<?xi32>) {
      ^bb0(%arg1: i32, %arg2: i32):
        %40 = kir.binary add %arg1, %arg2 : i32
        kir.yield %40 : i32
      }
      kir.store %23, %pos[%2, %arg0] : tensor<?xi32>, !kir.view<i32, [T, E], out>[!kir.domain, index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the finalization only sums the buffer (pgpu-member-partials spreads such a sum
// COM: over the writers' members): it stays whole in the last program.
// CHECK-LABEL: pgpu.kernel @count(
// CHECK: pgpu.execution_group %{{.*}} segment 0
// CHECK-NOT: segment 1
// CHECK: pgpu.last_program
// CHECK: pgpu.buffer_load
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @count(%logits: !kir.view<f32, [T, E], in>, %pos: !kir.view<i32, [T, E], out>) {
    %0 = kir.extent "T"
    %1 = kir.extent "E"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %7 = kir.broadcast %c1_i32 over(%2) dims [] : i32 -> tensor<?xi32>
    %8 = kir.broadcast %c0_i32 over(%2) dims [] : i32 -> tensor<?xi32>
    %buf = kir.buffer over(%2) first_write : !kir.buffer<tensor<?xi64>>
    kir.parallel %2 {
    ^bb0(%i: index):
      %row = kir.load %logits[%i, %3] : !kir.view<f32, [T, E], in>[index, !kir.domain] -> tensor<?xf32>
      %v, %idx = kir.arg_reduce argmax %row axis 0 tie lowest nan propagate : tensor<?xf32> -> f32, index
      %w = kir.cast %idx : index to i64
      kir.buffer_store %w, %buf[%i] : i64, !kir.buffer<tensor<?xi64>>[index]
      kir.yield
    }
    // expected-remark @below {{not phased: a finalization reduces what it reads from a kernel-level buffer; a sum over a parallel's members is left to pgpu-member-partials}}
    kir.parallel %3 {
    ^bb0(%arg0: index):
      %back = kir.buffer_load %buf[%2] : !kir.buffer<tensor<?xi64>>[!kir.domain] -> tensor<?xi64>
      %first = kir.cast %back : tensor<?xi64> to tensor<?xindex>
      %17 = kir.broadcast %arg0 over(%2) dims [] : index -> tensor<?xindex>
      %18 = kir.cmp eq %first, %17 : tensor<?xindex>
      %21 = kir.select %18, %7, %8 : tensor<?xi1>, tensor<?xi32>
      %23 = kir.reduce %21 axes [0] identity(%c0_i32 : i32) : (tensor<?xi32>) -> (i32) {
      ^bb0(%arg1: i32, %arg2: i32):
        %40 = kir.binary add %arg1, %arg2 : i32
        kir.yield %40 : i32
      }
      kir.store %23, %pos[%c0, %arg0] : i32, !kir.view<i32, [T, E], out>[index, index]
      kir.yield
    }
    kir.return
  }
}
