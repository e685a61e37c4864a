// Math whose required accuracy no tl.* function has (seed 000 §7: approximate=false is library
// precision) is spelled through Triton's libdevice; f16/bf16 compute in f32 and round once. The
// module then defines `libdevice` (Triton's, or NumPy evaluations under TRITON_INTERPRET=1); a
// module without such math does not.
// RUN: tessel compile %s --emit=source --target=triton -o %t.py
// RUN: FileCheck %s --input-file=%t.py
// RUN: tessel compile %s --emit=source --target=triton -o %t.again.py
// RUN: cmp %t.py %t.again.py
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --emit=source --target=triton | FileCheck %s --check-prefix=PLAIN

// CHECK: def _libdevice():
// CHECK: from triton.language.extra import libdevice
// CHECK: libdevice = _libdevice()
// CHECK: def _tanh_approx(x):
// CHECK: tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=f,f", [x], dtype=tl.float32,
// CHECK-LABEL: def _math_kernel(
// CHECK: = libdevice.tanh([[X:v[0-9]+]])
// CHECK: = _tanh_approx([[X]])
// CHECK: = libdevice.erf([[X]])
// CHECK: = tl.div_rn(1.0, 1.0 + libdevice.exp(-([[X]])))
// CHECK: = libdevice.log1p([[X]])
// CHECK: = libdevice.expm1([[X]])
// CHECK: = libdevice.pow([[X]], [[X]])
// CHECK: = tl.cast(libdevice.tanh(tl.cast([[H:v[0-9]+]], tl.float32)), tl.float16)
// CHECK: = tl.cast(libdevice.pow(tl.cast([[B:v[0-9]+]], tl.float32), tl.cast([[B]], tl.float32)), tl.bfloat16)
// PLAIN-NOT: libdevice
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @math(%x: !pgpu.view<f32, [N], in>, %h: !pgpu.view<f16, [N], in>, %b: !pgpu.view<bf16, [N], in>,
                    %y: !pgpu.view<f32, [N], out>, %hy: !pgpu.view<f16, [N], out>, %by: !pgpu.view<bf16, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %zh = arith.constant 0.0 : f16
      %zb = arith.constant 0.0 : bf16
      %v = pgpu.load %x[%c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      %u0 = pgpu.unary tanh %v : f32
      %u1 = pgpu.unary tanh %v {approximate} : f32
      %u2 = pgpu.unary erf %v : f32
      %u3 = pgpu.unary sigmoid %v : f32
      %u4 = pgpu.unary log1p %v : f32
      %u5 = pgpu.unary expm1 %v : f32
      %u6 = pgpu.binary pow %v, %v : f32
      %s0 = pgpu.binary add %u0, %u1 : f32
      %s1 = pgpu.binary add %s0, %u2 : f32
      %s2 = pgpu.binary add %s1, %u3 : f32
      %s3 = pgpu.binary add %s2, %u4 : f32
      %s4 = pgpu.binary add %s3, %u5 : f32
      %s5 = pgpu.binary add %s4, %u6 : f32
      pgpu.store %s5, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      %hv = pgpu.load %h[%c0] valid %t : i1 fill %zh : f16 : !pgpu.view<f16, [N], in>[index] -> f16
      %ht = pgpu.unary tanh %hv : f16
      pgpu.store %ht, %hy[%c0] valid %t : i1 : f16, !pgpu.view<f16, [N], out>[index]
      %bv = pgpu.load %b[%c0] valid %t : i1 fill %zb : bf16 : !pgpu.view<bf16, [N], in>[index] -> bf16
      %bp = pgpu.binary pow %bv, %bv : bf16
      pgpu.store %bp, %by[%c0] valid %t : i1 : bf16, !pgpu.view<bf16, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
