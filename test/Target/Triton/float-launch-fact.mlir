// A launch fact on a float scalar (wrapper::launchFact with readsFloat): pgpu-factor-reductions decides
// the scaled max's factoring on the scalar `s` (seed 000 §3.1, seed 002 §4). The wrapper evaluates the
// comparison once per plan, Triton compiles only the side taken (a constexpr guard), every `if` spelled
// alike shares that guard, and the plan key, which leaves float scalars open, holds the fact's value: a
// call with `s` outside the window must not reuse a plan compiled for `s` inside it.
// RUN: tessel compile %s --emit=source --target=triton | FileCheck %s
// CHECK: def _scaled_softmax_kernel({{.*}}, s, _G0: tl.constexpr, _G1: tl.constexpr):
// CHECK-NOT: _G2
// CHECK: if _G1:
// CHECK-NEXT: tl.where
// CHECK-NEXT: tl.reduce
// COM: (the staged path's rows run ROWS at a time, pgpu-pack-rows: the factor is splat over them;
// COM: ROWS's declared default is 1, bound here)
// CHECK-NEXT: tl.full([1], 0, tl.float32) + v
// CHECK-NEXT: * v
// CHECK: else:
// CHECK: if _G1:
// CHECK: if _G1:
// CHECK: _check_scalar('s', s, float,
// CHECK: bool(((s >= 2.3283064365386963e-10) and (s <= 4294967296)))
// CHECK: _key = ({{.*}}, _p_y & 15, y.is_neg(), bool(((s >= 2.3283064365386963e-10) and (s <= 4294967296))))
// CHECK: def scaled_softmax(x, y, *, s):
// CHECK: _plans[({{.*}}, _p_y & 15, y.is_neg(), bool(((s >= 2.3283064365386963e-10) and (s <= 4294967296))))]
// CHECK: def __call__(
// CHECK: _plans[({{.*}}, _p_y & 15, y.is_neg(), bool(((s >= 2.3283064365386963e-10) and (s <= 4294967296))))]
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization>} {
  kir.kernel @scaled_softmax(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>, %s: f32) {
    %0 = kir.extent "M"
    %1 = kir.extent "N"
    %2 = arith.constant 0 : index
    %3 = kir.domain %2 to %0
    %5 = kir.domain %2 to %1
    %7 = kir.broadcast %s over(%5) dims [] : f32 -> tensor<?xf32>
    %9 = arith.constant 0xFF800000 : f32
    %17 = arith.constant 0.0 : f32
    kir.parallel %3 {
    ^bb0(%4: index):
      %6 = kir.load %x[%4, %5] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %8 = kir.binary mul %6, %7 : tensor<?xf32>
      %13 = kir.reduce %8 axes [0] identity(%9 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%10: f32, %11: f32):
        %12 = kir.binary max %10, %11 : f32
        kir.yield %12 : f32
      }
      %14 = kir.broadcast %13 over(%5) dims [] : f32 -> tensor<?xf32>
      %15 = kir.binary sub %8, %14 : tensor<?xf32>
      %16 = kir.unary exp %15 : tensor<?xf32>
      %21 = kir.reduce %16 axes [0] identity(%17 : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%18: f32, %19: f32):
        %20 = kir.binary add %18, %19 : f32
        kir.yield %20 : f32
      }
      %22 = kir.broadcast %21 over(%5) dims [] : f32 -> tensor<?xf32>
      %23 = kir.binary div %16, %22 : tensor<?xf32>
      kir.store %23, %y[%4, %5] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

