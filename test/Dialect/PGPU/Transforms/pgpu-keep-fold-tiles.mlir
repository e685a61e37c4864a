// RUN: tessel-opt %s -split-input-file -pgpu-keep-fold-tiles | FileCheck %s

// COM: A fold (the row's sum of a tile product over its segments) and the store loop after it, over
// COM: [0, N) by BLOCK_N, each running the product's K loop: a loop before the fold runs the store
// COM: loop's K loop once per segment and stores the tile to workspace [KEEP_PROGRAMS, KEEP_TILES, BM,
// COM: BLOCK_N] at (program, (b - 0) / BLOCK_N); the store loop loads it instead of running its K loop.
// COM: The fold is the first member: the kept loop runs its summarize on the tile it holds and keeps the
// COM: segment's [BM] summary beside the tile; the fold (capturing the buffers, the program and 0) loads
// COM: that summary and combines as before (no pass over the tiles of its own).
// CHECK-LABEL: pgpu.kernel @kept_product
// CHECK-SAME: %[[WS:[a-z0-9]+]]: !pgpu.buffer<f32, [KEEP_PROGRAMS, KEEP_TILES, BM, BLOCK_N], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: %[[SUM:[a-z0-9]+]]: !pgpu.buffer<f32, [KEEP_PROGRAMS, KEEP_TILES, BM], workspace> {pgpu.private = "workspace"}
// CHECK: %[[PROGS:.*]] = pgpu.ceil_div
// CHECK: %[[TILES:.*]] = pgpu.ceil_div
// CHECK: pgpu.workspace_extent "KEEP_PROGRAMS" = %[[PROGS]]
// CHECK: pgpu.workspace_extent "KEEP_TILES" = %[[TILES]]
// CHECK: pgpu.program_space(%[[PROGS]]) {
// CHECK-NEXT: ^bb0(%[[P:.*]]: index):
// CHECK: %[[BN:.*]] = pgpu.param "BLOCK_N" : index
// CHECK: pgpu.for %[[C0:.*]] to %[[N:.*]] step %[[BN]] {
// CHECK-NEXT: ^bb0(%[[B:.*]]: index):
// CHECK: %[[ACC:.*]] = pgpu.for
// CHECK: pgpu.contract
// CHECK: %[[REL:.*]] = pgpu.binary sub %[[B]], %[[C0]] : index
// CHECK: %[[T:.*]] = pgpu.binary div %[[REL]], %[[BN]] : index
// CHECK: pgpu.buffer_store %[[ACC]], %[[WS]][%[[P]], %[[T]], {{.*}}] valid %true
// CHECK: %[[PART:.*]] = pgpu.reduce %[[ACC]] axes [1]
// CHECK: pgpu.buffer_store %[[PART]], %[[SUM]][%[[P]], {{.*}}] valid
// CHECK: pgpu.region_fold %[[C0]] to %[[N]] step %[[BN]] {{.*}} operands({{.*}}, %[[WS]], %[[P]], %[[C0]], %[[SUM]] :
// CHECK-NOT: pgpu.contract
// CHECK-NOT: pgpu.reduce
// CHECK: pgpu.buffer_load {{.*}} -> !pgpu.fragment<f32, [BM]>
// CHECK-NEXT: pgpu.yield
// CHECK: combine
// CHECK: pgpu.for %[[C0]] to %[[N]] step %[[BN]] {
// CHECK-NOT: pgpu.contract
// CHECK: %[[KEPT:.*]] = pgpu.buffer_load %[[WS]]
// CHECK-NOT: pgpu.contract
// CHECK: pgpu.binary div %[[KEPT]]
// CHECK: pgpu.store
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @kept_product(%x: !pgpu.view<f32, [M, K], in>, %w: !pgpu.view<f32, [K, N], in>, %y: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BM", [16], 16>, #pgpu.param<"BLOCK_N", [16, 32], 16>, #pgpu.param<"TK", [16], 16>]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, K], in>
    %K = pgpu.extent %x[1] : !pgpu.view<f32, [M, K], in>
    %N = pgpu.extent %w[1] : !pgpu.view<f32, [K, N], in>
    %bm = pgpu.param "BM" : index
    %progs = pgpu.ceil_div %M, %bm : index
    pgpu.program_space(%progs) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %row0 = pgpu.binary mul %p, %bm : index
      %rows = pgpu.iota %row0 : !pgpu.fragment<index, [BM]>
      %zr = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BM]>
      %bn = pgpu.param "BLOCK_N" : index
      %sum = pgpu.region_fold %c0 to %N step %bn identity(%zr : !pgpu.fragment<f32, [BM]>)
          operands(%x, %w, %rows, %K : !pgpu.view<f32, [M, K], in>, !pgpu.view<f32, [K, N], in>, !pgpu.fragment<index, [BM]>, index)
          -> (!pgpu.fragment<f32, [BM]>)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [M, K], in>, %wv: !pgpu.view<f32, [K, N], in>, %r: !pgpu.fragment<index, [BM]>, %k: index):
        %zero = arith.constant 0.0 : f32
        %cz = arith.constant 0 : index
        %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BLOCK_N]>
        %tk = pgpu.param "TK" : index
        %cols = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %acc = pgpu.for %cz to %k step %tk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BLOCK_N]>) -> !pgpu.fragment<f32, [BM, BLOCK_N]> {
        ^bb0(%kk: index, %a: !pgpu.fragment<f32, [BM, BLOCK_N]>):
          %ks = pgpu.iota %kk : !pgpu.fragment<index, [TK]>
          %t = arith.constant true
          %ri = pgpu.broadcast %r dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, TK]>
          %ki = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [BM, TK]>
          %xt = pgpu.load %xv[%ri, %ki] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [M, K], in>[!pgpu.fragment<index, [BM, TK]>, !pgpu.fragment<index, [BM, TK]>] -> !pgpu.fragment<f32, [BM, TK]>
          %kj = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %cj = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK_N]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %wt = pgpu.load %wv[%kj, %cj] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [K, N], in>[!pgpu.fragment<index, [TK, BLOCK_N]>, !pgpu.fragment<index, [TK, BLOCK_N]>] -> !pgpu.fragment<f32, [TK, BLOCK_N]>
          %n = pgpu.contract %xt, %wt, %a reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [BM, TK]>, !pgpu.fragment<f32, [TK, BLOCK_N]>, !pgpu.fragment<f32, [BM, BLOCK_N]> -> !pgpu.fragment<f32, [BM, BLOCK_N]>
          pgpu.yield %n : !pgpu.fragment<f32, [BM, BLOCK_N]>
        }
        %part = pgpu.reduce %acc axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [BM, BLOCK_N]>) -> (!pgpu.fragment<f32, [BM]>) {
        ^bb0(%l: f32, %q: f32):
          %s = pgpu.binary add %l, %q : f32
          pgpu.yield %s : f32
        }
        pgpu.yield %part : !pgpu.fragment<f32, [BM]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BM]>, %q: !pgpu.fragment<f32, [BM]>):
        %s = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BM]>
        pgpu.yield %s : !pgpu.fragment<f32, [BM]>
      }
      pgpu.for %c0 to %N step %bn {
      ^bb0(%b: index):
        %zero = arith.constant 0.0 : f32
        %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BLOCK_N]>
        %tk = pgpu.param "TK" : index
        %cols = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %acc = pgpu.for %c0 to %K step %tk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BLOCK_N]>) -> !pgpu.fragment<f32, [BM, BLOCK_N]> {
        ^bb0(%kk: index, %a: !pgpu.fragment<f32, [BM, BLOCK_N]>):
          %ks = pgpu.iota %kk : !pgpu.fragment<index, [TK]>
          %t = arith.constant true
          %ri = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, TK]>
          %ki = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [BM, TK]>
          %xt = pgpu.load %x[%ri, %ki] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [M, K], in>[!pgpu.fragment<index, [BM, TK]>, !pgpu.fragment<index, [BM, TK]>] -> !pgpu.fragment<f32, [BM, TK]>
          %kj = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %cj = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK_N]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %wt = pgpu.load %w[%kj, %cj] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [K, N], in>[!pgpu.fragment<index, [TK, BLOCK_N]>, !pgpu.fragment<index, [TK, BLOCK_N]>] -> !pgpu.fragment<f32, [TK, BLOCK_N]>
          %n = pgpu.contract %xt, %wt, %a reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [BM, TK]>, !pgpu.fragment<f32, [TK, BLOCK_N]>, !pgpu.fragment<f32, [BM, BLOCK_N]> -> !pgpu.fragment<f32, [BM, BLOCK_N]>
          pgpu.yield %n : !pgpu.fragment<f32, [BM, BLOCK_N]>
        }
        %sb = pgpu.broadcast %sum dims [0] : !pgpu.fragment<f32, [BM]> -> !pgpu.fragment<f32, [BM, BLOCK_N]>
        %v = pgpu.binary div %acc, %sb : !pgpu.fragment<f32, [BM, BLOCK_N]>
        %t = arith.constant true
        %ri = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BLOCK_N]>
        %cj = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK_N]> -> !pgpu.fragment<index, [BM, BLOCK_N]>
        pgpu.store %v, %y[%ri, %cj] valid %t : i1 : !pgpu.fragment<f32, [BM, BLOCK_N]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BLOCK_N]>, !pgpu.fragment<index, [BM, BLOCK_N]>]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Two folds and the store: the first (the row's sum) is summarized by the kept loop and loads its
// COM: [BM] summaries; must not fire on the second, which reads the first's result (a variance about
// COM: a mean, a sum of exp about a maximum): it still loads the kept tile and reduces it itself.
// CHECK-LABEL: pgpu.kernel @kept_second_fold
// CHECK-SAME: %[[WS:[a-z0-9]+]]: !pgpu.buffer<f32, [KEEP_PROGRAMS, KEEP_TILES, BM, BLOCK_N], workspace>
// CHECK-SAME: %[[SUM:[a-z0-9]+]]: !pgpu.buffer<f32, [KEEP_PROGRAMS, KEEP_TILES, BM], workspace>
// CHECK-NOT: !pgpu.buffer
// CHECK: pgpu.program_space
// CHECK: pgpu.buffer_store %{{.*}}, %[[WS]]
// CHECK: pgpu.buffer_store %{{.*}}, %[[SUM]]
// CHECK: %[[FIRST:.*]] = pgpu.region_fold
// CHECK-NOT: pgpu.reduce
// CHECK: pgpu.buffer_load {{.*}} -> !pgpu.fragment<f32, [BM]>
// CHECK: combine
// CHECK: pgpu.region_fold {{.*}} operands({{.*}}, %[[FIRST]], %[[WS]], {{.*}} :
// CHECK-NOT: pgpu.contract
// CHECK: pgpu.buffer_load {{.*}} -> !pgpu.fragment<f32, [BM, BLOCK_N]>
// CHECK: pgpu.binary div
// CHECK: pgpu.reduce
// CHECK: combine
// CHECK: pgpu.for
// CHECK: pgpu.buffer_load %[[WS]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @kept_second_fold(%x: !pgpu.view<f32, [M, K], in>, %w: !pgpu.view<f32, [K, N], in>, %y: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BM", [16], 16>, #pgpu.param<"BLOCK_N", [16, 32], 16>, #pgpu.param<"TK", [16], 16>]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, K], in>
    %K = pgpu.extent %x[1] : !pgpu.view<f32, [M, K], in>
    %N = pgpu.extent %w[1] : !pgpu.view<f32, [K, N], in>
    %bm = pgpu.param "BM" : index
    %progs = pgpu.ceil_div %M, %bm : index
    pgpu.program_space(%progs) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %row0 = pgpu.binary mul %p, %bm : index
      %rows = pgpu.iota %row0 : !pgpu.fragment<index, [BM]>
      %zr = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BM]>
      %bn = pgpu.param "BLOCK_N" : index
      %sum = pgpu.region_fold %c0 to %N step %bn identity(%zr : !pgpu.fragment<f32, [BM]>)
          operands(%x, %w, %rows, %K : !pgpu.view<f32, [M, K], in>, !pgpu.view<f32, [K, N], in>, !pgpu.fragment<index, [BM]>, index)
          -> (!pgpu.fragment<f32, [BM]>)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [M, K], in>, %wv: !pgpu.view<f32, [K, N], in>, %r: !pgpu.fragment<index, [BM]>, %k: index):
        %zero = arith.constant 0.0 : f32
        %cz = arith.constant 0 : index
        %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BLOCK_N]>
        %tk = pgpu.param "TK" : index
        %cols = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %acc = pgpu.for %cz to %k step %tk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BLOCK_N]>) -> !pgpu.fragment<f32, [BM, BLOCK_N]> {
        ^bb0(%kk: index, %a: !pgpu.fragment<f32, [BM, BLOCK_N]>):
          %ks = pgpu.iota %kk : !pgpu.fragment<index, [TK]>
          %t = arith.constant true
          %ri = pgpu.broadcast %r dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, TK]>
          %ki = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [BM, TK]>
          %xt = pgpu.load %xv[%ri, %ki] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [M, K], in>[!pgpu.fragment<index, [BM, TK]>, !pgpu.fragment<index, [BM, TK]>] -> !pgpu.fragment<f32, [BM, TK]>
          %kj = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %cj = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK_N]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %wt = pgpu.load %wv[%kj, %cj] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [K, N], in>[!pgpu.fragment<index, [TK, BLOCK_N]>, !pgpu.fragment<index, [TK, BLOCK_N]>] -> !pgpu.fragment<f32, [TK, BLOCK_N]>
          %n = pgpu.contract %xt, %wt, %a reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [BM, TK]>, !pgpu.fragment<f32, [TK, BLOCK_N]>, !pgpu.fragment<f32, [BM, BLOCK_N]> -> !pgpu.fragment<f32, [BM, BLOCK_N]>
          pgpu.yield %n : !pgpu.fragment<f32, [BM, BLOCK_N]>
        }
        %part = pgpu.reduce %acc axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [BM, BLOCK_N]>) -> (!pgpu.fragment<f32, [BM]>) {
        ^bb0(%l: f32, %q: f32):
          %s = pgpu.binary add %l, %q : f32
          pgpu.yield %s : f32
        }
        pgpu.yield %part : !pgpu.fragment<f32, [BM]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BM]>, %q: !pgpu.fragment<f32, [BM]>):
        %s = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BM]>
        pgpu.yield %s : !pgpu.fragment<f32, [BM]>
      }
      %sq = pgpu.region_fold %c0 to %N step %bn identity(%zr : !pgpu.fragment<f32, [BM]>)
          operands(%x, %w, %rows, %K, %sum : !pgpu.view<f32, [M, K], in>, !pgpu.view<f32, [K, N], in>, !pgpu.fragment<index, [BM]>, index, !pgpu.fragment<f32, [BM]>)
          -> (!pgpu.fragment<f32, [BM]>)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [M, K], in>, %wv: !pgpu.view<f32, [K, N], in>, %r: !pgpu.fragment<index, [BM]>, %k: index, %tot: !pgpu.fragment<f32, [BM]>):
        %zero = arith.constant 0.0 : f32
        %cz = arith.constant 0 : index
        %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BLOCK_N]>
        %tk = pgpu.param "TK" : index
        %cols = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %acc = pgpu.for %cz to %k step %tk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BLOCK_N]>) -> !pgpu.fragment<f32, [BM, BLOCK_N]> {
        ^bb0(%kk: index, %a: !pgpu.fragment<f32, [BM, BLOCK_N]>):
          %ks = pgpu.iota %kk : !pgpu.fragment<index, [TK]>
          %t = arith.constant true
          %ri = pgpu.broadcast %r dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, TK]>
          %ki = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [BM, TK]>
          %xt = pgpu.load %xv[%ri, %ki] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [M, K], in>[!pgpu.fragment<index, [BM, TK]>, !pgpu.fragment<index, [BM, TK]>] -> !pgpu.fragment<f32, [BM, TK]>
          %kj = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %cj = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK_N]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %wt = pgpu.load %wv[%kj, %cj] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [K, N], in>[!pgpu.fragment<index, [TK, BLOCK_N]>, !pgpu.fragment<index, [TK, BLOCK_N]>] -> !pgpu.fragment<f32, [TK, BLOCK_N]>
          %n = pgpu.contract %xt, %wt, %a reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [BM, TK]>, !pgpu.fragment<f32, [TK, BLOCK_N]>, !pgpu.fragment<f32, [BM, BLOCK_N]> -> !pgpu.fragment<f32, [BM, BLOCK_N]>
          pgpu.yield %n : !pgpu.fragment<f32, [BM, BLOCK_N]>
        }
        %tb = pgpu.broadcast %tot dims [0] : !pgpu.fragment<f32, [BM]> -> !pgpu.fragment<f32, [BM, BLOCK_N]>
        %scaled = pgpu.binary div %acc, %tb : !pgpu.fragment<f32, [BM, BLOCK_N]>
        %part = pgpu.reduce %scaled axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [BM, BLOCK_N]>) -> (!pgpu.fragment<f32, [BM]>) {
        ^bb0(%l: f32, %q: f32):
          %s = pgpu.binary add %l, %q : f32
          pgpu.yield %s : f32
        }
        pgpu.yield %part : !pgpu.fragment<f32, [BM]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BM]>, %q: !pgpu.fragment<f32, [BM]>):
        %s = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BM]>
        pgpu.yield %s : !pgpu.fragment<f32, [BM]>
      }
      pgpu.for %c0 to %N step %bn {
      ^bb0(%b: index):
        %zero = arith.constant 0.0 : f32
        %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BLOCK_N]>
        %tk = pgpu.param "TK" : index
        %cols = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %acc = pgpu.for %c0 to %K step %tk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BLOCK_N]>) -> !pgpu.fragment<f32, [BM, BLOCK_N]> {
        ^bb0(%kk: index, %a: !pgpu.fragment<f32, [BM, BLOCK_N]>):
          %ks = pgpu.iota %kk : !pgpu.fragment<index, [TK]>
          %t = arith.constant true
          %ri = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, TK]>
          %ki = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [BM, TK]>
          %xt = pgpu.load %x[%ri, %ki] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [M, K], in>[!pgpu.fragment<index, [BM, TK]>, !pgpu.fragment<index, [BM, TK]>] -> !pgpu.fragment<f32, [BM, TK]>
          %kj = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %cj = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK_N]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %wt = pgpu.load %w[%kj, %cj] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [K, N], in>[!pgpu.fragment<index, [TK, BLOCK_N]>, !pgpu.fragment<index, [TK, BLOCK_N]>] -> !pgpu.fragment<f32, [TK, BLOCK_N]>
          %n = pgpu.contract %xt, %wt, %a reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [BM, TK]>, !pgpu.fragment<f32, [TK, BLOCK_N]>, !pgpu.fragment<f32, [BM, BLOCK_N]> -> !pgpu.fragment<f32, [BM, BLOCK_N]>
          pgpu.yield %n : !pgpu.fragment<f32, [BM, BLOCK_N]>
        }
        %sb = pgpu.broadcast %sq dims [0] : !pgpu.fragment<f32, [BM]> -> !pgpu.fragment<f32, [BM, BLOCK_N]>
        %v = pgpu.binary div %acc, %sb : !pgpu.fragment<f32, [BM, BLOCK_N]>
        %t = arith.constant true
        %ri = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BLOCK_N]>
        %cj = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK_N]> -> !pgpu.fragment<index, [BM, BLOCK_N]>
        pgpu.store %v, %y[%ri, %cj] valid %t : i1 : !pgpu.fragment<f32, [BM, BLOCK_N]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BLOCK_N]>, !pgpu.fragment<index, [BM, BLOCK_N]>]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}


