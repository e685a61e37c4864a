// gemm: C[M, N] = A[M, K] x B[K, N] (+ bias[N] when HAS_BIAS).
// A and B are f16 and are multiplied with an f32 accumulator; C is f32.
// Each output row m is one contraction of the row A[m, :] with all of B:
// C[m, n] = sum_k A[m, k] * B[k, n] (+ bias[n]). The bias enters the
// contraction as its `init`, i.e. as the contraction's only addition.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @gemm(%a: !kir.view<f16, [M, K], in>, %b: !kir.view<f16, [K, N], in>,
                   %bias: !kir.view<f32, [N], in>, %c: !kir.view<f32, [M, N], out>)
      attributes {constexprs = {HAS_BIAS = false}} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %k = kir.extent "K"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %dk = kir.domain %c0 to %k
    %has_bias = kir.constexpr "HAS_BIAS" : i1
    %bmat = kir.load %b[%dk, %dn] : !kir.view<f16, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
    // The value each output row starts from: the bias row, or zeros.
    %init = kir.if constexpr %has_bias -> tensor<?xf32> {
      %brow = kir.load %bias[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
      kir.yield %brow : tensor<?xf32>
    } else {
      %zrow = kir.broadcast %zero over(%dn) dims [] : f32 -> tensor<?xf32>
      kir.yield %zrow : tensor<?xf32>
    }
    kir.parallel %dm {
    ^bb0(%i: index):
      %arow = kir.load %a[%i, %dk] : !kir.view<f16, [M, K], in>[index, !kir.domain] -> tensor<?xf16>
      %crow = kir.contract %arow, %bmat init %init reduce([0], [0]) batch([], [])
          : tensor<?xf16>, tensor<?x?xf16>, tensor<?xf32> -> tensor<?xf32>
      kir.store %crow, %c[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
