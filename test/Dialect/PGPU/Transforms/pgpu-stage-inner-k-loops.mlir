// RUN: tessel-opt %s -split-input-file -pgpu-stage-inner-k-loops | FileCheck %s

// COM: A product nested in another's element (sigmoid attention: scores over the head dimension D,
// COM: their sigmoid, then the product with V over the keys). Under 0 < D <= TILE_K the K loop runs
// COM: its one trip inlined, the query tile (independent of the key block) is read once before the key
// COM: loop, which is then innermost; the else-branch keeps the nested loops. TILE_K covers D.
// CHECK-LABEL: pgpu.kernel @chain
// CHECK-SAME: #pgpu.param<"TILE_K", [16, 32, 64, 128], 64, covers = "D">
// CHECK: %[[TK:.*]] = pgpu.param "TILE_K" : index
// CHECK: %[[EXTENT:.*]] = pgpu.binary sub %[[D:.*]], %[[C0:.*]] : index
// CHECK: %[[NONEMPTY:.*]] = pgpu.cmp lt %[[C0]], %[[D]] : index
// CHECK: %[[FITS:.*]] = pgpu.cmp le %[[EXTENT]], %[[TK]] : index
// CHECK: %[[ONCE:.*]] = pgpu.binary and %[[NONEMPTY]], %[[FITS]] : i1
// CHECK: pgpu.if %[[ONCE]] {
// CHECK: %[[Q:.*]] = pgpu.load %q
// CHECK: pgpu.for %[[C0]] to %{{.*}} step %{{.*}} iter_args
// CHECK-NOT: pgpu.for
// CHECK-NOT: pgpu.load %q
// CHECK: pgpu.load %k
// CHECK: pgpu.contract %[[Q]]
// CHECK: pgpu.unary sigmoid
// CHECK: pgpu.load %v
// CHECK: pgpu.contract
// CHECK: pgpu.store
// CHECK: } else {
// CHECK: pgpu.for
// CHECK: pgpu.for %[[C0]] to %[[D]] step
// CHECK: pgpu.load %q
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @chain(%q: !pgpu.view<bf16, [S, D], in>, %k: !pgpu.view<bf16, [S, D], in>,
                     %v: !pgpu.view<bf16, [S, D], in>, %o: !pgpu.view<f32, [S, D], out>)
      attributes {params = [#pgpu.param<"TILE_M", [64, 128], 64>, #pgpu.param<"TILE_R", [64, 128], 64>,
                            #pgpu.param<"TILE_N", [64, 128], 64>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>]} {
    %S = pgpu.extent %q[0] : !pgpu.view<bf16, [S, D], in>
    %D = pgpu.extent %q[1] : !pgpu.view<bf16, [S, D], in>
    %tm = pgpu.param "TILE_M" : index
    %blocks = pgpu.ceil_div %S, %tm : index
    pgpu.program_space (%blocks) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %zb = arith.constant 0.0 : bf16
      %m0 = pgpu.binary mul %p, %tm : index
      %rows = pgpu.iota %m0 : !pgpu.fragment<index, [TILE_M]>
      %sm = pgpu.splat %S : index -> !pgpu.fragment<index, [TILE_M]>
      %rok = pgpu.cmp lt %rows, %sm : !pgpu.fragment<index, [TILE_M]>
      %cols = pgpu.iota %c0 : !pgpu.fragment<index, [TILE_N]>
      %sn = pgpu.splat %D : index -> !pgpu.fragment<index, [TILE_N]>
      %cok = pgpu.cmp lt %cols, %sn : !pgpu.fragment<index, [TILE_N]>
      %acc0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [TILE_M, TILE_N]>
      %tr = pgpu.param "TILE_R" : index
      %out = pgpu.for %c0 to %S step %tr iter_args(%acc0 : !pgpu.fragment<f32, [TILE_M, TILE_N]>) -> !pgpu.fragment<f32, [TILE_M, TILE_N]> {
      ^bb0(%r: index, %acc: !pgpu.fragment<f32, [TILE_M, TILE_N]>):
        %keys = pgpu.iota %r : !pgpu.fragment<index, [TILE_R]>
        %sr = pgpu.splat %S : index -> !pgpu.fragment<index, [TILE_R]>
        %kok = pgpu.cmp lt %keys, %sr : !pgpu.fragment<index, [TILE_R]>
        %s0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [TILE_M, TILE_R]>
        %tk = pgpu.param "TILE_K" : index
        %scores = pgpu.for %c0 to %D step %tk iter_args(%s0 : !pgpu.fragment<f32, [TILE_M, TILE_R]>) -> !pgpu.fragment<f32, [TILE_M, TILE_R]> {
        ^bb0(%kk: index, %s: !pgpu.fragment<f32, [TILE_M, TILE_R]>):
          %ks = pgpu.iota %kk : !pgpu.fragment<index, [TILE_K]>
          %sk = pgpu.splat %D : index -> !pgpu.fragment<index, [TILE_K]>
          %ok = pgpu.cmp lt %ks, %sk : !pgpu.fragment<index, [TILE_K]>
          %qr = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [TILE_M]> -> !pgpu.fragment<index, [TILE_M, TILE_K]>
          %qc = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_M, TILE_K]>
          %qv1 = pgpu.broadcast %rok dims [0] : !pgpu.fragment<i1, [TILE_M]> -> !pgpu.fragment<i1, [TILE_M, TILE_K]>
          %qv2 = pgpu.broadcast %ok dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_M, TILE_K]>
          %qv = pgpu.binary and %qv1, %qv2 : !pgpu.fragment<i1, [TILE_M, TILE_K]>
          %qt = pgpu.load %q[%qr, %qc] valid %qv : !pgpu.fragment<i1, [TILE_M, TILE_K]> fill %zb : bf16 : !pgpu.view<bf16, [S, D], in>[!pgpu.fragment<index, [TILE_M, TILE_K]>, !pgpu.fragment<index, [TILE_M, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_M, TILE_K]>
          %kr = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_K, TILE_R]>
          %kc = pgpu.broadcast %keys dims [1] : !pgpu.fragment<index, [TILE_R]> -> !pgpu.fragment<index, [TILE_K, TILE_R]>
          %kv1 = pgpu.broadcast %ok dims [0] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_K, TILE_R]>
          %kv2 = pgpu.broadcast %kok dims [1] : !pgpu.fragment<i1, [TILE_R]> -> !pgpu.fragment<i1, [TILE_K, TILE_R]>
          %kv = pgpu.binary and %kv1, %kv2 : !pgpu.fragment<i1, [TILE_K, TILE_R]>
          %kt = pgpu.load %k[%kc, %kr] valid %kv : !pgpu.fragment<i1, [TILE_K, TILE_R]> fill %zb : bf16 : !pgpu.view<bf16, [S, D], in>[!pgpu.fragment<index, [TILE_K, TILE_R]>, !pgpu.fragment<index, [TILE_K, TILE_R]>] -> !pgpu.fragment<bf16, [TILE_K, TILE_R]>
          %next = pgpu.contract %qt, %kt, %s reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_M, TILE_K]>, !pgpu.fragment<bf16, [TILE_K, TILE_R]>, !pgpu.fragment<f32, [TILE_M, TILE_R]> -> !pgpu.fragment<f32, [TILE_M, TILE_R]>
          pgpu.yield %next : !pgpu.fragment<f32, [TILE_M, TILE_R]>
        }
        %p32 = pgpu.unary sigmoid %scores : !pgpu.fragment<f32, [TILE_M, TILE_R]>
        %pb = pgpu.cast %p32 : !pgpu.fragment<f32, [TILE_M, TILE_R]> to !pgpu.fragment<bf16, [TILE_M, TILE_R]>
        %vr = pgpu.broadcast %keys dims [0] : !pgpu.fragment<index, [TILE_R]> -> !pgpu.fragment<index, [TILE_R, TILE_N]>
        %vc = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [TILE_N]> -> !pgpu.fragment<index, [TILE_R, TILE_N]>
        %vv1 = pgpu.broadcast %kok dims [0] : !pgpu.fragment<i1, [TILE_R]> -> !pgpu.fragment<i1, [TILE_R, TILE_N]>
        %vv2 = pgpu.broadcast %cok dims [1] : !pgpu.fragment<i1, [TILE_N]> -> !pgpu.fragment<i1, [TILE_R, TILE_N]>
        %vv = pgpu.binary and %vv1, %vv2 : !pgpu.fragment<i1, [TILE_R, TILE_N]>
        %vt = pgpu.load %v[%vr, %vc] valid %vv : !pgpu.fragment<i1, [TILE_R, TILE_N]> fill %zb : bf16 : !pgpu.view<bf16, [S, D], in>[!pgpu.fragment<index, [TILE_R, TILE_N]>, !pgpu.fragment<index, [TILE_R, TILE_N]>] -> !pgpu.fragment<bf16, [TILE_R, TILE_N]>
        %acc1 = pgpu.contract %pb, %vt, %acc reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_M, TILE_R]>, !pgpu.fragment<bf16, [TILE_R, TILE_N]>, !pgpu.fragment<f32, [TILE_M, TILE_N]> -> !pgpu.fragment<f32, [TILE_M, TILE_N]>
        pgpu.yield %acc1 : !pgpu.fragment<f32, [TILE_M, TILE_N]>
      }
      %or = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [TILE_M]> -> !pgpu.fragment<index, [TILE_M, TILE_N]>
      %oc = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [TILE_N]> -> !pgpu.fragment<index, [TILE_M, TILE_N]>
      %ov1 = pgpu.broadcast %rok dims [0] : !pgpu.fragment<i1, [TILE_M]> -> !pgpu.fragment<i1, [TILE_M, TILE_N]>
      %ov2 = pgpu.broadcast %cok dims [1] : !pgpu.fragment<i1, [TILE_N]> -> !pgpu.fragment<i1, [TILE_M, TILE_N]>
      %ov = pgpu.binary and %ov1, %ov2 : !pgpu.fragment<i1, [TILE_M, TILE_N]>
      pgpu.store %out, %o[%or, %oc] valid %ov : !pgpu.fragment<i1, [TILE_M, TILE_N]> : !pgpu.fragment<f32, [TILE_M, TILE_N]>, !pgpu.view<f32, [S, D], out>[!pgpu.fragment<index, [TILE_M, TILE_N]>, !pgpu.fragment<index, [TILE_M, TILE_N]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the K range is a constant (no view extent, so no launch fact to stage on).
// CHECK-LABEL: pgpu.kernel @constant_k
// CHECK-NOT: covers
// CHECK-NOT: pgpu.if
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @constant_k(%q: !pgpu.view<bf16, [S, D], in>, %k: !pgpu.view<bf16, [S, D], in>,
                     %v: !pgpu.view<bf16, [S, D], in>, %o: !pgpu.view<f32, [S, D], out>)
      attributes {params = [#pgpu.param<"TILE_M", [64, 128], 64>, #pgpu.param<"TILE_R", [64, 128], 64>,
                            #pgpu.param<"TILE_N", [64, 128], 64>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>]} {
    %S = pgpu.extent %q[0] : !pgpu.view<bf16, [S, D], in>
    %D = pgpu.extent %q[1] : !pgpu.view<bf16, [S, D], in>
    %tm = pgpu.param "TILE_M" : index
    %blocks = pgpu.ceil_div %S, %tm : index
    pgpu.program_space (%blocks) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %c96 = arith.constant 96 : index
      %z = arith.constant 0.0 : f32
      %zb = arith.constant 0.0 : bf16
      %m0 = pgpu.binary mul %p, %tm : index
      %rows = pgpu.iota %m0 : !pgpu.fragment<index, [TILE_M]>
      %sm = pgpu.splat %S : index -> !pgpu.fragment<index, [TILE_M]>
      %rok = pgpu.cmp lt %rows, %sm : !pgpu.fragment<index, [TILE_M]>
      %cols = pgpu.iota %c0 : !pgpu.fragment<index, [TILE_N]>
      %sn = pgpu.splat %D : index -> !pgpu.fragment<index, [TILE_N]>
      %cok = pgpu.cmp lt %cols, %sn : !pgpu.fragment<index, [TILE_N]>
      %acc0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [TILE_M, TILE_N]>
      %tr = pgpu.param "TILE_R" : index
      %out = pgpu.for %c0 to %S step %tr iter_args(%acc0 : !pgpu.fragment<f32, [TILE_M, TILE_N]>) -> !pgpu.fragment<f32, [TILE_M, TILE_N]> {
      ^bb0(%r: index, %acc: !pgpu.fragment<f32, [TILE_M, TILE_N]>):
        %keys = pgpu.iota %r : !pgpu.fragment<index, [TILE_R]>
        %sr = pgpu.splat %S : index -> !pgpu.fragment<index, [TILE_R]>
        %kok = pgpu.cmp lt %keys, %sr : !pgpu.fragment<index, [TILE_R]>
        %s0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [TILE_M, TILE_R]>
        %tk = pgpu.param "TILE_K" : index
        %scores = pgpu.for %c0 to %c96 step %tk iter_args(%s0 : !pgpu.fragment<f32, [TILE_M, TILE_R]>) -> !pgpu.fragment<f32, [TILE_M, TILE_R]> {
        ^bb0(%kk: index, %s: !pgpu.fragment<f32, [TILE_M, TILE_R]>):
          %ks = pgpu.iota %kk : !pgpu.fragment<index, [TILE_K]>
          %sk = pgpu.splat %D : index -> !pgpu.fragment<index, [TILE_K]>
          %ok = pgpu.cmp lt %ks, %sk : !pgpu.fragment<index, [TILE_K]>
          %qr = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [TILE_M]> -> !pgpu.fragment<index, [TILE_M, TILE_K]>
          %qc = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_M, TILE_K]>
          %qv1 = pgpu.broadcast %rok dims [0] : !pgpu.fragment<i1, [TILE_M]> -> !pgpu.fragment<i1, [TILE_M, TILE_K]>
          %qv2 = pgpu.broadcast %ok dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_M, TILE_K]>
          %qv = pgpu.binary and %qv1, %qv2 : !pgpu.fragment<i1, [TILE_M, TILE_K]>
          %qt = pgpu.load %q[%qr, %qc] valid %qv : !pgpu.fragment<i1, [TILE_M, TILE_K]> fill %zb : bf16 : !pgpu.view<bf16, [S, D], in>[!pgpu.fragment<index, [TILE_M, TILE_K]>, !pgpu.fragment<index, [TILE_M, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_M, TILE_K]>
          %kr = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_K, TILE_R]>
          %kc = pgpu.broadcast %keys dims [1] : !pgpu.fragment<index, [TILE_R]> -> !pgpu.fragment<index, [TILE_K, TILE_R]>
          %kv1 = pgpu.broadcast %ok dims [0] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_K, TILE_R]>
          %kv2 = pgpu.broadcast %kok dims [1] : !pgpu.fragment<i1, [TILE_R]> -> !pgpu.fragment<i1, [TILE_K, TILE_R]>
          %kv = pgpu.binary and %kv1, %kv2 : !pgpu.fragment<i1, [TILE_K, TILE_R]>
          %kt = pgpu.load %k[%kc, %kr] valid %kv : !pgpu.fragment<i1, [TILE_K, TILE_R]> fill %zb : bf16 : !pgpu.view<bf16, [S, D], in>[!pgpu.fragment<index, [TILE_K, TILE_R]>, !pgpu.fragment<index, [TILE_K, TILE_R]>] -> !pgpu.fragment<bf16, [TILE_K, TILE_R]>
          %next = pgpu.contract %qt, %kt, %s reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_M, TILE_K]>, !pgpu.fragment<bf16, [TILE_K, TILE_R]>, !pgpu.fragment<f32, [TILE_M, TILE_R]> -> !pgpu.fragment<f32, [TILE_M, TILE_R]>
          pgpu.yield %next : !pgpu.fragment<f32, [TILE_M, TILE_R]>
        }
        %p32 = pgpu.unary sigmoid %scores : !pgpu.fragment<f32, [TILE_M, TILE_R]>
        %pb = pgpu.cast %p32 : !pgpu.fragment<f32, [TILE_M, TILE_R]> to !pgpu.fragment<bf16, [TILE_M, TILE_R]>
        %vr = pgpu.broadcast %keys dims [0] : !pgpu.fragment<index, [TILE_R]> -> !pgpu.fragment<index, [TILE_R, TILE_N]>
        %vc = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [TILE_N]> -> !pgpu.fragment<index, [TILE_R, TILE_N]>
        %vv1 = pgpu.broadcast %kok dims [0] : !pgpu.fragment<i1, [TILE_R]> -> !pgpu.fragment<i1, [TILE_R, TILE_N]>
        %vv2 = pgpu.broadcast %cok dims [1] : !pgpu.fragment<i1, [TILE_N]> -> !pgpu.fragment<i1, [TILE_R, TILE_N]>
        %vv = pgpu.binary and %vv1, %vv2 : !pgpu.fragment<i1, [TILE_R, TILE_N]>
        %vt = pgpu.load %v[%vr, %vc] valid %vv : !pgpu.fragment<i1, [TILE_R, TILE_N]> fill %zb : bf16 : !pgpu.view<bf16, [S, D], in>[!pgpu.fragment<index, [TILE_R, TILE_N]>, !pgpu.fragment<index, [TILE_R, TILE_N]>] -> !pgpu.fragment<bf16, [TILE_R, TILE_N]>
        %acc1 = pgpu.contract %pb, %vt, %acc reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_M, TILE_R]>, !pgpu.fragment<bf16, [TILE_R, TILE_N]>, !pgpu.fragment<f32, [TILE_M, TILE_N]> -> !pgpu.fragment<f32, [TILE_M, TILE_N]>
        pgpu.yield %acc1 : !pgpu.fragment<f32, [TILE_M, TILE_N]>
      }
      %or = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [TILE_M]> -> !pgpu.fragment<index, [TILE_M, TILE_N]>
      %oc = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [TILE_N]> -> !pgpu.fragment<index, [TILE_M, TILE_N]>
      %ov1 = pgpu.broadcast %rok dims [0] : !pgpu.fragment<i1, [TILE_M]> -> !pgpu.fragment<i1, [TILE_M, TILE_N]>
      %ov2 = pgpu.broadcast %cok dims [1] : !pgpu.fragment<i1, [TILE_N]> -> !pgpu.fragment<i1, [TILE_M, TILE_N]>
      %ov = pgpu.binary and %ov1, %ov2 : !pgpu.fragment<i1, [TILE_M, TILE_N]>
      pgpu.store %out, %o[%or, %oc] valid %ov : !pgpu.fragment<i1, [TILE_M, TILE_N]> : !pgpu.fragment<f32, [TILE_M, TILE_N]>, !pgpu.view<f32, [S, D], out>[!pgpu.fragment<index, [TILE_M, TILE_N]>, !pgpu.fragment<index, [TILE_M, TILE_N]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the scores are not contracted again in the key loop (a running maximum).
// CHECK-LABEL: pgpu.kernel @no_chain
// CHECK-NOT: covers
// CHECK-NOT: pgpu.if
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @no_chain(%q: !pgpu.view<bf16, [S, D], in>, %k: !pgpu.view<bf16, [S, D], in>,
                     %v: !pgpu.view<bf16, [S, D], in>, %o: !pgpu.view<f32, [S, D], out>)
      attributes {params = [#pgpu.param<"TILE_M", [64, 128], 64>, #pgpu.param<"TILE_R", [64, 128], 64>,
                            #pgpu.param<"TILE_N", [64, 128], 64>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>]} {
    %S = pgpu.extent %q[0] : !pgpu.view<bf16, [S, D], in>
    %D = pgpu.extent %q[1] : !pgpu.view<bf16, [S, D], in>
    %tm = pgpu.param "TILE_M" : index
    %blocks = pgpu.ceil_div %S, %tm : index
    pgpu.program_space (%blocks) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %zb = arith.constant 0.0 : bf16
      %m0 = pgpu.binary mul %p, %tm : index
      %rows = pgpu.iota %m0 : !pgpu.fragment<index, [TILE_M]>
      %sm = pgpu.splat %S : index -> !pgpu.fragment<index, [TILE_M]>
      %rok = pgpu.cmp lt %rows, %sm : !pgpu.fragment<index, [TILE_M]>
      %cols = pgpu.iota %c0 : !pgpu.fragment<index, [TILE_N]>
      %sn = pgpu.splat %D : index -> !pgpu.fragment<index, [TILE_N]>
      %cok = pgpu.cmp lt %cols, %sn : !pgpu.fragment<index, [TILE_N]>
      %acc0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [TILE_M, TILE_R]>
      %tr = pgpu.param "TILE_R" : index
      %out = pgpu.for %c0 to %S step %tr iter_args(%acc0 : !pgpu.fragment<f32, [TILE_M, TILE_R]>) -> !pgpu.fragment<f32, [TILE_M, TILE_R]> {
      ^bb0(%r: index, %acc: !pgpu.fragment<f32, [TILE_M, TILE_R]>):
        %keys = pgpu.iota %r : !pgpu.fragment<index, [TILE_R]>
        %sr = pgpu.splat %S : index -> !pgpu.fragment<index, [TILE_R]>
        %kok = pgpu.cmp lt %keys, %sr : !pgpu.fragment<index, [TILE_R]>
        %s0 = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [TILE_M, TILE_R]>
        %tk = pgpu.param "TILE_K" : index
        %scores = pgpu.for %c0 to %D step %tk iter_args(%s0 : !pgpu.fragment<f32, [TILE_M, TILE_R]>) -> !pgpu.fragment<f32, [TILE_M, TILE_R]> {
        ^bb0(%kk: index, %s: !pgpu.fragment<f32, [TILE_M, TILE_R]>):
          %ks = pgpu.iota %kk : !pgpu.fragment<index, [TILE_K]>
          %sk = pgpu.splat %D : index -> !pgpu.fragment<index, [TILE_K]>
          %ok = pgpu.cmp lt %ks, %sk : !pgpu.fragment<index, [TILE_K]>
          %qr = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [TILE_M]> -> !pgpu.fragment<index, [TILE_M, TILE_K]>
          %qc = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_M, TILE_K]>
          %qv1 = pgpu.broadcast %rok dims [0] : !pgpu.fragment<i1, [TILE_M]> -> !pgpu.fragment<i1, [TILE_M, TILE_K]>
          %qv2 = pgpu.broadcast %ok dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_M, TILE_K]>
          %qv = pgpu.binary and %qv1, %qv2 : !pgpu.fragment<i1, [TILE_M, TILE_K]>
          %qt = pgpu.load %q[%qr, %qc] valid %qv : !pgpu.fragment<i1, [TILE_M, TILE_K]> fill %zb : bf16 : !pgpu.view<bf16, [S, D], in>[!pgpu.fragment<index, [TILE_M, TILE_K]>, !pgpu.fragment<index, [TILE_M, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_M, TILE_K]>
          %kr = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_K, TILE_R]>
          %kc = pgpu.broadcast %keys dims [1] : !pgpu.fragment<index, [TILE_R]> -> !pgpu.fragment<index, [TILE_K, TILE_R]>
          %kv1 = pgpu.broadcast %ok dims [0] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_K, TILE_R]>
          %kv2 = pgpu.broadcast %kok dims [1] : !pgpu.fragment<i1, [TILE_R]> -> !pgpu.fragment<i1, [TILE_K, TILE_R]>
          %kv = pgpu.binary and %kv1, %kv2 : !pgpu.fragment<i1, [TILE_K, TILE_R]>
          %kt = pgpu.load %k[%kc, %kr] valid %kv : !pgpu.fragment<i1, [TILE_K, TILE_R]> fill %zb : bf16 : !pgpu.view<bf16, [S, D], in>[!pgpu.fragment<index, [TILE_K, TILE_R]>, !pgpu.fragment<index, [TILE_K, TILE_R]>] -> !pgpu.fragment<bf16, [TILE_K, TILE_R]>
          %next = pgpu.contract %qt, %kt, %s reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_M, TILE_K]>, !pgpu.fragment<bf16, [TILE_K, TILE_R]>, !pgpu.fragment<f32, [TILE_M, TILE_R]> -> !pgpu.fragment<f32, [TILE_M, TILE_R]>
          pgpu.yield %next : !pgpu.fragment<f32, [TILE_M, TILE_R]>
        }
        %acc1 = pgpu.binary max %acc, %scores : !pgpu.fragment<f32, [TILE_M, TILE_R]>
        pgpu.yield %acc1 : !pgpu.fragment<f32, [TILE_M, TILE_R]>
      }
      %kc0 = pgpu.iota %c0 : !pgpu.fragment<index, [TILE_R]>
      %or = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [TILE_M]> -> !pgpu.fragment<index, [TILE_M, TILE_R]>
      %oc = pgpu.broadcast %kc0 dims [1] : !pgpu.fragment<index, [TILE_R]> -> !pgpu.fragment<index, [TILE_M, TILE_R]>
      %ov = pgpu.broadcast %rok dims [0] : !pgpu.fragment<i1, [TILE_M]> -> !pgpu.fragment<i1, [TILE_M, TILE_R]>
      pgpu.store %out, %o[%or, %oc] valid %ov : !pgpu.fragment<i1, [TILE_M, TILE_R]> : !pgpu.fragment<f32, [TILE_M, TILE_R]>, !pgpu.view<f32, [S, D], out>[!pgpu.fragment<index, [TILE_M, TILE_R]>, !pgpu.fragment<index, [TILE_M, TILE_R]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: The r loop in a branch that yields its results (corpus 272's two-layer MLP after pgpu-stage-operands:
// COM: the recomputing walk kept beside the staged GEMM): the guard yields what each form computed and
// COM: the branch yields the guard's results. The staged branch's loop (no inner K loop) and the first
// COM: phase's (its product stored, not contracted again) stay as they are.
// CHECK-LABEL: pgpu.kernel @mlp_gelu_two_layer
// CHECK: pgpu.buffer_store
// CHECK: %[[ACC:.*]] = pgpu.if %{{.*}} -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
// CHECK: pgpu.buffer_load
// CHECK: } else {
// CHECK: %[[GUARD:.*]] = pgpu.if %{{.*}} -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
// CHECK: pgpu.load %x
// CHECK: %[[ONCE:.*]] = pgpu.for
// CHECK-NOT: pgpu.load %x
// CHECK: pgpu.unary erf
// CHECK: pgpu.yield %[[ONCE]]
// CHECK: } else {
// CHECK: %[[NESTED:.*]] = pgpu.for
// CHECK: pgpu.for
// CHECK: pgpu.load %x
// CHECK: pgpu.yield %[[NESTED]]
// CHECK: }
// CHECK-NEXT: pgpu.yield %[[GUARD]]
// CHECK: pgpu.binary add %{{.*}}, %[[ACC]]
module attributes {kir.compile_options = #kir.compile_options<>, pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448, multiprocessors = 132>} {
  pgpu.kernel @mlp_gelu_two_layer(%x: !pgpu.view<bf16, [M, D], in>, %w1: !pgpu.view<bf16, [D, F], in>, %b1: !pgpu.view<f32, [F], in>, %w2: !pgpu.view<bf16, [F, D], in>, %b2: !pgpu.view<f32, [D], in>, %y: !pgpu.view<bf16, [M, D], out>, %arg0: !pgpu.buffer<bf16, [STAGED_ROWS, STAGED_COLS], workspace> {pgpu.private = "workspace"}, %arg1: !pgpu.buffer<i32, [2], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"}) attributes {params = [#pgpu.param<"TILE_0", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_1", [16, 32, 64, 128, 256], 128>, #pgpu.param<"TILE_2", [16, 32, 64, 128], 64>, #pgpu.param<"TILE_K", [16, 32, 64, 128], 64>, #pgpu.param<"GROUP_0", [1, 2, 4, 8, 16], 8>, #pgpu.param<"PERSIST", [1, 2, 4], 1>, #pgpu.param<"OPERAND_PHASES", [1, 2], 2>]} {
    %cst = arith.constant 0.000000e+00 : bf16
    %true = arith.constant true
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %cst_2 = arith.constant 0.707106769 : f32
    %cst_3 = arith.constant 5.000000e-01 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %0 = pgpu.extent %x[0] : !pgpu.view<bf16, [M, D], in>
    %1 = pgpu.extent %x[1] : !pgpu.view<bf16, [M, D], in>
    %2 = pgpu.extent %w1[1] : !pgpu.view<bf16, [D, F], in>
    %3 = pgpu.ceil_div %0, %c1 : index
    %4 = pgpu.binary max %3, %c0 : index
    %5 = pgpu.ceil_div %1, %c1 : index
    %6 = pgpu.binary max %5, %c0 : index
    %7 = pgpu.ceil_div %2, %c1 : index
    %8 = pgpu.binary max %7, %c0 : index
    %9 = pgpu.binary mul %4, %6 : index
    %10 = pgpu.param "TILE_0" : index
    %11 = pgpu.ceil_div %4, %10 : index
    %12 = pgpu.param "TILE_1" : index
    %13 = pgpu.ceil_div %6, %12 : index
    %14 = pgpu.binary mul %11, %13 : index
    %15 = pgpu.param "PERSIST" : index
    %c132 = arith.constant 132 : index
    %16 = pgpu.binary mul %15, %c132 : index
    %17 = pgpu.binary min %14, %16 : index
    %18 = pgpu.binary mul %11, %13 : index
    %c0_4 = arith.constant 0 : index
    %c1_5 = arith.constant 1 : index
    %19 = pgpu.param "TILE_2" : index
    %20 = pgpu.param "TILE_0" : index
    %21 = pgpu.binary max %4, %c0_4 : index
    %22 = pgpu.ceil_div %21, %20 : index
    %23 = pgpu.binary sub %8, %c0 : index
    %24 = pgpu.binary max %23, %c0_4 : index
    %25 = pgpu.ceil_div %24, %19 : index
    %26 = pgpu.binary max %22, %c1_5 : index
    %27 = pgpu.binary div %14, %26 : index
    %c2 = arith.constant 2 : index
    %28 = pgpu.cmp ge %27, %c2 : index
    %c2_6 = arith.constant 2 : index
    %29 = pgpu.param "OPERAND_PHASES" : index
    %30 = pgpu.cmp eq %29, %c2_6 : index
    %31 = pgpu.binary and %30, %28 : i1
    %32 = pgpu.binary sub %6, %c0 : index
    %33 = pgpu.binary max %32, %c0_4 : index
    %34 = pgpu.binary add %c0_4, %33 : index
    %c2_7 = arith.constant 2 : index
    %35 = pgpu.binary mul %c2_7, %34 : index
    %36 = pgpu.binary sub %27, %c1_5 : index
    %37 = pgpu.binary mul %36, %35 : index
    %c128 = arith.constant 128 : index
    %38 = pgpu.binary add %27, %c1_5 : index
    %39 = pgpu.binary mul %38, %c128 : index
    %40 = pgpu.cmp ge %37, %39 : index
    %41 = pgpu.binary and %31, %40 : i1
    %42 = pgpu.binary max %22, %c1_5 : index
    %c264 = arith.constant 264 : index
    %43 = pgpu.ceil_div %c264, %42 : index
    %44 = pgpu.binary min %43, %25 : index
    %45 = pgpu.binary max %44, %c1_5 : index
    %46 = pgpu.binary mul %22, %45 : index
    %47 = pgpu.ceil_div %25, %45 : index
    %48 = pgpu.binary mul %47, %19 : index
    %49 = pgpu.select %41, %4, %c0_4 : i1, index
    pgpu.workspace_extent "STAGED_ROWS" = %49
    %c128_8 = arith.constant 128 : index
    %50 = pgpu.ceil_div %8, %c128_8 : index
    %51 = pgpu.binary mul %50, %c128_8 : index
    pgpu.workspace_extent "STAGED_COLS" = %51
    %52 = pgpu.binary add %46, %17 : index
    %53 = pgpu.select %41, %52, %17 : i1, index
    pgpu.program_space(%53) {
    ^bb0(%arg2: index):
      %true_9 = arith.constant true
      %54 = pgpu.cmp lt %arg2, %46 : index
      %55 = pgpu.binary and %41, %54 : i1
      pgpu.if %55 {
        %56 = pgpu.binary div %arg2, %45 : index
        %57 = pgpu.binary rem %arg2, %45 : index
        %58 = pgpu.binary mul %56, %20 : index
        %59 = pgpu.iota %58 : !pgpu.fragment<index, [TILE_0]>
        %60 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
        %61 = pgpu.cmp lt %59, %60 : !pgpu.fragment<index, [TILE_0]>
        %62 = pgpu.binary mul %57, %48 : index
        %63 = pgpu.binary add %c0, %62 : index
        %64 = pgpu.binary min %63, %8 : index
        %65 = pgpu.binary add %64, %48 : index
        %66 = pgpu.binary min %65, %8 : index
        pgpu.for %64 to %66 step %19 {
        ^bb0(%arg3: index):
          %68 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_2]>
          %69 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_2]>
          %70 = pgpu.cmp lt %68, %69 : !pgpu.fragment<index, [TILE_2]>
          %71 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
          %72 = pgpu.param "TILE_K" : index
          %73 = pgpu.for %c0 to %6 step %72 iter_args(%71 : !pgpu.fragment<f32, [TILE_0, TILE_2]>) -> !pgpu.fragment<f32, [TILE_0, TILE_2]> {
          ^bb0(%arg4: index, %arg5: !pgpu.fragment<f32, [TILE_0, TILE_2]>):
            %99 = pgpu.iota %arg4 : !pgpu.fragment<index, [TILE_K]>
            %100 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_K]>
            %101 = pgpu.cmp lt %99, %100 : !pgpu.fragment<index, [TILE_K]>
            %102 = pgpu.broadcast %59 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %103 = pgpu.broadcast %99 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
            %104 = pgpu.broadcast %61 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %105 = pgpu.broadcast %101 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %106 = pgpu.binary and %104, %105 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
            %107 = pgpu.load %x[%102, %103] valid %106 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [M, D], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_0, TILE_K]>
            %108 = pgpu.broadcast %99 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_2, TILE_K]>
            %109 = pgpu.broadcast %68 dims [0] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_2, TILE_K]>
            %110 = pgpu.broadcast %70 dims [0] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_2, TILE_K]>
            %111 = pgpu.broadcast %101 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_2, TILE_K]>
            %112 = pgpu.binary and %110, %111 : !pgpu.fragment<i1, [TILE_2, TILE_K]>
            %113 = pgpu.load %w1[%108, %109] valid %112 : !pgpu.fragment<i1, [TILE_2, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [D, F], in>[!pgpu.fragment<index, [TILE_2, TILE_K]>, !pgpu.fragment<index, [TILE_2, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_2, TILE_K]>
            %114 = pgpu.transpose %113 [1, 0] : !pgpu.fragment<bf16, [TILE_2, TILE_K]> -> !pgpu.fragment<bf16, [TILE_K, TILE_2]>
            %115 = pgpu.contract %107, %114, %arg5 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_0, TILE_K]>, !pgpu.fragment<bf16, [TILE_K, TILE_2]>, !pgpu.fragment<f32, [TILE_0, TILE_2]> -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
            pgpu.yield %115 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
          }
          %74 = pgpu.load %b1[%68] valid %70 : !pgpu.fragment<i1, [TILE_2]> fill %cst_0 : f32 : !pgpu.view<f32, [F], in>[!pgpu.fragment<index, [TILE_2]>] -> !pgpu.fragment<f32, [TILE_2]>
          %75 = pgpu.broadcast %74 dims [1] : !pgpu.fragment<f32, [TILE_2]> -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
          %76 = pgpu.binary add %75, %73 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
          %77 = pgpu.splat %cst_3 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
          %78 = pgpu.binary mul %76, %77 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
          %79 = pgpu.splat %cst_2 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
          %80 = pgpu.binary mul %76, %79 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
          %81 = pgpu.unary erf %80 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
          %82 = pgpu.splat %cst_1 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
          %83 = pgpu.binary add %82, %81 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
          %84 = pgpu.binary mul %78, %83 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
          %85 = pgpu.cast %84 : !pgpu.fragment<f32, [TILE_0, TILE_2]> to !pgpu.fragment<bf16, [TILE_0, TILE_2]>
          %cst_10 = arith.constant 0.000000e+00 : bf16
          %86 = pgpu.splat %cst_10 : bf16 -> !pgpu.fragment<bf16, [TILE_0, TILE_2]>
          %87 = pgpu.broadcast %70 dims [1] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_0, TILE_2]>
          %88 = pgpu.select %87, %85, %86 : !pgpu.fragment<i1, [TILE_0, TILE_2]>, !pgpu.fragment<bf16, [TILE_0, TILE_2]>
          %89 = pgpu.iota %arg3 : !pgpu.fragment<index, [TILE_2]>
          %90 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
          %91 = pgpu.cmp lt %59, %90 : !pgpu.fragment<index, [TILE_0]>
          %92 = pgpu.broadcast %59 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_2]>
          %93 = pgpu.broadcast %89 dims [1] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_0, TILE_2]>
          %94 = pgpu.broadcast %91 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_2]>
          %95 = pgpu.splat %51 : index -> !pgpu.fragment<index, [TILE_2]>
          %96 = pgpu.cmp lt %89, %95 : !pgpu.fragment<index, [TILE_2]>
          %97 = pgpu.broadcast %96 dims [1] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_0, TILE_2]>
          %98 = pgpu.binary and %94, %97 : !pgpu.fragment<i1, [TILE_0, TILE_2]>
          pgpu.buffer_store %88, %arg0[%92, %93] valid %98 : !pgpu.fragment<i1, [TILE_0, TILE_2]> : !pgpu.fragment<bf16, [TILE_0, TILE_2]>, !pgpu.buffer<bf16, [STAGED_ROWS, STAGED_COLS], workspace>[!pgpu.fragment<index, [TILE_0, TILE_2]>, !pgpu.fragment<index, [TILE_0, TILE_2]>]
          pgpu.yield
        }
        %c1_i32 = arith.constant 1 : i32
        %67 = pgpu.atomic_rmw add %c1_i32, %arg1[%c0_4] valid %true_9 : i1 order release sharing invocation : i32, !pgpu.buffer<i32, [2], workspace>[index] -> i32
        pgpu.yield
      } else {
        pgpu.if %41 {
          %58 = pgpu.cast %46 : index to i32
          pgpu.while {
            %63 = pgpu.atomic_load %arg1[%c0_4] valid %true_9 : i1 order acquire sharing invocation : !pgpu.buffer<i32, [2], workspace>[index] -> i32
            %64 = pgpu.cmp lt %63, %58 : i32
            pgpu.condition %64
          } do {
            pgpu.yield
          }
          %c1_i32 = arith.constant 1 : i32
          %59 = pgpu.atomic_rmw add %c1_i32, %arg1[%c1_5] valid %true_9 : i1 order acq_rel sharing invocation : i32, !pgpu.buffer<i32, [2], workspace>[index] -> i32
          %60 = pgpu.binary sub %17, %c1_5 : index
          %61 = pgpu.cast %60 : index to i32
          %62 = pgpu.cmp eq %59, %61 : i32
          pgpu.if %62 {
            %c0_i32 = arith.constant 0 : i32
            %c0_10 = arith.constant 0 : index
            pgpu.atomic_store %c0_i32, %arg1[%c0_10] valid %true_9 : i1 order release sharing invocation : i32, !pgpu.buffer<i32, [2], workspace>[index]
            %c1_11 = arith.constant 1 : index
            pgpu.atomic_store %c0_i32, %arg1[%c1_11] valid %true_9 : i1 order release sharing invocation : i32, !pgpu.buffer<i32, [2], workspace>[index]
            pgpu.yield
          }
          pgpu.yield
        }
        %56 = pgpu.select %41, %46, %c0_4 : i1, index
        %57 = pgpu.binary sub %arg2, %56 : index
        pgpu.for %57 to %14 step %17 {
        ^bb0(%arg3: index):
          pgpu.execution_group %arg3 extents(%18) segment 0 roles ["grouped tiles"] {
          ^bb0(%arg4: index):
            %58 = pgpu.param "GROUP_0" : index
            %59 = pgpu.binary mul %58, %13 : index
            %60 = pgpu.binary div %arg4, %59 : index
            %61 = pgpu.binary mul %60, %58 : index
            %c1_10 = arith.constant 1 : index
            %62 = pgpu.binary sub %11, %61 : index
            %63 = pgpu.binary min %62, %58 : index
            %64 = pgpu.binary max %63, %c1_10 : index
            %65 = pgpu.binary mul %60, %59 : index
            %66 = pgpu.binary sub %arg4, %65 : index
            %67 = pgpu.binary rem %66, %64 : index
            %68 = pgpu.binary add %61, %67 : index
            %69 = pgpu.binary div %66, %64 : index
            %70 = pgpu.param "TILE_0" : index
            %71 = pgpu.binary mul %68, %70 : index
            %72 = pgpu.iota %71 : !pgpu.fragment<index, [TILE_0]>
            %73 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
            %74 = pgpu.cmp lt %72, %73 : !pgpu.fragment<index, [TILE_0]>
            %75 = pgpu.param "TILE_1" : index
            %76 = pgpu.binary mul %69, %75 : index
            %77 = pgpu.iota %76 : !pgpu.fragment<index, [TILE_1]>
            %78 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_1]>
            %79 = pgpu.cmp lt %77, %78 : !pgpu.fragment<index, [TILE_1]>
            %80 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            %81 = pgpu.param "TILE_2" : index
            %82 = pgpu.if %41 -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
              %92 = pgpu.for %c0 to %8 step %81 iter_args(%80 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
              ^bb0(%arg5: index, %arg6: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
                %93 = pgpu.iota %arg5 : !pgpu.fragment<index, [TILE_2]>
                %94 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_2]>
                %95 = pgpu.cmp lt %93, %94 : !pgpu.fragment<index, [TILE_2]>
                %96 = pgpu.broadcast %93 dims [1] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
                %97 = pgpu.broadcast %77 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
                %98 = pgpu.broadcast %79 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
                %99 = pgpu.broadcast %95 dims [1] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
                %100 = pgpu.binary and %98, %99 : !pgpu.fragment<i1, [TILE_1, TILE_2]>
                %101 = pgpu.load %w2[%96, %97] valid %100 : !pgpu.fragment<i1, [TILE_1, TILE_2]> fill %cst : bf16 : !pgpu.view<bf16, [F, D], in>[!pgpu.fragment<index, [TILE_1, TILE_2]>, !pgpu.fragment<index, [TILE_1, TILE_2]>] -> !pgpu.fragment<bf16, [TILE_1, TILE_2]>
                %102 = pgpu.transpose %101 [1, 0] : !pgpu.fragment<bf16, [TILE_1, TILE_2]> -> !pgpu.fragment<bf16, [TILE_2, TILE_1]>
                %103 = pgpu.iota %arg5 : !pgpu.fragment<index, [TILE_2]>
                %104 = pgpu.splat %4 : index -> !pgpu.fragment<index, [TILE_0]>
                %105 = pgpu.cmp lt %72, %104 : !pgpu.fragment<index, [TILE_0]>
                %106 = pgpu.broadcast %72 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_2]>
                %107 = pgpu.broadcast %103 dims [1] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_0, TILE_2]>
                %108 = pgpu.broadcast %105 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_2]>
                %cst_11 = arith.constant 0.000000e+00 : bf16
                %109 = pgpu.buffer_load %arg0[%106, %107] valid %108 : !pgpu.fragment<i1, [TILE_0, TILE_2]> fill %cst_11 : bf16 : !pgpu.buffer<bf16, [STAGED_ROWS, STAGED_COLS], workspace>[!pgpu.fragment<index, [TILE_0, TILE_2]>, !pgpu.fragment<index, [TILE_0, TILE_2]>] -> !pgpu.fragment<bf16, [TILE_0, TILE_2]>
                %110 = pgpu.contract %109, %102, %arg6 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_0, TILE_2]>, !pgpu.fragment<bf16, [TILE_2, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
                pgpu.yield %110 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
              }
              pgpu.yield %92 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
            } else {
              %92 = pgpu.for %c0 to %8 step %81 iter_args(%80 : !pgpu.fragment<f32, [TILE_0, TILE_1]>) -> !pgpu.fragment<f32, [TILE_0, TILE_1]> {
              ^bb0(%arg5: index, %arg6: !pgpu.fragment<f32, [TILE_0, TILE_1]>):
                %93 = pgpu.iota %arg5 : !pgpu.fragment<index, [TILE_2]>
                %94 = pgpu.splat %8 : index -> !pgpu.fragment<index, [TILE_2]>
                %95 = pgpu.cmp lt %93, %94 : !pgpu.fragment<index, [TILE_2]>
                %96 = pgpu.splat %cst_0 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
                %97 = pgpu.param "TILE_K" : index
                %98 = pgpu.for %c0 to %6 step %97 iter_args(%96 : !pgpu.fragment<f32, [TILE_0, TILE_2]>) -> !pgpu.fragment<f32, [TILE_0, TILE_2]> {
                ^bb0(%arg7: index, %arg8: !pgpu.fragment<f32, [TILE_0, TILE_2]>):
                  %122 = pgpu.iota %arg7 : !pgpu.fragment<index, [TILE_K]>
                  %123 = pgpu.splat %6 : index -> !pgpu.fragment<index, [TILE_K]>
                  %124 = pgpu.cmp lt %122, %123 : !pgpu.fragment<index, [TILE_K]>
                  %125 = pgpu.broadcast %72 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
                  %126 = pgpu.broadcast %122 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_0, TILE_K]>
                  %127 = pgpu.broadcast %74 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
                  %128 = pgpu.broadcast %124 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_0, TILE_K]>
                  %129 = pgpu.binary and %127, %128 : !pgpu.fragment<i1, [TILE_0, TILE_K]>
                  %130 = pgpu.load %x[%125, %126] valid %129 : !pgpu.fragment<i1, [TILE_0, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [M, D], in>[!pgpu.fragment<index, [TILE_0, TILE_K]>, !pgpu.fragment<index, [TILE_0, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_0, TILE_K]>
                  %131 = pgpu.broadcast %122 dims [1] : !pgpu.fragment<index, [TILE_K]> -> !pgpu.fragment<index, [TILE_2, TILE_K]>
                  %132 = pgpu.broadcast %93 dims [0] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_2, TILE_K]>
                  %133 = pgpu.broadcast %95 dims [0] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_2, TILE_K]>
                  %134 = pgpu.broadcast %124 dims [1] : !pgpu.fragment<i1, [TILE_K]> -> !pgpu.fragment<i1, [TILE_2, TILE_K]>
                  %135 = pgpu.binary and %133, %134 : !pgpu.fragment<i1, [TILE_2, TILE_K]>
                  %136 = pgpu.load %w1[%131, %132] valid %135 : !pgpu.fragment<i1, [TILE_2, TILE_K]> fill %cst : bf16 : !pgpu.view<bf16, [D, F], in>[!pgpu.fragment<index, [TILE_2, TILE_K]>, !pgpu.fragment<index, [TILE_2, TILE_K]>] -> !pgpu.fragment<bf16, [TILE_2, TILE_K]>
                  %137 = pgpu.transpose %136 [1, 0] : !pgpu.fragment<bf16, [TILE_2, TILE_K]> -> !pgpu.fragment<bf16, [TILE_K, TILE_2]>
                  %138 = pgpu.contract %130, %137, %arg8 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_0, TILE_K]>, !pgpu.fragment<bf16, [TILE_K, TILE_2]>, !pgpu.fragment<f32, [TILE_0, TILE_2]> -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
                  pgpu.yield %138 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
                }
                %99 = pgpu.load %b1[%93] valid %95 : !pgpu.fragment<i1, [TILE_2]> fill %cst_0 : f32 : !pgpu.view<f32, [F], in>[!pgpu.fragment<index, [TILE_2]>] -> !pgpu.fragment<f32, [TILE_2]>
                %100 = pgpu.broadcast %99 dims [1] : !pgpu.fragment<f32, [TILE_2]> -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
                %101 = pgpu.binary add %100, %98 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
                %102 = pgpu.splat %cst_3 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
                %103 = pgpu.binary mul %101, %102 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
                %104 = pgpu.splat %cst_2 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
                %105 = pgpu.binary mul %101, %104 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
                %106 = pgpu.unary erf %105 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
                %107 = pgpu.splat %cst_1 : f32 -> !pgpu.fragment<f32, [TILE_0, TILE_2]>
                %108 = pgpu.binary add %107, %106 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
                %109 = pgpu.binary mul %103, %108 : !pgpu.fragment<f32, [TILE_0, TILE_2]>
                %110 = pgpu.cast %109 : !pgpu.fragment<f32, [TILE_0, TILE_2]> to !pgpu.fragment<bf16, [TILE_0, TILE_2]>
                %111 = pgpu.broadcast %93 dims [1] : !pgpu.fragment<index, [TILE_2]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
                %112 = pgpu.broadcast %77 dims [0] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_1, TILE_2]>
                %113 = pgpu.broadcast %79 dims [0] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
                %114 = pgpu.broadcast %95 dims [1] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_1, TILE_2]>
                %115 = pgpu.binary and %113, %114 : !pgpu.fragment<i1, [TILE_1, TILE_2]>
                %116 = pgpu.load %w2[%111, %112] valid %115 : !pgpu.fragment<i1, [TILE_1, TILE_2]> fill %cst : bf16 : !pgpu.view<bf16, [F, D], in>[!pgpu.fragment<index, [TILE_1, TILE_2]>, !pgpu.fragment<index, [TILE_1, TILE_2]>] -> !pgpu.fragment<bf16, [TILE_1, TILE_2]>
                %cst_11 = arith.constant 0.000000e+00 : bf16
                %117 = pgpu.splat %cst_11 : bf16 -> !pgpu.fragment<bf16, [TILE_0, TILE_2]>
                %118 = pgpu.broadcast %95 dims [1] : !pgpu.fragment<i1, [TILE_2]> -> !pgpu.fragment<i1, [TILE_0, TILE_2]>
                %119 = pgpu.select %118, %110, %117 : !pgpu.fragment<i1, [TILE_0, TILE_2]>, !pgpu.fragment<bf16, [TILE_0, TILE_2]>
                %120 = pgpu.transpose %116 [1, 0] : !pgpu.fragment<bf16, [TILE_1, TILE_2]> -> !pgpu.fragment<bf16, [TILE_2, TILE_1]>
                %121 = pgpu.contract %119, %120, %arg6 reduce([1], [0]) batch([], []) : !pgpu.fragment<bf16, [TILE_0, TILE_2]>, !pgpu.fragment<bf16, [TILE_2, TILE_1]>, !pgpu.fragment<f32, [TILE_0, TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
                pgpu.yield %121 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
              }
              pgpu.yield %92 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
            }
            %83 = pgpu.load %b2[%77] valid %79 : !pgpu.fragment<i1, [TILE_1]> fill %cst_0 : f32 : !pgpu.view<f32, [D], in>[!pgpu.fragment<index, [TILE_1]>] -> !pgpu.fragment<f32, [TILE_1]>
            %84 = pgpu.broadcast %83 dims [1] : !pgpu.fragment<f32, [TILE_1]> -> !pgpu.fragment<f32, [TILE_0, TILE_1]>
            %85 = pgpu.binary add %84, %82 : !pgpu.fragment<f32, [TILE_0, TILE_1]>
            %86 = pgpu.cast %85 : !pgpu.fragment<f32, [TILE_0, TILE_1]> to !pgpu.fragment<bf16, [TILE_0, TILE_1]>
            %87 = pgpu.broadcast %72 dims [0] : !pgpu.fragment<index, [TILE_0]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
            %88 = pgpu.broadcast %77 dims [1] : !pgpu.fragment<index, [TILE_1]> -> !pgpu.fragment<index, [TILE_0, TILE_1]>
            %89 = pgpu.broadcast %74 dims [0] : !pgpu.fragment<i1, [TILE_0]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
            %90 = pgpu.broadcast %79 dims [1] : !pgpu.fragment<i1, [TILE_1]> -> !pgpu.fragment<i1, [TILE_0, TILE_1]>
            %91 = pgpu.binary and %89, %90 : !pgpu.fragment<i1, [TILE_0, TILE_1]>
            pgpu.store %86, %y[%87, %88] valid %91 : !pgpu.fragment<i1, [TILE_0, TILE_1]> : !pgpu.fragment<bf16, [TILE_0, TILE_1]>, !pgpu.view<bf16, [M, D], out>[!pgpu.fragment<index, [TILE_0, TILE_1]>, !pgpu.fragment<index, [TILE_0, TILE_1]>]
            pgpu.yield
          } {roles = ["grouped tiles"], segment = 0 : i64}
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

