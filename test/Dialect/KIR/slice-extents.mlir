// RUN: tessel-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// COM: A slice of a step-1 domain is a domain of its own length re-based at 0: two subregions (or a
// COM: subregion and a domain) whose member counts have one affine form (end - begin, upper - lower
// COM: over extents, constants, +, -, * and floor division by constants) have equal extents, so
// COM: element-wise ops, broadcasts and stores pair them by position (rotate-half rotary embedding).

// CHECK-LABEL: kir.kernel @rotate_half
// CHECK: kir.binary mul
// CHECK: kir.store
kir.kernel @rotate_half(%x: !kir.view<f32, [D], in>, %c: !kir.view<f32, [H], in>, %y: !kir.view<f32, [D], out>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d = kir.extent "D"
  %h = kir.extent "H"
  %dims = kir.domain %c0 to %d
  %half = kir.domain %c0 to %h
  %h2 = kir.binary mul %h, %c2 : index
  %lo = kir.subregion %dims[%c0 : %h]
  %hi = kir.subregion %dims[%h : %h2]
  %x1 = kir.load %x[%lo] : !kir.view<f32, [D], in>[!kir.domain] -> tensor<?xf32>
  %x2 = kir.load %x[%hi] : !kir.view<f32, [D], in>[!kir.domain] -> tensor<?xf32>
  %cs = kir.load %c[%half] : !kir.view<f32, [H], in>[!kir.domain] -> tensor<?xf32>
  // [h, 2h) and [0, h) and the domain [0, h): one length h.
  %p = kir.binary mul %x2, %x1 : tensor<?xf32>
  %q = kir.binary mul %p, %cs : tensor<?xf32>
  kir.store %q, %y[%hi] : tensor<?xf32>, !kir.view<f32, [D], out>[!kir.domain]
  kir.store %q, %y[%lo] : tensor<?xf32>, !kir.view<f32, [D], out>[!kir.domain]
  kir.return
}

// -----
// COM: Floor quotients are atoms: [0, d//2) and [d//2, 2*(d//2)) pair; a broadcast of a slice over
// COM: a domain of its length verifies too.
// CHECK-LABEL: kir.kernel @quotients
kir.kernel @quotients(%x: !kir.view<f32, [D], in>, %y: !kir.view<f32, [D], out>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d = kir.extent "D"
  %dims = kir.domain %c0 to %d
  %q = kir.binary div %d, %c2 : index
  %q2 = kir.binary mul %c2, %q : index
  %lo = kir.subregion %dims[%c0 : %q]
  %hi = kir.subregion %dims[%q : %q2]
  %re = kir.domain %c0 to %q
  %x1 = kir.load %x[%lo] : !kir.view<f32, [D], in>[!kir.domain] -> tensor<?xf32>
  %x2 = kir.load %x[%hi] : !kir.view<f32, [D], in>[!kir.domain] -> tensor<?xf32>
  %s = kir.binary sub %x1, %x2 : tensor<?xf32>
  %b = kir.broadcast %s over(%re, %re) dims [1] : tensor<?xf32> -> tensor<?x?xf32>
  kir.store %s, %y[%hi] : tensor<?xf32>, !kir.view<f32, [D], out>[!kir.domain]
  kir.return
}

// -----
// COM: Not fired: [0, d//2) has d//2 members and [d//2, d) has d - d//2 (they differ for odd d).
kir.kernel @halves(%x: !kir.view<f32, [D], in>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d = kir.extent "D"
  %dims = kir.domain %c0 to %d
  %q = kir.binary div %d, %c2 : index
  %lo = kir.subregion %dims[%c0 : %q]
  %hi = kir.subregion %dims[%q : %d]
  %x1 = kir.load %x[%lo] : !kir.view<f32, [D], in>[!kir.domain] -> tensor<?xf32>
  %x2 = kir.load %x[%hi] : !kir.view<f32, [D], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.binary' op axis 0 of lhs and rhs are not provably equal: they come from different domains}}
  %s = kir.binary sub %x1, %x2 : tensor<?xf32>
  kir.return
}

// -----
// COM: Not fired: a subregion of a step-2 domain counts members by step, not by end - begin.
kir.kernel @strided(%x: !kir.view<f32, [D], in>, %y: !kir.view<f32, [D], out>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %d = kir.extent "D"
  %even = kir.domain %c0 to %d step 2
  %dims = kir.domain %c0 to %d
  %a = kir.subregion %even[%c0 : %c4]
  %b = kir.subregion %dims[%c0 : %c4]
  %x1 = kir.load %x[%a] : !kir.view<f32, [D], in>[!kir.domain] -> tensor<?xf32>
  // expected-error @+1 {{'kir.store' op writes a value whose axis 0 is not provably as long as the destination coordinates}}
  kir.store %x1, %y[%b] : tensor<?xf32>, !kir.view<f32, [D], out>[!kir.domain]
  kir.return
}
