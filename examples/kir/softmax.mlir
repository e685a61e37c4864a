// softmax: Y[m, :] = softmax(X[m, :]) for every row m of X[M, N] (f32).
// Numerically stable: mx = max_n X[m, n]; e = exp(X[m, :] - mx);
// Y[m, :] = e / sum_n e.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @softmax(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %mx = kir.reduce %row axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary max %a, %b : f32
        kir.yield %c : f32
      }
      %mxb = kir.broadcast %mx over(%dn) dims [] : f32 -> tensor<?xf32>
      %shifted = kir.binary sub %row, %mxb : tensor<?xf32>
      %e = kir.unary exp %shifted : tensor<?xf32>
      %sum = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %sumb = kir.broadcast %sum over(%dn) dims [] : f32 -> tensor<?xf32>
      %out = kir.binary div %e, %sumb : tensor<?xf32>
      kir.store %out, %y[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
