// Row softmax written by hand in pgpu: Y[M, N] = softmax(X[M, N]) along N, f32.
// One program owns BM rows (grid ceil(M/BM)) and walks the row in column blocks
// of BN with a physical blocking loop, three times:
//   pass 1  mx  = max over blocks of reduce_max(X[m, n])        (masked lanes fill -inf)
//   pass 2  den = sum over blocks of reduce_sum(exp(X[m, n] - mx))
//   pass 3  Y[m, n] = exp(X[m, n] - mx) / den                   (store validity m < M && n < N)
// Rows past M are masked on every access; their max stays -inf and is replaced
// by 0 before it is subtracted, so no -inf - -inf NaN is ever formed.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @softmax(%X: !pgpu.view<f32, [M, N], in>, %Y: !pgpu.view<f32, [M, N], out>)
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
      // m = pm * BM + range(0, BM), broadcast to the accessed [BM, BN] shape
      %m0 = pgpu.binary mul %pm, %bm : index
      %m = pgpu.iota %m0 : !pgpu.fragment<index, [BM]>
      %rm = pgpu.broadcast %m dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BN]>
      %Mb = pgpu.splat %M : index -> !pgpu.fragment<index, [BM, BN]>
      %Nb = pgpu.splat %N : index -> !pgpu.fragment<index, [BM, BN]>
      %row_ok = pgpu.cmp lt %rm, %Mb : !pgpu.fragment<index, [BM, BN]>

      %ninf_m = pgpu.splat %ninf : f32 -> !pgpu.fragment<f32, [BM]>
      %zero_m = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM]>

      // pass 1: row max, carried across column blocks
      %mx = pgpu.for %c0 to %N step %bn iter_args(%ninf_m : !pgpu.fragment<f32, [BM]>) -> !pgpu.fragment<f32, [BM]> {
      ^bb0(%n0: index, %mc: !pgpu.fragment<f32, [BM]>):
        %n = pgpu.iota %n0 : !pgpu.fragment<index, [BN]>
        %cn = pgpu.broadcast %n dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BM, BN]>
        %col_ok = pgpu.cmp lt %cn, %Nb : !pgpu.fragment<index, [BM, BN]>
        %ok = pgpu.binary and %row_ok, %col_ok : !pgpu.fragment<i1, [BM, BN]>
        // x = load X[m, n] valid (m < M && n < N) fill -inf
        %x = pgpu.load %X[%rm, %cn] valid %ok : !pgpu.fragment<i1, [BM, BN]> fill %ninf : f32
            : !pgpu.view<f32, [M, N], in>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
            -> !pgpu.fragment<f32, [BM, BN]>
        %bmax = pgpu.reduce %x axes [1] identity(%ninf : f32) : (!pgpu.fragment<f32, [BM, BN]>) -> (!pgpu.fragment<f32, [BM]>) {
        ^bb0(%a: f32, %b: f32):
          %c = pgpu.binary max %a, %b : f32
          pgpu.yield %c : f32
        }
        %next = pgpu.binary max %mc, %bmax : !pgpu.fragment<f32, [BM]>
        pgpu.yield %next : !pgpu.fragment<f32, [BM]>
      }
      // a fully masked row keeps -inf: subtract 0 there instead
      %empty = pgpu.cmp eq %mx, %ninf_m : !pgpu.fragment<f32, [BM]>
      %shift = pgpu.select %empty, %zero_m, %mx : !pgpu.fragment<i1, [BM]>, !pgpu.fragment<f32, [BM]>
      %shift_b = pgpu.broadcast %shift dims [0] : !pgpu.fragment<f32, [BM]> -> !pgpu.fragment<f32, [BM, BN]>

      // pass 2: row sum of exp(x - max); masked lanes load -inf and contribute exp(-inf) = 0
      %den = pgpu.for %c0 to %N step %bn iter_args(%zero_m : !pgpu.fragment<f32, [BM]>) -> !pgpu.fragment<f32, [BM]> {
      ^bb0(%n0: index, %dc: !pgpu.fragment<f32, [BM]>):
        %n = pgpu.iota %n0 : !pgpu.fragment<index, [BN]>
        %cn = pgpu.broadcast %n dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BM, BN]>
        %col_ok = pgpu.cmp lt %cn, %Nb : !pgpu.fragment<index, [BM, BN]>
        %ok = pgpu.binary and %row_ok, %col_ok : !pgpu.fragment<i1, [BM, BN]>
        %x = pgpu.load %X[%rm, %cn] valid %ok : !pgpu.fragment<i1, [BM, BN]> fill %ninf : f32
            : !pgpu.view<f32, [M, N], in>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
            -> !pgpu.fragment<f32, [BM, BN]>
        %s = pgpu.binary sub %x, %shift_b : !pgpu.fragment<f32, [BM, BN]>
        %p = pgpu.unary exp %s : !pgpu.fragment<f32, [BM, BN]>
        %bsum = pgpu.reduce %p axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [BM, BN]>) -> (!pgpu.fragment<f32, [BM]>) {
        ^bb0(%a: f32, %b: f32):
          %c = pgpu.binary add %a, %b : f32
          pgpu.yield %c : f32
        }
        %next = pgpu.binary add %dc, %bsum : !pgpu.fragment<f32, [BM]>
        pgpu.yield %next : !pgpu.fragment<f32, [BM]>
      }
      %den_b = pgpu.broadcast %den dims [0] : !pgpu.fragment<f32, [BM]> -> !pgpu.fragment<f32, [BM, BN]>

      // pass 3: Y[m, n] = exp(x - max) / den valid (m < M && n < N)
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
