//===- StageFolds.cpp - a row held in one tile runs its folds once ---------===//
//
// seed 002 §3.4 (replay versus materialization; a value read by several
// consumers is co-realized once). kir-online-folds turns the reductions over a
// computed row (a matrix product's row: a softmax's maximum and sum, a
// LayerNorm's mean and variance) into region folds that recompute the row's
// tiles per pass, then a blocked loop stores a function of the row: three
// passes of the tile product over K. When the row fits one tile of the folds'
// step (0 < hi - lo <= step: a call binds the step to cover the row) each
// fold and the loop run exactly one segment, so the program can compute the
// tile once and keep it: the segment bodies run once, in order, straight-line,
// and their identical reads, products and K loops become one computation.
//
// The rewrite keeps both forms under a uniform guard (as pgpu-stage-rows):
//
//   pgpu.if (lo < hi && hi - lo <= step) {
//     per fold: combine(identities, summarize(lo, hi, captures))   (hi = min(lo + step, hi) here)
//     per loop: its body at iv = lo, carries bound to the inits
//   } else { the original folds and loops }
//
// so any extent stays correct and the call's binding of the step decides which
// path runs (its parameter declares `covers` = the row's extent where the range
// is [0, S) of a view extent S, so the call's default is the smallest candidate
// holding the row that the resource model keeps in registers). Each result is
// computed exactly as the loop computes it (one segment, combined into the
// identity), so the staged path is bit-identical. In the staged branch CSE
// merges the repeated pure work, and identical read-only loops (the K loops of
// the tile products, one per pass) with no write between them merge: the later
// takes the earlier's results (the same reads of the same memory).
//
// Fires on a block (not inside a region fold or scan's regions) holding a
// pgpu.region_fold and at least one more sibling fold or pgpu.for over the same
// bounds with the same step, a declared parameter, that read a common view,
// one of them a loop that stores the row (the row is the output's free axis)
// or a fold that reads an earlier member fold's result (a chain of passes:
// attention's exact two-pass softmax over the keys, whose second pass scores
// the keys again at the first's maximum; a short row, ViT's 197 keys, then
// fits one key tile and is scored once; over a view's whole extent [0, S),
// so that the guard is a launch fact), followed only by code up to a
// terminator without operands. Must not fire on a lone fold (the online
// one-fold attention: nothing is recomputed), sibling folds that neither chain
// nor meet a storing loop, folds or loops with other bounds or steps, loops
// without a fold (pgpu-stage-rows' rows), or a block whose terminator yields
// values.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "ParamCovers.h"
#include "StagedBranch.h"
#include "tessel/Dialect/PGPU/IR/SliceWidth.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUSTAGEFOLDS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

std::optional<std::tuple<Value, Value, Value>> tessel::pgpu::segmentBounds(Operation *op) {
  if (auto fold = dyn_cast<RegionFoldOp>(op); fold && fold.getStep().getDefiningOp<ParamOp>())
    return std::make_tuple(fold.getLower(), fold.getUpper(), fold.getStep());
  if (auto loop = dyn_cast<ForOp>(op); loop && loop.getStep().getDefiningOp<ParamOp>())
    return std::make_tuple(loop.getLower(), loop.getUpper(), loop.getStep());
  return std::nullopt;
}

namespace {

bool sameBounds(Operation *a, Operation *b) {
  auto x = segmentBounds(a), y = segmentBounds(b);
  return x && y && std::get<0>(*x) == std::get<0>(*y) && std::get<1>(*x) == std::get<1>(*y) &&
         sameLoopIndex(std::get<2>(*x), std::get<2>(*y));
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

/// The views `op` reads, as the values outside it: a fold's captured view argument is its operand.
llvm::SmallPtrSet<Value, 4> outerViewsRead(Operation *op) {
  llvm::SmallPtrSet<Value, 4> out;
  auto fold = dyn_cast<RegionFoldOp>(op);
  for (Value v : viewsRead(op)) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (fold && arg && arg.getOwner() == &fold.getSummarize().front() && arg.getArgNumber() >= 2)
      v = fold.getCaptures()[arg.getArgNumber() - 2];
    out.insert(v);
  }
  return out;
}

/// Whether a member reads the result of an earlier region fold among `members` (a pass of a chain:
/// the second of a softmax's passes takes the first's maximum as an operand).
bool chainsFolds(ArrayRef<Operation *> members) {
  llvm::SmallPtrSet<Operation *, 4> folds;
  for (Operation *m : members) {
    bool reads = false;
    m->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (Operation *def = operand.getDefiningOp(); def && folds.contains(def))
          reads = true;
    });
    if (reads)
      return true;
    if (isa<RegionFoldOp>(m))
      folds.insert(m);
  }
  return false;
}

} // namespace

