// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: Before: a cumsum whose result is scaled by a row of w and shifted before its store. After: the
// COM: store holds one pgpu.range_scan along N whose emit region computes the stored value from the
// COM: prefix at each position (w read there, then mul and add) and writes it: the scan's value is
// COM: consumed in place, as it is formed.
// CHECK-LABEL: pgpu.kernel @scaled_cumsum
// CHECK: pgpu.range_scan %{{.*}} to %{{.*}} identity(%{{.*}} : f32) element {
// CHECK: } combine {
// CHECK: } emit {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[P:.*]]: f32):
// CHECK: %[[W:.*]] = pgpu.load %{{.*}}[%{{.*}}]
// CHECK: %[[M:.*]] = pgpu.binary mul %[[P]], %[[W]] : f32
// CHECK: %[[A:.*]] = pgpu.binary add %[[M]], %{{.*}} : f32
// CHECK: pgpu.store %[[A]], %{{.*}}
// CHECK-NEXT: pgpu.yield{{$}}
module {
  kir.kernel @scaled_cumsum(%x: !kir.view<f32, [M, N], in>, %w: !kir.view<f32, [N], in>, %y: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %dn = kir.domain %c0 to %1
    %dm = kir.domain %c0 to %0
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %ones = kir.broadcast %one over(%dn) dims [] : f32 -> tensor<?xf32>
    kir.parallel %dm {
    ^bb0(%m: index):
      %row = kir.load %x[%m, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %s = kir.scan %row axis 0 identity(%zero : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %wr = kir.load %w[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
      %p = kir.binary mul %s, %wr : tensor<?xf32>
      %q = kir.binary add %p, %ones : tensor<?xf32>
      kir.store %q, %y[%m, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Two scans of one mode and direction along one axis combined in the stored value (a weighted
// COM: running mean): one range scan of both components, each combine on its own component, the
// COM: division in the emit region.
// CHECK-LABEL: pgpu.kernel @running_mean
// CHECK: pgpu.range_scan %{{.*}} to %{{.*}} identity(%{{.*}}, %{{.*}} : f32, f32) element {
// CHECK: pgpu.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK: } combine {
// CHECK-NEXT: ^bb0(%[[A1:.*]]: f32, %[[A2:.*]]: f32, %[[B1:.*]]: f32, %[[B2:.*]]: f32):
// CHECK-NEXT: %[[S1:.*]] = pgpu.binary add %[[A1]], %[[B1]] : f32
// CHECK-NEXT: %[[S2:.*]] = pgpu.binary add %[[A2]], %[[B2]] : f32
// CHECK-NEXT: pgpu.yield %[[S1]], %[[S2]] : f32, f32
// CHECK: } emit {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[P1:.*]]: f32, %[[P2:.*]]: f32):
// CHECK: %[[D:.*]] = pgpu.binary div %[[P1]], %[[P2]] : f32
// CHECK: pgpu.store %[[D]], %{{.*}}
// CHECK-NOT: pgpu.range_scan
// CHECK: pgpu.return
module {
  kir.kernel @running_mean(%x: !kir.view<f32, [M, N], in>, %w: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %dn = kir.domain %c0 to %1
    %dm = kir.domain %c0 to %0
    %zero = arith.constant 0.0 : f32
    kir.parallel %dm {
    ^bb0(%m: index):
      %xr = kir.load %x[%m, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %wr = kir.load %w[%m, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %xw = kir.binary mul %xr, %wr : tensor<?xf32>
      %num = kir.scan %xw axis 0 identity(%zero : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %den = kir.scan %wr axis 0 identity(%zero : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %mean = kir.binary div %num, %den : tensor<?xf32>
      kir.store %mean, %y[%m, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the scan's result is stored as it is; the emit region writes the prefix and
// COM: computes nothing else (the construction before this change).
// CHECK-LABEL: pgpu.kernel @plain_cumsum
// CHECK: } emit {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[P:.*]]: f32):
// CHECK-NOT: pgpu.binary {{.*}} : f32
// CHECK: pgpu.store %[[P]], %{{.*}}
// CHECK-NEXT: pgpu.yield{{$}}
module {
  kir.kernel @plain_cumsum(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %dn = kir.domain %c0 to %1
    %dm = kir.domain %c0 to %0
    %zero = arith.constant 0.0 : f32
    kir.parallel %dm {
    ^bb0(%m: index):
      %row = kir.load %x[%m, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %s = kir.scan %row axis 0 identity(%zero : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      kir.store %s, %y[%m, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Refused: two scans in different modes cannot be one range scan.
module {
  kir.kernel @mixed_modes(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %dn = kir.domain %c0 to %1
    %dm = kir.domain %c0 to %0
    %zero = arith.constant 0.0 : f32
    kir.parallel %dm {
    ^bb0(%m: index):
      %row = kir.load %x[%m, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      // expected-note @+1 {{one scan}}
      %s = kir.scan %row axis 0 identity(%zero : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      // expected-note @+1 {{another scan}}
      %r = kir.scan %row axis 0 identity(%zero : f32) reverse : (tensor<?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %t = kir.binary sub %s, %r : tensor<?xf32>
      // expected-error @+1 {{kir-to-pgpu constructs a value computed from several scans as one scan: they must scan the same axis of the same extents, in the same mode and direction}}
      kir.store %t, %y[%m, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Before: a [L, 2] cumsum over L read out by a reduction over its state axis (static extent 2)
// COM: before the store of y[m, :]. After: no foreach over the states (the store's other axes are
// COM: none): one range scan over L whose two lines are its components (the element region reads
// COM: both columns), one add combine per line, and an emit region that reduces over the lines'
// COM: prefixes unrolled (c[l, 0] * p0 + c[l, 1] * p1) and stores the sum.
// CHECK-LABEL: pgpu.kernel @state_readout
// CHECK-NOT: pgpu.foreach
// CHECK: pgpu.range_scan %{{.*}} to %{{.*}} identity(%{{.*}}, %{{.*}} : f32, f32) element {
// CHECK: pgpu.load %a
// CHECK: pgpu.load %a
// CHECK: } combine {
// CHECK-NEXT: ^bb0(%[[A1:.*]]: f32, %[[A2:.*]]: f32, %[[B1:.*]]: f32, %[[B2:.*]]: f32):
// CHECK-NEXT: pgpu.binary add %[[A1]], %[[B1]] : f32
// CHECK-NEXT: pgpu.binary add %[[A2]], %[[B2]] : f32
// CHECK: } emit {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[P0:.*]]: f32, %[[P1:.*]]: f32):
// CHECK-NOT: pgpu.range_reduce
// CHECK: %[[C0:.*]] = pgpu.load %c
// CHECK: %[[M0:.*]] = pgpu.binary mul %[[C0]], %[[P0]] : f32
// CHECK: %[[C1:.*]] = pgpu.load %c
// CHECK: %[[M1:.*]] = pgpu.binary mul %[[C1]], %[[P1]] : f32
// CHECK: %[[S:.*]] = pgpu.binary add %[[M0]], %[[M1]] : f32
// CHECK: pgpu.store %[[S]], %y
// CHECK-NEXT: pgpu.yield{{$}}
module {
  kir.kernel @state_readout(%a: !kir.view<f32, [M, L, 2], in>, %c: !kir.view<f32, [L, 2], in>, %y: !kir.view<f32, [M, L], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "L"
    %c0 = arith.constant 0 : index
    %dl = kir.domain %c0 to %1
    %c2 = arith.constant 2 : index
    %ds = kir.domain %c0 to %c2
    %dm = kir.domain %c0 to %0
    %zero = arith.constant 0.0 : f32
    kir.parallel %dm {
    ^bb0(%m: index):
      %t = kir.load %a[%m, %dl, %ds] : !kir.view<f32, [M, L, 2], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %h = kir.scan %t axis 0 identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?x?xf32>) {
      ^bb0(%p: f32, %q: f32):
        %r = kir.binary add %p, %q : f32
        kir.yield %r : f32
      }
      %ct = kir.load %c[%dl, %ds] : !kir.view<f32, [L, 2], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %ch = kir.binary mul %ct, %h : tensor<?x?xf32>
      %y1 = kir.reduce %ch axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%p: f32, %q: f32):
        %r = kir.binary add %p, %q : f32
        kir.yield %r : f32
      }
      kir.store %y1, %y[%m, %dl] : tensor<?xf32>, !kir.view<f32, [M, L], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire (refused): the same readout over a state axis of dynamic extent N has no static
// COM: number of lines to hold as components; an error at the reduction, a note at the scan.
module {
  kir.kernel @dynamic_readout(%a: !kir.view<f32, [M, L, N], in>, %c: !kir.view<f32, [L, N], in>, %y: !kir.view<f32, [M, L], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "L"
    %2 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %dl = kir.domain %c0 to %1
    %ds = kir.domain %c0 to %2
    %dm = kir.domain %c0 to %0
    %zero = arith.constant 0.0 : f32
    kir.parallel %dm {
    ^bb0(%m: index):
      %t = kir.load %a[%m, %dl, %ds] : !kir.view<f32, [M, L, N], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      // expected-note @+1 {{the scan}}
      %h = kir.scan %t axis 0 identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?x?xf32>) {
      ^bb0(%p: f32, %q: f32):
        %r = kir.binary add %p, %q : f32
        kir.yield %r : f32
      }
      %ct = kir.load %c[%dl, %ds] : !kir.view<f32, [L, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %ch = kir.binary mul %ct, %h : tensor<?x?xf32>
      // expected-error @+1 {{kir-to-pgpu constructs a reduction of a scan's results over another axis when that axis has a static extent}}
      %y1 = kir.reduce %ch axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%p: f32, %q: f32):
        %r = kir.binary add %p, %q : f32
        kir.yield %r : f32
      }
      kir.store %y1, %y[%m, %dl] : tensor<?xf32>, !kir.view<f32, [M, L], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Both results of one tuple scan feed the stored value (a running log-sum-exp as a scan of
// COM: (max, sum) pairs, stored as mx + log(s)): the scan is met twice on the walk from the store, with
// COM: the same axes, and is one stored scan: one pgpu.range_scan whose emit region computes
// COM: mx + log(s) from its two prefixes and stores it.
// CHECK-LABEL: pgpu.kernel @two_results
// CHECK: pgpu.range_scan
// CHECK: %[[L:.*]] = pgpu.unary log %[[S:.*]] : f32
// CHECK: %[[V:.*]] = pgpu.binary add %{{.*}}, %[[L]] : f32
// CHECK: pgpu.store %[[V]], %out
// CHECK-NOT: pgpu.range_scan
module {
  kir.kernel @two_results(%x: !kir.view<f32, [M, N], in>, %out: !kir.view<f32, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %dn = kir.domain %c0 to %1
    %dm = kir.domain %c0 to %0
    %one = arith.constant 1.0 : f32
    %ones = kir.broadcast %one over(%dn) dims [] : f32 -> tensor<?xf32>
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    kir.parallel %dm {
    ^bb0(%m: index):
      %row = kir.load %x[%m, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %mx, %s = kir.scan %row, %ones axis 0 identity(%ninf, %zero : f32, f32) : (tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
      ^bb0(%m1: f32, %s1: f32, %m2: f32, %s2: f32):
        %mm = kir.binary max %m1, %m2 : f32
        %d1 = kir.binary sub %m1, %mm : f32
        %e1 = kir.unary exp %d1 : f32
        %d2 = kir.binary sub %m2, %mm : f32
        %e2 = kir.unary exp %d2 : f32
        %a = kir.binary mul %s1, %e1 : f32
        %b = kir.binary mul %s2, %e2 : f32
        %ss = kir.binary add %a, %b : f32
        kir.yield %mm, %ss : f32, f32
      }
      %l = kir.unary log %s : tensor<?xf32>
      %v = kir.binary add %mx, %l : tensor<?xf32>
      kir.store %v, %out[%m, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A loop over rows carrying the running column sums of a row cumsum (a summed-area table, corpus
// COM: 206; ScanCarries.cpp). Before: the carry computed from a scan of each trip's row. After: under the
// COM: launch-time guard W <= BLOCK_W the row loop carries one [BLOCK_W] fragment, each row a fragment
// COM: scan from the identity; otherwise the program walks W's blocks, the whole loop per block, each
// COM: trip's scan of a block starting from the scan of the blocks before it (extract of its last lane).
// CHECK-LABEL: pgpu.kernel @carried_cumsum
// CHECK-SAME: #pgpu.param<"BLOCK_W", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "W">
// CHECK: %[[BW:.*]] = pgpu.param "BLOCK_W"
// CHECK: %[[FITS:.*]] = pgpu.cmp le %{{.*}}, %[[BW]] : index
// CHECK: pgpu.if %[[FITS]] {
// CHECK: pgpu.for {{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_W]>) -> !pgpu.fragment<f32, [BLOCK_W]>
// CHECK: pgpu.load %x[{{.*}}] valid {{.*}} -> !pgpu.fragment<f32, [BLOCK_W]>
// CHECK: pgpu.scan {{.*}} carry(%cst : f32) : (!pgpu.fragment<f32, [BLOCK_W]>)
// CHECK: pgpu.binary add
// CHECK: pgpu.store
// CHECK: } else {
// CHECK: pgpu.for
// CHECK: pgpu.for {{.*}} iter_args(%{{.*}} : !pgpu.fragment<f32, [BLOCK_W]>)
// CHECK: %[[BEFORE:.*]] = pgpu.for {{.*}} iter_args(%{{.*}} : f32) -> f32
// CHECK: pgpu.scan
// CHECK: pgpu.extract
// CHECK: pgpu.scan {{.*}} carry(%[[BEFORE]] : f32)
// CHECK: pgpu.store
// CHECK-NOT: pgpu.range_scan
module {
  kir.kernel @carried_cumsum(%x: !kir.view<f32, [N, H, W], in>, %out: !kir.view<f32, [N, H, W], out>) {
    %0 = kir.extent "N"
    %1 = kir.extent "H"
    %2 = kir.extent "W"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %2
    %4 = kir.domain %c0 to %0
    %cst = arith.constant 0.000000e+00 : f32
    %5 = kir.broadcast %cst over(%3) dims [] : f32 -> tensor<?xf32>
    %6 = kir.domain %c0 to %1
    kir.parallel %4 {
    ^bb0(%n: index):
      %7 = kir.for %6 iter_args(%5 : tensor<?xf32>) -> tensor<?xf32> {
      ^bb0(%i: index, %acc: tensor<?xf32>):
        %8 = kir.load %x[%n, %i, %3] : !kir.view<f32, [N, H, W], in>[index, index, !kir.domain] -> tensor<?xf32>
        %9 = kir.scan %8 axis 0 identity(%cst : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
        ^bb0(%a: f32, %b: f32):
          %11 = kir.binary add %a, %b : f32
          kir.yield %11 : f32
        }
        %10 = kir.binary add %acc, %9 : tensor<?xf32>
        kir.store %10, %out[%n, %i, %3] : tensor<?xf32>, !kir.view<f32, [N, H, W], out>[index, index, !kir.domain]
        kir.yield %10 : tensor<?xf32>
      }
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Refused at the scan: a scan of the carried line itself (the blocks walked before a block would
// COM: need their own carries).
module {
  kir.kernel @rescanned_carry(%x: !kir.view<f32, [N, H, W], in>, %out: !kir.view<f32, [N, H, W], out>) {
    %0 = kir.extent "N"
    %1 = kir.extent "H"
    %2 = kir.extent "W"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %2
    %4 = kir.domain %c0 to %0
    %cst = arith.constant 0.000000e+00 : f32
    %5 = kir.broadcast %cst over(%3) dims [] : f32 -> tensor<?xf32>
    %6 = kir.domain %c0 to %1
    kir.parallel %4 {
    ^bb0(%n: index):
      %7 = kir.for %6 iter_args(%5 : tensor<?xf32>) -> tensor<?xf32> {
      ^bb0(%i: index, %acc: tensor<?xf32>):
        %8 = kir.load %x[%n, %i, %3] : !kir.view<f32, [N, H, W], in>[index, index, !kir.domain] -> tensor<?xf32>
        %9 = kir.binary add %acc, %8 : tensor<?xf32>
        // expected-error @+1 {{the scan's inputs do not depend on the loop's carries}}
        %10 = kir.scan %9 axis 0 identity(%cst : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
        ^bb0(%a: f32, %b: f32):
          %11 = kir.binary add %a, %b : f32
          kir.yield %11 : f32
        }
        kir.store %10, %out[%n, %i, %3] : tensor<?xf32>, !kir.view<f32, [N, H, W], out>[index, index, !kir.domain]
        kir.yield %10 : tensor<?xf32>
      }
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not take the loop-carry refusal: the same row loop storing each row's cumsum plus the row
// COM: (the scan feeds only the store; the loop carries nothing) is one range scan a trip.
// CHECK-LABEL: pgpu.kernel @row_loop_cumsum
// CHECK: pgpu.for
// CHECK: pgpu.range_scan
// CHECK: } emit {
// CHECK: pgpu.store
module {
  kir.kernel @row_loop_cumsum(%x: !kir.view<f32, [N, H, W], in>, %out: !kir.view<f32, [N, H, W], out>) {
    %0 = kir.extent "N"
    %1 = kir.extent "H"
    %2 = kir.extent "W"
    %c0 = arith.constant 0 : index
    %3 = kir.domain %c0 to %2
    %4 = kir.domain %c0 to %0
    %cst = arith.constant 0.000000e+00 : f32
    %6 = kir.domain %c0 to %1
    kir.parallel %4 {
    ^bb0(%n: index):
      kir.for %6 {
      ^bb0(%i: index):
        %8 = kir.load %x[%n, %i, %3] : !kir.view<f32, [N, H, W], in>[index, index, !kir.domain] -> tensor<?xf32>
        %9 = kir.scan %8 axis 0 identity(%cst : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
        ^bb0(%a: f32, %b: f32):
          %11 = kir.binary add %a, %b : f32
          kir.yield %11 : f32
        }
        %10 = kir.binary add %9, %8 : tensor<?xf32>
        kir.store %10, %out[%n, %i, %3] : tensor<?xf32>, !kir.view<f32, [N, H, W], out>[index, index, !kir.domain]
        kir.yield
      }
      kir.yield
    }
    kir.return
  }
}
