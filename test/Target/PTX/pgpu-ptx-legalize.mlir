// RUN: tessel-opt %s -split-input-file -pgpu-ptx-legalize -verify-diagnostics | FileCheck %s

// COM: Legalization declares the provider's THREADS parameter; a program the selector covers
// COM: passes unchanged otherwise.
// CHECK-LABEL: pgpu.kernel @rowmax
// CHECK-SAME: #pgpu.param<"BLOCK", [64, 128], 64>, #pgpu.param<"THREADS", [32, 64, 128, 256, 512, 1024], 128, provider = "ptx">
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @rowmax(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>)
      attributes {params = [#pgpu.param<"BLOCK", [64, 128], 64>]} {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%row: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %ninf = arith.constant 0xFF800000 : f32
      %block = pgpu.param "BLOCK" : index
      %max = pgpu.for %c0 to %N step %block iter_args(%ninf : f32) -> f32 {
      ^bb0(%b: index, %acc: f32):
        %lanes = pgpu.iota %b : !pgpu.fragment<index, [BLOCK]>
        %bound = pgpu.splat %N : index -> !pgpu.fragment<index, [BLOCK]>
        %ok = pgpu.cmp lt %lanes, %bound : !pgpu.fragment<index, [BLOCK]>
        %v = pgpu.load %x[%row, %lanes] valid %ok : !pgpu.fragment<i1, [BLOCK]> fill %ninf : f32 : !pgpu.view<f32, [M, N], in>[index, !pgpu.fragment<index, [BLOCK]>] -> !pgpu.fragment<f32, [BLOCK]>
        %part = pgpu.reduce %v axes [0] identity(%ninf : f32) : (!pgpu.fragment<f32, [BLOCK]>) -> (f32) {
        ^bb0(%l: f32, %r: f32):
          %m = pgpu.binary max %l, %r : f32
          pgpu.yield %m : f32
        }
        %next = pgpu.binary max %acc, %part : f32
        pgpu.yield %next : f32
      }
      pgpu.store %max, %y[%row] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: tanh needs libdevice: rejected at the op, with the reason.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @tanh(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %v = pgpu.load %x[%c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      // expected-error @+1 {{the PTX selector cannot express 'pgpu.unary': 'tanh' needs libdevice, which the in-process PTX provider does not link}}
      %w = pgpu.unary tanh %v : f32
      pgpu.store %w, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Arg-reductions run along rank-1 fragments only: a rank-2 one is rejected at the op.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @argmax2(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<i64, [M], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %z = arith.constant 0.0 : f32
      %t = arith.constant true
      %m = pgpu.iota %c0 : !pgpu.fragment<index, [4]>
      %mm = pgpu.broadcast %m dims [0] : !pgpu.fragment<index, [4]> -> !pgpu.fragment<index, [4, 4]>
      %nn = pgpu.broadcast %m dims [1] : !pgpu.fragment<index, [4]> -> !pgpu.fragment<index, [4, 4]>
      %ok = pgpu.splat %t : i1 -> !pgpu.fragment<i1, [4, 4]>
      %v = pgpu.load %x[%mm, %nn] valid %ok : !pgpu.fragment<i1, [4, 4]> fill %z : f32 : !pgpu.view<f32, [M, N], in>[!pgpu.fragment<index, [4, 4]>, !pgpu.fragment<index, [4, 4]>] -> !pgpu.fragment<f32, [4, 4]>
      // expected-error @+1 {{the PTX selector cannot express 'pgpu.arg_reduce': rank-2 fragments are not selected yet for this op (it runs along rank-1 fragments)}}
      %best, %pos = pgpu.arg_reduce argmax %v axis 1 base %c0 tie lowest nan propagate : !pgpu.fragment<f32, [4, 4]> -> !pgpu.fragment<f32, [4]>, !pgpu.fragment<index, [4]>
      %okm = pgpu.splat %t : i1 -> !pgpu.fragment<i1, [4]>
      %pos64 = pgpu.cast %pos : !pgpu.fragment<index, [4]> to !pgpu.fragment<i64, [4]>
      pgpu.store %pos64, %y[%m] valid %okm : !pgpu.fragment<i1, [4]> : !pgpu.fragment<i64, [4]>, !pgpu.view<i64, [M], out>[!pgpu.fragment<index, [4]>]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: Invocation workspace is a kernel argument the runtime allocates: accepted. A program-scoped
// COM: buffer (pgpu.alloc) has no selection yet: rejected at the alloc.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @staged(%x: !pgpu.view<f32, [M], in>,
                      %ws: !pgpu.buffer<f32, [M], workspace> {pgpu.private = "workspace"}) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M], in>
    pgpu.program_space (%M) {
    ^bb0(%m: index):
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %v = pgpu.load %x[%m] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M], in>[index] -> f32
      pgpu.buffer_store %v, %ws[%m] valid %t : i1 : f32, !pgpu.buffer<f32, [M], workspace>[index]
      // expected-error @+1 {{the PTX selector cannot express 'pgpu.alloc': no PTX selection for this op yet}}
      %acc = pgpu.alloc init %z : f32 : !pgpu.buffer<f32, [4], program>
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: 8-bit floats have no LLVM type: rejected at the first op that makes one.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @f8(%x: !pgpu.view<f8E4M3FN, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f8E4M3FN, [N], in>
    pgpu.program_space (%N) {
    ^bb0(%n: index):
      %t = arith.constant true
      %z = arith.constant 0.0 : f8E4M3FN
      // expected-error @-1 {{the PTX selector cannot express 'arith.constant': 8-bit float values are not selected yet}}
      // expected-error @+1 {{the PTX selector cannot express 'pgpu.load': 8-bit float values are not selected yet}}
      %v = pgpu.load %x[%n] valid %t : i1 fill %z : f8E4M3FN : !pgpu.view<f8E4M3FN, [N], in>[index] -> f8E4M3FN
      // expected-error @+1 {{the PTX selector cannot express 'pgpu.cast': 8-bit float values are not selected yet}}
      %w = pgpu.cast %v : f8E4M3FN to f32
      pgpu.store %w, %y[%n] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: log1p and expm1 have library precision (types §5), which needs libdevice: rejected at the op.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @log1p(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %v = pgpu.load %x[%c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      // expected-error @+1 {{the PTX selector cannot express 'pgpu.unary': 'log1p' needs libdevice, which the in-process PTX provider does not link}}
      %w = pgpu.unary log1p %v : f32
      pgpu.store %w, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
