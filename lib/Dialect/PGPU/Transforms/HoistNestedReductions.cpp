//===- HoistNestedReductions.cpp - invariant work out of reduction bodies --===//
//
// pgpu-form-tiles' helper (seed 002 §3.3: blocking works on loops, not on what construction
// replays per member). Construction realizes a reduction whose element uses another reduction's
// result by computing that result inside the element body, once per member: RMSNorm before a
// linear layer, y = sum_k bf16(x[m, k] * rsqrt(sum_j x[m, j]^2 / K + eps) * g[k]) * w[k, n],
// holds the row's sum of squares in the product's element body. When the nested reduction does
// not depend on the member (its bounds and everything it reads are defined outside the enclosing
// element body) it has one value for every member: computing it once before the enclosing
// reduction, with the pure scalar code that depends only on it (the rsqrt), is the same program
// (seed 000 §8: the same reductions over the same members in the same order; pure code computes
// the same values). Then the product is a contraction beside a row reduction, which
// pgpu-form-tiles tiles: a loop over the row tile's k blocks for the sum of squares, then the K
// loop of the GEMM scaling the A tile.
//
// Moved: a range_reduce whose regions write nothing, and pure ops without regions other than
// integer division and remainder (which could trap on a member-less body that never ran them),
// each only when every value it uses from outside itself is defined outside the enclosing element
// body or by an op already moved. Loads stay: a read of an empty reduction's body never happens.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// Whether every value `op` (and its regions) uses from outside itself is defined outside `body`'s
/// region or by an op in `moved`.
bool invariantIn(Operation *op, Block &body, const llvm::SmallPtrSetImpl<Operation *> &moved) {
  Region *region = body.getParent();
  bool ok = true;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands()) {
      if (op->isAncestor(v.getParentRegion()->getParentOp()))
        continue; // defined inside op
      if (Operation *def = v.getDefiningOp(); def && moved.contains(def))
        continue;
      if (region->isAncestor(v.getParentRegion()))
        ok = false;
    }
  });
  return ok;
}

bool movable(Operation &op) {
  if (auto reduce = dyn_cast<RangeReduceOp>(op))
    return !writesMemory(reduce);
  if (op.getNumRegions() || !isMemoryEffectFree(&op) || op.hasTrait<OpTrait::IsTerminator>())
    return false;
  if (auto bin = dyn_cast<BinaryOp>(op))
    if (bin.getType().isIntOrIndex() &&
        (bin.getKind() == kir::BinaryKind::Div || bin.getKind() == kir::BinaryKind::Rem))
      return false;
  return true;
}
} // namespace

SmallVector<std::pair<Operation *, Operation *>> pgpu::hoistNestedReductions(RangeReduceOp outer) {
  SmallVector<std::pair<Operation *, Operation *>> moves;
  Block &body = outer.getElement().front();
  // Only where a reduction is nested: other invariant code is left where construction put it.
  if (llvm::none_of(body.without_terminator(), [](Operation &op) { return isa<RangeReduceOp>(op); }))
    return moves;
  llvm::SmallPtrSet<Operation *, 8> moved;
  bool reductionMoved = false;
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
    if (!movable(op) || !invariantIn(&op, body, moved))
      continue;
    moves.push_back({&op, op.getNextNode()});
    moved.insert(&op);
    reductionMoved |= isa<RangeReduceOp>(op);
    op.moveBefore(outer);
  }
  if (!reductionMoved) {
    undoHoist(moves);
    moves.clear();
  }
  return moves;
}

void pgpu::undoHoist(ArrayRef<std::pair<Operation *, Operation *>> moves) {
  for (auto [op, next] : llvm::reverse(moves))
    op->moveBefore(next);
}
