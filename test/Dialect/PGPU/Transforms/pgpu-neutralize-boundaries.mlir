// RUN: tessel-opt %s -split-input-file -pgpu-neutralize-boundaries | FileCheck %s

// COM: A ragged group's rows (start + i for i < rows) of an operand feed only the accumulator's rows,
// COM: which the store masks with the same predicate: the read's row mask becomes the view's bound
// COM: (seed 002 §3.4 boundary neutralization), with a lower bound since the start is not provably
// COM: non-negative (a difference). The K mask (a contracted dimension) stays.
// CHECK-LABEL: pgpu.kernel @ragged_rows
// CHECK: %[[T:.*]] = pgpu.cmp lt %[[I:.*]], %{{.*}} : !pgpu.fragment<index, [BM]>
// CHECK: pgpu.for
// CHECK: %[[LINE:.*]] = pgpu.binary add %{{.*}}, %[[I]] : !pgpu.fragment<index, [BM]>
// CHECK: %[[KM:.*]] = pgpu.broadcast %[[KT:.*]] dims [1] : !pgpu.fragment<i1, [BK]>
// CHECK: %[[M:.*]] = pgpu.extent %a[0]
// CHECK: %[[MS:.*]] = pgpu.splat %[[M]] : index -> !pgpu.fragment<index, [BM]>
// CHECK: %[[UP:.*]] = pgpu.cmp lt %[[LINE]], %[[MS]]
// CHECK: %[[LO:.*]] = pgpu.cmp ge %[[LINE]], %{{.*}}
// CHECK: %[[IN:.*]] = pgpu.binary and %[[LO]], %[[UP]]
// CHECK: %[[INB:.*]] = pgpu.broadcast %[[IN]] dims [0]
// CHECK: %[[V:.*]] = pgpu.binary and %[[INB]], %[[KM]]
// CHECK: pgpu.load %a[%{{.*}}, %{{.*}}] valid %[[V]]
// CHECK: pgpu.broadcast %[[T]] dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BN]>
// CHECK: pgpu.store
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @ragged_rows(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>,
                           %c: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BM", [16], 16>, #pgpu.param<"BN", [16], 16>, #pgpu.param<"BK", [16], 16>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %bk = pgpu.param "BK" : index
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %start = pgpu.binary sub %p, %c1 : index
      %rows = pgpu.binary sub %K, %p : index
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [BM]>
      %rs = pgpu.splat %rows : index -> !pgpu.fragment<index, [BM]>
      %t = pgpu.cmp lt %i, %rs : !pgpu.fragment<index, [BM]>
      %j = pgpu.iota %c0 : !pgpu.fragment<index, [BN]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BN]>
      %acc = pgpu.for %c0 to %K step %bk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BN]>) -> !pgpu.fragment<f32, [BM, BN]> {
      ^bb0(%k0: index, %carry: !pgpu.fragment<f32, [BM, BN]>):
        %k = pgpu.iota %k0 : !pgpu.fragment<index, [BK]>
        %ks = pgpu.splat %K : index -> !pgpu.fragment<index, [BK]>
        %kt = pgpu.cmp lt %k, %ks : !pgpu.fragment<index, [BK]>
        %ss = pgpu.splat %start : index -> !pgpu.fragment<index, [BM]>
        %line = pgpu.binary add %ss, %i : !pgpu.fragment<index, [BM]>
        %ri = pgpu.broadcast %line dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BK]>
        %ki = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BM, BK]>
        %tm = pgpu.broadcast %t dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BK]>
        %km = pgpu.broadcast %kt dims [1] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [BM, BK]>
        %ok = pgpu.binary and %tm, %km : !pgpu.fragment<i1, [BM, BK]>
        %l = pgpu.load %a[%ri, %ki] valid %ok : !pgpu.fragment<i1, [BM, BK]> fill %zh : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [BM, BK]>, !pgpu.fragment<index, [BM, BK]>] -> !pgpu.fragment<f16, [BM, BK]>
        %bki = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BK, BN]>
        %bnj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BK, BN]>
        %bkm = pgpu.broadcast %kt dims [0] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [BK, BN]>
        %r = pgpu.load %b[%bki, %bnj] valid %bkm : !pgpu.fragment<i1, [BK, BN]> fill %zh : f16 : !pgpu.view<f16, [K, N], in>[!pgpu.fragment<index, [BK, BN]>, !pgpu.fragment<index, [BK, BN]>] -> !pgpu.fragment<f16, [BK, BN]>
        %next = pgpu.contract %l, %r, %carry reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [BM, BK]>, !pgpu.fragment<f16, [BK, BN]>, !pgpu.fragment<f32, [BM, BN]> -> !pgpu.fragment<f32, [BM, BN]>
        pgpu.yield %next : !pgpu.fragment<f32, [BM, BN]>
      }
      %ss2 = pgpu.splat %start : index -> !pgpu.fragment<index, [BM]>
      %line2 = pgpu.binary add %ss2, %i : !pgpu.fragment<index, [BM]>
      %ci = pgpu.broadcast %line2 dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BN]>
      %cj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BM, BN]>
      %cm = pgpu.broadcast %t dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BN]>
      pgpu.store %acc, %c[%ci, %cj] valid %cm : !pgpu.fragment<i1, [BM, BN]> : !pgpu.fragment<f32, [BM, BN]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: The start (a program index times a parameter) and the iota's base are non-negative: the
