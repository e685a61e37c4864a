//===- TileAccess.h - accesses with a tensor-descriptor spelling -*- C++ -*-===//
//
// Provider-local (seed 002 §3.6-§3.7): a pgpu load or store that touches one
// rectangular box of a 2-d view, whose validity is exactly the view's bounds
// and whose load fill is zero, means the same as a Triton tensor-descriptor
// access (`tl.make_tensor_descriptor(...).load/store`): the descriptor
// zero-fills what lies outside the view and clips stores. On Hopper that is
// the TMA copy engine. The match is read from the access's own coordinate and
// validity SSA; the shared IR names no copy engine.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_TRITON_TILEACCESS_H
#define TESSEL_TARGET_TRITON_TILEACCESS_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include <optional>

namespace tessel::triton {

struct TileAccess {
  mlir::Value view;
  /// Per view axis: the box's first coordinate (a scalar) and the fragment
  /// dimension that walks the axis.
  llvm::SmallVector<mlir::Value, 2> starts;
  /// Per view axis: a scalar the box's first coordinate adds to its start
  /// (a coordinate `splat(offset) + arange`), or null.
  llvm::SmallVector<mlir::Value, 2> offsets;
  llvm::SmallVector<unsigned, 2> dimOf;
};

/// The box of a pgpu.load (zero fill) or pgpu.store on a rank-2 kernel-argument
/// view of 16- or 32-bit floats, when its coordinates are `start + arange`
/// (or `offset + (start + arange)`) along distinct fragment dimensions and its
/// validity is the conjunction of `coordinate < extent` for some unshifted
/// axes, every other axis unmasked (in bounds by the access's contract). Legalization (the TMA switch),
/// the resource model (a descriptor store's staging) and the serializer all
/// decide by this one predicate.
std::optional<TileAccess> matchTileAccess(mlir::Operation *op);

} // namespace tessel::triton

#endif // TESSEL_TARGET_TRITON_TILEACCESS_H
