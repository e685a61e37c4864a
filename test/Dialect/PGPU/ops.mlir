// RUN: tessel-opt %s | tessel-opt | FileCheck %s
// RUN: tessel-opt %s --mlir-print-op-generic | tessel-opt | FileCheck %s
// COM: Every pgpu op, in its custom assembly format, round-trips through the printer and parser, inside
// COM: kernels that satisfy the shared verifier (seed 000 §10): one program space, LaunchExpr-only code
// COM: outside it, declared fragment extents, explicit coordinates/validity/fill, instance-owned writes.

// CHECK: module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>}
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", warp_size = 32, max_threads = 1024,
                                              shared_memory_bytes = 232448, registers = 65536>} {

// COM: LaunchExpr, program space, execution group, structured control and value ops.
// CHECK-LABEL: pgpu.kernel @launch_control_values
// CHECK-SAME: (%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>, %z: !pgpu.view<i32, [M, 2], out>, %n: i32, %tiles: index {pgpu.private = "wrapper_scalar"})
// COM: A provider knob may be a switch (0 among its candidates); shared parameters are positive.
// CHECK-SAME: attributes {params = [#pgpu.param<"BM", [32, 64], 64>, #pgpu.param<"BN", [32, 64], 32>, #pgpu.param<"num_warps", [4, 8], 4, provider = "triton">, #pgpu.param<"TMA", [0, 1], 1, provider = "triton">]}
pgpu.kernel @launch_control_values(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>,
                                   %z: !pgpu.view<i32, [M, 2], out>, %n: i32,
                                   %tiles: index {pgpu.private = "wrapper_scalar"})
    attributes {params = [#pgpu.param<"BM", [32, 64], 64>, #pgpu.param<"BN", [32, 64], 32>,
                          #pgpu.param<"num_warps", [4, 8], 4, provider = "triton">,
                          #pgpu.param<"TMA", [0, 1], 1, provider = "triton">]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
  %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
  %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
  // CHECK: pgpu.stride %x[0] : !pgpu.view<f32, [M, N], in>
  %sM = pgpu.stride %x[0] : !pgpu.view<f32, [M, N], in>
  // CHECK: pgpu.param "BM" : index
  %bm = pgpu.param "BM" : index
  %bn = pgpu.param "BN" : index
  // CHECK: pgpu.ceil_div %{{.*}}, %{{.*}} : index
  %gm = pgpu.ceil_div %M, %bm : index
  %gn = pgpu.ceil_div %N, %bn : index
  // COM: integer binary/cmp/select on ABI scalars are LaunchExpr arithmetic.
  // CHECK: pgpu.binary mul %{{.*}}, %{{.*}} : index
  %total = pgpu.binary mul %gm, %gn : index
  %nonempty = pgpu.cmp gt %total, %c0 : index
  %grid = pgpu.select %nonempty, %total, %c1 : i1, index
  %tiles_ok = pgpu.cmp le %tiles, %grid : index
  // CHECK: pgpu.program_space(%{{.*}}) {
  // CHECK-NEXT: ^bb0(%{{.*}}: index):
  pgpu.program_space (%grid) {
  ^bb0(%pid: index):
    %c2 = arith.constant 2 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %in_grid = pgpu.cmp lt %pid, %total : index
    // CHECK: pgpu.delinearize %{{.*}} by(%{{.*}}, %{{.*}}) : index, index
    %di, %dj = pgpu.delinearize %pid by(%gm, %gn) : index, index
    // CHECK: pgpu.if %{{.*}} {
    pgpu.if %in_grid {
      // CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}) segment 0 roles ["m", "n"] {
      // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index):
      pgpu.execution_group %pid extents(%gm, %gn) segment 0 roles ["m", "n"] {
      ^bb0(%pm: index, %pn: index):
        %m0 = pgpu.binary mul %pm, %bm : index
        %n0 = pgpu.binary mul %pn, %bn : index
        // CHECK: pgpu.iota %{{.*}} : !pgpu.fragment<index, [BM]>
        %m = pgpu.iota %m0 : !pgpu.fragment<index, [BM]>
        %nn = pgpu.iota %n0 : !pgpu.fragment<index, [BN]>
        // CHECK: pgpu.broadcast %{{.*}} dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BN]>
        %mi = pgpu.broadcast %m dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, BN]>
        %ni = pgpu.broadcast %nn dims [1] : !pgpu.fragment<index, [BN]> -> !pgpu.fragment<index, [BM, BN]>
        // CHECK: pgpu.splat %{{.*}} : index -> !pgpu.fragment<index, [BM, BN]>
        %Mf = pgpu.splat %M : index -> !pgpu.fragment<index, [BM, BN]>
        %Nf = pgpu.splat %N : index -> !pgpu.fragment<index, [BM, BN]>
        // CHECK: pgpu.cmp lt %{{.*}}, %{{.*}} : !pgpu.fragment<index, [BM, BN]>
        %mok = pgpu.cmp lt %mi, %Mf : !pgpu.fragment<index, [BM, BN]>
        %nok = pgpu.cmp lt %ni, %Nf : !pgpu.fragment<index, [BM, BN]>
        // CHECK: pgpu.binary and %{{.*}}, %{{.*}} : !pgpu.fragment<i1, [BM, BN]>
        %ok = pgpu.binary and %mok, %nok : !pgpu.fragment<i1, [BM, BN]>
        // CHECK: pgpu.load %x[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BM, BN]> fill %{{.*}} : f32 : !pgpu.view<f32, [M, N], in>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>] -> !pgpu.fragment<f32, [BM, BN]>
        %v = pgpu.load %x[%mi, %ni] valid %ok : !pgpu.fragment<i1, [BM, BN]> fill %zero : f32
            : !pgpu.view<f32, [M, N], in>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
            -> !pgpu.fragment<f32, [BM, BN]>
        // CHECK: pgpu.unary exp2 %{{.*}} {approximate} : !pgpu.fragment<f32, [BM, BN]>
        %e = pgpu.unary exp2 %v {approximate} : !pgpu.fragment<f32, [BM, BN]>
        // CHECK: pgpu.unary neg %{{.*}} : !pgpu.fragment<f32, [BM, BN]>
        %ng0 = pgpu.unary neg %e : !pgpu.fragment<f32, [BM, BN]>
        // CHECK: pgpu.unary round %{{.*}} : !pgpu.fragment<f32, [BM, BN]>
        %ng = pgpu.unary round %ng0 : !pgpu.fragment<f32, [BM, BN]>
        %ones = pgpu.splat %one : f32 -> !pgpu.fragment<f32, [BM, BN]>
        // CHECK: pgpu.binary div %{{.*}}, %{{.*}} {approximate, flush_to_zero} : !pgpu.fragment<f32, [BM, BN]>
        %q = pgpu.binary div %ones, %ng {approximate, flush_to_zero} : !pgpu.fragment<f32, [BM, BN]>
        %zf = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BM, BN]>
        // CHECK: pgpu.select %{{.*}}, %{{.*}}, %{{.*}} : !pgpu.fragment<i1, [BM, BN]>, !pgpu.fragment<f32, [BM, BN]>
        %s = pgpu.select %ok, %q, %zf : !pgpu.fragment<i1, [BM, BN]>, !pgpu.fragment<f32, [BM, BN]>
        // CHECK: pgpu.store %{{.*}}, %y[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BM, BN]> : !pgpu.fragment<f32, [BM, BN]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
        pgpu.store %s, %y[%mi, %ni] valid %ok : !pgpu.fragment<i1, [BM, BN]>
            : !pgpu.fragment<f32, [BM, BN]>, !pgpu.view<f32, [M, N], out>[!pgpu.fragment<index, [BM, BN]>, !pgpu.fragment<index, [BM, BN]>]
        // CHECK: pgpu.transpose %{{.*}} [1, 0] : !pgpu.fragment<f32, [BM, BN]> -> !pgpu.fragment<f32, [BN, BM]>
        %t = pgpu.transpose %s [1, 0] : !pgpu.fragment<f32, [BM, BN]> -> !pgpu.fragment<f32, [BN, BM]>
        // CHECK: pgpu.cast %{{.*}} : !pgpu.fragment<f32, [BN, BM]> to !pgpu.fragment<f16, [BN, BM]>
        %h = pgpu.cast %t : !pgpu.fragment<f32, [BN, BM]> to !pgpu.fragment<f16, [BN, BM]>
        // CHECK: pgpu.extract %{{.*}}[%{{.*}}, %{{.*}}] : !pgpu.fragment<f16, [BN, BM]> -> f16
        %h00 = pgpu.extract %h[%c0, %c0] : !pgpu.fragment<f16, [BN, BM]> -> f16
        // CHECK: pgpu.bitcast %{{.*}} : f16 to i16
        %bits = pgpu.bitcast %h00 : f16 to i16
        // CHECK: pgpu.bitcast %{{.*}} : !pgpu.fragment<f32, [BM, BN]> to !pgpu.fragment<i32, [BM, BN]>
        %fbits = pgpu.bitcast %s : !pgpu.fragment<f32, [BM, BN]> to !pgpu.fragment<i32, [BM, BN]>
        %small = pgpu.splat %one : f32 -> !pgpu.fragment<f32, [4, 16]>
        // CHECK: pgpu.reshape %{{.*}} : !pgpu.fragment<f32, [4, 16]> -> !pgpu.fragment<f32, [64]>
        %flat = pgpu.reshape %small : !pgpu.fragment<f32, [4, 16]> -> !pgpu.fragment<f32, [64]>
        // CHECK: pgpu.tuple %{{.*}}, %{{.*}} : i16, !pgpu.fragment<f32, [64]> -> tuple<i16, !pgpu.fragment<f32, [64]>>
        %tup = pgpu.tuple %bits, %flat : i16, !pgpu.fragment<f32, [64]> -> tuple<i16, !pgpu.fragment<f32, [64]>>
        // CHECK: pgpu.tuple_get %{{.*}}[1] : tuple<i16, !pgpu.fragment<f32, [64]>> -> !pgpu.fragment<f32, [64]>
        %back = pgpu.tuple_get %tup[1] : tuple<i16, !pgpu.fragment<f32, [64]>> -> !pgpu.fragment<f32, [64]>
        // COM: z[m, 0..2) = (m, n): written only by the instances with pn == 0.
        %first_n = pgpu.cmp eq %pn, %c0 : index
        pgpu.if %first_n {
          %mrow = pgpu.cast %m : !pgpu.fragment<index, [BM]> to !pgpu.fragment<i32, [BM]>
          %nn32 = pgpu.splat %n : i32 -> !pgpu.fragment<i32, [BM]>
          // CHECK: pgpu.join %{{.*}}, %{{.*}} : !pgpu.fragment<i32, [BM]> -> !pgpu.fragment<i32, [BM, 2]>
          %pair = pgpu.join %mrow, %nn32 : !pgpu.fragment<i32, [BM]> -> !pgpu.fragment<i32, [BM, 2]>
          %col = pgpu.iota %c0 : !pgpu.fragment<index, [2]>
          %zm = pgpu.broadcast %m dims [0] : !pgpu.fragment<index, [BM]> -> !pgpu.fragment<index, [BM, 2]>
          %zc = pgpu.broadcast %col dims [1] : !pgpu.fragment<index, [2]> -> !pgpu.fragment<index, [BM, 2]>
          %Mz = pgpu.splat %M : index -> !pgpu.fragment<index, [BM, 2]>
          %zok = pgpu.cmp lt %zm, %Mz : !pgpu.fragment<index, [BM, 2]>
          pgpu.store %pair, %z[%zm, %zc] valid %zok : !pgpu.fragment<i1, [BM, 2]>
              : !pgpu.fragment<i32, [BM, 2]>, !pgpu.view<i32, [M, 2], out>[!pgpu.fragment<index, [BM, 2]>, !pgpu.fragment<index, [BM, 2]>]
          pgpu.yield
        }
        pgpu.yield
      }
      pgpu.yield
    }
    // COM: Ordered control with carries: for, while/condition, if with results and else.
    // CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : f32) -> f32 {
    // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: f32):
    %sum = pgpu.for %c0 to %di step %c1 iter_args(%zero : f32) -> f32 {
    ^bb0(%i: index, %acc: f32):
      %next = pgpu.binary add %acc, %one : f32
      // CHECK: pgpu.yield %{{.*}} : f32
      pgpu.yield %next : f32
    }
    // CHECK: pgpu.while(%{{.*}} : index) -> index {
    // CHECK: pgpu.condition %{{.*}}, %{{.*}} : index
    // CHECK: } do {
    %w = pgpu.while (%c1 : index) -> index {
    ^bb0(%a: index):
      %go = pgpu.cmp lt %a, %dj : index
      pgpu.condition %go, %a : index
    } do {
    ^bb0(%a: index):
      %a2 = pgpu.binary mul %a, %c2 : index
      pgpu.yield %a2 : index
    }
    %big = pgpu.cmp gt %w, %c2 : index
    // CHECK: pgpu.if %{{.*}} -> f32 {
    // CHECK: } else {
    %r = pgpu.if %big -> f32 {
      pgpu.yield %sum : f32
    } else {
      pgpu.yield %zero : f32
    }
    // CHECK: pgpu.yield{{$}}
    pgpu.yield
  }
  // CHECK: pgpu.return
  pgpu.return
}

