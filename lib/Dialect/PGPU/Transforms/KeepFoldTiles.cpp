//===- KeepFoldTiles.cpp - a row's product tiles computed once, kept --------===//
//
// seed 002 §3.4 (replay versus materialization: "if it chooses
// materialization, it must create a buffer/value and corresponding uses"),
// seed 000 §4.4 (invocation workspace with a unique owner per slice).
// kir-online-folds turns the reductions over a matrix product's row (a
// softmax's maximum and sum, a LayerNorm's mean and variance) into region
// folds, then a blocked loop stores a function of the row; under source
// numerics no fold can absorb another, so each pass recomputes every tile
// of the product with its own K loop: three products where one is asked.
// pgpu-stage-folds computes the tile once where the row fits one segment;
// past that (a classifier's 1000 classes, a LayerNorm over 1024 columns
// with a narrower BLOCK_N) this pass keeps the tiles instead: a loop over
// the same segments, before the members, runs the product's K loop once
// per segment and stores the tile to this program's slice of invocation
// workspace [KEEP_PROGRAMS, KEEP_TILES, tile...] (KEEP_PROGRAMS: the points of
// the members' execution group, else the program instances); every member then loads
// its segment's tile instead of running its K loop. Where the members are
// the else-branch of pgpu-stage-folds' guard, KEEP_PROGRAMS is 0 unless the
// range spans several segments (the staged path allocates nothing).
//
// The kept loop is the storing loop's own K loop and the code it reads
// (cloned, its induction variable the new loop's), so the tile it stores is
// what every member computed, bit for bit; each fold's K loop is checked to
// be the same computation first: the same ops over the same values, the
// fold's segment start for the loop's induction variable, its captures for
// the values they capture, and its segment end for the range's end where
// that end only bounds the lanes of the segment's iota of the step's
// extent (b + i < min(b + step, hi) is b + i < hi for i < step). Every lane
// of a tile is stored and loaded (valid everywhere), so the loaded tile is
// the recomputed one on masked lanes too. The slice of a program is its
// own (indexed by the program instance), written before it is read, and
// read by that program only; a program walking several points reuses it
// in order.
//
// The first member, a fold that reads nothing the members compute (a
// softmax's maximum, a LayerNorm's mean), is summarized by the kept loop
// itself from the tile it has just computed: each segment's summary goes to
// workspace beside the tile and the fold's summarize loads it, so the fold
// still combines the same summaries in segment order (the same bits) while
// its pass over the tiles (and the residual it adds to them) goes. Two
// passes over the kept tiles follow the product instead of three.
//
// Fires on a block (outside region fold and scan regions, in a program
// space of one extent) holding the members pgpu-stage-folds stages (a fold
// and siblings over the same bounds and parameter step sharing a read, one
// a pgpu.for storing the row) with launch-uniform bounds, where the
// storing loop and every fold hold (in an execution group of one axis, if any), directly in their bodies, one
// read-only pgpu.for with one fragment result of static or parameter
// extents that contains a pgpu.contract (a product over a reduced axis
// longer than one tile), and each fold's is the same computation as the
// loop's. Must not fire on: members without such a loop (K in one tile:
// recomputing the short product is cheaper than its round trip through
// memory), folds whose product differs (other operands or masks), folds
// without a storing loop (a fused linear cross-entropy's vocabulary walk:
// its tiles would be the logits it exists not to write), bounds that are
// not launch-uniform, a program space of several extents.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/FoldLanes.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "FoldProducts.h"
#include "StagedBranch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUKEEPFOLDTILES
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::build;

namespace {

using products::memberBody;
using products::productLoop;
using products::productSlice;
using products::eraseDeadReads;

/// Structural equality of a fold's product with the storing loop's (see the file comment).
struct SameProduct {
  RegionFoldOp fold;
  ForOp loop;
  DenseMap<Value, Value> nested; // block arguments of the compared regions, fold -> loop
  DenseMap<Operation *, Operation *> done;

  /// `v` of the fold's summarize as the loop sees it: its captures' values, the segment start as the
  /// induction variable, the segment end as the range's end (checked by `endBoundsLanesOnly`, FoldLanes.h).
  Value outerOf(Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    Block &body = fold.getSummarize().front();
    if (!arg || arg.getOwner() != &body)
      return v;
    if (arg.getArgNumber() == 0)
      return loop.getBody().front().getArgument(0);
    if (arg.getArgNumber() == 1)
      return loop.getUpper();
    return fold.getCaptures()[arg.getArgNumber() - 2];
  }

