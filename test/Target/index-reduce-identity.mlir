// RUN: tessel compile %s --target=triton --emit=source | FileCheck %s --check-prefix=TRITON
// RUN: tessel compile %s --target=cutile --emit=source | FileCheck %s --check-prefix=CUTILE
// RUN: tessel compile %s --target=ptx --emit=device | FileCheck %s --check-prefix=PTX
//
// A min / max reduction over index values whose identity is an i64 limit
// (kir written so; the DSL now writes the int32 limits itself): index lanes
// are 32-bit in every generated kernel, so the identity is spelled as the
// int32 limit (the lanes' type), never INT64_MAX in int32 lanes (Triton and
// cuTile reject it) nor its truncation -1 (on PTX min would return -1). An i64
// reduction keeps its i64 identity (must not fire).

// TRITON-LABEL: def _index_min_kernel(
// TRITON-NOT: 9223372036854775807
// TRITON: tl.int32) + 2147483647
// TRITON-LABEL: def _index_max_kernel(
// TRITON-NOT: 9223372036854775808
// TRITON: tl.int32) + -2147483648
// TRITON-LABEL: def _i64_min_kernel(
// TRITON: 9223372036854775807

// CUTILE-LABEL: def _index_min_kernel(
// CUTILE-NOT: 9223372036854775807
// CUTILE: 2147483647, ct.int32)
// CUTILE-LABEL: def _index_max_kernel(
// CUTILE-NOT: 9223372036854775808
// CUTILE: -2147483648, ct.int32)
// CUTILE-LABEL: def _i64_min_kernel(
// CUTILE: 9223372036854775807

// PTX-LABEL: gpu.func @index_min(
// PTX-NOT: constant -1 : index
// PTX: arith.constant 2147483647 : index
// PTX-LABEL: gpu.func @index_max(
// PTX-NOT: constant -1 : index
// PTX: arith.constant -2147483648 : index
// PTX-LABEL: gpu.func @i64_min(
// PTX: arith.constant 9223372036854775807 : i64

module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @index_min(%x: !kir.view<i32, [M, N], in>, %out: !kir.view<i32, [M], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %big = arith.constant 9223372036854775807 : index
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<i32, [M, N], in>[index, !kir.domain] -> tensor<?xi32>
      %rowi = kir.cast %row : tensor<?xi32> to tensor<?xindex>
      %r = kir.reduce %rowi axes [0] identity(%big : index) : (tensor<?xindex>) -> (index) {
      ^bb0(%a: index, %b: index):
        %s = kir.binary min %a, %b : index
        kir.yield %s : index
      }
      %r32 = kir.cast %r : index to i32
      kir.store %r32, %out[%i] : i32, !kir.view<i32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
  kir.kernel @index_max(%x: !kir.view<i32, [M, N], in>, %out: !kir.view<i32, [M], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %small = arith.constant -9223372036854775808 : index
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<i32, [M, N], in>[index, !kir.domain] -> tensor<?xi32>
      %rowi = kir.cast %row : tensor<?xi32> to tensor<?xindex>
      %r = kir.reduce %rowi axes [0] identity(%small : index) : (tensor<?xindex>) -> (index) {
      ^bb0(%a: index, %b: index):
        %s = kir.binary max %a, %b : index
        kir.yield %s : index
      }
      %r32 = kir.cast %r : index to i32
      kir.store %r32, %out[%i] : i32, !kir.view<i32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
  kir.kernel @i64_min(%x: !kir.view<i64, [M, N], in>, %out: !kir.view<i64, [M], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %big = arith.constant 9223372036854775807 : i64
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<i64, [M, N], in>[index, !kir.domain] -> tensor<?xi64>
      %r = kir.reduce %row axes [0] identity(%big : i64) : (tensor<?xi64>) -> (i64) {
      ^bb0(%a: i64, %b: i64):
        %s = kir.binary min %a, %b : i64
        kir.yield %s : i64
      }
      kir.store %r, %out[%i] : i64, !kir.view<i64, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}
