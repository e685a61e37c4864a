// RUN: tessel-opt %tessel_src/examples/kir/linear_attention.mlir -kir-to-pgpu | FileCheck %s
// RUN: tessel-opt %s -kir-to-pgpu -verify-diagnostics | FileCheck %s --check-prefix=KEEP

// COM: Before: examples/kir/linear_attention.mlir, one kir.region_scan over T per (b, h) whose state
// COM: (S[D, E], z[D]) the emit region contracts with. After (seed 002 §3.4 region-scan realization):
// COM: one program per (b, h), no lane axis; under the guard that D and E fit their blocks, one
// COM: pgpu.region_scan over BLOCK_T source tiles with the state as fragments carried from init;
// COM: summarize keeps phi(K)^T V as a pgpu.contract into [BLOCK_D, BLOCK_E]; emit contracts the tile
// COM: with the incoming state ([BLOCK_T, BLOCK_D] x [BLOCK_D, BLOCK_E]), builds the masked
// COM: [BLOCK_T, BLOCK_T] intra-tile scores as a contraction and contracts them with V, reduces the
// COM: matrix-vector product with z, and stores the tile of O at the tile's coordinates; the final
// COM: state is stored after the scan. Otherwise every element of O is built element by element.
// CHECK-LABEL: pgpu.kernel @linear_attention
// CHECK-SAME: #pgpu.param<"BLOCK_T", [16, 32, 64, 128, 256], 64>
// CHECK-NOT: "BLOCK_H"
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0
// CHECK: pgpu.if
// CHECK: %[[STEP:.*]] = pgpu.param "BLOCK_T" : index
// CHECK: %[[SCAN:.*]]:2 = pgpu.region_scan %{{.*}} to %{{.*}} step %[[STEP]] identity({{.*}} : !pgpu.fragment<f32, [BLOCK_D, BLOCK_E]>, !pgpu.fragment<f32, [BLOCK_D]>) init({{.*}}) operands({{.*}}) -> (!pgpu.fragment<f32, [BLOCK_D, BLOCK_E]>, !pgpu.fragment<f32, [BLOCK_D]>) summarize {
// CHECK: pgpu.contract {{.*}} : !pgpu.fragment<f32, [BLOCK_D, BLOCK_T]>, !pgpu.fragment<f32, [BLOCK_T, BLOCK_E]>, !pgpu.fragment<f32, [BLOCK_D, BLOCK_E]> -> !pgpu.fragment<f32, [BLOCK_D, BLOCK_E]>
// CHECK: pgpu.reduce {{.*}} axes [0] {{.*}} -> (!pgpu.fragment<f32, [BLOCK_D]>)
// CHECK: } apply {
// CHECK: } emit {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[S:.*]]: !pgpu.fragment<f32, [BLOCK_D, BLOCK_E]>, %[[Z:.*]]: !pgpu.fragment<f32, [BLOCK_D]>,
// CHECK: pgpu.contract %{{.*}}, %[[S]], %{{.*}} reduce([1], [0]) {{.*}} -> !pgpu.fragment<f32, [BLOCK_T, BLOCK_E]>
// CHECK: pgpu.contract {{.*}} -> !pgpu.fragment<f32, [BLOCK_T, BLOCK_T]>
// CHECK: pgpu.contract {{.*}} : !pgpu.fragment<f32, [BLOCK_T, BLOCK_T]>, !pgpu.fragment<f32, [BLOCK_T, BLOCK_E]>
// CHECK: pgpu.broadcast %[[Z]] dims [1] : !pgpu.fragment<f32, [BLOCK_D]> -> !pgpu.fragment<f32, [BLOCK_T, BLOCK_D]>
// CHECK: pgpu.reduce {{.*}} axes [1] {{.*}} -> (!pgpu.fragment<f32, [BLOCK_T]>)
// CHECK: pgpu.store {{.*}} : !pgpu.fragment<f32, [BLOCK_T, BLOCK_E]>, !pgpu.view<f32, [B, H, T, E], out>
// CHECK-NEXT: pgpu.yield
// CHECK-NEXT: }
// CHECK: pgpu.store %[[SCAN]]#0, %S_OUT
// CHECK: pgpu.store %[[SCAN]]#1, %Z_OUT
// COM: The padded variant (D or E below its block): the same scan with masks.
// CHECK: } else {
// CHECK: pgpu.region_scan
// CHECK: pgpu.store %{{.*}}, %Z_OUT
// COM: The element-wise fallback (D or E above its block).
// CHECK: } else {
// CHECK-NOT: pgpu.region_scan
// CHECK: pgpu.return