// -----

// COM: Must not fire: the fold's K loop walks another range (M, not K) than the store loop's: its
// COM: product is not the stored row's, so each keeps its own K loop and nothing is kept.
// CHECK-LABEL: pgpu.kernel @other_product
// CHECK-NOT: KEEP_TILES
// CHECK-NOT: pgpu.buffer_store
// CHECK: pgpu.region_fold
// CHECK: pgpu.contract
// CHECK: pgpu.for
// CHECK: pgpu.contract
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @other_product(%x: !pgpu.view<f32, [M, K], in>, %w: !pgpu.view<f32, [K, N], in>, %y: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BM", [16], 16>, #pgpu.param<"BLOCK_N", [16, 32], 16>, #pgpu.param<"TK", [16], 16>]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, K], in>
    %K = pgpu.extent %x[1] : !pgpu.view<f32, [M, K], in>
    %N = pgpu.extent %w[1] : !pgpu.view<f32, [K, N], in>
    %bm = pgpu.param "BM" : index
    %progs = pgpu.ceil_div %M, %bm : index
    pgpu.program_space(%progs) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %row0 = pgpu.binary mul %p, %bm : index
      %rows = pgpu.iota %row0 : !pgpu.fragment<index, [BM]>
      %zr = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BM]>
      %bn = pgpu.param "BLOCK_N" : index
      %sum = pgpu.region_fold %c0 to %N step %bn identity(%zr : !pgpu.fragment<f32, [BM]>)
          operands(%x, %w, %rows, %M : !pgpu.view<f32, [M, K], in>, !pgpu.view<f32, [K, N], in>, !pgpu.fragment<index, [BM]>, index)
          -> (!pgpu.fragment<f32, [BM]>)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [M, K], in>, %wv: !pgpu.view<f32, [K, N], in>, %r: !pgpu.fragment<index, [BM]>, %k: index):
        %zero = arith.constant 0.0 : f32
        %cz = arith.constant 0 : index
        %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BLOCK_N]>
        %tk = pgpu.param "TK" : index
        %cols = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %acc = pgpu.for %cz to %k step %tk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BLOCK_N]>) -> !pgpu.fragment<f32, [BM, BLOCK_N]> {
        ^bb0(%kk: index, %a: !pgpu.fragment<f32, [BM, BLOCK_N]>):
          %ks = pgpu.iota %kk : !pgpu.fragment<index, [TK]>
          %t = arith.constant true
          %ri = pgpu.broadcast %r dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, TK]>
          %ki = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [BM, TK]>
          %xt = pgpu.load %xv[%ri, %ki] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [M, K], in>[!pgpu.fragment<index, [BM, TK]>, !pgpu.fragment<index, [BM, TK]>] -> !pgpu.fragment<f32, [BM, TK]>
          %kj = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %cj = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK_N]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %wt = pgpu.load %wv[%kj, %cj] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [K, N], in>[!pgpu.fragment<index, [TK, BLOCK_N]>, !pgpu.fragment<index, [TK, BLOCK_N]>] -> !pgpu.fragment<f32, [TK, BLOCK_N]>
          %n = pgpu.contract %xt, %wt, %a reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [BM, TK]>, !pgpu.fragment<f32, [TK, BLOCK_N]>, !pgpu.fragment<f32, [BM, BLOCK_N]> -> !pgpu.fragment<f32, [BM, BLOCK_N]>
          pgpu.yield %n : !pgpu.fragment<f32, [BM, BLOCK_N]>
        }
        %part = pgpu.reduce %acc axes [1] identity(%zero : f32) : (!pgpu.fragment<f32, [BM, BLOCK_N]>) -> (!pgpu.fragment<f32, [BM]>) {
        ^bb0(%l: f32, %q: f32):
          %s = pgpu.binary add %l, %q : f32
          pgpu.yield %s : f32
        }
        pgpu.yield %part : !pgpu.fragment<f32, [BM]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BM]>, %q: !pgpu.fragment<f32, [BM]>):
        %s = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BM]>
        pgpu.yield %s : !pgpu.fragment<f32, [BM]>
      }
      pgpu.for %c0 to %N step %bn {
      ^bb0(%b: index):
        %zero = arith.constant 0.0 : f32
        %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BLOCK_N]>
        %tk = pgpu.param "TK" : index
        %cols = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %acc = pgpu.for %c0 to %K step %tk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BLOCK_N]>) -> !pgpu.fragment<f32, [BM, BLOCK_N]> {
        ^bb0(%kk: index, %a: !pgpu.fragment<f32, [BM, BLOCK_N]>):
          %ks = pgpu.iota %kk : !pgpu.fragment<index, [TK]>
          %t = arith.constant true
          %ri = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, TK]>
          %ki = pgpu.broadcast %ks dims [1] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [BM, TK]>
          %xt = pgpu.load %x[%ri, %ki] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [M, K], in>[!pgpu.fragment<index, [BM, TK]>, !pgpu.fragment<index, [BM, TK]>] -> !pgpu.fragment<f32, [BM, TK]>
          %kj = pgpu.broadcast %ks dims [0] : !pgpu.fragment<index, [TK]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %cj = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK_N]> -> !pgpu.fragment<index, [TK, BLOCK_N]>
          %wt = pgpu.load %w[%kj, %cj] valid %t : i1 fill %zero : f32 : !pgpu.view<f32, [K, N], in>[!pgpu.fragment<index, [TK, BLOCK_N]>, !pgpu.fragment<index, [TK, BLOCK_N]>] -> !pgpu.fragment<f32, [TK, BLOCK_N]>
          %n = pgpu.contract %xt, %wt, %a reduce([1], [0]) batch([], []) : !pgpu.fragment<f32, [BM, TK]>, !pgpu.fragment<f32, [TK, BLOCK_N]>, !pgpu.fragment<f32, [BM, BLOCK_N]> -> !pgpu.fragment<f32, [BM, BLOCK_N]>
          pgpu.yield %n : !pgpu.fragment<f32, [BM, BLOCK_N]>
        }
        %sb = pgpu.broadcast %sum dims [0] : !pgpu.fragment<f32, [BM]> -> !pgpu.fragment<f32, [BM, BLOCK_N]>
        %v = pgpu.binary div %acc, %sb : !pgpu.fragment<f32, [BM, BLOCK_N]>
        %t = arith.constant true
        %ri = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BLOCK_N]>
        %cj = pgpu.broadcast %cols dims [1] : !pgpu.fragment<index, [BLOCK_N]> -> !pgpu.fragment<index, [BM, BLOCK_N]>
        pgpu.store %v, %y[%ri, %cj] valid %t : i1 : !pgpu.fragment<f32, [BM, BLOCK_N]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BLOCK_N]>, !pgpu.fragment<index, [BM, BLOCK_N]>]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
