// Issue 47 (found by the DSL fuzzer): `//` and `%` on index values are floor division and its remainder
// (KIRDialect.md), Triton's truncate. An index quotient or remainder keeps Triton's operator only where
// pgpu::provablyNonNegative (IndexSign.h) shows the dividend non-negative and the divisor positive (the
// two agree there: construction's address arithmetic); otherwise the truncated result is adjusted where
// the remainder is nonzero and the signs differ.
// RUN: tessel compile %s --emit=source --target=triton -o %t.py
// RUN: FileCheck %s --input-file=%t.py

// CHECK-LABEL: def _signs_kernel(
// CHECK: [[P:v[0-9]+]] = tl.program_id(0)
// CHECK: [[L:v[0-9]+]] = tl.arange(0, 64) + {{v[0-9]+}}
// CHECK: [[TWO:v[0-9]+]] = tl.full([64], 0, tl.int32) + 2
// COM: fires: a shifted coordinate (lane - 3) may be negative.
// CHECK: [[SH:v[0-9]+]] = [[L]] - {{v[0-9]+}}
// CHECK: = tl.where((([[SH]] % [[TWO]]) != 0) & (([[SH]] < 0) != ([[TWO]] < 0)), ([[SH]] // [[TWO]]) - 1, [[SH]] // [[TWO]])
// CHECK: = tl.where((([[SH]] % [[TWO]]) != 0) & (([[SH]] < 0) != ([[TWO]] < 0)), ([[SH]] % [[TWO]]) + [[TWO]], [[SH]] % [[TWO]])
// COM: fires: a non-negative dividend by a negative divisor.
// CHECK: = tl.where((([[P]] % -2) != 0) & (([[P]] < 0) != (-2 < 0)), ([[P]] // -2) - 1, [[P]] // -2)
// COM: fires: a loaded value cast to index has no known sign.
// CHECK: [[LD:v[0-9]+]] = tl.cast({{v[0-9]+}}, tl.int32)
// CHECK: = tl.where((([[LD]] % 4) != 0) & (([[LD]] < 0) != (4 < 0)), ([[LD]] // 4) - 1, [[LD]] // 4)
// COM: must not fire: lanes from a loop index counting up from 0, a program index by an extent, a
// COM: parameter less one plus an extent (the parameter's candidates are >= 16), a spelled floor
// COM: remainder x - (x // 5) * 5 (a scalar one, spelled so: serialize-scalar-remainder.mlir), a clamped
// COM: span min(lo + 4, hi) - lo with lo = min(p, hi).
// CHECK: = [[L]] // [[TWO]]
// CHECK: = [[L]] % [[TWO]]
// CHECK: = [[P]] // {{v[0-9]+}}
// CHECK: [[PM:v[0-9]+]] = {{v[0-9]+}} - 1
// CHECK: [[PE:v[0-9]+]] = [[PM]] + {{v[0-9]+}}
// CHECK: = [[PE]] // 16
// CHECK: [[RM:v[0-9]+]] = [[PE]] - {{v[0-9]+}}
// CHECK: = [[RM]] - ([[RM]] // 5) * 5
// CHECK: [[SPAN:v[0-9]+]] = {{v[0-9]+}} - {{v[0-9]+}}
// CHECK: = [[SPAN]] // 7
// CHECK-NOT: tl.where(
// CHECK: tl.store(
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @signs(%x: !pgpu.view<i32, [N], in>, %y: !pgpu.view<i32, [N], out>) attributes {params = [#pgpu.param<"BLK", [16, 32], 16>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c7 = arith.constant 7 : index
      %c16 = arith.constant 16 : index
      %cm2 = arith.constant -2 : index
      %c64 = arith.constant 64 : index
      %t = arith.constant true
      %zi = arith.constant 0 : i32
      %n = pgpu.extent %x[0] : !pgpu.view<i32, [N], in>
      pgpu.for %c0 to %n step %c64 {
      ^bb0(%i: index):
        %lanes = pgpu.iota %i : !pgpu.fragment<index, [64]>
        %three = pgpu.splat %c3 : index -> !pgpu.fragment<index, [64]>
        %two = pgpu.splat %c2 : index -> !pgpu.fragment<index, [64]>
        %sh = pgpu.binary sub %lanes, %three : !pgpu.fragment<index, [64]>
        %q0 = pgpu.binary div %sh, %two : !pgpu.fragment<index, [64]>
        %r0 = pgpu.binary rem %sh, %two : !pgpu.fragment<index, [64]>
        %q1 = pgpu.binary div %p, %cm2 : index
        %v = pgpu.load %x[%p] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [N], in>[index] -> i32
        %vi = pgpu.cast %v : i32 to index
        %q2 = pgpu.binary div %vi, %c4 : index
        %q3 = pgpu.binary div %lanes, %two : !pgpu.fragment<index, [64]>
        %r3 = pgpu.binary rem %lanes, %two : !pgpu.fragment<index, [64]>
        %q4 = pgpu.binary div %p, %n : index
        %blk = pgpu.param "BLK" : index
        %pm = pgpu.binary sub %blk, %c1 : index
        %pe = pgpu.binary add %pm, %n : index
        %q5 = pgpu.binary div %pe, %c16 : index
        %d = pgpu.binary div %pe, %c5 : index
        %dm = pgpu.binary mul %d, %c5 : index
        %rm = pgpu.binary sub %pe, %dm : index
        %r6 = pgpu.binary rem %rm, %c5 : index
        %lo = pgpu.binary min %p, %n : index
        %hi0 = pgpu.binary add %lo, %c4 : index
        %hi = pgpu.binary min %hi0, %n : index
        %span = pgpu.binary sub %hi, %lo : index
        %q7 = pgpu.binary div %span, %c7 : index
        %s0 = pgpu.binary add %q0, %r0 : !pgpu.fragment<index, [64]>
        %s1 = pgpu.binary add %s0, %q3 : !pgpu.fragment<index, [64]>
        %s2 = pgpu.binary add %s1, %r3 : !pgpu.fragment<index, [64]>
        %a0 = pgpu.binary add %q1, %q2 : index
        %a1 = pgpu.binary add %a0, %q4 : index
        %a2 = pgpu.binary add %a1, %q5 : index
        %a3 = pgpu.binary add %a2, %r6 : index
        %a4 = pgpu.binary add %a3, %q7 : index
        %as = pgpu.splat %a4 : index -> !pgpu.fragment<index, [64]>
        %s3 = pgpu.binary add %s2, %as : !pgpu.fragment<index, [64]>
        %out = pgpu.cast %s3 : !pgpu.fragment<index, [64]> to !pgpu.fragment<i32, [64]>
        %ok = pgpu.cmp lt %lanes, %two : !pgpu.fragment<index, [64]>
        pgpu.store %out, %y[%lanes] valid %ok : !pgpu.fragment<i1, [64]> : !pgpu.fragment<i32, [64]>, !pgpu.view<i32, [N], out>[!pgpu.fragment<index, [64]>]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