// COM: rows' mask becomes the view's upper bound alone.
// CHECK-LABEL: pgpu.kernel @nonneg_start
// CHECK: pgpu.for
// CHECK: %[[LINE:.*]] = pgpu.binary add %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BM]>
// CHECK: %[[M:.*]] = pgpu.extent %a[0]
// CHECK: %[[MS:.*]] = pgpu.splat %[[M]]
// CHECK: %[[UP:.*]] = pgpu.cmp lt %[[LINE]], %[[MS]]
// CHECK-NOT: pgpu.cmp ge
// CHECK: %[[INB:.*]] = pgpu.broadcast %[[UP]] dims [0]
// CHECK: pgpu.binary and %[[INB]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @nonneg_start(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>,
                           %c: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BM", [16], 16>, #pgpu.param<"BN", [16], 16>, #pgpu.param<"BK", [16], 16>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %bk = pgpu.param "BK" : index
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %start = pgpu.binary mul %p, %bk : index
      %rows = pgpu.binary sub %K, %p : index
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [BM]>
      %rs = pgpu.splat %rows : index -> !pgpu.fragment<index, [BM]>
      %t = pgpu.cmp lt %i, %rs : !pgpu.fragment<index, [BM]>
      %j = pgpu.iota %c0 : !pgpu.fragment<index, [BN]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BN]>
      %acc = pgpu.for %c0 to %K step %bk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BN]>) -> !pgpu.fragment<f32, [BM, BN]> {
      ^bb0(%k0: index, %carry: !pgpu.fragment<f32, [BM, BN]>):
        %k = pgpu.iota %k0 : !pgpu.fragment<index, [BK]>
        %ks = pgpu.splat %K : index -> !pgpu.fragment<index, [BK]>
        %kt = pgpu.cmp lt %k, %ks : !pgpu.fragment<index, [BK]>
        %ss = pgpu.splat %start : index -> !pgpu.fragment<index, [BM]>
        %line = pgpu.binary add %ss, %i : !pgpu.fragment<index, [BM]>
        %ri = pgpu.broadcast %line dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BK]>
        %ki = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BM, BK]>
        %tm = pgpu.broadcast %t dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BK]>
        %km = pgpu.broadcast %kt dims [1] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [BM, BK]>
        %ok = pgpu.binary and %tm, %km : !pgpu.fragment<i1, [BM, BK]>
        %l = pgpu.load %a[%ri, %ki] valid %ok : !pgpu.fragment<i1, [BM, BK]> fill %zh : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [BM, BK]>, !pgpu.fragment<index, [BM, BK]>] -> !pgpu.fragment<f16, [BM, BK]>
        %bki = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BK, BN]>
        %bnj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BK, BN]>
        %bkm = pgpu.broadcast %kt dims [0] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [BK, BN]>
        %r = pgpu.load %b[%bki, %bnj] valid %bkm : !pgpu.fragment<i1, [BK, BN]> fill %zh : f16 : !pgpu.view<f16, [K, N], in>[!pgpu.fragment<index, [BK, BN]>, !pgpu.fragment<index, [BK, BN]>] -> !pgpu.fragment<f16, [BK, BN]>
        %next = pgpu.contract %l, %r, %carry reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [BM, BK]>, !pgpu.fragment<f16, [BK, BN]>, !pgpu.fragment<f32, [BM, BN]> -> !pgpu.fragment<f32, [BM, BN]>
        pgpu.yield %next : !pgpu.fragment<f32, [BM, BN]>
      }
      %ss2 = pgpu.splat %start : index -> !pgpu.fragment<index, [BM]>
      %line2 = pgpu.binary add %ss2, %i : !pgpu.fragment<index, [BM]>
      %ci = pgpu.broadcast %line2 dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BN]>
      %cj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BM, BN]>
      %cm = pgpu.broadcast %t dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BN]>
      pgpu.store %acc, %c[%ci, %cj] valid %cm : !pgpu.fragment<i1, [BM, BN]> : !pgpu.fragment<f32, [BM, BN]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the store masks the rows by another predicate (equal in value, not the read's):
// COM: the analysis does not prove the lanes unobserved.
// CHECK-LABEL: pgpu.kernel @store_unmasked
// CHECK-NOT: pgpu.extent %a[0]
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @store_unmasked(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>,
                           %c: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BM", [16], 16>, #pgpu.param<"BN", [16], 16>, #pgpu.param<"BK", [16], 16>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %bk = pgpu.param "BK" : index
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %start = pgpu.binary sub %p, %c1 : index
      %rows = pgpu.binary sub %K, %p : index
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [BM]>
      %rs = pgpu.splat %rows : index -> !pgpu.fragment<index, [BM]>
      %t = pgpu.cmp lt %i, %rs : !pgpu.fragment<index, [BM]>
      %j = pgpu.iota %c0 : !pgpu.fragment<index, [BN]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BN]>
      %acc = pgpu.for %c0 to %K step %bk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BN]>) -> !pgpu.fragment<f32, [BM, BN]> {
      ^bb0(%k0: index, %carry: !pgpu.fragment<f32, [BM, BN]>):
        %k = pgpu.iota %k0 : !pgpu.fragment<index, [BK]>
        %ks = pgpu.splat %K : index -> !pgpu.fragment<index, [BK]>
        %kt = pgpu.cmp lt %k, %ks : !pgpu.fragment<index, [BK]>
        %ss = pgpu.splat %start : index -> !pgpu.fragment<index, [BM]>
        %line = pgpu.binary add %ss, %i : !pgpu.fragment<index, [BM]>
        %ri = pgpu.broadcast %line dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BK]>
        %ki = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BM, BK]>
        %tm = pgpu.broadcast %t dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BK]>
        %km = pgpu.broadcast %kt dims [1] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [BM, BK]>
        %ok = pgpu.binary and %tm, %km : !pgpu.fragment<i1, [BM, BK]>
        %l = pgpu.load %a[%ri, %ki] valid %ok : !pgpu.fragment<i1, [BM, BK]> fill %zh : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [BM, BK]>, !pgpu.fragment<index, [BM, BK]>] -> !pgpu.fragment<f16, [BM, BK]>
        %bki = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BK, BN]>
        %bnj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BK, BN]>
        %bkm = pgpu.broadcast %kt dims [0] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [BK, BN]>
        %r = pgpu.load %b[%bki, %bnj] valid %bkm : !pgpu.fragment<i1, [BK, BN]> fill %zh : f16 : !pgpu.view<f16, [K, N], in>[!pgpu.fragment<index, [BK, BN]>, !pgpu.fragment<index, [BK, BN]>] -> !pgpu.fragment<f16, [BK, BN]>
        %next = pgpu.contract %l, %r, %carry reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [BM, BK]>, !pgpu.fragment<f16, [BK, BN]>, !pgpu.fragment<f32, [BM, BN]> -> !pgpu.fragment<f32, [BM, BN]>
        pgpu.yield %next : !pgpu.fragment<f32, [BM, BN]>
      }
      %ss2 = pgpu.splat %start : index -> !pgpu.fragment<index, [BM]>
      %line2 = pgpu.binary add %ss2, %i : !pgpu.fragment<index, [BM]>
      %ci = pgpu.broadcast %line2 dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BN]>
      %cj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BM, BN]>
      %cm = pgpu.cmp lt %line2, %rs : !pgpu.fragment<index, [BM]>
      %cmb = pgpu.broadcast %cm dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BN]>
      pgpu.store %acc, %c[%ci, %cj] valid %cmb : !pgpu.fragment<i1, [BM, BN]> : !pgpu.fragment<f32, [BM, BN]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: The rows' write is a unique scatter (a ragged group's rows placed by offsets read in the