  bool values(Value a, Value b) {
    if (auto it = nested.find(a); it != nested.end())
      return it->second == b;
    if (auto arg = dyn_cast<BlockArgument>(a); arg && arg.getOwner() == &fold.getSummarize().front())
      return outerOf(a) == b;
    Operation *x = a.getDefiningOp(), *z = b.getDefiningOp();
    // Constants and parameters, inside the closed region or outside it, are their attributes.
    if (x && z && x->getNumOperands() == 0 && z->getNumOperands() == 0 && x->getNumRegions() == 0 &&
        isMemoryEffectFree(x) && x->getName() == z->getName() && x->getAttrDictionary() == z->getAttrDictionary() &&
        x->getResultTypes() == z->getResultTypes())
      return true;
    if (!x || !fold->isProperAncestor(x)) // defined outside the fold: the same value outside the loop
      return a == b;
    Operation *y = b.getDefiningOp();
    if (!y || !loop->isProperAncestor(y) || cast<OpResult>(a).getResultNumber() != cast<OpResult>(b).getResultNumber())
      return false;
    return ops(x, y);
  }

  bool ops(Operation *x, Operation *y) {
    if (auto it = done.find(x); it != done.end())
      return it->second == y;
    if (x->getName() != y->getName() || x->getAttrDictionary() != y->getAttrDictionary() ||
        x->getResultTypes() != y->getResultTypes() || x->getNumOperands() != y->getNumOperands() ||
        x->getNumRegions() != y->getNumRegions())
      return false;
    for (auto [p, q] : llvm::zip(x->getOperands(), y->getOperands()))
      if (!values(p, q))
        return false;
    for (auto [r, s] : llvm::zip(x->getRegions(), y->getRegions())) {
      if (!r.hasOneBlock() || !s.hasOneBlock() ||
          r.front().getArgumentTypes() != s.front().getArgumentTypes() ||
          r.front().getOperations().size() != s.front().getOperations().size())
        return false;
      for (auto [p, q] : llvm::zip(r.front().getArguments(), s.front().getArguments()))
        nested[p] = q;
      for (auto [p, q] : llvm::zip(r.front(), s.front()))
        if (!ops(&p, &q))
          return false;
    }
    done[x] = y;
    return true;
  }
};

/// Whether `block` is the else-branch of pgpu-stage-folds' guard `lo < hi && hi - lo <= step` on these
/// bounds: it runs only where the range spans no segment or several.
bool underStagedElse(Block &block, Value lo, Value hi, Value step) {
  auto guard = dyn_cast_or_null<IfOp>(block.getParentOp());
  if (!guard || &block != &guard.getElseRegion().front())
    return false;
  auto both = guard.getCondition().getDefiningOp<BinaryOp>();
  if (!both || both.getKind() != kir::BinaryKind::And)
    return false;
  auto nonEmpty = both.getLhs().getDefiningOp<CmpOp>(), fits = both.getRhs().getDefiningOp<CmpOp>();
  if (!nonEmpty || !fits || nonEmpty.getPredicate() != kir::CmpPredicate::LT ||
      fits.getPredicate() != kir::CmpPredicate::LE || !sameLaunchValue(nonEmpty.getLhs(), lo) ||
      !sameLaunchValue(nonEmpty.getRhs(), hi) || !sameLoopIndex(fits.getRhs(), step))
    return false;
  auto extent = fits.getLhs().getDefiningOp<BinaryOp>();
  return extent && extent.getKind() == kir::BinaryKind::Sub && sameLaunchValue(extent.getLhs(), hi) &&
         sameLaunchValue(extent.getRhs(), lo);
}

/// A workspace extent symbol `base` not yet bound in `kernel` (base, base1, ...).
std::string freshSymbol(KernelOp kernel, StringRef base) {
  std::string name = base.str();
  for (unsigned i = 1; workspaceExtent(kernel, name); ++i)
    name = base.str() + std::to_string(i);
  return name;
}

/// Replaces the product `loop` in a member by a load of the kept tile at (program, (start - lo) / step),
/// `start`, `lo`, `pid` and `ws` values visible there, and erases what only the loop read. Returns the load.
BufferLoadOp loadKept(ForOp loop, Value ws, Value pid, Value lo, Value start, Value step) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value tile = bin(b, loc, kir::BinaryKind::Div, bin(b, loc, kir::BinaryKind::Sub, start, lo), step);
  Type type = loop->getResult(0).getType();
  Type element = elementTypeOf(type);
  Value fill = isa<FloatType>(element) ? Value(arith::ConstantOp::create(b, loc, FloatAttr::get(element, 0.0)))
                                       : Value(arith::ConstantOp::create(b, loc, IntegerAttr::get(element, 0)));
  Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  auto kept = BufferLoadOp::create(b, loc, type, ws, componentCoords(b, loc, {pid, tile}, type), yes, fill);
  loop->getResult(0).replaceAllUsesWith(kept.getResult());
  Block *block = loop->getBlock();
  loop.erase();
  eraseDeadReads(*block);
  return kept;
}