// COM: Must not fire: the scan's output is also reduced over time inside the workset (not only
// COM: stored), so no tile can emit it; the workset keeps the element-wise construction, and says why.
// KEEP-LABEL: pgpu.kernel @scan_output_reduced
// KEEP-NOT: pgpu.region_scan
// KEEP: pgpu.return
module attributes {kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  kir.kernel @scan_output_reduced(%x: !kir.view<f32, [B, N, D], in>, %o: !kir.view<f32, [B, N], out>,
                                  %tot: !kir.view<f32, [B], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %nb = kir.extent "B"
    %nn = kir.extent "N"
    %nd = kir.extent "D"
    %db = kir.domain %c0 to %nb
    %dn = kir.domain %c0 to %nn
    %dd = kir.domain %c0 to %nd
    %tc = kir.indices %dn : tensor<?xindex>
    %a0 = kir.broadcast %zero over(%dd) dims [] : f32 -> tensor<?xf32>
    // expected-remark @+1 {{kir-to-pgpu: region scan constructed element by element: a region scan's output is used other than by a store of the workset ('kir.reduce')}}
    kir.parallel %db {
    ^bb0(%i: index):
      %t = kir.load %x[%i, %dn, %dd] : !kir.view<f32, [B, N, D], in>[index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %out, %acc = kir.region_scan sources(%t, %tc : tensor<?x?xf32>, tensor<?xindex>) axis 0
          identity(%a0 : tensor<?xf32>) init(%a0 : tensor<?xf32>)
          -> (tensor<?xf32>) final (tensor<?xf32>)
      summarize {
      ^bb0(%sl: tensor<?x?xf32>, %ts: tensor<?xindex>):
        %z = arith.constant 0.0 : f32
        %col = kir.reduce %sl axes [0] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        kir.yield %col : tensor<?xf32>
      } combine {
      ^bb0(%a1: tensor<?xf32>, %a2: tensor<?xf32>):
        %a = kir.binary add %a1, %a2 : tensor<?xf32>
        kir.yield %a : tensor<?xf32>
      } apply {
      ^bb0(%da: tensor<?xf32>, %a: tensor<?xf32>):
        %a2 = kir.binary add %a, %da : tensor<?xf32>
        kir.yield %a2 : tensor<?xf32>
      } emit {
      ^bb0(%sl: tensor<?x?xf32>, %ts: tensor<?xindex>, %a: tensor<?xf32>):
        %z = arith.constant 0.0 : f32
        // x_t . (sum of the rows before t): before the slice through the state, inside it masked.
        %inter = kir.contract %sl, %a reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
        %gram = kir.contract %sl, %sl reduce([1], [1]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %tq = kir.broadcast_as %ts to %gram dims [0] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
        %tk = kir.broadcast_as %ts to %gram dims [1] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
        %before = kir.cmp lt %tk, %tq : tensor<?x?xindex>
        %zs = kir.broadcast_as %z to %gram dims [] : f32, tensor<?x?xf32> -> tensor<?x?xf32>
        %kept = kir.select %before, %gram, %zs : tensor<?x?xi1>, tensor<?x?xf32>
        %intra = kir.reduce %kept axes [1] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%p: f32, %q: f32):
          %c = kir.binary add %p, %q : f32
          kir.yield %c : f32
        }
        %r = kir.binary add %inter, %intra : tensor<?xf32>
        kir.yield %r : tensor<?xf32>
      }
      kir.store %out, %o[%i, %dn] : tensor<?xf32>, !kir.view<f32, [B, N], out>[index, !kir.domain]
      %z = arith.constant 0.0 : f32
      %sum = kir.reduce %out axes [0] identity(%z : f32) : (tensor<?xf32>) -> (f32) {
      ^bb0(%p: f32, %q: f32):
        %c = kir.binary add %p, %q : f32
        kir.yield %c : f32
      }
      kir.store %sum, %tot[%i] : f32, !kir.view<f32, [B], out>[index]
      kir.yield
    }
    kir.return
  }
}
