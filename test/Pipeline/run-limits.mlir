// Issue 47: every array tessel run allocates from --shape passes the interpreters' one element cap
// (2^28) first: a located error at the view, exit code 2, never LLVM's out of memory (N = 2^31) or an
// uncaught std::length_error (N = 2^63 - 1); and run checks --numerics as compile does.

// RUN: not tessel run %s --shape N=2147483648 --scalar scale=1.0 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not tessel run %s --shape N=9223372036854775807 --scalar scale=1.0 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not tessel run %s --shape N=9223372036854775807 --scalar scale=1.0 --stage pgpu 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not tessel run %s --shape N=5 --scalar scale=1.0 --numerics=bogus 2>&1 | FileCheck %s --check-prefix=NUMERICS
// Must not fire: at the cap, and at zero.
// RUN: tessel run %s --shape N=0 --scalar scale=1.0 | FileCheck %s --check-prefix=EMPTY
// RUN: tessel run %s --shape N=7 --scalar scale=1.0 --numerics=relaxed_normalization | FileCheck %s --check-prefix=OK

// BIG: run-limits.mlir:[[# @LINE + 8]]:26: error: view 'x' of shape [2147483648] has more than 2^28 (268435456) elements, the most the interpreters hold (from --shape)
// BIG-NOT: LLVM ERROR
// HUGE: run-limits.mlir:{{[0-9]+}}:{{[0-9]+}}: error: view 'x' of shape [9223372036854775807] has more than 2^28
// HUGE-NOT: length_error
// NUMERICS: run-limits.mlir:[[# @LINE + 3]]:1: error: --numerics must be 'source' or 'relaxed_normalization', got 'bogus'
// EMPTY: z: f32[0]
// OK: z: f32[7]
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @vector_add(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], in>,
                         %z: !kir.view<f32, [N], out>, %scale: f32) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %dn = kir.domain %c0 to %n
    %xs = kir.load %x[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %ys = kir.load %y[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %s = kir.binary add %xs, %ys : tensor<?xf32>
    kir.store %s, %z[%dn] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    kir.return
  }
}
