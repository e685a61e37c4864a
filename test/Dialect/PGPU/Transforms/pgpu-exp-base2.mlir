// RUN: tessel-opt %s -split-input-file -pgpu-exp-base2 -verify-diagnostics | FileCheck %s

// COM: The scores, their maxima and the carried maximum form one reference domain, entered at the
// COM: multiplication by the scalar `scale` and left only through exponentiated differences: under
// COM: relaxed_normalization the factor becomes scale * log2(e) and every exp of a difference exp2
// COM: (seed 002 §4). Nothing else in the loop changes.
// CHECK-LABEL: pgpu.kernel @base2
// CHECK: %[[L2E:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[F:.*]] = pgpu.binary mul %{{.*}}, %[[L2E]] : f32
// CHECK: %[[SF:.*]] = pgpu.splat %[[F]]
// CHECK: pgpu.binary mul %{{.*}}, %[[SF]]
// CHECK-COUNT-3: pgpu.unary exp2
// CHECK-NOT: pgpu.unary exp
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @base2(%qv: !pgpu.view<f16, [16, 16], in>, %kv: !pgpu.view<f16, [64, 16], in>, %vv: !pgpu.view<f16, [64, 16], in>,
                 %ov: !pgpu.view<f32, [16, 16], out>, %scale: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %q = pgpu.load %qv[%ii, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
      %m0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r:3 = pgpu.for %c0 to %c64 step %c16 iter_args(%m0, %m0, %a0 : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%t: index, %m: !pgpu.fragment<f32, [16]>, %l: !pgpu.fragment<f32, [16]>, %acc: !pgpu.fragment<f32, [16, 16]>):
        %k = pgpu.iota %t : !pgpu.fragment<index, [16]>
        %kk = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %kr = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %kt = pgpu.load %kv[%kk, %ii] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [64, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %v = pgpu.load %vv[%kr, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [64, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
        %raw = pgpu.contract %q, %kt, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %sc = pgpu.splat %scale : f32 -> !pgpu.fragment<f32, [16, 16]>
        %s = pgpu.binary mul %raw, %sc : !pgpu.fragment<f32, [16, 16]>
        %mt = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%x: f32, %y: f32):
          %o = pgpu.binary max %x, %y : f32
          pgpu.yield %o : f32
        }
        %mtb = pgpu.broadcast %mt dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %d = pgpu.binary sub %s, %mtb : !pgpu.fragment<f32, [16, 16]>
        // expected-remark@+1 {{pgpu-exp-base2: 3 exponential(s) of a}}
        %e = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
        %lt = pgpu.reduce %e axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%x: f32, %y: f32):
          %o = pgpu.binary add %x, %y : f32
          pgpu.yield %o : f32
        }
        %eh = pgpu.cast %e : !pgpu.fragment<f32, [16, 16]> to !pgpu.fragment<f16, [16, 16]>
        %pv = pgpu.contract %eh, %v, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %mn = pgpu.binary max %m, %mt : !pgpu.fragment<f32, [16]>
        %d1 = pgpu.binary sub %m, %mn : !pgpu.fragment<f32, [16]>
        %w1 = pgpu.unary exp %d1 : !pgpu.fragment<f32, [16]>
        %d2 = pgpu.binary sub %mt, %mn : !pgpu.fragment<f32, [16]>
        %w2 = pgpu.unary exp %d2 : !pgpu.fragment<f32, [16]>
        %l1 = pgpu.binary mul %l, %w1 : !pgpu.fragment<f32, [16]>
        %l2 = pgpu.binary mul %lt, %w2 : !pgpu.fragment<f32, [16]>
        %ln = pgpu.binary add %l1, %l2 : !pgpu.fragment<f32, [16]>
        %w1b = pgpu.broadcast %w1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %w2b = pgpu.broadcast %w2 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %x1 = pgpu.binary mul %acc, %w1b : !pgpu.fragment<f32, [16, 16]>
        %x2 = pgpu.binary mul %pv, %w2b : !pgpu.fragment<f32, [16, 16]>
        %an = pgpu.binary add %x1, %x2 : !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %mn, %ln, %an : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>
      }
      %lb = pgpu.broadcast %r#1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.binary div %r#2, %lb : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return

  }
}

// -----

