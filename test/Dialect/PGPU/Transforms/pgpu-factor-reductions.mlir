// RUN: tessel-opt %s -split-input-file -pgpu-factor-reductions -verify-diagnostics | FileCheck %s
// seed 002 §4: max_j(x_j * c) = max_j(x_j) * c for c positive and finite (rounding is monotone), decided
// at launch (seed 000 §3.1) where c is a kernel scalar times constants.
// COM: A kernel scalar times log2(e): the max of the scores is factored under a launch-time condition on
// COM: the scalar alone (the window [2^-32, 2^32]); the else side keeps the reduction as it was, the product
// COM: moves after the branch beside its other use (the subtraction: one multiply-add).
// CHECK-LABEL: pgpu.kernel @scalar_factor
// CHECK: %[[C:.*]] = pgpu.binary mul %scale, %{{.*}} : f32
// CHECK: %[[SC:.*]] = pgpu.splat %[[C]]
// CHECK-DAG: %[[LO:.*]] = arith.constant 2.32830644E-10 : f32
// CHECK-DAG: %[[HI:.*]] = arith.constant 4.2949673E+9 : f32
// CHECK: %[[GE:.*]] = pgpu.cmp ge %scale, %[[LO]] : f32
// CHECK: %[[LE:.*]] = pgpu.cmp le %scale, %[[HI]] : f32
// CHECK: %[[OK:.*]] = pgpu.binary and %[[GE]], %[[LE]] : i1
// CHECK: %[[M:.*]] = pgpu.if %[[OK]] -> !pgpu.fragment<f32, [16]> {
// CHECK: %[[R:.*]] = pgpu.reduce %[[X:[^ ]+]] axes [1]
// CHECK: %[[CB:.*]] = pgpu.splat %[[C]] : f32 -> !pgpu.fragment<f32, [16]>
// CHECK: %[[F:.*]] = pgpu.binary mul %[[R]], %[[CB]]
// CHECK: pgpu.yield %[[F]]
// CHECK: } else {
// CHECK: %[[P:.*]] = pgpu.binary mul %[[X]], %[[SC]]
// CHECK: %[[K:.*]] = pgpu.reduce %[[P]] axes [1]
// CHECK: pgpu.yield %[[K]]
// CHECK: }
// CHECK: %[[S:.*]] = pgpu.binary mul %[[X]], %[[SC]]
// CHECK: pgpu.broadcast %[[M]]
// CHECK: pgpu.binary sub %[[S]],
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @scalar_factor(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %scale: f32, %other: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %l2e = arith.constant 1.44269502 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %c = pgpu.binary mul %scale, %l2e : f32
      %sc = pgpu.splat %c : f32 -> !pgpu.fragment<f32, [16, 16]>
      %s = pgpu.binary mul %x, %sc : !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{pgpu-factor-reductions: the max of a product with a scalar factor c is the max of the other factor times c where the kernel scalar it scales lies in [2^-32, 2^32]}}
      %m = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary max %a, %b : f32
        pgpu.yield %o : f32
      }
      %mb = pgpu.broadcast %m dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %s, %mb : !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.unary exp2 %d : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Lanes a select sets to the identity (masked scores) stay the identity both ways (-inf * c = -inf):
// COM: the factored side reduces the selects around the unscaled scores.
// CHECK-LABEL: pgpu.kernel @masked
// CHECK: pgpu.if %{{.*}} -> !pgpu.fragment<f32, [16]> {
// CHECK: %[[W:.*]] = pgpu.select %[[MASK:[^ ]+]], %[[X:[^ ]+]], %[[NI:[^ ]+]] :
// CHECK: pgpu.reduce %[[W]] axes [1]
// CHECK: } else {
// CHECK: %[[P:.*]] = pgpu.binary mul %[[X]],
// CHECK: %[[W2:.*]] = pgpu.select %[[MASK]], %[[P]], %[[NI]] :
// CHECK: pgpu.reduce %[[W2]] axes [1]
// CHECK: }
// CHECK-NOT: pgpu.select %[[MASK]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @masked(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %scale: f32, %other: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %l2e = arith.constant 1.44269502 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %c = pgpu.binary mul %scale, %l2e : f32
      %sc = pgpu.splat %c : f32 -> !pgpu.fragment<f32, [16, 16]>
      %s = pgpu.binary mul %x, %sc : !pgpu.fragment<f32, [16, 16]>
      %mask = pgpu.cmp le %ii, %jj : !pgpu.fragment<index, [16, 16]>
      %ni = pgpu.splat %ninf : f32 -> !pgpu.fragment<f32, [16, 16]>
      %w = pgpu.select %mask, %s, %ni : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{pgpu-factor-reductions: the max of a product}}
      %m = pgpu.reduce %w axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary max %a, %b : f32
        pgpu.yield %o : f32
      }
      %mb = pgpu.broadcast %m dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %s, %mb : !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.unary exp2 %d : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A positive finite constant factor is decided here: the factored form alone, no branch.
// CHECK-LABEL: pgpu.kernel @constant_factor
// CHECK-NOT: pgpu.if
// CHECK: %[[R:.*]] = pgpu.reduce %[[X:[^ ]+]] axes [1]
// CHECK: pgpu.binary mul %[[R]],
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @constant_factor(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %scale: f32, %other: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %l2e = arith.constant 1.44269502 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %c = arith.constant 0.125 : f32
      %sc = pgpu.splat %c : f32 -> !pgpu.fragment<f32, [16, 16]>
      %s = pgpu.binary mul %x, %sc : !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{pgpu-factor-reductions: the max of a product with a positive finite constant is the max of the other factor times it}}
      %m = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary max %a, %b : f32
        pgpu.yield %o : f32
      }
      %mb = pgpu.broadcast %m dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %s, %mb : !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.unary exp2 %d : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the product has no other use (one multiplication a lane either way).
