// histogram: H[b] = #{ i : X[i] == b } for b in [0, B), over X[N] (i32).
// Values outside [0, B) are not counted. B is the extent of the output view
// H[B] (i32 counts). The whole input is counted at once: no parallel.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @histogram(%x: !kir.view<i32, [N], in> {kir.range = [-3, "B"]}, %h: !kir.view<i32, [B], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %n = kir.extent "N"
    %nbins = kir.extent "B"
    %dn = kir.domain %c0 to %n
    %db = kir.domain %c0 to %nbins
    %vals = kir.load %x[%dn] : !kir.view<i32, [N], in>[!kir.domain] -> tensor<?xi32>
    %nbins_i32 = kir.cast %nbins : index to i32
    %lo = kir.broadcast %zero over(%dn) dims [] : i32 -> tensor<?xi32>
    %hi = kir.broadcast %nbins_i32 over(%dn) dims [] : i32 -> tensor<?xi32>
    %ge_lo = kir.cmp ge %vals, %lo : tensor<?xi32>
    %lt_hi = kir.cmp lt %vals, %hi : tensor<?xi32>
    %ok = kir.binary and %ge_lo, %lt_hi : tensor<?xi1>
    %counts = kir.histogram %vals bins(%db) valid %ok : tensor<?xi32>, tensor<?xi1> -> tensor<?xi32>
    kir.store %counts, %h[%db] : tensor<?xi32>, !kir.view<i32, [B], out>[!kir.domain]
    kir.return
  }
}
