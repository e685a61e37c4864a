// A reduction whose combine yields the addition of its two arguments, over floats or 32/64-bit
// integers, is spelled tl.sum (the same tt.reduce with an add region on the device; Triton's
// interpreter sums it with NumPy instead of calling a combine function per lane pair). Must not fire:
// a maximum (tl.reduce with its combine function), a sum of 16-bit integers (tl.sum would promote them
// to int32). The three reductions walk different ranges, so pgpu-form-blocking keeps them apart (siblings
// over one range would be one reduction with a three-component combine).
// RUN: tessel compile %s --emit=source --target=triton | FileCheck %s
// COM: every combine function is the maximum's (line 48) or the i16 sum's (line 62), one per path that reduces
// COM: (the row loop and, where pgpu-pack-rows packs rows, the packed tile); the f32 sum (line 55) has none:
// COM: it is tl.sum wherever it is spelled.
// CHECK: def _rows_combine{{[0-9]+}}(
// CHECK-NEXT: # serialize-sum.mlir:48
// CHECK-NEXT: tl.maximum(
// CHECK: def _rows_combine{{[0-9]+}}(
// CHECK-NEXT: # serialize-sum.mlir:62
// CHECK-NEXT: = v{{[0-9]+}} + v{{[0-9]+}}
// CHECK-NOT: serialize-sum.mlir:55
// CHECK: def _rows_kernel(
// CHECK: = tl.reduce(v{{[0-9]+}}, {{[01]}}, _rows_combine{{[0-9]+}})
// CHECK: # serialize-sum.mlir:55
// CHECK-NOT: tl.reduce
// CHECK: = tl.sum(v{{[0-9]+}}, {{[01]}})
// CHECK: tl.int16
// CHECK: = tl.reduce(v{{[0-9]+}}, {{[01]}}, _rows_combine{{[0-9]+}})
// CHECK: # serialize-sum.mlir:55
// CHECK-NOT: tl.reduce
// CHECK: = tl.sum(v{{[0-9]+}}, {{[01]}})
module {
  kir.kernel @rows(%x: !kir.view<f32, [M, N], in>, %k: !kir.view<i16, [M, N], in>, %mx: !kir.view<f32, [M], out>,
                   %sm: !kir.view<f32, [M], out>, %ks: !kir.view<i16, [M], out>) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %c0 = arith.constant 0 : index
    %rows = kir.domain %c0 to %0
    %cols = kir.domain %c0 to %1
    %c1 = arith.constant 1 : index
    %tail = kir.domain %c1 to %1
    %c2 = arith.constant 2 : index
    %late = kir.domain %c2 to %1
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %izero = arith.constant 0 : i16
    kir.parallel %rows {
    ^bb0(%r: index):
      %v = kir.load %x[%r, %cols] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %m = kir.reduce %v axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %t = kir.binary max %a, %b : f32
        kir.yield %t : f32
      }
      kir.store %m, %mx[%r] : f32, !kir.view<f32, [M], out>[index]
      %vt = kir.load %x[%r, %tail] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %s = kir.reduce %vt axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %t = kir.binary add %b, %a : f32
        kir.yield %t : f32
      }
      kir.store %s, %sm[%r] : f32, !kir.view<f32, [M], out>[index]
      %w = kir.load %k[%r, %late] : !kir.view<i16, [M, N], in>[index, !kir.domain] -> tensor<?xi16>
      %q = kir.reduce %w axes [0] identity(%izero : i16) : (tensor<?xi16>) -> (i16) {
      ^bb0(%a: i16, %b: i16):
        %t = kir.binary add %a, %b : i16
        kir.yield %t : i16
      }
      kir.store %q, %ks[%r] : i16, !kir.view<i16, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}