struct KeepFoldTiles : public tessel::pgpu::impl::PGPUKeepFoldTilesBase<KeepFoldTiles> {
  /// Why `members` keep no tiles, or nullopt with `store` and `loops` (member -> product loop) set.
  std::optional<std::string> analyze(KernelOp kernel, ArrayRef<Operation *> members, ProgramSpaceOp &space,
                                     ForOp &store, DenseMap<Operation *, ForOp> &loops) {
    space = members.front()->getParentOfType<ProgramSpaceOp>();
    if (!space || space.getExtents().size() != 1)
      return std::string("the members are not in a program space of one extent");
    if (auto group = members.front()->getParentOfType<ExecutionGroupOp>();
        group && (group.getExtents().size() != 1 || !isLaunchExpr(group.getExtents()[0])))
      return std::string("the members' execution group has no single launch-uniform axis");
    auto [lo, hi, step] = *segmentBounds(members.front());
    for (Value v : {lo, hi, step})
      if (!isLaunchExpr(v))
        return std::string("the members' bounds are not launch-uniform");
    for (Operation *m : members)
      if (auto loop = dyn_cast<ForOp>(m)) {
        if (store || !writesMemory(loop))
          return std::string("a loop besides the one storing the row is among the members");
        store = loop;
      }
    // pgpu-stage-folds also stages chains of folds with no loop storing the row (attention's exact two
    // passes, a fused cross-entropy's maximum then sum: corpus 116): nothing to keep tiles for.
    if (!store)
      return std::string("no loop among the members stores the row (a chain of folds alone)");
    for (Operation *m : members) {
      ForOp product = productLoop(kernel, m);
      if (!product)
        return std::string("a member has no product loop (a K loop holding a contraction) in its body: the "
                           "product over one tile is recomputed");
      loops[m] = product;
    }
    // What the storing loop's product reads from outside it is defined before the members (the kept
    // loop runs there).
    Operation *first = members.front();
    bool visible = true;
    for (Operation *op : productSlice(loops[store]))
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (Operation *def = v.getDefiningOp();
              def && def->getBlock() == first->getBlock() && !def->isBeforeInBlock(first))
            visible = false;
      });
    if (!visible)
      return std::string("the storing loop's product reads a value defined after the first member");
    for (Operation *m : members) {
      auto fold = dyn_cast<RegionFoldOp>(m);
      if (!fold)
        continue;
      if (!endBoundsLanesOnly(fold, step))
        return std::string("a fold's segment end is used other than to bound its segment's lanes");
      SameProduct same{fold, store, {}, {}};
      if (!same.ops(loops[fold], loops[store]))
        return std::string("a fold's product loop is not the storing loop's");
    }
    return std::nullopt;
  }

  void keep(KernelOp kernel, ProgramSpaceOp space, ArrayRef<Operation *> members, ForOp store,
            DenseMap<Operation *, ForOp> &loops) {
    auto group = members.front()->getParentOfType<ExecutionGroupOp>();
    MLIRContext *ctx = kernel.getContext();
    Location loc = members.front()->getLoc();
    auto [lo, hi, step] = *segmentBounds(members.front());
    // The workspace: KEEP_PROGRAMS (the space's instances) x KEEP_TILES (the range's segments) x tile.
    OpBuilder k(space);
    IRMapping hoisted;
    Value klo = hoistLaunchValue(k, space, lo, hoisted), khi = hoistLaunchValue(k, space, hi, hoisted);
    Value kstep = hoistLaunchValue(k, space, step, hoisted);
    Value span = bin(k, loc, kir::BinaryKind::Max, bin(k, loc, kir::BinaryKind::Sub, khi, klo), index(k, loc, 0));
    Value tiles = CeilDivOp::create(k, loc, span, kstep).getResult();
    std::string programsName = freshSymbol(kernel, "KEEP_PROGRAMS"), tilesName = freshSymbol(kernel, "KEEP_TILES");
    // Under pgpu-stage-folds' guard the kept path runs only over several segments: one segment (the
    // staged path) or none allocates nothing.
    Value programs = group ? hoistLaunchValue(k, space, group.getExtents()[0], hoisted) : space.getExtents()[0];
    if (underStagedElse(*members.front()->getBlock(), lo, hi, step))
      programs = SelectOp::create(k, loc, cmp(k, loc, kir::CmpPredicate::GT, tiles, index(k, loc, 1)), programs,
                                  index(k, loc, 0))
                     .getResult();
    WorkspaceExtentOp::create(k, loc, programsName, programs);
    WorkspaceExtentOp::create(k, loc, tilesName, tiles);
    ForOp product = loops[store];
    SmallVector<Attribute> shape{StringAttr::get(ctx, programsName), StringAttr::get(ctx, tilesName)};
    llvm::append_range(shape, cast<FragmentType>(product->getResult(0).getType()).getExtents());
    Value ws = addWorkspace(kernel, loc, elementTypeOf(product->getResult(0).getType()), shape, TypedAttr());
    // The slice's owner: the group's point (the verifier's ownership is per group axis), else the
    // program instance.
    Value pid = group ? group.getBody().front().getArgument(0) : space.getBody().front().getArgument(0);

    // The kept loop: the storing loop's product and what it reads in the loop's body, per segment.
    OpBuilder b(members.front());
    auto kept = ForOp::create(b, loc, TypeRange{}, lo, hi, step, ValueRange{});
    Block *body = b.createBlock(&kept.getBody());
    Value iv = body->addArgument(b.getIndexType(), loc);
    llvm::SetVector<Operation *> slice = productSlice(product);
    IRMapping map;
    map.map(store.getBody().front().getArgument(0), iv);
    for (Operation &op : store.getBody().front())
      if (slice.contains(&op))
        b.clone(op, map);
    Value tileIndex = bin(b, loc, kir::BinaryKind::Div, bin(b, loc, kir::BinaryKind::Sub, iv, lo), step);
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    Value tile = map.lookup(product->getResult(0));
    BufferStoreOp::create(b, loc, tile, ws, componentCoords(b, loc, {pid, tileIndex}, tile.getType()), yes);
    YieldOp::create(b, loc);

    // Each member loads its segment's tile.
    BufferLoadOp firstLoad;
    for (Operation *m : members) {
      if (auto loop = dyn_cast<ForOp>(m)) {
        loadKept(loops[m], ws, pid, lo, loop.getBody().front().getArgument(0), step);
        continue;
      }
      auto fold = cast<RegionFoldOp>(m);
      Block &summarize = fold.getSummarize().front();
      fold.getCapturesMutable().append(ValueRange{ws, pid, lo});
      Value cws = summarize.addArgument(ws.getType(), loc), cpid = summarize.addArgument(pid.getType(), loc);
      Value clo = summarize.addArgument(lo.getType(), loc);
      OpBuilder at(loops[m]);
      Value cstep = at.clone(*step.getDefiningOp())->getResult(0);
      BufferLoadOp load = loadKept(loops[m], cws, cpid, clo, summarize.getArgument(0), cstep);
      if (m == members.front())
        firstLoad = load;
    }
    // The first member, a fold (the row's maximum or mean: it reads nothing the members compute), is
    // summarized by the kept loop from the tile it has just computed: no pass loads the tiles for it.
    if (auto first = dyn_cast<RegionFoldOp>(members.front()); first && keepsSummaries(kernel, first))
      keepSummaries(kernel, kept, first, firstLoad, tile, {programsName, tilesName}, pid, lo);
  }

  /// Whether every summary component of `fold` can be kept in workspace: a number, or a fragment of
  /// numbers with static or parameter extents.
  static bool keepsSummaries(KernelOp kernel, RegionFoldOp fold) {
    for (Type t : fold->getResultTypes()) {
      if (!isa<FloatType, IntegerType>(elementTypeOf(t)) || elementTypeOf(t).isInteger(1))
        return false;
      if (auto f = dyn_cast<FragmentType>(t))
        for (Attribute e : f.getExtents())
          if (auto name = dyn_cast<StringAttr>(e); name && !kernel.getParam(name.getValue()))
            return false;
    }
    return true;
  }

  /// Runs `fold`'s summarize (its tile loaded by `load`) in the kept loop `kept` on the tile it stored
  /// (`tile`, the same bits: stored whole, loaded whole) over [b, min(b + step, hi)), and keeps each
  /// segment's summary in workspace [KEEP_PROGRAMS, KEEP_TILES, ...] beside the tile; the fold's
  /// summarize then loads that summary. The fold still combines the segments' summaries in segment order
  /// from its identity (seed 000 §8: its own order), so its result is the same bits, and a pass over the
  /// tiles ([BM, BLOCK_N] loads) becomes one over [BM] summaries.
  static void keepSummaries(KernelOp kernel, ForOp kept, RegionFoldOp fold, BufferLoadOp load, Value tile,
                            ArrayRef<std::string> slots, Value pid, Value lo) {
    MLIRContext *ctx = kernel.getContext();
    Block *body = &kept.getBody().front();
    OpBuilder b = OpBuilder::atBlockTerminator(body);
    Location loc = fold.getLoc();
    Value begin = body->getArgument(0), step = kept.getStep();
    Value end = bin(b, loc, kir::BinaryKind::Min, bin(b, loc, kir::BinaryKind::Add, begin, step), kept.getUpper());
    Block &summarize = fold.getSummarize().front();
    IRMapping map;
    map.map(summarize.getArgument(0), begin);
    map.map(summarize.getArgument(1), end);
    for (auto [arg, capture] : llvm::zip(summarize.getArguments().drop_front(2), fold.getCaptures()))
      map.map(arg, capture);
    map.map(load.getResult(), tile);
    for (Operation &op : summarize.without_terminator())
      if (&op != load.getOperation())
        b.clone(op, map);
    Value segment = bin(b, loc, kir::BinaryKind::Div, bin(b, loc, kir::BinaryKind::Sub, begin, lo), step);
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    SmallVector<Value> buffers;
    for (Value y : summarize.getTerminator()->getOperands()) {
      Value summary = map.lookupOrDefault(y);
      SmallVector<Attribute> shape{StringAttr::get(ctx, slots[0]), StringAttr::get(ctx, slots[1])};
      if (auto f = dyn_cast<FragmentType>(summary.getType()))
        llvm::append_range(shape, f.getExtents());
      Value ws = addWorkspace(kernel, loc, elementTypeOf(summary.getType()), shape, TypedAttr());
      BufferStoreOp::create(b, loc, summary, ws, componentCoords(b, loc, {pid, segment}, summary.getType()), yes);
      buffers.push_back(ws);
    }
    eraseDeadReads(*body); // the clones of what only the fold's load read (its tile index)

    // The fold's summarize: its segment's kept summaries.
    fold.getCapturesMutable().append(buffers);
    SmallVector<Value> captured;
    for (Value ws : buffers)
      captured.push_back(summarize.addArgument(ws.getType(), loc));
    unsigned n = summarize.getNumArguments();
    Value cpid = summarize.getArgument(n - buffers.size() - 2), clo = summarize.getArgument(n - buffers.size() - 1);
    for (Operation &op : summarize)
      op.dropAllReferences();
    while (!summarize.empty())
      summarize.back().erase();
    OpBuilder s = OpBuilder::atBlockEnd(&summarize);
    Value sstep = s.clone(*step.getDefiningOp())->getResult(0);
    Value at = bin(s, loc, kir::BinaryKind::Div, bin(s, loc, kir::BinaryKind::Sub, summarize.getArgument(0), clo), sstep);
    Value syes = arith::ConstantIntOp::create(s, loc, s.getI1Type(), 1);
    SmallVector<Value> summaries;
    for (auto [ws, type] : llvm::zip(captured, fold->getResultTypes())) {
      Type element = elementTypeOf(type);
      Value fill = isa<FloatType>(element) ? Value(arith::ConstantOp::create(s, loc, FloatAttr::get(element, 0.0)))
                                           : Value(arith::ConstantOp::create(s, loc, IntegerAttr::get(element, 0)));
      summaries.push_back(
          BufferLoadOp::create(s, loc, type, ws, componentCoords(s, loc, {cpid, at}, type), syes, fill).getResult());
    }
    YieldOp::create(s, loc, summaries);
  }

  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      for (Block *block : blocksOutsideFolds(kernel)) {
        SmallVector<Operation *> members = stagedFoldMembers(*block);
        if (members.empty())
          continue;
        ProgramSpaceOp space;
        ForOp store;
        DenseMap<Operation *, ForOp> loops;
        std::optional<std::string> why = analyze(kernel, members, space, store, loops);
        if (remarksEnabled(kernel)) {
          if (why)
            emitRemark(members.front()->getLoc()) << "pgpu-keep-fold-tiles: not kept: " << *why;
          else
            emitRemark(members.front()->getLoc())
                << "pgpu-keep-fold-tiles: the product tiles of " << members.size()
                << " folds and loops over one row are computed once, by a loop before them, and kept in "
                   "workspace [KEEP_PROGRAMS, KEEP_TILES, ...]; each member loads its segment's tile";
        }
        if (!why)
          keep(kernel, space, members, store, loops);
      }
    }
  }
};
} // namespace