// COM: Every access kind, program/iteration buffers, an invocation workspace argument and a
// COM: wrapper-computed scalar argument.
// CHECK-LABEL: pgpu.kernel @accesses_and_buffers
// CHECK-SAME: %ws: !pgpu.buffer<f32, [T, 64], workspace> {pgpu.private = "workspace"}
// CHECK-SAME: %nt: index {pgpu.private = "wrapper_scalar"}
pgpu.kernel @accesses_and_buffers(%table: !pgpu.view<f32, [V, 64], in>, %ids: !pgpu.view<i32, [T], in>,
                                  %out: !pgpu.view<f32, [T, 64], out>, %perm: !pgpu.view<f32, [V, 64], out>,
                                  %grad: !pgpu.view<f32, [V, 64], inout>, %counts: !pgpu.view<i32, [V], inout>,
                                  %lock: !pgpu.view<i32, [1], inout>,
                                  %ws: !pgpu.buffer<f32, [T, 64], workspace> {pgpu.private = "workspace"},
                                  %nt: index {pgpu.private = "wrapper_scalar"})
    attributes {params = [#pgpu.param<"BT", [16, 32], 16>]} {
  %bt = pgpu.param "BT" : index
  %T = pgpu.extent %ids[0] : !pgpu.view<i32, [T], in>
  // CHECK: pgpu.program_space(%nt) {
  pgpu.program_space (%nt) {
  ^bb0(%pt: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %zi = arith.constant 0 : i32
    %onei = arith.constant 1 : i32
    %zf = arith.constant 0.0 : f32
    %t0 = pgpu.binary mul %pt, %bt : index
    %t = pgpu.iota %t0 : !pgpu.fragment<index, [BT]>
    %Tf = pgpu.splat %T : index -> !pgpu.fragment<index, [BT]>
    %tok = pgpu.cmp lt %t, %Tf : !pgpu.fragment<index, [BT]>
    // CHECK: pgpu.load %ids[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BT]> fill %{{.*}} : i32 : !pgpu.view<i32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<i32, [BT]>
    %idv = pgpu.load %ids[%t] valid %tok : !pgpu.fragment<i1, [BT]> fill %zi : i32
        : !pgpu.view<i32, [T], in>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<i32, [BT]>
    %rows = pgpu.cast %idv : !pgpu.fragment<i32, [BT]> to !pgpu.fragment<index, [BT]>
    %d = pgpu.iota %c0 : !pgpu.fragment<index, [64]>
    %r2 = pgpu.broadcast %rows dims [0] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BT, 64]>
    %t2 = pgpu.broadcast %t dims [0] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BT, 64]>
    %d2 = pgpu.broadcast %d dims [1] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [BT, 64]>
    %ok2 = pgpu.broadcast %tok dims [0] : !pgpu.fragment<i1, [BT]> -> !pgpu.fragment<i1, [BT, 64]>
    // CHECK: pgpu.gather %table[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BT, 64]> fill %{{.*}} : f32 : !pgpu.view<f32, [V, 64], in>[!pgpu.fragment<index, [BT, 64]>, !pgpu.fragment<index, [BT, 64]>] -> !pgpu.fragment<f32, [BT, 64]>
    %g = pgpu.gather %table[%r2, %d2] valid %ok2 : !pgpu.fragment<i1, [BT, 64]> fill %zf : f32
        : !pgpu.view<f32, [V, 64], in>[!pgpu.fragment<index, [BT, 64]>, !pgpu.fragment<index, [BT, 64]>]
        -> !pgpu.fragment<f32, [BT, 64]>
    pgpu.store %g, %out[%t2, %d2] valid %ok2 : !pgpu.fragment<i1, [BT, 64]>
        : !pgpu.fragment<f32, [BT, 64]>, !pgpu.view<f32, [T, 64], out>[!pgpu.fragment<index, [BT, 64]>, !pgpu.fragment<index, [BT, 64]>]
    // CHECK: pgpu.scatter %{{.*}}, %perm[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BT, 64]> : !pgpu.fragment<f32, [BT, 64]>, !pgpu.view<f32, [V, 64], out>[!pgpu.fragment<index, [BT, 64]>, !pgpu.fragment<index, [BT, 64]>]
    pgpu.scatter %g, %perm[%r2, %d2] valid %ok2 : !pgpu.fragment<i1, [BT, 64]>
        : !pgpu.fragment<f32, [BT, 64]>, !pgpu.view<f32, [V, 64], out>[!pgpu.fragment<index, [BT, 64]>, !pgpu.fragment<index, [BT, 64]>]
    // CHECK: pgpu.scatter_reduce %{{.*}}, %grad[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BT, 64]> : !pgpu.fragment<f32, [BT, 64]>, !pgpu.view<f32, [V, 64], inout>[!pgpu.fragment<index, [BT, 64]>, !pgpu.fragment<index, [BT, 64]>] {
    // CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32):
    pgpu.scatter_reduce %g, %grad[%r2, %d2] valid %ok2 : !pgpu.fragment<i1, [BT, 64]>
        : !pgpu.fragment<f32, [BT, 64]>, !pgpu.view<f32, [V, 64], inout>[!pgpu.fragment<index, [BT, 64]>, !pgpu.fragment<index, [BT, 64]>] {
    ^bb0(%a: f32, %b: f32):
      %s = pgpu.binary add %a, %b : f32
      pgpu.yield %s : f32
    }
    // COM: Scalar atomics on one row id.
    %row = pgpu.extract %rows[%c0] : !pgpu.fragment<index, [BT]> -> index
    %row_ok = pgpu.extract %tok[%c0] : !pgpu.fragment<i1, [BT]> -> i1
    // CHECK: pgpu.atomic_rmw add %{{.*}}, %counts[%{{.*}}] valid %{{.*}} : i1 order relaxed sharing invocation : i32, !pgpu.view<i32, [V], inout>[index] -> i32
    %old = pgpu.atomic_rmw add %onei, %counts[%row] valid %row_ok : i1 order relaxed sharing invocation
        : i32, !pgpu.view<i32, [V], inout>[index] -> i32
    // CHECK: pgpu.atomic_rmw max %{{.*}}, %counts[%{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BT]> order acq_rel sharing parallel : !pgpu.fragment<i32, [BT]>, !pgpu.view<i32, [V], inout>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<i32, [BT]>
    %olds = pgpu.atomic_rmw max %idv, %counts[%rows] valid %tok : !pgpu.fragment<i1, [BT]> order acq_rel sharing parallel
        : !pgpu.fragment<i32, [BT]>, !pgpu.view<i32, [V], inout>[!pgpu.fragment<index, [BT]>] -> !pgpu.fragment<i32, [BT]>
    // CHECK: pgpu.atomic_cas %{{.*}}, %{{.*}}, %lock[%{{.*}}] valid %{{.*}} : i1 order acq_rel sharing invocation : i32, !pgpu.view<i32, [1], inout>[index] -> i1
    %prev, %won = pgpu.atomic_cas %zi, %onei, %lock[%c0] valid %true : i1 order acq_rel sharing invocation
        : i32, !pgpu.view<i32, [1], inout>[index] -> i1
    // CHECK: pgpu.atomic_load %lock[%{{.*}}] valid %{{.*}} : i1 order acquire sharing invocation : !pgpu.view<i32, [1], inout>[index] -> i32
    %seen = pgpu.atomic_load %lock[%c0] valid %won : i1 order acquire sharing invocation
        : !pgpu.view<i32, [1], inout>[index] -> i32
    // CHECK: pgpu.atomic_store %{{.*}}, %lock[%{{.*}}] valid %{{.*}} : i1 order release sharing invocation : i32, !pgpu.view<i32, [1], inout>[index]
    pgpu.atomic_store %zi, %lock[%c0] valid %won : i1 order release sharing invocation
        : i32, !pgpu.view<i32, [1], inout>[index]
    // COM: A program-private buffer with a full initial value.
    // CHECK: pgpu.alloc init %{{.*}} : f32 : !pgpu.buffer<f32, [BT, 64], program>
    %acc = pgpu.alloc init %zf : f32 : !pgpu.buffer<f32, [BT, 64], program>
    %li = pgpu.iota %c0 : !pgpu.fragment<index, [BT]>
    %l2 = pgpu.broadcast %li dims [0] : !pgpu.fragment<index, [BT]> -> !pgpu.fragment<index, [BT, 64]>
    // CHECK: pgpu.buffer_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] valid %{{.*}} : i1 : !pgpu.fragment<f32, [BT, 64]>, !pgpu.buffer<f32, [BT, 64], program>[!pgpu.fragment<index, [BT, 64]>, !pgpu.fragment<index, [BT, 64]>]
    pgpu.buffer_store %g, %acc[%l2, %d2] valid %true : i1
        : !pgpu.fragment<f32, [BT, 64]>, !pgpu.buffer<f32, [BT, 64], program>[!pgpu.fragment<index, [BT, 64]>, !pgpu.fragment<index, [BT, 64]>]
    // CHECK: pgpu.buffer_load %{{.*}}[%{{.*}}, %{{.*}}] valid %{{.*}} : i1 fill %{{.*}} : f32 : !pgpu.buffer<f32, [BT, 64], program>[!pgpu.fragment<index, [BT, 64]>, !pgpu.fragment<index, [BT, 64]>] -> !pgpu.fragment<f32, [BT, 64]>
    %gb = pgpu.buffer_load %acc[%l2, %d2] valid %true : i1 fill %zf : f32
        : !pgpu.buffer<f32, [BT, 64], program>[!pgpu.fragment<index, [BT, 64]>, !pgpu.fragment<index, [BT, 64]>]
        -> !pgpu.fragment<f32, [BT, 64]>
    // COM: An iteration-private buffer with a first-write obligation, and a fragment initial value.
    %tot = pgpu.for %c0 to %c4 step %c1 iter_args(%zf : f32) -> f32 {
    ^bb0(%i: index, %run: f32):
      // CHECK: pgpu.alloc first_write : !pgpu.buffer<f32, [64], iteration>
      %scratch = pgpu.alloc first_write : !pgpu.buffer<f32, [64], iteration>
      %row_i = pgpu.extract %gb[%i, %c0] : !pgpu.fragment<f32, [BT, 64]> -> f32
      pgpu.buffer_store %row_i, %scratch[%i] valid %true : i1 : f32, !pgpu.buffer<f32, [64], iteration>[index]
      %got = pgpu.buffer_load %scratch[%i] valid %true : i1 fill %zf : f32
          : !pgpu.buffer<f32, [64], iteration>[index] -> f32
      %zrow = pgpu.splat %zf : f32 -> !pgpu.fragment<f32, [64]>
      // CHECK: pgpu.alloc init %{{.*}} : !pgpu.fragment<f32, [64]> : !pgpu.buffer<f32, [64], iteration>
      %zeroed = pgpu.alloc init %zrow : !pgpu.fragment<f32, [64]> : !pgpu.buffer<f32, [64], iteration>
      %sum = pgpu.binary add %run, %got : f32
      pgpu.yield %sum : f32
    }
    // COM: Invocation workspace: each instance writes its own rows.
    // CHECK: pgpu.buffer_store %{{.*}}, %ws[%{{.*}}, %{{.*}}] valid %{{.*}} : !pgpu.fragment<i1, [BT, 64]> : !pgpu.fragment<f32, [BT, 64]>, !pgpu.buffer<f32, [T, 64], workspace>
    pgpu.buffer_store %gb, %ws[%t2, %d2] valid %ok2 : !pgpu.fragment<i1, [BT, 64]>
        : !pgpu.fragment<f32, [BT, 64]>, !pgpu.buffer<f32, [T, 64], workspace>[!pgpu.fragment<index, [BT, 64]>, !pgpu.fragment<index, [BT, 64]>]
    pgpu.yield
  }
  pgpu.return
}

