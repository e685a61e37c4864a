// A pgpu.scatter_reduce whose combine is one binary op of its two arguments is spelled as the Triton
// atomic of that op (Capabilities' scatterAtomic). tl.atomic_max/min order f32/f64 values as integers
// by sign, so a NaN-propagating max makes every NaN update +NaN (above every number), a min makes it
// -NaN (below every number), and max_num/min_num mask NaN updates off; integers go as they are.
// RUN: tessel compile %s --emit=source --target=triton | FileCheck %s
// CHECK-LABEL: def _combines_kernel(
// CHECK: tl.atomic_add([[ADDR:.*]], [[V:v[0-9]+]], mask=[[OK:.*]], sem='relaxed')
// CHECK: tl.atomic_max({{.*}}, tl.where([[V]] != [[V]], tl.cast(tl.full([], 2143289344, tl.int32), tl.float32, bitcast=True), [[V]]), mask={{.*}}, sem='relaxed')
// CHECK: tl.atomic_min({{.*}}, tl.where([[V]] != [[V]], tl.cast(tl.full([], -4194304, tl.int32), tl.float32, bitcast=True), [[V]]), mask={{.*}}, sem='relaxed')
// CHECK: tl.atomic_max({{.*}}, [[V]], mask=({{.*}}) & ([[V]] == [[V]]), sem='relaxed')
// CHECK: tl.atomic_max({{.*}}, [[I:v[0-9]+]], mask={{.*}}, sem='relaxed')
// CHECK: tl.atomic_xor({{.*}}, [[I]], mask={{.*}}, sem='relaxed')
// CHECK: tl.atomic_min({{.*}}, tl.where([[W:v[0-9]+]] != [[W]], tl.cast(tl.full([], -2251799813685248, tl.int64), tl.float64, bitcast=True), [[W]]), mask={{.*}}, sem='relaxed')
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @combines(%x: !pgpu.view<f32, [N], in>, %k: !pgpu.view<i32, [N], in>, %w: !pgpu.view<f64, [N], in>,
                        %y: !pgpu.view<f32, [S], inout>, %h: !pgpu.view<i32, [S], inout>, %g: !pgpu.view<f64, [S], inout>)
      attributes {params = [#pgpu.param<"B", [16], 16>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %zi = arith.constant 0 : i32
      %zd = arith.constant 0.0 : f64
      %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [B]>
      %v = pgpu.load %x[%lanes] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f32, [B]>
      %i = pgpu.load %k[%lanes] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<i32, [B]>
      %d = pgpu.load %w[%lanes] valid %t : i1 fill %zd : f64 : !pgpu.view<f64, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f64, [B]>
      %at = pgpu.cast %i : !pgpu.fragment<i32, [B]> to !pgpu.fragment<index, [B]>
      pgpu.scatter_reduce %v, %y[%at] valid %t : i1 : !pgpu.fragment<f32, [B]>, !pgpu.view<f32, [S], inout>[!pgpu.fragment<index, [B]>] {
      ^bb0(%a: f32, %b: f32):
        %r = pgpu.binary add %a, %b : f32
        pgpu.yield %r : f32
      }
      pgpu.scatter_reduce %v, %y[%at] valid %t : i1 : !pgpu.fragment<f32, [B]>, !pgpu.view<f32, [S], inout>[!pgpu.fragment<index, [B]>] {
      ^bb0(%a: f32, %b: f32):
        %r = pgpu.binary max %a, %b : f32
        pgpu.yield %r : f32
      }
      pgpu.scatter_reduce %v, %y[%at] valid %t : i1 : !pgpu.fragment<f32, [B]>, !pgpu.view<f32, [S], inout>[!pgpu.fragment<index, [B]>] {
      ^bb0(%a: f32, %b: f32):
        %r = pgpu.binary min %b, %a : f32
        pgpu.yield %r : f32
      }
      pgpu.scatter_reduce %v, %y[%at] valid %t : i1 : !pgpu.fragment<f32, [B]>, !pgpu.view<f32, [S], inout>[!pgpu.fragment<index, [B]>] {
      ^bb0(%a: f32, %b: f32):
        %r = pgpu.binary max_num %a, %b : f32
        pgpu.yield %r : f32
      }
      pgpu.scatter_reduce %i, %h[%at] valid %t : i1 : !pgpu.fragment<i32, [B]>, !pgpu.view<i32, [S], inout>[!pgpu.fragment<index, [B]>] {
      ^bb0(%a: i32, %b: i32):
        %r = pgpu.binary max %a, %b : i32
        pgpu.yield %r : i32
      }
      pgpu.scatter_reduce %i, %h[%at] valid %t : i1 : !pgpu.fragment<i32, [B]>, !pgpu.view<i32, [S], inout>[!pgpu.fragment<index, [B]>] {
      ^bb0(%a: i32, %b: i32):
        %r = pgpu.binary xor %a, %b : i32
        pgpu.yield %r : i32
      }
      pgpu.scatter_reduce %d, %g[%at] valid %t : i1 : !pgpu.fragment<f64, [B]>, !pgpu.view<f64, [S], inout>[!pgpu.fragment<index, [B]>] {
      ^bb0(%a: f64, %b: f64):
        %r = pgpu.binary min %a, %b : f64
        pgpu.yield %r : f64
      }
      pgpu.yield
    }
    pgpu.return
  }
}
