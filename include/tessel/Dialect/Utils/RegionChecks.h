//===- RegionChecks.h - region checks shared by kir and pgpu ----*- C++ -*-===//
//
// Structured ops of both dialects carry typed pure regions (seed 000 §8,
// seed 002 §5.1/§5.3); these helpers check their signatures, purity and
// closure with the same messages in both verifiers.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_UTILS_REGIONCHECKS_H
#define TESSEL_DIALECT_UTILS_REGIONCHECKS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace tessel {

/// Checks that `region`'s entry block takes `args` and that its terminator
/// yields `results`; `name` names the region in diagnostics.
mlir::LogicalResult verifyRegionSignature(mlir::Operation *op, mlir::Region &region, llvm::StringRef name,
                                          mlir::TypeRange args, mlir::TypeRange results);

/// Checks that no op in `region` has a memory effect (or, with `allowReads`,
/// none but reads). Combine regions are pure; summarize regions may read.
mlir::LogicalResult verifyPureRegion(mlir::Operation *op, mlir::Region &region, llvm::StringRef name,
                                     bool allowReads);

/// Checks that `region` uses no value defined outside it except those
/// `isCompileTimeValue` accepts: runtime captures go through explicit operands.
mlir::LogicalResult verifyRegionClosedOver(mlir::Operation *op, mlir::Region &region, llvm::StringRef name,
                                       llvm::function_ref<bool(mlir::Value)> isCompileTimeValue);

} // namespace tessel

#endif // TESSEL_DIALECT_UTILS_REGIONCHECKS_H
