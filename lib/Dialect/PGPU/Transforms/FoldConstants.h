//===- FoldConstants.h - the constant a value holds, by local propagation -*- C++ -*-===//
//
// Local typed value propagation for pgpu-narrow-fold-ranges' all-false proof: the constant every lane
// of a value holds, given constants assumed for some values (a predicate substituted false).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_FOLDCONSTANTS_H
#define TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_FOLDCONSTANTS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

namespace tessel::pgpu {
/// The constant every lane of `v` holds, given `env` (which it extends); null when unknown.
mlir::Attribute constantOf(mlir::Value v, llvm::DenseMap<mlir::Value, mlir::Attribute> &env);
} // namespace tessel::pgpu

#endif // TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_FOLDCONSTANTS_H
