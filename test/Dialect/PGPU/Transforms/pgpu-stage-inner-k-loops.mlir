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
