//===- StageRows.cpp - read a row once when it fits one block --------------===//
//
// seed 002 §3.4 (replay/rematerialization changes physical def-use): a
// program that walks the same range [lo, hi) in several blocked loops (a max,
// then a sum, then the normalized store of a softmax row) reads every element
// once per loop. When the range fits one block (0 < hi - lo <= BLOCK) each of
// those loops runs exactly one iteration, so the program can run every loop
// body once, in order, straight-line: the repeated reads and the repeated
// pointwise work are then the same SSA computation, and CSE keeps one.
//
// The rewrite keeps both forms under an explicit uniform guard:
//
//   pgpu.if (lo < hi && hi - lo <= BLOCK) { bodies inlined once (iv = lo) }
//   else { the original loops }
//
// so any extent stays correct and the tuner's choice of BLOCK decides which
// path runs. Loop bodies are inlined with their carries bound to the inits and
// their results to the yielded values, which is exactly one iteration.
//
// Sibling loops over constant ranges of different lengths [lo_i, hi_i) that read a common view (a
// quantizer's absmax over a group's 128 columns, then its 64 packed pairs: corpus 120) each run one
// iteration when the longest fits a block: the guard is `0 < L && L <= BLOCK`, L the longest extent,
// and every blocking loop over a constant range of 1 to L lanes is inlined at iv = lo. The row is then
// one straight-line path, which pgpu-pack-rows can widen to several rows a program.
//
// Fires on a program body (an execution group's or program space's block, or
// a branch of an if directly in one) holding at least two sibling blocking
// loops (step = the BLOCK parameter) over the same bounds that read the same
// view, or (where there are none) over constant non-empty ranges that read a common view, followed only
// by effects and pure code up to a terminator without operands. Must not fire
// on author loops (other steps), on single loops (nothing to share), on loops of different runtime
// bounds, or when values defined there are used after the block.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "StagedBranch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUSTAGEROWS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace tessel::pgpu {
/// Also pgpu-pack-rows' (PackRows.cpp): it stages a single row loop (nothing here to share) when it
/// packs that row.
IfOp stageRowLoops(Block &block, ForOp anchor);
} // namespace tessel::pgpu

namespace {
bool isBlockingLoop(ForOp loop) {
  auto step = loop.getStep().getDefiningOp<ParamOp>();
  return step && step.getName() == kBlockParam;
}

/// Views read anywhere inside `op`.
llvm::SmallPtrSet<Value, 4> viewsRead(Operation *op) {
  llvm::SmallPtrSet<Value, 4> views;
  op->walk([&](Operation *inner) {
    if (isa<LoadOp, GatherOp>(inner))
      views.insert(inner->getOperand(0));
  });
  return views;
}

/// The first blocking loop of `block` that starts a staging opportunity, or null.
ForOp firstShared(Block &block) {
  SmallVector<ForOp> loops;
  for (Operation &op : block.without_terminator())
    if (auto loop = dyn_cast<ForOp>(op); loop && isBlockingLoop(loop))
      loops.push_back(loop);
  for (auto [i, first] : llvm::enumerate(loops)) {
    llvm::SmallPtrSet<Value, 4> reads = viewsRead(first);
    for (ForOp other : ArrayRef<ForOp>(loops).drop_front(i + 1)) {
      if (other.getLower() != first.getLower() || other.getUpper() != first.getUpper() ||
          other.getStep() != first.getStep())
        continue;
      for (Value v : viewsRead(other))
        if (reads.contains(v))
          return first;
    }
  }
  return {};
}

/// The constant extent hi - lo of a blocking loop over a constant non-empty range, else none.
std::optional<int64_t> constantExtent(ForOp loop) {
  std::optional<int64_t> lo = constantIndex(loop.getLower()), hi = constantIndex(loop.getUpper());
  if (!isBlockingLoop(loop) || !lo || !hi || *hi <= *lo)
    return std::nullopt;
  return *hi - *lo;
}

/// Where `block` has no sibling loops over the same bounds: its first blocking loop over a constant
/// non-empty range that reads a view another such loop reads, and the longest such extent; else null.
std::pair<ForOp, int64_t> firstConstantShared(Block &block) {
  SmallVector<ForOp> loops;
  for (Operation &op : block.without_terminator())
    if (auto loop = dyn_cast<ForOp>(op); loop && constantExtent(loop))
      loops.push_back(loop);
  ForOp first;
  int64_t longest = 0;
  for (auto [i, a] : llvm::enumerate(loops)) {
    llvm::SmallPtrSet<Value, 4> reads = viewsRead(a);
    for (ForOp other : ArrayRef<ForOp>(loops).drop_front(i + 1))
      if (other.getStep() == a.getStep() && llvm::any_of(viewsRead(other), [&](Value v) { return reads.contains(v); })) {
        if (!first)
          first = a;
        longest = std::max({longest, *constantExtent(a), *constantExtent(other)});
      }
  }
  // Loops after the first that no other shares a view with still run once when they fit the longest.
  return {first, longest};
}

/// Clones `op` into `b`; a blocking loop over [lo, hi) with step `step` is
/// inlined as its single iteration at iv = lo. With `longest` set (constant ranges), every blocking loop
/// over a constant range of 1 to `longest` lanes with the anchor's step is.
void cloneStaged(OpBuilder &b, Operation &op, IRMapping &map, ForOp anchor, int64_t longest = 0) {
  auto loop = dyn_cast<ForOp>(op);
  bool once = loop && isBlockingLoop(loop) && loop.getStep() == anchor.getStep() &&
              (longest ? constantExtent(loop) && *constantExtent(loop) <= longest
                       : loop.getLower() == anchor.getLower() && loop.getUpper() == anchor.getUpper());
  if (!once) {
    b.clone(op, map);
    return;
  }
  SmallVector<Value> args{map.lookupOrDefault(loop.getLower())};
  for (Value init : loop.getInits())
    args.push_back(map.lookupOrDefault(init));
  for (auto [result, y] : llvm::zip(loop.getResults(), inlineBlock(b, loop.getBody().front(), args, map)))
    map.map(result, y);
}

} // namespace

