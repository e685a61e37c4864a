// RUN: not tessel vjp %s --wrt=x,, 2>&1 | FileCheck %s --check-prefix=STRAY
// RUN: not tessel vjp %s --wrt= 2>&1 | FileCheck %s --check-prefix=STRAY
// RUN: not tessel vjp %s --wrt=x,x 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: tessel vjp %s --wrt=x | FileCheck %s --check-prefix=OK

// COM: Issue 47 (hostile inputs on kir-vjp): a stray comma in --wrt was reported as "'' is named twice
// COM: in wrt" or "no argument named ''"; it is said as an empty name. Must not fire on real names.
// STRAY: error: 'kir.kernel' op kir-vjp: wrt holds an empty name (a stray comma?)
// STRAY-NOT: named twice
// TWICE: error: 'kir.kernel' op kir-vjp: 'x' is named twice in wrt
// OK: kir.kernel @scale_vjp(
kir.kernel @scale(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {
  %c0 = arith.constant 0 : index
  %n = kir.extent "N"
  %d = kir.domain %c0 to %n
  %v = kir.load %x[%d] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
  %two = arith.constant 2.0 : f32
  %t = kir.broadcast %two over(%d) dims [] : f32 -> tensor<?xf32>
  %r = kir.binary mul %v, %t : tensor<?xf32>
  kir.store %r, %y[%d] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
  kir.return
}
