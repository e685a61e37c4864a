// RUN: tessel-opt %s -split-input-file -kir-online-folds -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: A tensor over the axis read before the loop (`bias = b[cols]` hoisted out of
// COM: `for m in T.parallel(...)`, as examples/rmsnorm.py writes its weights) is a pure read of an
// COM: In view: the fold recomputes it in the loop body (seed 002 §3.4: replaying pure producers
// COM: is legal) and slices it like the body's own reads. A logsumexp of x + bias under relaxed
// COM: numerics becomes one online region fold whose sources are both loads; the kernel-level load,
// COM: left without users, is gone. Before: refused ("a tensor over the axis computed outside the
// COM: loop body"), the two-pass reductions kept.
// CHECK-LABEL: kir.kernel @lse_bias
// CHECK-NOT: kir.load
// CHECK: kir.parallel
// CHECK: %[[B:.*]] = kir.load %b[%{{.*}}] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
// CHECK: %[[X:.*]] = kir.load %x
// CHECK: kir.region_fold sources(%[[B]], %[[X]], %{{.*}} : tensor<?xf32>, tensor<?xf32>, tensor<?xindex>) axis 0
// CHECK: } combine {
// CHECK-NOT: kir.reduce
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @lse_bias(%x: !kir.view<f32, [M, N], in>, %b: !kir.view<f32, [N], in>, %lse: !kir.view<f32, [M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %rows = kir.domain %c0 to %0
    %cols = kir.domain %c0 to %1
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %bias = kir.load %b[%cols] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    // expected-remark @below {{kir-online-folds: a maximum and 1 reduction(s) over one axis became one region fold (online summary, seed 002 §1); 1 op(s) computing tensors over the axis before the loop are recomputed in its body}}
    kir.parallel %rows {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %cols] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %z = kir.binary add %t, %bias : tensor<?xf32>
      %m = kir.reduce %z axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %c: f32):
        %r = kir.binary max %a, %c : f32
        kir.yield %r : f32
      }
      %mb = kir.broadcast %m over(%cols) dims [] : f32 -> tensor<?xf32>
      %d = kir.binary sub %z, %mb : tensor<?xf32>
      %e = kir.unary exp %d : tensor<?xf32>
      %l = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %c: f32):
        %r = kir.binary add %a, %c : f32
        kir.yield %r : f32
      }
      %lg = kir.unary log %l : f32
      %out = kir.binary add %m, %lg : f32
      kir.store %out, %lse[%i] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Pointwise math on hoisted reads is replayed with them (a cast and a scale of the bias), in
