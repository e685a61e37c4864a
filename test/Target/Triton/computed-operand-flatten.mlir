// RUN: tessel compile %tessel_src/bench/corpus/57_int4_gemm.py:int4_gemm --target=triton --emit=source 2>&1 | FileCheck %s
// RUN: tessel compile %tessel_src/bench/corpus/152_w8a16_gemm.py:w8a16_gemm --target=triton --emit=source 2>&1 | FileCheck %s --check-prefix=CAST
// RUN: tessel compile %tessel_src/bench/corpus/80_gptq_int4_gemm.py:gptq_int4_gemm --target=triton --emit=source 2>&1 | FileCheck %s --check-prefix=KLANES
// RUN: tessel compile %tessel_src/bench/corpus/145_int8_gemm_rowcol_scale.py:int8_gemm_rowcol_scale --target=triton --emit=source 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: tessel compile %tessel_src/bench/corpus/45_swiglu_down.py:swiglu_down --target=triton --emit=source 2>&1 | FileCheck %s --check-prefix=PLAIN

// COM: chooseContractionDefaults (TritonLegalize.cpp, computedOperandReadsAlongTiles): an operand computed
// COM: in the K loop whose read no descriptor spans runs along a tile axis (corpus 57's wq[k // 2, n]: n
// COM: contiguous, a lane vector made outside the K loop). Under the flattened persistent walk Triton
// COM: carries that vector as a loop value and loses its contiguity: the i8 tile was a plain tt.load, not
// COM: pipelined (sm_90 TTGIR, Triton 3.6, SPLIT_K 1); unflattened it is a 16-byte cp.async at STAGES depth.
// CHECK: int4_gemm_PARAMS = {{.*}}'FLATTEN': ([0, 1], 0)}
// CHECK: for v{{[0-9]+}} in range(v{{[0-9]+}}, v{{[0-9]+}}, v{{[0-9]+}}):
// CHECK-NOT: flatten=True

// COM: fires: a cast of an int8 [K, N] weight (the same read along n).
// CAST: w8a16_gemm_PARAMS = {{.*}}'FLATTEN': ([0, 1], 0)}

// COM: Must not fire: the packed read runs along the K lanes (wq[n, k // 2]: its contiguity is the K loop's
// COM: own, flattened or not).
// KLANES: gptq_int4_gemm_PARAMS = {{.*}}'FLATTEN': ([0, 1], 1)}

// COM: Must not fire: operands read as they are (int8 x int8), or computed from descriptor boxes (45's silu(g) * u).
// PLAIN: _PARAMS = {{.*}}'FLATTEN': ([0, 1], 1)}
