// argmax: for every row m of X[M, N] (f32),
//   V[m] = max_n X[m, n]  and  I[m] = the lowest n where it occurs (i64).
// NaN propagates: a row containing NaN gives V[m] = NaN and I[m] = the first
// NaN position.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @argmax(%x: !kir.view<f32, [M, N], in>, %v: !kir.view<f32, [M], out>,
                     %idx: !kir.view<i64, [M], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %best, %pos = kir.arg_reduce argmax %row axis 0 tie lowest nan propagate : tensor<?xf32> -> f32, index
      %pos64 = kir.cast %pos : index to i64
      kir.store %best, %v[%i] : f32, !kir.view<f32, [M], out>[index]
      kir.store %pos64, %idx[%i] : i64, !kir.view<i64, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}
