//===- ReuseInputReads.cpp - a kernel input read again takes the first read ==//
//
// seed 002 §3.4 (replay/rematerialization changes physical def-use; a value
// read by several consumers is co-realized once): a view declared `in` is
// never written during the launch (the verifiers reject a write to it, and
// every wrapper rejects a written view whose memory overlaps another view's),
// so two reads of it with the same coordinates, validity and fill return the
// same values wherever they sit. CSE merges such reads only when no write lies
// between them; a row staged by pgpu-stage-rows that is reduced, stored and
// reduced again (the k rounds of a top-k, each storing its winner) read its
// row once per round: k times the bytes. Here the later read in the same block
// takes the earlier one's result, so the staged row is read once; the CSE
// after it merges the pointwise work computed from the two.
//
//   %a = pgpu.load %x[%i] valid %m fill %f        (x: in)
//   pgpu.store %v, %y[...]
//   %b = pgpu.load %x[%i] valid %m fill %f        ->  uses of %b take %a
//
// A view that may be written (`inout`, `out`) is reused the same way when
// nothing between the two reads writes it: only pure code, reads, and stores
// or scatters of other views (views never overlap: the wrapper checks it) lie
// between them, at any depth (a member's row stored to `state` after its y is
// stored, read before and after y's store: corpus 244).
//
// Two reads of an input at the same coordinates whose validities differ only in conjuncts true in
// every lane (a tap's `src >= 0` at src = t + 0, t from a loop counting up from 0: IndexSign.h) are
// one read too, a load and a gather alike (the same coordinates read the same elements); their fills
// must agree unless neither masks a lane (corpus 291: seq_idx[b, t] read as the row's own ids and
// again as the last tap's, one load of five fewer).
//
// Must not fire: a written view with a store or scatter of it, an atomic, a
// scatter-reduce, a last-program finalization or any other effect between
// the reads (another program's writes may be made visible there), reads that
// differ in any operand or attribute, reads in different blocks (a read
// before a loop is not carried into its body: the loop keeps its own read, and
// no fragment is held live across it).
//
//===----------------------------------------------------------------------===//

#include "UniformLaneReads.h"
#include "tessel/Dialect/PGPU/IR/IndexSign.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUREUSEINPUTREADS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// Whether `op` reads a view that nothing writes during the launch.
bool readsInput(Operation *op) {
  if (!isa<LoadOp, GatherOp>(op))
    return false;
  auto view = dyn_cast<ViewType>(op->getOperand(0).getType());
  return view && !view.isWritable();
}

/// Whether `op` reads a view that may be written.
bool readsWritable(Operation *op) {
  if (!isa<LoadOp, GatherOp>(op))
    return false;
  auto view = dyn_cast<ViewType>(op->getOperand(0).getType());
  return view && view.isWritable();
}

/// Whether the i1 `v` (scalar or fragment) is true in every lane: the constant true or its splat,
/// `x >= 0` of a provably non-negative x, or a conjunction of such.
bool trueInEveryLane(Value v, int depth = 0) {
  if (depth > 8)
    return false;
  if (auto splat = v.getDefiningOp<SplatOp>())
    v = splat.getOperand();
  if (matchPattern(v, m_One()))
    return true;
  if (auto cmp = v.getDefiningOp<CmpOp>(); cmp && cmp.getPredicate() == kir::CmpPredicate::GE) {
    Value rhs = cmp.getRhs();
    if (auto splat = rhs.getDefiningOp<SplatOp>())
      rhs = splat.getOperand();
    return matchPattern(rhs, m_Zero()) && provablyNonNegative(cmp.getLhs());
  }
  if (auto conj = v.getDefiningOp<BinaryOp>(); conj && conj.getKind() == kir::BinaryKind::And)
    return trueInEveryLane(conj.getLhs(), depth + 1) && trueInEveryLane(conj.getRhs(), depth + 1);
  return false;
}

/// `v` without its conjuncts true in every lane (null where it is true in every lane).
Value withoutTrueConjuncts(Value v) {
  if (trueInEveryLane(v))
    return Value();
  if (auto conj = v.getDefiningOp<BinaryOp>(); conj && conj.getKind() == kir::BinaryKind::And) {
    if (trueInEveryLane(conj.getLhs()))
      return withoutTrueConjuncts(conj.getRhs());
    if (trueInEveryLane(conj.getRhs()))
      return withoutTrueConjuncts(conj.getLhs());
  }
  return v;
}

