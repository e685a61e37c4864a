//===- RowSumChains.h - row sums of a matrix product's row become region folds ===//
#ifndef TESSEL_KIR_TRANSFORMS_ROWSUMCHAINS_H
#define TESSEL_KIR_TRANSFORMS_ROWSUMCHAINS_H

#include "mlir/IR/BuiltinOps.h"

namespace tessel::kir {

/// kir-online-folds' second part (RowSumChains.cpp): in each kir.parallel body whose row over one
/// axis is computed by a contraction, the plain sums of functions of the row (and of earlier sums)
/// become region folds in order, and the stores over the axis recompute the row after them.
void foldRowSumChains(mlir::ModuleOp module, bool remarks);

} // namespace tessel::kir

#endif // TESSEL_KIR_TRANSFORMS_ROWSUMCHAINS_H
