// RUN: tessel-opt %s -split-input-file -pgpu-reciprocal-divisors -verify-diagnostics | FileCheck %s
// seed 002 §4 under numerics = relaxed_normalization (§1): x / broadcast(d) = x * broadcast(1 / d), one
// division per element of d instead of one per lane.
// COM: A tile divided by its rows' sums (attention's acc / den): one reciprocal per row, after the sums'
// COM: definition; both divisions by repetitions of d share it; the broadcasts are rebuilt on it.
// CHECK-LABEL: pgpu.kernel @rows
// CHECK: %[[D:.*]] = pgpu.reduce
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[ONES:.*]] = pgpu.splat %[[ONE]] : f32 -> !pgpu.fragment<f32, [16]>
// CHECK: %[[R:.*]] = pgpu.binary div %[[ONES]], %[[D]] : !pgpu.fragment<f32, [16]>
// CHECK: %[[RB:.*]] = pgpu.broadcast %[[R]] dims [0]
// CHECK: %[[Q1:.*]] = pgpu.binary mul %[[X:.*]], %[[RB]] : !pgpu.fragment<f32, [16, 16]>
// CHECK: %[[RB2:.*]] = pgpu.broadcast %[[R]] dims [0]
// CHECK: pgpu.binary mul %[[Q1]], %[[RB2]] : !pgpu.fragment<f32, [16, 16]>
// CHECK-NOT: pgpu.binary div
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @rows(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %s: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.reduce %x axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary add %a, %b : f32
        pgpu.yield %o : f32
      }
      %db = pgpu.broadcast %d dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{pgpu-reciprocal-divisors: a division by a broadcast divisor is a product with its reciprocal}}
      %q1 = pgpu.binary div %x, %db : !pgpu.fragment<f32, [16, 16]>
      %db2 = pgpu.broadcast %d dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{pgpu-reciprocal-divisors: a division by a broadcast divisor is a product with its reciprocal}}
      %q = pgpu.binary div %q1, %db2 : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %q, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A block divided by one scalar (a softmax's sum): the scalar reciprocal, splat.
// CHECK-LABEL: pgpu.kernel @scalar_divisor
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[R:.*]] = pgpu.binary div %[[ONE]], %s : f32
// CHECK: %[[RS:.*]] = pgpu.splat %[[R]] : f32 -> !pgpu.fragment<f32, [16, 16]>
// CHECK: pgpu.binary mul %{{.*}}, %[[RS]] : !pgpu.fragment<f32, [16, 16]>
// CHECK-NOT: pgpu.binary div
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @scalar_divisor(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %s: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.reduce %x axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary add %a, %b : f32
        pgpu.yield %o : f32
      }
      %ss = pgpu.splat %s : f32 -> !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{pgpu-reciprocal-divisors: a division by a broadcast divisor is a product with its reciprocal}}
      %q = pgpu.binary div %x, %ss : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %q, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: numerics = source (a remark says what it needs).
// CHECK-LABEL: pgpu.kernel @source_numerics
// CHECK: pgpu.binary div %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [16, 16]>
// CHECK-NOT: pgpu.binary mul
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = source, optimization_remarks = true>} {
  pgpu.kernel @source_numerics(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %s: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.reduce %x axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary add %a, %b : f32
        pgpu.yield %o : f32
      }
      %db = pgpu.broadcast %d dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{pgpu-reciprocal-divisors: a division by a broadcast divisor stays one division per lane: needs numerics = relaxed_normalization}}
      %q = pgpu.binary div %x, %db : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %q, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a divisor of the quotient's own shape (one division per lane either way), a division
// COM: already approximate, a broadcast that adds only an axis of one lane.
// CHECK-LABEL: pgpu.kernel @not_repeated
// CHECK: pgpu.binary div %[[X:.*]], %[[X]] : !pgpu.fragment<f32, [16, 16]>
// CHECK: pgpu.binary div %{{.*}}, %{{.*}} {approximate} : !pgpu.fragment<f32, [16, 16]>
// CHECK: pgpu.binary div %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [16, 1]>
// CHECK-NOT: pgpu.binary mul
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @not_repeated(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %s: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.reduce %x axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary add %a, %b : f32
        pgpu.yield %o : f32
      }
      %q0 = pgpu.binary div %x, %x : !pgpu.fragment<f32, [16, 16]>
      %db = pgpu.broadcast %d dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %q = pgpu.binary div %q0, %db {approximate} : !pgpu.fragment<f32, [16, 16]>
      %d1 = pgpu.broadcast %d dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 1]>
      %n1 = pgpu.broadcast %d dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 1]>
      %q1 = pgpu.binary div %n1, %d1 : !pgpu.fragment<f32, [16, 1]>
      pgpu.store %q, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: an f64 division (f32 only) and a scalar division (nothing repeated).
// CHECK-LABEL: pgpu.kernel @other_types
// CHECK: pgpu.binary div %{{.*}}, %{{.*}} : !pgpu.fragment<f64, [16, 16]>
// CHECK: pgpu.binary div %s, %s : f32
// CHECK-NOT: pgpu.binary mul
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @other_types(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %s: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.reduce %x axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary add %a, %b : f32
        pgpu.yield %o : f32
      }
      %x64 = pgpu.cast %x : !pgpu.fragment<f32, [16, 16]> to !pgpu.fragment<f64, [16, 16]>
      %d64 = pgpu.cast %d : !pgpu.fragment<f32, [16]> to !pgpu.fragment<f64, [16]>
      %db = pgpu.broadcast %d64 dims [0] : !pgpu.fragment<f64, [16]> -> !pgpu.fragment<f64, [16, 16]>
      %q64 = pgpu.binary div %x64, %db : !pgpu.fragment<f64, [16, 16]>
      %ss = pgpu.binary div %s, %s : f32
      %q = pgpu.cast %q64 : !pgpu.fragment<f64, [16, 16]> to !pgpu.fragment<f32, [16, 16]>
      pgpu.store %q, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}
