// RUN: tessel-opt %s -split-input-file -pgpu-narrow-fold-ranges -verify-diagnostics | FileCheck %s

// COM: A union of intervals whose branch ands a comparison with a mask read from memory (issue 41/43,
// COM: bench/corpus/300_tree_attention_spec_b: keys t < P of the prefix, or t < L and tree[t] for the tree's
// COM: keys). Before: the loaded leaf made the tree no union; t < P and t < L were narrowed one by one and
// COM: no tile was skipped (false for either alone proves nothing), so every tile up to T was visited. After:
// COM: the loaded leaf is an opaque part of its branch, which is mixed on its whole range but bounded by its
// COM: comparison: [lo, P) all true then mixed for the first branch, [P, L) mixed for the second, and the
// COM: tiles past both skipped (false for the root proves the identity, seed 002 §3.5).
// CHECK-LABEL: pgpu.kernel @tree_keys
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.load %{{.*}} : !pgpu.view<i1, [T], in>
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: pgpu.load {{.*}} : !pgpu.view<i1, [T], in>
// CHECK: } combine {
// CHECK: %[[STOP:.*]] = pgpu.binary max
// CHECK-NEXT: pgpu.region_fold %{{.*}} to %[[STOP]]
// CHECK: %[[IN:.*]] = pgpu.cmp lt
// CHECK: %[[TREE:.*]] = pgpu.load {{.*}} : !pgpu.view<i1, [T], in>
// CHECK: pgpu.binary and %{{.*}}, %[[TREE]]
// CHECK: } combine {
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @tree_keys(%x: !pgpu.view<f32, [T], in>, %tm: !pgpu.view<i1, [T], in>, %y: !pgpu.view<f32, [S], out>, %pre: i32, %len: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %P = pgpu.cast %pre : i32 to index
      %L = pgpu.cast %len : i32 to index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{1 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 1 all-false interval(s) skipped (identity proven); a union of 2 intervals narrowed branch by branch (only its tiles visited)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%x, %tm, %P, %L : !pgpu.view<f32, [T], in>, !pgpu.view<i1, [T], in>, index, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [T], in>, %tv: !pgpu.view<i1, [T], in>, %pp: index, %ll: index):
        %z = arith.constant 0.0 : f32
        %f = arith.constant false
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %tree = pgpu.load %tv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %f : i1
            : !pgpu.view<i1, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<i1, [BT]>
        %pb = pgpu.splat %pp : index -> !pgpu.fragment<index, [BT]>
        %lb = pgpu.splat %ll : index -> !pgpu.fragment<index, [BT]>
        %c1 = pgpu.cmp lt %t, %pb : !pgpu.fragment<index, [BT]>
        %c2 = pgpu.cmp lt %t, %lb : !pgpu.fragment<index, [BT]>
        %in = pgpu.binary and %c2, %tree : !pgpu.fragment<i1, [BT]>
        %vis = pgpu.binary or %c1, %in : !pgpu.fragment<i1, [BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BT]>
        %m = pgpu.select %vis, %v, %zz : !pgpu.fragment<i1, [BT]>, !pgpu.fragment<f32, [BT]>
        %r = pgpu.reduce %m axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BT]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        %rr = pgpu.splat %r : f32 -> !pgpu.fragment<f32, [BS]>
        pgpu.yield %rr : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: a branch that is the loaded mask alone (t < P | tree[t]) may be true on any tile: the
// COM: tree is no union of intervals; t < P is narrowed alone and no tile is skipped. Its false tiles keep
// COM: the mixed fold: t < P false there saves no read (tree[t] is still read).
// CHECK-LABEL: pgpu.kernel @data_branch
// CHECK-COUNT-2: pgpu.region_fold
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @data_branch(%x: !pgpu.view<f32, [T], in>, %tm: !pgpu.view<i1, [T], in>, %y: !pgpu.view<f32, [S], out>, %pre: i32, %len: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %P = pgpu.cast %pre : i32 to index
      %L = pgpu.cast %len : i32 to index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{1 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 0 all-false interval(s) skipped (identity proven)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%x, %tm, %P, %L : !pgpu.view<f32, [T], in>, !pgpu.view<i1, [T], in>, index, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [T], in>, %tv: !pgpu.view<i1, [T], in>, %pp: index, %ll: index):
        %z = arith.constant 0.0 : f32
        %f = arith.constant false
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %tree = pgpu.load %tv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %f : i1
            : !pgpu.view<i1, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<i1, [BT]>
        %pb = pgpu.splat %pp : index -> !pgpu.fragment<index, [BT]>
        %lb = pgpu.splat %ll : index -> !pgpu.fragment<index, [BT]>
        %c1 = pgpu.cmp lt %t, %pb : !pgpu.fragment<index, [BT]>
        %vis = pgpu.binary or %c1, %tree : !pgpu.fragment<i1, [BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BT]>
        %m = pgpu.select %vis, %v, %zz : !pgpu.fragment<i1, [BT]>, !pgpu.fragment<f32, [BT]>
        %r = pgpu.reduce %m axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BT]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        %rr = pgpu.splat %r : f32 -> !pgpu.fragment<f32, [BS]>
        pgpu.yield %rr : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A predicate false on a prefix of the tiles whose false is not the identity, where that saves a read