// COM: program as scalars, corpus 06): its masked lanes write nothing either, so the read's row mask
// COM: becomes the view's bound as for a store.
// CHECK-LABEL: pgpu.kernel @scatter_rows
// CHECK: pgpu.for
// CHECK: %[[LINE:.*]] = pgpu.binary add %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BM]>
// CHECK: %[[M:.*]] = pgpu.extent %a[0]
// CHECK: %[[MS:.*]] = pgpu.splat %[[M]]
// CHECK: %[[UP:.*]] = pgpu.cmp lt %[[LINE]], %[[MS]]
// CHECK: %[[INB:.*]] = pgpu.broadcast %[[UP]] dims [0]
// CHECK: pgpu.load %a[%{{.*}}, %{{.*}}] valid
// CHECK: pgpu.scatter %{{.*}}, %c[
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @scatter_rows(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>,
                           %c: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BM", [16], 16>, #pgpu.param<"BN", [16], 16>, #pgpu.param<"BK", [16], 16>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %bk = pgpu.param "BK" : index
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %start = pgpu.binary mul %p, %bk : index
      %rows = pgpu.binary sub %K, %p : index
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [BM]>
      %rs = pgpu.splat %rows : index -> !pgpu.fragment<index, [BM]>
      %t = pgpu.cmp lt %i, %rs : !pgpu.fragment<index, [BM]>
      %j = pgpu.iota %c0 : !pgpu.fragment<index, [BN]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BN]>
      %acc = pgpu.for %c0 to %K step %bk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BN]>) -> !pgpu.fragment<f32, [BM, BN]> {
      ^bb0(%k0: index, %carry: !pgpu.fragment<f32, [BM, BN]>):
        %k = pgpu.iota %k0 : !pgpu.fragment<index, [BK]>
        %ks = pgpu.splat %K : index -> !pgpu.fragment<index, [BK]>
        %kt = pgpu.cmp lt %k, %ks : !pgpu.fragment<index, [BK]>
        %ss = pgpu.splat %start : index -> !pgpu.fragment<index, [BM]>
        %line = pgpu.binary add %ss, %i : !pgpu.fragment<index, [BM]>
        %ri = pgpu.broadcast %line dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BK]>
        %ki = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BM, BK]>
        %tm = pgpu.broadcast %t dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BK]>
        %km = pgpu.broadcast %kt dims [1] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [BM, BK]>
        %ok = pgpu.binary and %tm, %km : !pgpu.fragment<i1, [BM, BK]>
        %l = pgpu.load %a[%ri, %ki] valid %ok : !pgpu.fragment<i1, [BM, BK]> fill %zh : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [BM, BK]>, !pgpu.fragment<index, [BM, BK]>] -> !pgpu.fragment<f16, [BM, BK]>
        %bki = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BK, BN]>
        %bnj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BK, BN]>
        %bkm = pgpu.broadcast %kt dims [0] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [BK, BN]>
        %r = pgpu.load %b[%bki, %bnj] valid %bkm : !pgpu.fragment<i1, [BK, BN]> fill %zh : f16 : !pgpu.view<f16, [K, N], in>[!pgpu.fragment<index, [BK, BN]>, !pgpu.fragment<index, [BK, BN]>] -> !pgpu.fragment<f16, [BK, BN]>
        %next = pgpu.contract %l, %r, %carry reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [BM, BK]>, !pgpu.fragment<f16, [BK, BN]>, !pgpu.fragment<f32, [BM, BN]> -> !pgpu.fragment<f32, [BM, BN]>
        pgpu.yield %next : !pgpu.fragment<f32, [BM, BN]>
      }
      %ss2 = pgpu.splat %start : index -> !pgpu.fragment<index, [BM]>
      %line2 = pgpu.binary add %ss2, %i : !pgpu.fragment<index, [BM]>
      %ci = pgpu.broadcast %line2 dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BN]>
      %cj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BM, BN]>
      %cm = pgpu.broadcast %t dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BN]>
      pgpu.scatter %acc, %c[%ci, %cj] valid %cm : !pgpu.fragment<i1, [BM, BN]> : !pgpu.fragment<f32, [BM, BN]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the scatter masks the rows by another predicate (equal in value, not the
// COM: read's): the lanes are not proved unobserved.
// CHECK-LABEL: pgpu.kernel @scatter_unmasked
// CHECK-NOT: pgpu.extent %a[0]
// CHECK: pgpu.scatter
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @scatter_unmasked(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>,
                           %c: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BM", [16], 16>, #pgpu.param<"BN", [16], 16>, #pgpu.param<"BK", [16], 16>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %bk = pgpu.param "BK" : index
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %start = pgpu.binary sub %p, %c1 : index
      %rows = pgpu.binary sub %K, %p : index
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [BM]>
      %rs = pgpu.splat %rows : index -> !pgpu.fragment<index, [BM]>
      %t = pgpu.cmp lt %i, %rs : !pgpu.fragment<index, [BM]>
      %j = pgpu.iota %c0 : !pgpu.fragment<index, [BN]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BN]>
      %acc = pgpu.for %c0 to %K step %bk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BN]>) -> !pgpu.fragment<f32, [BM, BN]> {
      ^bb0(%k0: index, %carry: !pgpu.fragment<f32, [BM, BN]>):
        %k = pgpu.iota %k0 : !pgpu.fragment<index, [BK]>
        %ks = pgpu.splat %K : index -> !pgpu.fragment<index, [BK]>
        %kt = pgpu.cmp lt %k, %ks : !pgpu.fragment<index, [BK]>
        %ss = pgpu.splat %start : index -> !pgpu.fragment<index, [BM]>
        %line = pgpu.binary add %ss, %i : !pgpu.fragment<index, [BM]>
        %ri = pgpu.broadcast %line dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BK]>
        %ki = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BM, BK]>
        %tm = pgpu.broadcast %t dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BK]>
        %km = pgpu.broadcast %kt dims [1] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [BM, BK]>
        %ok = pgpu.binary and %tm, %km : !pgpu.fragment<i1, [BM, BK]>
        %l = pgpu.load %a[%ri, %ki] valid %ok : !pgpu.fragment<i1, [BM, BK]> fill %zh : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [BM, BK]>, !pgpu.fragment<index, [BM, BK]>] -> !pgpu.fragment<f16, [BM, BK]>
        %bki = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BK, BN]>
        %bnj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BK, BN]>
        %bkm = pgpu.broadcast %kt dims [0] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [BK, BN]>
        %r = pgpu.load %b[%bki, %bnj] valid %bkm : !pgpu.fragment<i1, [BK, BN]> fill %zh : f16 : !pgpu.view<f16, [K, N], in>[!pgpu.fragment<index, [BK, BN]>, !pgpu.fragment<index, [BK, BN]>] -> !pgpu.fragment<f16, [BK, BN]>
        %next = pgpu.contract %l, %r, %carry reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [BM, BK]>, !pgpu.fragment<f16, [BK, BN]>, !pgpu.fragment<f32, [BM, BN]> -> !pgpu.fragment<f32, [BM, BN]>
        pgpu.yield %next : !pgpu.fragment<f32, [BM, BN]>
      }
      %ss2 = pgpu.splat %start : index -> !pgpu.fragment<index, [BM]>
      %line2 = pgpu.binary add %ss2, %i : !pgpu.fragment<index, [BM]>
      %ci = pgpu.broadcast %line2 dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BN]>
      %cj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BM, BN]>
      %cm = pgpu.cmp lt %line2, %rs : !pgpu.fragment<index, [BM]>
      %cmb = pgpu.broadcast %cm dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BN]>
      pgpu.scatter %acc, %c[%ci, %cj] valid %cmb : !pgpu.fragment<i1, [BM, BN]> : !pgpu.fragment<f32, [BM, BN]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire on a contracted dimension: a K sub-range's mask (start + k for k < rows) is summed