SmallVector<Block *> tessel::pgpu::blocksOutsideFolds(KernelOp kernel) {
  SmallVector<Block *> blocks;
  kernel.walk([&](Block *block) {
    for (Operation *p = block->getParentOp(); p && p != kernel; p = p->getParentOp())
      if (isa<RegionFoldOp, RegionScanOp>(p))
        return;
    blocks.push_back(block);
  });
  return blocks;
}

/// The members of `block` staged together: the first region fold with a declared step that has a
/// sibling (fold or loop) over the same bounds reading a common view, and every such sibling, in
/// block order; empty when there is none.
SmallVector<Operation *> tessel::pgpu::stagedFoldMembers(Block &block) {
  for (Operation &first : block.without_terminator()) {
    if (!isa<RegionFoldOp>(first) || !segmentBounds(&first))
      continue;
    SmallVector<Operation *> members;
    for (Operation &op : block.without_terminator())
      if (&op == &first || (segmentBounds(&op) && sameBounds(&first, &op)))
        members.push_back(&op);
    // Each pass recomputes the row's tile: a loop over the same segments stores the row (a softmax's
    // or LayerNorm's normalized row), or a later fold reads an earlier one's summary (the exact
    // two-pass softmax over keys of attention under source numerics: the maximum, then the sums and
    // the product with V at that maximum, each pass scoring the keys again). A chain is staged over
    // a view's whole extent [0, S) only: its guard is then a launch fact, so a launch whose keys
    // outrun the tile compiles the folds alone (a member's own range, varlen keys, would keep both
    // forms in one kernel).
    bool stores = llvm::any_of(members, [](Operation *m) { return isa<ForOp>(m) && writesMemory(m); });
    auto [lo, hi, step] = *segmentBounds(&first);
    if (members.size() < 2 ||
        (!stores && !(chainsFolds(members) && matchPattern(lo, m_Zero()) && extentSymbol(hi))))
      continue;
    llvm::SmallPtrSet<Value, 4> reads = outerViewsRead(&first);
    bool shared = llvm::any_of(members, [&](Operation *m) {
      return m != &first && llvm::any_of(outerViewsRead(m), [&](Value v) { return reads.contains(v); });
    });
    if (shared)
      return members;
  }
  return {};
}

