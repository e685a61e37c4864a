// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: Rotated keys (rotate-half RoPE applied as they are read): the halves are slices of the head's
// COM: domain, `dims[0:H]` and `dims[H:2 * H]`, combined with the tables over `T.domain(0, H)`. They
// COM: pair by position (KIR_SubregionOp: one length form). Before: the workset was constructed element
// COM: by element ("operands range over different domains"), the keys scored one at a time. After: the
// COM: slices and the table's domain are one tile axis BLOCK_H (covering H): the grouped lanes' fold
// COM: reads [BLOCK_T, BLOCK_H] key tiles at each half's own members (the block's positions re-based at
// COM: the slice's first member, H + p for the upper half), the scores one pgpu.contract; the fast
// COM: variant is guarded by the slices' sizes agreeing with H at run time (a slice past its source is
// COM: clamped and does not pair: the element-wise construction then runs, as written).
// CHECK-LABEL: pgpu.kernel @rotated_decode_max
// CHECK-SAME: #pgpu.param<"BLOCK_H", [16, 32, 64, 128, 256], 128, covers = "H">
// CHECK: pgpu.execution_group
// CHECK: %[[EQLO:.*]] = pgpu.cmp eq %{{.*}}, %[[HSIZE:.*]] : index
// CHECK-NEXT: %[[EQHI:.*]] = pgpu.cmp eq %{{.*}}, %[[HSIZE]] : index
// CHECK-NEXT: pgpu.binary and %[[EQLO]], %[[EQHI]] : i1
// CHECK: %[[POS:.*]] = pgpu.iota %{{.*}} : !pgpu.fragment<index, [BLOCK_H]>
// CHECK: pgpu.region_fold {{.*}} operands(%[[POS]], %{{.*}}, %k,
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[P:[^:]*]]: !pgpu.fragment<index, [BLOCK_H]>, %[[LO0:[^:]*]]: index,
// CHECK: %[[LOS:.*]] = pgpu.binary mul %[[P]], %{{.*}} : !pgpu.fragment<index, [BLOCK_H]>
// CHECK-NEXT: %[[LOB:.*]] = pgpu.splat %[[LO0]] : index -> !pgpu.fragment<index, [BLOCK_H]>
// CHECK-NEXT: pgpu.binary add %[[LOS]], %[[LOB]] : !pgpu.fragment<index, [BLOCK_H]>
// CHECK: pgpu.load %{{.*}} -> !pgpu.fragment<f32, [BLOCK_T, BLOCK_H]>
// CHECK: %[[C:.*]] = pgpu.broadcast %[[P]] dims [1] : !pgpu.fragment<index, [BLOCK_H]> -> !pgpu.fragment<index, [BLOCK_T, BLOCK_H]>
// CHECK: pgpu.load %{{.*}}[%{{.*}}, %[[C]]] {{.*}} -> !pgpu.fragment<f32, [BLOCK_T, BLOCK_H]>
// CHECK: %[[HIS:.*]] = pgpu.binary mul %[[P]], %{{.*}} : !pgpu.fragment<index, [BLOCK_H]>
// CHECK-NEXT: %[[HIB:.*]] = pgpu.splat %{{.*}} : index -> !pgpu.fragment<index, [BLOCK_H]>
// CHECK-NEXT: pgpu.binary add %[[HIS]], %[[HIB]] : !pgpu.fragment<index, [BLOCK_H]>
// CHECK: pgpu.load %{{.*}} -> !pgpu.fragment<f32, [BLOCK_T, BLOCK_H]>
// CHECK: pgpu.contract {{.*}} -> !pgpu.fragment<f32, [BLOCK_HQ, BLOCK_T]>
// CHECK: } combine {
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @rotated_decode_max(%q: !kir.view<f32, [B, HQ, D], in>, %k: !kir.view<f32, [B, HKV, T, D], in>,
                                 %cos: !kir.view<f32, [T, H], in>, %sin: !kir.view<f32, [T, H], in>,
                                 %y: !kir.view<f32, [B, HQ], out>) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %ninf = arith.constant 0xFF800000 : f32
    %nb = kir.extent "B"
    %nh = kir.extent "HQ"
    %nd = kir.extent "D"
    %nkv = kir.extent "HKV"
    %nt = kir.extent "T"
    %nh2 = kir.extent "H"
    %dt = kir.domain %c0 to %nt
    %dd = kir.domain %c0 to %nd
    %half = kir.domain %c0 to %nh2
    %two = kir.binary mul %c2, %nh2 : index
    %lo = kir.subregion %dd[%c0 : %nh2]
    %hi = kir.subregion %dd[%nh2 : %two]
    %db = kir.domain %c0 to %nb
    %dh = kir.domain %c0 to %nh
    %grp = kir.binary div %nh, %nkv : index
    // expected-remark @+1 {{kir-to-pgpu: where a contraction's paired axis is longer than its block}}
    kir.parallel %db, %dh {
    ^bb0(%b: index, %h: index):
      %kh = kir.binary div %h, %grp : index
      %k1 = kir.load %k[%b, %kh, %dt, %lo] : !kir.view<f32, [B, HKV, T, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %k2 = kir.load %k[%b, %kh, %dt, %hi] : !kir.view<f32, [B, HKV, T, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %ct = kir.load %cos[%dt, %half] : !kir.view<f32, [T, H], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %st = kir.load %sin[%dt, %half] : !kir.view<f32, [T, H], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %q1 = kir.load %q[%b, %h, %lo] : !kir.view<f32, [B, HQ, D], in>[index, index, !kir.domain] -> tensor<?xf32>
      // expected-remark @+1 {{kir-to-pgpu: region fold constructed on fragments: BLOCK_HQ lanes of one group}}
      %m = kir.region_fold sources(%k1, %k2, %ct, %st : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) axis 0 identity(%ninf : f32) operands(%q1 : tensor<?xf32>) -> (f32) summarize {
      ^bb0(%x1: tensor<?x?xf32>, %x2: tensor<?x?xf32>, %c: tensor<?x?xf32>, %s: tensor<?x?xf32>, %qv: tensor<?xf32>):
        %a = kir.binary mul %x1, %c : tensor<?x?xf32>
        %e = kir.binary mul %x2, %s : tensor<?x?xf32>
        %r = kir.binary sub %a, %e : tensor<?x?xf32>
        %sc = kir.contract %r, %qv reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
        %ni = arith.constant 0xFF800000 : f32
        %mx = kir.reduce %sc axes [0] identity(%ni : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%p: f32, %o: f32):
          %x = kir.binary max %p, %o : f32
          kir.yield %x : f32
        }
        kir.yield %mx : f32
      } combine {
      ^bb0(%a1: f32, %a2: f32):
        %x = kir.binary max %a1, %a2 : f32
        kir.yield %x : f32
      }
      kir.store %m, %y[%b, %h] : f32, !kir.view<f32, [B, HQ], out>[index, index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the member's own domains [0, n) and [1, n + 1) pair by position in KIR, but their
// COM: sizes are the member's (no launch-time guard can check them before the fold): the workset stays
// COM: element by element.
// CHECK-LABEL: pgpu.kernel @member_domains_not_paired
// CHECK-NOT: pgpu.fragment
// CHECK: pgpu.region_fold %{{.*}} to %{{.*}} step %c1{{.*}} identity(%{{.*}} : f32)
// CHECK: pgpu.range_reduce
// CHECK-NOT: pgpu.fragment
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @member_domains_not_paired(%x: !kir.view<f32, [B, T], in>, %w: !kir.view<f32, [B, T], in>,
                                        %lens: !kir.view<i32, [B], in>, %y: !kir.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ninf = arith.constant 0xFF800000 : f32
    %nb = kir.extent "B"
    %db = kir.domain %c0 to %nb
    // expected-remark @+1 {{kir-to-pgpu: region fold constructed element by element: operands range over different domains ('kir.binary')}}
    kir.parallel %db {
    ^bb0(%b: index):
      %l = kir.load %lens[%b] : !kir.view<i32, [B], in>[index] -> i32
      %n = kir.cast %l : i32 to index
      %n1 = kir.binary add %n, %c1 : index
      %t0 = kir.domain %c0 to %n
      %t1 = kir.domain %c1 to %n1
      %xs = kir.load %x[%b, %t0] : !kir.view<f32, [B, T], in>[index, !kir.domain] -> tensor<?xf32>
      %ws = kir.load %w[%b, %t1] : !kir.view<f32, [B, T], in>[index, !kir.domain] -> tensor<?xf32>
      %p = kir.binary mul %xs, %ws : tensor<?xf32>
      %m = kir.region_fold sources(%p : tensor<?xf32>) axis 0 identity(%ninf : f32) -> (f32) summarize {
      ^bb0(%t: tensor<?xf32>):
        %ni = arith.constant 0xFF800000 : f32
        %mx = kir.reduce %t axes [0] identity(%ni : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%u: f32, %v: f32):
          %z = kir.binary max %u, %v : f32
          kir.yield %z : f32
        }
        kir.yield %mx : f32
      } combine {
      ^bb0(%a1: f32, %a2: f32):
        %z = kir.binary max %a1, %a2 : f32
        kir.yield %z : f32
      }
      kir.store %m, %y[%b] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}
