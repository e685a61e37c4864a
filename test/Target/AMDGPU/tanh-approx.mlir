// {approximate} tanh (relative error <= 2^-11, types §5.1) has no AMDGPU instruction: it is
// (1 - e) / (1 + e) with e = 2^(-2 log2(e) |x|) and the sign of x, x itself below 2^-12, all in
// process (llvm.tanh would become a call to ocml, which is not linked). Accurate tanh is rejected
// (rejected.mlir).
// RUN: tessel compile %S/../PTX/tanh-approx.mlir --target=amdgpu --emit=device | FileCheck %s --check-prefix=DEVICE
// DEVICE: llvm.call_intrinsic "llvm.fabs.f32"
// DEVICE: llvm.call_intrinsic "llvm.exp2.f32"
// DEVICE: arith.divf
// DEVICE: llvm.call_intrinsic "llvm.copysign.f32"
// DEVICE: arith.cmpf olt, %{{.*}}, %cst{{.*}} : f32
// DEVICE: arith.select
// DEVICE-NOT: llvm.tanh
// RUN: tessel compile %S/../PTX/tanh-approx.mlir --target=amdgpu | FileCheck %s --implicit-check-not=s_swappc_b64
// CHECK-LABEL: tanh_approx:
// CHECK: v_exp_f32
// CHECK: s_endpgm
