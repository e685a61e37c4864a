// transpose: OUT[n, m] = X[m, n] for X[M, N] (f32). The whole tensor is
// loaded, its axes swapped with kir.transpose, and stored: no parallel.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @transpose(%x: !kir.view<f32, [M, N], in>, %out: !kir.view<f32, [N, M], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %xt = kir.load %x[%dm, %dn] : !kir.view<f32, [M, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %yt = kir.transpose %xt [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
    kir.store %yt, %out[%dn, %dm] : tensor<?x?xf32>, !kir.view<f32, [N, M], out>[!kir.domain, !kir.domain]
    kir.return
  }
}
