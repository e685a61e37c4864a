// Programs outside the AMDGPU selector are rejected at the op the author wrote (the DSL or KIR
// location), with the selector's limitation on this target, and no artifact is written (seed 004).

// COM: accurate tanh needs ocml (the ROCm device library), which the in-process provider does not link.
// RUN: not tessel compile %tessel_src/examples/fused_pointwise.py:fused_pointwise --target=amdgpu --emit=binary -o %t.fused.o 2>&1 | FileCheck %s --check-prefix=TANH
// RUN: test ! -e %t.fused.o
// TANH: fused_pointwise.py:14:28: error: the AMDGPU selector cannot express 'pgpu.unary': 'tanh' needs the ROCm device libraries (ocml), which the in-process AMDGPU provider does not link
// TANH-NOT: error:

// COM: Staging past the LDS budget (all but 8 KiB of a workgroup's 64 KiB) is rejected at the contraction.
// RUN: not tessel compile %tessel_src/examples/kir/linear_attention.mlir --target=amdgpu -o %t.la.s 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: test ! -e %t.la.s
// BUDGET: linear_attention.mlir:88:19: error: the AMDGPU selector would stage 65536 bytes of fragments in shared memory here, more than its 57344-byte budget
// COM: ... and smaller tiles fit.
// RUN: tessel compile %tessel_src/examples/kir/linear_attention.mlir --target=amdgpu --param=BLOCK_T=32 --param=BLOCK_D=32 --param=BLOCK_E=32 | FileCheck %s --check-prefix=FITS
// FITS: .amdhsa_kernel linear_attention

// COM: THREADS counts whole 64-lane wavefronts: 32 is outside the AMDGPU domain (it is a PTX value).
// RUN: not tessel compile %tessel_src/examples/kir/softmax.mlir --target=amdgpu --param THREADS=32 2>&1 | FileCheck %s --check-prefix=DOMAIN
// DOMAIN: error: parameter 'THREADS' = 32 is outside its candidate domain

// COM: The stages belong to their providers.
// RUN: not tessel compile %tessel_src/examples/kir/softmax.mlir --target=ptx --emit=binary 2>&1 | FileCheck %s --check-prefix=BINARY
// BINARY: error: --emit=binary is a stage of --target=amdgpu
// RUN: not tessel compile %tessel_src/examples/kir/softmax.mlir --target=amdgpu --emit=wrapper 2>&1 | FileCheck %s --check-prefix=WRAPPER
// WRAPPER: error: --emit=wrapper is a stage of --target=ptx
// RUN: not tessel compile %tessel_src/examples/kir/softmax.mlir --target=triton --emit=device 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: error: --emit=device is a stage of --target=ptx and --target=amdgpu

// COM: Transcendentals are f32 instructions; f64 needs ocml.
// RUN: not tessel compile %s --target=amdgpu --emit=device 2>&1 | FileCheck %s --check-prefix=F64
// F64: rejected.mlir:[[# @LINE + 10]]:12: error: the AMDGPU selector cannot express 'pgpu.unary': 'exp' is computed in f32 only (the AMDGPU approximate instructions); f64 needs the ROCm device libraries (ocml)
// F64-NOT: gpu.module
module attributes {pgpu.target = #pgpu.target<arch = "gfx942">} {
  pgpu.kernel @exp64(%x: !pgpu.view<f64, [N], in>, %y: !pgpu.view<f64, [N], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f64, [N], in>
    pgpu.program_space (%N) {
    ^bb0(%n: index):
      %t = arith.constant true
      %z = arith.constant 0.0 : f64
      %v = pgpu.load %x[%n] valid %t : i1 fill %z : f64 : !pgpu.view<f64, [N], in>[index] -> f64
      %e = pgpu.unary exp %v : f64
      pgpu.store %e, %y[%n] valid %t : i1 : f64, !pgpu.view<f64, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
