// RUN: tessel-opt %s -kir-to-pgpu="max-ops=1000" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: tessel-opt %s -kir-row-parallels -kir-to-pgpu="max-ops=1000" | FileCheck %s --check-prefix=KEPT

// COM: Issue 47: construction replays a value's producers at every position a consumer reads it at. Four
// COM: Sinkhorn normalizations (row sums, then column sums of the row-normalized matrix, ...) each read the
// COM: matrix before them at their own positions and inside the next sum's loop at others: 2^8 rebuilds of
// COM: the first row sum's loop nest, about 2.6x the ops per normalization (ITERS = 10 of corpus 339 built
// COM: 476218 ops in 22 s, and the passes after it did not finish in 600 s). Fires: past max-ops an error at
// COM: the most rebuilt reduction (the chain's first), a note at the value being replayed, nothing built on.
// COM: Must not fire: the same kernel after kir-row-parallels, which keeps each sum in a buffer per member
// COM: (each built once: about 440 ops), under the same bound.
// KEPT-LABEL: pgpu.kernel @sinkhorn4
// KEPT-COUNT-8: pgpu.buffer_store
// KEPT: pgpu.store
module {
  kir.kernel @sinkhorn4(%c: !kir.view<f32, [B, N, N], in>, %out: !kir.view<f32, [B, N, N], out>) {
    %0 = kir.extent "B"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %idx = kir.domain %c0 to %1
    %bs = kir.domain %c0 to %0
    %zero = arith.constant 0.0 : f32
    kir.parallel %bs {
    ^bb0(%b: index):
      // expected-note @below {{construction was replaying this value}}
      %x = kir.load %c[%b, %idx, %idx] : !kir.view<f32, [B, N, N], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %p0 = kir.unary exp %x : tensor<?x?xf32>
      // expected-error @below {{kir-to-pgpu: constructing the kernel built more than 1000 ops: this 'kir.reduce' was built}}
      %s1 = kir.reduce %p0 axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a1: f32, %z1: f32):
        %t1 = kir.binary add %a1, %z1 : f32
        kir.yield %t1 : f32
      }
      %sb1 = kir.broadcast %s1 over(%idx, %idx) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %p1 = kir.binary div %p0, %sb1 : tensor<?x?xf32>
      %s2 = kir.reduce %p1 axes [0] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a2: f32, %z2: f32):
        %t2 = kir.binary add %a2, %z2 : f32
        kir.yield %t2 : f32
      }
      %sb2 = kir.broadcast %s2 over(%idx, %idx) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
      %p2 = kir.binary div %p1, %sb2 : tensor<?x?xf32>
      %s3 = kir.reduce %p2 axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a3: f32, %z3: f32):
        %t3 = kir.binary add %a3, %z3 : f32
        kir.yield %t3 : f32
      }
      %sb3 = kir.broadcast %s3 over(%idx, %idx) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %p3 = kir.binary div %p2, %sb3 : tensor<?x?xf32>
      %s4 = kir.reduce %p3 axes [0] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a4: f32, %z4: f32):
        %t4 = kir.binary add %a4, %z4 : f32
        kir.yield %t4 : f32
      }
      %sb4 = kir.broadcast %s4 over(%idx, %idx) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
      %p4 = kir.binary div %p3, %sb4 : tensor<?x?xf32>
      %s5 = kir.reduce %p4 axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a5: f32, %z5: f32):
        %t5 = kir.binary add %a5, %z5 : f32
        kir.yield %t5 : f32
      }
      %sb5 = kir.broadcast %s5 over(%idx, %idx) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %p5 = kir.binary div %p4, %sb5 : tensor<?x?xf32>
      %s6 = kir.reduce %p5 axes [0] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a6: f32, %z6: f32):
        %t6 = kir.binary add %a6, %z6 : f32
        kir.yield %t6 : f32
      }
      %sb6 = kir.broadcast %s6 over(%idx, %idx) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
      %p6 = kir.binary div %p5, %sb6 : tensor<?x?xf32>
      %s7 = kir.reduce %p6 axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a7: f32, %z7: f32):
        %t7 = kir.binary add %a7, %z7 : f32
        kir.yield %t7 : f32
      }
      %sb7 = kir.broadcast %s7 over(%idx, %idx) dims [0] : tensor<?xf32> -> tensor<?x?xf32>
      %p7 = kir.binary div %p6, %sb7 : tensor<?x?xf32>
      %s8 = kir.reduce %p7 axes [0] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a8: f32, %z8: f32):
        %t8 = kir.binary add %a8, %z8 : f32
        kir.yield %t8 : f32
      }
      %sb8 = kir.broadcast %s8 over(%idx, %idx) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
      %p8 = kir.binary div %p7, %sb8 : tensor<?x?xf32>
      kir.store %p8, %out[%b, %idx, %idx] : tensor<?x?xf32>, !kir.view<f32, [B, N, N], out>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
