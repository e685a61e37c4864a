// RUN: tessel-opt %s > %t.1.mlir
// RUN: tessel-opt %t.1.mlir > %t.2.mlir
// RUN: cmp %t.1.mlir %t.2.mlir
// RUN: FileCheck %s --check-prefix=KIR --input-file=%t.1.mlir
// RUN: tessel compile %s --emit=pgpu | FileCheck %s --check-prefix=PGPU
// RUN: tessel compile %s --target=triton --emit=source | FileCheck %s --check-prefix=TRITON
// RUN: not tessel compile %s --target=cutile --emit=source 2>&1 | FileCheck %s --check-prefix=CUTILE
// RUN: not tessel compile %s --target=ptx --emit=device 2>&1 | FileCheck %s --check-prefix=PTX
// COM: An explicit operand precision (KIR_ContractPrecision) on linear attention's region scan
// COM: (examples/kir/linear_attention.mlir, issue 16): printed and parsed back; carried by the
// COM: fragment construction onto every pgpu.contract of the scan (seed 000 §8: semantics, not a
// COM: hint), and by the element-wise fallback as pointwise TF32 rounding of each product's operands
// COM: (bitcast, + 0x1000, & 0xFFFFE000, NaN kept); the matvec stays IEEE. Triton spells the rounding
// COM: and input_precision="tf32" (tf32x3: three TF32 products of the split parts); cuTile and PTX
// COM: reject at the op (never silently IEEE).

// KIR: kir.contract %{{.*}}, %{{.*}} reduce([0], [0]) batch([], []) precision tf32x3 :
// KIR: kir.contract %{{.*}}, %{{.*}} reduce([1], [0]) batch([], []) precision tf32 :
// KIR: kir.contract %{{.*}}, %{{.*}} reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32>
// KIR: kir.contract %{{.*}}, %{{.*}} reduce([1], [1]) batch([], []) precision tf32x3 :
// KIR: kir.contract %{{.*}}, %{{.*}} reduce([1], [0]) batch([], []) precision tf32x3 :

// PGPU-DAG: pgpu.contract {{.*}} batch([], []) precision tf32 : !pgpu.fragment<f32, [BLOCK_T, BLOCK_D]>, !pgpu.fragment<f32, [BLOCK_D, BLOCK_E]>
// PGPU-DAG: pgpu.contract {{.*}} batch([], []) precision tf32x3 : !pgpu.fragment<f32, [BLOCK_T, BLOCK_D]>, !pgpu.fragment<f32, [BLOCK_D, BLOCK_T]>
// PGPU-DAG: pgpu.contract {{.*}} batch([], []) precision tf32x3 : !pgpu.fragment<f32, [BLOCK_T, BLOCK_T]>, !pgpu.fragment<f32, [BLOCK_T, BLOCK_E]>
// PGPU-DAG: pgpu.contract {{.*}} batch([], []) precision tf32x3 : !pgpu.fragment<f32, [BLOCK_D, BLOCK_T]>, !pgpu.fragment<f32, [BLOCK_T, BLOCK_E]>
// PGPU-DAG: pgpu.bitcast {{.*}} : f32 to i32
// PGPU-DAG: arith.constant 4096 : i32
// PGPU-DAG: arith.constant -8192 : i32
// PGPU-NOT: pgpu.contract {{.*}} : !pgpu.fragment<f32, [BLOCK_T, BLOCK_D]>, !pgpu.fragment<f32, [BLOCK_D]>

// TRITON: def _linear_attention_tf32(x):
// TRITON-NEXT: # f32 to TF32, to nearest with ties away from zero (PTX cvt.rna.tf32.f32)
// TRITON: r = ((x.to(tl.uint32, bitcast=True) + 0x1000) & 0xFFFFE000).to(tl.float32, bitcast=True)
// TRITON-NEXT: return tl.where(x != x, x, r)
// TRITON: def _linear_attention_dot_tf32x3(a, b, acc):
// TRITON: a_hi = _linear_attention_tf32(a)
// TRITON: a_lo = tl.where(a_hi - a_hi == 0, _linear_attention_tf32(a - a_hi), 0.0)
// TRITON: acc = tl.dot(a_lo, b_hi, acc, input_precision="tf32")
// TRITON-NEXT: acc = tl.dot(a_hi, b_lo, acc, input_precision="tf32")
// TRITON-NEXT: return tl.dot(a_hi, b_hi, acc, input_precision="tf32")
// TRITON: _linear_attention_dot_tf32x3(
// TRITON: tl.dot(_linear_attention_tf32({{.*}}), _linear_attention_tf32({{.*}}), {{.*}}, input_precision="tf32")
// TRITON: tl.cast({{.*}}, tl.int32, bitcast=True)

