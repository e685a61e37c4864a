//===- OnlineFoldsPrep.h - kir-online-folds' preliminary rewrites ===//
#ifndef TESSEL_KIR_TRANSFORMS_ONLINEFOLDSPREP_H
#define TESSEL_KIR_TRANSFORMS_ONLINEFOLDSPREP_H

#include "tessel/Dialect/KIR/IR/KIR.h"

#include "mlir/IR/BuiltinOps.h"

namespace tessel::kir {

/// Whether `r` reduces one float input of rank `rank` (1, or 2 for per-row summaries) over its
/// last axis with a combine that is one `kir.binary kind` of its two arguments.
bool isPlainReduce(ReduceOp r, BinaryKind kind, int64_t rank = 1);

/// A contraction of a row divided by its own sum becomes the contraction of the row divided by the sum
/// after it (numerics = relaxed_normalization with online_reduction; OnlineFoldsPrep.cpp says when).
void divideAfterContractions(mlir::ModuleOp module, bool remarks);

/// A broadcast of a tensor over its own domains in its own axis order is replaced by the tensor.
void dropIdentityBroadcasts(mlir::ModuleOp module);

} // namespace tessel::kir

#endif // TESSEL_KIR_TRANSFORMS_ONLINEFOLDSPREP_H