namespace {

/// Clones `op` at `b`: a staged member runs its single segment at lo.
void cloneStaged(OpBuilder &b, Operation &op, IRMapping &map, const llvm::SmallPtrSetImpl<Operation *> &staged) {
  if (!staged.contains(&op)) {
    b.clone(op, map);
    return;
  }
  if (auto loop = dyn_cast<ForOp>(op)) {
    SmallVector<Value> args{map.lookupOrDefault(loop.getLower())};
    for (Value init : loop.getInits())
      args.push_back(map.lookupOrDefault(init));
    for (auto [result, y] : llvm::zip(loop.getResults(), inlineBlock(b, loop.getBody().front(), args, map)))
      map.map(result, y);
    return;
  }
  // A fold's one segment [lo, min(lo + step, hi)) = [lo, hi) under the guard (hi - lo <= step; the
  // loops' masks test hi too, so their reads and the fold's are one), combined into the identities
  // (expandRegionFold's first trip).
  auto fold = cast<RegionFoldOp>(op);
  Value lo = map.lookupOrDefault(fold.getLower()), hi = map.lookupOrDefault(fold.getUpper());
  SmallVector<Value> summarizeArgs{lo, hi};
  for (Value c : fold.getCaptures())
    summarizeArgs.push_back(map.lookupOrDefault(c));
  SmallVector<Value> args;
  for (Value id : fold.getIdentities())
    args.push_back(map.lookupOrDefault(id));
  IRMapping inner = map; // the regions are closed: a fresh map per inlined block keeps none of theirs
  llvm::append_range(args, inlineBlock(b, fold.getSummarize().front(), summarizeArgs, inner));
  IRMapping combine = map;
  for (auto [result, y] : llvm::zip(fold.getResults(), inlineBlock(b, fold.getCombine().front(), args, combine)))
    map.map(result, y);
}

/// Whether an op strictly between `a` and `b` (one block) may write memory.
bool writeBetween(Operation *a, Operation *b) {
  for (Operation *op = a->getNextNode(); op && op != b; op = op->getNextNode())
    if (writesMemory(op))
      return true;
  return false;
}

/// Merges identical read-only loops of `block` (the later takes the earlier's results) when nothing
/// between them writes memory; returns how many merged.
unsigned mergeEqualLoops(Block &block) {
  unsigned merged = 0;
  SmallVector<ForOp> seen;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto loop = dyn_cast<ForOp>(op);
    if (!loop || !readsOnly(loop))
      continue;
    ForOp same;
    for (ForOp earlier : seen)
      if (OperationEquivalence::isEquivalentTo(earlier, loop, OperationEquivalence::IgnoreLocations) &&
          !writeBetween(earlier, loop)) {
        same = earlier;
        break;
      }
    if (!same) {
      seen.push_back(loop);
      continue;
    }
    loop.replaceAllUsesWith(same.getResults());
    loop.erase();
    ++merged;
  }
  return merged;
}

/// The staged step's parameter covers the row's extent S (a range [0, S)) unless it covers something
/// already: a call's default then binds the smallest candidate holding the row (seed 003: a fact of
/// the call), the resource model deciding whether that tile fits.
void declareCover(KernelOp kernel, ParamOp step, Value lo, Value hi) {
  coverParam(kernel, step.getName(), matchPattern(lo, m_Zero()) ? extentSymbol(hi) : StringAttr());
}

/// Stages `block`'s members; returns the guard, or null.
IfOp stage(Block &block, ArrayRef<Operation *> members) {
  if (members.empty() || block.getTerminator()->getNumOperands() != 0)
    return {};
  Operation *anchor = members.front();
  auto [lo, hi, step] = *segmentBounds(members.front());
  // The staged members' bounds and step are defined before the anchor (they dominate the members).
  llvm::SmallPtrSet<Operation *, 8> staged(members.begin(), members.end());
  IfOp guard = stageOneSegment(block, anchor, lo, hi, step, [&](OpBuilder &b, Operation &op, IRMapping &map) {
    cloneStaged(b, op, map, staged);
  });
  // The staged passes' repeated work is one computation: CSE (over the kernel, so the staged
  // branch's constants and reads meet those it is nested in), then the identical K loops, until
  // nothing more merges.
  IRRewriter rewriter(guard.getContext());
  Block &then = guard.getThenRegion().front();
  Operation *kernel = guard->getParentOfType<KernelOp>();
  do {
    DominanceInfo dominance(kernel);
    eliminateCommonSubExpressions(rewriter, dominance, kernel);
  } while (mergeEqualLoops(then));
  return guard;
}

struct StageFolds : public tessel::pgpu::impl::PGPUStageFoldsBase<StageFolds> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      for (Block *block : blocksOutsideFolds(kernel)) {
        SmallVector<Operation *> members = stagedFoldMembers(*block);
        if (members.empty())
          continue;
        Location loc = members.front()->getLoc();
        bool remarks = remarksEnabled(kernel);
        auto [lo, hi, step] = *segmentBounds(members.front());
        ParamOp param = step.getDefiningOp<ParamOp>();
        if (!stage(*block, members)) {
          if (remarks)
            emitRemark(loc) << "pgpu-stage-folds: not staged: the block yields values";
          continue;
        }
        declareCover(kernel, param, lo, hi);
        if (remarks)
          emitRemark(loc) << "pgpu-stage-folds: " << members.size()
                          << " folds and loops over one row run once when it fits one " << param.getName()
                          << " tile (guarded single-segment path; the row's tile computed once)";
      }
    }
  }
};
} // namespace