/// Whether the scalar fills `a` and `b` are one value: the same SSA value or equal constants.
bool sameFill(Value a, Value b) {
  if (a == b)
    return true;
  Attribute x, y;
  return matchPattern(a, m_Constant(&x)) && matchPattern(b, m_Constant(&y)) && x == y;
}

/// Whether the reads `a` and `b` of one view return the same values: the same operation, or loads or
/// gathers at the same coordinates with the same result type and attributes, validities equal up to
/// conjuncts true in every lane, and fills equal wherever a lane may be masked.
bool sameRead(Operation *a, Operation *b) {
  if (OperationEquivalence::isEquivalentTo(a, b, OperationEquivalence::IgnoreLocations))
    return true;
  auto coordsOf = [](Operation *op) {
    return isa<LoadOp>(op) ? cast<LoadOp>(op).getCoords() : cast<GatherOp>(op).getCoords();
  };
  auto validOf = [](Operation *op) {
    return isa<LoadOp>(op) ? cast<LoadOp>(op).getValid() : cast<GatherOp>(op).getValid();
  };
  auto fillOf = [](Operation *op) {
    return isa<LoadOp>(op) ? cast<LoadOp>(op).getFill() : cast<GatherOp>(op).getFill();
  };
  if (a->getOperand(0) != b->getOperand(0) || a->getResult(0).getType() != b->getResult(0).getType() ||
      a->getAttrDictionary() != b->getAttrDictionary() || !llvm::equal(coordsOf(a), coordsOf(b)))
    return false;
  Value va = withoutTrueConjuncts(validOf(a)), vb = withoutTrueConjuncts(validOf(b));
  return va == vb && (!va || sameFill(fillOf(a), fillOf(b)));
}

/// `op`, a read of a writable view, takes an equivalent read in `written` (none of whose views was
/// written since), else joins it.
void reuseWritable(Operation &op, SmallVectorImpl<Operation *> &written) {
  for (Operation *r : written)
    if (OperationEquivalence::isEquivalentTo(r, &op, OperationEquivalence::IgnoreLocations)) {
      if (remarksEnabled(&op))
        emitRemark(op.getLoc()) << "pgpu-reuse-input-reads: a read of a written view takes the same read "
                                   "made before it in this block (nothing between them writes the view)";
      op.getResult(0).replaceAllUsesWith(r->getResult(0));
      op.erase();
      return;
    }
  written.push_back(&op);
}

struct ReuseInputReads : public tessel::pgpu::impl::PGPUReuseInputReadsBase<ReuseInputReads> {
  void runOnOperation() override {
    // A K loop's read whose lane coordinate is k / G (one value a trip) reads its rows once a trip.
    readUniformLanesOnce(getOperation());
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks) {
      SmallVector<Operation *> earlier; // reads of inputs in this block, in order
      SmallVector<Operation *> written; // reads of writable views since which nothing wrote them
      for (Operation &op : llvm::make_early_inc_range(*block)) {
        if (readsWritable(&op)) {
          reuseWritable(op, written);
          continue;
        }
        if (!readsInput(&op)) {
          llvm::SmallPtrSet<Value, 4> views;
          if (!viewsWritten(&op, views))
            written.clear();
          else
            llvm::erase_if(written, [&](Operation *r) { return views.contains(r->getOperand(0)); });
          continue;
        }
        Operation *same = nullptr;
        for (Operation *r : earlier)
          if (sameRead(r, &op)) {
            same = r;
            break;
          }
        if (!same) {
          earlier.push_back(&op);
          continue;
        }
        if (remarksEnabled(&op))
          emitRemark(op.getLoc()) << "pgpu-reuse-input-reads: a read of an input view takes the same read "
                                     "made before it in this block";
        op.getResult(0).replaceAllUsesWith(same->getResult(0));
        op.erase();
      }
    }
  }
};
} // namespace

bool tessel::pgpu::viewsWritten(Operation *op, llvm::SmallPtrSetImpl<Value> &views) {
  bool known = true;
  op->walk([&](Operation *inner) {
    if (isa<ScatterReduceOp, AtomicRMWOp, AtomicCASOp, AtomicLoadOp, AtomicStoreOp, LastProgramOp>(inner)) {
      known = false;
      return;
    }
    if (isa<StoreOp, ScatterOp>(inner)) {
      views.insert(inner->getOperand(1));
      return;
    }
    if (isa<LoadOp, GatherOp, BufferLoadOp>(inner) || inner->getNumRegions() ||
        isMemoryEffectFree(inner))
      return; // a region op's effects are its nested ops', walked here
    known = false;
  });
  return known;
}
