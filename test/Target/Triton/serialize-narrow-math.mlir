// Found by the DSL fuzzer (test/fuzz/dsl_fuzz.py). tl.exp, exp2, log, log2, sin, cos, floor and ceil
// accept fp32/fp64 only: on f16 and bf16 they compute in f32 and round once (types §5); on f32 they
// stay as they were. Integer div/rem follow floor semantics (KIRDialect.md) where Triton's // and %
// truncate: the truncated result is adjusted when the remainder is nonzero and the signs differ; index
// arithmetic keeps Triton's operators. A nonzero bf16 constant is an f32 constant narrowed (Triton
// 3.6's interpreter has no bf16 scalar constant); a zero one is unchanged. Logical not of an i1 is
// `(x == 0)`, an i1 (`x ^ 1` was an int32, which tl.store rejected as a mask).
// RUN: tessel compile %s --emit=source --target=triton -o %t.py
// RUN: FileCheck %s --input-file=%t.py

// CHECK-LABEL: def _narrow_kernel(
// CHECK: [[H:v[0-9]+]] = tl.load(h + {{.*}}other=tl.full([], 0.000000e+00, tl.float16))
// CHECK: = tl.cast(tl.exp(tl.cast([[H]], tl.float32)), tl.float16)
// CHECK: = tl.cast(tl.exp2(tl.cast([[H]], tl.float32)), tl.float16)
// CHECK: = tl.cast(tl.log(tl.cast([[H]], tl.float32)), tl.float16)
// CHECK: = tl.cast(tl.log2(tl.cast([[H]], tl.float32)), tl.float16)
// CHECK: = tl.cast(tl.sin(tl.cast([[H]], tl.float32)), tl.float16)
// CHECK: = tl.cast(tl.cos(tl.cast([[H]], tl.float32)), tl.float16)
// CHECK: = tl.cast(tl.floor(tl.cast([[H]], tl.float32)), tl.float16)
// CHECK: = tl.cast(tl.ceil(tl.cast([[H]], tl.float32)), tl.float16)
// CHECK: [[B:v[0-9]+]] = tl.load(b + {{.*}}other=tl.full([], 0.000000e+00, tl.bfloat16))
// CHECK: = tl.cast(tl.sin(tl.cast([[B]], tl.float32)), tl.bfloat16)
// CHECK: = {{v[0-9]+}} * tl.cast(tl.full([], 1.500000e+00, tl.float32), tl.bfloat16)
// CHECK: [[X:v[0-9]+]] = tl.load(x + {{.*}}other=tl.full([], 0.000000e+00, tl.float32))
// CHECK: = tl.exp([[X]])
// CHECK: = tl.sin([[X]])
// CHECK: = tl.floor([[X]])
// CHECK: [[I:v[0-9]+]] = tl.load(i + {{.*}}other=tl.full([], 0, tl.int8))
// CHECK: = tl.where((([[I]] % tl.full([], 7, tl.int8)) != 0) & (([[I]] < tl.full([], 0, tl.int8)) != (tl.full([], 7, tl.int8) < tl.full([], 0, tl.int8))), ([[I]] // tl.full([], 7, tl.int8)) - tl.full([], 1, tl.int8), [[I]] // tl.full([], 7, tl.int8))
// CHECK: = tl.where((([[I]] % tl.full([], 7, tl.int8)) != 0) & (([[I]] < tl.full([], 0, tl.int8)) != (tl.full([], 7, tl.int8) < tl.full([], 0, tl.int8))), ([[I]] % tl.full([], 7, tl.int8)) + tl.full([], 7, tl.int8), [[I]] % tl.full([], 7, tl.int8))
// CHECK: [[C:v[0-9]+]] = [[I]] > tl.full([], 0, tl.int8)
// CHECK: [[N:v[0-9]+]] = ([[C]] == 0)
// CHECK: tl.store(iy + {{.*}}, mask=[[N]])
// CHECK: = [[P:v[0-9]+]] // 3
// CHECK-NOT: tl.where
// COM: a scalar index remainder is spelled a - (a // b) * b (serialize-scalar-remainder.mlir)
// CHECK: = [[P]] - ([[P]] // 3) * 3
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @narrow(%h: !pgpu.view<f16, [N], in>, %b: !pgpu.view<bf16, [N], in>, %x: !pgpu.view<f32, [N], in>,
                      %i: !pgpu.view<i8, [N], in>, %hy: !pgpu.view<f16, [N], out>, %by: !pgpu.view<bf16, [N], out>,
                      %y: !pgpu.view<f32, [N], out>, %iy: !pgpu.view<i8, [N], out>, %py: !pgpu.view<i64, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %zh = arith.constant 0.0 : f16
      %zb = arith.constant 0.0 : bf16
      %cb = arith.constant 1.5 : bf16
      %zi = arith.constant 0 : i8
      %c7 = arith.constant 7 : i8
      %hv = pgpu.load %h[%c0] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [N], in>[index] -> f16
      %h0 = pgpu.unary exp %hv : f16
      %h1 = pgpu.unary exp2 %hv : f16
      %h2 = pgpu.unary log %hv : f16
      %h3 = pgpu.unary log2 %hv : f16
      %h4 = pgpu.unary sin %hv : f16
      %h5 = pgpu.unary cos %hv : f16
      %h6 = pgpu.unary floor %hv : f16
      %h7 = pgpu.unary ceil %hv : f16
      %s0 = pgpu.binary add %h0, %h1 : f16
      %s1 = pgpu.binary add %s0, %h2 : f16
      %s2 = pgpu.binary add %s1, %h3 : f16
      %s3 = pgpu.binary add %s2, %h4 : f16
      %s4 = pgpu.binary add %s3, %h5 : f16
      %s5 = pgpu.binary add %s4, %h6 : f16
      %s6 = pgpu.binary add %s5, %h7 : f16
      pgpu.store %s6, %hy[%c0] valid %t : i1 : f16, !pgpu.view<f16, [N], out>[index]
      %bv = pgpu.load %b[%c0] valid %t : i1 fill %zb : bf16 : !pgpu.view<bf16, [N], in>[index] -> bf16
      %bs = pgpu.unary sin %bv : bf16
      %bm = pgpu.binary mul %bs, %cb : bf16
      pgpu.store %bm, %by[%c0] valid %t : i1 : bf16, !pgpu.view<bf16, [N], out>[index]
      %xv = pgpu.load %x[%c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      %x0 = pgpu.unary exp %xv : f32
      %x1 = pgpu.unary sin %xv : f32
      %x2 = pgpu.unary floor %xv : f32
      %x3 = pgpu.binary add %x0, %x1 : f32
      %x4 = pgpu.binary add %x3, %x2 : f32
      pgpu.store %x4, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      %iv = pgpu.load %i[%c0] valid %t : i1 fill %zi : i8 : !pgpu.view<i8, [N], in>[index] -> i8
      %q = pgpu.binary div %iv, %c7 : i8
      %r = pgpu.binary rem %iv, %c7 : i8
      %qr = pgpu.binary add %q, %r : i8
      pgpu.store %qr, %iy[%c0] valid %t : i1 : i8, !pgpu.view<i8, [N], out>[index]
      %pos = pgpu.cmp gt %iv, %zi : i8
      %neg = pgpu.unary not %pos : i1
      pgpu.store %qr, %iy[%c0] valid %neg : i1 : i8, !pgpu.view<i8, [N], out>[index]
      %pq = pgpu.binary div %p, %c3 : index
      %pr = pgpu.binary rem %p, %c3 : index
      %ps = pgpu.binary add %pq, %pr : index
      %pi = pgpu.cast %ps : index to i64
      pgpu.store %pi, %py[%c0] valid %t : i1 : i64, !pgpu.view<i64, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
