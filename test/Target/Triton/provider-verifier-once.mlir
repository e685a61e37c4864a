// The provider verifier reports an issue once per source location: construction may hold several
// copies of one KIR op (a guarded fast path and its fallback), and the author wrote it once.
// RUN: not tessel-opt %s -pgpu-triton-legalize 2>&1 | FileCheck %s
// CHECK: k.py:7:3: error: the Triton provider cannot express 'pgpu.binary': no Triton operation with this kind's NaN semantics
// CHECK-NOT: k.py:7:3: error
// CHECK: k.py:9:5: error: the Triton provider cannot express 'pgpu.binary'
// CHECK-NOT: error:
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @maxnum(%x: !pgpu.view<f32, [N], in>, %y: !pgpu.view<f32, [N], out>) {
    %c1 = arith.constant 1 : index
    pgpu.program_space (%c1) {
    ^bb0(%p: index):
      %c0 = arith.constant 0 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %v = pgpu.load %x[%c0] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      %a = pgpu.binary max_num %v, %z : f32 loc("k.py":7:3)
      %b = pgpu.binary max_num %v, %v : f32 loc("k.py":7:3)
      %c = pgpu.binary max_num %a, %b : f32 loc("k.py":9:5)
      pgpu.store %c, %y[%c0] valid %t : i1 : f32, !pgpu.view<f32, [N], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