// COM: Must not fire: numerics = source.
// CHECK-LABEL: pgpu.kernel @source_numerics
// CHECK-NOT: pgpu.unary exp2
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @source_numerics(%qv: !pgpu.view<f16, [16, 16], in>, %kv: !pgpu.view<f16, [64, 16], in>, %vv: !pgpu.view<f16, [64, 16], in>,
                 %ov: !pgpu.view<f32, [16, 16], out>, %scale: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %q = pgpu.load %qv[%ii, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
      %m0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r:3 = pgpu.for %c0 to %c64 step %c16 iter_args(%m0, %m0, %a0 : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%t: index, %m: !pgpu.fragment<f32, [16]>, %l: !pgpu.fragment<f32, [16]>, %acc: !pgpu.fragment<f32, [16, 16]>):
        %k = pgpu.iota %t : !pgpu.fragment<index, [16]>
        %kk = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %kr = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %kt = pgpu.load %kv[%kk, %ii] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [64, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %v = pgpu.load %vv[%kr, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [64, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
        %raw = pgpu.contract %q, %kt, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %sc = pgpu.splat %scale : f32 -> !pgpu.fragment<f32, [16, 16]>
        %s = pgpu.binary mul %raw, %sc : !pgpu.fragment<f32, [16, 16]>
        %mt = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%x: f32, %y: f32):
          %o = pgpu.binary max %x, %y : f32
          pgpu.yield %o : f32
        }
        %mtb = pgpu.broadcast %mt dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %d = pgpu.binary sub %s, %mtb : !pgpu.fragment<f32, [16, 16]>
        // expected-remark@+1 {{needs numerics = relaxed_normalization}}
        %e = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
        %lt = pgpu.reduce %e axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%x: f32, %y: f32):
          %o = pgpu.binary add %x, %y : f32
          pgpu.yield %o : f32
        }
        %eh = pgpu.cast %e : !pgpu.fragment<f32, [16, 16]> to !pgpu.fragment<f16, [16, 16]>
        %pv = pgpu.contract %eh, %v, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %mn = pgpu.binary max %m, %mt : !pgpu.fragment<f32, [16]>
        %d1 = pgpu.binary sub %m, %mn : !pgpu.fragment<f32, [16]>
        // expected-remark@+1 {{needs numerics = relaxed_normalization}}
        %w1 = pgpu.unary exp %d1 : !pgpu.fragment<f32, [16]>
        %d2 = pgpu.binary sub %mt, %mn : !pgpu.fragment<f32, [16]>
        // expected-remark@+1 {{needs numerics = relaxed_normalization}}
        %w2 = pgpu.unary exp %d2 : !pgpu.fragment<f32, [16]>
        %l1 = pgpu.binary mul %l, %w1 : !pgpu.fragment<f32, [16]>
        %l2 = pgpu.binary mul %lt, %w2 : !pgpu.fragment<f32, [16]>
        %ln = pgpu.binary add %l1, %l2 : !pgpu.fragment<f32, [16]>
        %w1b = pgpu.broadcast %w1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %w2b = pgpu.broadcast %w2 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %x1 = pgpu.binary mul %acc, %w1b : !pgpu.fragment<f32, [16, 16]>
        %x2 = pgpu.binary mul %pv, %w2b : !pgpu.fragment<f32, [16, 16]>
        %an = pgpu.binary add %x1, %x2 : !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %mn, %ln, %an : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>
      }
      %lb = pgpu.broadcast %r#1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.binary div %r#2, %lb : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return

  }
}

// -----

