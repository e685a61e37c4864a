// RUN: tessel-opt %s -split-input-file -kir-row-parallels -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: bench/corpus/60_rmsnorm_backward after kir-row-parallels made dx a parallel over the rows: the
// COM: column sum dw = sum over rows of (dy * x) * r still reads the kernel-level r = rsqrt(sum(x^2)), so
// COM: every column's sum would replay the whole row reduction for every row. After: the parallel over
// COM: the rows stores its member's r (the same ops, merged with its own by CSE: one read, one reduction)
// COM: into a buffer over the rows; the contraction reads the buffer; the kernel-level reduction goes.
// CHECK-LABEL: kir.kernel @column_sum_of_row_summary
// CHECK: %[[ROWS:.*]] = kir.domain
// CHECK: %[[COLS:.*]] = kir.domain
// CHECK-NOT: kir.reduce
// CHECK: %[[BUF:.*]] = kir.buffer over(%[[ROWS]]) first_write : !kir.buffer<tensor<?xf32>>
// CHECK-NEXT: kir.parallel %[[ROWS]] {
// CHECK-NEXT: ^bb0(%[[M:.*]]: index):
// CHECK-NEXT: %[[X:.*]] = kir.load %x[%[[M]], %[[COLS]]]
// CHECK-NEXT: %[[XX:.*]] = kir.binary mul %[[X]], %[[X]] : tensor<?xf32>
// CHECK-NEXT: %[[S:.*]] = kir.reduce %[[XX]] axes [0]
// CHECK: %[[R:.*]] = kir.unary rsqrt %[[S]] : f32
// CHECK-NOT: kir.load %x
// CHECK-NOT: kir.reduce
// CHECK: kir.broadcast %[[R]] over(%[[COLS]])
// CHECK: kir.store
// CHECK-NEXT: kir.buffer_store %[[R]], %[[BUF]][%[[M]]] : f32
// CHECK-NEXT: kir.yield
// CHECK: %[[RB:.*]] = kir.buffer_load %[[BUF]][%[[ROWS]]] : !kir.buffer<tensor<?xf32>>[!kir.domain] -> tensor<?xf32>
// CHECK-NEXT: kir.contract %{{.*}}, %[[RB]] reduce([0], [0])
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @column_sum_of_row_summary(%x: !kir.view<f32, [M, N], in>, %dy: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>, %dw: !kir.view<f32, [N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %rows = kir.domain %c0 to %0
    %cols = kir.domain %c0 to %1
    %zero = arith.constant 0.000000e+00 : f32
    %xs = kir.load %x[%rows, %cols] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %sq = kir.binary mul %xs, %xs : tensor<?x?xf32>
    %ss = kir.reduce %sq axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%a: f32, %b: f32):
      %s = kir.binary add %a, %b : f32
      kir.yield %s : f32
    }
    %r = kir.unary rsqrt %ss : tensor<?xf32>
    kir.parallel %rows {
    ^bb0(%m: index):
      %xr = kir.load %x[%m, %cols] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %q = kir.binary mul %xr, %xr : tensor<?xf32>
      %t = kir.reduce %q axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %s = kir.binary add %a, %b : f32
        kir.yield %s : f32
      }
      %rr = kir.unary rsqrt %t : f32
      %rb = kir.broadcast %rr over(%cols) dims [] : f32 -> tensor<?xf32>
      %yv = kir.binary mul %xr, %rb : tensor<?xf32>
      kir.store %yv, %y[%m, %cols] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    %g = kir.load %dy[%rows, %cols] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %gx = kir.binary mul %g, %xs : tensor<?x?xf32>
    // expected-remark @below {{kir-row-parallels: this sum reads a summary over the 1 domain(s) of a parallel whole}}
    %dwv = kir.contract %gx, %r reduce([0], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
    // expected-remark @below {{kir-row-parallels: the store stays at kernel level: every axis the store writes is reduced}}
    kir.store %dwv, %dw[%cols] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    kir.return
  }
}

// -----

// COM: Must not fire: the summary reads y, which the parallel writes (a member would read rows other
// COM: members write); it stays replayed, and a remark says why.
// CHECK-LABEL: kir.kernel @summary_of_written_view
// CHECK-NOT: kir.buffer
// CHECK: kir.reduce %{{.*}} axes [1]
// CHECK: kir.contract %{{.*}}, %{{.*}} reduce([0], [0])
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @summary_of_written_view(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], inout>, %dw: !kir.view<f32, [N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %rows = kir.domain %c0 to %0
    %cols = kir.domain %c0 to %1
    %zero = arith.constant 0.000000e+00 : f32
    %ys = kir.load %y[%rows, %cols] : !kir.view<f32, [M, N], inout>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %ss = kir.reduce %ys axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%a: f32, %b: f32):
      %s = kir.binary add %a, %b : f32
      kir.yield %s : f32
    }
    kir.parallel %rows {
    ^bb0(%m: index):
      %xr = kir.load %x[%m, %cols] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      kir.store %xr, %y[%m, %cols] : tensor<?xf32>, !kir.view<f32, [M, N], inout>[index, !kir.domain]
      kir.yield
    }
    %xs = kir.load %x[%rows, %cols] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    // expected-remark @below {{kir-row-parallels: the summary this sum reads stays replayed: the row reads a view the kernel writes}}
    %dwv = kir.contract %xs, %ss reduce([0], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
    // expected-remark @below {{kir-row-parallels: the store stays at kernel level: the row reads a view the kernel writes}}
    kir.store %dwv, %dw[%cols] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    kir.return
  }
}

// -----

// COM: Must not fire: the kernel-level value the sum reads is pointwise over a read (no reduction:
// COM: replaying it costs what a kept copy would).
// CHECK-LABEL: kir.kernel @no_summary
// CHECK-NOT: kir.buffer
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @no_summary(%x: !kir.view<f32, [M, N], in>, %v: !kir.view<f32, [M], in>, %y: !kir.view<f32, [M, N], out>, %dw: !kir.view<f32, [N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %rows = kir.domain %c0 to %0
    %cols = kir.domain %c0 to %1
    %zero = arith.constant 0.000000e+00 : f32
    %vs = kir.load %v[%rows] : !kir.view<f32, [M], in>[!kir.domain] -> tensor<?xf32>
    %e = kir.unary exp %vs : tensor<?xf32>
    kir.parallel %rows {
    ^bb0(%m: index):
      %xr = kir.load %x[%m, %cols] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      kir.store %xr, %y[%m, %cols] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    %xs = kir.load %x[%rows, %cols] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %dwv = kir.contract %xs, %e reduce([0], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
    kir.store %dwv, %dw[%cols] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    kir.return
  }
}