// COM: their order: the read becomes a source, the math part of the summarizer (the scale's scalar
// COM: its operand). The kernel-level copies stay where another loop still reads them (the second
// COM: parallel stores the scaled bias).
// CHECK-LABEL: kir.kernel @lse_scaled_bias_shared
// CHECK: %[[B0:.*]] = kir.load %b
// CHECK: %[[C0:.*]] = kir.cast %[[B0]]
// CHECK: %[[S0:.*]] = kir.binary mul %[[C0]]
// CHECK: kir.parallel
// CHECK: %[[B:.*]] = kir.load %b
// CHECK: kir.region_fold sources(%[[B]], %{{.*}}, %{{.*}} : tensor<?xf16>, tensor<?xf32>, tensor<?xindex>) {{.*}} operands(%s : f32)
// CHECK: ^bb0(%[[BS:.*]]: tensor<?xf16>, %{{.*}}: tensor<?xf32>, %{{.*}}: tensor<?xindex>, %[[SA:.*]]: f32):
// CHECK: %[[C:.*]] = kir.cast %[[BS]]
// CHECK: %[[SB:.*]] = kir.broadcast_as %[[SA]] to %[[C]]
// CHECK: kir.binary mul %[[C]], %[[SB]]
// CHECK: kir.parallel
// CHECK: kir.store %[[S0]]
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @lse_scaled_bias_shared(%x: !kir.view<f32, [M, N], in>, %b: !kir.view<f16, [N], in>, %lse: !kir.view<f32, [M], out>, %sb: !kir.view<f32, [M, N], out>, %s: f32) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %rows = kir.domain %c0 to %0
    %cols = kir.domain %c0 to %1
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %bias16 = kir.load %b[%cols] : !kir.view<f16, [N], in>[!kir.domain] -> tensor<?xf16>
    %bias32 = kir.cast %bias16 : tensor<?xf16> to tensor<?xf32>
    %sv = kir.broadcast %s over(%cols) dims [] : f32 -> tensor<?xf32>
    %bias = kir.binary mul %bias32, %sv : tensor<?xf32>
    // expected-remark @below {{became one region fold (online summary, seed 002 §1); 3 op(s) computing tensors over the axis before the loop are recomputed in its body}}
    kir.parallel %rows {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %cols] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %z = kir.binary add %t, %bias : tensor<?xf32>
      %m = kir.reduce %z axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %c: f32):
        %r = kir.binary max %a, %c : f32
        kir.yield %r : f32
      }
      %mb = kir.broadcast %m over(%cols) dims [] : f32 -> tensor<?xf32>
      %d = kir.binary sub %z, %mb : tensor<?xf32>
      %e = kir.unary exp %d : tensor<?xf32>
      %l = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %c: f32):
        %r = kir.binary add %a, %c : f32
        kir.yield %r : f32
      }
      %lg = kir.unary log %l : f32
      %out = kir.binary add %m, %lg : f32
      kir.store %out, %lse[%i] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.parallel %rows {
    ^bb0(%i: index):
      kir.store %bias, %sb[%i, %cols] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not rewrite: the hoisted read is replayable, but the row softmax is stored over the axis
// COM: and nothing in it is a contraction (bench/corpus/144's spelling): the remark gives that reason,
// COM: the one the loop-body spelling gets, and the kernel-level load stays where it was.
// CHECK-LABEL: kir.kernel @softmax_bias_stored
// CHECK: kir.load %b
// CHECK: kir.parallel
// CHECK-NOT: kir.load %b
// CHECK-NOT: kir.region_fold
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @softmax_bias_stored(%x: !kir.view<f32, [M, N], in>, %b: !kir.view<f32, [N], in>, %y: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %rows = kir.domain %c0 to %0
    %cols = kir.domain %c0 to %1
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %bias = kir.load %b[%cols] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    kir.parallel %rows {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %cols] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %z = kir.binary add %t, %bias : tensor<?xf32>
      // expected-remark @below {{kir-online-folds: the maximum stays a two-pass reduction: the row is stored over the axis and is neither computed by nor reduced into a contraction}}
      %m = kir.reduce %z axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %c: f32):
        %r = kir.binary max %a, %c : f32
        kir.yield %r : f32
      }
      %mb = kir.broadcast %m over(%cols) dims [] : f32 -> tensor<?xf32>
      %d = kir.binary sub %z, %mb : tensor<?xf32>
      %e = kir.unary exp %d : tensor<?xf32>
      %l = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %c: f32):
        %r = kir.binary add %a, %c : f32
        kir.yield %r : f32
      }
      %lb = kir.broadcast %l over(%cols) dims [] : f32 -> tensor<?xf32>
      %p = kir.binary div %e, %lb : tensor<?xf32>
      kir.store %p, %y[%i, %cols] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the hoisted read is of an InOut view, which the kernel may write (a read in the
// COM: loop could see other values than the one before it), so it is not replayed; the remark says
// COM: what would be.
// CHECK-LABEL: kir.kernel @lse_inout_bias
// CHECK: kir.load %b
// CHECK: kir.parallel
// CHECK-NOT: kir.region_fold
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, optimization_remarks = true>} {
  kir.kernel @lse_inout_bias(%x: !kir.view<f32, [M, N], in>, %b: !kir.view<f32, [N], inout>, %lse: !kir.view<f32, [M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %rows = kir.domain %c0 to %0
    %cols = kir.domain %c0 to %1
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %bias = kir.load %b[%cols] : !kir.view<f32, [N], inout>[!kir.domain] -> tensor<?xf32>
    kir.parallel %rows {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %cols] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %z = kir.binary add %t, %bias : tensor<?xf32>
      // expected-remark @below {{the maximum stays a two-pass reduction: a tensor over the axis computed outside the loop body that is not a pure function of the axis (only loads of In views over the axis and pointwise math on them are recomputed in the loop)}}
      %m = kir.reduce %z axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %c: f32):
        %r = kir.binary max %a, %c : f32
        kir.yield %r : f32
      }
      %mb = kir.broadcast %m over(%cols) dims [] : f32 -> tensor<?xf32>
      %d = kir.binary sub %z, %mb : tensor<?xf32>
      %e = kir.unary exp %d : tensor<?xf32>
      %l = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %c: f32):
        %r = kir.binary add %a, %c : f32
        kir.yield %r : f32
      }
      %lg = kir.unary log %l : f32
      %out = kir.binary add %m, %lg : f32
      kir.store %out, %lse[%i] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}
