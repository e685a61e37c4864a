// cross_entropy: for every row m of LOGITS[M, C] (f32) with class TARGET[m]
// (i32, in [0, C)),
//   LOSS[m] = logsumexp(LOGITS[m, :]) - LOGITS[m, TARGET[m]]
// with logsumexp(r) = mx + log(sum_c exp(r[c] - mx)), mx = max_c r[c].
// The target logit is one scalar load at (m, TARGET[m] as an index).
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @cross_entropy(%logits: !kir.view<f32, [M, C], in>,
                            %target: !kir.view<i32, [M], in> {kir.range = [0, "C"]},
                            %loss: !kir.view<f32, [M], out>) {
    %c0 = arith.constant 0 : index
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %m = kir.extent "M"
    %nc = kir.extent "C"
    %dm = kir.domain %c0 to %m
    %dc = kir.domain %c0 to %nc
    kir.parallel %dm {
    ^bb0(%i: index):
      %row = kir.load %logits[%i, %dc] : !kir.view<f32, [M, C], in>[index, !kir.domain] -> tensor<?xf32>
      %mx = kir.reduce %row axes [0] identity(%ninf : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary max %a, %b : f32
        kir.yield %c : f32
      }
      %mxb = kir.broadcast %mx over(%dc) dims [] : f32 -> tensor<?xf32>
      %shifted = kir.binary sub %row, %mxb : tensor<?xf32>
      %e = kir.unary exp %shifted : tensor<?xf32>
      %sum = kir.reduce %e axes [0] identity(%zero : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%a: f32, %b: f32):
        %c = kir.binary add %a, %b : f32
        kir.yield %c : f32
      }
      %logsum = kir.unary log %sum : f32
      %lse = kir.binary add %mx, %logsum : f32
      %t32 = kir.load %target[%i] : !kir.view<i32, [M], in>[index] -> i32
      %t = kir.cast %t32 : i32 to index
      %picked = kir.load %logits[%i, %t] : !kir.view<f32, [M, C], in>[index, index] -> f32
      %l = kir.binary sub %lse, %picked : f32
      kir.store %l, %loss[%i] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    kir.return
  }
}
