// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: A row reduction: one workset (the kir.parallel over M) becomes segment 0 of a 1-d program
// COM: space whose length is the LaunchExpr max(ceil((M - 0) / 1), 0); each program instance owns one
// COM: row; the reduce keeps its contract as a pgpu.range_reduce over the runtime extent, and the
// COM: load replayed in its element region carries explicit coordinates, validity and fill.
// CHECK-LABEL: pgpu.kernel @rowsum(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>)
// CHECK: %[[M:.*]] = pgpu.extent %x[0]
// CHECK: %[[N:.*]] = pgpu.extent %x[1]
// CHECK: pgpu.program_space(%[[TOTAL:.*]]) {
// CHECK-NEXT: ^bb0(%[[PID:.*]]: index):
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0 roles ["axis0"] {
// CHECK-NEXT: ^bb0(%[[ROW:.*]]: index):
// CHECK: %[[SUM:.*]] = pgpu.range_reduce %{{.*}} to %{{.*}} identity(%{{.*}} : f32) -> (f32) element {
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}] valid %{{.*}} : i1 fill %{{.*}} : f32
// CHECK: pgpu.yield
// CHECK: } combine {
// CHECK: pgpu.binary add
// CHECK: pgpu.yield
// CHECK: pgpu.store %[[SUM]], %y[%{{.*}}] valid %{{.*}} : i1
// CHECK-NOT: kir.
// CHECK: pgpu.return
module {
  kir.kernel @rowsum(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M], out>) {
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
      kir.store %s, %y[%i] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Two worksets become two segments with prefix offsets and an explicit dispatch guard; a
// COM: top-level whole-tensor store is a workset whose instances own one element each.
// CHECK-LABEL: pgpu.kernel @two
// CHECK: pgpu.program_space
// CHECK: %[[IN0:.*]] = pgpu.cmp lt %{{.*}}, %{{.*}} : index
// CHECK: pgpu.if %[[IN0]] {
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 0
// CHECK: } else {
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}) segment 1
module {
  kir.kernel @two(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>, %z: !kir.view<f32, [N], out>) {
    %c0 = arith.constant 0 : index
    %n = kir.extent "N"
    %d = kir.domain %c0 to %n
    kir.parallel %d {
    ^bb0(%i: index):
      %v = kir.load %x[%i] : !kir.view<f32, [N], in>[index] -> f32
      kir.store %v, %y[%i] : f32, !kir.view<f32, [N], out>[index]
      kir.yield
    }
    %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %e = kir.unary exp %t : tensor<?xf32>
    kir.store %e, %z[%d] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    kir.return
  }
}

// -----

