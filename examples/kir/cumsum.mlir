// cumsum: prefix sums along the rows of X[M, N] (f32).
//   @cumsum:                   Y[m, n] = sum_{j <= n} X[m, j]   (inclusive, forward)
//   @cumsum_exclusive_reverse: Y[m, n] = sum_{j >  n} X[m, j]   (exclusive, reverse;
//                              the last column is 0)
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @cumsum(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %sums = kir.scan %row axis 0 identity(%zero : f32) : (tensor<?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      kir.store %sums, %y[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }

  kir.kernel @cumsum_exclusive_reverse(%x: !kir.view<f32, [M, N], in>, %y: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %m = kir.extent "M"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %x[%i, %dn] : !kir.view<f32, [M, N], in>[index, !kir.domain] -> tensor<?xf32>
      %sums = kir.scan %row axis 0 identity(%zero : f32) exclusive reverse : (tensor<?xf32>) -> (tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      kir.store %sums, %y[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
