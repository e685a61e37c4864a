// rmsnorm: for every row m of X[M, N] (f32),
//   ms = sum_n X[m, n]^2 / N
//   Y[m, n] = X[m, n] * rsqrt(ms + eps) * W[n]
// eps is a runtime scalar; W[N] is a per-column weight.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @rmsnorm(%x: !kir.view<f32, [M, N], in>, %w: !kir.view<f32, [N], in>,
                      %y: !kir.view<f32, [M, N], out>, %eps: f32) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %nf = kir.cast %n : index to f32
    %weight = kir.load %w[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %sq = kir.binary mul %row, %row : tensor<?xf32>
      %ssq = kir.reduce %sq axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %ms = kir.binary div %ssq, %nf : f32
      %mse = kir.binary add %ms, %eps : f32
      %rrms = kir.unary rsqrt %mse : f32
      %rrms_n = kir.broadcast %rrms over(%dn) dims [] : f32 -> tensor<?xf32>
      %xn = kir.binary mul %row, %rrms_n : tensor<?xf32>
      %out = kir.binary mul %xn, %weight : tensor<?xf32>
      kir.store %out, %y[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