// CUTILE: error: {{.*}}precision tf32{{(x3)?}} (KIR_ContractPrecision) is not spelled by the cuTile provider yet
// PTX: error: {{.*}}precision tf32{{(x3)?}} (KIR_ContractPrecision) is not selected by the {{.*}} provider yet

// linear_attention: causal linear attention for Q, K[B, H, T, D] and
// V[B, H, T, E] (f32) with the feature map phi(x) = max(x, 0) + 1:
//   S_t = sum_{s <= t} phi(K[s])^T V[s]        (D x E)
//   z_t = sum_{s <= t} phi(K[s])               (D)
//   O[b, h, t, :] = (phi(Q[t]) S_t) / (phi(Q[t]) . z_t)
// The final state S_T and z_T go to S_OUT[B, H, D, E] and Z_OUT[B, H, D].
//
// Each (b, h) is one kir.region_scan over the time axis T. Its sources are
// phi(K), V, phi(Q) and the time coordinates (so that each slice knows which
// of its members precede which); the state is (S, z) and starts at zero.
//   summarize: the slice's transition (phi(K_s)^T V_s, sum_t phi(K_s)[t]);
//   combine:   adds two transitions (earlier, later);
//   apply:     adds a transition to a state;
//   emit:      the slice's outputs from the state before it: the inter-slice
//              part phi(Q_s) S_in over phi(Q_s) z_in, plus the intra-slice part
//              (phi(Q_s) phi(K_s)^T masked to key time <= query time) V_s over
//              the masked row sums; O_s = numerator / denominator.
// The compiler may cut T into any contiguous slices; every cut gives the same
// outputs up to rounding.
module attributes {kir.compile_options = #kir.compile_options<>} {
  kir.kernel @linear_attention(%Q: !kir.view<f32, [B, H, T, D], in>, %K: !kir.view<f32, [B, H, T, D], in>,
                               %V: !kir.view<f32, [B, H, T, E], in>, %O: !kir.view<f32, [B, H, T, E], out>,
                               %S_OUT: !kir.view<f32, [B, H, D, E], out>, %Z_OUT: !kir.view<f32, [B, H, D], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %nb = kir.extent "B"
    %nh = kir.extent "H"
    %nt = kir.extent "T"
    %nd = kir.extent "D"
    %ne = kir.extent "E"
    %db = kir.domain %c0 to %nb
    %dh = kir.domain %c0 to %nh
    %dt = kir.domain %c0 to %nt
    %dd = kir.domain %c0 to %nd
    %de = kir.domain %c0 to %ne
    %zeros_td = kir.broadcast %zero over(%dt, %dd) dims [] : f32 -> tensor<?x?xf32>
    %ones_td = kir.broadcast %one over(%dt, %dd) dims [] : f32 -> tensor<?x?xf32>
    // The empty state: S = 0 (D x E), z = 0 (D); also the transition identity.
    %s0 = kir.broadcast %zero over(%dd, %de) dims [] : f32 -> tensor<?x?xf32>
    %z0 = kir.broadcast %zero over(%dd) dims [] : f32 -> tensor<?xf32>
    // Time coordinates, sliced together with the other sources.
    %tc = kir.indices %dt : tensor<?xindex>
    kir.parallel %db, %dh {
    ^bb0(%b: index, %h: index):
      %q = kir.load %Q[%b, %h, %dt, %dd] : !kir.view<f32, [B, H, T, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %k = kir.load %K[%b, %h, %dt, %dd] : !kir.view<f32, [B, H, T, D], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      %v = kir.load %V[%b, %h, %dt, %de] : !kir.view<f32, [B, H, T, E], in>[index, index, !kir.domain, !kir.domain] -> tensor<?x?xf32>
      // phi(x) = max(x, 0) + 1
      %qr = kir.binary max %q, %zeros_td : tensor<?x?xf32>
      %pq = kir.binary add %qr, %ones_td : tensor<?x?xf32>
      %kr = kir.binary max %k, %zeros_td : tensor<?x?xf32>
      %pk = kir.binary add %kr, %ones_td : tensor<?x?xf32>
      %o, %s, %z = kir.region_scan
          sources(%pk, %v, %pq, %tc : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xindex>)
          axis 0
          identity(%s0, %z0 : tensor<?x?xf32>, tensor<?xf32>)
          init(%s0, %z0 : tensor<?x?xf32>, tensor<?xf32>)
          -> (tensor<?x?xf32>) final (tensor<?x?xf32>, tensor<?xf32>)
      summarize {
      ^bb0(%pks: tensor<?x?xf32>, %vs: tensor<?x?xf32>, %pqs: tensor<?x?xf32>, %tcs: tensor<?xindex>):
        %z = arith.constant 0.0 : f32
        %ds = kir.contract %pks, %vs reduce([0], [0]) batch([], []) precision tf32x3 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %dz = kir.reduce %pks axes [0] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%x: f32, %y: f32):
          %a = kir.binary add %x, %y : f32
          kir.yield %a : f32
        }
        kir.yield %ds, %dz : tensor<?x?xf32>, tensor<?xf32>
      } combine {
      ^bb0(%s1: tensor<?x?xf32>, %z1: tensor<?xf32>, %s2: tensor<?x?xf32>, %z2: tensor<?xf32>):
        %s12 = kir.binary add %s1, %s2 : tensor<?x?xf32>
        %z12 = kir.binary add %z1, %z2 : tensor<?xf32>
        kir.yield %s12, %z12 : tensor<?x?xf32>, tensor<?xf32>
      } apply {
      ^bb0(%ds: tensor<?x?xf32>, %dz: tensor<?xf32>, %sin: tensor<?x?xf32>, %zin: tensor<?xf32>):
        %snew = kir.binary add %sin, %ds : tensor<?x?xf32>
        %znew = kir.binary add %zin, %dz : tensor<?xf32>
        kir.yield %snew, %znew : tensor<?x?xf32>, tensor<?xf32>
      } emit {
      ^bb0(%pks: tensor<?x?xf32>, %vs: tensor<?x?xf32>, %pqs: tensor<?x?xf32>, %tcs: tensor<?xindex>,
           %sin: tensor<?x?xf32>, %zin: tensor<?xf32>):
        %z = arith.constant 0.0 : f32
        // Inter-slice: the keys before the slice, through the incoming state.
        %inter_num = kir.contract %pqs, %sin reduce([1], [0]) batch([], []) precision tf32 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %inter_den = kir.contract %pqs, %zin reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xf32>
        // Intra-slice: scores[i, j] = phi(q_i) . phi(k_j), kept where t_j <= t_i.
        %scores = kir.contract %pqs, %pks reduce([1], [1]) batch([], []) precision tf32x3 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %tq = kir.broadcast_as %tcs to %scores dims [0] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
        %tk = kir.broadcast_as %tcs to %scores dims [1] : tensor<?xindex>, tensor<?x?xf32> -> tensor<?x?xindex>
        %causal = kir.cmp le %tk, %tq : tensor<?x?xindex>
        %zs = kir.broadcast_as %z to %scores dims [] : f32, tensor<?x?xf32> -> tensor<?x?xf32>
        %masked = kir.select %causal, %scores, %zs : tensor<?x?xi1>, tensor<?x?xf32>
        %intra_num = kir.contract %masked, %vs reduce([1], [0]) batch([], []) precision tf32x3 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %intra_den = kir.reduce %masked axes [1] identity(%z : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
        ^bb0(%x: f32, %y: f32):
          %a = kir.binary add %x, %y : f32
          kir.yield %a : f32
        }
        %num = kir.binary add %inter_num, %intra_num : tensor<?x?xf32>
        %den = kir.binary add %inter_den, %intra_den : tensor<?xf32>
        %den_e = kir.broadcast_as %den to %num dims [0] : tensor<?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
        %os = kir.binary div %num, %den_e : tensor<?x?xf32>
        kir.yield %os : tensor<?x?xf32>
      }
      kir.store %o, %O[%b, %h, %dt, %de] : tensor<?x?xf32>, !kir.view<f32, [B, H, T, E], out>[index, index, !kir.domain, !kir.domain]
      kir.store %s, %S_OUT[%b, %h, %dd, %de] : tensor<?x?xf32>, !kir.view<f32, [B, H, D, E], out>[index, index, !kir.domain, !kir.domain]
      kir.store %z, %Z_OUT[%b, %h, %dd] : tensor<?xf32>, !kir.view<f32, [B, H, D], out>[index, index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}
