//===- AxisDomains.h - the coordinate domain of each axis of a KIR value ===//
#ifndef TESSEL_KIR_TRANSFORMS_AXISDOMAINS_H
#define TESSEL_KIR_TRANSFORMS_AXISDOMAINS_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tessel::kir {

/// The domain of each axis of `v` (empty for a scalar); nullopt when unknown. `memo` caches the
/// answers (its keys must not outlive the values: a rewrite that erases ops starts a new memo).
std::optional<llvm::SmallVector<mlir::Value>> domainsOf(mlir::Value v,
                                                        llvm::DenseMap<mlir::Value, llvm::SmallVector<mlir::Value>> &memo);

} // namespace tessel::kir

#endif // TESSEL_KIR_TRANSFORMS_AXISDOMAINS_H
