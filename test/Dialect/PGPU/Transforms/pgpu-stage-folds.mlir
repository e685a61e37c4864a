// RUN: tessel-opt %s -split-input-file -pgpu-stage-folds | FileCheck %s

// COM: A fold (the row's sum of a tile product over its segments) and the store loop after it, over
// COM: [0, N) by BLOCK_N: under 0 < N <= BLOCK_N the fold runs its one segment [0, N) combined into
// COM: its identity and the loop its body at 0; the two tile products' identical K loops merge (one
// COM: pgpu.for remains in the staged branch, its result both reduced and stored); BLOCK_N then
// COM: covers N.
// CHECK-LABEL: pgpu.kernel @sum_then_store
// CHECK-SAME: #pgpu.param<"BLOCK_N", [16, 32], 16, covers = "N">
// CHECK: %[[BN:.*]] = pgpu.param "BLOCK_N" : index
// CHECK: %[[EXT:.*]] = pgpu.binary sub %[[N:.*]], %[[C0:.*]] : index
// CHECK: %[[NE:.*]] = pgpu.cmp lt %[[C0]], %[[N]] : index
// CHECK: %[[FITS:.*]] = pgpu.cmp le %[[EXT]], %[[BN]] : index
// CHECK: %[[ONCE:.*]] = pgpu.binary and %[[NE]], %[[FITS]] : i1
// CHECK: pgpu.if %[[ONCE]] {
// CHECK-NOT: pgpu.region_fold
// CHECK: %[[ACC:.*]] = pgpu.for %[[C0]] to %[[K:.*]] step
// CHECK-NOT: pgpu.for
// CHECK: %[[PART:.*]] = pgpu.reduce %[[ACC]]
// CHECK: %[[SUM:.*]] = pgpu.binary add %{{.*}}, %[[PART]] : !pgpu.fragment<f32, [BM]>
// CHECK-NOT: pgpu.for
// CHECK: %[[SB:.*]] = pgpu.broadcast %[[SUM]]
// CHECK: %[[Q:.*]] = pgpu.binary div %[[ACC]], %[[SB]]
// CHECK: pgpu.store %[[Q]]
// CHECK: } else {
// CHECK: pgpu.region_fold %[[C0]] to %[[N]] step %[[BN]]
// CHECK: pgpu.for %[[C0]] to %[[N]] step %[[BN]] {
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @sum_then_store(%x: !pgpu.view<f32, [M, K], in>, %w: !pgpu.view<f32, [K, N], in>, %y: !pgpu.view<f32, [M, N], out>)
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

// COM: Must not fire: a lone fold (attention's walk over keys) has nothing to share; BLOCK_N keeps
// COM: its declaration (no cover).
// CHECK-LABEL: pgpu.kernel @lone_fold
// CHECK-SAME: #pgpu.param<"BLOCK_N", [16, 32], 16>]
// CHECK-NOT: pgpu.if
// CHECK: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @lone_fold(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [1], out>)
      attributes {params = [#pgpu.param<"BLOCK_N", [16, 32], 16>]} {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %bn = pgpu.param "BLOCK_N" : index
      %sum = pgpu.region_fold %c0 to %N step %bn identity(%z : f32) operands(%x : !pgpu.view<f32, [N], in>) -> (f32)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N], in>):
        %zero = arith.constant 0.0 : f32
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %bound = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK_N]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK_N]>
        %v = pgpu.load %xv[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK_N]> fill %zero : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK_N]>] -> !pgpu.fragment<f32, [BLOCK_N]>
        %s = pgpu.reduce %v axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK_N]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %s : f32
      } combine {
      ^bb0(%l: f32, %q: f32):
        %a = pgpu.binary add %l, %q : f32
        pgpu.yield %a : f32
      }
      pgpu.store %sum, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A chain of two folds over one axis that no loop stores, the second reading the first's
