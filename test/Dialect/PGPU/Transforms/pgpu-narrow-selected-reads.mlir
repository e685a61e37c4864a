// RUN: tessel-opt %s -split-input-file -pgpu-narrow-selected-reads | FileCheck %s --enable-var-scope

// COM: A row's keys masked past its length (corpus 187): before, the read took every key below the
// COM: extent and the select replaced the ones past the length with -inf. After, the read's validity
// COM: also requires t < len (those lanes take the fill; the select still discards them).
// CHECK-LABEL: pgpu.kernel @length_masked
// CHECK: %[[LEN:.*]] = pgpu.cmp lt %[[I:.*]], %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[TAIL:.*]] = pgpu.cmp lt %[[I]], %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: %[[V:.*]] = pgpu.binary and %[[TAIL]], %[[LEN]] : !pgpu.fragment<i1, [BLOCK]>
// CHECK: %[[X:.*]] = pgpu.load %x[%{{.*}}, %[[I]]] valid %[[V]]
// CHECK: %[[C:.*]] = pgpu.cast %[[X]]
// CHECK: pgpu.select %[[LEN]], %[[C]], %{{.*}}
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @length_masked(%x: !pgpu.view<f16, [B, T], in>, %lengths: !pgpu.view<i32, [B], in>,
                             %y: !pgpu.view<f32, [B], out>)
      attributes {params = [#pgpu.param<"BLOCK", [1024], 1024>]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %zi = arith.constant 0 : i32
    %zh = arith.constant 0.0 : f16
    %ninf = arith.constant 0xFF800000 : f32
    %T = pgpu.extent %x[1] : !pgpu.view<f16, [B, T], in>
    %B = pgpu.extent %x[0] : !pgpu.view<f16, [B, T], in>
    pgpu.program_space(%B) {
    ^bb0(%b: index):
      %n = pgpu.load %lengths[%b] valid %true : i1 fill %zi : i32 : !pgpu.view<i32, [B], in>[index] -> i32
      %len = pgpu.cast %n : i32 to index
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
      %ls = pgpu.splat %len : index -> !pgpu.fragment<index, [BLOCK]>
      %keep = pgpu.cmp lt %i, %ls : !pgpu.fragment<index, [BLOCK]>
      %ts = pgpu.splat %T : index -> !pgpu.fragment<index, [BLOCK]>
      %tail = pgpu.cmp lt %i, %ts : !pgpu.fragment<index, [BLOCK]>
      %v = pgpu.load %x[%b, %i] valid %tail : !pgpu.fragment<i1, [BLOCK]> fill %zh : f16 : !pgpu.view<f16, [B, T], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f16, [BLOCK]>
      %f = pgpu.cast %v : !pgpu.fragment<f16, [BLOCK]> to !pgpu.fragment<f32, [BLOCK]>
      %ni = pgpu.splat %ninf : f32 -> !pgpu.fragment<f32, [BLOCK]>
      %s = pgpu.select %keep, %f, %ni : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
      %m = pgpu.reduce %s axes [0] identity(%ninf : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
      ^bb0(%p: f32, %q: f32):
        %r = pgpu.binary max %p, %q : f32
        pgpu.yield %r : f32
      }
      pgpu.store %m, %y[%b] valid %true : i1 : f32, !pgpu.view<f32, [B], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the read is also reduced directly (its masked lanes are observed), and a second
// COM: read is the false side of its select (kept where the condition is false).
// CHECK-LABEL: pgpu.kernel @observed
// CHECK: %[[T1:.*]] = pgpu.cmp lt %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}] valid %[[T1]] :
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}] valid %[[T1]] :
// CHECK-NOT: pgpu.binary and
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @observed(%x: !pgpu.view<f32, [B, T], in>, %lengths: !pgpu.view<i32, [B], in>,
                        %y: !pgpu.view<f32, [B], out>, %z: !pgpu.view<f32, [B], out>)
      attributes {params = [#pgpu.param<"BLOCK", [1024], 1024>]} {
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zi = arith.constant 0 : i32
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %T = pgpu.extent %x[1] : !pgpu.view<f32, [B, T], in>
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, T], in>
    pgpu.program_space(%B) {
    ^bb0(%b: index):
      %n = pgpu.load %lengths[%b] valid %true : i1 fill %zi : i32 : !pgpu.view<i32, [B], in>[index] -> i32
      %len = pgpu.cast %n : i32 to index
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
      %ts = pgpu.splat %T : index -> !pgpu.fragment<index, [BLOCK]>
      %tail = pgpu.cmp lt %i, %ts : !pgpu.fragment<index, [BLOCK]>
      %ls = pgpu.splat %len : index -> !pgpu.fragment<index, [BLOCK]>
      %keep = pgpu.cmp lt %i, %ls : !pgpu.fragment<index, [BLOCK]>
      %v = pgpu.load %x[%b, %i] valid %tail : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [B, T], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
      %ni = pgpu.splat %ninf : f32 -> !pgpu.fragment<f32, [BLOCK]>
      %s = pgpu.select %keep, %v, %ni : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
      %all = pgpu.reduce %v axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
      ^bb0(%p: f32, %q: f32):
        %r = pgpu.binary add %p, %q : f32
        pgpu.yield %r : f32
      }
      %m = pgpu.reduce %s axes [0] identity(%ninf : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
      ^bb0(%p: f32, %q: f32):
        %r = pgpu.binary max %p, %q : f32
        pgpu.yield %r : f32
      }
      %w = pgpu.load %x[%b, %i] valid %tail : !pgpu.fragment<i1, [BLOCK]> fill %ninf : f32 : !pgpu.view<f32, [B, T], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
      %u = pgpu.select %keep, %ni, %w : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
      %k = pgpu.reduce %u axes [0] identity(%ninf : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
      ^bb0(%p: f32, %q: f32):
        %r = pgpu.binary max %p, %q : f32
        pgpu.yield %r : f32
      }
      %sum = pgpu.binary add %all, %m : f32
      pgpu.store %sum, %y[%b] valid %true : i1 : f32, !pgpu.view<f32, [B], out>[index]
      pgpu.store %k, %z[%b] valid %true : i1 : f32, !pgpu.view<f32, [B], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the select's condition is on data (a dropout's keep mask from hashed bits): the
// COM: lanes it drops are scattered, so the read would touch the same memory and lose its vector width.
// CHECK-LABEL: pgpu.kernel @data_mask
// CHECK: %[[T2:.*]] = pgpu.cmp lt %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BLOCK]>
// CHECK: pgpu.load %x[%{{.*}}, %{{.*}}] valid %[[T2]] :
// CHECK-NOT: pgpu.binary and
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @data_mask(%x: !pgpu.view<f32, [B, T], in>, %bits: !pgpu.view<f32, [B, T], in>,
                         %y: !pgpu.view<f32, [B], out>)
      attributes {params = [#pgpu.param<"BLOCK", [1024], 1024>]} {
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %p = arith.constant 0.1 : f32
    %T = pgpu.extent %x[1] : !pgpu.view<f32, [B, T], in>
    %B = pgpu.extent %x[0] : !pgpu.view<f32, [B, T], in>
    pgpu.program_space(%B) {
    ^bb0(%b: index):
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
      %ts = pgpu.splat %T : index -> !pgpu.fragment<index, [BLOCK]>
      %tail = pgpu.cmp lt %i, %ts : !pgpu.fragment<index, [BLOCK]>
      %r = pgpu.load %bits[%b, %i] valid %tail : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [B, T], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
      %ps = pgpu.splat %p : f32 -> !pgpu.fragment<f32, [BLOCK]>
      %keep = pgpu.cmp ge %r, %ps : !pgpu.fragment<f32, [BLOCK]>
      %v = pgpu.load %x[%b, %i] valid %tail : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [B, T], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
      %zs = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK]>
      %s = pgpu.select %keep, %v, %zs : !pgpu.fragment<i1, [BLOCK]>, !pgpu.fragment<f32, [BLOCK]>
      %m = pgpu.reduce %s axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
      ^bb0(%u: f32, %w: f32):
        %o = pgpu.binary add %u, %w : f32
        pgpu.yield %o : f32
      }
      pgpu.store %m, %y[%b] valid %true : i1 : f32, !pgpu.view<f32, [B], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
