// vector_add: Z[n] = relu(X[n] + Y[n]) * scale for X, Y, Z [N] (f32) and a
// runtime scalar `scale`, with relu(v) = max(v, 0) (a NaN propagates).
// The whole tensor is computed at once: no parallel.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @vector_add(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], in>,
                         %z: !kir.view<f32, [N], out>, %scale: f32) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %dn = kir.domain %c0 to %n
    %xs = kir.load %x[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %ys = kir.load %y[%dn] : !kir.view<f32, [N], in>[!kir.domain] -> tensor<?xf32>
    %sum = kir.binary add %xs, %ys : tensor<?xf32>
    %zeros = kir.broadcast %zero over(%dn) dims [] : f32 -> tensor<?xf32>
    %relu = kir.binary max %sum, %zeros : tensor<?xf32>
    %scale_n = kir.broadcast %scale over(%dn) dims [] : f32 -> tensor<?xf32>
    %out = kir.binary mul %relu, %scale_n : tensor<?xf32>
    kir.store %out, %z[%dn] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    kir.return
  }
}
