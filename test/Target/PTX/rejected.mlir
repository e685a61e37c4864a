// Programs outside the PTX selector are rejected at the op the author wrote (the DSL or KIR
// location), with the selector's limitation, and no artifact is written (seed 004).

// COM: accurate tanh has no in-process PTX sequence (libdevice); the Triton provider spells it through libdevice.
// RUN: not tessel compile %tessel_src/examples/fused_pointwise.py:fused_pointwise --target=ptx -o %t.fused.ptx 2>&1 | FileCheck %s --check-prefix=TANH
// RUN: test ! -e %t.fused.ptx
// TANH: fused_pointwise.py:14:28: error: the PTX selector cannot express 'pgpu.unary': 'tanh' needs libdevice
// TANH-NOT: error:

// COM: A scatter_reduce whose combine is no PTX atomic (a float max: atom.max has no NaN rule).
// RUN: not tessel compile %s --target=ptx --emit=device 2>&1 | FileCheck %s --check-prefix=ATOMIC
// ATOMIC: rejected.mlir:[[# @LINE + 13]]:7: error: the PTX selector cannot express 'pgpu.scatter_reduce': the combine is not one PTX atomic
// ATOMIC-NOT: gpu.module
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
  pgpu.kernel @scatter_max(%x: !pgpu.view<f32, [N], in>, %ids: !pgpu.view<i32, [N], in>, %y: !pgpu.view<f32, [V], inout>) {
    %N = pgpu.extent %x[0] : !pgpu.view<f32, [N], in>
    pgpu.program_space (%N) {
    ^bb0(%n: index):
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      %zi = arith.constant 0 : i32
      %v = pgpu.load %x[%n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [N], in>[index] -> f32
      %id = pgpu.load %ids[%n] valid %t : i1 fill %zi : i32 : !pgpu.view<i32, [N], in>[index] -> i32
      %row = pgpu.cast %id : i32 to index
      pgpu.scatter_reduce %v, %y[%row] valid %t : i1 : f32, !pgpu.view<f32, [V], inout>[index] {
      ^bb0(%a: f32, %b: f32):
        %m = pgpu.binary max %a, %b : f32
        pgpu.yield %m : f32
      }
      pgpu.yield
    }
    pgpu.return
  }
}

// COM: Tiles whose staging exceeds the shared-memory budget are rejected at the contraction.
// RUN: not tessel compile %tessel_src/examples/kir/gemm.mlir --target=ptx --param TILE_0=256,TILE_1=256 -o %t.big.ptx 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: test ! -e %t.big.ptx
// BUDGET: gemm.mlir:31:15: error: the PTX selector would stage 65536 bytes of fragments in shared memory here, more than its 40960-byte budget

// COM: THREADS outside its domain is a parameter error at the kernel.
// RUN: not tessel compile %tessel_src/examples/kir/softmax.mlir --target=ptx --param THREADS=48 2>&1 | FileCheck %s --check-prefix=DOMAIN
// DOMAIN: error: parameter 'THREADS' = 48 is outside its candidate domain

// COM: --device=cuda needs the PTX target.
// RUN: not tessel run %tessel_src/examples/kir/vector_add.mlir --shape N=37 --scalar scale=0.5 --device=cuda 2>&1 | FileCheck %s --check-prefix=NEEDPTX
// NEEDPTX: error: --device=cuda runs the PTX provider's code; add --target=ptx