// COM: (bench/corpus/300_tree_attention_spec: vis = ~(t >= P) | tree[t - P] read under t >= P). Before: the
// COM: tiles below P were one mixed fold with the comparison and the masked tree read. After: [lo, P) is a
// COM: fold of its own with t >= P false, so vis is true there, the tree read gone and the tail mask true;
// COM: then the mixed tile holding P, the all-true tiles (t >= P true) and the tail's mixed tiles.
// CHECK-LABEL: pgpu.kernel @prefix_keys
// CHECK: pgpu.region_fold
// CHECK-NOT: pgpu.load %{{.*}} : !pgpu.view<i1, [T], in>
// CHECK-NOT: pgpu.cmp
// CHECK-NOT: pgpu.select
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: pgpu.cmp ge
// CHECK: pgpu.load {{.*}} : !pgpu.view<i1, [T], in>
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: } combine {
// CHECK: pgpu.region_fold
// CHECK: } combine {
// CHECK-NOT: pgpu.region_fold
// CHECK: pgpu.return
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @prefix_keys(%x: !pgpu.view<f32, [T], in>, %tm: !pgpu.view<i1, [T], in>, %y: !pgpu.view<f32, [S], out>, %pre: i32)
      attributes {params = [#pgpu.param<"BS", [16, 32], 16>, #pgpu.param<"BT", [16, 32], 16>]} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %S = pgpu.extent %y[0] : !pgpu.view<f32, [S], out>
    %T = pgpu.extent %x[0] : !pgpu.view<f32, [T], in>
    %bs = pgpu.param "BS" : index
    %bt = pgpu.param "BT" : index
    %n = pgpu.ceil_div %S, %bs : index
    pgpu.program_space(%n) {
    ^bb0(%p: index):
      %P = pgpu.cast %pre : i32 to index
      %base = pgpu.binary mul %p, %bs : index
      %s = pgpu.iota %base : !pgpu.fragment<index, [BS]>
      %Sb = pgpu.splat %S : index -> !pgpu.fragment<index, [BS]>
      %sok = pgpu.cmp lt %s, %Sb : !pgpu.fragment<index, [BS]>
      %id = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BS]>
      // expected-remark @+1 {{1 coordinate predicate(s) and 1 tail mask(s): tiles split into all-true (predicates dropped) and mixed intervals; 0 all-false interval(s) skipped (identity proven); 1 all-false interval(s) kept with the predicate false (a read saved)}}
      %sum = pgpu.region_fold %c0 to %T step %bt identity(%id : !pgpu.fragment<f32, [BS]>)
          operands(%x, %tm, %P : !pgpu.view<f32, [T], in>, !pgpu.view<i1, [T], in>, index) -> (!pgpu.fragment<f32, [BS]>)
      summarize {
      ^bb0(%b: index, %e: index, %xv: !pgpu.view<f32, [T], in>, %tv: !pgpu.view<i1, [T], in>, %pp: index):
        %z = arith.constant 0.0 : f32
        %f = arith.constant false
        %t = pgpu.iota %b : !pgpu.fragment<index, [BT]>
        %eb = pgpu.splat %e : index -> !pgpu.fragment<index, [BT]>
        %ok = pgpu.cmp lt %t, %eb : !pgpu.fragment<index, [BT]>
        %v = pgpu.load %xv[%t] valid %ok : !pgpu.fragment<i1, [BT]> fill %z : f32
            : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<f32, [BT]>
        %pb = pgpu.splat %pp : index -> !pgpu.fragment<index, [BT]>
        %in = pgpu.cmp ge %t, %pb : !pgpu.fragment<index, [BT]>
        %out = pgpu.unary not %in : !pgpu.fragment<i1, [BT]>
        %rel = pgpu.binary sub %t, %pb : !pgpu.fragment<index, [BT]>
        %tok = pgpu.binary and %ok, %in : !pgpu.fragment<i1, [BT]>
        %tree = pgpu.load %tv[%rel] valid %tok : !pgpu.fragment<i1, [BT]> fill %f : i1
            : !pgpu.view<i1, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<i1, [BT]>
        %vis = pgpu.binary or %out, %tree : !pgpu.fragment<i1, [BT]>
        %zz = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [BT]>
        %m = pgpu.select %vis, %v, %zz : !pgpu.fragment<i1, [BT]>, !pgpu.fragment<f32, [BT]>
        %r = pgpu.reduce %m axes [0] identity(%z : f32) : (!pgpu.fragment<f32, [BT]>) -> (f32) {
        ^bb0(%l: f32, %q: f32):
          %a = pgpu.binary add %l, %q : f32
          pgpu.yield %a : f32
        }
        %rr = pgpu.splat %r : f32 -> !pgpu.fragment<f32, [BS]>
        pgpu.yield %rr : !pgpu.fragment<f32, [BS]>
      } combine {
      ^bb0(%l: !pgpu.fragment<f32, [BS]>, %q: !pgpu.fragment<f32, [BS]>):
        %a = pgpu.binary add %l, %q : !pgpu.fragment<f32, [BS]>
        pgpu.yield %a : !pgpu.fragment<f32, [BS]>
      }
      pgpu.store %sum, %y[%s] valid %sok : !pgpu.fragment<i1, [BS]>
          : !pgpu.fragment<f32, [BS]>, !pgpu.view<f32, [S], out>[!pgpu.fragment<index, [BS]>]
      pgpu.yield
    }
    pgpu.return
  }
}