// COM: over by the contraction, so every result lane would see the lanes it masks. The rows' mask could
// COM: go, but the read would keep a mask that is not the view's bound (no box): nothing changes.
// CHECK-LABEL: pgpu.kernel @contracted_range
// CHECK-NOT: pgpu.extent %a[0]
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @contracted_range(%a: !pgpu.view<f16, [M, K], in>, %b: !pgpu.view<f16, [K, N], in>,
                           %c: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BM", [16], 16>, #pgpu.param<"BN", [16], 16>, #pgpu.param<"BK", [16], 16>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zh = arith.constant 0.0 : f16
    %zero = arith.constant 0.0 : f32
    %K = pgpu.extent %a[1] : !pgpu.view<f16, [M, K], in>
    %bk = pgpu.param "BK" : index
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %start = pgpu.binary sub %p, %c1 : index
      %rows = pgpu.binary sub %K, %p : index
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [BM]>
      %rs = pgpu.splat %rows : index -> !pgpu.fragment<index, [BM]>
      %t = pgpu.cmp lt %i, %rs : !pgpu.fragment<index, [BM]>
      %j = pgpu.iota %c0 : !pgpu.fragment<index, [BN]>
      %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BN]>
      %acc = pgpu.for %c0 to %K step %bk iter_args(%acc0 : !pgpu.fragment<f32, [BM, BN]>) -> !pgpu.fragment<f32, [BM, BN]> {
      ^bb0(%k0: index, %carry: !pgpu.fragment<f32, [BM, BN]>):
        %k = pgpu.iota %k0 : !pgpu.fragment<index, [BK]>
        %ks = pgpu.splat %K : index -> !pgpu.fragment<index, [BK]>
        %kt = pgpu.cmp lt %k, %ks : !pgpu.fragment<index, [BK]>
        %ss = pgpu.splat %start : index -> !pgpu.fragment<index, [BM]>
        %line = pgpu.binary add %ss, %i : !pgpu.fragment<index, [BM]>
        %ri = pgpu.broadcast %line dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BK]>
        %sk = pgpu.splat %start : index -> !pgpu.fragment<index, [BK]>
        %kline = pgpu.binary add %sk, %k : !pgpu.fragment<index, [BK]>
        %ki = pgpu.broadcast %kline dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BM, BK]>
        %tm = pgpu.broadcast %t dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BK]>
        %km = pgpu.broadcast %kt dims [1] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [BM, BK]>
        %rk = pgpu.splat %rows : index -> !pgpu.fragment<index, [BK]>
        %kr = pgpu.cmp lt %k, %rk : !pgpu.fragment<index, [BK]>
        %krm = pgpu.broadcast %kr dims [1] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [BM, BK]>
        %ok0 = pgpu.binary and %tm, %km : !pgpu.fragment<i1, [BM, BK]>
        %ok = pgpu.binary and %ok0, %krm : !pgpu.fragment<i1, [BM, BK]>
        %l = pgpu.load %a[%ri, %ki] valid %ok : !pgpu.fragment<i1, [BM, BK]> fill %zh : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [BM, BK]>, !pgpu.fragment<index, [BM, BK]>] -> !pgpu.fragment<f16, [BM, BK]>
        %bki = pgpu.broadcast %k dims [0] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BK, BN]>
        %bnj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BK, BN]>
        %bkm = pgpu.broadcast %kt dims [0] : !pgpu.fragment<i1, [BK]> -> !pgpu.fragment<i1, [BK, BN]>
        %r = pgpu.load %b[%bki, %bnj] valid %bkm : !pgpu.fragment<i1, [BK, BN]> fill %zh : f16 : !pgpu.view<f16, [K, N], in>[!pgpu.fragment<index, [BK, BN]>, !pgpu.fragment<index, [BK, BN]>] -> !pgpu.fragment<f16, [BK, BN]>
        %next = pgpu.contract %l, %r, %carry reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [BM, BK]>, !pgpu.fragment<f16, [BK, BN]>, !pgpu.fragment<f32, [BM, BN]> -> !pgpu.fragment<f32, [BM, BN]>
        pgpu.yield %next : !pgpu.fragment<f32, [BM, BN]>
      }
      %ss2 = pgpu.splat %start : index -> !pgpu.fragment<index, [BM]>
      %line2 = pgpu.binary add %ss2, %i : !pgpu.fragment<index, [BM]>
      %ci = pgpu.broadcast %line2 dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BN]>
      %cj = pgpu.broadcast %j dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BM, BN]>
      %cm = pgpu.broadcast %t dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BN]>
      pgpu.store %acc, %c[%ci, %cj] valid %cm : !pgpu.fragment<i1, [BM, BN]> : !pgpu.fragment<f32, [BM, BN]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the predicate is made in the loop body (it grows with the iteration), and the read
