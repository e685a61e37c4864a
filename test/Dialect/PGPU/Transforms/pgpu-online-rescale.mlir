// RUN: tessel-opt %s -split-input-file -pgpu-online-rescale -verify-diagnostics | FileCheck %s

// COM: The tile's summary components (its row sum and its P.V contraction) are normalized to the tile
// COM: maximum mt and rescaled by exp(mt - mn) in the combine: under relaxed_normalization the tile is
// COM: exponentiated against mn once and both rescalings disappear (seed 002 §4, online segmented
// COM: rescaling); the carry's own rescaling exp(m - mn) stays.
// CHECK-LABEL: pgpu.kernel @rescale
// CHECK: %[[MT:.*]] = pgpu.reduce
// CHECK: %[[MN:.*]] = pgpu.binary max %{{.*}}, %[[MT]]
// CHECK: %[[W1:.*]] = pgpu.unary exp
// CHECK: %[[L1:.*]] = pgpu.binary mul %{{.*}}, %[[W1]]
// CHECK: %[[MNB:.*]] = pgpu.broadcast %[[MN]] dims [0]
// CHECK: %[[D:.*]] = pgpu.binary sub %{{.*}}, %[[MNB]]
// CHECK: %[[E:.*]] = pgpu.unary exp %[[D]]
// CHECK: %[[LT:.*]] = pgpu.reduce %[[E]]
// CHECK: %[[EH:.*]] = pgpu.cast %[[E]]
// CHECK: %[[PV:.*]] = pgpu.contract %[[EH]]
// CHECK: pgpu.binary add %[[L1]], %[[LT]]
// CHECK: %[[X1:.*]] = pgpu.binary mul
// CHECK: pgpu.binary add %[[X1]], %[[PV]]
// CHECK-NOT: pgpu.unary exp
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @rescale(%qv: !pgpu.view<f16, [16, 16], in>, %kv: !pgpu.view<f16, [64, 16], in>, %vv: !pgpu.view<f16, [64, 16], in>,
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
        // expected-remark@+1 {{pgpu-online-rescale: 2 summary component(s) exponentiated against the combined reference; their rescaling removed}}
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

// COM: Must not fire: numerics = source does not permit the rounding change (remark says so).
// CHECK-LABEL: pgpu.kernel @source_numerics
// CHECK: pgpu.contract
// CHECK: pgpu.contract
// CHECK: pgpu.binary mul {{.*}} : !pgpu.fragment<f32, [16, 16]>
// CHECK: pgpu.binary mul {{.*}} : !pgpu.fragment<f32, [16, 16]>
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
        // expected-remark@+1 {{needs numerics = relaxed_normalization}}
        %l2 = pgpu.binary mul %lt, %w2 : !pgpu.fragment<f32, [16]>
        %ln = pgpu.binary add %l1, %l2 : !pgpu.fragment<f32, [16]>
        %w1b = pgpu.broadcast %w1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %w2b = pgpu.broadcast %w2 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %x1 = pgpu.binary mul %acc, %w1b : !pgpu.fragment<f32, [16, 16]>
        // expected-remark@+1 {{needs numerics = relaxed_normalization}}
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

// COM: Must not fire: the tile's exponentials are also stored, so rescaling them would exponentiate
// COM: the tile twice.
// CHECK-LABEL: pgpu.kernel @shared_exponentials
// CHECK: pgpu.contract
// CHECK: pgpu.contract
// CHECK: pgpu.binary mul {{.*}} : !pgpu.fragment<f32, [16, 16]>
// CHECK: pgpu.binary mul {{.*}} : !pgpu.fragment<f32, [16, 16]>
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @shared_exponentials(%qv: !pgpu.view<f16, [16, 16], in>, %kv: !pgpu.view<f16, [64, 16], in>, %vv: !pgpu.view<f16, [64, 16], in>,
                 %ov: !pgpu.view<f32, [16, 16], out>, %ev: !pgpu.view<f32, [64, 16], inout>, %scale: f32) {
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
        // expected-remark@+1 {{the tile's exponentials have other uses}}
        %l2 = pgpu.binary mul %lt, %w2 : !pgpu.fragment<f32, [16]>
        %ln = pgpu.binary add %l1, %l2 : !pgpu.fragment<f32, [16]>
        %w1b = pgpu.broadcast %w1 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %w2b = pgpu.broadcast %w2 dims [0] : !pgpu.fragment<f32, [16]> -> !pgpu.fragment<f32, [16, 16]>
        %x1 = pgpu.binary mul %acc, %w1b : !pgpu.fragment<f32, [16, 16]>
        %x2 = pgpu.binary mul %pv, %w2b : !pgpu.fragment<f32, [16, 16]>
        %an = pgpu.binary add %x1, %x2 : !pgpu.fragment<f32, [16, 16]>
        pgpu.store %e, %ev[%ii, %jj] valid %true : i1 : !pgpu.fragment<f32, [16, 16]>, !pgpu.view<f32, [64, 16], inout>[!pgpu.fragment<index, [16, 16]>, !pgpu.fragment<index, [16, 16]>]
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

// COM: A tile whose rows may see no visible key: the factor is select(ok, exp(mt - mn), 0) with ok =
// COM: or over the tile of the visibility that also guards the exponentials. Where ok is false the
// COM: component is zero either way, so the new component needs no select and its addition still
// COM: meets the contraction (no [16, 16] select after it).
// CHECK-LABEL: pgpu.kernel @row_guard
// CHECK: %[[EH:.*]] = pgpu.cast
// CHECK: %[[PV:.*]] = pgpu.contract %[[EH]]
// CHECK-NOT: pgpu.select {{.*}} : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<f32, [16, 16]>
// CHECK: pgpu.binary add %{{.*}}, %[[PV]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @row_guard(%qv: !pgpu.view<f16, [16, 16], in>, %kv: !pgpu.view<f16, [64, 16], in>, %vv: !pgpu.view<f16, [64, 16], in>,
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
        %vis = pgpu.cmp le %kk, %ii : !pgpu.fragment<index, [16, 16]>
        %vis2 = pgpu.cmp lt %kk, %ii : !pgpu.fragment<index, [16, 16]>
        %false = arith.constant false
        %okt = pgpu.reduce %vis axes [1] identity(%false : i1) : (!pgpu.fragment<i1, [16, 16]>) -> (!pgpu.fragment<i1, [16]>) {
        ^bb0(%x: i1, %y: i1):
          %o = pgpu.binary or %x, %y : i1
          pgpu.yield %o : i1
        }
        %e0 = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
        %e = pgpu.select %vis, %e0, %z : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<f32, [16, 16]>
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
        %w2e = pgpu.unary exp %d2 : !pgpu.fragment<f32, [16]>
        %z16 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
        %w2 = pgpu.select %okt, %w2e, %z16 : !pgpu.fragment<i1, [16]>, !pgpu.fragment<f32, [16]>
        %l1 = pgpu.binary mul %l, %w1 : !pgpu.fragment<f32, [16]>
        // expected-remark@+1 {{2 summary component(s)}}
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

// COM: A band: the visibility is a conjunction (lo & hi), and ok reduces it under the tile's bounds
// COM: (select(inb, band, false)); the exponentials are guarded by the band and then by the bounds.
// COM: Every conjunct of ok's predicate (vis, lo, inb) is a conjunct of a guard, so the select goes.
// CHECK-LABEL: pgpu.kernel @band_guard
// CHECK: %[[EH:.*]] = pgpu.cast
// CHECK: %[[PV:.*]] = pgpu.contract %[[EH]]
// CHECK-NOT: pgpu.select {{.*}} : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<f32, [16, 16]>
// CHECK: pgpu.binary add %{{.*}}, %[[PV]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @band_guard(%qv: !pgpu.view<f16, [16, 16], in>, %kv: !pgpu.view<f16, [64, 16], in>, %vv: !pgpu.view<f16, [64, 16], in>,
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
        %vis = pgpu.cmp le %kk, %ii : !pgpu.fragment<index, [16, 16]>
        %vis2 = pgpu.cmp lt %kk, %ii : !pgpu.fragment<index, [16, 16]>
        %false = arith.constant false
        %c16s = pgpu.splat %c16 : index -> !pgpu.fragment<index, [16, 16]>
        %falses = pgpu.splat %false : i1 -> !pgpu.fragment<i1, [16, 16]>
        %lo = pgpu.cmp gt %kk, %jj : !pgpu.fragment<index, [16, 16]>
        %band = pgpu.binary and %vis, %lo : !pgpu.fragment<i1, [16, 16]>
        %inb = pgpu.cmp lt %kk, %c16s : !pgpu.fragment<index, [16, 16]>
        %okin = pgpu.select %inb, %band, %falses : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<i1, [16, 16]>
        %okt = pgpu.reduce %okin axes [1] identity(%false : i1) : (!pgpu.fragment<i1, [16, 16]>) -> (!pgpu.fragment<i1, [16]>) {
        ^bb0(%x: i1, %y: i1):
          %o = pgpu.binary or %x, %y : i1
          pgpu.yield %o : i1
        }
        %e0 = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
        %e1 = pgpu.select %band, %e0, %z : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<f32, [16, 16]>
        %e = pgpu.select %inb, %e1, %z : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<f32, [16, 16]>
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
        %w2e = pgpu.unary exp %d2 : !pgpu.fragment<f32, [16]>
        %z16 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
        %w2 = pgpu.select %okt, %w2e, %z16 : !pgpu.fragment<i1, [16]>, !pgpu.fragment<f32, [16]>
        %l1 = pgpu.binary mul %l, %w1 : !pgpu.fragment<f32, [16]>
        // expected-remark@+1 {{2 summary component(s)}}
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

// COM: Must not drop the select: ok reduces the band (vis & lo) but the exponentials are guarded by
// COM: vis and the bounds only, so a row may have nonzero terms where no key is in the band.
// CHECK-LABEL: pgpu.kernel @band_half_guard
// CHECK: %[[EH:.*]] = pgpu.cast
// CHECK: %[[PV:.*]] = pgpu.contract %[[EH]]
// CHECK: %[[SEL:.*]] = pgpu.select %{{.*}}, %[[PV]], %{{.*}} : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<f32, [16, 16]>
// CHECK: pgpu.binary add %{{.*}}, %[[SEL]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @band_half_guard(%qv: !pgpu.view<f16, [16, 16], in>, %kv: !pgpu.view<f16, [64, 16], in>, %vv: !pgpu.view<f16, [64, 16], in>,
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
        %vis = pgpu.cmp le %kk, %ii : !pgpu.fragment<index, [16, 16]>
        %vis2 = pgpu.cmp lt %kk, %ii : !pgpu.fragment<index, [16, 16]>
        %false = arith.constant false
        %c16s = pgpu.splat %c16 : index -> !pgpu.fragment<index, [16, 16]>
        %falses = pgpu.splat %false : i1 -> !pgpu.fragment<i1, [16, 16]>
        %lo = pgpu.cmp gt %kk, %jj : !pgpu.fragment<index, [16, 16]>
        %band = pgpu.binary and %vis, %lo : !pgpu.fragment<i1, [16, 16]>
        %inb = pgpu.cmp lt %kk, %c16s : !pgpu.fragment<index, [16, 16]>
        %okin = pgpu.select %inb, %band, %falses : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<i1, [16, 16]>
        %okt = pgpu.reduce %okin axes [1] identity(%false : i1) : (!pgpu.fragment<i1, [16, 16]>) -> (!pgpu.fragment<i1, [16]>) {
        ^bb0(%x: i1, %y: i1):
          %o = pgpu.binary or %x, %y : i1
          pgpu.yield %o : i1
        }
        %e0 = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
        %e1 = pgpu.select %vis, %e0, %z : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<f32, [16, 16]>
        %e = pgpu.select %inb, %e1, %z : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<f32, [16, 16]>
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
        %w2e = pgpu.unary exp %d2 : !pgpu.fragment<f32, [16]>
        %z16 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
        %w2 = pgpu.select %okt, %w2e, %z16 : !pgpu.fragment<i1, [16]>, !pgpu.fragment<f32, [16]>
        %l1 = pgpu.binary mul %l, %w1 : !pgpu.fragment<f32, [16]>
        // expected-remark@+1 {{2 summary component(s)}}
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

// COM: Must not drop the select: ok reduces another predicate than the one guarding the exponentials.
// CHECK-LABEL: pgpu.kernel @other_guard
// CHECK: %[[EH:.*]] = pgpu.cast
// CHECK: %[[PV:.*]] = pgpu.contract %[[EH]]
// CHECK: %[[SEL:.*]] = pgpu.select %{{.*}}, %[[PV]], %{{.*}} : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<f32, [16, 16]>
// CHECK: pgpu.binary add %{{.*}}, %[[SEL]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  pgpu.kernel @other_guard(%qv: !pgpu.view<f16, [16, 16], in>, %kv: !pgpu.view<f16, [64, 16], in>, %vv: !pgpu.view<f16, [64, 16], in>,
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
        %vis = pgpu.cmp le %kk, %ii : !pgpu.fragment<index, [16, 16]>
        %vis2 = pgpu.cmp lt %kk, %ii : !pgpu.fragment<index, [16, 16]>
        %false = arith.constant false
        %okt = pgpu.reduce %vis2 axes [1] identity(%false : i1) : (!pgpu.fragment<i1, [16, 16]>) -> (!pgpu.fragment<i1, [16]>) {
        ^bb0(%x: i1, %y: i1):
          %o = pgpu.binary or %x, %y : i1
          pgpu.yield %o : i1
        }
        %e0 = pgpu.unary exp %d : !pgpu.fragment<f32, [16, 16]>
        %e = pgpu.select %vis, %e0, %z : !pgpu.fragment<i1, [16, 16]>, !pgpu.fragment<f32, [16, 16]>
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
        %w2e = pgpu.unary exp %d2 : !pgpu.fragment<f32, [16]>
        %z16 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [16]>
        %w2 = pgpu.select %okt, %w2e, %z16 : !pgpu.fragment<i1, [16]>, !pgpu.fragment<f32, [16]>
        %l1 = pgpu.binary mul %l, %w1 : !pgpu.fragment<f32, [16]>
        // expected-remark@+1 {{2 summary component(s)}}
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