// COM: Must not fire: the carried maximum leaves the domain through a multiplication (its square is
// COM: stored), so the domain cannot be scaled.
// CHECK-LABEL: pgpu.kernel @domain_escapes
// CHECK-NOT: pgpu.unary exp2
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @domain_escapes(%qv: !pgpu.view<f16, [16, 16], in>, %kv: !pgpu.view<f16, [64, 16], in>, %vv: !pgpu.view<f16, [64, 16], in>,
                 %ov: !pgpu.view<f32, [16, 16], out>, %mv: !pgpu.view<f32, [16], out>, %scale: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %q = pgpu.load %qv[%ii, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
      %m0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r:3 = pgpu.for %c0 to %c64 step %c16 iter_args(%m0, %m0, %a0 : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%t: index, %m: !pgpu.fragment<f32, [16]>, %l: !pgpu.fragment<f32, [16]>, %acc: !pgpu.fragment<f32, [16, 16]>):
        %k = pgpu.iota %t : !pgpu.fragment<index, [16]>
        %kk = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %kr = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %kt = pgpu.load %kv[%kk, %ii] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [64, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %v = pgpu.load %vv[%kr, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [64, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
        %raw = pgpu.contract %q, %kt, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %sc = pgpu.splat %scale : f32 -> !pgpu.fragment<f32, [16, 16]>
        %s = pgpu.binary mul %raw, %sc : !pgpu.fragment<f32, [16, 16]>
        %mt = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%x: f32, %y: f32):
          %o = pgpu.binary max %x, %y : f32
          pgpu.yield %o : f32
        }
        %mtb = pgpu.broadcast %mt dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %d = pgpu.binary sub %s, %mtb : !pgpu.fragment<f32, [16, 16]>
        // expected-remark@+1 {{a domain value is used by a 'mul' outside the domain}}
        %e = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
        %lt = pgpu.reduce %e axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%x: f32, %y: f32):
          %o = pgpu.binary add %x, %y : f32
          pgpu.yield %o : f32
        }
        %eh = pgpu.cast %e : !pgpu.fragment<f32, [16, 16]> to !pgpu.fragment<f16, [16, 16]>
        %pv = pgpu.contract %eh, %v, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %mn = pgpu.binary max %m, %mt : !pgpu.fragment<f32, [16]>
        %d1 = pgpu.binary sub %m, %mn : !pgpu.fragment<f32, [16]>
        %w1 = pgpu.unary exp %d1 : !pgpu.fragment<f32, [16]>
        %d2 = pgpu.binary sub %mt, %mn : !pgpu.fragment<f32, [16]>
        %w2 = pgpu.unary exp %d2 : !pgpu.fragment<f32, [16]>
        %l1 = pgpu.binary mul %l, %w1 : !pgpu.fragment<f32, [16]>
        %l2 = pgpu.binary mul %lt, %w2 : !pgpu.fragment<f32, [16]>
        %ln = pgpu.binary add %l1, %l2 : !pgpu.fragment<f32, [16]>
        %w1b = pgpu.broadcast %w1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %w2b = pgpu.broadcast %w2 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %x1 = pgpu.binary mul %acc, %w1b : !pgpu.fragment<f32, [16, 16]>
        %x2 = pgpu.binary mul %pv, %w2b : !pgpu.fragment<f32, [16, 16]>
        %an = pgpu.binary add %x1, %x2 : !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %mn, %ln, %an : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>
      }
      %lb = pgpu.broadcast %r#1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.binary div %r#2, %lb : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      %sq = pgpu.binary mul %r#0, %r#0 : !pgpu.fragment<f32, [16]>
      pgpu.store %sq, %mv[%i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [16], out>[!pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return

  }
}

// -----

