// RUN: tessel-opt %s -split-input-file -kir-to-pgpu | FileCheck %s

// COM: Index facts (kir/IndexFacts.h): an integer view whose every element, unmasked and
// COM: unconditionally, is a coordinate of another view's axis gets `pgpu.indexes = [[view, axis]]`,
// COM: which the wrappers' checked launch mode validates before a launch. A gather through an index
// COM: relation over the whole token domain: ids index axis 0 of table (argument 0).

// CHECK-LABEL: pgpu.kernel @gather
// CHECK-SAME: %ids: !pgpu.view<i32, [T], in> {pgpu.indexes = {{\[}}[0, 0]]}
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @gather(%table: !kir.view<f32, [V, D], in>, %ids: !kir.view<i32, [T], in>,
                     %out: !kir.view<f32, [T, D], out>) {
    %c0 = arith.constant 0 : index
    %nt = kir.extent "T"
    %nd = kir.extent "D"
    %dt = kir.domain %c0 to %nt
    %dd = kir.domain %c0 to %nd
    %rows = kir.index_relation %ids[%dt] : !kir.view<i32, [T], in> -> tensor<?xindex>
    %vals = kir.gather %table[%rows, %dd] : !kir.view<f32, [V, D], in>[tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
    kir.store %vals, %out[%dt, %dd] : tensor<?x?xf32>, !kir.view<f32, [T, D], out>[!kir.domain, !kir.domain]
    kir.return
  }
}

// -----
// COM: A load at a data-dependent coordinate inside the workset over all of M (cross entropy's
// COM: target logit): target indexes axis 1 of logits.

// CHECK-LABEL: pgpu.kernel @pick
// CHECK-SAME: %target: !pgpu.view<i32, [M], in> {pgpu.indexes = {{\[}}[0, 1]]}
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @pick(%logits: !kir.view<f32, [M, C], in>, %target: !kir.view<i32, [M], in>,
                   %y: !kir.view<f32, [M], out>) {
    %c0 = arith.constant 0 : index
    %nm = kir.extent "M"
    %dm = kir.domain %c0 to %nm
    kir.parallel %dm {
    ^bb0(%m: index):
      %t = kir.load %target[%m] : !kir.view<i32, [M], in>[index] -> i32
      %c = kir.cast %t : i32 to index
      %v = kir.load %logits[%m, %c] : !kir.view<f32, [M, C], in>[index, index] -> f32
      kir.store %v, %y[%m] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----
// COM: Must not fire: the gather is masked (values outside [0, V) are legal under the mask), and a
// COM: relation over part of the ids (from 1) says nothing of ids[0].

// CHECK-LABEL: pgpu.kernel @masked
// CHECK-NOT: pgpu.indexes
// CHECK-LABEL: pgpu.kernel @partial
// CHECK-NOT: pgpu.indexes
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @masked(%table: !kir.view<f32, [V], in>, %ids: !kir.view<i32, [T], in>,
                     %out: !kir.view<f32, [T], out>) {
    %c0 = arith.constant 0 : index
    %nt = kir.extent "T"
    %nv = kir.extent "V"
    %dt = kir.domain %c0 to %nt
    %zero = arith.constant 0.0 : f32
    kir.parallel %dt {
    ^bb0(%t: index):
      %i = kir.load %ids[%t] : !kir.view<i32, [T], in>[index] -> i32
      %c = kir.cast %i : i32 to index
      %ok = kir.cmp lt %c, %nv : index
      %v = kir.load %table[%c] valid %ok : i1 fill %zero : f32 : !kir.view<f32, [V], in>[index] -> f32
      kir.store %v, %out[%t] : f32, !kir.view<f32, [T], out>[index]
      kir.yield
    }
    kir.return
  }

  kir.kernel @partial(%table: !kir.view<f32, [V], in>, %ids: !kir.view<i32, [T], in>,
                      %out: !kir.view<f32, [T], out>) {
    %c1 = arith.constant 1 : index
    %nt = kir.extent "T"
    %dt = kir.domain %c1 to %nt
    %rows = kir.index_relation %ids[%dt] : !kir.view<i32, [T], in> -> tensor<?xindex>
    %vals = kir.gather %table[%rows] : !kir.view<f32, [V], in>[tensor<?xindex>] -> tensor<?xf32>
    kir.store %vals, %out[%dt] : tensor<?xf32>, !kir.view<f32, [T], out>[!kir.domain]
    kir.return
  }
}
