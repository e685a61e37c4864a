// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: A region fold over a domain the member defines (seed 000 §3 domains with loaded bounds: the
// COM: tokens of sequence b, `kir.domain 0 to lens[b]`) whose source is read through index tensors
// COM: (a paged cache: block table[b, t // BS], slot t % BS, paired by `joint`). Before: the workset
// COM: was constructed element by element ("a domain defined inside the workset"). After: one program
// COM: per member (no lane parameter: neighbouring members fold ranges of different lengths), the
// COM: member's bound loaded before the fold, a pgpu.region_fold from 0 to max(len, 0) over BLOCK_A0-wide
// COM: tiles; the summarizer gathers the tile's block ids (valid: pos < end) and then one
// COM: [BLOCK_A0, BLOCK_D] tile of rows (seed 000 §6 index relations: both index tensors broadcast over
// COM: the tile's rows, their padded rows invalid), reduced over the tile by one pgpu.reduce.
// CHECK-LABEL: pgpu.kernel @paged_rowsum
// CHECK-SAME: params = [#pgpu.param<"BLOCK_A0", [16, 32, 64, 128, 256], 64>, #pgpu.param<"BLOCK_D", [16, 32, 64, 128, 256], 128, covers = "D">]
// CHECK: %[[LEN:.*]] = pgpu.load %lens[%{{.*}}] valid %{{.*}} : i1 fill %{{.*}} : i32 : !pgpu.view<i32, [B], in>[index] -> i32
// CHECK-NEXT: %[[N:.*]] = pgpu.cast %[[LEN]] : i32 to index
// CHECK: %[[SPAN:.*]] = pgpu.binary sub %[[N]], %c0 : index
// CHECK: %[[SIZE:.*]] = pgpu.binary max %[[SPAN]], %{{.*}} : index
// CHECK: %[[STEP:.*]] = pgpu.param "BLOCK_A0" : index
// CHECK: pgpu.region_fold %{{.*}} to %[[SIZE]] step %[[STEP]] identity(%{{.*}} : !pgpu.fragment<f32, [BLOCK_D]>)
// CHECK-NEXT: ^bb0(%[[BEGIN:[^:]*]]: index, %[[END:[^:]*]]: index,
// CHECK-NEXT: %[[POS:.*]] = pgpu.iota %[[BEGIN]] : !pgpu.fragment<index, [BLOCK_A0]>
// CHECK-NEXT: %[[ENDS:.*]] = pgpu.splat %[[END]]
// CHECK-NEXT: %[[OK:.*]] = pgpu.cmp lt %[[POS]], %[[ENDS]] : !pgpu.fragment<index, [BLOCK_A0]>
// CHECK: %[[BLK:.*]] = pgpu.binary div %[[POS]], %{{.*}} : !pgpu.fragment<index, [BLOCK_A0]>
// CHECK: %[[IDS:.*]] = pgpu.gather %{{.*}}[%{{.*}}, %[[BLK]]] valid %[[OK]] : !pgpu.fragment<i1, [BLOCK_A0]> {{.*}} -> !pgpu.fragment<i32, [BLOCK_A0]>
// CHECK: %[[ROWOK:.*]] = pgpu.broadcast %[[OK]] dims [0] : !pgpu.fragment<i1, [BLOCK_A0]> -> !pgpu.fragment<i1, [BLOCK_A0, BLOCK_D]>
// CHECK: %[[TILE:.*]] = pgpu.gather %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] valid %[[ROWOK]] : !pgpu.fragment<i1, [BLOCK_A0, BLOCK_D]> {{.*}} -> !pgpu.fragment<f32, [BLOCK_A0, BLOCK_D]>
// CHECK: pgpu.reduce %{{.*}} axes [0]
// CHECK: } combine {
// CHECK: pgpu.store
module {
  kir.kernel @paged_rowsum(%cache: !kir.view<f32, [NB, BS, D], in>, %table: !kir.view<i32, [B, MB], in> {kir.range = [0, "NB"]},
                           %lens: !kir.view<i32, [B], in>, %y: !kir.view<f32, [B, D], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %bs = kir.extent "BS"
    %nd = kir.extent "D"
    %db = kir.domain %c0 to %nb
    %dd = kir.domain %c0 to %nd
    %acc0 = kir.broadcast %zero over(%dd) dims [] : f32 -> tensor<?xf32>
    kir.parallel %db {
    ^bb0(%b: index):
      %len = kir.load %lens[%b] : !kir.view<i32, [B], in>[index] -> i32
      %n = kir.cast %len : i32 to index
      %toks = kir.domain %c0 to %n
      %t = kir.indices %toks : tensor<?xindex>
      %bsv = kir.broadcast %bs over(%toks) dims [] : index -> tensor<?xindex>
      %blk = kir.binary div %t, %bsv : tensor<?xindex>
      %ids = kir.gather %table[%b, %blk] : !kir.view<i32, [B, MB], in>[index, tensor<?xindex>] -> tensor<?xi32>
      %slot = kir.binary rem %t, %bsv : tensor<?xindex>
      %idx = kir.cast %ids : tensor<?xi32> to tensor<?xindex>
      %rows = kir.gather %cache[%idx, %slot, %dd] {joint = array<i64: -1, 0, -1>}
          : !kir.view<f32, [NB, BS, D], in>[tensor<?xindex>, tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
      %s = kir.region_fold sources(%rows : tensor<?x?xf32>) axis 0 identity(%acc0 : tensor<?xf32>) -> (tensor<?xf32>)
      summarize {
      ^bb0(%sl: tensor<?x?xf32>):
        %z = arith.constant 0.0 : f32
        %col = kir.reduce %sl axes [0] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        kir.yield %col : tensor<?xf32>
      } combine {
      ^bb0(%a1: tensor<?xf32>, %a2: tensor<?xf32>):
        %a = kir.binary add %a1, %a2 : tensor<?xf32>
        kir.yield %a : tensor<?xf32>
      }
      kir.store %s, %y[%b, %dd] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the member's own domain is not the fold's tile but a free axis of its source
// COM: (a fold over the launch-time N of rows lens[b] wide): no block guard is built per member, so the
// COM: workset stays element by element and says why.
// CHECK-LABEL: pgpu.kernel @member_free_axis
// CHECK-NOT: pgpu.fragment
// CHECK: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @member_free_axis(%x: !kir.view<f32, [B, N, C], in>, %lens: !kir.view<i32, [B], in>,
                               %y: !kir.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %nn = kir.extent "N"
    %db = kir.domain %c0 to %nb
    %dn = kir.domain %c0 to %nn
    // expected-remark @+1 {{kir-to-pgpu: region fold constructed element by element: a tensor axis over a domain defined inside the workset}}
    kir.parallel %db {
    ^bb0(%b: index):
      %len = kir.load %lens[%b] : !kir.view<i32, [B], in>[index] -> i32
      %n = kir.cast %len : i32 to index
      %cols = kir.domain %c0 to %n
      %t = kir.load %x[%b, %dn, %cols] : !kir.view<f32, [B, N, C], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %s = kir.region_fold sources(%t : tensor<?x?xf32>) axis 0 identity(%zero : f32) -> (f32)
      summarize {
      ^bb0(%sl: tensor<?x?xf32>):
        %z = arith.constant 0.0 : f32
        %rows = kir.reduce %sl axes [1] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %r = kir.reduce %rows axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        kir.yield %r : f32
      } combine {
      ^bb0(%a: f32, %a2: f32):
        %c = kir.binary add %a, %a2 : f32
        kir.yield %c : f32
      }
      kir.store %s, %y[%b] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A gather with its own validity and fill (a masked gather, seed 000 §6) is constructed on
// COM: fragments too. Before: element by element ("a masked gather"). After: each tile gathers where
// COM: its validity (pos % 2 == 0) and the tile's bound (pos < len) both admit the member, its own
// COM: fill (1.0) elsewhere; the padded members are then zeroed for the sum.
// CHECK-LABEL: pgpu.kernel @masked_gather
// CHECK: pgpu.region_fold
// CHECK: %[[IN:.*]] = pgpu.cmp lt %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK_A0]>
// CHECK: %[[EVEN:.*]] = pgpu.cmp eq %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK_A0]>
// CHECK: %[[OK:.*]] = pgpu.binary and %[[IN]], %[[EVEN]] : !pgpu.fragment<i1, [BLOCK_A0]>
// CHECK: pgpu.gather %{{.*}}[%{{.*}}] valid %[[OK]] : !pgpu.fragment<i1, [BLOCK_A0]> fill %cst_0 : f32
// CHECK: pgpu.select %[[IN]]
// CHECK: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @masked_gather(%x: !kir.view<f32, [V], in>, %ids: !kir.view<i32, [B, L], in> {kir.range = [0, "V"]},
                            %lens: !kir.view<i32, [B], in>, %y: !kir.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %nb = kir.extent "B"
    %db = kir.domain %c0 to %nb
    kir.parallel %db {
    ^bb0(%b: index):
      %len = kir.load %lens[%b] : !kir.view<i32, [B], in>[index] -> i32
      %n = kir.cast %len : i32 to index
      %toks = kir.domain %c0 to %n
      %i = kir.load %ids[%b, %toks] : !kir.view<i32, [B, L], in>[index, !kir.domain] -> tensor<?xi32>
      %ic = kir.cast %i : tensor<?xi32> to tensor<?xindex>
      %t = kir.indices %toks : tensor<?xindex>
      %two = arith.constant 2 : index
      %twos = kir.broadcast %two over(%toks) dims [] : index -> tensor<?xindex>
      %even = kir.binary rem %t, %twos : tensor<?xindex>
      %zi = arith.constant 0 : index
      %zs = kir.broadcast %zi over(%toks) dims [] : index -> tensor<?xindex>
      %keep = kir.cmp eq %even, %zs : tensor<?xindex>
      %v = kir.gather %x[%ic] valid %keep : tensor<?xi1> fill %one : f32 : !kir.view<f32, [V], in>[tensor<?xindex>] -> tensor<?xf32>
      // expected-remark @+1 {{kir-to-pgpu: region fold constructed on fragments: one member per program}}
      %s = kir.region_fold sources(%v : tensor<?xf32>) axis 0 identity(%zero : f32) -> (f32)
      summarize {
      ^bb0(%sl: tensor<?xf32>):
        %z = arith.constant 0.0 : f32
        %r = kir.reduce %sl axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        kir.yield %r : f32
      } combine {
      ^bb0(%a: f32, %a2: f32):
        %c = kir.binary add %a, %a2 : f32
        kir.yield %c : f32
      }
      kir.store %s, %y[%b] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: The scores q . K of a member's gathered key tile (q over D, K over [T, D], paired on D, which
// COM: is K's last axis): the product takes K's layout, q broadcast onto its D axis, and is reduced
// COM: over that axis; no operand is transposed (a broadcast must keep its operand's axis order).
// CHECK-LABEL: pgpu.kernel @paged_scores_max
// CHECK: pgpu.region_fold
// CHECK: %[[K:.*]] = pgpu.gather {{.*}} -> !pgpu.fragment<f32, [BLOCK_A0, BLOCK_D]>
// CHECK-NOT: pgpu.transpose
// CHECK: %[[Q:.*]] = pgpu.broadcast %{{.*}} dims [1] : !pgpu.fragment<f32, [BLOCK_D]> -> !pgpu.fragment<f32, [BLOCK_A0, BLOCK_D]>
// CHECK-NEXT: %[[P:.*]] = pgpu.binary mul %[[Q]], %[[K]] : !pgpu.fragment<f32, [BLOCK_A0, BLOCK_D]>
// CHECK: pgpu.reduce %[[P]] axes [1] identity({{.*}}) : (!pgpu.fragment<f32, [BLOCK_A0, BLOCK_D]>) -> (!pgpu.fragment<f32, [BLOCK_A0]>)
// CHECK: } combine {
module {
  kir.kernel @paged_scores_max(%q: !kir.view<f32, [B, D], in>, %cache: !kir.view<f32, [NB, BS, D], in>,
                               %table: !kir.view<i32, [B, MB], in> {kir.range = [0, "NB"]},
                               %lens: !kir.view<i32, [B], in>, %y: !kir.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %ninf = arith.constant 0xFF800000 : f32
    %nb = kir.extent "B"
    %bs = kir.extent "BS"
    %nd = kir.extent "D"
    %db = kir.domain %c0 to %nb
    %dd = kir.domain %c0 to %nd
    kir.parallel %db {
    ^bb0(%b: index):
      %len = kir.load %lens[%b] : !kir.view<i32, [B], in>[index] -> i32
      %n = kir.cast %len : i32 to index
      %toks = kir.domain %c0 to %n
      %t = kir.indices %toks : tensor<?xindex>
      %bsv = kir.broadcast %bs over(%toks) dims [] : index -> tensor<?xindex>
      %blk = kir.binary div %t, %bsv : tensor<?xindex>
      %ids = kir.gather %table[%b, %blk] : !kir.view<i32, [B, MB], in>[index, tensor<?xindex>] -> tensor<?xi32>
      %slot = kir.binary rem %t, %bsv : tensor<?xindex>
      %idx = kir.cast %ids : tensor<?xi32> to tensor<?xindex>
      %k = kir.gather %cache[%idx, %slot, %dd] {joint = array<i64: -1, 0, -1>}
          : !kir.view<f32, [NB, BS, D], in>[tensor<?xindex>, tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
      %qv = kir.load %q[%b, %dd] : !kir.view<f32, [B, D], in>[index, !kir.domain] -> tensor<?xf32>
      %m = kir.region_fold sources(%k : tensor<?x?xf32>) axis 0 identity(%ninf : f32) operands(%qv : tensor<?xf32>) -> (f32)
      summarize {
      ^bb0(%sl: tensor<?x?xf32>, %qq: tensor<?xf32>):
        %s = kir.contract %qq, %sl reduce([0], [1]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
        %id = arith.constant 0xFF800000 : f32
        %r = kir.reduce %s axes [0] identity(%id : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%p: f32, %p2: f32):
          %c = kir.binary max %p, %p2 : f32
          kir.yield %c : f32
        }
        kir.yield %r : f32
      } combine {
      ^bb0(%a: f32, %a2: f32):
        %c = kir.binary max %a, %a2 : f32
        kir.yield %c : f32
      }
      kir.store %m, %y[%b] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Lanes kept: the tokens' domain depends only on the outer parallel index b, and the key tile
// COM: does not depend on the innermost one (g, query heads sharing one key head): a program owns
// COM: BLOCK_G heads, folds the one range of b, and contracts each gathered [BLOCK_A0, BLOCK_D] key
// COM: tile with its [BLOCK_G, BLOCK_D] queries in one pgpu.contract.
// CHECK-LABEL: pgpu.kernel @grouped_scores_max
// CHECK-SAME: #pgpu.param<"BLOCK_G", [16, 32, 64, 128, 256], 64>, #pgpu.param<"BLOCK_A0", [16, 32, 64, 128, 256], 64>
// CHECK: pgpu.region_fold
// CHECK: pgpu.gather {{.*}} -> !pgpu.fragment<f32, [BLOCK_A0, BLOCK_D]>
// CHECK: pgpu.contract %{{.*}}, %{{.*}}, %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [BLOCK_G, BLOCK_D]>, !pgpu.fragment<f32, [BLOCK_D, BLOCK_A0]>
// CHECK: } combine {
module {
  kir.kernel @grouped_scores_max(%q: !kir.view<f32, [B, G, D], in>, %cache: !kir.view<f32, [NB, BS, D], in>,
                                 %table: !kir.view<i32, [B, MB], in> {kir.range = [0, "NB"]},
                                 %lens: !kir.view<i32, [B], in>, %y: !kir.view<f32, [B, G], out>) {
    %c0 = arith.constant 0 : index
    %ninf = arith.constant 0xFF800000 : f32
    %nb = kir.extent "B"
    %ng = kir.extent "G"
    %bs = kir.extent "BS"
    %nd = kir.extent "D"
    %db = kir.domain %c0 to %nb
    %dg = kir.domain %c0 to %ng
    %dd = kir.domain %c0 to %nd
    kir.parallel %db, %dg {
    ^bb0(%b: index, %g: index):
      %len = kir.load %lens[%b] : !kir.view<i32, [B], in>[index] -> i32
      %n = kir.cast %len : i32 to index
      %toks = kir.domain %c0 to %n
      %t = kir.indices %toks : tensor<?xindex>
      %bsv = kir.broadcast %bs over(%toks) dims [] : index -> tensor<?xindex>
      %blk = kir.binary div %t, %bsv : tensor<?xindex>
      %ids = kir.gather %table[%b, %blk] : !kir.view<i32, [B, MB], in>[index, tensor<?xindex>] -> tensor<?xi32>
      %slot = kir.binary rem %t, %bsv : tensor<?xindex>
      %idx = kir.cast %ids : tensor<?xi32> to tensor<?xindex>
      %k = kir.gather %cache[%idx, %slot, %dd] {joint = array<i64: -1, 0, -1>}
          : !kir.view<f32, [NB, BS, D], in>[tensor<?xindex>, tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
      %qv = kir.load %q[%b, %g, %dd] : !kir.view<f32, [B, G, D], in>[index, index, !kir.domain] -> tensor<?xf32>
      %m = kir.region_fold sources(%k : tensor<?x?xf32>) axis 0 identity(%ninf : f32) operands(%qv : tensor<?xf32>) -> (f32)
      summarize {
      ^bb0(%sl: tensor<?x?xf32>, %qq: tensor<?xf32>):
        %s = kir.contract %qq, %sl reduce([0], [1]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
        %id = arith.constant 0xFF800000 : f32
        %r = kir.reduce %s axes [0] identity(%id : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%p: f32, %p2: f32):
          %c = kir.binary max %p, %p2 : f32
          kir.yield %c : f32
        }
        kir.yield %r : f32
      } combine {
      ^bb0(%a: f32, %a2: f32):
        %c = kir.binary max %a, %a2 : f32
        kir.yield %c : f32
      }
      kir.store %m, %y[%b, %g] : f32, !kir.view<f32, [B, G], out>[index, index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a masked gather whose validity ranges over another domain than its read (the
// COM: member's first half) keeps the element-wise construction: a tile of the read has no tile of
// COM: the validity.
// CHECK-LABEL: pgpu.kernel @masked_gather_other_axis
// CHECK-NOT: pgpu.fragment
// CHECK: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @masked_gather_other_axis(%x: !kir.view<f32, [V], in>, %ids: !kir.view<i32, [B, L], in> {kir.range = [0, "V"]},
                            %lens: !kir.view<i32, [B], in>, %y: !kir.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %nb = kir.extent "B"
    %db = kir.domain %c0 to %nb
    // expected-remark @+1 {{kir-to-pgpu: region fold constructed element by element: a read's validity ranges over other axes than the read ('kir.gather')}}
    kir.parallel %db {
    ^bb0(%b: index):
      %len = kir.load %lens[%b] : !kir.view<i32, [B], in>[index] -> i32
      %n = kir.cast %len : i32 to index
      %c2x = arith.constant 2 : index
      %toks = kir.domain %c0 to %n
      %i = kir.load %ids[%b, %toks] : !kir.view<i32, [B, L], in>[index, !kir.domain] -> tensor<?xi32>
      %ic = kir.cast %i : tensor<?xi32> to tensor<?xindex>
      %half = kir.binary div %n, %c2x : index
      %others = kir.domain %c0 to %half
      %t = kir.indices %others : tensor<?xindex>
      %two = arith.constant 2 : index
      %twos = kir.broadcast %two over(%others) dims [] : index -> tensor<?xindex>
      %even = kir.binary rem %t, %twos : tensor<?xindex>
      %zi = arith.constant 0 : index
      %zs = kir.broadcast %zi over(%others) dims [] : index -> tensor<?xindex>
      %keep = kir.cmp eq %even, %zs : tensor<?xindex>
      %v = kir.gather %x[%ic] valid %keep : tensor<?xi1> fill %one : f32 : !kir.view<f32, [V], in>[tensor<?xindex>] -> tensor<?xf32>
      %s = kir.region_fold sources(%v : tensor<?xf32>) axis 0 identity(%zero : f32) -> (f32)
      summarize {
      ^bb0(%sl: tensor<?xf32>):
        %z = arith.constant 0.0 : f32
        %r = kir.reduce %sl axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        kir.yield %r : f32
      } combine {
      ^bb0(%a: f32, %a2: f32):
        %c = kir.binary add %a, %a2 : f32
        kir.yield %c : f32
      }
      kir.store %s, %y[%b] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}


