// RUN: tessel-opt %s -split-input-file --kir-to-pgpu --verify-diagnostics | FileCheck %s
// COM: A whole-view scalar reduction that an element-wise workset replays (PhasedReductions.cpp; seed 000
// COM: §2, §4.4; seed 002 §3.4, §4): before, every instance of the workset walked the whole view again
// COM: (a range_reduce over all of it inside the parallel's group). After: the reduction's segment
// COM: first, each instance reducing whole rows into a workspace partial, the last of them (a ticketed
// COM: last_program) merging the partials into the result; the workset then waits for every earlier
// COM: instance and reads the result. A reduction that keeps axes is replayed as before.

// CHECK-LABEL: pgpu.kernel @minus_min
// CHECK-SAME: %[[P:[a-z0-9]+]]: !pgpu.buffer<f32, [4096], workspace>
// CHECK-SAME: %[[S:[a-z0-9]+]]: !pgpu.buffer<f32, [1], workspace>
// CHECK-SAME: %[[T:[a-z0-9]+]]: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32
// CHECK: pgpu.execution_group {{.*}} segment 0
// CHECK: %[[PART:.*]] = pgpu.range_reduce
// CHECK: pgpu.buffer_store %[[PART]], %[[P]][
// CHECK: pgpu.last_program %[[T]][%{{.*}}] arrivals
// CHECK: pgpu.range_reduce
// CHECK: pgpu.buffer_load %[[P]][
// CHECK: pgpu.buffer_store %{{.*}}, %[[S]][
// CHECK: pgpu.while
// CHECK: order acquire
// CHECK: pgpu.execution_group {{.*}} segment 1
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.buffer_load %[[S]][
// CHECK: pgpu.store {{.*}}, %y
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @minus_min(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %cst = arith.constant 0x7F800000 : f32
    %2 = kir.load %x[%1] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    // expected-remark @+1 {{this whole-view reduction is phased: its own segment}}
    %3 = kir.reduce %2 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %4 = kir.binary min %arg0, %arg1 : f32
      kir.yield %4 : f32
    }
    // expected-remark @+1 {{this workset uses a phased whole-view reduction}}
    kir.parallel %1 {
    ^bb0(%arg0: index):
      %4 = kir.load %x[%arg0] : !kir.view<f32, [N], in>[index] -> f32
      %5 = kir.binary sub %4, %3 : f32
      kir.store %5, %y[%arg0] : f32, !kir.view<f32, [N], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the reduction's only user is a scalar store (one instance; nothing replays it
// COM: per element): it stays in that instance, no segment, no wait.
// CHECK-LABEL: pgpu.kernel @min_only
// CHECK-NOT: arrivals
// CHECK-NOT: pgpu.while
// CHECK: pgpu.range_reduce
// CHECK: pgpu.store {{.*}}, %t
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @min_only(%x: !kir.view<f32, [N], in>, %t: !kir.view<f32, [1], out>) {
    %0 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %1 = kir.domain %c0 to %0
    %cst = arith.constant 0x7F800000 : f32
    %2 = kir.load %x[%1] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %3 = kir.reduce %2 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%arg0: f32, %arg1: f32):
      %4 = kir.binary min %arg0, %arg1 : f32
      kir.yield %4 : f32
    }
    kir.store %3, %t[%c0] : f32, !kir.view<f32, [1], out>[index]
    kir.return
  }
}

// -----

// COM: Must not fire: each row's max keeps the row (a reduction inside the parallel's member).
// CHECK-LABEL: pgpu.kernel @row_max
// CHECK-NOT: arrivals
// CHECK-NOT: pgpu.while
// CHECK: pgpu.range_reduce
// CHECK: pgpu.store {{.*}}, %y
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @row_max(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %cst = arith.constant 0xFF800000 : f32
    kir.parallel %2 {
    ^bb0(%arg0: index):
      %4 = kir.load %x[%arg0, %3] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %6 = kir.reduce %4 axes [0] identity(%cst : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%arg1: f32, %arg2: f32):
        %9 = kir.binary max %arg1, %arg2 : f32
        kir.yield %9 : f32
      }
      %7 = kir.broadcast %6 over(%3) dims [] : f32 -> tensor<?xf32>
      %8 = kir.binary sub %4, %7 : tensor<?xf32>
      kir.store %8, %y[%arg0, %3] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
