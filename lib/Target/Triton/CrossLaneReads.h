//===- CrossLaneReads.h - reads of what other lanes of the program stored -===//
//
// Private to the Triton serializer. A program's threads order their global
// accesses only within a thread: a read of an element another thread of the
// same program stored earlier (in program order, or in an earlier trip of an
// enclosing loop) needs a CTA barrier between them: a provider-local barrier
// expanding the shared IR's memory effects (seed 000 §9).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_TARGET_TRITON_CROSSLANEREADS_H
#define TESSEL_LIB_TARGET_TRITON_CROSSLANEREADS_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace tessel::triton::spelling {

/// Whether the Triton spelling places a CTA barrier before `op`: a pgpu.load or pgpu.gather of a view,
/// or a loop or branch holding one, that may read an element another thread of its program wrote
/// before it (a store, scatter or scatter_reduce of the same view in the same finalization scope and
/// not in an exclusive branch, which precedes the read or shares a loop with it). Not where both
/// access the same elements through the same coordinate values in one 1-d fragment of at least
/// `threads` lanes (`lanes` counts a fragment type's at the bound parameters; each element then stays
/// with the thread that stored it), computed outside every loop they share or in a blocking loop's trip. The barrier stands before
/// the outermost loop or branch around the read that writes the view nowhere; `fenced` records the
/// (op, view) pairs fenced so far: one earlier in the same straight-line code, with no write of the
/// view between, makes another barrier redundant.
bool barrierBefore(mlir::Operation *op, int64_t threads,
                   llvm::function_ref<int64_t(pgpu::FragmentType)> lanes,
                   llvm::DenseSet<std::pair<mlir::Operation *, mlir::Value>> &fenced);

} // namespace tessel::triton::spelling

#endif // TESSEL_LIB_TARGET_TRITON_CROSSLANEREADS_H
