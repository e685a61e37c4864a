//===- StagedBranch.h - a block's tail behind "one segment" ----*- C++ -*-===//
//
// What pgpu-stage-rows and pgpu-stage-folds share: the tail of a block from
// an anchor op to its terminator goes behind a launch-time guard that a range
// [lo, hi) is one segment of `step` (lo < hi && hi - lo <= step). The `then`
// branch holds the tail cloned by the pass's own rule (its loops or folds run
// their one segment); the `else` branch holds the tail unchanged, so any
// extent stays correct.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_STAGEDBRANCH_H
#define TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_STAGEDBRANCH_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <tuple>

namespace tessel::pgpu {

/// Builds the guard before `anchor`, clones every op from `anchor` to `block`'s terminator into `then`
/// with `cloneStaged` (given the builder, the op and the mapping so far) and moves those ops into
/// `else`; both branches end in a yield (of what `block`'s terminator yielded, which then yields the
/// guard's results). Returns the guard.
IfOp stageOneSegment(mlir::Block &block, mlir::Operation *anchor, mlir::Value lo, mlir::Value hi, mlir::Value step,
                     llvm::function_ref<void(mlir::OpBuilder &, mlir::Operation &, mlir::IRMapping &)> cloneStaged);

/// (lower, upper, step) of a region fold or pgpu.for whose step is a declared parameter, else nullopt.
std::optional<std::tuple<mlir::Value, mlir::Value, mlir::Value>> segmentBounds(mlir::Operation *op);

/// The members of `block` that pgpu-stage-folds stages and pgpu-keep-fold-tiles keeps: the first
/// region fold with a declared step that has siblings over the same bounds (folds or loops) reading a
/// common view, one a loop storing the row, and every such sibling, in block order; empty when there
/// is none (StageFolds.cpp).
llvm::SmallVector<mlir::Operation *> stagedFoldMembers(mlir::Block &block);

/// The blocks of `kernel` outside any region fold or scan body: where stagedFoldMembers looks.
llvm::SmallVector<mlir::Block *> blocksOutsideFolds(KernelOp kernel);

} // namespace tessel::pgpu

#endif // TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_STAGEDBRANCH_H