// COM: The carried maximum is stored after the loop: it leaves the domain through the store, which
// COM: writes it unscaled (multiplied by ln 2 = 1 / log2(e) first); the exponentials are base 2.
// CHECK-LABEL: pgpu.kernel @stored_exit
// CHECK: pgpu.unary exp2
// CHECK: %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK: %[[LN2S:.*]] = pgpu.splat %[[LN2]] : f32 -> !pgpu.fragment<f32, [16]>
// CHECK: %[[UNSCALED:.*]] = pgpu.binary mul %{{.*}}#0, %[[LN2S]] : !pgpu.fragment<f32, [16]>
// CHECK: pgpu.store %[[UNSCALED]], %mv
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @stored_exit(%qv: !pgpu.view<f16, [16, 16], in>, %kv: !pgpu.view<f16, [64, 16], in>, %vv: !pgpu.view<f16, [64, 16], in>,
                 %ov: !pgpu.view<f32, [16, 16], out>, %mv: !pgpu.view<f32, [16], out>, %scale: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %q = pgpu.load %qv[%ii, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
      %m0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r:3 = pgpu.for %c0 to %c64 step %c16 iter_args(%m0, %m0, %a0 : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%t: index, %m: !pgpu.fragment<f32, [16]>, %l: !pgpu.fragment<f32, [16]>, %acc: !pgpu.fragment<f32, [16, 16]>):
        %k = pgpu.iota %t : !pgpu.fragment<index, [16]>
        %kk = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %kr = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %kt = pgpu.load %kv[%kk, %ii] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [64, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %v = pgpu.load %vv[%kr, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [64, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
        %raw = pgpu.contract %q, %kt, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %sc = pgpu.splat %scale : f32 -> !pgpu.fragment<f32, [16, 16]>
        %s = pgpu.binary mul %raw, %sc : !pgpu.fragment<f32, [16, 16]>
        %mt = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%x: f32, %y: f32):
          %o = pgpu.binary max %x, %y : f32
          pgpu.yield %o : f32
        }
        %mtb = pgpu.broadcast %mt dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %d = pgpu.binary sub %s, %mtb : !pgpu.fragment<f32, [16, 16]>
        // expected-remark@+1 {{pgpu-exp-base2: 3 exponential(s)}}
        %e = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
        %lt = pgpu.reduce %e axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%x: f32, %y: f32):
          %o = pgpu.binary add %x, %y : f32
          pgpu.yield %o : f32
        }
        %eh = pgpu.cast %e : !pgpu.fragment<f32, [16, 16]> to !pgpu.fragment<f16, [16, 16]>
        %pv = pgpu.contract %eh, %v, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %mn = pgpu.binary max %m, %mt : !pgpu.fragment<f32, [16]>
        %d1 = pgpu.binary sub %m, %mn : !pgpu.fragment<f32, [16]>
        %w1 = pgpu.unary exp %d1 : !pgpu.fragment<f32, [16]>
        %d2 = pgpu.binary sub %mt, %mn : !pgpu.fragment<f32, [16]>
        %w2 = pgpu.unary exp %d2 : !pgpu.fragment<f32, [16]>
        %l1 = pgpu.binary mul %l, %w1 : !pgpu.fragment<f32, [16]>
        %l2 = pgpu.binary mul %lt, %w2 : !pgpu.fragment<f32, [16]>
        %ln = pgpu.binary add %l1, %l2 : !pgpu.fragment<f32, [16]>
        %w1b = pgpu.broadcast %w1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %w2b = pgpu.broadcast %w2 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %x1 = pgpu.binary mul %acc, %w1b : !pgpu.fragment<f32, [16, 16]>
        %x2 = pgpu.binary mul %pv, %w2b : !pgpu.fragment<f32, [16, 16]>
        %an = pgpu.binary add %x1, %x2 : !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %mn, %ln, %an : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>
      }
      %lb = pgpu.broadcast %r#1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.binary div %r#2, %lb : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.store %r#0, %mv[%i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [16], out>[!pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return

  }
}

// -----

