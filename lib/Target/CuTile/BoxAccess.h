//===- BoxAccess.h - pgpu accesses with a cuTile tile index -----*- C++ -*-===//
//
// cuTile's fast access form is a tile of a view's tile space: ct.load(view,
// index, shape) reads view[index * shape + i] for i in the tile, padded where
// the tile leaves the view, and ct.store clips at the view's bounds. A pgpu
// access means the same when each coordinate is a scalar (a tile extent of 1)
// or `start + iota` along its own fragment dimension with `start` a proven
// multiple of that dimension's extent, its validity is exactly (a subset of)
// the view's bounds on the iota axes, and its fill is one of cuTile's padding
// values. Everything else is spelled as ct.gather / ct.scatter of element
// coordinates (seed 000 §6: tile indices are a provider representation of the
// one shared access). The match is read from the access's own SSA.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_TARGET_CUTILE_BOXACCESS_H
#define TESSEL_LIB_TARGET_CUTILE_BOXACCESS_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

namespace tessel::cutile {

struct BoxAccess {
  /// Per view axis: the tile extent (1 for a scalar coordinate), the value whose spelling gives the
  /// tile index (the scalar coordinate, or the iota's start, divided by `extent` when > 1), and the
  /// fragment dimension the axis walks (-1 for a scalar coordinate).
  llvm::SmallVector<int64_t, 3> extent;
  llvm::SmallVector<mlir::Value, 3> start;
  llvm::SmallVector<int, 3> dim;
  /// The cuTile padding mode of a load whose validity bounds some axis ("" when none is needed).
  std::string padding;
  /// Every program instance accesses the same box (each `start` is program-invariant).
  bool shared = false;
};

/// Whether `v` has one value in every program instance: computed by effect-free ops without regions
/// from kernel arguments, constants, parameters, view extents and strides, and the variables of loops
/// whose bounds are such values; never from the program coordinate, a carry, a branch result or a read.
bool isProgramInvariant(mlir::Value v);

/// Whether `load` reads a kernel-argument view at a box-like coordinate set (each coordinate a scalar
/// or a walk `start + iota`) that every program instance reads alike. Binding-independent (no
/// multiple-of proof), so legalization can declare kSharedTmaParam before parameters are bound.
bool isSharedBoxCandidate(pgpu::LoadOp load);

/// The box of a pgpu.load or pgpu.store on a kernel-argument view at the bound parameters `params`,
/// or nothing when the access must be a gather/scatter.
std::optional<BoxAccess> matchBoxAccess(mlir::Operation *op, const llvm::StringMap<int64_t> &params);

/// The static extents of a fragment type at the bound parameters.
llvm::SmallVector<int64_t> boundShape(mlir::Type fragment, const llvm::StringMap<int64_t> &params);

} // namespace tessel::cutile

#endif // TESSEL_LIB_TARGET_CUTILE_BOXACCESS_H
