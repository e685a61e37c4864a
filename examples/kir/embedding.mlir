// embedding: a lookup table TABLE[V, D] (f32) indexed by token ids IDS[T]
// (i32, in [0, V)).
//   @embedding_gather:      OUT[t, :] = TABLE[IDS[t], :]
//   @embedding_scatter_add: GRAD_TABLE[v, :] += sum_{t : IDS[t] = v} GRAD_OUT[t, :]
//                           (the backward of the lookup; GRAD_TABLE is inout and
//                           repeated ids accumulate, in no particular order)
// The ids become an index relation over the token domain; the rows are read
// with kir.gather and accumulated with a kir.scatter_reduce add.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @embedding_gather(%table: !kir.view<f32, [V, D], in>,
                               %ids: !kir.view<i32, [T], in> {kir.range = [0, "V"]},
                               %out: !kir.view<f32, [T, D], out>) {
    %c0 = arith.constant 0 : index
    %nt = kir.extent "T"
    %nd = kir.extent "D"
    %dt = kir.domain %c0 to %nt
    %dd = kir.domain %c0 to %nd
    %rows = kir.index_relation %ids[%dt] : !kir.view<i32, [T], in> -> tensor<?xindex>
    %vals = kir.gather %table[%rows, %dd] : !kir.view<f32, [V, D], in>[tensor<?xindex>, !kir.domain] -> tensor<?x?xf32>
    kir.store %vals, %out[%dt, %dd] : tensor<?x?xf32>, !kir.view<f32, [T, D], out>[!kir.domain, !kir.domain]
    kir.return
  }

  kir.kernel @embedding_scatter_add(%grad_out: !kir.view<f32, [T, D], in>,
                                    %ids: !kir.view<i32, [T], in> {kir.range = [0, "V"]},
                                    %grad_table: !kir.view<f32, [V, D], inout>) {
    %c0 = arith.constant 0 : index
    %nt = kir.extent "T"
    %nd = kir.extent "D"
    %dt = kir.domain %c0 to %nt
    %dd = kir.domain %c0 to %nd
    %rows = kir.index_relation %ids[%dt] : !kir.view<i32, [T], in> -> tensor<?xindex>
    %g = kir.load %grad_out[%dt, %dd] : !kir.view<f32, [T, D], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    kir.scatter_reduce %g, %grad_table[%rows, %dd] : tensor<?x?xf32>, !kir.view<f32, [V, D], inout>[tensor<?xindex>, !kir.domain] {
    ^bb0(%a: f32, %b: f32):
      %s = kir.binary add %a, %b : f32
      kir.yield %s : f32
    }
    kir.return
  }
}