// COM: Structured compute. The program space has constant extent 1, so the region_scan's
// COM: emitter may write the whole output without depending on a program coordinate.
// CHECK-LABEL: pgpu.kernel @structured
pgpu.kernel @structured(%x: !pgpu.view<f32, [64, 128], in>, %src: !pgpu.view<f32, [T], in>,
                        %dst: !pgpu.view<f32, [T], out>, %res: !pgpu.view<f32, [4], out>)
    attributes {params = [#pgpu.param<"BN", [64, 128], 128>]} {
  %c1 = arith.constant 1 : index
  %T = pgpu.extent %src[0] : !pgpu.view<f32, [T], in>
  %bn = pgpu.param "BN" : index
  pgpu.program_space (%c1) {
  ^bb0(%p: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %zh = arith.constant 0.0 : f16
    %r = pgpu.iota %c0 : !pgpu.fragment<index, [64]>
    %c = pgpu.iota %c0 : !pgpu.fragment<index, [128]>
    %ri = pgpu.broadcast %r dims [0] : !pgpu.fragment<index, [64]> -> !pgpu.fragment<index, [64, 128]>
    %ci = pgpu.broadcast %c dims [1] : !pgpu.fragment<index, [128]> -> !pgpu.fragment<index, [64, 128]>
    %v = pgpu.load %x[%ri, %ci] valid %true : i1 fill %zero : f32
        : !pgpu.view<f32, [64, 128], in>[!pgpu.fragment<index, [64, 128]>, !pgpu.fragment<index, [64, 128]>]
        -> !pgpu.fragment<f32, [64, 128]>
    // CHECK: pgpu.reduce %{{.*}}, %{{.*}} axes [1] identity(%{{.*}}, %{{.*}} : f32, f32) : (!pgpu.fragment<f32, [64, 128]>, !pgpu.fragment<f32, [64, 128]>) -> (!pgpu.fragment<f32, [64]>, !pgpu.fragment<f32, [64]>) {
    // CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
    %mx, %sm = pgpu.reduce %v, %v axes [1] identity(%ninf, %zero : f32, f32)
        : (!pgpu.fragment<f32, [64, 128]>, !pgpu.fragment<f32, [64, 128]>) -> (!pgpu.fragment<f32, [64]>, !pgpu.fragment<f32, [64]>) {
    ^bb0(%a0: f32, %a1: f32, %b0: f32, %b1: f32):
      %m = pgpu.binary max %a0, %b0 : f32
      %s = pgpu.binary add %a1, %b1 : f32
      pgpu.yield %m, %s : f32, f32
    }
    // CHECK: pgpu.reduce %{{.*}} axes [0, 1] identity(%{{.*}} : f32) : (!pgpu.fragment<f32, [64, 128]>) -> (f32) {
    %all = pgpu.reduce %v axes [0, 1] identity(%zero : f32) : (!pgpu.fragment<f32, [64, 128]>) -> (f32) {
    ^bb0(%a: f32, %b: f32):
      %s = pgpu.binary add %a, %b : f32
      pgpu.yield %s : f32
    }
    // CHECK: pgpu.scan %{{.*}} axis 1 identity(%{{.*}} : f32) carry(%{{.*}} : f32) exclusive reverse : (!pgpu.fragment<f32, [64, 128]>) -> (!pgpu.fragment<f32, [64, 128]>) {
    %cs = pgpu.scan %v axis 1 identity(%zero : f32) carry(%all : f32) exclusive reverse
        : (!pgpu.fragment<f32, [64, 128]>) -> (!pgpu.fragment<f32, [64, 128]>) {
    ^bb0(%a: f32, %b: f32):
      %s = pgpu.binary add %a, %b : f32
      pgpu.yield %s : f32
    }
    // CHECK: pgpu.scan %{{.*}} axis 0 identity(%{{.*}} : f32) : (!pgpu.fragment<f32, [64]>) -> (!pgpu.fragment<f32, [64]>) {
    %cm = pgpu.scan %mx axis 0 identity(%ninf : f32) : (!pgpu.fragment<f32, [64]>) -> (!pgpu.fragment<f32, [64]>) {
    ^bb0(%a: f32, %b: f32):
      %s = pgpu.binary max %a, %b : f32
      pgpu.yield %s : f32
    }
    // CHECK: pgpu.arg_reduce argmax %{{.*}} axis 1 base %{{.*}} tie lowest nan propagate : !pgpu.fragment<f32, [64, 128]> -> !pgpu.fragment<f32, [64]>, !pgpu.fragment<index, [64]>
    %av, %ai = pgpu.arg_reduce argmax %v axis 1 base %c0 tie lowest nan propagate
        : !pgpu.fragment<f32, [64, 128]> -> !pgpu.fragment<f32, [64]>, !pgpu.fragment<index, [64]>
    // CHECK: pgpu.arg_reduce argmin %{{.*}} axis 0 base %{{.*}} tie highest nan ignore : !pgpu.fragment<f32, [64]> -> f32, index
    %mv, %mi = pgpu.arg_reduce argmin %av axis 0 base %c0 tie highest nan ignore
        : !pgpu.fragment<f32, [64]> -> f32, index
    // COM: Contractions.
    %a = pgpu.cast %v : !pgpu.fragment<f32, [64, 128]> to !pgpu.fragment<f16, [64, 128]>
    %b = pgpu.transpose %a [1, 0] : !pgpu.fragment<f16, [64, 128]> -> !pgpu.fragment<f16, [128, 64]>
    %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [64, 64]>
    // CHECK: pgpu.contract %{{.*}}, %{{.*}}, %{{.*}} reduce([1], [0]) batch([], []) : !pgpu.fragment<f16, [64, 128]>, !pgpu.fragment<f16, [128, 64]>, !pgpu.fragment<f32, [64, 64]> -> !pgpu.fragment<f32, [64, 64]>
    %acc1 = pgpu.contract %a, %b, %acc0 reduce([1], [0]) batch([], [])
        : !pgpu.fragment<f16, [64, 128]>, !pgpu.fragment<f16, [128, 64]>, !pgpu.fragment<f32, [64, 64]>
        -> !pgpu.fragment<f32, [64, 64]>
    %a3 = pgpu.reshape %a : !pgpu.fragment<f16, [64, 128]> -> !pgpu.fragment<f16, [2, 32, 128]>
    %b3 = pgpu.reshape %b : !pgpu.fragment<f16, [128, 64]> -> !pgpu.fragment<f16, [2, 128, 32]>
    %bacc = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [2, 32, 32]>
    // CHECK: pgpu.contract %{{.*}}, %{{.*}}, %{{.*}} reduce([2], [1]) batch([0], [0]) : !pgpu.fragment<f16, [2, 32, 128]>, !pgpu.fragment<f16, [2, 128, 32]>, !pgpu.fragment<f32, [2, 32, 32]> -> !pgpu.fragment<f32, [2, 32, 32]>
    %bres = pgpu.contract %a3, %b3, %bacc reduce([2], [1]) batch([0], [0])
        : !pgpu.fragment<f16, [2, 32, 128]>, !pgpu.fragment<f16, [2, 128, 32]>, !pgpu.fragment<f32, [2, 32, 32]>
        -> !pgpu.fragment<f32, [2, 32, 32]>
    %z8 = arith.constant 1.0 : f8E4M3FN
    %s8 = arith.constant 1.0 : f8E8M0FNU
    %qa = pgpu.splat %z8 : f8E4M3FN -> !pgpu.fragment<f8E4M3FN, [64, 128]>
    %qb = pgpu.splat %z8 : f8E4M3FN -> !pgpu.fragment<f8E4M3FN, [128, 64]>
    %sa = pgpu.splat %s8 : f8E8M0FNU -> !pgpu.fragment<f8E8M0FNU, [64, 4]>
    %sb = pgpu.splat %s8 : f8E8M0FNU -> !pgpu.fragment<f8E8M0FNU, [4, 64]>
    // CHECK: pgpu.scaled_contract %{{.*}} scale %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} format "mxfp8" block 32 reduce([1], [0]) : !pgpu.fragment<f8E4M3FN, [64, 128]>, !pgpu.fragment<f8E8M0FNU, [64, 4]>, !pgpu.fragment<f8E4M3FN, [128, 64]>, !pgpu.fragment<f8E8M0FNU, [4, 64]>, !pgpu.fragment<f32, [64, 64]> -> !pgpu.fragment<f32, [64, 64]>
    %acc2 = pgpu.scaled_contract %qa scale %sa, %qb scale %sb, %acc1 format "mxfp8" block 32 reduce([1], [0])
        : !pgpu.fragment<f8E4M3FN, [64, 128]>, !pgpu.fragment<f8E8M0FNU, [64, 4]>, !pgpu.fragment<f8E4M3FN, [128, 64]>,
          !pgpu.fragment<f8E8M0FNU, [4, 64]>, !pgpu.fragment<f32, [64, 64]> -> !pgpu.fragment<f32, [64, 64]>
    %sp = pgpu.splat %zh : f16 -> !pgpu.fragment<f16, [64, 64]>
    %z16 = arith.constant 0 : i16
    %meta = pgpu.splat %z16 : i16 -> !pgpu.fragment<i16, [64, 64]>
    // CHECK: pgpu.sparse_contract %{{.*}} meta %{{.*}}, %{{.*}}, %{{.*}} pattern 2 : 4 reduce([1], [0]) : !pgpu.fragment<f16, [64, 64]>, !pgpu.fragment<i16, [64, 64]>, !pgpu.fragment<f16, [128, 64]>, !pgpu.fragment<f32, [64, 64]> -> !pgpu.fragment<f32, [64, 64]>
    %acc3 = pgpu.sparse_contract %sp meta %meta, %b, %acc2 pattern 2 : 4 reduce([1], [0])
        : !pgpu.fragment<f16, [64, 64]>, !pgpu.fragment<i16, [64, 64]>, !pgpu.fragment<f16, [128, 64]>, !pgpu.fragment<f32, [64, 64]>
        -> !pgpu.fragment<f32, [64, 64]>
    %ai32 = pgpu.cast %ai : !pgpu.fragment<index, [64]> to !pgpu.fragment<i32, [64]>
    %zero64 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [64]>
    %pos = pgpu.cmp gt %av, %zero64 : !pgpu.fragment<f32, [64]>
    // CHECK: pgpu.histogram %{{.*}} valid %{{.*}} : !pgpu.fragment<i32, [64]>, !pgpu.fragment<i1, [64]> -> !pgpu.fragment<i32, [128]>
    %hist = pgpu.histogram %ai32 valid %pos : !pgpu.fragment<i32, [64]>, !pgpu.fragment<i1, [64]> -> !pgpu.fragment<i32, [128]>
    // COM: Region fold: online max and sum of exp over src, in segments of BN.
    // CHECK: pgpu.region_fold %{{.*}} to %{{.*}} step %{{.*}} identity(%{{.*}}, %{{.*}} : f32, f32) operands(%src : !pgpu.view<f32, [T], in>) -> (f32, f32) summarize {
    // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: !pgpu.view<f32, [T], in>):
    // CHECK: } combine {
    %fm, %fl = pgpu.region_fold %c0 to %T step %bn identity(%ninf, %zero : f32, f32)
        operands(%src : !pgpu.view<f32, [T], in>) -> (f32, f32)
    summarize {
    ^bb0(%lo: index, %hi: index, %in: !pgpu.view<f32, [T], in>):
      %ninf_s = arith.constant 0xFF800000 : f32
      %zero_s = arith.constant 0.0 : f32
      %i = pgpu.iota %lo : !pgpu.fragment<index, [BN]>
      %hif = pgpu.splat %hi : index -> !pgpu.fragment<index, [BN]>
      %ok = pgpu.cmp lt %i, %hif : !pgpu.fragment<index, [BN]>
      %xs = pgpu.load %in[%i] valid %ok : !pgpu.fragment<i1, [BN]> fill %ninf_s : f32
          : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BN]>] -> !pgpu.fragment<f32, [BN]>
      %m = pgpu.reduce %xs axes [0] identity(%ninf_s : f32) : (!pgpu.fragment<f32, [BN]>) -> (f32) {
      ^bb0(%p0: f32, %p1: f32):
        %q = pgpu.binary max %p0, %p1 : f32
        pgpu.yield %q : f32
      }
      %mf = pgpu.splat %m : f32 -> !pgpu.fragment<f32, [BN]>
      %sh = pgpu.binary sub %xs, %mf : !pgpu.fragment<f32, [BN]>
      %ex = pgpu.unary exp %sh : !pgpu.fragment<f32, [BN]>
      %l = pgpu.reduce %ex axes [0] identity(%zero_s : f32) : (!pgpu.fragment<f32, [BN]>) -> (f32) {
      ^bb0(%p0: f32, %p1: f32):
        %q = pgpu.binary add %p0, %p1 : f32
        pgpu.yield %q : f32
      }
      pgpu.yield %m, %l : f32, f32
    } combine {
    ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
      %m = pgpu.binary max %m1, %m2 : f32
      %d1 = pgpu.binary sub %m1, %m : f32
      %d2 = pgpu.binary sub %m2, %m : f32
      %e1 = pgpu.unary exp %d1 : f32
      %e2 = pgpu.unary exp %d2 : f32
      %w1 = pgpu.binary mul %l1, %e1 : f32
      %w2 = pgpu.binary mul %l2, %e2 : f32
      %l = pgpu.binary add %w1, %w2 : f32
      pgpu.yield %m, %l : f32, f32
    }
    // COM: Region scan: blocked inclusive prefix sum of src into dst; the state is the running total.
    // CHECK: pgpu.region_scan %{{.*}} to %{{.*}} step %{{.*}} identity(%{{.*}} : f32) init(%{{.*}} : f32) operands(%src, %dst : !pgpu.view<f32, [T], in>, !pgpu.view<f32, [T], out>) -> (f32) summarize {
    // CHECK: } combine {
    // CHECK: } apply {
    // CHECK: } emit {
    %total = pgpu.region_scan %c0 to %T step %bn identity(%zero : f32) init(%zero : f32)
        operands(%src, %dst : !pgpu.view<f32, [T], in>, !pgpu.view<f32, [T], out>) -> (f32)
    summarize {
    ^bb0(%lo: index, %hi: index, %in: !pgpu.view<f32, [T], in>, %o: !pgpu.view<f32, [T], out>):
      %zero_s = arith.constant 0.0 : f32
      %i = pgpu.iota %lo : !pgpu.fragment<index, [BN]>
      %hif = pgpu.splat %hi : index -> !pgpu.fragment<index, [BN]>
      %ok = pgpu.cmp lt %i, %hif : !pgpu.fragment<index, [BN]>
      %xs = pgpu.load %in[%i] valid %ok : !pgpu.fragment<i1, [BN]> fill %zero_s : f32
          : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BN]>] -> !pgpu.fragment<f32, [BN]>
      %s = pgpu.reduce %xs axes [0] identity(%zero_s : f32) : (!pgpu.fragment<f32, [BN]>) -> (f32) {
      ^bb0(%p0: f32, %p1: f32):
        %q = pgpu.binary add %p0, %p1 : f32
        pgpu.yield %q : f32
      }
      pgpu.yield %s : f32
    } combine {
    ^bb0(%t1: f32, %t2: f32):
      %s = pgpu.binary add %t1, %t2 : f32
      pgpu.yield %s : f32
    } apply {
    ^bb0(%tr: f32, %st: f32):
      %s = pgpu.binary add %st, %tr : f32
      pgpu.yield %s : f32
    } emit {
    ^bb0(%lo: index, %hi: index, %st: f32, %in: !pgpu.view<f32, [T], in>, %o: !pgpu.view<f32, [T], out>):
      %zero_s = arith.constant 0.0 : f32
      %i = pgpu.iota %lo : !pgpu.fragment<index, [BN]>
      %hif = pgpu.splat %hi : index -> !pgpu.fragment<index, [BN]>
      %ok = pgpu.cmp lt %i, %hif : !pgpu.fragment<index, [BN]>
      %xs = pgpu.load %in[%i] valid %ok : !pgpu.fragment<i1, [BN]> fill %zero_s : f32
          : !pgpu.view<f32, [T], in>[!pgpu.fragment<index, [BN]>] -> !pgpu.fragment<f32, [BN]>
      %ps = pgpu.scan %xs axis 0 identity(%zero_s : f32) carry(%st : f32) : (!pgpu.fragment<f32, [BN]>) -> (!pgpu.fragment<f32, [BN]>) {
      ^bb0(%p0: f32, %p1: f32):
        %q = pgpu.binary add %p0, %p1 : f32
        pgpu.yield %q : f32
      }
      pgpu.store %ps, %o[%i] valid %ok : !pgpu.fragment<i1, [BN]>
          : !pgpu.fragment<f32, [BN]>, !pgpu.view<f32, [T], out>[!pgpu.fragment<index, [BN]>]
      pgpu.yield
    }
    %results = pgpu.iota %c0 : !pgpu.fragment<index, [2]>
    %pairv = pgpu.tuple %fm, %fl : f32, f32 -> tuple<f32, f32>
    %fm2 = pgpu.tuple_get %pairv[0] : tuple<f32, f32> -> f32
    pgpu.store %fm2, %res[%c0] valid %true : i1 : f32, !pgpu.view<f32, [4], out>[index]
    pgpu.store %fl, %res[%c1] valid %true : i1 : f32, !pgpu.view<f32, [4], out>[index]
    pgpu.store %total, %res[%c2] valid %true : i1 : f32, !pgpu.view<f32, [4], out>[index]
    pgpu.store %mv, %res[%c3] valid %true : i1 : f32, !pgpu.view<f32, [4], out>[index]
    pgpu.yield
  }
  pgpu.return
}


