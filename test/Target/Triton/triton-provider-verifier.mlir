// RUN: tessel-opt %s -split-input-file -pgpu-triton-legalize -verify-diagnostics

// The provider verifier runs at the end of Triton legalization (seed 002 §3.6, §5.4): what the
// shared verifier accepts but Triton cannot spell is an error at the op, before any serializer.

module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @cube(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>)
      attributes {params = [#pgpu.param<"B", [16], 16>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %z = arith.constant 0.0 : f32
      // expected-error @+1 {{the Triton provider cannot express 'pgpu.splat': fragments of rank > 2 are not spelled yet}}
      %t = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [B, B, B]>
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @maxnum(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %v = pgpu.load %x[%c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      // expected-error @+1 {{the Triton provider cannot express 'pgpu.binary': no Triton operation with this kind's NaN semantics}}
      %w = pgpu.binary max_num %v, %z : f32
      pgpu.store %w, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @batched_dot(%x: !pgpu.view<f16, [N], in>)
      attributes {params = [#pgpu.param<"B", [16], 16>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %h = arith.constant 0.0 : f16
      %z = arith.constant 0.0 : f32
      %a = pgpu.splat %h : f16 -> !pgpu.fragment<f16, [B, B]>
      %b = pgpu.splat %h : f16 -> !pgpu.fragment<f16, [B, B]>
      %acc = pgpu.splat %z : f32 -> !pgpu.fragment<f32, [B, B]>
      // expected-error @+1 {{the Triton provider cannot express 'pgpu.contract': tl.dot spells only [M, K] x [K, N] with no batch axes}}
      %r = pgpu.contract %a, %b, %acc reduce([1], [1]) batch([], [])
          : !pgpu.fragment<f16, [B, B]>, !pgpu.fragment<f16, [B, B]>, !pgpu.fragment<f32, [B, B]> -> !pgpu.fragment<f32, [B, B]>
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @histogram2d(%x: !pgpu.view<i32, [N], in>)
      attributes {params = [#pgpu.param<"B", [16], 16>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %z = arith.constant 0 : i32
      %t = arith.constant true
      %v = pgpu.splat %z : i32 -> !pgpu.fragment<i32, [B, B]>
      // expected-error @+1 {{the Triton provider cannot express 'pgpu.histogram': tl.histogram counts a one-dimensional fragment}}
      %c = pgpu.histogram %v valid %t : !pgpu.fragment<i32, [B, B]>, i1 -> !pgpu.fragment<i32, [B]>
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// A scalar atomic read-modify-write is spelled (add, max, min, exchange) on a view or workspace; other
// kinds and fragment values are errors at the op.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rmw(%acc: !pgpu.view<i32, [N], inout>, %ctr: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"})
      attributes {params = [#pgpu.param<"B", [16], 16>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %one = arith.constant 1 : i32
      %taken = pgpu.atomic_rmw add %one, %ctr[%c0] valid %t : i1 order relaxed sharing invocation : i32, !pgpu.buffer<i32, [1], workspace>[index] -> i32
      // expected-error @+1 {{the Triton provider cannot express 'pgpu.atomic_rmw': no Triton spelling for an atomic 'and'}}
      %a = pgpu.atomic_rmw and %taken, %acc[%c0] valid %t : i1 order relaxed sharing invocation : i32, !pgpu.view<i32, [N], inout>[index] -> i32
      %i = pgpu.iota %c0 : !pgpu.fragment<index, [B]>
      %ts = pgpu.splat %t : i1 -> !pgpu.fragment<i1, [B]>
      %ones = pgpu.splat %one : i32 -> !pgpu.fragment<i32, [B]>
      // expected-error @+1 {{the Triton provider cannot express 'pgpu.atomic_rmw': an atomic read-modify-write is spelled for scalars only}}
      %f = pgpu.atomic_rmw add %ones, %acc[%i] valid %ts : !pgpu.fragment<i1, [B]> order relaxed sharing invocation : !pgpu.fragment<i32, [B]>, !pgpu.view<i32, [N], inout>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<i32, [B]>
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: No Triton atomic computes a max of f16 values (tl.atomic_max takes f32 and f64 floats), nor a
// COM: combine of more than one op: refused at the op.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scatter_combines(%x: !pgpu.view<f16, [N], in>, %y: !pgpu.view<f16, [S], inout>,
                                %k: !pgpu.view<i32, [N], in>, %h: !pgpu.view<i32, [S], inout>)
      attributes {params = [#pgpu.param<"B", [16], 16>]} {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f16
      %zi = arith.constant 0 : i32
      %lanes = pgpu.iota %c0 : !pgpu.fragment<index, [B]>
      %v = pgpu.load %x[%lanes] valid %t : i1 fill %z : f16 : !pgpu.view<f16, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<f16, [B]>
      %i = pgpu.load %k[%lanes] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [N], in>[!pgpu.fragment<index, [B]>] -> !pgpu.fragment<i32, [B]>
      %at = pgpu.cast %i : !pgpu.fragment<i32, [B]> to !pgpu.fragment<index, [B]>
      // expected-error @+1 {{the Triton provider cannot express 'pgpu.scatter_reduce': the combine is not one Triton atomic}}
      pgpu.scatter_reduce %v, %y[%at] valid %t : i1 : !pgpu.fragment<f16, [B]>, !pgpu.view<f16, [S], inout>[!pgpu.fragment<index, [B]>] {
      ^bb0(%a: f16, %b: f16):
        %r = pgpu.binary max %a, %b : f16
        pgpu.yield %r : f16
      }
      // expected-error @+1 {{the Triton provider cannot express 'pgpu.scatter_reduce': the combine is not one Triton atomic}}
      pgpu.scatter_reduce %i, %h[%at] valid %t : i1 : !pgpu.fragment<i32, [B]>, !pgpu.view<i32, [S], inout>[!pgpu.fragment<index, [B]>] {
      ^bb0(%a: i32, %b: i32):
        %s = pgpu.binary add %a, %b : i32
        %r = pgpu.binary mul %s, %s : i32
        pgpu.yield %r : i32
      }
      pgpu.yield
    }
    pgpu.return
  }
}