// COM: summary (attention's exact two-pass softmax over the keys: the maximum, then the sums at it):
// COM: under 0 < N <= BLOCK_N both run their one segment in order and the row is read once (one
// COM: load in the staged branch, both sums taken from it); the else-branch keeps both folds, and
// COM: BLOCK_N covers N.
// CHECK-LABEL: pgpu.kernel @chained_folds
// CHECK-SAME: #pgpu.param<"BLOCK_N", [16, 32], 16, covers = "N">]
// CHECK: pgpu.if %{{.*}} {
// CHECK-NOT: pgpu.region_fold
// CHECK: %[[ROW:.*]] = pgpu.load %x[
// CHECK: %[[FIRST:.*]] = pgpu.reduce %[[ROW]]
// CHECK: %[[S0:.*]] = pgpu.binary add %{{.*}}, %[[FIRST]] : f32
// CHECK-NOT: pgpu.load
// CHECK: %[[SPLAT:.*]] = pgpu.splat %[[S0]]
// CHECK: %[[D:.*]] = pgpu.binary sub %[[ROW]], %[[SPLAT]]
// CHECK: pgpu.reduce %[[D]]
// CHECK: } else {
// CHECK-COUNT-2: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @chained_folds(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [1], out>)
      attributes {params = [#pgpu.param<"BLOCK_N", [16, 32], 16>]} {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %bn = pgpu.param "BLOCK_N" : index
      %sum = pgpu.region_fold %c0 to %N step %bn identity(%z : f32) operands(%x : !pgpu.view<f32, [N], in>) -> (f32)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N], in>):
        %zero = arith.constant 0.0 : f32
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %bound = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK_N]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK_N]>
        %v = pgpu.load %xv[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK_N]> fill %zero : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK_N]>] -> !pgpu.fragment<f32, [BLOCK_N]>
        %s = pgpu.reduce %v axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK_N]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %s : f32
      } combine {
      ^bb0(%l: f32, %q: f32):
        %a = pgpu.binary add %l, %q : f32
        pgpu.yield %a : f32
      }
      %sum2 = pgpu.region_fold %c0 to %N step %bn identity(%z : f32) operands(%x, %sum : !pgpu.view<f32, [N], in>, f32) -> (f32)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N], in>, %s0: f32):
        %zero = arith.constant 0.0 : f32
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %bound = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK_N]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK_N]>
        %v = pgpu.load %xv[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK_N]> fill %zero : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK_N]>] -> !pgpu.fragment<f32, [BLOCK_N]>
        %sb = pgpu.splat %s0 : f32 -> !pgpu.fragment<f32, [BLOCK_N]>
        %d = pgpu.binary sub %v, %sb : !pgpu.fragment<f32, [BLOCK_N]>
        %s = pgpu.reduce %d axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK_N]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %s : f32
      } combine {
      ^bb0(%l: f32, %q: f32):
        %a = pgpu.binary add %l, %q : f32
        pgpu.yield %a : f32
      }
      pgpu.store %sum2, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a chain over a range that is not a view's extent (a member's own keys:
