//===- SinkReads.cpp - a view read moves to its first use past region ops ===//
//
// seed 002 §3.4 (replay/rematerialization changes physical def-use: a value
// is realized where it is needed), seed 000 §4 (a read of a view means its
// values where the read stands, before any later write of it).
//
// Construction realizes an in-place update's reads of its view before the
// stored value (KIR reads the view where the load stands): corpus 360's
// `c[rows, cols] = alpha * T.matmul(a, b) + beta * c[rows, cols]` reads c's
// element before the contraction's range_reduce, and so, once tiled, its
// [TILE_0, TILE_1] tile before the K loop, held live across every step
// beside the accumulator (a [128, 128] f32 tile: 64 more registers a thread
// of 8 warps). The read is the epilogue's: it moves after the loop,
// just before the op that first uses it.
//
//   %r = pgpu.load %c[...]                   %s = pgpu.range_reduce ... { ... }
//   %s = pgpu.range_reduce ... { ... }   ->  %r = pgpu.load %c[...]
//   %t = pgpu.binary mul %beta, %r           %t = pgpu.binary mul %beta, %r
//
// A read moves only past a region op (a loop, a reduction, a branch): past
// pure ops alone nothing is gained and the program stays as it was. Only
// reads of writable views (`inout`, `out`) move: construction places an
// `in` view's read where it is first needed, or before a reduction on
// purpose. It reads the same elements at its new place: nothing between
// writes its view (stores or scatters of other views only: views never
// overlap, the wrappers check it) and no other effect lies between (an
// atomic, a scatter-reduce, a last-program finalization: another program's
// writes may be ordered there). Its first use is the op of its block that is or holds a
// user, so a read a loop uses stays before that loop, never inside it.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUSINKREADS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// The op of `read`'s block that first uses its result (is a user or holds one), or null.
Operation *firstUse(Operation *read) {
  Block *block = read->getBlock();
  Operation *first = nullptr;
  for (Operation *user : read->getUsers()) {
    Operation *holder = block->findAncestorOpInBlock(*user);
    if (holder && (!first || holder->isBeforeInBlock(first)))
      first = holder;
  }
  return first;
}

/// Why `read` must stay before `first` (an op between them writes its view, or has another effect),
/// or nullopt; `crosses` tells whether a region op lies between them.
std::optional<std::string> sinkIssue(Operation *read, Operation *first, bool &crosses) {
  Value view = read->getOperand(0);
  crosses = false;
  for (Operation *op = read->getNextNode(); op != first; op = op->getNextNode()) {
    crosses |= op->getNumRegions() > 0;
    llvm::SmallPtrSet<Value, 4> views;
    if (!viewsWritten(op, views))
      return "'" + op->getName().getStringRef().str() +
             "' between it and its first use has an effect that may order another program's writes";
    if (views.contains(view))
      return "'" + op->getName().getStringRef().str() +
             "' between it and its first use writes its view (the read means the values before it)";
  }
  return std::nullopt;
}

struct SinkReads : public tessel::pgpu::impl::PGPUSinkReadsBase<SinkReads> {
  void runOnOperation() override {
    SmallVector<Operation *> reads;
    // Reads of writable views only: construction makes an `in` view's read where it is first needed,
    // or before a reduction on purpose (a row's scalar statistics), and a scalar read sunk past a loop
    // only exposes its latency.
    getOperation().walk([&](Operation *op) {
      auto view = isa<LoadOp, GatherOp>(op) ? dyn_cast<ViewType>(op->getOperand(0).getType()) : ViewType();
      if (view && view.isWritable())
        reads.push_back(op);
    });
    // In program order: reads sunk before one op keep their order.
    for (Operation *read : reads) {
      Operation *first = firstUse(read);
      if (!first)
        continue;
      bool crosses = false;
      std::optional<std::string> why = sinkIssue(read, first, crosses);
      if (!crosses)
        continue;
      if (why) {
        if (remarksEnabled(read))
          emitRemark(read->getLoc()) << "pgpu-sink-reads: the read stays before the region op it precedes: " << *why;
        continue;
      }
      if (remarksEnabled(read))
        emitRemark(read->getLoc()) << "pgpu-sink-reads: the read moves past the region op(s) before its first use "
                                      "('" << first->getName().getStringRef() << "'): its value is not held live across them";
      read->moveBefore(first);
    }
  }
};
} // namespace
