// gemv: Y[m] = sum_k A[m, k] * X[k] for A[M, K] and X[K] (f16), accumulated
// and returned in f32 (Y[M]). One whole-tensor contraction over K; K = 0
// gives zeros.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @gemv(%a: !kir.view<f16, [M, K], in>, %x: !kir.view<f16, [K], in>,
                   %y: !kir.view<f32, [M], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %k = kir.extent "K"
    %dm = kir.domain %c0 to %m
    %dk = kir.domain %c0 to %k
    %amat = kir.load %a[%dm, %dk] : !kir.view<f16, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf16>
    %xv = kir.load %x[%dk] : !kir.view<f16, [K], in>[!kir.domain] -> tensor<?xf16>
    %yv = kir.contract %amat, %xv reduce([1], [0]) batch([], []) : tensor<?x?xf16>, tensor<?xf16> -> tensor<?xf32>
    kir.store %yv, %y[%dm] : tensor<?xf32>, !kir.view<f32, [M], out>[!kir.domain]
    kir.return
  }
}
