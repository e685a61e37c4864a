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
// Must not fire: a view that may be written (`out`, `inout`), reads that
// differ in any operand or attribute, reads in different blocks (a read
// before a loop is not carried into its body: the loop keeps its own read, and
// no fragment is held live across it).
//
//===----------------------------------------------------------------------===//

#include "UniformLaneReads.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/OperationSupport.h"

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

struct ReuseInputReads : public tessel::pgpu::impl::PGPUReuseInputReadsBase<ReuseInputReads> {
  void runOnOperation() override {
    // A K loop's read whose lane coordinate is k / G (one value a trip) reads its rows once a trip.
    readUniformLanesOnce(getOperation());
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks) {
      SmallVector<Operation *> earlier; // reads of inputs in this block, in order
      for (Operation &op : llvm::make_early_inc_range(*block)) {
        if (!readsInput(&op))
          continue;
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
