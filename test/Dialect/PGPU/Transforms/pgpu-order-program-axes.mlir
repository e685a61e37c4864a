// RUN: tessel-opt %s -split-input-file -pgpu-order-program-axes -verify-diagnostics | FileCheck %s
// RUN: tessel-opt %tessel_src/examples/kir/attention.mlir --tessel-pipeline=stop-after=realize-folds | FileCheck %s --check-prefix=ATTN

// COM: Causal attention (examples/kir/attention.mlir): K and V tiles depend on (b, h), not on the
// COM: query block, the innermost axis already: the order stays.
// ATTN: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) segment 0 roles ["axis0", "axis1", "axis2", "fold_split"]

// COM: A loop reads bias[h, i, t] tiles (no b: the same for every batch member) beside x[b, h, t]
// COM: tiles (no i: shared along the innermost axis already). The programs along b are H * I apart
// COM: in launch order, so b becomes the innermost axis: its extent, role and block argument move
// COM: after i (seed 002 §3.2); the body reads the same coordinates.
// CHECK-LABEL: pgpu.kernel @bias_rows
// CHECK: pgpu.execution_group %{{.*}} extents(%[[H:.*]], %[[I:.*]], %[[B:.*]]) segment 0 roles ["axis1", "axis2", "axis0"]
// CHECK-NEXT: ^bb0(%[[h:.*]]: index, %[[i:.*]]: index, %[[b:.*]]: index):
// CHECK: pgpu.load %x[%[[b]], %[[h]], %{{.*}}]
// CHECK: pgpu.load %bias[%[[h]], %[[i]], %{{.*}}]
// CHECK: pgpu.store %{{.*}}, %o[%[[b]], %[[h]], %[[i]]]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @bias_rows(%x: !pgpu.view<f32, [B, H, T], in>, %bias: !pgpu.view<f32, [H, I, T], in>, %o: !pgpu.view<f32, [B, H, I], out>) attributes {params = [#pgpu.param<"BLOCK", [16, 32, 64], 32>]} {
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %nb = pgpu.extent %x[0] : !pgpu.view<f32, [B, H, T], in>
    %nh = pgpu.extent %x[1] : !pgpu.view<f32, [B, H, T], in>
    %nt = pgpu.extent %x[2] : !pgpu.view<f32, [B, H, T], in>
    %ni = pgpu.extent %bias[1] : !pgpu.view<f32, [H, I, T], in>
    %bh = pgpu.binary mul %nb, %nh : index
    %all = pgpu.binary mul %bh, %ni : index
    %step = pgpu.param "BLOCK" : index
    pgpu.program_space(%all) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-order-program-axes: axis 'axis0' runs innermost}}
      pgpu.execution_group %p extents(%nb, %nh, %ni) segment 0 roles ["axis0", "axis1", "axis2"] {
      ^bb0(%b: index, %h: index, %i: index):
        %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK]>
        %acc = pgpu.for %c0 to %nt step %step iter_args(%acc0 : !pgpu.fragment<f32, [BLOCK]>) -> !pgpu.fragment<f32, [BLOCK]> {
        ^bb0(%t: index, %a: !pgpu.fragment<f32, [BLOCK]>):
          %ts = pgpu.iota %t : !pgpu.fragment<index, [BLOCK]>
          %n = pgpu.splat %nt : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %ts, %n : !pgpu.fragment<index, [BLOCK]>
          %xv = pgpu.load %x[%b, %h, %ts] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [B, H, T], in>[index, index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %bv = pgpu.load %bias[%h, %i, %ts] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [H, I, T], in>[index, index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %s = pgpu.binary add %xv, %bv : !pgpu.fragment<f32, [BLOCK]>
          %r = pgpu.binary add %a, %s : !pgpu.fragment<f32, [BLOCK]>
          pgpu.yield %r : !pgpu.fragment<f32, [BLOCK]>
        }
        %sum = pgpu.reduce %acc axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
        ^bb0(%l: f32, %rr: f32):
          %c = pgpu.binary add %l, %rr : f32
          pgpu.yield %c : f32
        }
        pgpu.store %sum, %o[%b, %h, %i] valid %true : i1 : f32, !pgpu.view<f32, [B, H, I], out>[index, index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the same loop without the bias: x[b, h, t] is shared along the innermost axis
// COM: (the row i) already, so the order stays.
// CHECK-LABEL: pgpu.kernel @shared_inner
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}, %{{.*}}) segment 0 roles ["axis0", "axis1", "axis2"]
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @shared_inner(%x: !pgpu.view<f32, [B, H, T], in>, %o: !pgpu.view<f32, [B, H, I], out>) attributes {params = [#pgpu.param<"BLOCK", [16, 32, 64], 32>]} {
    %c0 = arith.constant 0 : index
    %c7 = arith.constant 7 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %nb = pgpu.extent %x[0] : !pgpu.view<f32, [B, H, T], in>
    %nh = pgpu.extent %x[1] : !pgpu.view<f32, [B, H, T], in>
    %nt = pgpu.extent %x[2] : !pgpu.view<f32, [B, H, T], in>
    %ni = pgpu.extent %o[2] : !pgpu.view<f32, [B, H, I], out>
    %bh = pgpu.binary mul %nb, %nh : index
    %all = pgpu.binary mul %bh, %ni : index
    %step = pgpu.param "BLOCK" : index
    pgpu.program_space(%all) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-order-program-axes: order kept: no loop tile is shared along one axis only, with two or more axes inside it}}
      pgpu.execution_group %p extents(%nb, %nh, %ni) segment 0 roles ["axis0", "axis1", "axis2"] {
      ^bb0(%b: index, %h: index, %i: index):
        %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK]>
        %acc = pgpu.for %c0 to %nt step %step iter_args(%acc0 : !pgpu.fragment<f32, [BLOCK]>) -> !pgpu.fragment<f32, [BLOCK]> {
        ^bb0(%t: index, %a: !pgpu.fragment<f32, [BLOCK]>):
          %ts = pgpu.iota %t : !pgpu.fragment<index, [BLOCK]>
          %n = pgpu.splat %nt : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %ts, %n : !pgpu.fragment<index, [BLOCK]>
          %xv = pgpu.load %x[%b, %h, %ts] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [B, H, T], in>[index, index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %r = pgpu.binary add %a, %xv : !pgpu.fragment<f32, [BLOCK]>
          pgpu.yield %r : !pgpu.fragment<f32, [BLOCK]>
        }
        %sum = pgpu.reduce %acc axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
        ^bb0(%l: f32, %rr: f32):
          %c = pgpu.binary add %l, %rr : f32
          pgpu.yield %c : f32
        }
        pgpu.store %sum, %o[%b, %h, %i] valid %true : i1 : f32, !pgpu.view<f32, [B, H, I], out>[index, index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: x[b, i, t] is shared along h only, the next axis inside b: programs sharing a
// COM: tile are one extent of i apart (a batched GEMM's B tile across its row tiles), still L2 reuse.
// CHECK-LABEL: pgpu.kernel @shared_next
// CHECK: pgpu.execution_group %{{.*}} extents(%{{.*}}, %{{.*}}, %{{.*}}) segment 0 roles ["axis0", "axis1", "axis2"]
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @shared_next(%x: !pgpu.view<f32, [B, I, T], in>, %o: !pgpu.view<f32, [B, H, I], out>) attributes {params = [#pgpu.param<"BLOCK", [16, 32, 64], 32>]} {
    %c0 = arith.constant 0 : index
    %c7 = arith.constant 7 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %nb = pgpu.extent %x[0] : !pgpu.view<f32, [B, I, T], in>
    %nh = pgpu.extent %o[1] : !pgpu.view<f32, [B, H, I], out>
    %nt = pgpu.extent %x[2] : !pgpu.view<f32, [B, I, T], in>
    %ni = pgpu.extent %o[2] : !pgpu.view<f32, [B, H, I], out>
    %bh = pgpu.binary mul %nb, %nh : index
    %all = pgpu.binary mul %bh, %ni : index
    %step = pgpu.param "BLOCK" : index
    pgpu.program_space(%all) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-order-program-axes: order kept: no loop tile is shared along one axis only, with two or more axes inside it}}
      pgpu.execution_group %p extents(%nb, %nh, %ni) segment 0 roles ["axis0", "axis1", "axis2"] {
      ^bb0(%b: index, %h: index, %i: index):
        %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK]>
        %acc = pgpu.for %c0 to %nt step %step iter_args(%acc0 : !pgpu.fragment<f32, [BLOCK]>) -> !pgpu.fragment<f32, [BLOCK]> {
        ^bb0(%t: index, %a: !pgpu.fragment<f32, [BLOCK]>):
          %ts = pgpu.iota %t : !pgpu.fragment<index, [BLOCK]>
          %n = pgpu.splat %nt : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %ts, %n : !pgpu.fragment<index, [BLOCK]>
          %xv = pgpu.load %x[%b, %i, %ts] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [B, I, T], in>[index, index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %r = pgpu.binary add %a, %xv : !pgpu.fragment<f32, [BLOCK]>
          pgpu.yield %r : !pgpu.fragment<f32, [BLOCK]>
        }
        %sum = pgpu.reduce %acc axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
        ^bb0(%l: f32, %rr: f32):
          %c = pgpu.binary add %l, %rr : f32
          pgpu.yield %c : f32
        }
        pgpu.store %sum, %o[%b, %h, %i] valid %true : i1 : f32, !pgpu.view<f32, [B, H, I], out>[index, index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the program body reads the linear program index beyond the group's decoding.
// CHECK-LABEL: pgpu.kernel @linear_read
// CHECK: roles ["axis0", "axis1", "axis2"]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">, kir.compile_options = #kir.compile_options<optimization_remarks = true>} {
  pgpu.kernel @linear_read(%x: !pgpu.view<f32, [B, H, T], in>, %bias: !pgpu.view<f32, [H, I, T], in>, %o: !pgpu.view<f32, [B, H, I], out>, %w: !pgpu.view<index, [B, H, I], out>) attributes {params = [#pgpu.param<"BLOCK", [16, 32, 64], 32>]} {
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %nb = pgpu.extent %x[0] : !pgpu.view<f32, [B, H, T], in>
    %nh = pgpu.extent %x[1] : !pgpu.view<f32, [B, H, T], in>
    %nt = pgpu.extent %x[2] : !pgpu.view<f32, [B, H, T], in>
    %ni = pgpu.extent %bias[1] : !pgpu.view<f32, [H, I, T], in>
    %bh = pgpu.binary mul %nb, %nh : index
    %all = pgpu.binary mul %bh, %ni : index
    %step = pgpu.param "BLOCK" : index
    pgpu.program_space(%all) {
    ^bb0(%p: index):
      // expected-remark @+1 {{pgpu-order-program-axes: order kept: the program index is read other than by the group's decoding}}
      pgpu.execution_group %p extents(%nb, %nh, %ni) segment 0 roles ["axis0", "axis1", "axis2"] {
      ^bb0(%b: index, %h: index, %i: index):
        %acc0 = pgpu.splat %zero : f32 -> !pgpu.fragment<f32, [BLOCK]>
        %acc = pgpu.for %c0 to %nt step %step iter_args(%acc0 : !pgpu.fragment<f32, [BLOCK]>) -> !pgpu.fragment<f32, [BLOCK]> {
        ^bb0(%t: index, %a: !pgpu.fragment<f32, [BLOCK]>):
          %ts = pgpu.iota %t : !pgpu.fragment<index, [BLOCK]>
          %n = pgpu.splat %nt : index -> !pgpu.fragment<index, [BLOCK]>
          %ok = pgpu.cmp lt %ts, %n : !pgpu.fragment<index, [BLOCK]>
          %bv = pgpu.load %bias[%h, %i, %ts] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %zero : f32 : !pgpu.view<f32, [H, I, T], in>[index, index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
          %r = pgpu.binary add %a, %bv : !pgpu.fragment<f32, [BLOCK]>
          pgpu.yield %r : !pgpu.fragment<f32, [BLOCK]>
        }
        %sum = pgpu.reduce %acc axes [0] identity(%zero : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
        ^bb0(%l: f32, %rr: f32):
          %c = pgpu.binary add %l, %rr : f32
          pgpu.yield %c : f32
        }
        pgpu.store %sum, %o[%b, %h, %i] valid %true : i1 : f32, !pgpu.view<f32, [B, H, I], out>[index, index, index]
        pgpu.store %p, %w[%b, %h, %i] valid %true : i1 : index, !pgpu.view<index, [B, H, I], out>[index, index, index]
        pgpu.yield
      }
      pgpu.yield
    }
    pgpu.return
  }
}
