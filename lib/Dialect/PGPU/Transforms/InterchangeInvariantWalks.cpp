//===- InterchangeInvariantWalks.cpp - statistics out of a rows-outer walk ===//
//
// seed 000 §5 (the members of a foreach are independent: a nest of two may run in either order),
// seed 000 §8 (a reduction's value does not depend on where it is computed), seed 002 §3.3
// (blocking works on loops, not on what construction replays per member).
//
// A 2-d write whose value uses a statistic over the first axis (per-segment normalization of CSR
// rows: out[ptr[g]:ptr[g+1], f] = (x - mean[f]) * rsqrt(var[f] + eps)) is constructed as a nest
// foreach r { foreach f { ...; mean = range_reduce over r'; ...; write [r, f] } }: the column
// statistics are walked again for every row, O(rows^2) a segment, and the rows are the outer loop.
// The statistics depend on f and not on r: with the nest interchanged (f outer, r inner) they are
// computed once per column before the rows' walk, which pgpu-tile-column-reductions then tiles as
// a column normalization ([BLOCK_R, BLOCK_C] tiles for the sums, then for the write).
//
// Moved out of the row walk: read-only range_reduces over the row walk's own range (their elements
// run only where the walk has members), pure ops without regions other than integer division and
// remainder, and scalar reads. A read moved out runs where the row walk may have had no member (an
// empty segment): its validity is conjoined with lo < hi of the walk, so an empty walk reads nothing
// (its values are then used by nothing that runs).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUINTERCHANGEINVARIANTWALKS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

bool sameIndex(Value a, Value b) {
  if (a == b)
    return true;
  APInt ca, cb;
  return matchPattern(a, m_ConstantInt(&ca)) && matchPattern(b, m_ConstantInt(&cb)) && ca == cb;
}

/// Whether `op` (with its regions) uses a value in `dep`.
bool usesAny(Operation *op, const llvm::DenseSet<Value> &dep) {
  bool any = false;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      any |= dep.contains(v);
  });
  return any;
}

/// Whether every value `op` (with its regions) uses from `body` is a result of an op in `moved`
/// (values defined inside `op` itself, and outside `body`, are fine).
bool usesOnlyMoved(Operation *op, Block &body, const llvm::SmallPtrSetImpl<Operation *> &moved) {
  bool ok = true;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands()) {
      if (op->isAncestor(v.getParentRegion()->getParentOp()))
        continue;
      Operation *def = v.getDefiningOp();
      if (!def)
        continue; // a member: the column's goes out with the ops, the row's is in the dependence set
      if (def->getBlock() == &body && !moved.contains(def))
        ok = false;
    }
  });
  return ok;
}

/// Whether `op` may be computed before a walk over [lo, hi) (reads: validity conjoined later).
bool movable(Operation &op, Value lo, Value hi) {
  if (auto reduce = dyn_cast<RangeReduceOp>(op))
    return !writesMemory(reduce) && sameIndex(reduce.getLower(), lo) && sameIndex(reduce.getUpper(), hi);
  if (isa<LoadOp, GatherOp>(op))
    return op.getOperand(op.getNumOperands() - 2).getType().isInteger(1); // scalar validity
  if (op.getNumRegions() || !isMemoryEffectFree(&op) || op.hasTrait<OpTrait::IsTerminator>())
    return false;
  if (auto bin = dyn_cast<BinaryOp>(op))
    if (bin.getType().isIntOrIndex() &&
        (bin.getKind() == kir::BinaryKind::Div || bin.getKind() == kir::BinaryKind::Rem))
      return false;
  return true;
}

/// Interchanges `rows { cols { body } }` when body holds a reduction over the rows' range that does
/// not depend on the row; moves what does not depend on the row before the (now inner) row walk.
bool interchange(ForeachOp rows, bool remarks) {
  Block &rowBody = rows.getBody().front();
  auto cols = dyn_cast<ForeachOp>(&rowBody.front());
  if (!cols || cols->getNextNode() != rowBody.getTerminator())
    return false;
  if (rows.getBody().isAncestor(cols.getLower().getParentRegion()) ||
      rows.getBody().isAncestor(cols.getUpper().getParentRegion()))
    return false; // the columns' range depends on the row: not a rectangular nest
  Block &body = cols.getBody().front();
  Value lo = rows.getLower(), hi = rows.getUpper();
  Value row = rowBody.getArgument(0);

  llvm::DenseSet<Value> dep{row};
  llvm::SmallPtrSet<Operation *, 16> moved;
  SmallVector<Operation *> order;
  bool reduction = false;
  for (Operation &op : body.without_terminator()) {
    if (usesAny(&op, dep) || !movable(op, lo, hi) || !usesOnlyMoved(&op, body, moved)) {
      for (Value r : op.getResults())
        dep.insert(r);
      continue;
    }
    moved.insert(&op);
    order.push_back(&op);
    reduction |= isa<RangeReduceOp>(op);
  }
  if (!reduction)
    return false;

  // Swap the loops: the outer op walks the columns, the inner one the rows.
  Value clo = cols.getLower(), chi = cols.getUpper();
  Value col = body.getArgument(0);
  SmallVector<OpOperand *> rowUses, colUses;
  for (OpOperand &u : row.getUses())
    rowUses.push_back(&u);
  for (OpOperand &u : col.getUses())
    colUses.push_back(&u);
  for (OpOperand *u : rowUses)
    u->set(col);
  for (OpOperand *u : colUses)
    u->set(row);
  rows->setOperands({clo, chi});
  cols->setOperands({lo, hi});
  // Now `rows` (the outer op) walks the columns with member `row`, `cols` the rows with `col`.
  OpBuilder b(cols);
  Value some;
  for (Operation *op : order) {
    op->moveBefore(cols);
    if (!isa<LoadOp, GatherOp>(op))
      continue;
    Location loc = op->getLoc();
    if (!some) {
      b.setInsertionPoint(op);
      some = CmpOp::create(b, loc, kir::CmpPredicate::LT, lo, hi);
    }
    b.setInsertionPoint(op);
    OpOperand &valid = op->getOpOperand(op->getNumOperands() - 2);
    APInt c;
    if (matchPattern(valid.get(), m_ConstantInt(&c)) && c.isOne())
      valid.set(some);
    else
      valid.set(BinaryOp::create(b, loc, kir::BinaryKind::And, valid.get(), some, false, false));
  }
  if (remarks)
    emitRemark(rows.getLoc()) << "pgpu-interchange-invariant-walks: the row walk moved inside the column walk; "
                              << llvm::count_if(order, [](Operation *o) { return isa<RangeReduceOp>(o); })
                              << " reduction(s) over the rows computed once per column (not once per row)";
  return true;
}

struct InterchangeInvariantWalks
    : public tessel::pgpu::impl::PGPUInterchangeInvariantWalksBase<InterchangeInvariantWalks> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool remarks = remarksEnabled(module);
    SmallVector<ForeachOp> walks;
    module.walk<WalkOrder::PreOrder>([&](ForeachOp f) { walks.push_back(f); });
    for (ForeachOp f : walks)
      interchange(f, remarks);
  }
};

} // namespace
