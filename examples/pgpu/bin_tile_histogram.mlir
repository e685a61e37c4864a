// A histogram written by hand with pgpu.histogram (seed 000 §8): program t owns the bins
// [t * NB, t * NB + NB) of H[B] and counts them over all of X[N] in blocks of BLOCK values, a
// privatized fragment of NB bins carried across the blocks; values outside [0, B) are not counted.
// Every bin has one owner (no atomics, one launch); each program reads the whole input, so the
// work is N * ceil(B / NB). The Triton provider spells pgpu.histogram as tl.histogram.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @bin_tile_histogram(%x: !pgpu.view<i32, [N], in>, %h: !pgpu.view<i32, [B], out>)
      attributes {params = [#pgpu.param<"NB", [64, 128, 256, 512, 1024], 256>,
                            #pgpu.param<"BLOCK", [256, 512, 1024, 2048], 1024>]} {
    %N = pgpu.extent %x[0] : !pgpu.view<i32, [N], in>
    %B = pgpu.extent %h[0] : !pgpu.view<i32, [B], out>
    %nbl = pgpu.param "NB" : index
    %tiles = pgpu.ceil_div %B, %nbl : index
    pgpu.program_space (%tiles) {
    ^bb0(%t: index):
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i32
      %nb = pgpu.param "NB" : index
      %block = pgpu.param "BLOCK" : index
      %base = pgpu.binary mul %t, %nb : index
      %base32 = pgpu.cast %base : index to i32
      %nb32 = pgpu.cast %nb : index to i32
      %b32 = pgpu.cast %B : index to i32
      %none = pgpu.splat %zero : i32 -> !pgpu.fragment<i32, [NB]>
      %counts = pgpu.for %c0 to %N step %block iter_args(%none : !pgpu.fragment<i32, [NB]>) -> !pgpu.fragment<i32, [NB]> {
      ^bb0(%s: index, %acc: !pgpu.fragment<i32, [NB]>):
        %lanes = pgpu.iota %s : !pgpu.fragment<index, [BLOCK]>
        %n = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %inside = pgpu.cmp lt %lanes, %n : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%lanes] valid %inside : !pgpu.fragment<i1, [BLOCK]> fill %zero : i32 : !pgpu.view<i32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<i32, [BLOCK]>
        %bases = pgpu.splat %base32 : i32 -> !pgpu.fragment<i32, [BLOCK]>
        %rel = pgpu.binary sub %v, %bases : !pgpu.fragment<i32, [BLOCK]>
        %zeros = pgpu.splat %zero : i32 -> !pgpu.fragment<i32, [BLOCK]>
        %widths = pgpu.splat %nb32 : i32 -> !pgpu.fragment<i32, [BLOCK]>
        %bins = pgpu.splat %b32 : i32 -> !pgpu.fragment<i32, [BLOCK]>
        %ge = pgpu.cmp ge %rel, %zeros : !pgpu.fragment<i32, [BLOCK]>
        %lt = pgpu.cmp lt %rel, %widths : !pgpu.fragment<i32, [BLOCK]>
        %counted = pgpu.cmp lt %v, %bins : !pgpu.fragment<i32, [BLOCK]>
        %mine = pgpu.binary and %ge, %lt : !pgpu.fragment<i1, [BLOCK]>
        %ok0 = pgpu.binary and %mine, %counted : !pgpu.fragment<i1, [BLOCK]>
        %ok = pgpu.binary and %ok0, %inside : !pgpu.fragment<i1, [BLOCK]>
        %part = pgpu.histogram %rel valid %ok : !pgpu.fragment<i32, [BLOCK]>, !pgpu.fragment<i1, [BLOCK]> -> !pgpu.fragment<i32, [NB]>
        %next = pgpu.binary add %acc, %part : !pgpu.fragment<i32, [NB]>
        pgpu.yield %next : !pgpu.fragment<i32, [NB]>
      }
      %owned = pgpu.iota %base : !pgpu.fragment<index, [NB]>
      %bound = pgpu.splat %B : index -> !pgpu.fragment<index, [NB]>
      %real = pgpu.cmp lt %owned, %bound : !pgpu.fragment<index, [NB]>
      pgpu.store %counts, %h[%owned] valid %real : !pgpu.fragment<i1, [NB]> : !pgpu.fragment<i32, [NB]>, !pgpu.view<i32, [B], out>[!pgpu.fragment<index, [NB]>]
      pgpu.yield
    }
    pgpu.return
  }
}
