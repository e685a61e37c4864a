// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/sliding_windows.py:rolling_sum --target=triton --emit=source --remarks 2>&1 | FileCheck %s --check-prefix=SLIDING
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/sliding_windows.py:rolling_sum --target=triton --emit=source --param=LOOP_STAGES=3 | FileCheck %s --check-prefix=PINNED
// RUN: tessel compile %tessel_src/test/Target/Triton/Inputs/sliding_windows.py:strided_sums --target=triton --emit=source --remarks 2>&1 | FileCheck %s --check-prefix=STRIDED

// COM: Each lane of a [BLOCK_R, BLOCK_C] window tile walks its own window x[s, lo[c] + r], lo[c] =
// COM: max(t[c] + 1 - W, 0): neighbouring lanes' windows overlap, so the walk re-reads what the program
// COM: read a step or a lane before (L1 hits). Pipelined, Triton copies each gathered element ahead with
// COM: its own cp.async and reads it back from shared memory, holding every stage's addresses in
// COM: registers; LOOP_STAGES (still declared, still searched) defaults to 1 and the walk is a plain range.
// SLIDING: remark: triton: the walk loads sliding windows (neighbouring lanes' reads overlap, served by L1): LOOP_STAGES defaults to 1, no pipelined copies
// SLIDING: rolling_sum_PARAMS = {{.*}}'LOOP_STAGES': ([1, 2, 3, 4], 1)}
// SLIDING: def _rolling_sum_kernel(
// SLIDING-NOT: num_stages={{[0-9]+}}):
// SLIDING: for {{v[0-9]+}} in range(0, {{v[0-9]+}}, {{v[0-9]+}}):
// SLIDING-NOT: num_stages={{[0-9]+}}):
// SLIDING: _rolling_sum_plans

// COM: A binding that asks for a pipeline still gets it.
// PINNED: def _rolling_sum_kernel(
// PINNED: for {{v[0-9]+}} in tl.range(0, {{v[0-9]+}}, {{v[0-9]+}}, num_stages=3):

// COM: Must not fire: windows x[s, p W + r] of a stride as long as the window (p W steps by W, not by
// COM: one, from lane to lane) are disjoint, streamed from memory: the walk keeps its pipeline.
// STRIDED-NOT: sliding windows
// STRIDED: strided_sums_PARAMS = {{.*}}'LOOP_STAGES': ([1, 2, 3, 4], 3)}
// STRIDED: for {{v[0-9]+}} in tl.range(0, {{v[0-9]+}}, {{v[0-9]+}}, num_stages=3):
