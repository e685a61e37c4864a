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
