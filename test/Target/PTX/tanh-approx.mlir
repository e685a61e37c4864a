// {approximate} tanh (relative error <= 2^-11, types §5.1) is PTX's tanh.approx.f32, selected in
// process with no libdevice call; accurate tanh is rejected (rejected.mlir).
// RUN: tessel compile %s --target=ptx | FileCheck %s
// CHECK: .visible .entry tanh_approx(
// CHECK: tanh.approx.f32
// CHECK-NOT: call
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @tanh_approx(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %v = pgpu.load %x[%c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      %w = pgpu.unary tanh %v {approximate} : f32
      pgpu.store %w, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
