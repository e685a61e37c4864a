//===- TileAccess.h - accesses with a tensor-descriptor spelling -*- C++ -*-===//
//
// Provider-local (seed 002 §3.6-§3.7): a pgpu load or store that touches one
// rectangular box of a view (two axes walked by the fragment's two dimensions,
// every other axis at one scalar coordinate), whose validity is exactly the view's bounds
// and whose load fill is zero, means the same as a Triton tensor-descriptor
// access (`desc.load/store` of a descriptor the wrapper makes on the host): the descriptor
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
  /// `dimOf` of a view axis the box does not walk: the box is one element wide there.
  static constexpr unsigned kFixed = ~0u;
  mlir::Value view;
  /// Per view axis: the box's first coordinate (a scalar) and the fragment
  /// dimension that walks the axis (kFixed for a scalar coordinate).
  llvm::SmallVector<mlir::Value, 4> starts;
  /// Per view axis: a scalar the box's first coordinate adds to its start
  /// (a coordinate `splat(offset) + arange`), or null.
  llvm::SmallVector<mlir::Value, 4> offsets;
  llvm::SmallVector<unsigned, 4> dimOf;
  /// The walked view axes, in view order (two).
  llvm::SmallVector<unsigned, 2> walked() const {
    llvm::SmallVector<unsigned, 2> axes;
    for (auto [axis, dim] : llvm::enumerate(dimOf))
      if (dim != kFixed)
        axes.push_back(axis);
    return axes;
  }
};

/// The box of a pgpu.load (zero fill) or pgpu.store of a rank-2 fragment on a
/// kernel-argument view of 16- or 32-bit floats of rank 2 to 5 (what a tensor
/// descriptor spans), when two of its coordinates are `start + arange` (or
/// `offset + (start + arange)`) along distinct fragment dimensions, the last
/// view axis (the contiguous one a descriptor needs) among them, and every
/// other coordinate is a scalar or a splat of one (attention's batch and head, a
/// grouped GEMM's group); its validity is
/// the conjunction of `coordinate < extent` for some unshifted walked axes,
/// every other axis unmasked (in bounds by the access's contract).
/// Legalization (the TMA switch), the resource model (a descriptor store's
/// staging) and the serializer all decide by this one predicate.
std::optional<TileAccess> matchTileAccess(mlir::Operation *op);

/// Whether box access `op` keeps the pointer spelling under TMA = 1: it lies outside every loop of
/// its kernel that walks a launch-time range (a fixed few tiles per program: none, or a loop of
/// constant trip count) while another box access of the kernel lies in such a loop. The rule was
/// measured when each program made its descriptors on the device (a global write with a release
/// fence, then a proxy acquire, one descriptor after the other): a box walked in a loop paid that
/// back, a single tile did not (attention with TMA = 1: the query load and the output store beside
/// the key/value tiles; session 14). Descriptors are made on the host
/// since (session 17); the rule is kept until measured again. A kernel whose boxes are all
/// single tiles (transpose, embedding) keeps them: the TMA switch decides there as tuned.
/// Legalization, the resource model and the serializer all decide by this one predicate.
bool keepsPointerSpelling(mlir::Operation *op);

/// Whether the loads of `loop` are pipelined at the launch's STAGES (spelled
/// `tl.range(..., num_stages=STAGES)`): a loop carrying values whose own body loads box tiles and
/// contracts nothing, in a kernel whose contraction accumulates in a loop (a GEMM's tile program,
/// one or two resident per multiprocessor for their registers). Triton pipelines by default only
/// the loads that feed a dot, so such a loop (pairwise distances' row norms beside the dot) waited
/// for each tile in turn: sm_90 TTGIR of corpus 65 (Triton 3.6) issued each norm tile's TMA copy and
/// waited on its barrier at once, 16 round trips a 128x64 tile at D = 128.
/// The serializer and the resource model (the loads' STAGES buffers) decide by this one predicate.
bool pipelinesLoads(tessel::pgpu::ForOp loop);

} // namespace tessel::triton

#endif // TESSEL_TARGET_TRITON_TILEACCESS_H
