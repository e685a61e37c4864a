// A scalar index remainder is spelled a - (a // b) * b, which equals Triton's a % b where the serializer
// keeps Triton's operators (a non-negative dividend, a positive divisor). Triton's alignment analysis
// gives a scalar `%` divisibility 1; a flattened walk's lane coordinates are carried from its block's
// start within the row (pgpu-form-blocking: b % N plus the lanes' j % N, less N past the row's end), so
// the column read as unaligned and no access of the walk was vectorized (2-byte loads of an f16 row on
// sm_90). Through the subtraction the remainder keeps the divisibility b and N share (16 where Triton
// specializes N), and the walk's loads and stores become 16-byte vectors.
// RUN: tessel compile %s --emit=source --target=triton -o %t.py
// RUN: FileCheck %s --input-file=%t.py

// CHECK-LABEL: def _rows_add_kernel(
// COM: must not fire: a lane fragment's remainder (Triton's analysis keeps it: a splat divisor).
// CHECK: [[LANES:v[0-9]+]] = tl.arange(0, 512) + 0
// CHECK: [[N:v[0-9]+]] = tl.full([512], 0, tl.int32) + [[EXT:v[0-9]+]]
// CHECK: [[JN:v[0-9]+]] = [[LANES]] % [[N]]
// COM: fires: the block's start within its row, in the full blocks' loop and in the tail's.
// CHECK: for [[B:v[0-9]+]] in range(
// CHECK: [[BN:v[0-9]+]] = [[B]] - ([[B]] // [[EXT]]) * [[EXT]]
// CHECK: [[COL:v[0-9]+]] = {{v[0-9]+}} + [[JN]]
// CHECK: tl.load(x + {{.*}}
// CHECK: for [[T:v[0-9]+]] in range(
// CHECK: = [[T]] - ([[T]] // [[EXT]]) * [[EXT]]
// CHECK-NOT: {{v[0-9]+}} % [[EXT]]
// CHECK: tl.store(y +
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @rows_add(%x: !kir.view<f16, [M, N], in>, %y: !kir.view<f16, [M, N], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %2 = kir.domain %c0 to %0
    %3 = kir.domain %c0 to %1
    %cst = arith.constant 1.000000e+00 : f16
    %4 = kir.load %x[%2, %3] : !kir.view<f16, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
    %5 = kir.broadcast %cst over(%2, %3) dims [] : f16 -> tensor<?x?xf16>
    %6 = kir.binary add %4, %5 : tensor<?x?xf16>
    kir.store %6, %y[%2, %3] : tensor<?x?xf16>, !kir.view<f16, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
}
