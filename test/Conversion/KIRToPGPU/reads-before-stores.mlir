// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: A tensor read of a view in a kir.parallel member whose value is used after a store to the
// COM: same view (zeros), by a store to another view: construction realizes the elements where they
// COM: are used, so separate element loops would read the zeros (the KIR interpreter reads the old
// COM: values). Before (issue 47) refused; after: the two consecutive stores are one in-place group
// COM: (the read is at the first store's coordinates, used only elementwise), one element loop that
// COM: reads y, then writes y and z.
// CHECK-LABEL: pgpu.kernel @reuse
// CHECK: pgpu.foreach
// CHECK: %[[OLD:.*]] = pgpu.load %y
// CHECK: %[[TWICE:.*]] = pgpu.binary mul %[[OLD]]
// CHECK: pgpu.store %{{.*}}, %y
// CHECK: pgpu.store %[[TWICE]], %z
// CHECK-NEXT: pgpu.yield
module {
  kir.kernel @reuse(%y: !kir.view<f32, [B, D], inout>, %z: !kir.view<f32, [B, D], out>) {
    %c0 = arith.constant 0 : index
    %two = arith.constant 2.0 : f32
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %nd = kir.extent "D"
    %rows = kir.domain %c0 to %nb
    %dims = kir.domain %c0 to %nd
    kir.parallel %rows {
    ^bb0(%b: index):
      %r = kir.load %y[%b, %dims] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      %t = kir.broadcast %two over(%dims) dims [] : f32 -> tensor<?xf32>
      %r2 = kir.binary mul %r, %t : tensor<?xf32>
      %zs = kir.broadcast %zero over(%dims) dims [] : f32 -> tensor<?xf32>
      kir.store %zs, %y[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      kir.store %r2, %z[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not refuse: the read's uses all come before the store (an in-place update, and a second
// COM: output computed from the old values before the view is overwritten).
// CHECK-LABEL: pgpu.kernel @update
module {
  kir.kernel @update(%y: !kir.view<f32, [B, D], inout>, %z: !kir.view<f32, [B, D], out>) {
    %c0 = arith.constant 0 : index
    %two = arith.constant 2.0 : f32
    %nb = kir.extent "B"
    %nd = kir.extent "D"
    %rows = kir.domain %c0 to %nb
    %dims = kir.domain %c0 to %nd
    kir.parallel %rows {
    ^bb0(%b: index):
      %r = kir.load %y[%b, %dims] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      %t = kir.broadcast %two over(%dims) dims [] : f32 -> tensor<?xf32>
      %r2 = kir.binary mul %r, %t : tensor<?xf32>
      kir.store %r, %z[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
      kir.store %r2, %y[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Rotate-half in place (bench/corpus/70_rotary_pos_ids_inplace): x1 = y[b, lo], x2 = y[b, hi] read
// COM: before y[b, lo] = x1 * c - x2 * s and y[b, hi] = x2 * c + x1 * s; each store uses the half the
// COM: other overwrites. The slices [0, H) and [H, 2H) of one domain are disjoint and each read is at
// COM: one store's coordinates: one element loop reads both halves, then writes both.
// CHECK-LABEL: pgpu.kernel @rotate_half
// CHECK: pgpu.foreach
// CHECK-COUNT-2: pgpu.load %y
// CHECK-NOT: pgpu.load %y
// CHECK: pgpu.store %{{.*}}, %y
// CHECK-NOT: pgpu.load %y
// CHECK: pgpu.store %{{.*}}, %y
// CHECK-NEXT: pgpu.yield
module {
  kir.kernel @rotate_half(%y: !kir.view<f32, [B, D], inout>, %c: !kir.view<f32, [B, H], in>) {
    %c0 = arith.constant 0 : index
    %nb = kir.extent "B"
    %nd = kir.extent "D"
    %nh = kir.extent "H"
    %c2 = arith.constant 2 : index
    %rows = kir.domain %c0 to %nb
    %dims = kir.domain %c0 to %nd
    %half = kir.domain %c0 to %nh
    %lo = kir.subregion %dims[%c0 : %nh]
    %h2 = kir.binary mul %c2, %nh : index
    %hi = kir.subregion %dims[%nh : %h2]
    kir.parallel %rows {
    ^bb0(%b: index):
      %cc = kir.load %c[%b, %half] : !kir.view<f32, [B, H], in>[index, !kir.domain] -> tensor<?xf32>
      %x1 = kir.load %y[%b, %lo] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      %x2 = kir.load %y[%b, %hi] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      %a = kir.binary mul %x1, %cc : tensor<?xf32>
      %n = kir.binary sub %a, %x2 : tensor<?xf32>
      kir.store %n, %y[%b, %lo] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      %m = kir.binary mul %x2, %cc : tensor<?xf32>
      %p = kir.binary add %m, %x1 : tensor<?xf32>
      kir.store %p, %y[%b, %hi] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the stores' slices [0, D-1) and [1, D) overlap, so one position would write an
// COM: element another position reads (a shifted read after write): still refused at the read.
module {
  kir.kernel @shifted(%y: !kir.view<f32, [B, D], inout>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    %nb = kir.extent "B"
    %nd = kir.extent "D"
    %rows = kir.domain %c0 to %nb
    %dims = kir.domain %c0 to %nd
    %end = kir.binary sub %nd, %c1 : index
    %lo = kir.subregion %dims[%c0 : %end]
    %hi = kir.subregion %dims[%c1 : %nd]
    kir.parallel %rows {
    ^bb0(%b: index):
      // expected-error @+1 {{this read of the view is used after a store to the same view}}
      %a = kir.load %y[%b, %lo] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      // expected-note @+1 {{the store}}
      kir.store %a, %y[%b, %hi] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      %ones = kir.broadcast %one over(%lo) dims [] : f32 -> tensor<?xf32>
      // expected-note @+1 {{a use after it}}
      %a1 = kir.binary add %a, %ones : tensor<?xf32>
      kir.store %a1, %y[%b, %lo] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Even/odd lanes rotated in place through index tensors (bench/corpus/163_qk_rmsnorm_rope): a = y[b, 2p],
// COM: c = y[b, 2p + 1] gathered, then scattered back to the same coordinates, each store using what the other
// COM: overwrites. Before: refused at the read (the odd store's value realized from gathers after the even
// COM: store). After: 2p and 2p + 1 name one element per position and never meet (gcd 2 does not divide 1),
// COM: so one element loop gathers both, then scatters both.
// CHECK-LABEL: pgpu.kernel @rotate_pairs
// CHECK: pgpu.foreach
// CHECK-COUNT-2: pgpu.gather %y
// CHECK-NOT: pgpu.gather %y
// CHECK: pgpu.scatter %{{.*}}, %y
// CHECK-NOT: pgpu.gather %y
// CHECK: pgpu.scatter %{{.*}}, %y
// CHECK-NEXT: pgpu.yield
module {
  kir.kernel @rotate_pairs(%y: !kir.view<f32, [B, D], inout>, %w: !kir.view<f32, [H], in>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %nb = kir.extent "B"
    %nh = kir.extent "H"
    %rows = kir.domain %c0 to %nb
    %pairs = kir.domain %c0 to %nh
    %p = kir.indices %pairs : tensor<?xindex>
    %two = kir.broadcast %c2 over(%pairs) dims [] : index -> tensor<?xindex>
    %one = kir.broadcast %c1 over(%pairs) dims [] : index -> tensor<?xindex>
    %ev = kir.binary mul %two, %p : tensor<?xindex>
    %od = kir.binary add %ev, %one : tensor<?xindex>
    kir.parallel %rows {
    ^bb0(%b: index):
      %a = kir.gather %y[%b, %ev] : !kir.view<f32, [B, D], inout>[index, tensor<?xindex>] -> tensor<?xf32>
      %c = kir.gather %y[%b, %od] : !kir.view<f32, [B, D], inout>[index, tensor<?xindex>] -> tensor<?xf32>
      %d = kir.binary sub %a, %c : tensor<?xf32>
      kir.scatter %d, %y[%b, %ev] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, tensor<?xindex>]
      %s = kir.binary add %a, %c : tensor<?xf32>
      kir.scatter %s, %y[%b, %od] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, tensor<?xindex>]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the read at 2p + 2 is the element the even store writes at position p + 1, not at
// COM: one of the stores' own coordinates, so a position would read another's write: still refused.
module {
  kir.kernel @next_pair(%y: !kir.view<f32, [B, D], inout>, %w: !kir.view<f32, [H], in>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %nb = kir.extent "B"
    %nh = kir.extent "H"
    %rows = kir.domain %c0 to %nb
    %pairs = kir.domain %c0 to %nh
    %p = kir.indices %pairs : tensor<?xindex>
    %two = kir.broadcast %c2 over(%pairs) dims [] : index -> tensor<?xindex>
    %one = kir.broadcast %c1 over(%pairs) dims [] : index -> tensor<?xindex>
    %ev = kir.binary mul %two, %p : tensor<?xindex>
    %od = kir.binary add %ev, %one : tensor<?xindex>
    %nx = kir.binary add %ev, %two : tensor<?xindex>
    kir.parallel %rows {
    ^bb0(%b: index):
      // expected-error @+1 {{this read of the view is used after a store to the same view}}
      %a = kir.gather %y[%b, %ev] : !kir.view<f32, [B, D], inout>[index, tensor<?xindex>] -> tensor<?xf32>
      %c = kir.gather %y[%b, %nx] : !kir.view<f32, [B, D], inout>[index, tensor<?xindex>] -> tensor<?xf32>
      %d = kir.binary sub %a, %c : tensor<?xf32>
      // expected-note @+1 {{the store}}
      kir.scatter %d, %y[%b, %ev] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, tensor<?xindex>]
      // expected-note @+1 {{a use after it}}
      %s = kir.binary add %a, %c : tensor<?xf32>
      kir.scatter %s, %y[%b, %od] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, tensor<?xindex>]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A read of the view that reaches a store to it through a tensor-valued contraction (the gated
// COM: delta rule's S <- S + k (v - S^T k)^T, corpus 243): the store realizes S^T k element by element
// COM: (row by row) from rows it has already overwritten. Before (issue 47): silently wrong; after:
// COM: refused at the read, with the store.
module {
  kir.kernel @delta(%s: !kir.view<f32, [B, K, V], inout>, %k: !kir.view<f32, [B, K], in>) {
    %c0 = arith.constant 0 : index
    %nb = kir.extent "B"
    %nk = kir.extent "K"
    %nv = kir.extent "V"
    %rows = kir.domain %c0 to %nb
    %dk = kir.domain %c0 to %nk
    %dv = kir.domain %c0 to %nv
    kir.parallel %rows {
    ^bb0(%b: index):
      %kk = kir.load %k[%b, %dk] : !kir.view<f32, [B, K], in>[index, !kir.domain] -> tensor<?xf32>
      // expected-error @below {{reaches a store to the same view in the member through an op that combines its elements across positions}}
      %old = kir.load %s[%b, %dk, %dv] : !kir.view<f32, [B, K, V], inout>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %p = kir.contract %old, %kk reduce([0], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
      %pb = kir.broadcast %p over(%dk, %dv) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
      %new = kir.binary sub %old, %pb : tensor<?x?xf32>
      // expected-note @below {{the store}}
      kir.store %new, %s[%b, %dk, %dv] : tensor<?x?xf32>, !kir.view<f32, [B, K, V], inout>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not refuse: the combined value is a scalar (a row's sum), realized where it stands,
// COM: before the store (an in-place normalization of each row).
// CHECK-LABEL: pgpu.kernel @normalize
module {
  kir.kernel @normalize(%y: !kir.view<f32, [B, D], inout>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %nd = kir.extent "D"
    %rows = kir.domain %c0 to %nb
    %dims = kir.domain %c0 to %nd
    kir.parallel %rows {
    ^bb0(%b: index):
      %r = kir.load %y[%b, %dims] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      %sum = kir.reduce %r axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%x: f32, %w: f32):
        %a = kir.binary add %x, %w : f32
        kir.yield %a : f32
      }
      %sb = kir.broadcast %sum over(%dims) dims [] : f32 -> tensor<?xf32>
      %n = kir.binary div %r, %sb : tensor<?xf32>
      kir.store %n, %y[%b, %dims] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Two rotate-halves in one member, of y then of z (bench/corpus/245_mrope_qwen2vl: q's, then k's): z's
// COM: reads stand after y's stores but before any store to z, so they read z's old values. Before: refused at
// COM: z's read (a read after the run's first store ended the rule). After: each view's pair is one element
// COM: loop that reads both halves, then writes both.
// CHECK-LABEL: pgpu.kernel @rotate_two_views
// CHECK: pgpu.foreach
// CHECK-COUNT-2: pgpu.load %y
// CHECK: pgpu.store %{{.*}}, %y
// CHECK: pgpu.store %{{.*}}, %y
// CHECK-NEXT: pgpu.yield
// CHECK: pgpu.foreach
// CHECK-COUNT-2: pgpu.load %z
// CHECK-NOT: pgpu.load %z
// CHECK: pgpu.store %{{.*}}, %z
// CHECK-NOT: pgpu.load %z
// CHECK: pgpu.store %{{.*}}, %z
// CHECK-NEXT: pgpu.yield
module {
  kir.kernel @rotate_two_views(%y: !kir.view<f32, [B, D], inout>, %z: !kir.view<f32, [B, D], inout>,
                               %c: !kir.view<f32, [B, H], in>) {
    %c0 = arith.constant 0 : index
    %nb = kir.extent "B"
    %nd = kir.extent "D"
    %nh = kir.extent "H"
    %c2 = arith.constant 2 : index
    %rows = kir.domain %c0 to %nb
    %dims = kir.domain %c0 to %nd
    %half = kir.domain %c0 to %nh
    %lo = kir.subregion %dims[%c0 : %nh]
    %h2 = kir.binary mul %c2, %nh : index
    %hi = kir.subregion %dims[%nh : %h2]
    kir.parallel %rows {
    ^bb0(%b: index):
      %cc = kir.load %c[%b, %half] : !kir.view<f32, [B, H], in>[index, !kir.domain] -> tensor<?xf32>
      %x1 = kir.load %y[%b, %lo] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      %x2 = kir.load %y[%b, %hi] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      %a = kir.binary mul %x1, %cc : tensor<?xf32>
      %n = kir.binary sub %a, %x2 : tensor<?xf32>
      kir.store %n, %y[%b, %lo] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      %m = kir.binary mul %x2, %cc : tensor<?xf32>
      %p = kir.binary add %m, %x1 : tensor<?xf32>
      kir.store %p, %y[%b, %hi] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      %z1 = kir.load %z[%b, %lo] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      %z2 = kir.load %z[%b, %hi] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      %za = kir.binary mul %z1, %cc : tensor<?xf32>
      %zn = kir.binary sub %za, %z2 : tensor<?xf32>
      kir.store %zn, %z[%b, %lo] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      %zm = kir.binary mul %z2, %cc : tensor<?xf32>
      %zp = kir.binary add %zm, %z1 : tensor<?xf32>
      kir.store %zp, %z[%b, %hi] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: after y's rotate-half, z's read is used after a store to z whose slice [1, D) overlaps
// COM: the read's [0, D-1) (a shifted read after write): still refused at z's read.
module {
  kir.kernel @rotate_then_shifted(%y: !kir.view<f32, [B, D], inout>, %z: !kir.view<f32, [B, D], inout>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    %nb = kir.extent "B"
    %nd = kir.extent "D"
    %rows = kir.domain %c0 to %nb
    %dims = kir.domain %c0 to %nd
    %end = kir.binary sub %nd, %c1 : index
    %lo = kir.subregion %dims[%c0 : %end]
    %hi = kir.subregion %dims[%c1 : %nd]
    kir.parallel %rows {
    ^bb0(%b: index):
      %x1 = kir.load %y[%b, %lo] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      %ones0 = kir.broadcast %one over(%lo) dims [] : f32 -> tensor<?xf32>
      %x2 = kir.binary add %x1, %ones0 : tensor<?xf32>
      kir.store %x2, %y[%b, %lo] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      // expected-error @+1 {{this read of the view is used after a store to the same view}}
      %a = kir.load %z[%b, %lo] : !kir.view<f32, [B, D], inout>[index, !kir.domain] -> tensor<?xf32>
      // expected-note @+1 {{the store}}
      kir.store %a, %z[%b, %hi] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      %ones = kir.broadcast %one over(%lo) dims [] : f32 -> tensor<?xf32>
      // expected-note @+1 {{a use after it}}
      %a1 = kir.binary add %a, %ones : tensor<?xf32>
      kir.store %a1, %z[%b, %lo] : tensor<?xf32>, !kir.view<f32, [B, D], inout>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