/// Stages `block` from `anchor`, its first blocking loop over a constant range shared with others, when
/// the longest, `longest` lanes, fits a block.
static IfOp stageConstantLoops(Block &block, ForOp anchor, int64_t longest) {
  if (!anchor || block.getTerminator()->getNumOperands() != 0)
    return {};
  OpBuilder b(anchor);
  Value lo = arith::ConstantIndexOp::create(b, anchor.getLoc(), 0);
  Value hi = arith::ConstantIndexOp::create(b, anchor.getLoc(), longest);
  return stageOneSegment(block, anchor, lo, hi, anchor.getStep(), [&](OpBuilder &b, Operation &op, IRMapping &map) {
    cloneStaged(b, op, map, anchor, longest);
  });
}

/// Stages `block` from `anchor` (its first shared blocking loop, or null).
IfOp tessel::pgpu::stageRowLoops(Block &block, ForOp anchor) {
  if (!anchor || block.getTerminator()->getNumOperands() != 0)
    return {};
  // The guard: exactly one iteration; everything from the anchor to the terminator moves: inlined in
  // `then`, as it is in `else`.
  return stageOneSegment(block, anchor, anchor.getLower(), anchor.getUpper(), anchor.getStep(),
                         [&](OpBuilder &b, Operation &op, IRMapping &map) { cloneStaged(b, op, map, anchor); });
}

IfOp tessel::pgpu::stageOneSegment(Block &block, Operation *anchor, Value lo, Value hi, Value step,
                                   function_ref<void(OpBuilder &, Operation &, IRMapping &)> cloneStaged) {
  Location loc = anchor->getLoc();
  OpBuilder b(anchor);
  Value extent = BinaryOp::create(b, loc, kir::BinaryKind::Sub, hi, lo, false, false);
  Value nonEmpty = CmpOp::create(b, loc, kir::CmpPredicate::LT, lo, hi);
  Value fits = CmpOp::create(b, loc, kir::CmpPredicate::LE, extent, step);
  Value once = BinaryOp::create(b, loc, kir::BinaryKind::And, nonEmpty, fits, false, false);
  auto guard = IfOp::create(b, loc, TypeRange(), once);
  SmallVector<Operation *> moved;
  for (Operation *op = anchor; op != block.getTerminator(); op = op->getNextNode())
    moved.push_back(op);
  OpBuilder::InsertionGuard g(b);
  b.createBlock(&guard.getThenRegion());
  IRMapping map;
  for (Operation *op : moved)
    cloneStaged(b, *op, map);
  YieldOp::create(b, loc);
  Block *otherwise = b.createBlock(&guard.getElseRegion());
  for (Operation *op : moved)
    op->moveBefore(otherwise, otherwise->end());
  b.setInsertionPointToEnd(otherwise);
  YieldOp::create(b, loc);
  return guard;
}

namespace {
struct StageRows : public tessel::pgpu::impl::PGPUStageRowsBase<StageRows> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation().walk([&](Operation *op) {
      if (isa<ExecutionGroupOp, ProgramSpaceOp>(op))
        blocks.push_back(&op->getRegion(0).front());
      // The branches of an if at a program's top level (a row whose label the author tests first)
      // are program bodies too: each walks its rows alike.
      if (auto guard = dyn_cast<IfOp>(op); guard && isa<ExecutionGroupOp, ProgramSpaceOp>(guard->getParentOp()))
        for (Region &branch : guard->getRegions())
          if (!branch.empty())
            blocks.push_back(&branch.front());
    });
    for (Block *block : blocks) {
      ForOp anchor = firstShared(*block);
      bool remarks = remarksEnabled(block->getParentOp());
      if (!anchor) {
        auto [first, longest] = firstConstantShared(*block);
        if (stageConstantLoops(*block, first, longest)) {
          if (remarks)
            emitRemark(first.getLoc()) << "pgpu-stage-rows: loops over constant ranges of a row run once when the "
                                          "longest, "
                                       << longest << " lanes, fits one block (guarded single-iteration path)";
          continue;
        }
      }
      Location loc = anchor ? anchor.getLoc() : block->getParentOp()->getLoc();
      if (stageRowLoops(*block, anchor)) {
        if (remarks)
          emitRemark(loc) << "pgpu-stage-rows: loops over one row read it once when it fits one block "
                             "(guarded single-iteration path)";
      } else if (remarks && anchor) {
        emitRemark(loc) << "pgpu-stage-rows: not staged: the block yields values";
      }
    }
  }
};
} // namespace