// COM: varlen or paged attention) would keep both forms in one compiled kernel behind a run-time
// COM: guard; it stays folds and BLOCK_N keeps its declaration.
// CHECK-LABEL: pgpu.kernel @chained_member_range
// CHECK-SAME: #pgpu.param<"BLOCK_N", [16, 32], 16>]
// CHECK-NOT: pgpu.if
// CHECK-COUNT-2: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @chained_member_range(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [1], out>)
      attributes {params = [#pgpu.param<"BLOCK_N", [16, 32], 16>]} {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %bn = pgpu.param "BLOCK_N" : index
      %len = pgpu.binary sub %N, %c1 : index
      %sum = pgpu.region_fold %c0 to %len step %bn identity(%z : f32) operands(%x : !pgpu.view<f32, [N], in>) -> (f32)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N], in>):
        %zero = arith.constant 0.0 : f32
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %bound = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK_N]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK_N]>
        %v = pgpu.load %xv[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK_N]> fill %zero : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK_N]>] -> !pgpu.fragment<f32, [BLOCK_N]>
        %s = pgpu.reduce %v axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK_N]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %s : f32
      } combine {
      ^bb0(%l: f32, %q: f32):
        %a = pgpu.binary add %l, %q : f32
        pgpu.yield %a : f32
      }
      %sum2 = pgpu.region_fold %c0 to %len step %bn identity(%z : f32) operands(%x, %sum : !pgpu.view<f32, [N], in>, f32) -> (f32)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N], in>, %s0: f32):
        %zero = arith.constant 0.0 : f32
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %bound = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK_N]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK_N]>
        %v = pgpu.load %xv[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK_N]> fill %zero : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK_N]>] -> !pgpu.fragment<f32, [BLOCK_N]>
        %sb = pgpu.splat %s0 : f32 -> !pgpu.fragment<f32, [BLOCK_N]>
        %d = pgpu.binary sub %v, %sb : !pgpu.fragment<f32, [BLOCK_N]>
        %s = pgpu.reduce %d axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK_N]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %s : f32
      } combine {
      ^bb0(%l: f32, %q: f32):
        %a = pgpu.binary add %l, %q : f32
        pgpu.yield %a : f32
      }
      pgpu.store %sum2, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the loop after the fold steps by another parameter (its tiles are not the
// COM: fold's segments), so neither runs one segment of the other's.
// CHECK-LABEL: pgpu.kernel @other_step
// CHECK-NOT: pgpu.if
// CHECK: pgpu.region_fold
// CHECK: pgpu.for
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @other_step(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
      attributes {params = [#pgpu.param<"BLOCK_N", [16, 32], 16>, #pgpu.param<"BLOCK", [16, 32], 32>]} {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %bn = pgpu.param "BLOCK_N" : index
      %blk = pgpu.param "BLOCK" : index
      %sum = pgpu.region_fold %c0 to %N step %bn identity(%z : f32) operands(%x : !pgpu.view<f32, [N], in>) -> (f32)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N], in>):
        %zero = arith.constant 0.0 : f32
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %bound = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK_N]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK_N]>
        %v = pgpu.load %xv[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK_N]> fill %zero : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK_N]>] -> !pgpu.fragment<f32, [BLOCK_N]>
        %s = pgpu.reduce %v axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK_N]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %s : f32
      } combine {
      ^bb0(%l: f32, %q: f32):
        %a = pgpu.binary add %l, %q : f32
        pgpu.yield %a : f32
      }
      pgpu.for %c0 to %N step %blk {
      ^bb0(%b: index):
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
        %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
        %sb = pgpu.splat %sum : f32 -> !pgpu.fragment<f32, [BLOCK]>
        %d = pgpu.binary div %v, %sb : !pgpu.fragment<f32, [BLOCK]>
        pgpu.store %d, %y[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [N], out>[!pgpu.fragment<index, [BLOCK]>]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: two sibling folds over one row that neither chain (no fold reads the other's
// COM: summary) nor meet a loop storing the row: no pass recomputes what another computed at its
// COM: result; BLOCK_N keeps its declaration (no cover).
// CHECK-LABEL: pgpu.kernel @independent_folds
// CHECK-SAME: #pgpu.param<"BLOCK_N", [16, 32], 16>]
// CHECK-NOT: pgpu.if
// CHECK-COUNT-2: pgpu.region_fold
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @independent_folds(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [2], out>)
      attributes {params = [#pgpu.param<"BLOCK_N", [16, 32], 16>]} {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %ninf = arith.constant 0xFF800000 : f32
      %t = arith.constant true
      %bn = pgpu.param "BLOCK_N" : index
      %sum = pgpu.region_fold %c0 to %N step %bn identity(%z : f32) operands(%x : !pgpu.view<f32, [N], in>) -> (f32)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N], in>):
        %zero = arith.constant 0.0 : f32
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %bound = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK_N]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK_N]>
        %v = pgpu.load %xv[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK_N]> fill %zero : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK_N]>] -> !pgpu.fragment<f32, [BLOCK_N]>
        %s = pgpu.reduce %v axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK_N]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %s : f32
      } combine {
      ^bb0(%l: f32, %q: f32):
        %a = pgpu.binary add %l, %q : f32
        pgpu.yield %a : f32
      }
      %top = pgpu.region_fold %c0 to %N step %bn identity(%ninf : f32) operands(%x : !pgpu.view<f32, [N], in>) -> (f32)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [N], in>):
        %lowest = arith.constant 0xFF800000 : f32
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK_N]>
        %bound = pgpu.splat %e : index -> !pgpu.fragment<index, [BLOCK_N]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK_N]>
        %v = pgpu.load %xv[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK_N]> fill %lowest : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK_N]>] -> !pgpu.fragment<f32, [BLOCK_N]>
        %m = pgpu.reduce %v axes [0] identity(%lowest : f32) : (!pgpu.fragment<f32, [BLOCK_N]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary max %l, %q : f32
          pgpu.yield %a : f32
        }
        pgpu.yield %m : f32
      } combine {
      ^bb0(%l: f32, %q: f32):
        %a = pgpu.binary max %l, %q : f32
        pgpu.yield %a : f32
      }
      pgpu.store %sum, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [2], out>[index]
      pgpu.store %top, %y[%c1] valid %t : i1 : f32, !pgpu.view<f32, [2], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
