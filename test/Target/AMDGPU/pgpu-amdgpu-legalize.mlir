// RUN: tessel-opt %s -split-input-file -pgpu-amdgpu-legalize -verify-diagnostics | FileCheck %s

// COM: Legalization declares the AMDGPU provider's THREADS (whole 64-lane wavefronts) and VECTOR
// COM: parameters; a program the selector covers passes unchanged otherwise.
// CHECK-LABEL: pgpu.kernel @rowmax
// CHECK-SAME: #pgpu.param<"THREADS", [64, 128, 256, 512, 1024], 128, provider = "amdgpu">
// CHECK-SAME: #pgpu.param<"VECTOR", [1, 2, 4, 8], 4, provider = "amdgpu">
module attributes {pgpu.target = #pgpu.target<arch = "gfx942">} {
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

// COM: Accurate tanh, erf, log1p, expm1 and pow need ocml: rejected at the op, with the reason.
module attributes {pgpu.target = #pgpu.target<arch = "gfx942">} {
  pgpu.kernel @erf(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %v = pgpu.load %x[%c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      // expected-error @+1 {{the AMDGPU selector cannot express 'pgpu.unary': 'erf' needs the ROCm device libraries (ocml), which the in-process AMDGPU provider does not link}}
      %w = pgpu.unary erf %v : f32
      // expected-error @+1 {{the AMDGPU selector cannot express 'pgpu.binary': 'pow' needs the ROCm device libraries (ocml), which the in-process AMDGPU provider does not link}}
      %q = pgpu.binary pow %w, %v : f32
      pgpu.store %q, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}

// -----

// COM: sin and cos are v_sin_f32/v_cos_f32 only with {approximate}.
module attributes {pgpu.target = #pgpu.target<arch = "gfx942">} {
  pgpu.kernel @sin(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %v = pgpu.load %x[%c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      // expected-error @+1 {{the AMDGPU selector cannot express 'pgpu.unary': 'sin' is selected only with {approximate} (the AMDGPU approximate instructions)}}
      %w = pgpu.unary sin %v : f32
      pgpu.store %w, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
