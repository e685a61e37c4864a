// RUN: tessel-opt %s -split-input-file -pgpu-cutile-legalize -verify-diagnostics | FileCheck %s

// COM: An unblocked range_reduce becomes its ordered loop (the shared expansion the Triton provider
// COM: uses; seed 002 §3.7: the serializer creates no loops); a program cuTile covers passes otherwise.
// COM: cuTile's launch hints are declared as provider parameters (cuTile's defaults).
// CHECK-LABEL: pgpu.kernel @rowsum
// CHECK-SAME: params = [#pgpu.param<"OCCUPANCY", [0, 1, 2, 4, 8], 0, provider = "cutile">, #pgpu.param<"NUM_CTAS", [1, 2], 1, provider = "cutile">, #pgpu.param<"WORKER_WARPS", [0, 4, 8], 0, provider = "cutile">]
// CHECK-NOT: pgpu.range_reduce
// CHECK: pgpu.for %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} : f32) -> f32
// CHECK: pgpu.binary add
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rowsum(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
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
}

// -----

// COM: cuTile tiles have power-of-two extents: a bound parameter of 96 is rejected at the first op
// COM: that makes such a fragment, naming the axis and the value.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rows(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 96, 128], 96>]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      // expected-error @+1 {{the cuTile provider cannot express 'pgpu.iota': cuTile tiles have power-of-two extents; axis 0 of !pgpu.fragment<index, [BLOCK]> is 96 at the bound parameters}}
      %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
      %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
      %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
      %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
      pgpu.store %v, %y[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: tanh: cuTile documents no accuracy for ct.tanh (the Triton provider has no spelling either).
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @tanh(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    pgpu.program_space (%N) {
    ^bb0(%n: index):
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %v = pgpu.load %x[%n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      // expected-error @+1 {{the cuTile provider cannot express 'pgpu.unary': 'tanh' has no cuTile function with a documented accuracy}}
      %w = pgpu.unary tanh %v : f32
      // expected-error @+1 {{the cuTile provider cannot express 'pgpu.binary': float 'rem' (fmod) has no exact cuTile operation}}
      %r = pgpu.binary rem %w, %v : f32
      pgpu.store %r, %y[%n] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: ct.reduce takes constant identities; a program-scoped buffer has no spelling yet.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @runtime_identity(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [1], out>, %s: f32) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [16]>
      %ok = pgpu.splat %t : i1 -> !pgpu.fragment<i1, [16]>
      %v = pgpu.load %x[%lanes] valid %ok : !pgpu.fragment<i1, [16]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [16]>] -> !pgpu.fragment<f32, [16]>
      // expected-error @+1 {{the cuTile provider cannot express 'pgpu.reduce': ct.reduce takes constant identities; this identity is computed at run time}}
      %m = pgpu.reduce %v axes [0] identity(%s : f32) : (!pgpu.fragment<f32, [16]>) -> (f32) {
      ^bb0(%l: f32, %r: f32):
        %a = pgpu.binary add %l, %r : f32
        pgpu.yield %a : f32
      }
      // expected-error @+1 {{the cuTile provider cannot express 'pgpu.alloc': no cuTile spelling for this op yet}}
      %acc = pgpu.alloc init %z : f32 : !pgpu.buffer<f32, [4], program>
      pgpu.store %m, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [1], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: A fragment load every program makes alike (w[lanes]: no program coordinate in its coordinates)
// COM: declares SHARED_TMA (whether TMA stages it; 0 by default, read through L2).
// CHECK-LABEL: pgpu.kernel @scale_rows
// CHECK-SAME: #pgpu.param<"WORKER_WARPS", [0, 4, 8], 0, provider = "cutile">, #pgpu.param<"SHARED_TMA", [0, 1], 0, provider = "cutile">]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scale_rows(%x: !pgpu.view<f32, [M, N], in>, %w: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64], 64>]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
      %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
      %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
      %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
      %s = pgpu.load %w[%lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
      %p = pgpu.binary mul %v, %s : !pgpu.fragment<f32, [BLOCK]>
      pgpu.store %p, %y[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Must not fire: the same load of w at lanes offset by the program's row (w[row + lanes]) differs
// COM: between programs, and x[row, lanes] is each program's own row: no SHARED_TMA.
// CHECK-LABEL: pgpu.kernel @shifted_rows
// CHECK-SAME: #pgpu.param<"WORKER_WARPS", [0, 4, 8], 0, provider = "cutile">]
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @shifted_rows(%x: !pgpu.view<f32, [M, N], in>, %w: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [M, N], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64], 64>]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [BLOCK]>
      %shifted = pgpu.iota %row : !pgpu.fragment<index, [BLOCK]>
      %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
      %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
      %in = pgpu.cmp lt %shifted, %bound : !pgpu.fragment<index, [BLOCK]>
      %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
      %s = pgpu.load %w[%shifted] valid %in : !pgpu.fragment<i1, [BLOCK]> fill %z : f32 : !pgpu.view<f32, [N], in>[!pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
      %p = pgpu.binary mul %v, %s : !pgpu.fragment<f32, [BLOCK]>
      pgpu.store %p, %y[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> : !pgpu.fragment<f32, [BLOCK]>, !pgpu.view<f32, [M, N], out>[index, !pgpu.fragment<index, [BLOCK]>]
      pgpu.yield
    }
    pgpu.return
  }
}
