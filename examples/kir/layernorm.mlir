// layernorm: for every row m of X[M, N] (f32),
//   mean = sum_n X[m, n] / N
//   var  = sum_n (X[m, n] - mean)^2 / N          (biased variance)
//   Y[m, n] = (X[m, n] - mean) * rsqrt(var + eps) * W[n] + Bb[n]
// eps is a runtime scalar; W and Bb are per-column weight and bias.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @layernorm(%x: !kir.view<f32, [M, N], in>, %w: !kir.view<f32, [N], in>,
                        %bb: !kir.view<f32, [N], in>, %y: !kir.view<f32, [M, N], out>,
                        %eps: f32) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %nf = kir.cast %n : index to f32
    %weight = kir.load %w[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %bias = kir.load %bb[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %sum = kir.reduce %row axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %mean = kir.binary div %sum, %nf : f32
      %meanb = kir.broadcast %mean over(%dn) dims [] : f32 -> tensor<?xf32>
      %xc = kir.binary sub %row, %meanb : tensor<?xf32>
      %sq = kir.binary mul %xc, %xc : tensor<?xf32>
      %ssq = kir.reduce %sq axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %var = kir.binary div %ssq, %nf : f32
      %vareps = kir.binary add %var, %eps : f32
      %rstd = kir.unary rsqrt %vareps : f32
      %rstdb = kir.broadcast %rstd over(%dn) dims [] : f32 -> tensor<?xf32>
      %xhat = kir.binary mul %xc, %rstdb : tensor<?xf32>
      %scaled = kir.binary mul %xhat, %weight : tensor<?xf32>
      %out = kir.binary add %scaled, %bias : tensor<?xf32>
      kir.store %out, %y[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
