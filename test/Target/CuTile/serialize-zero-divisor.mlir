// KIR's integer div and rem by zero give 0 (KIRDialect.md; issue 47); cuTile's // and % leave it undefined,
// so a divisor that may be 0 divides as 1 there and the result is selected 0 (ZeroDivisor.h, the rule the
// Triton and PTX providers follow too). A divisor provably nonzero (a nonzero constant, the maximum with a
// positive constant) keeps the plain spelling, as index quotients (address arithmetic) do.
// RUN: tessel compile %s --emit=source --target=cutile -o %t.py
// RUN: FileCheck %s --input-file=%t.py

// CHECK-LABEL: def _divs_kernel(
// CHECK: [[X:v[0-9]+]] = ct.reshape(ct.gather(x,
// CHECK: [[D:v[0-9]+]] = ct.reshape(ct.gather(d,
// COM: fires: a loaded divisor may be 0.
// CHECK: = ct.where(([[D]] == ct.full((), 0, ct.int32)), ct.full((), 0, ct.int32), ([[X]] // ct.where(([[D]] == ct.full((), 0, ct.int32)), ct.full((), 1, ct.int32), [[D]])))
// CHECK: = ct.where(([[D]] == ct.full((), 0, ct.int32)), ct.full((), 0, ct.int32), ([[X]] % ct.where(([[D]] == ct.full((), 0, ct.int32)), ct.full((), 1, ct.int32), [[D]])))
// COM: must not fire: a nonzero constant, the maximum with 1, an index quotient.
// CHECK: = ([[X]] // ct.full((), 3, ct.int32))
// CHECK: [[P:v[0-9]+]] = ct.maximum([[D]], ct.full((), 1, ct.int32))
// CHECK: = ([[X]] % [[P]])
// CHECK: = ({{v[0-9]+}} // 2)
// CHECK-NOT: ct.where
// CHECK: ct.scatter
module attributes {pgpu.target = #pgpu.target<arch = "sm_100">} {
  pgpu.kernel @divs(%x: !pgpu.view<i32, [N], in>, %d: !pgpu.view<i32, [N], in>, %y: !pgpu.view<i32, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %t = arith.constant true
      %zi = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %three = arith.constant 3 : i32
      %v = pgpu.load %x[%c0] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [N], in>[index] -> i32
      %w = pgpu.load %d[%c0] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [N], in>[index] -> i32
      %q = pgpu.binary div %v, %w : i32
      %r = pgpu.binary rem %v, %w : i32
      %q3 = pgpu.binary div %v, %three : i32
      %pos = pgpu.binary max %w, %one : i32
      %rp = pgpu.binary rem %v, %pos : i32
      %iq = pgpu.binary div %p, %c2 : index
      %ii = pgpu.cast %iq : index to i32
      %a = pgpu.binary add %q, %r : i32
      %b = pgpu.binary add %a, %q3 : i32
      %c = pgpu.binary add %b, %rp : i32
      %e = pgpu.binary add %c, %ii : i32
      pgpu.store %e, %y[%c0] valid %t : i1 : i32, !pgpu.view<i32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
