// cummax: inclusive running maximum along the rows of X[M, N] (f32),
//   Y[m, n] = max_{j <= n} X[m, j]
// one kir.scan per row with a max combine (a NaN propagates) and identity -inf.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @cummax(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %ninf = arith.constant 0xFF800000 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %run = kir.scan %row axis 0 identity(%ninf : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary max %a, %b : f32
        kir.yield %c : f32
      }
      kir.store %run, %y[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
