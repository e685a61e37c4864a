//===- GroupCoordinates.h - which coordinates a value is computed from -*- C++ -*-===//
//
// What pgpu-order-program-axes and pgpu-pair-blocks share: the arguments of a body block (an
// execution group's coordinates) a value is computed from, through the operands of its defining ops.
// A loop's or a region's own arguments (a tile's position) are no coordinate of the block: the walk
// stops at every block argument and keeps only the block's own. With `throughReads` false the walk
// also stops at ops that read memory: what it keeps is then the coordinates a value is an arithmetic
// function of (a fold bound from a loaded sequence length is no function of the coordinate it indexes).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_GROUPCOORDINATES_H
#define TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_GROUPCOORDINATES_H

#include "mlir/IR/Block.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallVector.h"

namespace tessel::pgpu {

/// The argument numbers of `body` that `v` is computed from (one bit per argument of `body`); with
/// `throughReads` false, not through a value read from memory.
inline llvm::SmallBitVector coordinatesOf(mlir::Value v, mlir::Block &body, bool throughReads = true) {
  llvm::SmallBitVector out(body.getNumArguments());
  llvm::SmallVector<mlir::Value> work{v};
  llvm::DenseSet<mlir::Value> seen;
  while (!work.empty()) {
    mlir::Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (auto arg = mlir::dyn_cast<mlir::BlockArgument>(x)) {
      if (arg.getOwner() == &body)
        out.set(arg.getArgNumber());
      continue;
    }
    mlir::Operation *def = x.getDefiningOp();
    if (!throughReads && !mlir::isMemoryEffectFree(def))
      continue;
    for (mlir::Value operand : def->getOperands())
      work.push_back(operand);
  }
  return out;
}

} // namespace tessel::pgpu

#endif // TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_GROUPCOORDINATES_H
