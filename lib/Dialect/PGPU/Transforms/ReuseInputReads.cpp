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
// Must not fire: a written view with a store or scatter of it, an atomic, a
// scatter-reduce, a last-program finalization or any other effect between
// the reads (another program's writes may be made visible there), reads that
// differ in any operand or attribute, reads in different blocks (a read
// before a loop is not carried into its body: the loop keeps its own read, and
// no fragment is held live across it).
//
//===----------------------------------------------------------------------===//

#include "UniformLaneReads.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"

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

/// The views `op` (with what it nests) may write: stores and scatters name theirs. False when it has
/// another effect (an atomic, a scatter-reduce, a finalization's wait), which ends every reuse.
bool viewsWritten(Operation *op, llvm::SmallPtrSetImpl<Value> &views) {
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
          if (OperationEquivalence::isEquivalentTo(r, &op, OperationEquivalence::IgnoreLocations)) {
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
