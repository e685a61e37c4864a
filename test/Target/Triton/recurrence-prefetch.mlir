// RUN: tessel compile %tessel_src/bench/corpus/25_ema.py:ema --target=triton --emit=source | FileCheck %s
// RUN: tessel compile %tessel_src/bench/corpus/25_ema.py:ema --target=triton --emit=source --param=STAGES=6 | FileCheck %s --check-prefix=DEEP
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/recurrences.py:scalar_state --target=triton --emit=source | FileCheck %s --check-prefix=SCALAR
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/recurrences.py:row_sums --target=triton --emit=source | FileCheck %s --check-prefix=NESTED
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/recurrences.py:no_carry --target=triton --emit=source | FileCheck %s --check-prefix=NOCARRY
// RUN: tessel compile %tessel_src/bench/corpus/25_ema_b.py:ema_scan --target=triton --emit=source --param=STAGES=5 | FileCheck %s --check-prefix=SCAN

// COM: A unit-step pgpu.for carrying a state, whose body loads fragments independent of the state from
// COM: views it does not write (Triton.h, prefetchesRecurrence), is spelled tl.range(..., num_stages=STAGES):
// COM: Triton pipelines loads that feed no tl.dot only so. Before: `for v34 in range(0, v8, 1):`, each
// COM: step of the EMA waiting for its own load of x (corpus 25: 1.63 ms against 0.70 for its scan spelling).
// COM: The resource model counts STAGES buffers of each load of such a loop in shared memory.
// CHECK: def ema_PRUNE(p):
// CHECK: if 4 * p['BLOCK_P'] * p['STAGES']{{.*}} > 232448:
// CHECK: def _ema_kernel(
// CHECK: for [[T:v[0-9]+]] in tl.range(0, v{{[0-9]+}}, 1, num_stages=3):
// CHECK: tl.load(x + {{.*}}([[T]]) * x_stride1
// CHECK: for [[U:v[0-9]+]] in tl.range(0, v{{[0-9]+}}, 1, num_stages=3):
// CHECK: tl.load(x + {{.*}}([[U]]) * x_stride1
// DEEP: for v{{[0-9]+}} in tl.range(0, v{{[0-9]+}}, 1, num_stages=6):
// DEEP: for v{{[0-9]+}} in tl.range(0, v{{[0-9]+}}, 1, num_stages=6):

// COM: A scalar state per program is packed into BLOCK_P lanes: its loads are fragments too.
// SCALAR: def _scalar_state_kernel(
// SCALAR: in tl.range(0, v{{[0-9]+}}, 1, num_stages=3):

// COM: Must not fire: a step whose body walks C in blocks (a nested loop: Triton pipelines the innermost),
// COM: a time loop carrying nothing (its iterations wait for no state), the blocked loops of a scan.
// COM: (Its walk over C, an innermost loop carrying the row's sum, is pipelined LOOP_STAGES deep instead:
// COM: Triton.h pipelinesWalk, pipelined-walks.mlir.)
// COM: Where C fits one block (pgpu-stage-rows' guarded path) the step reads its row as one tile, so
// COM: that path's time loop is the innermost and is prefetched like SCALAR's.
// NESTED: def _row_sums_kernel(
// NESTED: if _G0:
// NESTED: for {{v[0-9]+}} in tl.range(0, {{v[0-9]+}}, 1, num_stages=3):
// NESTED: else:
// NESTED-NOT: num_stages=
// NESTED: for {{v[0-9]+}} in range(0, {{v[0-9]+}}, 1):
// NESTED: for {{v[0-9]+}} in tl.range({{.*}}, num_stages=3):
// NESTED: _row_sums_plans
// NOCARRY: def _no_carry_kernel(
// NOCARRY-NOT: num_stages=
// NOCARRY: _no_carry_plans
// COM: (The scan's block walks are pipelined by LOOP_STAGES, not STAGES: Triton.h pipelinesWalk.)
// SCAN: def _ema_scan_kernel(
// SCAN-NOT: num_stages=5):
// SCAN: in tl.range({{.*}}, num_stages=3):
// SCAN-NOT: num_stages=5):
// SCAN: _ema_scan_plans
