// RUN: tessel-opt %s -split-input-file --kir-to-pgpu --verify-diagnostics | FileCheck %s
// COM: A scatter whose destinations come from memory (may repeat) and whose value reads the view it writes
// COM: (bench/corpus/128_repetition_penalty: v = logits[b, toks]; logits[b, toks] = f(v)). KIR reads every
// COM: element before any write, so a repeated token is penalized once. Before: refused at the scatter (an
// COM: element loop would let a repeat read another position's write). After: staged (StagedScatters.cpp):
// COM: a workspace argument W[B, L] (a row per member, a slot per element), a first foreach over the row
// COM: whose elements gather and compute the value into W[b, i], then a second foreach reading W[b, i]
// COM: and scattering it: every gather of the member before any of its writes.
// CHECK-LABEL: pgpu.kernel @penalty
// CHECK-SAME: %[[W:[a-z0-9]+]]: !pgpu.buffer<f32, [B, L], workspace> {pgpu.private = "workspace"}
// CHECK: pgpu.execution_group
// CHECK: pgpu.foreach
// CHECK-NEXT: ^bb0(%[[I:.*]]: index):
// CHECK: %[[V:.*]] = pgpu.gather %logits
// CHECK: %[[F:.*]] = pgpu.binary mul %[[V]], %p : f32
// CHECK-NOT: pgpu.scatter
// CHECK: pgpu.buffer_store %[[F]], %[[W]][%[[B:[a-z0-9_]+]], %[[I]]]
// CHECK: pgpu.foreach
// CHECK-NEXT: ^bb0(%[[J:.*]]: index):
// CHECK-NOT: pgpu.gather %logits
// CHECK: %[[S:.*]] = pgpu.buffer_load %[[W]][%[[B]], %[[J]]]
// CHECK: pgpu.load %prev
// CHECK: pgpu.scatter %[[S]], %logits
module {
  kir.kernel @penalty(%logits: !kir.view<f32, [B, V], inout>, %prev: !kir.view<i64, [B, L], in>, %p: f32) {
    %c0 = arith.constant 0 : index
    %nb = kir.extent "B"
    %nl = kir.extent "L"
    %rows = kir.domain %c0 to %nb
    %hist = kir.domain %c0 to %nl
    %ps = kir.broadcast %p over(%hist) dims [] : f32 -> tensor<?xf32>
    kir.parallel %rows {
    ^bb0(%b: index):
      %t = kir.load %prev[%b, %hist] : !kir.view<i64, [B, L], in>[index, !kir.domain] -> tensor<?xi64>
      %toks = kir.cast %t : tensor<?xi64> to tensor<?xindex>
      %v = kir.gather %logits[%b, %toks] : !kir.view<f32, [B, V], inout>[index, tensor<?xindex>] -> tensor<?xf32>
      %w = kir.binary mul %v, %ps : tensor<?xf32>
      kir.scatter %w, %logits[%b, %toks] : tensor<?xf32>, !kir.view<f32, [B, V], inout>[index, tensor<?xindex>]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire (refused as before): the members start at 1, so the parallel's domain is not [0, n)
// COM: and no workspace row names a member; the error says why it cannot be staged.
module {
  kir.kernel @penalty_from_one(%logits: !kir.view<f32, [B, V], inout>, %prev: !kir.view<i64, [B, L], in>, %p: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %nb = kir.extent "B"
    %nl = kir.extent "L"
    %rows = kir.domain %c1 to %nb
    %hist = kir.domain %c0 to %nl
    %ps = kir.broadcast %p over(%hist) dims [] : f32 -> tensor<?xf32>
    kir.parallel %rows {
    ^bb0(%b: index):
      %t = kir.load %prev[%b, %hist] : !kir.view<i64, [B, L], in>[index, !kir.domain] -> tensor<?xi64>
      %toks = kir.cast %t : tensor<?xi64> to tensor<?xindex>
      // expected-note @+1 {{the read of the view}}
      %v = kir.gather %logits[%b, %toks] : !kir.view<f32, [B, V], inout>[index, tensor<?xindex>] -> tensor<?xf32>
      %w = kir.binary mul %v, %ps : tensor<?xf32>
      // expected-error @+1 {{cannot be staged before its writes here (a domain of the parallel does not span [0, n)}}
      kir.scatter %w, %logits[%b, %toks] : tensor<?xf32>, !kir.view<f32, [B, V], inout>[index, tensor<?xindex>]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the scattered value reads another view (an embedding update's rows), so repeats
// COM: write equal values and read nothing a write changes.
// CHECK-LABEL: pgpu.kernel @copy_rows
// CHECK: pgpu.gather %src
// CHECK: pgpu.scatter {{.*}}, %dst
module {
  kir.kernel @copy_rows(%dst: !kir.view<f32, [B, V], inout>, %src: !kir.view<f32, [B, V], in>, %prev: !kir.view<i64, [B, L], in>) {
    %c0 = arith.constant 0 : index
    %nb = kir.extent "B"
    %nl = kir.extent "L"
    %rows = kir.domain %c0 to %nb
    %hist = kir.domain %c0 to %nl
    kir.parallel %rows {
    ^bb0(%b: index):
      %t = kir.load %prev[%b, %hist] : !kir.view<i64, [B, L], in>[index, !kir.domain] -> tensor<?xi64>
      %toks = kir.cast %t : tensor<?xi64> to tensor<?xindex>
      %v = kir.gather %src[%b, %toks] : !kir.view<f32, [B, V], in>[index, tensor<?xindex>] -> tensor<?xf32>
      kir.scatter %v, %dst[%b, %toks] : tensor<?xf32>, !kir.view<f32, [B, V], inout>[index, tensor<?xindex>]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Must not fire: the view reaches the scattered value only through a reduction (a scalar, realized
// COM: before the scatter's element loop reads or writes anything of it).
// CHECK-LABEL: pgpu.kernel @fill_with_sum
// CHECK: pgpu.scatter {{.*}}, %y
module {
  kir.kernel @fill_with_sum(%y: !kir.view<f32, [B, V], inout>, %prev: !kir.view<i64, [B, L], in>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %nl = kir.extent "L"
    %rows = kir.domain %c0 to %nb
    %hist = kir.domain %c0 to %nl
    kir.parallel %rows {
    ^bb0(%b: index):
      %t = kir.load %prev[%b, %hist] : !kir.view<i64, [B, L], in>[index, !kir.domain] -> tensor<?xi64>
      %toks = kir.cast %t : tensor<?xi64> to tensor<?xindex>
      %v = kir.gather %y[%b, %toks] : !kir.view<f32, [B, V], inout>[index, tensor<?xindex>] -> tensor<?xf32>
      %s = kir.reduce %v axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%l: f32, %r: f32):
        %a = kir.binary add %l, %r : f32
        kir.yield %a : f32
      }
      %w = kir.broadcast %s over(%hist) dims [] : f32 -> tensor<?xf32>
      kir.scatter %w, %y[%b, %toks] : tensor<?xf32>, !kir.view<f32, [B, V], inout>[index, tensor<?xindex>]
      kir.yield
    }
    kir.return
  }
}
