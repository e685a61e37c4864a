// The GEMM of seed 000 §12, written by hand in pgpu: C[M, N] = A[M, K] x B[K, N],
// f16 operands, f32 accumulator. BM/BN/BK are declared physical parameters; the
// grid (ceil(M/BM), ceil(N/BN)) is a LaunchExpr of view metadata and parameters,
// and every access carries explicit coordinates, validity and fill.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @gemm(%A: !pgpu.view<f16, [M, K], in>, %B: !pgpu.view<f16, [K, N], in>,
                    %C: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BM", [16, 32, 64, 128], 64>, #pgpu.param<"BN", [16, 32, 64, 128], 64>,
                            #pgpu.param<"BK", [16, 32, 64], 32>,
                            #pgpu.param<"WARPS", [1, 2, 4, 8, 16], 4, provider = "triton">]} {
    %M = pgpu.extent %A[0] : !pgpu.view<f16, [M, K], in>
    %K = pgpu.extent %A[1] : !pgpu.view<f16, [M, K], in>
    %N = pgpu.extent %B[1] : !pgpu.view<f16, [K, N], in>
    %bm = pgpu.param "BM" : index
    %bn = pgpu.param "BN" : index
    %bk = pgpu.param "BK" : index
    %gm = pgpu.ceil_div %M, %bm : index
    %gn = pgpu.ceil_div %N, %bn : index
    pgpu.program_space (%gm, %gn) {
    ^bb0(%pm: index, %pn: index):
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %zh = arith.constant 0.0 : f16
      %m0 = pgpu.binary mul %pm, %bm : index
      %n0 = pgpu.binary mul %pn, %bn : index
      %m = pgpu.iota %m0 : !pgpu.fragment<index, [BM]>
      %n = pgpu.iota %n0 : !pgpu.fragment<index, [BN]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BN]>
      %acc = pgpu.for %c0 to %K step %bk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BN]>) -> !pgpu.fragment<f32, [BM, BN]> {
      ^bb0(%k0: index, %a: !pgpu.fragment<f32, [BM, BN]>):
        %k = pgpu.iota %k0 : !pgpu.fragment<index, [BK]>
        // lhs = load A[m, k] valid (m < M && k < K) fill 0
        %am = pgpu.broadcast %m dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BK]>
        %ak = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BM, BK]>
        %Mb = pgpu.splat %M : index -> !pgpu.fragment<index, [BM, BK]>
        %Kb = pgpu.splat %K : index -> !pgpu.fragment<index, [BM, BK]>
        %am_ok = pgpu.cmp lt %am, %Mb : !pgpu.fragment<index, [BM, BK]>
        %ak_ok = pgpu.cmp lt %ak, %Kb : !pgpu.fragment<index, [BM, BK]>
        %a_ok = pgpu.binary and %am_ok, %ak_ok : !pgpu.fragment<i1, [BM, BK]>
        %lhs = pgpu.load %A[%am, %ak] valid %a_ok : !pgpu.fragment<i1, [BM, BK]> fill %zh : f16
            : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [BM, BK]>, !pgpu.fragment<index, [BM, BK]>]
            -> !pgpu.fragment<f16, [BM, BK]>
        // rhs = load B[k, n] valid (k < K && n < N) fill 0
        %bk_ = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BK, BN]>
        %bn_ = pgpu.broadcast %n dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BK, BN]>
        %Kb2 = pgpu.splat %K : index -> !pgpu.fragment<index, [BK, BN]>
        %Nb2 = pgpu.splat %N : index -> !pgpu.fragment<index, [BK, BN]>
        %bk_ok = pgpu.cmp lt %bk_, %Kb2 : !pgpu.fragment<index, [BK, BN]>
        %bn_ok = pgpu.cmp lt %bn_, %Nb2 : !pgpu.fragment<index, [BK, BN]>
        %b_ok = pgpu.binary and %bk_ok, %bn_ok : !pgpu.fragment<i1, [BK, BN]>
        %rhs = pgpu.load %B[%bk_, %bn_] valid %b_ok : !pgpu.fragment<i1, [BK, BN]> fill %zh : f16
            : !pgpu.view<f16, [K, N], in>[!pgpu.fragment<index, [BK, BN]>, !pgpu.fragment<index, [BK, BN]>]
            -> !pgpu.fragment<f16, [BK, BN]>
        %next = pgpu.contract %lhs, %rhs, %a reduce([1], [0]) batch([], [])
            : !pgpu.fragment<f16, [BM, BK]>, !pgpu.fragment<f16, [BK, BN]>, !pgpu.fragment<f32, [BM, BN]>
            -> !pgpu.fragment<f32, [BM, BN]>
        pgpu.yield %next : !pgpu.fragment<f32, [BM, BN]>
      }
      // store C[m, n] = acc valid (m < M && n < N)
      %cm = pgpu.broadcast %m dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BN]>
      %cn = pgpu.broadcast %n dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BM, BN]>
      %Mc = pgpu.splat %M : index -> !pgpu.fragment<index, [BM, BN]>
      %Nc = pgpu.splat %N : index -> !pgpu.fragment<index, [BM, BN]>
      %cm_ok = pgpu.cmp lt %cm, %Mc : !pgpu.fragment<index, [BM, BN]>
      %cn_ok = pgpu.cmp lt %cn, %Nc : !pgpu.fragment<index, [BM, BN]>
      %c_ok = pgpu.binary and %cm_ok, %cn_ok : !pgpu.fragment<i1, [BM, BN]>
      pgpu.store %acc, %C[%cm, %cn] valid %c_ok : !pgpu.fragment<i1, [BM, BN]>
          : !pgpu.fragment<f32, [BM, BN]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
      pgpu.yield
    }
    pgpu.return
  }
}