// COM: A sum joins the domain (L * (a + b) = L * a + L * b): the scaled scores plus a loaded bias. The
// COM: bias is a fragment leaf (scaling it would cost a multiplication per element), so the domain
// COM: stays unscaled (scale * x + bias: one multiply-add) and log2(e) joins the exponentiated
// COM: difference: the row maximum is scaled before its broadcast and the scores' multiplication
// COM: fuses with the subtraction (the difference form). The bias's store keeps its value.
// CHECK-LABEL: pgpu.kernel @biased
// CHECK: %[[B:.*]] = pgpu.cast %{{.*}} : !pgpu.fragment<f16, [16, 16]> to !pgpu.fragment<f32, [16, 16]>
// CHECK-NOT: 1.44269502
// CHECK: %[[XS:.*]] = pgpu.binary mul %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [16, 16]>
// CHECK: %[[S:.*]] = pgpu.binary add %[[XS]], %[[B]]
// CHECK: %[[MT:.*]] = pgpu.reduce %[[S]]
// CHECK: %[[L:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[LS:.*]] = pgpu.splat %[[L]] : f32 -> !pgpu.fragment<f32, [16, 16]>
// CHECK: %[[SL:.*]] = pgpu.binary mul %[[S]], %[[LS]]
// CHECK: %[[ML:.*]] = pgpu.binary mul %[[MT]], %{{.*}} : !pgpu.fragment<f32, [16]>
// CHECK: %[[MLB:.*]] = pgpu.broadcast %[[ML]] dims [0]
// CHECK: %[[D:.*]] = pgpu.binary sub %[[SL]], %[[MLB]]
// CHECK: pgpu.unary exp2 %[[D]]
// CHECK: pgpu.store %[[B]], %bv
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @biased(%xv: !pgpu.view<f32, [16, 16], in>, %hv: !pgpu.view<f16, [16, 16], in>,
                      %ov: !pgpu.view<f32, [16, 16], out>, %bv: !pgpu.view<f32, [16, 16], out>, %scale: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %h = pgpu.load %hv[%ii, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
      %b = pgpu.cast %h : !pgpu.fragment<f16, [16, 16]> to !pgpu.fragment<f32, [16, 16]>
      %sc = pgpu.splat %scale : f32 -> !pgpu.fragment<f32, [16, 16]>
      %xs = pgpu.binary mul %x, %sc : !pgpu.fragment<f32, [16, 16]>
      %s = pgpu.binary add %xs, %b : !pgpu.fragment<f32, [16, 16]>
      %mt = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %c: f32):
        %o = pgpu.binary max %a, %c : f32
        pgpu.yield %o : f32
      }
      %mtb = pgpu.broadcast %mt dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %s, %mtb : !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{pgpu-exp-base2: 1 exponential(s) of a 4-value reference domain in base 2; log2(e) joins each exponentiated difference (a fragment leaf would cost a multiplication per element; 1 leaf value(s) and the domain stay unscaled)}}
      %e = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %e, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.store %b, %bv[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: With no factor at all (exp(x - max x) of a loaded row), the row itself is a fragment leaf: the
// COM: difference form, x * L - broadcast(max * L), one multiply-add per element.
// CHECK-LABEL: pgpu.kernel @leaf_only
// CHECK: %[[X:.*]] = pgpu.load
// CHECK: %[[MT:.*]] = pgpu.reduce %[[X]]
// CHECK: %[[XL:.*]] = pgpu.binary mul %[[X]], %{{.*}}
// CHECK: %[[ML:.*]] = pgpu.binary mul %[[MT]], %{{.*}}
// CHECK: %[[MLB:.*]] = pgpu.broadcast %[[ML]]
// CHECK: pgpu.binary sub %[[XL]], %[[MLB]]
// CHECK: pgpu.unary exp2
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @leaf_only(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %mt = pgpu.reduce %x axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %c: f32):
        %o = pgpu.binary max %a, %c : f32
        pgpu.yield %o : f32
      }
      %mtb = pgpu.broadcast %mt dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %x, %mtb : !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{log2(e) joins each exponentiated difference}}
      %e = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %e, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the biased scores are also multiplied by a value of no domain (a sum joins the
// COM: domain, a product with a non-factor does not), so the domain is not closed.
// CHECK-LABEL: pgpu.kernel @sum_escapes
// CHECK-NOT: pgpu.unary exp2
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @sum_escapes(%xv: !pgpu.view<f32, [16, 16], in>, %yv: !pgpu.view<f32, [16, 16], in>,
                           %ov: !pgpu.view<f32, [16, 16], out>, %wv: !pgpu.view<f32, [16, 16], out>, %scale: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %y = pgpu.load %yv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %sc = pgpu.splat %scale : f32 -> !pgpu.fragment<f32, [16, 16]>
      %xs = pgpu.binary mul %x, %sc : !pgpu.fragment<f32, [16, 16]>
      %s = pgpu.binary add %xs, %y : !pgpu.fragment<f32, [16, 16]>
      %w = pgpu.binary mul %s, %y : !pgpu.fragment<f32, [16, 16]>
      %mt = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %c: f32):
        %o = pgpu.binary max %a, %c : f32
        pgpu.yield %o : f32
      }
      %mtb = pgpu.broadcast %mt dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %s, %mtb : !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{pgpu-exp-base2: exp stays base e: a domain value is used by a 'mul' outside the domain}}
      %e = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %e, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.store %w, %wv[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: The difference form where neither operand is a broadcast (a row's weight exp(m - max(m, c))
// COM: next to exp(x - broadcast m) of a loaded row): the difference is multiplied by log2(e) after it;
// COM: the constant it meets stays unscaled (the domain is).
// CHECK-LABEL: pgpu.kernel @rows_difference
// CHECK: %[[MT:.*]] = pgpu.reduce
// CHECK: %[[MN:.*]] = pgpu.binary max %[[MT]], %{{.*}} : !pgpu.fragment<f32, [16]>
// CHECK: %[[D1:.*]] = pgpu.binary sub %[[MT]], %[[MN]] : !pgpu.fragment<f32, [16]>
// CHECK: %[[L:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[LS:.*]] = pgpu.splat %[[L]] : f32 -> !pgpu.fragment<f32, [16]>
// CHECK: %[[W:.*]] = pgpu.binary mul %[[D1]], %[[LS]] : !pgpu.fragment<f32, [16]>
// CHECK: pgpu.unary exp2 %[[W]]
// CHECK-NOT: pgpu.unary exp %
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @rows_difference(%xv: !pgpu.view<f32, [16, 16], in>, %ov: !pgpu.view<f32, [16, 16], out>,
                               %wv: !pgpu.view<f32, [16], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %half = arith.constant 0.5 : f32
    %ninf = arith.constant 0xFF800000 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %x = pgpu.load %xv[%ii, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
      %mt = pgpu.reduce %x axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
      ^bb0(%a: f32, %c: f32):
        %o = pgpu.binary max %a, %c : f32
        pgpu.yield %o : f32
      }
      %h = pgpu.splat %half : f32 -> !pgpu.fragment<f32, [16]>
      %mn = pgpu.binary max %mt, %h : !pgpu.fragment<f32, [16]>
      %mtb = pgpu.broadcast %mt dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %d = pgpu.binary sub %x, %mtb : !pgpu.fragment<f32, [16, 16]>
      // expected-remark@+1 {{pgpu-exp-base2: 2 exponential(s) of a}}
      %e = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
      %d1 = pgpu.binary sub %mt, %mn : !pgpu.fragment<f32, [16]>
      %w = pgpu.unary exp %d1 : !pgpu.fragment<f32, [16]>
      pgpu.store %e, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      pgpu.store %w, %wv[%i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [16], out>[!pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: An attention's row logsumexp m + log(l) after the key loop: the sum joins the domain and the
// COM: row's log(l) is a fragment leaf, but it lies outside the loop that holds the exponentials, so
// COM: it is scaled once per row (not per score) and the domain keeps the scaled form: the factor is
// COM: scale * log2(e), the exponentials take the scaled differences as they are, and the stored sum
// COM: is multiplied by ln 2 (memory holds m + log(l)).
// CHECK-LABEL: pgpu.kernel @logsumexp_after_loop
// CHECK: %[[L:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[SL:.*]] = pgpu.binary mul %scale, %[[L]] : f32
// CHECK: pgpu.splat %[[SL]] : f32 -> !pgpu.fragment<f32, [16, 16]>
// CHECK-NOT: 1.44269502
// CHECK: %[[D:.*]] = pgpu.binary sub %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [16, 16]>
// CHECK-NEXT: pgpu.unary exp2 %[[D]]
// CHECK: } 
// CHECK: %[[LOG:.*]] = pgpu.unary log %{{.*}}#1
// CHECK: %[[LOGL:.*]] = pgpu.binary mul %[[LOG]], %{{.*}} : !pgpu.fragment<f32, [16]>
// CHECK: %[[SUM:.*]] = pgpu.binary add %{{.*}}#0, %[[LOGL]]
// CHECK: %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK: %[[LN2S:.*]] = pgpu.splat %[[LN2]]
// CHECK: %[[UNSCALED:.*]] = pgpu.binary mul %[[SUM]], %[[LN2S]]
// CHECK: pgpu.store %[[UNSCALED]], %mv
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @logsumexp_after_loop(%qv: !pgpu.view<f16, [16, 16], in>, %kv: !pgpu.view<f16, [64, 16], in>, %vv: !pgpu.view<f16, [64, 16], in>,
                 %ov: !pgpu.view<f32, [16, 16], out>, %mv: !pgpu.view<f32, [16], out>, %scale: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %q = pgpu.load %qv[%ii, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
      %m0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r:3 = pgpu.for %c0 to %c64 step %c16 iter_args(%m0, %m0, %a0 : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%t: index, %m: !pgpu.fragment<f32, [16]>, %l: !pgpu.fragment<f32, [16]>, %acc: !pgpu.fragment<f32, [16, 16]>):
        %k = pgpu.iota %t : !pgpu.fragment<index, [16]>
        %kk = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %kr = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %kt = pgpu.load %kv[%kk, %ii] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [64, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %v = pgpu.load %vv[%kr, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [64, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
        %raw = pgpu.contract %q, %kt, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %sc = pgpu.splat %scale : f32 -> !pgpu.fragment<f32, [16, 16]>
        %s = pgpu.binary mul %raw, %sc : !pgpu.fragment<f32, [16, 16]>
        %mt = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%x: f32, %y: f32):
          %o = pgpu.binary max %x, %y : f32
          pgpu.yield %o : f32
        }
        %mtb = pgpu.broadcast %mt dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %d = pgpu.binary sub %s, %mtb : !pgpu.fragment<f32, [16, 16]>
        // expected-remark@+1 {{pgpu-exp-base2: 3 exponential(s) of a 8-value reference domain in base 2; the domain scaled by log2(e) at 1 scalar factor(s) and 1 leaf value(s)}}
        %e = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
        %lt = pgpu.reduce %e axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%x: f32, %y: f32):
          %o = pgpu.binary add %x, %y : f32
          pgpu.yield %o : f32
        }
        %eh = pgpu.cast %e : !pgpu.fragment<f32, [16, 16]> to !pgpu.fragment<f16, [16, 16]>
        %pv = pgpu.contract %eh, %v, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %mn = pgpu.binary max %m, %mt : !pgpu.fragment<f32, [16]>
        %d1 = pgpu.binary sub %m, %mn : !pgpu.fragment<f32, [16]>
        %w1 = pgpu.unary exp %d1 : !pgpu.fragment<f32, [16]>
        %d2 = pgpu.binary sub %mt, %mn : !pgpu.fragment<f32, [16]>
        %w2 = pgpu.unary exp %d2 : !pgpu.fragment<f32, [16]>
        %l1 = pgpu.binary mul %l, %w1 : !pgpu.fragment<f32, [16]>
        %l2 = pgpu.binary mul %lt, %w2 : !pgpu.fragment<f32, [16]>
        %ln = pgpu.binary add %l1, %l2 : !pgpu.fragment<f32, [16]>
        %w1b = pgpu.broadcast %w1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %w2b = pgpu.broadcast %w2 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %x1 = pgpu.binary mul %acc, %w1b : !pgpu.fragment<f32, [16, 16]>
        %x2 = pgpu.binary mul %pv, %w2b : !pgpu.fragment<f32, [16, 16]>
        %an = pgpu.binary add %x1, %x2 : !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %mn, %ln, %an : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>
      }
      %lb = pgpu.broadcast %r#1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.binary div %r#2, %lb : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      %logl = pgpu.unary log %r#1 : !pgpu.fragment<f32, [16]>
      %lse = pgpu.binary add %r#0, %logl : !pgpu.fragment<f32, [16]>
      pgpu.store %lse, %mv[%i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [16], out>[!pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return

  }
}

// -----

// COM: Must not take the scaled form: next to the logsumexp's leaf after the loop, a bias loaded in the
// COM: key loop is a fragment leaf that runs as often as the exponentials (scaling it would cost a
// COM: multiplication per score), so the difference form stays and the stored sum is unchanged.
// CHECK-LABEL: pgpu.kernel @logsumexp_bias_in_loop
// CHECK-NOT: 0.693147182
// CHECK: %[[XS:.*]] = pgpu.binary mul %{{.*}}, %{{.*}} : !pgpu.fragment<f32, [16, 16]>
// CHECK: %[[S:.*]] = pgpu.binary add %[[XS]], %{{.*}} : !pgpu.fragment<f32, [16, 16]>
// CHECK: pgpu.unary exp2
// CHECK-NOT: 0.693147182
// CHECK: %[[LOG:.*]] = pgpu.unary log %{{.*}}#1
// CHECK-NEXT: %[[SUM:.*]] = pgpu.binary add %{{.*}}#0, %[[LOG]]
// CHECK-NEXT: pgpu.store %[[SUM]], %mv
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @logsumexp_bias_in_loop(%qv: !pgpu.view<f16, [16, 16], in>, %kv: !pgpu.view<f16, [64, 16], in>, %vv: !pgpu.view<f16, [64, 16], in>,
                 %ov: !pgpu.view<f32, [16, 16], out>, %bv: !pgpu.view<f32, [64, 16], in>, %mv: !pgpu.view<f32, [16], out>, %scale: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %true = arith.constant true
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ii = pgpu.broadcast %i dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %jj = pgpu.broadcast %i dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
      %q = pgpu.load %qv[%ii, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [16, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
      %m0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
      %a0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
      %r:3 = pgpu.for %c0 to %c64 step %c16 iter_args(%m0, %m0, %a0 : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>) -> !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]> {
      ^bb0(%t: index, %m: !pgpu.fragment<f32, [16]>, %l: !pgpu.fragment<f32, [16]>, %acc: !pgpu.fragment<f32, [16, 16]>):
        %k = pgpu.iota %t : !pgpu.fragment<index, [16]>
        %kk = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %kr = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [16]> -> !pgpu.fragment<index, [16, 16]>
        %kt = pgpu.load %kv[%kk, %ii] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [64, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %v = pgpu.load %vv[%kr, %jj] valid %true : i1 fill %zh : f16 : !pgpu.view<f16, [64, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f16, [16, 16]>
        %z = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16, 16]>
        %raw = pgpu.contract %q, %kt, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %sc = pgpu.splat %scale : f32 -> !pgpu.fragment<f32, [16, 16]>
        %xs = pgpu.binary mul %raw, %sc : !pgpu.fragment<f32, [16, 16]>
        %bias = pgpu.load %bv[%kr, %jj] valid %true : i1 fill %zero : f32 : !pgpu.view<f32, [64, 16], in>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>] -> !pgpu.fragment<f32, [16, 16]>
        %s = pgpu.binary add %xs, %bias : !pgpu.fragment<f32, [16, 16]>
        %mt = pgpu.reduce %s axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%x: f32, %y: f32):
          %o = pgpu.binary max %x, %y : f32
          pgpu.yield %o : f32
        }
        %mtb = pgpu.broadcast %mt dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %d = pgpu.binary sub %s, %mtb : !pgpu.fragment<f32, [16, 16]>
        // expected-remark@+1 {{pgpu-exp-base2: 3 exponential(s) of a 9-value reference domain in base 2; log2(e) joins each exponentiated difference (a fragment leaf would cost a multiplication per element; 2 leaf value(s) and the domain stay unscaled)}}
        %e = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
        %lt = pgpu.reduce %e axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [16, 16]>) -> (!pgpu.fragment<f32, [16]>) {
        ^bb0(%x: f32, %y: f32):
          %o = pgpu.binary add %x, %y : f32
          pgpu.yield %o : f32
        }
        %eh = pgpu.cast %e : !pgpu.fragment<f32, [16, 16]> to !pgpu.fragment<f16, [16, 16]>
        %pv = pgpu.contract %eh, %v, %z reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f16, [16, 16]>, !pgpu.fragment<f32, [16, 16]> -> !pgpu.fragment<f32, [16, 16]>
        %mn = pgpu.binary max %m, %mt : !pgpu.fragment<f32, [16]>
        %d1 = pgpu.binary sub %m, %mn : !pgpu.fragment<f32, [16]>
        %w1 = pgpu.unary exp %d1 : !pgpu.fragment<f32, [16]>
        %d2 = pgpu.binary sub %mt, %mn : !pgpu.fragment<f32, [16]>
        %w2 = pgpu.unary exp %d2 : !pgpu.fragment<f32, [16]>
        %l1 = pgpu.binary mul %l, %w1 : !pgpu.fragment<f32, [16]>
        %l2 = pgpu.binary mul %lt, %w2 : !pgpu.fragment<f32, [16]>
        %ln = pgpu.binary add %l1, %l2 : !pgpu.fragment<f32, [16]>
        %w1b = pgpu.broadcast %w1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %w2b = pgpu.broadcast %w2 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %x1 = pgpu.binary mul %acc, %w1b : !pgpu.fragment<f32, [16, 16]>
        %x2 = pgpu.binary mul %pv, %w2b : !pgpu.fragment<f32, [16, 16]>
        %an = pgpu.binary add %x1, %x2 : !pgpu.fragment<f32, [16, 16]>
        pgpu.yield %mn, %ln, %an : !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16]>, !pgpu.fragment<f32, [16, 16]>
      }
      %lb = pgpu.broadcast %r#1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
      %out = pgpu.binary div %r#2, %lb : !pgpu.fragment<f32, [16, 16]>
      pgpu.store %out, %ov[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [16, 16], out>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
      %logl = pgpu.unary log %r#1 : !pgpu.fragment<f32, [16]>
      %lse = pgpu.binary add %r#0, %logl : !pgpu.fragment<f32, [16]>
      pgpu.store %lse, %mv[%i] valid %true : i1 : !pgpu.fragment<f32, [16]>, !pgpu.view<f32, [16], out>[!pgpu.fragment<index, [16]>]
      pgpu.yield
    }
    pgpu.return

  }
}