// COM: A workset that reads what an earlier one writes cannot run beside it in one launch. Must not
// COM: be phased (PhasedSums.cpp, phaseFinalizations): its instances read y[i] and write y[N - 1 - i],
// COM: a view they also read, so in parallel they would race. It runs whole in the last program
// COM: instance (after every instance of the first workset, an acq_rel ticket), its elements one
// COM: foreach; the first workset stays in the program space.
// CHECK-LABEL: pgpu.kernel @dependent
// CHECK: pgpu.program_space
// CHECK: pgpu.execution_group
// CHECK: pgpu.store
// CHECK: pgpu.last_program
// CHECK: pgpu.foreach
// CHECK: pgpu.load %y
// CHECK: pgpu.unary exp
// CHECK: pgpu.store
module {
  kir.kernel @dependent(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], inout>) {
    %c0 = arith.constant 0 : index
    %n = kir.extent "N"
    %d = kir.domain %c0 to %n
    kir.parallel %d {
    ^bb0(%i: index):
      %v = kir.load %x[%i] : !kir.view<f32, [N], in>[index] -> f32
      kir.store %v, %y[%i] : f32, !kir.view<f32, [N], inout>[index]
      kir.yield
    }
    kir.parallel %d {
    ^bb0(%i: index):
      %v = kir.load %y[%i] : !kir.view<f32, [N], inout>[index] -> f32
      %w = kir.unary exp %v : f32
      %j = kir.binary sub %n, %i : index
      %c1 = arith.constant 1 : index
      %k = kir.binary sub %j, %c1 : index
      kir.store %w, %y[%k] : f32, !kir.view<f32, [N], inout>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Phased (PhasedSums.cpp, phaseFinalizations): the second workset reads y, which the first writes,
// COM: and writes z, which it does not read. It is a segment after the first: each of its instances
// COM: waits (acquire) until the ticket counts every program instance before its segment, then runs in
// COM: parallel. The last program holds no foreach, only the ticket's return.
// CHECK-LABEL: pgpu.kernel @dependent_phased
// CHECK: pgpu.program_space
// CHECK: pgpu.execution_group %{{.*}} segment 0
// CHECK: pgpu.store %{{.*}}, %y
// CHECK: pgpu.while {
// CHECK: pgpu.atomic_load %{{.*}} order acquire
// CHECK: pgpu.condition
// CHECK: pgpu.execution_group %{{.*}} segment 1
// CHECK: pgpu.load %y
// CHECK: pgpu.unary exp
// CHECK: pgpu.store %{{.*}}, %z
// CHECK: pgpu.last_program
// CHECK-NOT: pgpu.foreach
// CHECK: pgpu.return
module {
  kir.kernel @dependent_phased(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], inout>, %z: !kir.view<f32, [N], out>) {
    %c0 = arith.constant 0 : index
    %n = kir.extent "N"
    %d = kir.domain %c0 to %n
    kir.parallel %d {
    ^bb0(%i: index):
      %v = kir.load %x[%i] : !kir.view<f32, [N], in>[index] -> f32
      kir.store %v, %y[%i] : f32, !kir.view<f32, [N], inout>[index]
      kir.yield
    }
    kir.parallel %d {
    ^bb0(%i: index):
      %j = kir.binary sub %n, %i : index
      %c1 = arith.constant 1 : index
      %k = kir.binary sub %j, %c1 : index
      %v = kir.load %y[%k] : !kir.view<f32, [N], inout>[index] -> f32
      %w = kir.unary exp %v : f32
      kir.store %w, %z[%i] : f32, !kir.view<f32, [N], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A workset holding a region fold is constructed on fragments (FoldWorkset.cpp), the fold a
// COM: pgpu.region_fold over BLOCK_N-wide tiles of its source. Its folds hold no contraction, so
// COM: the parallel axis gets no lanes (each program owns one member, as the row path) and BLOCK_N
// COM: is a row block (form-blocking's BLOCK candidates, default 512, covering N). Summarize receives the tile
// COM: bounds and, as explicit captures, what it reads (the view); it loads the tile with validity
// COM: pos < end, neutralizes the invalid members with the identity and keeps the reduce a
// COM: pgpu.reduce. Its scalar result is stored at the member.
// CHECK-LABEL: pgpu.kernel @fold
// CHECK-SAME: params = [#pgpu.param<"BLOCK_N", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], 512, covers = "N">]
// CHECK-NOT: BLOCK_A0
// CHECK: %[[STEP:.*]] = pgpu.param "BLOCK_N" : index
// CHECK: %[[S:.*]] = pgpu.region_fold %{{.*}} to %{{.*}} step %[[STEP]] identity(%{{.*}} : f32) operands(%{{.*}} : !pgpu.view<f32, [N], in>) -> (f32) summarize {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index, %[[E:.*]]: index, %[[X:.*]]: !pgpu.view<f32, [N], in>):
// CHECK-NEXT: %[[P:.*]] = pgpu.iota %[[B]] : !pgpu.fragment<index, [BLOCK_N]>
// CHECK-NEXT: %[[EN:.*]] = pgpu.splat %[[E]] : index -> !pgpu.fragment<index, [BLOCK_N]>
// CHECK-NEXT: %[[OK:.*]] = pgpu.cmp lt %[[P]], %[[EN]]
// CHECK: %[[T:.*]] = pgpu.load %[[X]][%[[P]]] valid %[[OK]]
// CHECK: %[[M:.*]] = pgpu.select %[[OK]], %[[T]], %{{.*}} : !pgpu.fragment<i1, [BLOCK_N]>, !pgpu.fragment<f32, [BLOCK_N]>
// CHECK: pgpu.reduce %[[M]] axes [0]
// CHECK: } combine {
// CHECK: pgpu.store %[[S]], %{{.*}}[%{{.*}}] valid %{{.*}} : i1 : f32
module {
  kir.kernel @fold(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [1], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %d = kir.domain %c0 to %n
    %c1 = arith.constant 1 : index
    %one = kir.domain %c0 to %c1
    kir.parallel %one {
    ^bb0(%i: index):
      %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
      %s = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%zero : f32) -> (f32)
      summarize {
      ^bb0(%sl: tensor<?xf32>):
        %z = arith.constant 0.0 : f32
        %r = kir.reduce %sl axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%a: f32, %b: f32):
          %c = kir.binary add %a, %b : f32
          kir.yield %c : f32
        }
        kir.yield %r : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      kir.store %s, %y[%i] : f32, !kir.view<f32, [1], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: In a row kernel constructed on fragments, a load whose coordinate is computed from loaded data
// COM: (the target column read per row) is an index relation, a pgpu.gather (seed 000 §6), as outside a
// COM: fold; the target itself and the fold's tiles stay plain loads (one member per program: the
// COM: fold holds no contraction, so the row is its program's).
// CHECK-LABEL: pgpu.kernel @fold_pick
// CHECK: pgpu.region_fold
// CHECK: pgpu.load %{{.*}}[%{{.*}}, %{{.*}}] valid
// CHECK: } combine {
// CHECK: %[[T:.*]] = pgpu.load %{{.*}}[%{{.*}}] valid %{{.*}} : i1 fill %{{.*}} : i32
// CHECK: %[[C:.*]] = pgpu.cast %[[T]]
// CHECK: pgpu.gather %{{.*}}[%{{.*}}, %[[C]]]
// CHECK-NOT: pgpu.load
// CHECK: pgpu.store
module {
  kir.kernel @fold_pick(%x: !kir.view<f32, [M, C], in>, %t: !kir.view<i32, [M], in>, %y: !kir.view<f32, [M], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %m = kir.extent "M"
    %n = kir.extent "C"
    %rows = kir.domain %c0 to %m
    %d = kir.domain %c0 to %n
    kir.parallel %rows {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %d] : !kir.view<f32, [M, C], in>[index, !kir.domain] -> tensor<?xf32>
      %s = kir.region_fold sources(%row : tensor<?xf32>) axis 0 identity(%zero : f32) -> (f32)
      summarize {
      ^bb0(%sl: tensor<?xf32>):
        %z = arith.constant 0.0 : f32
        %r = kir.reduce %sl axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%a: f32, %b: f32):
          %c = kir.binary add %a, %b : f32
          kir.yield %c : f32
        }
        kir.yield %r : f32
      } combine {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %ti = kir.load %t[%i] : !kir.view<i32, [M], in>[index] -> i32
      %tc = kir.cast %ti : i32 to index
      %p = kir.load %x[%i, %tc] : !kir.view<f32, [M, C], in>[index, index] -> f32
      %v = kir.binary sub %s, %p : f32
      kir.store %v, %y[%i] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A stored scan inside a workset stays structured (seed 002 §4): a pgpu.range_scan whose element
// COM: region reads a member, whose combine is the scan's, and whose emit region writes each prefix.
// CHECK-LABEL: pgpu.kernel @cumsum
// CHECK: pgpu.execution_group
// CHECK-NOT: pgpu.for
// CHECK: pgpu.range_scan %{{.*}} to %{{.*}} identity(%{{.*}} : f32) element {
// CHECK-NEXT: ^bb0(%[[I:.*]]: index):
// CHECK: %[[X:.*]] = pgpu.load %{{.*}}[%{{.*}}, %{{.*}}] valid
// CHECK: pgpu.yield %[[X]] : f32
// CHECK: } combine {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = pgpu.binary add %[[A]], %[[B]] : f32
// CHECK-NEXT: pgpu.yield %[[S]] : f32
// CHECK: } emit {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %[[P:.*]]: f32):
// CHECK: pgpu.store %[[P]], %{{.*}}
// CHECK: pgpu.yield{{$}}
module {
  kir.kernel @cumsum(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %s = kir.scan %row axis 0 identity(%zero : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
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

// COM: Direction and mode stay attributes of the structured scan; no loop is built here.
// CHECK-LABEL: pgpu.kernel @cumsum_exclusive_reverse
// CHECK-NOT: pgpu.for
// CHECK: pgpu.range_scan %{{.*}} to %{{.*}} identity(%{{.*}} : f32) exclusive reverse element {
module {
  kir.kernel @cumsum_exclusive_reverse(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %s = kir.scan %row axis 0 identity(%zero : f32) exclusive reverse : (tensor<?xf32>) -> (tensor<?xf32>) {
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

// COM: A stored scan along axis 0 of a [T, C] tile: its lines along the other axis (C) are an
// COM: independent workset, a pgpu.foreach (pgpu-flatten-worksets may then make them program axes),
// COM: each holding the range scan along T. The cumsum cases above have no other axis: no foreach.
// CHECK-LABEL: pgpu.kernel @column_scan
// CHECK: pgpu.execution_group
// CHECK: pgpu.foreach %{{.*}} to %{{.*}} {
// CHECK-NEXT: ^bb0(%[[C:.*]]: index):
// CHECK: pgpu.range_scan %{{.*}} to %{{.*}} identity(%{{.*}} : f32) element {
// CHECK: } emit {
// CHECK: pgpu.store
module {
  kir.kernel @column_scan(%x: !kir.view<f32, [B, T, C], in>, %y: !kir.view<f32, [B, T, C], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %b = kir.extent "B"
    %t = kir.extent "T"
    %c = kir.extent "C"
    %db = kir.domain %c0 to %b
    %dt = kir.domain %c0 to %t
    %dc = kir.domain %c0 to %c
    kir.parallel %db {
    ^bb0(%i: index):
      %tile = kir.load %x[%i, %dt, %dc] : !kir.view<f32, [B, T, C], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %s = kir.scan %tile axis 0 identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?x?xf32>) {
      ^bb0(%a: f32, %e: f32):
        %r = kir.binary add %a, %e : f32
        kir.yield %r : f32
      }
      kir.store %s, %y[%i, %dt, %dc] : tensor<?x?xf32>, !kir.view<f32, [B, T, C], out>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A record summary folds as its fields: the {m, den} of an online softmax become two f32
// COM: components of the physical fold, and record_get on the result reads the field.
// CHECK-LABEL: pgpu.kernel @record_fold
// CHECK: %[[F:.*]]:2 = pgpu.region_fold %{{.*}} to %{{.*}} step %{{.*}} identity(%{{.*}}, %{{.*}} : f32, f32)
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: pgpu.store %[[F]]#1, %y
module {
  kir.kernel @record_fold(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [1], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %d = kir.domain %c0 to %n
    %one = kir.domain %c0 to %c1
    %id = kir.record %ninf, %zero : f32, f32 -> !kir.record<m: f32, den: f32>
    kir.parallel %one {
    ^bb0(%i: index):
      %t = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
      %s = kir.region_fold sources(%t : tensor<?xf32>) axis 0 identity(%id : !kir.record<m: f32, den: f32>)
          -> (!kir.record<m: f32, den: f32>)
      summarize {
      ^bb0(%sl: tensor<?xf32>):
        %ni = arith.constant 0xFF800000 : f32
        %z = arith.constant 0.0 : f32
        %m = kir.reduce %sl axes [0] identity(%ni : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%a: f32, %b: f32):
          %c = kir.binary max %a, %b : f32
          kir.yield %c : f32
        }
        %mb = kir.broadcast_as %m to %sl dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %sh = kir.binary sub %sl, %mb : tensor<?xf32>
        %e = kir.unary exp %sh : tensor<?xf32>
        %den = kir.reduce %e axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%a: f32, %b: f32):
          %c = kir.binary add %a, %b : f32
          kir.yield %c : f32
        }
        %r = kir.record %m, %den : f32, f32 -> !kir.record<m: f32, den: f32>
        kir.yield %r : !kir.record<m: f32, den: f32>
      } combine {
      ^bb0(%p: !kir.record<m: f32, den: f32>, %q: !kir.record<m: f32, den: f32>):
        %m1 = kir.record_get %p["m"] : !kir.record<m: f32, den: f32> -> f32
        %m2 = kir.record_get %q["m"] : !kir.record<m: f32, den: f32> -> f32
        %d1 = kir.record_get %p["den"] : !kir.record<m: f32, den: f32> -> f32
        %d2 = kir.record_get %q["den"] : !kir.record<m: f32, den: f32> -> f32
        %m = kir.binary max %m1, %m2 : f32
        %x1 = kir.binary sub %m1, %m : f32
        %x2 = kir.binary sub %m2, %m : f32
        %e1 = kir.unary exp %x1 : f32
        %e2 = kir.unary exp %x2 : f32
        %w1 = kir.binary mul %d1, %e1 : f32
        %w2 = kir.binary mul %d2, %e2 : f32
        %den = kir.binary add %w1, %w2 : f32
        %r = kir.record %m, %den : f32, f32 -> !kir.record<m: f32, den: f32>
        kir.yield %r : !kir.record<m: f32, den: f32>
      }
      %den = kir.record_get %s["den"] : !kir.record<m: f32, den: f32> -> f32
      kir.store %den, %y[%i] : f32, !kir.view<f32, [1], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: a tensor summary whose combine is not elementwise (it reduces the tensor
// COM: component into a scalar one) cannot be folded one element at a time: an error at the fold.
module {
  kir.kernel @coupled(%x: !kir.view<f32, [N, D], in>, %y: !kir.view<f32, [1, D], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %nd = kir.extent "D"
    %dn = kir.domain %c0 to %n
    %dd = kir.domain %c0 to %nd
    %one = kir.domain %c0 to %c1
    %acc0 = kir.broadcast %zero over(%dd) dims [] : f32 -> tensor<?xf32>
    kir.parallel %one {
    ^bb0(%i: index):
      %t = kir.load %x[%dn, %dd] : !kir.view<f32, [N, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %s, %a = kir.region_fold sources(%t : tensor<?x?xf32>) axis 0 identity(%zero, %acc0 : f32, tensor<?xf32>)
          -> (f32, tensor<?xf32>)
      summarize {
      ^bb0(%sl: tensor<?x?xf32>):
        %z = arith.constant 0.0 : f32
        %col = kir.reduce %sl axes [0] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %tot = kir.reduce %col axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        kir.yield %tot, %col : f32, tensor<?xf32>
      } combine {
      ^bb0(%s1: f32, %a1: tensor<?xf32>, %s2: f32, %a2: tensor<?xf32>):
        %z = arith.constant 0.0 : f32
        // expected-error @+1 {{its combine must be elementwise, not 'kir.reduce'}}
        %first = kir.reduce %a1 axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %s12 = kir.binary add %first, %s2 : f32
        %a = kir.binary add %a1, %a2 : tensor<?xf32>
        kir.yield %s12, %a : f32, tensor<?xf32>
      }
      kir.store %a, %y[%i, %dd] : tensor<?xf32>, !kir.view<f32, [1, D], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A region scan with a tensor state (acc) and a scalar state (s), unit segments. Construction
// COM: carries no tensor state: an emitted row reads the state before it as the fold of the
// COM: transitions before it applied to init (scalar components once per row, a tensor component
// COM: per element it reads, folded with the scalars); final states fold the whole source.
// CHECK-LABEL: pgpu.kernel @running
// CHECK: pgpu.region_fold %{{.*}} to %[[ROWS:[0-9]+]] step %{{.*}} identity(%{{.*}} : f32)
// CHECK: pgpu.foreach %{{.*}} to %[[ROWS]] {
// CHECK-NEXT: ^bb0(%[[T:.*]]: index):
// CHECK: pgpu.region_fold %{{.*}} to %[[T]] step %{{.*}} identity(%{{.*}} : f32)
// CHECK: pgpu.range_reduce
// CHECK: pgpu.region_fold %{{.*}} to %[[T]] step %{{.*}} identity(%{{.*}}, %{{.*}} : f32, f32)
// CHECK: pgpu.store %{{.*}}, %o[
// CHECK: pgpu.foreach
// CHECK: pgpu.region_fold %{{.*}} to %[[ROWS]] step %{{.*}} identity(%{{.*}}, %{{.*}} : f32, f32)
// CHECK: pgpu.store %{{.*}}, %f[
// CHECK: pgpu.store %{{.*}}, %g[
// CHECK-NOT: kir.
module {
  kir.kernel @running(%x: !kir.view<f32, [B, N, D], in>, %o: !kir.view<f32, [B, N], out>, %f: !kir.view<f32, [B, D], out>,
                      %g: !kir.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %nd = kir.extent "D"
    %dn = kir.domain %c0 to %n
    %dd = kir.domain %c0 to %nd
    %nb = kir.extent "B"
    %db = kir.domain %c0 to %nb
    %tc = kir.indices %dn : tensor<?xindex>
    %a0 = kir.broadcast %zero over(%dd) dims [] : f32 -> tensor<?xf32>
    kir.parallel %db {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %dn, %dd] : !kir.view<f32, [B, N, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %out, %acc, %tot = kir.region_scan sources(%t, %tc : tensor<?x?xf32>, tensor<?xindex>) axis 0
          identity(%a0, %zero : tensor<?xf32>, f32) init(%a0, %zero : tensor<?xf32>, f32)
          -> (tensor<?xf32>) final (tensor<?xf32>, f32)
      summarize {
      ^bb0(%sl: tensor<?x?xf32>, %ts: tensor<?xindex>):
        %z = arith.constant 0.0 : f32
        %col = kir.reduce %sl axes [0] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %all = kir.reduce %sl axes [0, 1] identity(%z : f32) : (tensor<?x?xf32>) -> (f32) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        kir.yield %col, %all : tensor<?xf32>, f32
      } combine {
      ^bb0(%a1: tensor<?xf32>, %s1: f32, %a2: tensor<?xf32>, %s2: f32):
        %a = kir.binary add %a1, %a2 : tensor<?xf32>
        %s = kir.binary add %s1, %s2 : f32
        kir.yield %a, %s : tensor<?xf32>, f32
      } apply {
      ^bb0(%da: tensor<?xf32>, %ds: f32, %a: tensor<?xf32>, %s: f32):
        %a2 = kir.binary add %a, %da : tensor<?xf32>
        %s2 = kir.binary add %s, %ds : f32
        kir.yield %a2, %s2 : tensor<?xf32>, f32
      } emit {
      ^bb0(%sl: tensor<?x?xf32>, %ts: tensor<?xindex>, %a: tensor<?xf32>, %s: f32):
        %z = arith.constant 0.0 : f32
        // Before the slice: x_t . acc + s. Inside it: x_t . x_u + total(x_u) for u < t.
        %dot = kir.contract %sl, %a reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
        %sb = kir.broadcast_as %s to %dot dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %inter = kir.binary add %dot, %sb : tensor<?xf32>
        %gram = kir.contract %sl, %sl reduce([1], [1]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %rows = kir.reduce %sl axes [1] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %rk = kir.broadcast_as %rows to %gram dims [1] : tensor<?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %terms = kir.binary add %gram, %rk : tensor<?x?xf32>
        %tq = kir.broadcast_as %ts to %gram dims [0] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
        %tk = kir.broadcast_as %ts to %gram dims [1] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
        %before = kir.cmp lt %tk, %tq : tensor<?x?xindex>
        %zs = kir.broadcast_as %z to %gram dims [] : f32, tensor<?x?xf32> -> tensor<?x?xf32>
        %kept = kir.select %before, %terms, %zs : tensor<?x?xi1>, tensor<?x?xf32>
        %intra = kir.reduce %kept axes [1] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %r = kir.binary add %inter, %intra : tensor<?xf32>
        kir.yield %r : tensor<?xf32>
      }
      kir.store %out, %o[%i, %dn] : tensor<?xf32>, !kir.view<f32, [B, N], out>[index, !kir.domain]
      kir.store %acc, %f[%i, %dd] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
      kir.store %tot, %g[%i] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: an apply that reduces the tensor transition into the scalar state cannot be
// COM: projected to one element of the state: an error at the op that couples them.
module {
  kir.kernel @coupled_state(%x: !kir.view<f32, [B, N, D], in>, %o: !kir.view<f32, [B, N], out>, %f: !kir.view<f32, [B, D], out>,
                      %g: !kir.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %nd = kir.extent "D"
    %dn = kir.domain %c0 to %n
    %dd = kir.domain %c0 to %nd
    %nb = kir.extent "B"
    %db = kir.domain %c0 to %nb
    %tc = kir.indices %dn : tensor<?xindex>
    %a0 = kir.broadcast %zero over(%dd) dims [] : f32 -> tensor<?xf32>
    kir.parallel %db {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %dn, %dd] : !kir.view<f32, [B, N, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %out, %acc, %tot = kir.region_scan sources(%t, %tc : tensor<?x?xf32>, tensor<?xindex>) axis 0
          identity(%a0, %zero : tensor<?xf32>, f32) init(%a0, %zero : tensor<?xf32>, f32)
          -> (tensor<?xf32>) final (tensor<?xf32>, f32)
      summarize {
      ^bb0(%sl: tensor<?x?xf32>, %ts: tensor<?xindex>):
        %z = arith.constant 0.0 : f32
        %col = kir.reduce %sl axes [0] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %all = kir.reduce %sl axes [0, 1] identity(%z : f32) : (tensor<?x?xf32>) -> (f32) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        kir.yield %col, %all : tensor<?xf32>, f32
      } combine {
      ^bb0(%a1: tensor<?xf32>, %s1: f32, %a2: tensor<?xf32>, %s2: f32):
        %a = kir.binary add %a1, %a2 : tensor<?xf32>
        %s = kir.binary add %s1, %s2 : f32
        kir.yield %a, %s : tensor<?xf32>, f32
      } apply {
      ^bb0(%da: tensor<?xf32>, %ds: f32, %a: tensor<?xf32>, %s: f32):
        %a2 = kir.binary add %a, %da : tensor<?xf32>
        %z = arith.constant 0.0 : f32
        // expected-error @+1 {{kir-to-pgpu constructs a region scan's state one element at a time; its apply must be elementwise, not 'kir.reduce'}}
        %sum = kir.reduce %da axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %s1 = kir.binary add %s, %ds : f32
        %s2 = kir.binary add %s1, %sum : f32
        kir.yield %a2, %s2 : tensor<?xf32>, f32
      } emit {
      ^bb0(%sl: tensor<?x?xf32>, %ts: tensor<?xindex>, %a: tensor<?xf32>, %s: f32):
        %z = arith.constant 0.0 : f32
        // Before the slice: x_t . acc + s. Inside it: x_t . x_u + total(x_u) for u < t.
        %dot = kir.contract %sl, %a reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
        %sb = kir.broadcast_as %s to %dot dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %inter = kir.binary add %dot, %sb : tensor<?xf32>
        %gram = kir.contract %sl, %sl reduce([1], [1]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %rows = kir.reduce %sl axes [1] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %rk = kir.broadcast_as %rows to %gram dims [1] : tensor<?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %terms = kir.binary add %gram, %rk : tensor<?x?xf32>
        %tq = kir.broadcast_as %ts to %gram dims [0] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
        %tk = kir.broadcast_as %ts to %gram dims [1] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
        %before = kir.cmp lt %tk, %tq : tensor<?x?xindex>
        %zs = kir.broadcast_as %z to %gram dims [] : f32, tensor<?x?xf32> -> tensor<?x?xf32>
        %kept = kir.select %before, %terms, %zs : tensor<?x?xi1>, tensor<?x?xf32>
        %intra = kir.reduce %kept axes [1] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %r = kir.binary add %inter, %intra : tensor<?xf32>
        kir.yield %r : tensor<?xf32>
      }
      kir.store %out, %o[%i, %dn] : tensor<?xf32>, !kir.view<f32, [B, N], out>[index, !kir.domain]
      kir.store %acc, %f[%i, %dd] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
      kir.store %tot, %g[%i] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: transitions (acc) that are not the state's components (acc, s): construction
// COM: folds transitions per state element, so it needs them to match; an error at the scan.
module {
  kir.kernel @other_transition(%x: !kir.view<f32, [B, N, D], in>, %o: !kir.view<f32, [B, N], out>, %f: !kir.view<f32, [B, D], out>,
                      %g: !kir.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %nd = kir.extent "D"
    %dn = kir.domain %c0 to %n
    %dd = kir.domain %c0 to %nd
    %nb = kir.extent "B"
    %db = kir.domain %c0 to %nb
    %tc = kir.indices %dn : tensor<?xindex>
    %a0 = kir.broadcast %zero over(%dd) dims [] : f32 -> tensor<?xf32>
    kir.parallel %db {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %dn, %dd] : !kir.view<f32, [B, N, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      // expected-error @+1 {{kir-to-pgpu constructs a region scan whose transitions and states have the same components}}
      %out, %acc, %tot = kir.region_scan sources(%t, %tc : tensor<?x?xf32>, tensor<?xindex>) axis 0
          identity(%a0 : tensor<?xf32>) init(%a0, %zero : tensor<?xf32>, f32)
          -> (tensor<?xf32>) final (tensor<?xf32>, f32)
      summarize {
      ^bb0(%sl: tensor<?x?xf32>, %ts: tensor<?xindex>):
        %z = arith.constant 0.0 : f32
        %col = kir.reduce %sl axes [0] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %all = kir.reduce %sl axes [0, 1] identity(%z : f32) : (tensor<?x?xf32>) -> (f32) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        kir.yield %col : tensor<?xf32>
      } combine {
      ^bb0(%a1: tensor<?xf32>, %a2: tensor<?xf32>):
        %a = kir.binary add %a1, %a2 : tensor<?xf32>
        kir.yield %a : tensor<?xf32>
      } apply {
      ^bb0(%da: tensor<?xf32>, %a: tensor<?xf32>, %s: f32):
        %a2 = kir.binary add %a, %da : tensor<?xf32>
        %one = arith.constant 1.0 : f32
        %s2 = kir.binary add %s, %one : f32
        kir.yield %a2, %s2 : tensor<?xf32>, f32
      } emit {
      ^bb0(%sl: tensor<?x?xf32>, %ts: tensor<?xindex>, %a: tensor<?xf32>, %s: f32):
        %z = arith.constant 0.0 : f32
        // Before the slice: x_t . acc + s. Inside it: x_t . x_u + total(x_u) for u < t.
        %dot = kir.contract %sl, %a reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
        %sb = kir.broadcast_as %s to %dot dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %inter = kir.binary add %dot, %sb : tensor<?xf32>
        %gram = kir.contract %sl, %sl reduce([1], [1]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %rows = kir.reduce %sl axes [1] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %rk = kir.broadcast_as %rows to %gram dims [1] : tensor<?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %terms = kir.binary add %gram, %rk : tensor<?x?xf32>
        %tq = kir.broadcast_as %ts to %gram dims [0] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
        %tk = kir.broadcast_as %ts to %gram dims [1] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
        %before = kir.cmp lt %tk, %tq : tensor<?x?xindex>
        %zs = kir.broadcast_as %z to %gram dims [] : f32, tensor<?x?xf32> -> tensor<?x?xf32>
        %kept = kir.select %before, %terms, %zs : tensor<?x?xi1>, tensor<?x?xf32>
        %intra = kir.reduce %kept axes [1] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %r = kir.binary add %inter, %intra : tensor<?xf32>
        kir.yield %r : tensor<?xf32>
      }
      kir.store %out, %o[%i, %dn] : tensor<?xf32>, !kir.view<f32, [B, N], out>[index, !kir.domain]
      kir.store %acc, %f[%i, %dd] : tensor<?xf32>, !kir.view<f32, [B, D], out>[index, !kir.domain]
      kir.store %tot, %g[%i] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A reshape inside a parallel body (issue 16): each stored element [j, i] of the R x C row
// COM: reshaped onto C x R reads the operand at the row-major decode of its linear index
// COM: l = j * R + i over the operand's extents: (l div C, l rem C), then each axis's domain member
// COM: (lo + position * step). No kir op is left.
// CHECK-LABEL: pgpu.kernel @reshape_rows
// CHECK: pgpu.foreach
// CHECK-NEXT: ^bb0(%[[J:.*]]: index):
// CHECK: pgpu.foreach
// CHECK-NEXT: ^bb0(%[[I:.*]]: index):
// CHECK-NEXT: %[[L0:.*]] = pgpu.binary mul %[[J]], %[[R:.*]] : index
// CHECK-NEXT: %[[L:.*]] = pgpu.binary add %[[L0]], %[[I]] : index
// CHECK-NEXT: %[[COL:.*]] = pgpu.binary rem %[[L]], %[[C:.*]] : index
// CHECK-NEXT: %[[ROW:.*]] = pgpu.binary div %[[L]], %[[C]] : index
// CHECK-NEXT: %[[RO:.*]] = pgpu.binary mul %[[ROW]], %{{.*}} : index
// CHECK-NEXT: %[[RA:.*]] = pgpu.binary add %{{.*}}, %[[RO]] : index
// CHECK-NEXT: %[[CO:.*]] = pgpu.binary mul %[[COL]], %{{.*}} : index
// CHECK-NEXT: %[[CA:.*]] = pgpu.binary add %{{.*}}, %[[CO]] : index
// CHECK: pgpu.load %x[%{{.*}}, %[[RA]], %[[CA]]]
// CHECK-NOT: kir.
// CHECK: pgpu.return
module {
  kir.kernel @reshape_rows(%x: !kir.view<f32, [M, R, C], in>, %y: !kir.view<f32, [M, C, R], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %r = kir.extent "R"
    %c = kir.extent "C"
    %dm = kir.domain %c0 to %m
    %dr = kir.domain %c0 to %r
    %dc = kir.domain %c0 to %c
    kir.parallel %dm {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %dr, %dc] : !kir.view<f32, [M, R, C], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %s = kir.reshape %t over(%dc, %dr) : tensor<?x?xf32> -> tensor<?x?xf32>
      kir.store %s, %y[%i, %dc, %dr] : tensor<?x?xf32>, !kir.view<f32, [M, C, R], out>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
