// Integer and index div/rem are floor division and its remainder (KIRDialect.md; issue 47) on the
// providers built on the shared selector too (PTX, AMDGPU): an index quotient of a possibly negative
// dividend is arith.floordivsi, its remainder arith.remsi adjusted by the divisor where it is nonzero
// and its sign differs from the divisor's (not the truncating arith.divsi/remsi alone).
// RUN: tessel compile %s --emit=device --target=ptx | FileCheck %s
// RUN: tessel compile %s --emit=device --target=amdgpu | FileCheck %s

// CHECK: %[[Q:.*]] = arith.floordivsi %{{.*}}, %c-7_i32 : i32
// CHECK: %[[R:.*]] = arith.remsi %{{.*}}, %c-7_i32 : i32
// CHECK: arith.addi %[[R]], %c-7_i32 : i32
// CHECK: %[[S:.*]] = arith.subi %{{.*}}, %c3 : index
// CHECK: arith.floordivsi %[[S]], %c2 : index
// CHECK: %[[IR:.*]] = arith.remsi %[[S]], %c2 : index
// CHECK: arith.cmpi slt, %[[IR]], %c0 : index
// CHECK: arith.addi %[[IR]], %c2 : index
// CHECK-NOT: arith.divsi
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
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
