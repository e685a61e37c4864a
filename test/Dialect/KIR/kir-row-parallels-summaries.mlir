// RUN: tessel-opt %s -split-input-file -kir-row-parallels -verify-diagnostics | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s -split-input-file -kir-row-parallels=keep-summaries=false 2>/dev/null | FileCheck %s --check-prefix=OFF

// COM: bench/corpus/60_rmsnorm_backward after kir-row-parallels made dx a parallel over the rows: the
// COM: column sum dw = sum over rows of (dy * x) * r still reads the kernel-level r = rsqrt(sum(x^2)), so
// COM: every column's sum would replay the whole row reduction for every row. After: the parallel over
// COM: the rows stores its member's r (the same ops, merged with its own by CSE: one read, one reduction)
// COM: into a buffer over the rows; the contraction reads the buffer; the kernel-level reduction goes.
// COM: Must not fire without keep-summaries (a provider without the fragment atomic add): the replay stays.
// OFF-LABEL: kir.kernel @column_sum_of_row_summary
// OFF-NOT: kir.buffer
// OFF: kir.contract
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

// COM: A LayerNorm's column sum dg = sum over rows of dy * ((x - mean) * rstd), written at kernel level:
// COM: the sum needs two summaries over the rows (mean, and rstd which itself reads mean) through
// COM: broadcasts. After: kir-row-parallels made y a parallel over the rows; that parallel also stores
// COM: its member's mean and rstd (merged with its own by CSE: one read, two reductions) into two
// COM: buffers; before the sum, (x - mean) * rstd is recomputed from the buffers' reads.
// CHECK-LABEL: kir.kernel @layer_stats
// CHECK: %[[ROWS:.*]] = kir.domain
// CHECK: %[[COLS:.*]] = kir.domain
// CHECK: %[[X:.*]] = kir.load %x[%[[ROWS]], %[[COLS]]]
// CHECK: %[[MB:.*]] = kir.buffer over(%[[ROWS]]) first_write
// CHECK: %[[RB:.*]] = kir.buffer over(%[[ROWS]]) first_write
// CHECK: kir.parallel %[[ROWS]] {
// CHECK-NEXT: ^bb0(%[[M:.*]]: index):
// CHECK-NEXT: kir.load %x[%[[M]], %[[COLS]]]
// CHECK-NEXT: %[[S:.*]] = kir.reduce
// CHECK: %[[MEAN:.*]] = kir.binary div %[[S]]
// CHECK: kir.reduce
// CHECK: %[[RSTD:.*]] = kir.unary rsqrt
// CHECK-NOT: kir.reduce
// CHECK: kir.store %{{.*}}, %y[%[[M]], %[[COLS]]]
// CHECK-NEXT: kir.buffer_store %[[MEAN]], %[[MB]][%[[M]]] : f32
// CHECK-NEXT: kir.buffer_store %[[RSTD]], %[[RB]][%[[M]]] : f32
// CHECK-NEXT: kir.yield
// CHECK-NOT: kir.reduce %{{.*}} axes [1]
// CHECK: %[[MR:.*]] = kir.buffer_load %[[MB]][%[[ROWS]]]
// CHECK: %[[RR:.*]] = kir.buffer_load %[[RB]][%[[ROWS]]]
// CHECK: %[[MBC:.*]] = kir.broadcast %[[MR]] over(%[[ROWS]], %[[COLS]]) dims [0]
// CHECK: %[[XC:.*]] = kir.binary sub %[[X]], %[[MBC]]
// CHECK: %[[RBC:.*]] = kir.broadcast %[[RR]] over(%[[ROWS]], %[[COLS]]) dims [0]
// CHECK: kir.binary mul %[[XC]], %[[RBC]]
// CHECK: kir.reduce %{{.*}} axes [0]
// CHECK: kir.store %{{.*}}, %dg[%[[COLS]]]
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @layer_stats(%x: !kir.view<f32, [M, N], in>, %dy: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>, %dg: !kir.view<f32, [N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %4 = kir.domain %2 to %1
    %7 = arith.constant 0.0 : f32
    %23 = arith.constant 9.999999747378752e-06 : f32
    %24 = kir.broadcast %23 over(%3) dims [] : f32 -> tensor<?xf32>
    %5 = kir.cast %1 : index to f32
    %6 = kir.load %x[%3, %4] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %11 = kir.reduce %6 axes [1] identity(%7 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%8: f32, %9: f32):
      %10 = kir.binary add %8, %9 : f32
      kir.yield %10 : f32
    }
    %12 = kir.broadcast %5 over(%3) dims [] : f32 -> tensor<?xf32>
    %13 = kir.binary div %11, %12 : tensor<?xf32>
    %14 = kir.broadcast %13 over(%3, %4) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %15 = kir.binary sub %6, %14 : tensor<?x?xf32>
    %16 = kir.binary mul %15, %15 : tensor<?x?xf32>
    %20 = kir.reduce %16 axes [1] identity(%7 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%17: f32, %18: f32):
      %19 = kir.binary add %17, %18 : f32
      kir.yield %19 : f32
    }
    %21 = kir.broadcast %5 over(%3) dims [] : f32 -> tensor<?xf32>
    %22 = kir.binary div %20, %21 : tensor<?xf32>
    %25 = kir.binary add %22, %24 : tensor<?xf32>
    %26 = kir.unary rsqrt %25 : tensor<?xf32>
    %27 = kir.broadcast %26 over(%3, %4) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %28 = kir.binary mul %15, %27 : tensor<?x?xf32>
    // expected-remark @below {{kir-row-parallels: the store reads a reduction over an axis it writes}}
    kir.store %28, %y[%3, %4] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    %29 = kir.load %dy[%3, %4] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %30 = kir.broadcast %26 over(%3, %4) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    %31 = kir.binary mul %15, %30 : tensor<?x?xf32>
    %32 = kir.binary mul %29, %31 : tensor<?x?xf32>
    // expected-remark @below {{kir-row-parallels: this sum reads a summary over the 1 domain(s) of a parallel whole (2 value(s))}}
    %36 = kir.reduce %32 axes [0] identity(%7 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%33: f32, %34: f32):
      %35 = kir.binary add %33, %34 : f32
      kir.yield %35 : f32
    }
    // expected-remark @below {{kir-row-parallels: the store stays at kernel level: every axis the store writes is reduced}}
    kir.store %36, %dg[%4] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
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
