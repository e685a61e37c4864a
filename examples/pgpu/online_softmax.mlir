// Online row softmax written by hand in pgpu: Y[M, N] = softmax(X[M, N]) along N, f32.
// One program owns BM rows (grid ceil(M/BM)). The per-row statistics
// (max, denominator) are a region fold over column segments of BN: each
// segment [b, e) is summarized independently from its own loads, and two
// summaries combine by rescaling to the larger max
//   m = max(m1, m2),  d = d1 * exp(m1 - m) + d2 * exp(m2 - m)
// where a side whose max is -inf (no active member: a row past M, or an empty
// segment) contributes 0 instead of the NaN of -inf - -inf. A final blocking
// loop writes Y[m, n] = exp(X[m, n] - max) / den with store validity.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @online_softmax(%X: !pgpu.view<f32, [M, N], in>, %Y: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BM", [1, 2, 4, 8], 4>, #pgpu.param<"BN", [16, 32, 64, 128], 64>,
                            #pgpu.param<"WARPS", [1, 2, 4, 8, 16], 4, provider = "triton">]} {
    %M = pgpu.extent %X[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %X[1] : !pgpu.view<f32, [M, N], in>
    %bm = pgpu.param "BM" : index
    %bn = pgpu.param "BN" : index
    %gm = pgpu.ceil_div %M, %bm : index
    pgpu.program_space (%gm) {
    ^bb0(%pm: index):
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %ninf = arith.constant 0xFF800000 : f32
      %m0 = pgpu.binary mul %pm, %bm : index
      %ninf_m = pgpu.splat %ninf : f32 -> !pgpu.fragment<f32, [BM]>
      %zero_m = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM]>

      // (max, den) over the row segments [b, min(b + BN, N)); identity (-inf, 0)
      %mx, %den = pgpu.region_fold %c0 to %N step %bn
          identity(%ninf_m, %zero_m : !pgpu.fragment<f32, [BM]>, !pgpu.fragment<f32, [BM]>)
          operands(%X, %m0, %M : !pgpu.view<f32, [M, N], in>, index, index)
          -> (!pgpu.fragment<f32, [BM]>, !pgpu.fragment<f32, [BM]>)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [M, N], in>, %row0: index, %rows: index):
        %s_zero = arith.constant 0.0 : f32
        %s_ninf = arith.constant 0xFF800000 : f32
        // slice X[m, b + range(0, BN)] valid (m < M && n < e) fill -inf
        %m = pgpu.iota %row0 : !pgpu.fragment<index, [BM]>
        %n = pgpu.iota %b : !pgpu.fragment<index, [BN]>
        %rm = pgpu.broadcast %m dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BN]>
        %cn = pgpu.broadcast %n dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BM, BN]>
        %Mb = pgpu.splat %rows : index -> !pgpu.fragment<index, [BM, BN]>
        %Eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BM, BN]>
        %row_ok = pgpu.cmp lt %rm, %Mb : !pgpu.fragment<index, [BM, BN]>
        %col_ok = pgpu.cmp lt %cn, %Eb : !pgpu.fragment<index, [BM, BN]>
        %ok = pgpu.binary and %row_ok, %col_ok : !pgpu.fragment<i1, [BM, BN]>
        %x = pgpu.load %xv[%rm, %cn] valid %ok : !pgpu.fragment<i1, [BM, BN]> fill %s_ninf : f32
            : !pgpu.view<f32, [M, N], in>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
            -> !pgpu.fragment<f32, [BM, BN]>
        %smax = pgpu.reduce %x axes [1] identity(%s_ninf : f32) : (!pgpu.fragment<f32, [BM, BN]>) -> (!pgpu.fragment<f32, [BM]>) {
        ^bb0(%a: f32, %c: f32):
          %r = pgpu.binary max %a, %c : f32
          pgpu.yield %r : f32
        }
        // rows with no active member keep -inf: shift by 0 there, every lane is exp(-inf) = 0
        %s_ninf_m = pgpu.splat %s_ninf : f32 -> !pgpu.fragment<f32, [BM]>
        %s_zero_m = pgpu.splat %s_zero : f32 -> !pgpu.fragment<f32, [BM]>
        %empty = pgpu.cmp eq %smax, %s_ninf_m : !pgpu.fragment<f32, [BM]>
        %shift = pgpu.select %empty, %s_zero_m, %smax : !pgpu.fragment<i1, [BM]>, !pgpu.fragment<f32, [BM]>
        %shift_b = pgpu.broadcast %shift dims [0] : !pgpu.fragment<f32, [BM]> -> !pgpu.fragment<f32, [BM, BN]>
        %d = pgpu.binary sub %x, %shift_b : !pgpu.fragment<f32, [BM, BN]>
        %p = pgpu.unary exp %d : !pgpu.fragment<f32, [BM, BN]>
        %ssum = pgpu.reduce %p axes [1] identity(%s_zero : f32) : (!pgpu.fragment<f32, [BM, BN]>) -> (!pgpu.fragment<f32, [BM]>) {
        ^bb0(%a: f32, %c: f32):
          %r = pgpu.binary add %a, %c : f32
          pgpu.yield %r : f32
        }
        pgpu.yield %smax, %ssum : !pgpu.fragment<f32, [BM]>, !pgpu.fragment<f32, [BM]>
      } combine {
      ^bb0(%m1: !pgpu.fragment<f32, [BM]>, %d1: !pgpu.fragment<f32, [BM]>,
           %m2: !pgpu.fragment<f32, [BM]>, %d2: !pgpu.fragment<f32, [BM]>):
        %c_zero = arith.constant 0.0 : f32
        %c_ninf = arith.constant 0xFF800000 : f32
        %c_zero_m = pgpu.splat %c_zero : f32 -> !pgpu.fragment<f32, [BM]>
        %c_ninf_m = pgpu.splat %c_ninf : f32 -> !pgpu.fragment<f32, [BM]>
        %mm = pgpu.binary max %m1, %m2 : !pgpu.fragment<f32, [BM]>
        // scale_i = m_i == -inf ? 0 : exp(m_i - m)
        %t1 = pgpu.binary sub %m1, %mm : !pgpu.fragment<f32, [BM]>
        %e1 = pgpu.unary exp %t1 : !pgpu.fragment<f32, [BM]>
        %none1 = pgpu.cmp eq %m1, %c_ninf_m : !pgpu.fragment<f32, [BM]>
        %s1 = pgpu.select %none1, %c_zero_m, %e1 : !pgpu.fragment<i1, [BM]>, !pgpu.fragment<f32, [BM]>
        %t2 = pgpu.binary sub %m2, %mm : !pgpu.fragment<f32, [BM]>
        %e2 = pgpu.unary exp %t2 : !pgpu.fragment<f32, [BM]>
        %none2 = pgpu.cmp eq %m2, %c_ninf_m : !pgpu.fragment<f32, [BM]>
        %s2 = pgpu.select %none2, %c_zero_m, %e2 : !pgpu.fragment<i1, [BM]>, !pgpu.fragment<f32, [BM]>
        %w1 = pgpu.binary mul %d1, %s1 : !pgpu.fragment<f32, [BM]>
        %w2 = pgpu.binary mul %d2, %s2 : !pgpu.fragment<f32, [BM]>
        %dd = pgpu.binary add %w1, %w2 : !pgpu.fragment<f32, [BM]>
        pgpu.yield %mm, %dd : !pgpu.fragment<f32, [BM]>, !pgpu.fragment<f32, [BM]>
      }

      // Y[m, n] = exp(x - max) / den valid (m < M && n < N), blocked over N
      %empty = pgpu.cmp eq %mx, %ninf_m : !pgpu.fragment<f32, [BM]>
      %shift = pgpu.select %empty, %zero_m, %mx : !pgpu.fragment<i1, [BM]>, !pgpu.fragment<f32, [BM]>
      %shift_b = pgpu.broadcast %shift dims [0] : !pgpu.fragment<f32, [BM]> -> !pgpu.fragment<f32, [BM, BN]>
      %den_b = pgpu.broadcast %den dims [0] : !pgpu.fragment<f32, [BM]> -> !pgpu.fragment<f32, [BM, BN]>
      %m = pgpu.iota %m0 : !pgpu.fragment<index, [BM]>
      %rm = pgpu.broadcast %m dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BN]>
      %Mb = pgpu.splat %M : index -> !pgpu.fragment<index, [BM, BN]>
      %Nb = pgpu.splat %N : index -> !pgpu.fragment<index, [BM, BN]>
      %row_ok = pgpu.cmp lt %rm, %Mb : !pgpu.fragment<index, [BM, BN]>
      pgpu.for %c0 to %N step %bn {
      ^bb0(%n0: index):
        %n = pgpu.iota %n0 : !pgpu.fragment<index, [BN]>
        %cn = pgpu.broadcast %n dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BM, BN]>
        %col_ok = pgpu.cmp lt %cn, %Nb : !pgpu.fragment<index, [BM, BN]>
        %ok = pgpu.binary and %row_ok, %col_ok : !pgpu.fragment<i1, [BM, BN]>
        %x = pgpu.load %X[%rm, %cn] valid %ok : !pgpu.fragment<i1, [BM, BN]> fill %ninf : f32
            : !pgpu.view<f32, [M, N], in>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
            -> !pgpu.fragment<f32, [BM, BN]>
        %s = pgpu.binary sub %x, %shift_b : !pgpu.fragment<f32, [BM, BN]>
        %p = pgpu.unary exp %s : !pgpu.fragment<f32, [BM, BN]>
        %y = pgpu.binary div %p, %den_b : !pgpu.fragment<f32, [BM, BN]>
        pgpu.store %y, %Y[%rm, %cn] valid %ok : !pgpu.fragment<i1, [BM, BN]>
            : !pgpu.fragment<f32, [BM, BN]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
