// RUN: tessel-opt %s -split-input-file -kir-vjp="wrt=x" | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s -split-input-file -kir-vjp="wrt=x" -kir-to-pgpu > /dev/null

// COM: x is used twice (y = x * sum(x)): d_x is the sum of both uses' contributions, the reduction's
// COM: cotangent spread back over the row with broadcast_as. The output y becomes the input d_y in its
// COM: place; d_x is appended; the store to y becomes a read of d_y at the same coordinates.
// CHECK-LABEL: kir.kernel @scaled_vjp
// CHECK-SAME: (%x: !kir.view<f32, [M, N], in>, %d_y: !kir.view<f32, [M, N], in>, %d_x: !kir.view<f32, [M, N], out>)
// CHECK: ^bb0(%[[I:.*]]: index):
// CHECK: %[[ROW:.*]] = kir.load %x[%[[I]], %[[DN:[0-9a-z_]+]]]
// CHECK: %[[S:.*]] = kir.reduce %[[ROW]] axes [0]
// CHECK: %[[SB:.*]] = kir.broadcast %[[S]]
// CHECK: %[[G:.*]] = kir.load %d_y[%[[I]], %[[DN]]]
// CHECK: %[[GX:.*]] = kir.binary mul %[[G]], %[[SB]]
// CHECK: %[[GS:.*]] = kir.binary mul %[[G]], %[[ROW]]
// CHECK: %[[T:.*]] = kir.reduce %[[GS]] axes [0]
// CHECK: %[[TB:.*]] = kir.broadcast_as %[[T]] to %[[ROW]] dims []
// CHECK: %[[D:.*]] = kir.binary add %[[GX]], %[[TB]]
// CHECK: kir.store %[[D]], %d_x[%[[I]], %[[DN]]]
// CHECK-NOT: kir.store
module {
  kir.kernel @scaled(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %s = kir.reduce %row axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %sb = kir.broadcast %s over(%dn) dims [] : f32 -> tensor<?xf32>
      %out = kir.binary mul %row, %sb : tensor<?xf32>
      kir.store %out, %y[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A row maximum's cotangent is split equally among the members equal to it (torch.amax):
// COM: a mask, its count, the share, selected back.
// CHECK-LABEL: kir.kernel @rowmax_vjp
// CHECK: %[[ROW:.*]] = kir.load %x
// CHECK: %[[MX:.*]] = kir.reduce %[[ROW]]
// CHECK: %[[G:.*]] = kir.load %d_y[%{{.*}}] : !kir.view<f32, [M], in>[index] -> f32
// CHECK: %[[MB:.*]] = kir.broadcast_as %[[MX]] to %[[ROW]] dims []
// CHECK: %[[HIT:.*]] = kir.cmp eq %[[ROW]], %[[MB]]
// CHECK: %[[ONES:.*]] = kir.select %[[HIT]]
// CHECK: %[[COUNT:.*]] = kir.reduce %[[ONES]] axes [0]
// CHECK: binary add
// CHECK: %[[SHARE:.*]] = kir.binary div %[[G]], %[[COUNT]] : f32
// CHECK: %[[SB:.*]] = kir.broadcast_as %[[SHARE]] to %[[ROW]] dims []
// CHECK: %[[D:.*]] = kir.select %[[HIT]], %[[SB]], %{{.*}}
// CHECK: kir.store %[[D]], %d_x
module {
  kir.kernel @rowmax(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M], out>) {
    %c0 = arith.constant 0 : index
    %ninf = arith.constant 0xFF800000 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %mx = kir.reduce %row axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary max %a, %b : f32
        kir.yield %c : f32
      }
      kir.store %mx, %y[%i] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A contraction's two cotangents are contractions in KIR's own form: dA = dC B^T pairs dC's
// COM: column axis with B's (reduce([1], [1])), dB = A^T dC pairs the row axes (reduce([0], [0])). The
// COM: products run in the operands' f16 with the forward's f32 accumulator. Only x is differentiated
// COM: here: w gets no cotangent output and no contraction of its own.
// CHECK-LABEL: kir.kernel @gemm_vjp
// CHECK-SAME: (%x: !kir.view<f16, [M, K], in>, %w: !kir.view<f16, [K, N], in>, %d_c: !kir.view<f32, [M, N], in>, %d_x: !kir.view<f16, [M, K], out>)
// CHECK: %[[W:.*]] = kir.load %w
// CHECK: %[[G:.*]] = kir.load %d_c
// CHECK: %[[G16:.*]] = kir.cast %[[G]] : tensor<?x?xf32> to tensor<?x?xf16>
// CHECK: %[[DX:.*]] = kir.contract %[[G16]], %[[W]] reduce([1], [1]) batch([], []) : tensor<?x?xf16>, tensor<?x?xf16> -> tensor<?x?xf32>
// CHECK-NOT: kir.contract
// CHECK: %[[DX16:.*]] = kir.cast %[[DX]] : tensor<?x?xf32> to tensor<?x?xf16>
// CHECK: kir.store %[[DX16]], %d_x
module {
  kir.kernel @gemm(%x: !kir.view<f16, [M, K], in>, %w: !kir.view<f16, [K, N], in>, %c: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %n = kir.extent "N"
    %k = kir.extent "K"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %dk = kir.domain %c0 to %k
    %at = kir.load %x[%dm, %dk] : !kir.view<f16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
    %bt = kir.load %w[%dk, %dn] : !kir.view<f16, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
    %ct = kir.contract %at, %bt reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?x?xf16> -> tensor<?x?xf32>
    kir.store %ct, %c[%dm, %dn] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
}

// -----

// COM: Must not differentiate what does not depend on x: y reads only w, so y's computation and the
// COM: read of d_y are gone, and d_x is zeros at the coordinates x was read at.
// CHECK-LABEL: kir.kernel @unused_vjp
// CHECK-NOT: kir.load %w
// CHECK-NOT: kir.load %d_y
// CHECK: %[[X:.*]] = kir.load %x
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ZS:.*]] = kir.broadcast_as %[[Z]] to %[[X]] dims []
// CHECK: kir.store %[[ZS]], %d_x
// CHECK-NOT: kir.store
module {
  kir.kernel @unused(%x: !kir.view<f32, [N], in>, %w: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {
    %c0 = arith.constant 0 : index
    %n = kir.extent "N"
    %dn = kir.domain %c0 to %n
    %xs = kir.load %x[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %ws = kir.load %w[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %e = kir.unary exp %ws : tensor<?xf32>
    kir.store %e, %y[%dn] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    kir.return
  }
}

// -----

// COM: Two reads of x at the same coordinates: one store of the sum of their cotangents.
// CHECK-LABEL: kir.kernel @reread_vjp
// CHECK: %[[A:.*]] = kir.load %x[%[[D:.*]]] :
// CHECK: %[[B:.*]] = kir.load %x[%[[D]]] :
// CHECK: %[[E:.*]] = kir.unary exp %[[A]]
// CHECK: %[[G:.*]] = kir.load %d_y
// CHECK: %[[GE:.*]] = kir.binary mul %[[G]], %[[B]]
// CHECK: %[[GB:.*]] = kir.binary mul %[[G]], %[[E]]
// CHECK: %[[GA:.*]] = kir.binary mul %[[GE]], %[[E]]
// CHECK: %[[S:.*]] = kir.binary add %[[GA]], %[[GB]]
// CHECK: kir.store %[[S]], %d_x[%[[D]]]
// CHECK-NOT: kir.store
module {
  kir.kernel @reread(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {
    %c0 = arith.constant 0 : index
    %n = kir.extent "N"
    %dn = kir.domain %c0 to %n
    %a = kir.load %x[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %b = kir.load %x[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %e = kir.unary exp %a : tensor<?xf32>
    %p = kir.binary mul %e, %b : tensor<?xf32>
    kir.store %p, %y[%dn] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    kir.return
  }
}

// -----

// COM: x read once at kernel level and used by every member of a parallel: its cotangent is a sum over
// COM: the members. Each member's contribution d_y[i, :] * exp(w) is recomputed at kernel level with the
// COM: rows first (the member's read of d_y read over the rows, exp(w), the same in every member, cloned
// COM: and spread over them) and summed over the rows: the column sum a user writes (corpus 83), not a
// COM: buffer of every member's contribution. The parallel, left without effects, goes.
// CHECK-LABEL: kir.kernel @shared_vjp
// CHECK: %[[DM:.*]] = kir.domain
// CHECK: %[[X:.*]] = kir.load %x[%[[DN:[0-9a-z_]+]]]
// CHECK-NOT: kir.buffer
// CHECK-NOT: kir.parallel
// CHECK: %[[G:.*]] = kir.load %d_y[%[[DM]], %[[DN]]] : {{.*}} -> tensor<?x?xf32>
// CHECK: %[[E:.*]] = kir.unary exp %[[X]] : tensor<?xf32>
// CHECK: %[[EE:.*]] = kir.broadcast_as %[[E]] to %[[G]] dims [1]
// CHECK: %[[C:.*]] = kir.binary mul %[[G]], %[[EE]] : tensor<?x?xf32>
// CHECK: %[[SUM:.*]] = kir.reduce %[[C]] axes [0]
// CHECK: kir.store %[[SUM]], %d_x[%[[DN]]]
module {
  kir.kernel @shared(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %w = kir.load %x[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    kir.parallel %dm {
    ^bb0(%i: index):
      %e = kir.unary exp %w : tensor<?xf32>
      kir.store %e, %y[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}


// -----

// COM: The weight x of an RMSNorm written one member per row: each member's contribution needs its row's
// COM: rsqrt, a per-member scalar. It is kept: a buffer over the rows that each member stores its own
// COM: to, read whole after the parallel; the rest (the reads of x and d_y) is recomputed over the rows.
// CHECK-LABEL: kir.kernel @rms_vjp
// CHECK: %[[R:.*]] = kir.buffer over(%[[DM:[0-9a-z_]+]]) first_write : !kir.buffer<tensor<?xf32>>
// CHECK: kir.parallel %[[DM]]
// CHECK: ^bb0(%[[I:.*]]: index):
// CHECK: kir.load %rows[%[[I]], %[[DN:[0-9a-z_]+]]]
// CHECK: %[[INV:.*]] = kir.unary rsqrt
// CHECK: kir.buffer_store %[[INV]], %[[R]][%[[I]]] : f32
// CHECK: kir.yield
// CHECK-DAG: kir.load %rows[%[[DM]], %[[DN]]] : {{.*}} -> tensor<?x?xf32>
// CHECK-DAG: kir.load %d_y[%[[DM]], %[[DN]]] : {{.*}} -> tensor<?x?xf32>
// CHECK-DAG: %[[RS:.*]] = kir.buffer_load %[[R]][%[[DM]]] : {{.*}} -> tensor<?xf32>
// CHECK: kir.broadcast %[[RS]] over(%[[DM]], %[[DN]]) dims [0]
// CHECK: %[[SUM:.*]] = kir.reduce %{{.*}} axes [0] {{.*}} (tensor<?x?xf32>) -> (tensor<?xf32>)
// CHECK: kir.store %[[SUM]], %d_x[%[[DN]]]
module {
  kir.kernel @rms(%rows: !kir.view<f32, [M, N], in>, %x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.000000e+00 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %wt = kir.load %x[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %rows[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %sq = kir.binary mul %row, %row : tensor<?xf32>
      %s = kir.reduce %sq axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %r = kir.unary rsqrt %s : f32
      %rr = kir.broadcast %r over(%dn) dims [] : f32 -> tensor<?xf32>
      %xr = kir.binary mul %row, %rr : tensor<?xf32>
      %o = kir.binary mul %xr, %wt : tensor<?xf32>
      kir.store %o, %y[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not lift: the member's contribution reads z under a mask (a masked read is not recomputed
// COM: over the rows): each member writes it to a buffer over (rows, x's axes), summed after the parallel.
// CHECK-LABEL: kir.kernel @masked_vjp
// CHECK: %[[BUF:.*]] = kir.buffer over(%[[DM:[0-9a-z_]+]], %[[DN:[0-9a-z_]+]]) first_write : !kir.buffer<tensor<?x?xf32>>
// CHECK: kir.parallel %[[DM]]
// CHECK: kir.buffer_store %{{.*}}, %[[BUF]][%{{.*}}, %[[DN]]]
// CHECK: kir.yield
// CHECK: %[[ALL:.*]] = kir.buffer_load %[[BUF]][%[[DM]], %[[DN]]]
// CHECK: kir.reduce %[[ALL]] axes [0]
module {
  kir.kernel @masked(%x: !kir.view<f32, [N], in>, %z: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>,
                     %ok: i1) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.000000e+00 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %w = kir.load %x[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    kir.parallel %dm {
    ^bb0(%i: index):
      %zr = kir.load %z[%i, %dn] valid %ok : i1 fill %zero : f32 : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %p = kir.binary mul %w, %zr : tensor<?xf32>
      kir.store %p, %y[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: An input the kernel never reads (a bias under HAS_BIAS = false) has a zero cotangent, written over
// COM: its whole view at kernel level; y, which x does not reach, is neither computed nor read.
// CHECK-LABEL: kir.kernel @unread_vjp
// CHECK-SAME: (%a: !kir.view<f32, [N], in>, %x: !kir.view<f32, [N, 4], in>, %d_y: !kir.view<f32, [N], in>, %d_x: !kir.view<f32, [N, 4], out>)
// CHECK-NOT: kir.load
// CHECK: %[[N:.*]] = kir.extent "N"
// CHECK: %[[DN:.*]] = kir.domain %{{.*}} to %[[N]]
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[D4:.*]] = kir.domain %{{.*}} to %[[C4]]
// CHECK: %[[Z:.*]] = kir.broadcast %{{.*}} over(%[[DN]], %[[D4]]) dims [] : f32 -> tensor<?x?xf32>
// CHECK: kir.store %[[Z]], %d_x[%[[DN]], %[[D4]]]
// CHECK-NEXT: kir.return
module {
  kir.kernel @unread(%a: !kir.view<f32, [N], in>, %x: !kir.view<f32, [N, 4], in>, %y: !kir.view<f32, [N], out>) {
    %c0 = arith.constant 0 : index
    %n = kir.extent "N"
    %dn = kir.domain %c0 to %n
    %as = kir.load %a[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %e = kir.unary exp %as : tensor<?xf32>
    kir.store %e, %y[%dn] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    kir.return
  }
}

// -----

// COM: A bf16 product whose f32 accumulator is cast to the bf16 output: the output cotangent cast up
// COM: (the cast's rule) and back down (the product runs in bf16) is one value, so the contraction reads
// COM: d_c as loaded, with no cast between.
// CHECK-LABEL: kir.kernel @mm16_vjp
// CHECK: %[[W:.*]] = kir.load %w
// CHECK: %[[G:.*]] = kir.load %d_c
// CHECK-NOT: kir.cast
// CHECK: %[[DX:.*]] = kir.contract %[[G]], %[[W]] reduce([1], [1]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
// CHECK: kir.cast %[[DX]] : tensor<?x?xf32> to tensor<?x?xbf16>
module {
  kir.kernel @mm16(%x: !kir.view<bf16, [M, K], in>, %w: !kir.view<bf16, [K, N], in>, %c: !kir.view<bf16, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %n = kir.extent "N"
    %k = kir.extent "K"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %dk = kir.domain %c0 to %k
    %at = kir.load %x[%dm, %dk] : !kir.view<bf16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %bt = kir.load %w[%dk, %dn] : !kir.view<bf16, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xbf16>
    %ct = kir.contract %at, %bt reduce([1], [0]) batch([], []) : tensor<?x?xbf16>, tensor<?x?xbf16> -> tensor<?x?xf32>
    %cb = kir.cast %ct : tensor<?x?xf32> to tensor<?x?xbf16>
    kir.store %cb, %c[%dm, %dn] : tensor<?x?xbf16>, !kir.view<bf16, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
}

// -----

// COM: A cumsum's cotangent is the reverse cumsum of the cotangent (same exclusivity): member j reaches
// COM: the results at and after it. A scan with another combine (a cummax) is refused at the op.
// CHECK-LABEL: kir.kernel @cumsum_vjp
// CHECK: kir.parallel
// CHECK: %[[G:.*]] = kir.load %d_y
// CHECK: %[[R:.*]] = kir.scan %[[G]] axis 0 identity(%{{.*}} : f32) exclusive reverse
// CHECK: kir.binary add
// CHECK: kir.store %[[R]], %d_x
module {
  kir.kernel @cumsum(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.000000e+00 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %s = kir.scan %row axis 0 identity(%zero : f32) exclusive : (tensor<?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      kir.store %s, %y[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not refuse: the region fold reads only z, which is not differentiated (wrt=x), so the
// COM: fold is forward code the derivative recomputes as it is; y = x * fold(z) gives d_x = d_y * m.
// CHECK-LABEL: kir.kernel @fold_of_constant_vjp
// CHECK: %[[M:.*]] = kir.region_fold
// CHECK: %[[MB:.*]] = kir.broadcast %[[M]]
// CHECK: %[[DY:.*]] = kir.load %d_y
// CHECK: %[[DX:.*]] = kir.binary mul %[[DY]], %[[MB]]
// CHECK: kir.store %[[DX]], %d_x
kir.kernel @fold_of_constant(%x: !kir.view<f32, [N], in>, %z: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %zs = kir.load %z[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  %m = kir.region_fold sources(%zs : tensor<?xf32>) axis 0 identity(%ninf : f32) -> (f32)
  summarize {
  ^bb0(%s: tensor<?xf32>):
    %r = kir.reduce %s axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
    ^bb0(%a: f32, %b: f32):
      %c = kir.binary max %a, %b : f32
      kir.yield %c : f32
    }
    kir.yield %r : f32
  } combine {
  ^bb0(%m1: f32, %m2: f32):
    %mm = kir.binary max %m1, %m2 : f32
    kir.yield %mm : f32
  }
  %xs = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  %mb = kir.broadcast %m over(%d) dims [] : f32 -> tensor<?xf32>
  %v = kir.binary mul %xs, %mb : tensor<?xf32>
  kir.store %v, %y[%d] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.return
}
