//===- ScanWorkset.cpp - fragment construction of region scans -------------===//
//
// seed 002 §3.4 region-scan realization ("creates actual fragments, loops,
// carries and accumulator graphs"), seed 000 §8 (region scan: physical segment
// loop, summarizer and transition combine, incoming-state application, slice
// emitter, source-aligned output assembly, final-state flow).
//
// A workset holding a kir.region_scan is constructed on fragments like a
// region-fold workset (FoldWorkset.cpp), with no lane axis: each program owns
// one point of the parallel space, and the scan becomes one pgpu.region_scan
// over BLOCK_<T>-wide source tiles (the chunked form):
//
//   * the state is carried as fragments across tiles (never rematerialized);
//   * `summarize` gives a tile's transition on fragments (its contractions
//     stay pgpu.contract), `apply` advances the state by it;
//   * `emit` computes the tile's outputs from the state before the tile and
//     the tile itself (an intra-tile masked contraction stays a contraction),
//     and stores them at the tile's coordinates: the KIR stores of a scan's
//     outputs move into the emit region (source-aligned output assembly);
//   * the final state is the scan's results.
//
// pgpu-realize-folds turns the scan into its ordered loop over tiles.
//
//===----------------------------------------------------------------------===//

#include "FoldWorksetImpl.h"

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

/// Pointwise ops a scan's output may pass through on its way to a store (a cast to the stored dtype).
static bool isPointwise(Operation *op) {
  return isa<kir::BinaryOp, kir::UnaryOp, kir::CmpOp, kir::SelectOp, kir::CastOp, kir::BitcastOp>(op);
}

kir::RegionScanOp FoldWorksetImpl::scanOfOutput(Value v) {
  auto r = dyn_cast<OpResult>(v);
  if (!r)
    return {};
  if (auto scan = dyn_cast<kir::RegionScanOp>(r.getOwner()))
    return r.getResultNumber() < scan.getOutputs().size() ? scan : kir::RegionScanOp();
  if (isPointwise(r.getOwner()))
    for (Value operand : r.getOwner()->getOperands())
      if (kir::RegionScanOp scan = scanOfOutput(operand))
        return scan;
  return {};
}

bool FoldWorksetImpl::analyzeScan(kir::RegionScanOp s) {
  unsigned nT = s.getIdentities().size(), nS = s.getInits().size(), nSrc = s.getSources().size();
  if (nT != nS)
    return fail(s, "its transitions and states are different components");
  unsigned axis = s.getAxis();
  Value tile;
  for (Value src : s.getSources()) {
    std::optional<Shape> ss = shapeOf(src);
    if (!ss)
      return fail(s, "a source has no coordinate provenance");
    if (tile && ss->axes[axis] != tile)
      return fail(s, "sources sliced along different domains");
    tile = ss->axes[axis];
  }
  if (!kc.domains.count(tile))
    return fail(s, "the scan's domain is defined inside the workset");
  if (freeAxes.count(tile))
    return fail(s, "the scan's domain is also a free axis");
  if (!tileAxes.count(tile))
    tileAxes[tile] = paramName(tile);
  for (Value c : s.getCaptures())
    if (!shapeOf(c))
      return fail(s, "a captured operand has no coordinate provenance");
  // A transition ranges over its identity's axes, a state over its init's.
  auto components = [&](ValueRange values, SmallVectorImpl<Shape> &out) -> bool {
    for (Value v : values) {
      std::optional<Shape> sh = shapeOf(v);
      if (!sh)
        return fail(s, "a state or transition component has no coordinate provenance");
      if (llvm::is_contained(sh->axes, tile))
        return fail(s, "a state or transition component ranges over the scan's domain");
      out.push_back(Shape{false, sh->axes});
    }
    return true;
  };
  SmallVector<Shape> trans, state;
  if (!components(s.getIdentities(), trans) || !components(s.getInits(), state))
    return false;
  auto yieldsAs = [&](Block &block, ArrayRef<Shape> want, StringRef region) -> bool {
    for (auto [y, w] : llvm::zip(block.getTerminator()->getOperands(), want)) {
      std::optional<Shape> sh = shapeOf(y);
      if (!sh || sh->lanes || (!sh->axes.empty() && sh->axes != w.axes))
        return fail(s, Twine(region) + " changes a component's shape");
    }
    return true;
  };
  Block &sum = s.getSummarize().front();
  for (auto [i, arg] : llvm::enumerate(sum.getArguments()))
    alias[arg] = i < nSrc ? s.getSources()[i] : s.getCaptures()[i - nSrc];
  if (!analyzeBlock(sum) || !yieldsAs(sum, trans, "summarize"))
    return false;
  Block &merge = s.getCombine().front();
  for (auto [i, arg] : llvm::enumerate(merge.getArguments()))
    shapes[arg] = trans[i % nT];
  if (!analyzeBlock(merge) || !yieldsAs(merge, trans, "combine"))
    return false;
  Block &apply = s.getApply().front();
  for (auto [i, arg] : llvm::enumerate(apply.getArguments()))
    shapes[arg] = i < nT ? trans[i] : state[i - nT];
  if (!analyzeBlock(apply) || !yieldsAs(apply, state, "apply"))
    return false;
  Block &emit = s.getEmit().front();
  for (auto [i, arg] : llvm::enumerate(emit.getArguments())) {
    if (i < nSrc)
      alias[arg] = s.getSources()[i];
    else if (i < nSrc + nS)
      shapes[arg] = state[i - nSrc];
    else
      alias[arg] = s.getCaptures()[i - nSrc - nS];
  }
  if (!analyzeBlock(emit))
    return false;
  // Outputs are aligned with the tile on `axis` and stored by the workset (their stores are
  // emitted in the emit region, at the tile's coordinates).
  for (auto [out, y] : llvm::zip(s.getOutputs(), emit.getTerminator()->getOperands())) {
    std::optional<Shape> sh = shapeOf(y);
    if (!sh || sh->axes.size() <= axis || sh->axes[axis] != tile)
      return fail(s, "an output is not aligned with the scan's tiles");
    shapes[out] = *sh;
    // Stored, directly or through pointwise ops of the workset (replayed in the emit region).
    SmallVector<Value> worklist{out};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        bool inBody = user->getBlock() == &par.getBody().front();
        if (auto store = dyn_cast<kir::StoreOp>(user); store && inBody && store.getValue() == v)
          continue;
        if (!inBody || !isPointwise(user) || llvm::any_of(user->getOperands(), [&](Value x) {
              kir::RegionScanOp from = scanOfOutput(x);
              return from && from != s;
            }))
          return fail(user, "a region scan's output is used other than by a store of the workset");
        worklist.push_back(user->getResult(0));
      }
    }
  }
  for (auto [f, sh] : llvm::zip(s.getFinals(), state))
    shapes[f] = sh;
  return true;
}

