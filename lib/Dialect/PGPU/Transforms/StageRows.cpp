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
// view, or an author loop running such a blocking loop every trip (a
// bisection that reduces the row each trip), or (where there are none) blocking loops over constant
// non-empty ranges that read a common view, followed only
// by effects and pure code up to a terminator without operands. Must not fire
// on author loops reading a view themselves (other steps), on single loops
// (nothing to share), on loops of different runtime bounds, or when values
// defined there are used after the block.
//
// Under the guard a blocking loop over the same range nested in an author loop
// runs once too, so it is inlined where it stands; its read of an `in` view
// (never written during the launch) is then the same every trip and moves
// before the author loop: the row is read once, not once a trip (it is one
// BLOCK tile, the one the row's other reductions already hold).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "StagedBranch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

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

/// An author's ordered loop: its step is no declared parameter (a privatized histogram's walk over
/// its bins by HBINS is a physical loop whose tiles the PTX selector sizes; it is not staged here).
bool isAuthorLoop(ForOp loop) { return !loop.getStep().getDefiningOp<ParamOp>(); }

/// Views read anywhere inside `op`.
llvm::SmallPtrSet<Value, 4> viewsRead(Operation *op) {
  llvm::SmallPtrSet<Value, 4> views;
  op->walk([&](Operation *inner) {
    if (isa<LoadOp, GatherOp>(inner))
      views.insert(inner->getOperand(0));
  });
  return views;
}

/// A blocking loop of a block's staging opportunity and the op of the block it is in: the loop
/// itself, or an author loop whose trips each run it (nested through ordered loops only).
struct Member {
  Operation *top;
  ForOp loop;
};

/// Blocking loops nested in author loop `top` through ordered loops only (not under an if: a branch
/// may not run every trip), whose bounds are defined outside `top`.
void nestedMembers(Operation *top, Block &body, SmallVectorImpl<Member> &members) {
  for (Operation &op : body.without_terminator()) {
    auto loop = dyn_cast<ForOp>(op);
    if (!loop)
      continue;
    if (!isBlockingLoop(loop)) {
      if (isAuthorLoop(loop))
        nestedMembers(top, loop.getBody().front(), members);
      continue;
    }
    // The step is the BLOCK parameter (a launch constant, wherever it is spelled); the range must be
    // the same every trip.
    if (llvm::none_of(ValueRange{loop.getLower(), loop.getUpper()},
                      [&](Value v) { return top->isAncestor(v.getParentRegion()->getParentOp()); }))
      members.push_back({top, loop});
  }
}

/// The member of `block` that starts a staging opportunity: the first of two blocking loops over the
/// same bounds that read a common view, or the first blocking loop an author loop runs every trip
/// (its reads repeat once a trip); null when there is none.
Member firstShared(Block &block) {
  SmallVector<Member> members;
  for (Operation &op : block.without_terminator())
    if (auto loop = dyn_cast<ForOp>(op)) {
      if (isBlockingLoop(loop))
        members.push_back({loop, loop});
      else if (isAuthorLoop(loop))
        nestedMembers(loop, loop.getBody().front(), members);
    }
  for (auto [i, first] : llvm::enumerate(members)) {
    if (first.top != first.loop.getOperation() && !viewsRead(first.loop).empty())
      return first;
    llvm::SmallPtrSet<Value, 4> reads = viewsRead(first.loop);
    for (Member other : ArrayRef<Member>(members).drop_front(i + 1)) {
      if (other.loop.getLower() != first.loop.getLower() || other.loop.getUpper() != first.loop.getUpper() ||
          other.loop.getStep() != first.loop.getStep())
        continue;
      for (Value v : viewsRead(other.loop))
        if (reads.contains(v))
          return first;
    }
  }
  return {};
}

/// Whether `loop` walks [lo, hi) by `step` in blocks (the anchor's segment).
bool walksSegment(ForOp loop, Value lo, Value hi, Value step) {
  return isBlockingLoop(loop) && loop.getLower() == lo && loop.getUpper() == hi && loop.getStep() == step;
}

/// Replaces `loop` (one trip under the guard) by its body at iv = lower, carries bound to the inits.
void inlineOneTrip(OpBuilder &b, ForOp loop, IRMapping &map) {
  SmallVector<Value> args{map.lookupOrDefault(loop.getLower())};
  for (Value init : loop.getInits())
    args.push_back(map.lookupOrDefault(init));
  for (auto [result, y] : llvm::zip(loop.getResults(), inlineBlock(b, loop.getBody().front(), args, map)))
    map.map(result, y);
}

/// Whether `op` reads a view that nothing writes during the launch (as pgpu-reuse-input-reads).
bool readsInput(Operation *op) {
  if (!isa<LoadOp, GatherOp>(op))
    return false;
  auto view = dyn_cast<ViewType>(op->getOperand(0).getType());
  return view && !view.isWritable();
}

