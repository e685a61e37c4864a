// RUN: tessel compile %tessel_src/bench/corpus/45_swiglu_down.py:swiglu_down --target=triton --emit=source | FileCheck %s --check-prefix=SPECIAL
// RUN: tessel compile %tessel_src/bench/corpus/113_rmsnorm_linear.py:rmsnorm_linear --target=triton --emit=source | FileCheck %s --check-prefix=PRODUCTS
// COM: pgpu-stage-operands' OPERAND_PHASES default (the cost rule): staged (2) where the row operand's
// COM: arithmetic in the K loop has a special function or a float division (silu(g) * u: a sigmoid per
// COM: element and tile of N); recomputed (1) where it is a few multiplies of a loaded tile by row and column
// COM: vectors (an RMSNorm's x * rstd * g: 0.86 ms recomputed against 1.09 ms staged on an H100). Both
// COM: declare the parameter, so the tuner can take either.
// SPECIAL: 'OPERAND_PHASES': ([1, 2], 2)
// PRODUCTS: 'OPERAND_PHASES': ([1, 2], 1)