/// Rebuilds `scan` so that summarize and emit read nothing from outside but
/// constants: what they read becomes the scan's captures (both regions receive
/// all of them). Returns the op to use from now on.
static pgpu::RegionScanOp closeScan(OpBuilder &b, pgpu::RegionScanOp scan) {
  llvm::SetVector<Value> outside;
  for (Region *region : {&scan.getSummarize(), &scan.getEmit()})
    region->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (!region->isAncestor(v.getParentRegion()) && !matchPattern(v, m_Constant()))
          outside.insert(v);
    });
  if (outside.empty())
    return scan;
  Location loc = scan.getLoc();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(scan);
  auto closed = pgpu::RegionScanOp::create(b, loc, scan.getFinals().getTypes(), scan.getLower(), scan.getUpper(),
                                           scan.getStep(), scan.getIdentities(), scan.getInits(),
                                           outside.getArrayRef());
  for (auto [to, from] : llvm::zip(closed->getRegions(), scan->getRegions()))
    to.takeBody(from);
  for (Region *region : {&closed.getSummarize(), &closed.getEmit()}) {
    Block &entry = region->front();
    for (Value v : outside) {
      BlockArgument arg = entry.addArgument(v.getType(), loc);
      v.replaceUsesWithIf(arg, [&](OpOperand &use) { return region->isAncestor(use.getOwner()->getParentRegion()); });
    }
  }
  scan.erase();
  return closed;
}

