//===- FoldLanes.h - fold summaries combined as scalars ---------*- C++ -*-===//
//
// The tests pgpu-split-folds, pgpu-fold-in-walks and pgpu-keep-fold-tiles share: whether a region fold's
// summary can be handed between programs as one scalar per component (SplitFolds.cpp), and whether its
// segment end only bounds its lanes (FoldInWalks.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_PGPU_TRANSFORMS_FOLDLANES_H
#define TESSEL_DIALECT_PGPU_TRANSFORMS_FOLDLANES_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include <optional>

namespace tessel::pgpu {
/// One summary component a last arrival combines as a fragment of the programs' scalars.
struct FoldLane {
  BinaryOp combine;  // the component's lane-wise combine
  ReduceOp reduce;   // a fragment component's sole use (all its lanes to one scalar), else null
  mlir::Value fill;  // the neutral scalar (the reduce's identity, or the scalar's constant identity)
  bool unused = false;
};

/// The components of `fold` when every one can be combined as scalars: a scalar with a constant
/// identity and a lane-wise associative, commutative combine, or a fragment with that combine whose
/// only use is a pgpu.reduce of all its lanes with the same combine in the fold's block, or a
/// fragment without uses. None otherwise.
std::optional<llvm::SmallVector<FoldLane>> scalarLanes(RegionFoldOp fold);

/// `carried` combined with all lanes of `loaded` (a 1-D fragment of the programs' scalars, its padding
/// lanes holding `fill`, the lane's neutral value where it dominates the builder) under the lane's
/// combine, its numerical flags kept: what a last arrival adds per block of partials.
mlir::Value mergeLaneBlock(mlir::OpBuilder &b, mlir::Location loc, const FoldLane &lane, mlir::Value fill,
                           mlir::Value carried, mlir::Value loaded);

/// Whether summarize uses its segment end only as the bound of its lanes: `iota(b) < splat(end)`, the
/// iota one `step` wide (a launch parameter or a constant; the fold's own step when null). Then any
/// bound at least min(b + step, end) in its place selects the same lanes of [b, b + step).
bool endBoundsLanesOnly(RegionFoldOp fold, mlir::Value step = {});
} // namespace tessel::pgpu

#endif // TESSEL_DIALECT_PGPU_TRANSFORMS_FOLDLANES_H
