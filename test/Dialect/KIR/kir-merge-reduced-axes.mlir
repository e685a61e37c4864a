// RUN: tessel-opt %s -split-input-file -kir-merge-reduced-axes -verify-diagnostics | FileCheck %s --enable-var-scope
// RUN: tessel-opt %s -split-input-file -kir-merge-reduced-axes -kir-online-folds -kir-to-pgpu > /dev/null

// COM: Paged decode attention in its natural spelling (corpus 46): the scores over [blocks, slots]
// COM: of K[table[b, blocks], slots], masked past the context, a maximum and the sums over both axes.
// COM: After: one axis t of |blocks| * |slots| members, the cache read a joint gather at
// COM: (table[b, t / BS], t % BS), every reduction over [0], the position (t / BS) * BS + t % BS
// COM: read as t itself (a fresh kir.indices: the mask's own).
// COM: The kernel-level kir.indices of the slots, read only by this body, goes.
// CHECK-LABEL: kir.kernel @paged
// CHECK-NOT: kir.indices
// CHECK: kir.parallel
// CHECK: %[[NB:.*]] = kir.binary div
// CHECK: %[[MINE:.*]] = kir.subregion
// CHECK: %[[N:.*]] = kir.binary mul %[[NB]], %[[BS:.*]] : index
// CHECK: %[[T:.*]] = kir.domain %{{.*}} to %[[N]]
// CHECK: %[[I1:.*]] = kir.indices %[[T]]
// CHECK: %[[S1:.*]] = kir.broadcast %[[BS]] over(%[[T]]) dims []
// CHECK: %[[BLK:.*]] = kir.binary div %[[I1]], %[[S1]]
// CHECK: %[[PHYS:.*]] = kir.gather %table[%{{.*}}, %[[BLK]]] : {{.*}} -> tensor<?xi32>
// CHECK: %[[PI:.*]] = kir.cast %[[PHYS]] : tensor<?xi32> to tensor<?xindex>
// CHECK: %[[I2:.*]] = kir.indices %[[T]]
// CHECK: %[[SLOT:.*]] = kir.binary rem %[[I2]], %{{.*}}
// CHECK: %[[K:.*]] = kir.gather %k[%[[PI]], %[[SLOT]], %[[DD:.*]]] {joint = array<i64: -1, 0, -1>} : {{.*}} -> tensor<?x?xf16>
// CHECK: %[[V:.*]] = kir.gather %v[%{{.*}}, %{{.*}}, %[[DD]]] {joint = array<i64: -1, 0, -1>} : {{.*}} -> tensor<?x?xf16>
// CHECK: kir.contract %[[K]], %{{.*}} reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
// CHECK: %[[POS:.*]] = kir.indices %[[T]]
// CHECK-NOT: kir.binary rem
// CHECK: kir.cmp lt %[[POS]], %{{.*}} : tensor<?xindex>
// CHECK: kir.reduce %{{.*}} axes [0] identity
// CHECK: kir.contract %{{.*}}, %[[V]] reduce([0], [0]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
// CHECK: kir.reduce %{{.*}} axes [0] identity
// CHECK-NOT: kir.reduce
// CHECK: kir.store
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @paged(%q: !kir.view<f16, [B, D], in>, %k: !kir.view<f16, [N, BS, D], in>, %v: !kir.view<f16, [N, BS, D], in>, %table: !kir.view<i32, [B, MB], in> {kir.range = [0, "N"]}, %lens: !kir.view<i32, [B], in>, %out: !kir.view<f32, [B, D], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %nd = kir.extent "D"
    %bs = kir.extent "BS"
    %mb = kir.extent "MB"
    %blocks = kir.domain %c0 to %mb
    %slots = kir.domain %c0 to %bs
    %dd = kir.domain %c0 to %nd
    %rows = kir.domain %c0 to %nb
    %slot_ids = kir.indices %slots : tensor<?xindex>
    // expected-remark @below {{kir-merge-reduced-axes: two axes reduced together through an indexed read became one axis}}
    kir.parallel %rows {
    ^bb0(%b: index):
      %l32 = kir.load %lens[%b] : !kir.view<i32, [B], in>[index] -> i32
      %l = kir.cast %l32 : i32 to index
      %l1 = kir.binary add %l, %bs : index
      %l2 = kir.binary sub %l1, %c1 : index
      %nblk = kir.binary div %l2, %bs : index
      %mine = kir.subregion %blocks[%c0 : %nblk]
      %phys = kir.load %table[%b, %mine] : !kir.view<i32, [B, MB], in>[index, !kir.domain] -> tensor<?xi32>
      %pk = kir.cast %phys : tensor<?xi32> to tensor<?xindex>
      %kk = kir.gather %k[%pk, %slots, %dd] : !kir.view<f16, [N, BS, D], in>[tensor<?xindex>, !kir.domain, !kir.domain] -> tensor<?x?x?xf16>
      %pv = kir.cast %phys : tensor<?xi32> to tensor<?xindex>
      %vv = kir.gather %v[%pv, %slots, %dd] : !kir.view<f16, [N, BS, D], in>[tensor<?xindex>, !kir.domain, !kir.domain] -> tensor<?x?x?xf16>
      %qq = kir.load %q[%b, %dd] : !kir.view<f16, [B, D], in>[index, !kir.domain] -> tensor<?xf16>
      %s = kir.contract %kk, %qq reduce([2], [0]) batch([], []) : tensor<?x?x?xf16>, tensor<?xf16> -> tensor<?x?xf32>
      %bi = kir.indices %mine : tensor<?xindex>
      %bsb = kir.broadcast %bs over(%mine) dims [] : index -> tensor<?xindex>
      %base = kir.binary mul %bi, %bsb : tensor<?xindex>
      %base2 = kir.broadcast %base over(%mine, %slots) dims [0] : tensor<?xindex> -> tensor<?x?xindex>
      %off2 = kir.broadcast %slot_ids over(%mine, %slots) dims [1] : tensor<?xindex> -> tensor<?x?xindex>
      %pos = kir.binary add %base2, %off2 : tensor<?x?xindex>
      %lb = kir.broadcast %l over(%mine, %slots) dims [] : index -> tensor<?x?xindex>
      %c = kir.cmp lt %pos, %lb : tensor<?x?xindex>
      %nf = kir.broadcast %ninf over(%mine, %slots) dims [] : f32 -> tensor<?x?xf32>
      %sm = kir.select %c, %s, %nf : tensor<?x?xi1>, tensor<?x?xf32>
      %m = kir.reduce %sm axes [0, 1] identity(%ninf : f32) : (tensor<?x?xf32>) -> (f32) {
      ^bb0(%x: f32, %y: f32):
        %r = kir.binary max %x, %y : f32
        kir.yield %r : f32
      }
      %mb2 = kir.broadcast %m over(%mine, %slots) dims [] : f32 -> tensor<?x?xf32>
      %sh = kir.binary sub %sm, %mb2 : tensor<?x?xf32>
      %p = kir.unary exp %sh : tensor<?x?xf32>
      %ph = kir.cast %p : tensor<?x?xf32> to tensor<?x?xf16>
      %acc = kir.contract %ph, %vv reduce([0, 1], [0, 1]) batch([], []) : tensor<?x?xf16>, tensor<?x?x?xf16> -> tensor<?xf32>
      %den = kir.reduce %p axes [0, 1] identity(%zero : f32) : (tensor<?x?xf32>) -> (f32) {
      ^bb0(%x: f32, %y: f32):
        %r = kir.binary add %x, %y : f32
        kir.yield %r : f32
      }
      %denb = kir.broadcast %den over(%dd) dims [] : f32 -> tensor<?xf32>
      %o = kir.binary div %acc, %denb : tensor<?xf32>
      kir.store %o, %out[%b, %dd] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: An outer domain from 2: the block coordinate is 2 + t / S; a plain sum of the pages.
// CHECK-LABEL: kir.kernel @from_two
// CHECK: %[[W:.*]] = kir.binary sub %[[HI:.*]], %[[C2:.*]] : index
// CHECK: %[[N:.*]] = kir.binary mul %[[W]], %{{.*}} : index
// CHECK: %[[T:.*]] = kir.domain %{{.*}} to %[[N]]
// CHECK: %[[A:.*]] = kir.binary div
// CHECK: %[[LO:.*]] = kir.broadcast %[[C2]] over(%[[T]]) dims []
// CHECK: %[[B:.*]] = kir.binary add %[[A]], %[[LO]]
// CHECK: kir.gather %table[%{{.*}}, %[[B]]]
// CHECK: kir.gather %x[%{{.*}}, %{{.*}}] {joint = array<i64: -1, 0>} : {{.*}} -> tensor<?xf32>
// CHECK: kir.reduce %{{.*}} axes [0]
kir.kernel @from_two(%x: !kir.view<f32, [N, S], in>, %table: !kir.view<i32, [B, M], in> {kir.range = [0, "N"]}, %out: !kir.view<f32, [B], out>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %nb = kir.extent "B"
  %m = kir.extent "M"
  %s = kir.extent "S"
  %rows = kir.domain %c0 to %nb
  %blocks = kir.domain %c2 to %m
  %slots = kir.domain %c0 to %s
  kir.parallel %rows {
  ^bb0(%b: index):
    %phys = kir.load %table[%b, %blocks] : !kir.view<i32, [B, M], in>[index, !kir.domain] -> tensor<?xi32>
    %pi = kir.cast %phys : tensor<?xi32> to tensor<?xindex>
    %g = kir.gather %x[%pi, %slots] : !kir.view<f32, [N, S], in>[tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
    %r = kir.reduce %g axes [0, 1] identity(%zero : f32) : (tensor<?x?xf32>) -> (f32) {
    ^bb0(%p: f32, %q: f32):
      %a = kir.binary add %p, %q : f32
      kir.yield %a : f32
    }
    kir.store %r, %out[%b] : f32, !kir.view<f32, [B], out>[index]
    kir.yield
  }
  kir.return
}

// -----

// COM: Must not fire: the slots are also reduced alone (a per-slot maximum): the pair is not
// COM: reduced together everywhere.
// CHECK-LABEL: kir.kernel @slots_alone
// CHECK: kir.gather %x[%{{.*}}, %{{.*}}] : {{.*}} -> tensor<?x?xf32>
// CHECK: kir.reduce %{{.*}} axes [0, 1]
// CHECK: kir.reduce %{{.*}} axes [1]
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @slots_alone(%x: !kir.view<f32, [N, S], in>, %table: !kir.view<i32, [B, M], in> {kir.range = [0, "N"]}, %out: !kir.view<f32, [B], out>, %first: !kir.view<f32, [B, M], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %m = kir.extent "M"
    %s = kir.extent "S"
    %rows = kir.domain %c0 to %nb
    // expected-remark @below {{kir-merge-reduced-axes: the axes stay two: a reduction over one of the axes alone ('kir.reduce')}}
    %blocks = kir.domain %c0 to %m
    %slots = kir.domain %c0 to %s
    kir.parallel %rows {
    ^bb0(%b: index):
      %phys = kir.load %table[%b, %blocks] : !kir.view<i32, [B, M], in>[index, !kir.domain] -> tensor<?xi32>
      %pi = kir.cast %phys : tensor<?xi32> to tensor<?xindex>
      %g = kir.gather %x[%pi, %slots] : !kir.view<f32, [N, S], in>[tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
      %r = kir.reduce %g axes [0, 1] identity(%zero : f32) : (tensor<?x?xf32>) -> (f32) {
      ^bb0(%p: f32, %q: f32):
        %a = kir.binary add %p, %q : f32
        kir.yield %a : f32
      }
      kir.store %r, %out[%b] : f32, !kir.view<f32, [B], out>[index]
      %rb = kir.reduce %g axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%p: f32, %q: f32):
        %a = kir.binary add %p, %q : f32
        kir.yield %a : f32
      }
      kir.store %rb, %first[%b, %blocks] : tensor<?xf32>, !kir.view<f32, [B, M], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the inner extent is a value read from memory, not known non-negative.
// CHECK-LABEL: kir.kernel @inner_unknown
// CHECK: kir.reduce %{{.*}} axes [0, 1]
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @inner_unknown(%x: !kir.view<f32, [N, S], in>, %table: !kir.view<i32, [B, M], in> {kir.range = [0, "N"]}, %w: !kir.view<i32, [B], in>, %out: !kir.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %m = kir.extent "M"
    %rows = kir.domain %c0 to %nb
    // expected-remark @below {{kir-merge-reduced-axes: the axes stay two: the inner axis's extent is not known to be non-negative}}
    %blocks = kir.domain %c0 to %m
    kir.parallel %rows {
    ^bb0(%b: index):
      %w32 = kir.load %w[%b] : !kir.view<i32, [B], in>[index] -> i32
      %wi = kir.cast %w32 : i32 to index
      %slots = kir.domain %c0 to %wi
      %phys = kir.load %table[%b, %blocks] : !kir.view<i32, [B, M], in>[index, !kir.domain] -> tensor<?xi32>
      %pi = kir.cast %phys : tensor<?xi32> to tensor<?xindex>
      %g = kir.gather %x[%pi, %slots] : !kir.view<f32, [N, S], in>[tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
      %r = kir.reduce %g axes [0, 1] identity(%zero : f32) : (tensor<?x?xf32>) -> (f32) {
      ^bb0(%p: f32, %q: f32):
        %a = kir.binary add %p, %q : f32
        kir.yield %a : f32
      }
      kir.store %r, %out[%b] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the axes in the other order (slots before blocks: xt[slots, table[b, blocks]]).
// CHECK-LABEL: kir.kernel @other_order
// CHECK: kir.reduce %{{.*}} axes [0, 1]
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @other_order(%xt: !kir.view<f32, [S, N], in>, %table: !kir.view<i32, [B, M], in> {kir.range = [0, "N"]}, %out: !kir.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %m = kir.extent "M"
    %s = kir.extent "S"
    %rows = kir.domain %c0 to %nb
    %blocks = kir.domain %c0 to %m
    // expected-remark @below {{kir-merge-reduced-axes: the axes stay two: a gather of the outer axis as a domain}}
    %slots = kir.domain %c0 to %s
    kir.parallel %rows {
    ^bb0(%b: index):
      %phys = kir.load %table[%b, %blocks] : !kir.view<i32, [B, M], in>[index, !kir.domain] -> tensor<?xi32>
      %pi = kir.cast %phys : tensor<?xi32> to tensor<?xindex>
      %g = kir.gather %xt[%slots, %pi] : !kir.view<f32, [S, N], in>[!kir.domain, tensor<?xindex>] -> tensor<?x?xf32>
      %r = kir.reduce %g axes [0, 1] identity(%zero : f32) : (tensor<?x?xf32>) -> (f32) {
      ^bb0(%p: f32, %q: f32):
        %a = kir.binary add %p, %q : f32
        kir.yield %a : f32
      }
      kir.store %r, %out[%b] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a dense read of both axes (x[b, blocks, slots]) has no index tensor to pair.
// CHECK-LABEL: kir.kernel @dense
// CHECK: kir.load %x[%{{.*}}, %{{.*}}, %{{.*}}]
// CHECK: kir.reduce %{{.*}} axes [0, 1]
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @dense(%x: !kir.view<f32, [B, M, S], in>, %out: !kir.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %m = kir.extent "M"
    %s = kir.extent "S"
    %rows = kir.domain %c0 to %nb
    // expected-remark @below {{kir-merge-reduced-axes: the axes stay two: a read of both axes as domains (no index tensor) ('kir.load')}}
    %blocks = kir.domain %c0 to %m
    %slots = kir.domain %c0 to %s
    kir.parallel %rows {
    ^bb0(%b: index):
      %g = kir.load %x[%b, %blocks, %slots] : !kir.view<f32, [B, M, S], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %r = kir.reduce %g axes [0, 1] identity(%zero : f32) : (tensor<?x?xf32>) -> (f32) {
      ^bb0(%p: f32, %q: f32):
        %a = kir.binary add %p, %q : f32
        kir.yield %a : f32
      }
      kir.store %r, %out[%b] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the block ids over the outer axis are also stored alone (a value over one axis
// COM: leaves the pair).
// CHECK-LABEL: kir.kernel @blocks_stored
// CHECK: kir.gather %x[%{{.*}}, %{{.*}}] : {{.*}} -> tensor<?x?xf32>
// CHECK: kir.reduce %{{.*}} axes [0, 1]
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @blocks_stored(%x: !kir.view<f32, [N, S], in>, %table: !kir.view<i32, [B, M], in> {kir.range = [0, "N"]}, %out: !kir.view<f32, [B], out>, %ids: !kir.view<i32, [B, M], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %m = kir.extent "M"
    %s = kir.extent "S"
    %rows = kir.domain %c0 to %nb
    // expected-remark @below {{kir-merge-reduced-axes: the axes stay two: a use of the axes this pass does not rebuild ('kir.store')}}
    %blocks = kir.domain %c0 to %m
    %slots = kir.domain %c0 to %s
    kir.parallel %rows {
    ^bb0(%b: index):
      %phys = kir.load %table[%b, %blocks] : !kir.view<i32, [B, M], in>[index, !kir.domain] -> tensor<?xi32>
      %pi = kir.cast %phys : tensor<?xi32> to tensor<?xindex>
      %g = kir.gather %x[%pi, %slots] : !kir.view<f32, [N, S], in>[tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
      %r = kir.reduce %g axes [0, 1] identity(%zero : f32) : (tensor<?x?xf32>) -> (f32) {
      ^bb0(%p: f32, %q: f32):
        %a = kir.binary add %p, %q : f32
        kir.yield %a : f32
      }
      kir.store %r, %out[%b] : f32, !kir.view<f32, [B], out>[index]
      kir.store %phys, %ids[%b, %blocks] : tensor<?xi32>, !kir.view<i32, [B, M], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