// CHECK-LABEL: pgpu.kernel @range_reduce
pgpu.kernel @range_reduce(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>) {
  %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
  %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
  pgpu.program_space (%M) {
  ^bb0(%row: index):
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    // CHECK: pgpu.range_reduce %{{.*}} to %{{.*}} identity(%{{.*}} : f32) -> (f32) element {
    // CHECK: } combine {
    %s = pgpu.range_reduce %c0 to %N identity(%z : f32) -> (f32) element {
    ^bb0(%i: index):
      %v = pgpu.load %x[%row, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
      pgpu.yield %v : f32
    } combine {
    ^bb0(%a: f32, %b: f32):
      %c = pgpu.binary add %a, %b : f32
      pgpu.yield %c : f32
    }
    pgpu.store %s, %y[%row] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
    pgpu.yield
  }
  pgpu.return
}
// CHECK-LABEL: pgpu.kernel @range_scan
pgpu.kernel @range_scan(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>) {
  %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
  %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
  pgpu.program_space (%M) {
  ^bb0(%row: index):
    %c0 = arith.constant 0 : index
    %z = arith.constant 0.0 : f32
    %t = arith.constant true
    // CHECK: pgpu.range_scan %{{.*}} to %{{.*}} identity(%{{.*}} : f32) exclusive reverse element {
    // CHECK: } combine {
    // CHECK: } emit {
    pgpu.range_scan %c0 to %N identity(%z : f32) exclusive reverse element {
    ^bb0(%i: index):
      %v = pgpu.load %x[%row, %i] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
      pgpu.yield %v : f32
    } combine {
    ^bb0(%a: f32, %b: f32):
      %c = pgpu.binary add %a, %b : f32
      pgpu.yield %c : f32
    } emit {
    ^bb0(%i: index, %p: f32):
      pgpu.store %p, %y[%row, %i] valid %t : i1 : f32, !pgpu.view<f32, [M, N], out>[index, index]
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}

// CHECK-LABEL: pgpu.kernel @last_program
// CHECK: pgpu.scatter_reduce %{{.*}}, %part[%{{.*}}] valid %{{.*}} : i1 : i32, !pgpu.buffer<i32, [B], workspace>[index] {
// CHECK: pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
// CHECK: pgpu.buffer_load %part[
pgpu.kernel @last_program(%x: !pgpu.view<i32, [N], in>, %h: !pgpu.view<i32, [B], out>,
                          %part: !pgpu.buffer<i32, [B], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32},
                          %ticket: !pgpu.buffer<i32, [1], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32}) {
  %N = pgpu.extent %x[0] : !pgpu.view<i32, [N], in>
  %B = pgpu.extent %h[0] : !pgpu.view<i32, [B], out>
  pgpu.program_space (%N) {
  ^bb0(%i: index):
    %t = arith.constant true
    %z = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %v = pgpu.load %x[%i] valid %t : i1 fill %z : i32 : !pgpu.view<i32, [N], in>[index] -> i32
    %bin = pgpu.cast %v : i32 to index
    pgpu.scatter_reduce %one, %part[%bin] valid %t : i1 : i32, !pgpu.buffer<i32, [B], workspace>[index] {
    ^bb0(%a: i32, %b: i32):
      %s = pgpu.binary add %a, %b : i32
      pgpu.yield %s : i32
    }
    pgpu.last_program %ticket : !pgpu.buffer<i32, [1], workspace> {
      %c0 = arith.constant 0 : index
      pgpu.foreach %c0 to %B {
      ^bb0(%k: index):
        %c = pgpu.buffer_load %part[%k] valid %t : i1 fill %z : i32 : !pgpu.buffer<i32, [B], workspace>[index] -> i32
        pgpu.store %c, %h[%k] valid %t : i1 : i32, !pgpu.view<i32, [B], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}

// CHECK-LABEL: pgpu.kernel @ticketed_last_program
// CHECK: pgpu.last_program %ticket[%{{.*}}] arrivals %{{.*}} : !pgpu.buffer<i32, [N], workspace> {
pgpu.kernel @ticketed_last_program(%x: !pgpu.view<f32, [S, N], in>, %y: !pgpu.view<f32, [N], out>,
                                   %part: !pgpu.buffer<f32, [S, N], workspace> {pgpu.private = "workspace"},
                                   %ticket: !pgpu.buffer<i32, [N], workspace> {pgpu.private = "workspace", pgpu.init = 0 : i32}) {
  %S = pgpu.extent %x[0] : !pgpu.view<f32, [S, N], in>
  %N = pgpu.extent %x[1] : !pgpu.view<f32, [S, N], in>
  %P = pgpu.binary mul %S, %N : index
  pgpu.program_space (%P) {
  ^bb0(%p: index):
    pgpu.execution_group %p extents(%S, %N) segment 0 roles ["s", "n"] {
    ^bb0(%s: index, %n: index):
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %v = pgpu.load %x[%s, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [S, N], in>[index, index] -> f32
      pgpu.buffer_store %v, %part[%s, %n] valid %t : i1 : f32, !pgpu.buffer<f32, [S, N], workspace>[index, index]
      pgpu.last_program %ticket[%n] arrivals %S : !pgpu.buffer<i32, [N], workspace> {
        %c0 = arith.constant 0 : index
        %sum = pgpu.range_reduce %c0 to %S identity(%z : f32) -> (f32) element {
        ^bb0(%j: index):
          %w = pgpu.buffer_load %part[%j, %n] valid %t : i1 fill %z : f32 : !pgpu.buffer<f32, [S, N], workspace>[index, index] -> f32
          pgpu.yield %w : f32
        } combine {
        ^bb0(%a: f32, %b: f32):
          %r = pgpu.binary add %a, %b : f32
          pgpu.yield %r : f32
        }
        pgpu.store %sum, %y[%n] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.yield
  }
  pgpu.return
}
}