// COM: is carried into the next iteration, whose store admits lanes this iteration masked.
// CHECK-LABEL: pgpu.kernel @carried_pred
// CHECK-NOT: pgpu.cmp ge
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @carried_pred(%a: !pgpu.view<f16, [M, K], in>, %c: !pgpu.view<f16, [M, K], out>)
      attributes {params = [#pgpu.param<"BM", [16], 16>, #pgpu.param<"BK", [16], 16>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zh = arith.constant 0.0 : f16
    %M = pgpu.extent %a[0] : !pgpu.view<f16, [M, K], in>
    pgpu.program_space(%c1) {
    ^bb0(%p: index):
      %start = pgpu.binary sub %p, %c1 : index
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [BM]>
      %k = pgpu.iota %c0 : !pgpu.fragment<index, [BK]>
      %kk = pgpu.broadcast %k dims [1] : !pgpu.fragment<index, [BK]> -> !pgpu.fragment<index, [BM, BK]>
      %z = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [BM, BK]>
      %r = pgpu.for %c0 to %M step %c1 iter_args(%z : !pgpu.fragment<f16, [BM, BK]>) -> !pgpu.fragment<f16, [BM, BK]> {
      ^bb0(%it: index, %prev: !pgpu.fragment<f16, [BM, BK]>):
        %rows = pgpu.splat %it : index -> !pgpu.fragment<index, [BM]>
        %t = pgpu.cmp lt %i, %rows : !pgpu.fragment<index, [BM]>
        %ss = pgpu.splat %start : index -> !pgpu.fragment<index, [BM]>
        %line = pgpu.binary add %ss, %i : !pgpu.fragment<index, [BM]>
        %ri = pgpu.broadcast %line dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BK]>
        %tm = pgpu.broadcast %t dims [0] : !pgpu.fragment<i1, [BM]> -> !pgpu.fragment<i1, [BM, BK]>
        %l = pgpu.load %a[%ri, %kk] valid %tm : !pgpu.fragment<i1, [BM, BK]> fill %zh : f16 : !pgpu.view<f16, [M, K], in>[!pgpu.fragment<index, [BM, BK]>, !pgpu.fragment<index, [BM, BK]>] -> !pgpu.fragment<f16, [BM, BK]>
        pgpu.store %prev, %c[%ri, %kk] valid %tm : !pgpu.fragment<i1, [BM, BK]> : !pgpu.fragment<f16, [BM, BK]>, !pgpu.view<f16, [M, K], out>[!pgpu.fragment<index, [BM, BK]>, !pgpu.fragment<index, [BM, BK]>]
        pgpu.yield %l : !pgpu.fragment<f16, [BM, BK]>
      }
      pgpu.yield
    }
    pgpu.return
  }
}