// CHECK-LABEL: pgpu.kernel @one_use
// CHECK-NOT: pgpu.if
// CHECK: %[[S:.*]] = pgpu.binary mul %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [16, 16]>
// CHECK-NEXT: pgpu.reduce %[[S]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @one_use(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %scale: f32, %other: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %l2e = arith.constant 1.44269502 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %c = pgpu.binary mul %scale, %l2e : f32
      %sc = pgpu.splat %c : f32 -> !pgpu.fragment<f32, [16, 16]>
      %s = pgpu.binary mul %x, %sc : !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{the scalar factor stays inside this max: the product has no other use}}
      %m = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary max %a, %b : f32
        pgpu.yield %o : f32
      }
      %mb = pgpu.broadcast %m dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %x, %mb : !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.unary exp2 %d : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a constant factor that is not positive (the order reverses).
// CHECK-LABEL: pgpu.kernel @negative_constant
// CHECK-NOT: pgpu.if
// CHECK: %[[S:.*]] = pgpu.binary mul %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [16, 16]>
// CHECK-NEXT: pgpu.reduce %[[S]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @negative_constant(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %scale: f32, %other: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %l2e = arith.constant 1.44269502 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %c = arith.constant -0.125 : f32
      %sc = pgpu.splat %c : f32 -> !pgpu.fragment<f32, [16, 16]>
      %s = pgpu.binary mul %x, %sc : !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{its constant factor is not positive and finite}}
      %m = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary max %a, %b : f32
        pgpu.yield %o : f32
      }
      %mb = pgpu.broadcast %m dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %s, %mb : !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.unary exp2 %d : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a factor of two kernel scalars (the window on one says nothing of the product).
// CHECK-LABEL: pgpu.kernel @two_scalars
// CHECK-NOT: pgpu.if
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @two_scalars(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %scale: f32, %other: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %l2e = arith.constant 1.44269502 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %c = pgpu.binary mul %scale, %other : f32
      %sc = pgpu.splat %c : f32 -> !pgpu.fragment<f32, [16, 16]>
      %s = pgpu.binary mul %x, %sc : !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{its scalar factor multiplies two kernel scalars}}
      %m = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary max %a, %b : f32
        pgpu.yield %o : f32
      }
      %mb = pgpu.broadcast %m dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %s, %mb : !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.unary exp2 %d : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a factor computed from data is not known at launch (a branch in the kernel would
// COM: gain nothing).
// CHECK-LABEL: pgpu.kernel @data_factor
// CHECK-NOT: pgpu.if
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @data_factor(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %scale: f32, %other: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %l2e = arith.constant 1.44269502 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %r0 = pgpu.reduce %x axes [0, 1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary add %a, %b : f32
        pgpu.yield %o : f32
      }
      %c = pgpu.binary mul %r0, %l2e : f32
      %sc = pgpu.splat %c : f32 -> !pgpu.fragment<f32, [16, 16]>
      %s = pgpu.binary mul %x, %sc : !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{its scalar factor is computed in the kernel}}
      %m = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary max %a, %b : f32
        pgpu.yield %o : f32
      }
      %mb = pgpu.broadcast %m dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %s, %mb : !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.unary exp2 %d : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a select whose other side is not the identity (0 * c is not 0 where c is inf, and
// COM: the select's lanes would not scale alike anyway): nothing to say.
// CHECK-LABEL: pgpu.kernel @zero_fill
// CHECK-NOT: pgpu.if
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @zero_fill(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %scale: f32, %other: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %l2e = arith.constant 1.44269502 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %c = pgpu.binary mul %scale, %l2e : f32
      %sc = pgpu.splat %c : f32 -> !pgpu.fragment<f32, [16, 16]>
      %s = pgpu.binary mul %x, %sc : !pgpu.fragment<f32, [16, 16]>
      %mask = pgpu.cmp le %ii, %jj : !pgpu.fragment<index, [16, 16]>
      %zf = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %w = pgpu.select %mask, %s, %zf : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<f32, [16, 16]>
      %m = pgpu.reduce %w axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary max %a, %b : f32
        pgpu.yield %o : f32
      }
      %mb = pgpu.broadcast %m dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %s, %mb : !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.unary exp2 %d : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a sum (a scaled sum is not the sum scaled, under rounding).
// CHECK-LABEL: pgpu.kernel @sum
// CHECK-NOT: pgpu.if
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @sum(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %scale: f32, %other: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %l2e = arith.constant 1.44269502 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %c = pgpu.binary mul %scale, %l2e : f32
      %sc = pgpu.splat %c : f32 -> !pgpu.fragment<f32, [16, 16]>
      %s = pgpu.binary mul %x, %sc : !pgpu.fragment<f32, [16, 16]>
      %m = pgpu.reduce %s axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary add %a, %b : f32
        pgpu.yield %o : f32
      }
      %mb = pgpu.broadcast %m dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %s, %mb : !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.unary exp2 %d : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: an identity other than the combine's (the factored side would scale it).
// CHECK-LABEL: pgpu.kernel @finite_identity
// CHECK-NOT: pgpu.if
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @finite_identity(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>, %scale: f32, %other: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %l2e = arith.constant 1.44269502 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %c = pgpu.binary mul %scale, %l2e : f32
      %sc = pgpu.splat %c : f32 -> !pgpu.fragment<f32, [16, 16]>
      %s = pgpu.binary mul %x, %sc : !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{its identity is not the combine's}}
      %m = pgpu.reduce %s axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %b: f32):
        %o = pgpu.binary max %a, %b : f32
        pgpu.yield %o : f32
      }
      %mb = pgpu.broadcast %m dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %s, %mb : !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.unary exp2 %d : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}
