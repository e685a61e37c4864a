// Integer and index div/rem are floor division and its remainder (KIRDialect.md; issue 47). cuTile's
// // and % floor as well (ct.floordiv, ct.mod: toward -inf), so they are spelled as is, on signed
// integers and on index values of either sign; the serializer used to wrap signed ones in helpers that
// truncated (_tdiv/_trem: -7 // 2 gave -3, not -4).
// RUN: tessel compile %s --emit=source --target=cutile -o %t.py
// RUN: FileCheck %s --input-file=%t.py

// CHECK-NOT: def _tdiv
// CHECK-NOT: def _trem
// CHECK-LABEL: def _divs_kernel(
// CHECK: [[V:v[0-9]+]] = ct.reshape(ct.gather(x,
// CHECK: = ([[V]] // ct.full((), -7, ct.int32))
// CHECK: = ([[V]] % ct.full((), -7, ct.int32))
// CHECK: [[S:v[0-9]+]] = ({{v[0-9]+}} - 3)
// CHECK: = ([[S]] // 2)
// CHECK: = ([[S]] % 2)
// CHECK-NOT: _tdiv
// CHECK-NOT: _trem
module attributes {pgpu.target = #pgpu.target<arch = "sm_100">} {
  pgpu.kernel @divs(%x: !pgpu.view<i32, [N], in>, %y: !pgpu.view<i32, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %t = arith.constant true
      %zi = arith.constant 0 : i32
      %c7 = arith.constant -7 : i32
      %v = pgpu.load %x[%c0] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [N], in>[index] -> i32
      %q = pgpu.binary div %v, %c7 : i32
      %r = pgpu.binary rem %v, %c7 : i32
      %s = pgpu.binary sub %p, %c3 : index
      %iq = pgpu.binary div %s, %c2 : index
      %ir = pgpu.binary rem %s, %c2 : index
      %i = pgpu.binary add %iq, %ir : index
      %ii = pgpu.cast %i : index to i32
      %a = pgpu.binary add %q, %r : i32
      %b = pgpu.binary add %a, %ii : i32
      pgpu.store %b, %y[%c0] valid %t : i1 : i32, !pgpu.view<i32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
