// RUN: tessel-opt %s -split-input-file -kir-row-parallels -verify-diagnostics | FileCheck %s --enable-var-scope

// COM: Squeeze-and-excitation's gate (corpus 249): per image n, s = the channels' sums over the pixels,
// COM: h = relu(w1 @ s), a = sigmoid(w2 @ h), spread over the pixels by the store. Before: each stored
// COM: element (c, p) realized a[c], so h, so every s[c'] over every pixel: O((C x P)^2) per image. After:
// COM: s and h (a reduction, and a contraction of it) are kept: each member writes them once to buffers
// COM: over (images, their domain) and reads them back; construction computes each once per image.
// CHECK-LABEL: kir.kernel @se_gate
// CHECK: %[[BS:.*]] = kir.buffer over(%{{.*}}, %{{.*}}) first_write
// CHECK: %[[BH:.*]] = kir.buffer over(%{{.*}}, %{{.*}}) first_write
// CHECK: kir.parallel
// CHECK: %[[S:.*]] = kir.reduce
// CHECK: kir.buffer_store %[[S]], %[[BS]][
// CHECK: %[[S2:.*]] = kir.buffer_load %[[BS]][
// CHECK: kir.contract %{{.*}}, %[[S2]]
// CHECK: kir.buffer_store %{{.*}}, %[[BH]][
// CHECK: kir.buffer_load %[[BH]][
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @se_gate(%x: !kir.view<f32, [N, C, P], in>, %w1: !kir.view<f32, [R, C], in>, %w2: !kir.view<f32, [C, R], in>, %out: !kir.view<f32, [N, C, P], out>) {
    %0 = kir.extent "N"
    %1 = kir.extent "C"
    %2 = kir.extent "P"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %1
    %5 = kir.extent "R"
    %6 = kir.domain %3 to %5
    %7 = kir.domain %3 to %2
    %8 = kir.domain %3 to %0
    %11 = arith.constant 0.0 : f32
    %18 = kir.broadcast %11 over(%6) dims [] : f32 -> tensor<?xf32>
    // expected-remark @below {{kir-row-parallels: 2 tensor(s) a store reads spread over more axes are computed from nested reductions or contractions}}
    kir.parallel %8 {
    ^bb0(%9: index):
      %10 = kir.load %x[%9, %4, %7] : !kir.view<f32, [N, C, P], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %15 = kir.reduce %10 axes [1] identity(%11 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%12: f32, %13: f32):
        %14 = kir.binary add %12, %13 : f32
        kir.yield %14 : f32
      }
      %16 = kir.load %w1[%6, %4] : !kir.view<f32, [R, C], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %17 = kir.contract %16, %15 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      %19 = kir.binary max %17, %18 : tensor<?xf32>
      %20 = kir.load %w2[%4, %6] : !kir.view<f32, [C, R], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %21 = kir.contract %20, %19 reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      %22 = kir.unary sigmoid %21 : tensor<?xf32>
      %23 = kir.load %x[%9, %4, %7] : !kir.view<f32, [N, C, P], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %24 = kir.broadcast %22 over(%4, %7) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %25 = kir.binary mul %23, %24 : tensor<?x?xf32>
      kir.store %25, %out[%9, %4, %7] : tensor<?x?xf32>, !kir.view<f32, [N, C, P], out>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: one level (each channel's sum spread over its pixels, subtracted): replaying it per
// COM: element costs one row sum, which construction and the row passes already plan; nothing is kept.
// CHECK-LABEL: kir.kernel @center_channels
// CHECK-NOT: kir.buffer
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @center_channels(%x: !kir.view<f32, [N, C, P], in>, %out: !kir.view<f32, [N, C, P], out>) {
    %0 = kir.extent "N"
    %1 = kir.extent "C"
    %2 = kir.extent "P"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %1
    %5 = kir.domain %3 to %2
    %6 = kir.domain %3 to %0
    %9 = arith.constant 0.0 : f32
    kir.parallel %6 {
    ^bb0(%7: index):
      %8 = kir.load %x[%7, %4, %5] : !kir.view<f32, [N, C, P], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %13 = kir.reduce %8 axes [1] identity(%9 : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%10: f32, %11: f32):
        %12 = kir.binary add %10, %11 : f32
        kir.yield %12 : f32
      }
      %14 = kir.load %x[%7, %4, %5] : !kir.view<f32, [N, C, P], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %15 = kir.broadcast %13 over(%4, %5) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %16 = kir.binary sub %14, %15 : tensor<?x?xf32>
      kir.store %16, %out[%7, %4, %5] : tensor<?x?xf32>, !kir.view<f32, [N, C, P], out>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a row softmax inside the member (the shape of MLA / attention decode). The row sum
// COM: reads the row maximum only through exp(x - max) spread back over the row: a fold's statistic, which
// COM: the online/two-pass folds plan; keeping it in buffers would displace that plan. Nothing is kept.
// CHECK-LABEL: kir.kernel @member_softmax
// CHECK-NOT: kir.buffer
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @member_softmax(%x: !kir.view<f32, [N, R, P], in>, %out: !kir.view<f32, [N, R, P], out>) {
    %0 = kir.extent "N"
    %1 = kir.extent "R"
    %2 = kir.extent "P"
    %3 = arith.constant 0 : index
    %4 = kir.domain %3 to %1
    %5 = kir.domain %3 to %2
    %6 = kir.domain %3 to %0
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    kir.parallel %6 {
    ^bb0(%7: index):
      %8 = kir.load %x[%7, %4, %5] : !kir.view<f32, [N, R, P], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %m = kir.reduce %8 axes [1] identity(%ninf : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %t = kir.binary max %a, %b : f32
        kir.yield %t : f32
      }
      %mb = kir.broadcast %m over(%4, %5) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %d = kir.binary sub %8, %mb : tensor<?x?xf32>
      %e = kir.unary exp %d : tensor<?x?xf32>
      %s = kir.reduce %e axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %t = kir.binary add %a, %b : f32
        kir.yield %t : f32
      }
      %sb = kir.broadcast %s over(%4, %5) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %q = kir.binary div %e, %sb : tensor<?x?xf32>
      kir.store %q, %out[%7, %4, %5] : tensor<?x?xf32>, !kir.view<f32, [N, R, P], out>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Issue 47, Sinkhorn normalization (corpus 339): per batch b, p = exp(-c / eps), r = p's row sums,
// COM: q = p / r spread over the rows, then k = q's column sums and out = q / k spread over the columns.
// COM: The column sum reads r through a broadcast that varies along the rows it sums: each of its terms needs
// COM: another row's sum, so a replay rebuilds every row sum inside every column sum's loop (and each further
// COM: normalization doubles it: 2^ITERS). Nested, not a fold's statistic: r and k are kept. One domain is
// COM: both axes (`c[b, idx, idx]`), so the axes are told apart by position, not by domain; `eps` is spread
// COM: at kernel level, before the parallel.
// CHECK-LABEL: kir.kernel @sinkhorn_pair
// CHECK: %[[BR:.*]] = kir.buffer over(%{{.*}}, %{{.*}}) first_write
// CHECK: %[[BK:.*]] = kir.buffer over(%{{.*}}, %{{.*}}) first_write
// CHECK: kir.parallel
// CHECK: %[[R:.*]] = kir.reduce %{{.*}} axes [1]
// CHECK: kir.buffer_store %[[R]], %[[BR]][
// CHECK: %[[R2:.*]] = kir.buffer_load %[[BR]][
// CHECK: kir.broadcast %[[R2]] over(%{{.*}}, %{{.*}}) dims [0]
// CHECK: %[[K:.*]] = kir.reduce %{{.*}} axes [0]
// CHECK: kir.buffer_store %[[K]], %[[BK]][
// CHECK: %[[K2:.*]] = kir.buffer_load %[[BK]][
// CHECK: kir.broadcast %[[K2]] over(%{{.*}}, %{{.*}}) dims [1]
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @sinkhorn_pair(%c: !kir.view<f32, [B, N, N], in>, %out: !kir.view<f32, [B, N, N], out>, %eps: f32) {
    %0 = kir.extent "B"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %idx = kir.domain %c0 to %1
    %bs = kir.domain %c0 to %0
    %e = kir.broadcast %eps over(%idx, %idx) dims [] : f32 -> tensor<?x?xf32>
    %zero = arith.constant 0.0 : f32
    // expected-remark @below {{kir-row-parallels: 2 tensor(s) a store reads spread over more axes are computed from nested reductions or contractions}}
    kir.parallel %bs {
    ^bb0(%b: index):
      %x = kir.load %c[%b, %idx, %idx] : !kir.view<f32, [B, N, N], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %n = kir.unary neg %x : tensor<?x?xf32>
      %d = kir.binary div %n, %e : tensor<?x?xf32>
      %p = kir.unary exp %d : tensor<?x?xf32>
      %r = kir.reduce %p axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a1: f32, %a2: f32):
        %t = kir.binary add %a1, %a2 : f32
        kir.yield %t : f32
      }
      %rb = kir.broadcast %r over(%idx, %idx) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %q = kir.binary div %p, %rb : tensor<?x?xf32>
      %k = kir.reduce %q axes [0] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a1: f32, %a2: f32):
        %t = kir.binary add %a1, %a2 : f32
        kir.yield %t : f32
      }
      %kb = kir.broadcast %k over(%idx, %idx) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
      %o = kir.binary div %q, %kb : tensor<?x?xf32>
      kir.store %o, %out[%b, %idx, %idx] : tensor<?x?xf32>, !kir.view<f32, [B, N, N], out>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire (issue 47): the same matrix normalized twice along one axis, columns then columns. The
// COM: second column sum reads the first through a broadcast constant along the rows it sums (each of its
// COM: terms needs its own column's sum, built once per element): a fold's statistic, as a softmax's
// COM: maximum is, although both axes are one domain. Nothing is kept.
// CHECK-LABEL: kir.kernel @column_twice
// CHECK-NOT: kir.buffer
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @column_twice(%c: !kir.view<f32, [B, N, N], in>, %out: !kir.view<f32, [B, N, N], out>) {
    %0 = kir.extent "B"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %idx = kir.domain %c0 to %1
    %bs = kir.domain %c0 to %0
    %zero = arith.constant 0.0 : f32
    kir.parallel %bs {
    ^bb0(%b: index):
      %p = kir.load %c[%b, %idx, %idx] : !kir.view<f32, [B, N, N], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %k1 = kir.reduce %p axes [0] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a1: f32, %a2: f32):
        %t = kir.binary add %a1, %a2 : f32
        kir.yield %t : f32
      }
      %k1b = kir.broadcast %k1 over(%idx, %idx) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
      %q = kir.binary div %p, %k1b : tensor<?x?xf32>
      %k2 = kir.reduce %q axes [0] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a1: f32, %a2: f32):
        %t = kir.binary add %a1, %a2 : f32
        kir.yield %t : f32
      }
      %k2b = kir.broadcast %k2 over(%idx, %idx) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
      %o = kir.binary div %q, %k2b : tensor<?x?xf32>
      kir.store %o, %out[%b, %idx, %idx] : tensor<?x?xf32>, !kir.view<f32, [B, N, N], out>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
