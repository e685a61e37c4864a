// attention: O[b, h, s, :] = softmax_t(scale * Q[b, h, s, :] . K[b, h, t, :]) @ V[b, h, :, :]
// for Q[B, H, S, D], K/V[B, H, T, D] (f16 in) and O[B, H, S, D] (f16 out), with
// a runtime scalar `scale` and the constexpr CAUSAL: when true, key t is
// visible to query s only if t <= s. A row with no visible key gives zeros.
//
// Each query row folds over the key axis T with the online-softmax summary
// (valid, max, den, acc): valid = some key was visible, max = the largest
// visible score, den = sum exp(score - max), acc = sum exp(score - max) * V.
// The combine rescales each side by exp(max_side - max) where that side is
// valid, so the compiler may cut T into any contiguous slices.
//
// Language workarounds (see the report that came with this file):
//  * kir.region_fold regions are closed and cannot name the domain of the
//    slice axis, so no scalar can be broadcast over a slice inside
//    `summarize`. The per-row scalars needed at the key positions (the query
//    position s, the scale, and the -inf fill) are therefore broadcast over
//    the key domain outside the fold and passed as extra sources, which the
//    compiler slices together with K, V and the key indices.
//  * The slice max is spread over the slice as max(prefix max, suffix max),
//    two kir.scan ops, for the same reason.
//  * `combine` re-derives the head-dimension domain [0, D) from kir.extent to
//    rescale the acc component.
module attributes {kir.compile_options = #kir.compile_options<numerics = relaxed_normalization>} {
  kir.kernel @attention(%Q: !kir.view<f16, [B, H, S, D], in>, %K: !kir.view<f16, [B, H, T, D], in>,
                        %V: !kir.view<f16, [B, H, T, D], in>, %O: !kir.view<f16, [B, H, S, D], out>,
                        %scale: f32) attributes {constexprs = {CAUSAL = true}} {
    %c0 = arith.constant 0 : index
    %false = arith.constant false
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
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
    %causal = kir.constexpr "CAUSAL" : i1
    // Identity of the acc component and the output of a row with no visible key.
    %acc0 = kir.broadcast %zero over(%dd) dims [] : f32 -> tensor<?xf32>
    // Key positions and the per-key constants that summarize needs.
    %kc = kir.indices %dt : tensor<?xindex>
    %scale_t = kir.broadcast %scale over(%dt) dims [] : f32 -> tensor<?xf32>
    %ninf_t = kir.broadcast %ninf over(%dt) dims [] : f32 -> tensor<?xf32>
    kir.parallel %db, %dh, %ds {
    ^bb0(%b: index, %h: index, %s: index):
      %q = kir.load %Q[%b, %h, %s, %dd] : !kir.view<f16, [B, H, S, D], in>[index, index, index, !kir.domain] -> tensor<?xf16>
      %kt = kir.load %K[%b, %h, %dt, %dd] : !kir.view<f16, [B, H, T, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %vt = kir.load %V[%b, %h, %dt, %dd] : !kir.view<f16, [B, H, T, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xf16>
      %s_t = kir.broadcast %s over(%dt) dims [] : index -> tensor<?xindex>
      %valid, %mx, %den, %acc = kir.region_fold
          sources(%kt, %vt, %kc, %s_t, %scale_t, %ninf_t
                  : tensor<?x?xf16>, tensor<?x?xf16>, tensor<?xindex>, tensor<?xindex>, tensor<?xf32>, tensor<?xf32>)
          axis 0
          identity(%false, %zero, %zero, %acc0 : i1, f32, f32, tensor<?xf32>)
          operands(%q, %causal : tensor<?xf16>, i1)
          -> (i1, f32, f32, tensor<?xf32>)
      summarize {
      ^bb0(%ks: tensor<?x?xf16>, %vs: tensor<?x?xf16>, %kcs: tensor<?xindex>, %ss: tensor<?xindex>,
           %scs: tensor<?xf32>, %ninfs: tensor<?xf32>, %qa: tensor<?xf16>, %ca: i1):
        %raw = kir.contract %qa, %ks reduce([0], [1]) batch([], []) : tensor<?xf16>, tensor<?x?xf16> -> tensor<?xf32>
        %scores = kir.binary mul %raw, %scs : tensor<?xf32>
        // Visible keys: t <= s when causal, every key otherwise.
        %before = kir.cmp le %kcs, %ss : tensor<?xindex>
        %every = kir.cmp eq %kcs, %kcs : tensor<?xindex>
        %vis = kir.select %ca, %before, %every : i1, tensor<?xi1>
        %any = kir.reduce %vis axes [0] identity(%false : i1) : (tensor<?xi1>) -> (i1) {
        ^bb0(%x: i1, %y: i1):
          %z = kir.binary or %x, %y : i1
          kir.yield %z : i1
        }
        %masked = kir.select %vis, %scores, %ninfs : tensor<?xi1>, tensor<?xf32>
        %m = kir.reduce %masked axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%x: f32, %y: f32):
          %z = kir.binary max %x, %y : f32
          kir.yield %z : f32
        }
        // m at every key position of the slice.
        %pre = kir.scan %masked axis 0 identity(%ninf : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
        ^bb0(%x: f32, %y: f32):
          %z = kir.binary max %x, %y : f32
          kir.yield %z : f32
        }
        %suf = kir.scan %masked axis 0 identity(%ninf : f32) reverse : (tensor<?xf32>) -> (tensor<?xf32>) {
        ^bb0(%x: f32, %y: f32):
          %z = kir.binary max %x, %y : f32
          kir.yield %z : f32
        }
        %m_t = kir.binary max %pre, %suf : tensor<?xf32>
        // p = exp(score - m) on visible keys and exp(-inf) = 0 elsewhere.
        %shifted = kir.binary sub %masked, %m_t : tensor<?xf32>
        %arg = kir.select %vis, %shifted, %masked : tensor<?xi1>, tensor<?xf32>
        %p = kir.unary exp %arg : tensor<?xf32>
        %d = kir.reduce %p axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
        ^bb0(%x: f32, %y: f32):
          %z = kir.binary add %x, %y : f32
          kir.yield %z : f32
        }
        %vf = kir.cast %vs : tensor<?x?xf16> to tensor<?x?xf32>
        %a = kir.contract %p, %vf reduce([0], [0]) batch([], []) : tensor<?xf32>, tensor<?x?xf32> -> tensor<?xf32>
        kir.yield %any, %m, %d, %a : i1, f32, f32, tensor<?xf32>
      } combine {
      ^bb0(%v1: i1, %m1: f32, %d1: f32, %a1: tensor<?xf32>, %v2: i1, %m2: f32, %d2: f32, %a2: tensor<?xf32>):
        %v = kir.binary or %v1, %v2 : i1
        %mv1 = kir.select %v1, %m1, %ninf : i1, f32
        %mv2 = kir.select %v2, %m2, %ninf : i1, f32
        %m = kir.binary max %mv1, %mv2 : f32
        %x1 = kir.binary sub %m1, %m : f32
        %e1 = kir.unary exp %x1 : f32
        %al1 = kir.select %v1, %e1, %zero : i1, f32
        %x2 = kir.binary sub %m2, %m : f32
        %e2 = kir.unary exp %x2 : f32
        %al2 = kir.select %v2, %e2, %zero : i1, f32
        %dw1 = kir.binary mul %d1, %al1 : f32
        %dw2 = kir.binary mul %d2, %al2 : f32
        %d = kir.binary add %dw1, %dw2 : f32
        %nD = kir.extent "D"
        %dD = kir.domain %c0 to %nD
        %al1_d = kir.broadcast %al1 over(%dD) dims [] : f32 -> tensor<?xf32>
        %al2_d = kir.broadcast %al2 over(%dD) dims [] : f32 -> tensor<?xf32>
        %aw1 = kir.binary mul %a1, %al1_d : tensor<?xf32>
        %aw2 = kir.binary mul %a2, %al2_d : tensor<?xf32>
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
