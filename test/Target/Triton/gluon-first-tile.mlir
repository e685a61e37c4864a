// The Gluon spelling of a traversal whose first tile runs in a branch before its loops
// (pgpu-summary-emptiness, asked for by the compile option): the branch yields the next loops' lower
// bounds, so the loader partition (the streams' control slice, GluonStreams.cpp) replays the branch
// for those scalars too, copying the first tile there and yielding the bounds its loops start from.
// (Measured slower than the flagged loops on the H200 in both spellings: the option stays off by default.)
// RUN: tessel compile %s --target=triton --emit=source --remarks 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: tessel compile %s --target=triton --emit=source --param=GLUON=1 | FileCheck %s

// REMARK: remark: triton: declares GLUON (on by default)
// CHECK: def _attention_loader(
// CHECK: [[SOME:v[0-9]+]] = [[FIRST:v[0-9]+]] < v{{[0-9]+}}
// CHECK-NEXT: if [[SOME]]:
// CHECK: tma.async_copy_global_to_shared(_desc0, [v{{[0-9]+}}, v{{[0-9]+}}, [[FIRST]], 0],
// CHECK: tma.async_copy_global_to_shared(_desc1, [v{{[0-9]+}}, v{{[0-9]+}}, [[FIRST]], 0],
// CHECK: [[NEXT:v[0-9]+]] = [[FIRST]] + v{{[0-9]+}}
// CHECK-NEXT: [[START:v[0-9]+]] = [[NEXT]]
// CHECK: else:
// CHECK: for v{{[0-9]+}} in range([[START]],
// CHECK: def _attention_gluon(

