// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel run %s --shape N=4,K=1 | FileCheck %s --check-prefix=VALUES
// RUN: tessel run %s --shape N=4,K=1 --stage=pgpu | FileCheck %s --check-prefix=VALUES
// COM: kir.unary round rounds half to even (torch.round, numpy.rint), in the KIR interpreter and,
// COM: after construction, in the pgpu interpreter: 2.5 -> 2, 0.5 -> 0, -1.5 -> -2, -2.5 -> -2, so
// COM: y sums to 2 + 0 - 200 - 2000 (half away from zero would give -3187, floor(x + 0.5) -2097);
// COM: in f16, 3.5 -> 4 and -0.5 -> -0 (away from zero: 3).
// CHECK-COUNT-4: kir.unary round %{{.*}} : f32
// CHECK-COUNT-2: kir.unary round %{{.*}} : f16
// VALUES-DAG: y: f32[4] sum=-2198
// VALUES-DAG: h: f16[1] sum=4
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @rounds(%y: !kir.view<f32, [N], out>, %h: !kir.view<f16, [K], out>) {
    %0 = arith.constant 0 : index
    %1 = arith.constant 1 : index
    %2 = kir.domain %0 to %1
    %4 = arith.constant 2.5 : f32
    %6 = arith.constant 0.5 : f32
    %8 = arith.constant 10.0 : f32
    %11 = arith.constant -1.5 : f32
    %13 = arith.constant 100.0 : f32
    %15 = arith.constant 2 : index
    %17 = arith.constant -2.5 : f32
    %19 = arith.constant 1000.0 : f32
    %21 = arith.constant 3 : index
    %23 = arith.constant 3.5 : f16
    %25 = arith.constant -0.5 : f16
    kir.parallel %2 {
    ^bb0(%3: index):
      %5 = kir.unary round %4 : f32
      kir.store %5, %y[%3] : f32, !kir.view<f32, [N], out>[index]
      %7 = kir.unary round %6 : f32
      %9 = kir.binary mul %7, %8 : f32
      %10 = kir.binary add %3, %1 : index
      kir.store %9, %y[%10] : f32, !kir.view<f32, [N], out>[index]
      %12 = kir.unary round %11 : f32
      %14 = kir.binary mul %12, %13 : f32
      %16 = kir.binary add %3, %15 : index
      kir.store %14, %y[%16] : f32, !kir.view<f32, [N], out>[index]
      %18 = kir.unary round %17 : f32
      %20 = kir.binary mul %18, %19 : f32
      %22 = kir.binary add %3, %21 : index
      kir.store %20, %y[%22] : f32, !kir.view<f32, [N], out>[index]
      %24 = kir.unary round %23 : f16
      %26 = kir.unary round %25 : f16
      %27 = kir.binary add %24, %26 : f16
      kir.store %27, %h[%3] : f16, !kir.view<f16, [K], out>[index]
      kir.yield
    }
    kir.return
  }
}