/// Blocking loops over the anchor's segment nested in `clone` (`once`; a row reduced inside an author
/// loop, e.g. every trip of a bisection): under the guard they too run one trip, so each is inlined
/// where it stands. The ordered loops around them are appended to `hosts`.
void inlineNestedSegments(Operation *clone, function_ref<bool(ForOp)> once, SmallVectorImpl<ForOp> &hosts) {
  SmallVector<ForOp> nested;
  clone->walk([&](ForOp loop) {
    if (loop != clone && once(loop))
      nested.push_back(loop);
  });
  for (ForOp loop : nested) {
    for (Operation *p = loop->getParentOp(); p && p != clone->getParentOp(); p = p->getParentOp())
      if (auto host = dyn_cast<ForOp>(p); host && !llvm::is_contained(hosts, host))
        hosts.push_back(host);
    OpBuilder b(loop);
    IRMapping map;
    inlineOneTrip(b, loop, map);
    for (Value result : loop.getResults())
      result.replaceAllUsesWith(map.lookup(result));
    loop.erase();
  }
}

/// Moves before `loop` the reads of input views in its body whose coordinates, validity and fill
/// do not change from trip to trip, with the pure ops computing them. An input is never written
/// during the launch, so such a read returns the same tile every trip; on the staged path the row
/// is one BLOCK tile (the tile the resource model already holds for the row's other reductions), so
/// it is read once instead of once a trip. Returns whether a read moved.
bool hoistInvariantInputReads(ForOp loop) {
  Block &body = loop.getBody().front();
  Region &inside = loop.getBody();
  llvm::SmallPtrSet<Operation *, 16> invariant;
  SmallVector<Operation *> reads;
  for (Operation &op : body.without_terminator()) {
    bool pure = op.getNumRegions() == 0 && (isMemoryEffectFree(&op) || readsInput(&op));
    if (!pure || !llvm::all_of(op.getOperands(), [&](Value v) {
          return !inside.isAncestor(v.getParentRegion()) || invariant.contains(v.getDefiningOp());
        }))
      continue;
    invariant.insert(&op);
    if (readsInput(&op))
      reads.push_back(&op);
  }
  // Only the reads and what they need move: other invariant work stays where the author wrote it.
  llvm::SmallPtrSet<Operation *, 16> needed;
  SmallVector<Operation *> work(reads.begin(), reads.end());
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!needed.insert(op).second)
      continue;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp(); def && invariant.contains(def))
        work.push_back(def);
  }
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
    if (needed.contains(&op))
      op.moveBefore(loop);
  return !reads.empty();
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

/// The loops that run one trip under a staging guard from `anchor`: with `longest` 0, those over the
/// anchor's segment [lo, hi), also nested in an author loop (its every trip reduces the row); else the
/// blocking loops of the block with the anchor's step over a constant range of 1 to `longest` lanes.
struct OneTrip {
  ForOp anchor;
  int64_t longest = 0;

  /// Whether `loop` (an original loop, or a clone's under `map`) runs one trip.
  bool runs(ForOp loop, IRMapping &map) const {
    ForOp a = anchor; // an op handle's accessors are not const
    if (longest == 0)
      return walksSegment(loop, map.lookupOrDefault(a.getLower()), map.lookupOrDefault(a.getUpper()),
                          map.lookupOrDefault(a.getStep()));
    std::optional<int64_t> extent = constantExtent(loop);
    return loop.getStep() == a.getStep() && extent && *extent <= longest;
  }
  bool nested() const { return longest == 0; }
};

/// Clones `op` into `b`, each loop that `once` runs one trip inlined as its single iteration at
/// iv = lo; where `once` reaches nested loops, also those in the clone (its enclosing ordered loops are
/// appended to `hosts`). The segment's bounds are defined before the first moved op, so the clone's are
/// the same values.
void cloneStaged(OpBuilder &b, Operation &op, IRMapping &map, const OneTrip &once, SmallVectorImpl<ForOp> &hosts) {
  if (auto loop = dyn_cast<ForOp>(op); loop && once.runs(loop, map))
    return inlineOneTrip(b, loop, map);
  Operation *clone = b.clone(op, map);
  if (once.nested())
    inlineNestedSegments(clone, [&](ForOp loop) { return once.runs(loop, map); }, hosts);
}

