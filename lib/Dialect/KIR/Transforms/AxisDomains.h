//===- AxisDomains.h - the coordinate domain of each axis of a KIR value ===//
#ifndef TESSEL_KIR_TRANSFORMS_AXISDOMAINS_H
#define TESSEL_KIR_TRANSFORMS_AXISDOMAINS_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tessel::kir {

/// The domain of each axis of `v` (empty for a scalar); nullopt when unknown. `memo` caches the
/// answers, unknown ones too (its keys must not outlive the values: a rewrite that erases ops starts
/// a new memo). Iterative: a def-use chain of any length is walked once per memo, without recursion.
std::optional<llvm::SmallVector<mlir::Value>> domainsOf(mlir::Value v,
                                                        llvm::DenseMap<mlir::Value, llvm::SmallVector<mlir::Value>> &memo);

/// The value a region fold over `domain` slices for the read `s`: its result where `domain` is its
/// first axis, else a kir.transpose of it with that axis first, created once after the read and kept
/// in `views` (seed 000 §8: a region fold has one source axis, so a source keeps its axis first
/// through a transposed view). kir-online-folds and its row-sum chains both build their folds so.
mlir::Value axisFirstSource(mlir::Operation *s, mlir::Value domain,
                            llvm::DenseMap<mlir::Operation *, mlir::Value> &views);

/// The kernel-level `kir.indices` of `domain` (created after the domain when there is none): the
/// positions a region fold's index source reads.
mlir::Value indicesOf(mlir::Value domain);

} // namespace tessel::kir

#endif // TESSEL_KIR_TRANSFORMS_AXISDOMAINS_H