LogicalResult FoldWorksetImpl::emitScan(kir::RegionScanOp s) {
  Location l = s.getLoc();
  unsigned nT = s.getIdentities().size(), nS = s.getInits().size(), nSrc = s.getSources().size();
  Value tile = shapeOf(s.getSources()[0])->axes[s.getAxis()];
  // Captures do not depend on the tile: realize them once, before the scan.
  for (Value c : s.getCaptures())
    if (failed(get(c)))
      return failure();
  SmallVector<Shape> trans, state;
  SmallVector<Type> transTypes, stateTypes;
  SmallVector<Value> identities, inits;
  auto component = [&](Value kirValue, SmallVectorImpl<Shape> &shapesOut, SmallVectorImpl<Type> &types,
                       SmallVectorImpl<Value> &values) -> LogicalResult {
    std::optional<Shape> from = shapeOf(kirValue);
    Shape to{false, from->axes};
    FailureOr<Type> t = physType(to, getElementTypeOrSelf(kirValue.getType()));
    FailureOr<Value> v = get(kirValue);
    if (failed(t) || failed(v))
      return failure();
    FailureOr<Value> vb = broadcastTo(l, *v, *from, to);
    if (failed(vb))
      return failure();
    shapesOut.push_back(to);
    types.push_back(*t);
    values.push_back(*vb);
    return success();
  };
  for (Value id : s.getIdentities())
    if (failed(component(id, trans, transTypes, identities)))
      return failure();
  for (Value init : s.getInits())
    if (failed(component(init, state, stateTypes, inits)))
      return failure();
  const DomainVals &dom = kc.domains.find(tile)->second;
  StringRef tileParam = tileAxes.find(tile)->second;
  Value step = param(l, tileParam);
  auto scan = pgpu::RegionScanOp::create(b, l, stateTypes, kc.constIndex(l, 0), dom.size, step, identities, inits,
                                         ValueRange{});
  {
    OpBuilder::InsertionGuard guard(b);
    // Yields the KIR block's first `want.size()` results, each in its component's shape.
    auto yieldAs = [&](Block &kirBlock, ArrayRef<Shape> want) -> LogicalResult {
      SmallVector<Value> yields;
      for (auto [y, w] : llvm::zip(kirBlock.getTerminator()->getOperands(), want)) {
        FailureOr<Value> py = get(y);
        FailureOr<Value> yb = succeeded(py) ? broadcastTo(l, *py, *shapeOf(y), w) : FailureOr<Value>();
        if (failed(yb))
          return failure();
        yields.push_back(*yb);
      }
      pgpu::YieldOp::create(b, l, yields);
      return success();
    };
    auto tileBounds = [&](Block *block) {
      Value begin = block->addArgument(b.getIndexType(), l), end = block->addArgument(b.getIndexType(), l);
      blocks[tile] = makeBlock(l, tileParam, begin, end, dom);
    };

    // summarize(begin, end): the tile's transition.
    Block *sum = b.createBlock(&scan.getSummarize());
    tileBounds(sum);
    scopes.emplace_back();
    if (failed(yieldAs(s.getSummarize().front(), trans)))
      return failure();
    scopes.pop_back();
    blocks.erase(tile);

    // combine(earlier, later) and apply(transition, state): pure, on the components.
    Block *merge = b.createBlock(&scan.getCombine());
    scopes.emplace_back();
    for (auto [i, arg] : llvm::enumerate(s.getCombine().front().getArguments()))
      bind(arg, merge->addArgument(transTypes[i % nT], l));
    if (failed(yieldAs(s.getCombine().front(), trans)))
      return failure();
    scopes.pop_back();
    Block *apply = b.createBlock(&scan.getApply());
    scopes.emplace_back();
    for (auto [i, arg] : llvm::enumerate(s.getApply().front().getArguments()))
      bind(arg, apply->addArgument(i < nT ? transTypes[i] : stateTypes[i - nT], l));
    if (failed(yieldAs(s.getApply().front(), state)))
      return failure();
    scopes.pop_back();

    // emit(begin, end, state before the tile...): the tile's outputs, stored where the workset stores them.
    Block *emit = b.createBlock(&scan.getEmit());
    tileBounds(emit);
    scopes.emplace_back();
    Block &kirEmit = s.getEmit().front();
    for (unsigned i = 0; i < nS; ++i)
      bind(kirEmit.getArgument(nSrc + i), emit->addArgument(stateTypes[i], l));
    for (auto [out, y] : llvm::zip(s.getOutputs(), kirEmit.getTerminator()->getOperands())) {
      FailureOr<Value> py = get(y);
      FailureOr<Value> yb = succeeded(py) ? broadcastTo(l, *py, *shapeOf(y), *shapeOf(out)) : FailureOr<Value>();
      if (failed(yb))
        return failure();
      bind(out, *yb);
    }
    for (Operation &op : par.getBody().front().without_terminator())
      if (auto store = dyn_cast<kir::StoreOp>(op); store && scanOfOutput(store.getValue()) == s)
        if (failed(emitStore(store)))
          return failure();
    pgpu::YieldOp::create(b, l);
    scopes.pop_back();
    blocks.erase(tile);
  }
  scan = closeScan(b, scan);
  if (remarks)
    emitRemark(l) << "kir-to-pgpu: region scan constructed on fragments: " << tileParam
                  << "-wide source tiles, the state carried across them; its contractions and reductions stay "
                     "structured ops";
  for (auto [f, phys] : llvm::zip(s.getFinals(), scan.getFinals()))
    bind(f, phys);
  emittedScans.insert(s);
  return success();
}