module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization, summary_emptiness = true>} {
  kir.kernel @attention(%Q: !kir.view<f16, [B, H, S, D], in>, %K: !kir.view<f16, [B, H, T, D], in>,
                        %V: !kir.view<f16, [B, H, T, D], in>, %O: !kir.view<f16, [B, H, S, D], out>,
                        %scale: f32) attributes {constexprs = {CAUSAL = true}} {
    %c0 = arith.constant 0 : index
    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %nh = kir.extent "H"
    %ns = kir.extent "S"
    %nt = kir.extent "T"
    %nd = kir.extent "D"
    %db = kir.domain %c0 to %nb
    %dh = kir.domain %c0 to %nh
    %ds = kir.domain %c0 to %ns
    %dt = kir.domain %c0 to %nt
    %dd = kir.domain %c0 to %nd
    // Identity of the acc component and the output of a row with no visible key.
    %acc0 = kir.broadcast %zero over(%dd) dims [] : f32 -> tensor<?xf32>
    // Key positions, sliced together with K and V.
    %kc = kir.indices %dt : tensor<?xindex>
    kir.parallel %db, %dh, %ds {
    ^bb0(%b: index, %h: index, %s: index):
      %q = kir.load %Q[%b, %h, %s, %dd] : !kir.view<f16, [B, H, S, D], in>[index, index, index, !kir.domain] -> tensor<?xf16>
      %kt = kir.load %K[%b, %h, %dt, %dd] : !kir.view<f16, [B, H, T, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %vt = kir.load %V[%b, %h, %dt, %dd] : !kir.view<f16, [B, H, T, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %valid, %mx, %den, %acc = kir.region_fold
          sources(%kt, %vt, %kc : tensor<?x?xf16>, tensor<?x?xf16>, tensor<?xindex>)
          axis 0
          identity(%false, %zero, %zero, %acc0 : i1, f32, f32, tensor<?xf32>)
          operands(%q, %s, %scale : tensor<?xf16>, index, f32)
          -> (i1, f32, f32, tensor<?xf32>)
      summarize {
      ^bb0(%ks: tensor<?x?xf16>, %vs: tensor<?x?xf16>, %kcs: tensor<?xindex>,
           %qa: tensor<?xf16>, %sa: index, %sca: f32):
        %f = arith.constant false
        %z = arith.constant 0.0 : f32
        %ninf = arith.constant 0xFF800000 : f32
        %causal = kir.constexpr "CAUSAL" : i1
        // scores = (q . k) * scale, accumulated in f32.
        %raw = kir.contract %qa, %ks reduce([0], [1]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
        %scale_k = kir.broadcast_as %sca to %raw dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %scores = kir.binary mul %raw, %scale_k : tensor<?xf32>
        // Visible keys: t <= s when causal, every key otherwise.
        %vis = kir.if constexpr %causal -> tensor<?xi1> {
          %s_k = kir.broadcast_as %sa to %kcs dims [] : index, tensor<?xindex> -> tensor<?xindex>
          %before = kir.cmp le %kcs, %s_k : tensor<?xindex>
          kir.yield %before : tensor<?xi1>
        } else {
          %t = arith.constant true
          %every = kir.broadcast_as %t to %kcs dims [] : i1, tensor<?xindex> -> tensor<?xi1>
          kir.yield %every : tensor<?xi1>
        }
        %any = kir.reduce %vis axes [0] identity(%f : i1) : (tensor<?xi1>) -> (i1) {
        ^bb0(%x: i1, %y: i1):
          %o = kir.binary or %x, %y : i1
          kir.yield %o : i1
        }
        // m = max of the visible scores, 0 when none is visible.
        %ninf_k = kir.broadcast_as %ninf to %scores dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %masked = kir.select %vis, %scores, %ninf_k : tensor<?xi1>, tensor<?xf32>
        %top = kir.reduce %masked axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%x: f32, %y: f32):
          %o = kir.binary max %x, %y : f32
          kir.yield %o : f32
        }
        %m = kir.select %any, %top, %z : i1, f32
        // p = exp(score - m) on visible keys, 0 elsewhere.
        %m_k = kir.broadcast_as %m to %scores dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %shifted = kir.binary sub %scores, %m_k : tensor<?xf32>
        %e = kir.unary exp %shifted : tensor<?xf32>
        %z_k = kir.broadcast_as %z to %scores dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %p = kir.select %vis, %e, %z_k : tensor<?xi1>, tensor<?xf32>
        %d = kir.reduce %p axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%x: f32, %y: f32):
          %o = kir.binary add %x, %y : f32
          kir.yield %o : f32
        }
        %vf = kir.cast %vs : tensor<?x?xf16> to tensor<?x?xf32>
        %a = kir.contract %p, %vf reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
        kir.yield %any, %m, %d, %a : i1, f32, f32, tensor<?xf32>
      } combine {
      ^bb0(%v1: i1, %m1: f32, %d1: f32, %a1: tensor<?xf32>, %v2: i1, %m2: f32, %d2: f32, %a2: tensor<?xf32>):
        %z = arith.constant 0.0 : f32
        %v = kir.binary or %v1, %v2 : i1
        // The larger max of the valid sides; side 1's (0) when neither is valid.
        %m12 = kir.binary max %m1, %m2 : f32
        %mv2 = kir.select %v1, %m12, %m2 : i1, f32
        %m = kir.select %v2, %mv2, %m1 : i1, f32
        // Each side's weight: exp(m_side - m) where the side is valid, else 0.
        %x1 = kir.binary sub %m1, %m : f32
        %e1 = kir.unary exp %x1 : f32
        %al1 = kir.select %v1, %e1, %z : i1, f32
        %x2 = kir.binary sub %m2, %m : f32
        %e2 = kir.unary exp %x2 : f32
        %al2 = kir.select %v2, %e2, %z : i1, f32
        %dw1 = kir.binary mul %d1, %al1 : f32
        %dw2 = kir.binary mul %d2, %al2 : f32
        %d = kir.binary add %dw1, %dw2 : f32
        %al1_a = kir.broadcast_as %al1 to %a1 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %al2_a = kir.broadcast_as %al2 to %a2 dims [] : f32, tensor<?xf32> -> tensor<?xf32>
        %aw1 = kir.binary mul %a1, %al1_a : tensor<?xf32>
        %aw2 = kir.binary mul %a2, %al2_a : tensor<?xf32>
        %a = kir.binary add %aw1, %aw2 : tensor<?xf32>
        kir.yield %v, %m, %d, %a : i1, f32, f32, tensor<?xf32>
      }
      %den_d = kir.broadcast %den over(%dd) dims [] : f32 -> tensor<?xf32>
      %o = kir.binary div %acc, %den_d : tensor<?xf32>
      %o_valid = kir.select %valid, %o, %acc0 : i1, tensor<?xf32>
      %o16 = kir.cast %o_valid : tensor<?xf32> to tensor<?xf16>
      kir.store %o16, %O[%b, %h, %s, %dd] : tensor<?xf16>, !kir.view<f16, [B, H, S, D], out>[index, index, index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