/// Stages `block` from `anchor`, its first blocking loop over a constant range shared with others, when
/// the longest, `longest` lanes, fits a block.
IfOp stageConstantLoops(Block &block, ForOp anchor, int64_t longest) {
  if (!anchor || block.getTerminator()->getNumOperands() != 0)
    return {};
  OpBuilder b(anchor);
  Value lo = arith::ConstantIndexOp::create(b, anchor.getLoc(), 0);
  Value hi = arith::ConstantIndexOp::create(b, anchor.getLoc(), longest);
  SmallVector<ForOp> hosts;
  return stageOneSegment(block, anchor, lo, hi, anchor.getStep(), [&](OpBuilder &b, Operation &op, IRMapping &map) {
    cloneStaged(b, op, map, OneTrip{anchor, longest}, hosts);
  });
}

} // namespace

namespace {
/// Stages `block` from `top` (the op holding `anchor`, its first member's blocking loop).
IfOp stageFrom(Block &block, Operation *top, ForOp anchor) {
  if (!anchor || block.getTerminator()->getNumOperands() != 0)
    return {};
  // A BLOCK parameter spelled inside an author loop is read before it, where the guard needs it.
  if (Operation *param = anchor.getStep().getDefiningOp(); top->isAncestor(param))
    param->moveBefore(top);
  // The guard: exactly one iteration; everything from the anchor to the terminator moves: inlined in
  // `then`, as it is in `else`.
  SmallVector<ForOp> hosts;
  IfOp guard =
      stageOneSegment(block, top, anchor.getLower(), anchor.getUpper(), anchor.getStep(),
                      [&](OpBuilder &b, Operation &op, IRMapping &map) { cloneStaged(b, op, map, {anchor}, hosts); });
  // Innermost first (a post-order walk), so a read leaves every enclosing ordered loop whose trips
  // do not change it.
  SmallVector<ForOp> inner;
  if (guard)
    guard.getThenRegion().walk([&](ForOp loop) {
      if (llvm::is_contained(hosts, loop))
        inner.push_back(loop);
    });
  for (ForOp host : inner)
    if (hoistInvariantInputReads(host) && remarksEnabled(host))
      emitRemark(host.getLoc()) << "pgpu-stage-rows: a row that fits one block is read once before this loop, "
                                   "not once a trip";
  return guard;
}
} // namespace

/// Stages `block` from `anchor` (its first shared blocking loop, or null).
IfOp tessel::pgpu::stageRowLoops(Block &block, ForOp anchor) { return stageFrom(block, anchor, anchor); }

IfOp tessel::pgpu::stageOneSegment(Block &block, Operation *anchor, Value lo, Value hi, Value step,
                                   function_ref<void(OpBuilder &, Operation &, IRMapping &)> cloneStaged) {
  Location loc = anchor->getLoc();
  OpBuilder b(anchor);
  Value extent = BinaryOp::create(b, loc, kir::BinaryKind::Sub, hi, lo, false, false);
  Value nonEmpty = CmpOp::create(b, loc, kir::CmpPredicate::LT, lo, hi);
  Value fits = CmpOp::create(b, loc, kir::CmpPredicate::LE, extent, step);
  Value once = BinaryOp::create(b, loc, kir::BinaryKind::And, nonEmpty, fits, false, false);
  // A terminator yielding values (a branch's loop results) yields the guard's: each branch yields
  // what it computed of them.
  Operation *end = block.getTerminator();
  auto guard = IfOp::create(b, loc, end->getOperandTypes(), once);
  SmallVector<Operation *> moved;
  for (Operation *op = anchor; op != end; op = op->getNextNode())
    moved.push_back(op);
  OpBuilder::InsertionGuard g(b);
  b.createBlock(&guard.getThenRegion());
  IRMapping map;
  for (Operation *op : moved)
    cloneStaged(b, *op, map);
  SmallVector<Value> staged, original(end->getOperands());
  for (Value v : original)
    staged.push_back(map.lookupOrDefault(v));
  YieldOp::create(b, loc, staged);
  Block *otherwise = b.createBlock(&guard.getElseRegion());
  for (Operation *op : moved)
    op->moveBefore(otherwise, otherwise->end());
  b.setInsertionPointToEnd(otherwise);
  YieldOp::create(b, loc, original);
  end->setOperands(guard.getResults());
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
      Member first = firstShared(*block);
      ForOp anchor = first.loop;
      bool remarks = remarksEnabled(block->getParentOp());
      if (!anchor) {
        auto [constant, longest] = firstConstantShared(*block);
        if (stageConstantLoops(*block, constant, longest)) {
          if (remarks)
            emitRemark(constant.getLoc()) << "pgpu-stage-rows: loops over constant ranges of a row run once when "
                                             "the longest, "
                                          << longest << " lanes, fits one block (guarded single-iteration path)";
          continue;
        }
      }
      Location loc = anchor ? anchor.getLoc() : block->getParentOp()->getLoc();
      if (stageFrom(*block, first.top, anchor)) {
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
