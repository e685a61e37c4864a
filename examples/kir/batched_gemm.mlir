// batched_gemm: C[b, m, n] = sum_k A[b, m, k] * B[b, k, n] for A[B, M, K] and
// B[B, K, N] (f16), accumulated and returned in f32 (C[B, M, N]).
// One whole-tensor contraction: axis 0 of both operands is a batch pair, the
// K axes are the reduce pair; K = 0 gives zeros.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @batched_gemm(%a: !kir.view<f16, [B, M, K], in>, %b: !kir.view<f16, [B, K, N], in>,
                           %c: !kir.view<f32, [B, M, N], out>) {
    %c0 = arith.constant 0 : index
    %nb = kir.extent "B"
    %m = kir.extent "M"
    %n = kir.extent "N"
    %k = kir.extent "K"
    %db = kir.domain %c0 to %nb
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %dk = kir.domain %c0 to %k
    %at = kir.load %a[%db, %dm, %dk] : !kir.view<f16, [B, M, K], in>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xf16>
    %bt = kir.load %b[%db, %dk, %dn] : !kir.view<f16, [B, K, N], in>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xf16>
    %ct = kir.contract %at, %bt reduce([2], [1]) batch([0], [0])
        : tensor<?x?x?xf16>, tensor<?x?x?xf16> -> tensor<?x?x?xf32>
    kir.store %ct, %c[%db, %dm, %dn] : tensor<?x?x?xf32>, !kir.view<f32, [B, M, N], out>[!kir.domain, !kir.domain, !kir.domain]
    kir.return
  }
}
