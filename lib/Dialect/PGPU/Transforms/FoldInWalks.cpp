//===- FoldInWalks.cpp - a kernel-level fold summarized by the walk beside it ---===//
//
// seed 002 §3.2 (the ownership of each program instance), §3.4 (region-fold realization),
// seed 000 §4.4 (invocation workspace; acq_rel tickets), §8 (a region fold may be cut into ordered
// contiguous slices whose summaries are combined in order).
//
// `loss[0] = f(T.sum(g(x[elems])))` beside `grad[elems] = h(x[elems])` is construction's dispatch
// chain of two segments: a group without axes holding the kernel-level fold (pgpu-form-blocking's
// region fold over blocks, which pgpu-split-folds would cut across FOLD_SPLIT programs) and a group
// whose BLOCK_P-member programs walk the elements (pgpu-refine-mapping). Both read the same inputs,
// so the data crosses memory twice. Here the walk's programs fold the range instead:
//
//   * program p walks [c, d) = [p * BP, min(p * BP + BP, hi)) in blocks of the fold's step, as
//     before; each block b also summarizes [b, min(b + step, d)) (the fold's summarize, inlined,
//     its segment end replaced by d: it bounds the lanes iota(b) only) and combines the summary into
//     a carried one (the fold's combine), so the loads both read are one after CSE;
//   * after its walk the program reduces each fragment component (the fold's finishing reduction)
//     and stores one scalar per component at partials[p] (workspace [WALK_PARTIALS]);
//   * the last arrival (tickets[0], arrivals: the programs; acq_rel) loads the scalars in program
//     order CAP at a time, reduces them with the component's combine and runs the fold's uses.
//
// The chunks [c, d) over p < ceil(hi / BP) cut [0, hi) into ordered contiguous slices and every
// component combines lane-wise by one associative, commutative binary (pgpu-split-folds'
// scalarLanes): the result is the fold's up to the association of that combine. The fold's segment
// leaves the chain; the program space is the walk's max(ceil(hi / BP), 1) programs (an empty range
// still runs the uses once).
//
// Fires on a program space dispatching to exactly two groups: one without axes whose body is
// effect-free straight-line code, one region fold over [0, hi) with constant identities whose
// components combine as scalars, and the fold's uses; and one with one axis whose body is
// effect-free straight-line code and one blocking loop without carries over [p * BP, min(p * BP + BP,
// hi)) stepping by the fold's step, its extent ceil(hi / BP). The fold's summarize must use its
// segment end only as `iota(b) < splat(end)` with the iota one step wide. Must not fire on other
// shapes (a fold over [lo, hi) with lo != 0, a walk with an offset or another bound, a combine that
// is not lane-wise, several folds or loops), nor when one segment writes a view the other accesses.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/FoldLanes.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUFOLDINWALKS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::build;

namespace {
constexpr llvm::StringLiteral kPartialsSymbol = "WALK_PARTIALS";
/// The partials the last arrival loads at once (one [CAP] fragment a step).
constexpr int64_t kCapacity = 1024;

struct Plan {
  ProgramSpaceOp space;
  ExecutionGroupOp foldGroup, walkGroup;
  RegionFoldOp fold;
  ForOp walk;
  SmallVector<FoldLane> lanes;
};

/// Whether `v` is a binary op `kind` of `x` and `y` (either order for a commutative kind).
bool isBinary(Value v, kir::BinaryKind kind, Value x, Value y) {
  auto op = v.getDefiningOp<BinaryOp>();
  if (!op || op.getKind() != kind)
    return false;
  return (sameLaunchValue(op.getLhs(), x) && sameLaunchValue(op.getRhs(), y)) ||
         (sameLaunchValue(op.getLhs(), y) && sameLaunchValue(op.getRhs(), x));
}

/// Whether `bp` is positive at every launch: a positive constant, or a parameter whose candidates are.
bool positive(KernelOp kernel, Value bp) {
  APInt c;
  if (matchPattern(bp, m_ConstantInt(&c)))
    return c.getSExtValue() > 0;
  auto param = bp.getDefiningOp<ParamOp>();
  if (!param)
    return false;
  ParamAttr declared = kernel.getParam(param.getName());
  return declared && !declared.getCandidates().empty() &&
         llvm::all_of(declared.getCandidates(), [](int64_t v) { return v > 0; });
}

/// Whether `body` holds only effect-free ops without regions besides `keep` (and its terminator).
bool straightLineBesides(Block &body, Operation *keep) {
  for (Operation &op : body.without_terminator())
    if (&op != keep && (op.getNumRegions() || !isMemoryEffectFree(&op)))
      return false;
  return true;
}

/// The views `root` reads and writes (ops with memory effects and view operands).
void viewsOf(Operation *root, DenseSet<Value> &reads, DenseSet<Value> &writes) {
  root->walk([&](Operation *op) {
    if (isMemoryEffectFree(op))
      return;
    bool writes_ = writesMemory(op);
    for (Value v : op->getOperands())
      if (isa<ViewType, BufferType>(v.getType()))
        (writes_ ? writes : reads).insert(v);
  });
}

bool overlaps(const DenseSet<Value> &a, const DenseSet<Value> &b) {
  return llvm::any_of(a, [&](Value v) { return b.contains(v); });
}

/// Why the space's fold cannot move into its walk, or nullopt with `plan` filled.
std::optional<std::string> analyze(KernelOp kernel, ProgramSpaceOp space, Plan &plan) {
  if (space.getExtents().size() != 1)
    return std::string("the program space is not one-dimensional");
  Dispatch dispatch;
  if (!dispatchChain(space.getBody().front(), space.getBody().getArgument(0), dispatch) ||
      dispatch.groups.size() != 2)
    return std::string("the program space does not dispatch to exactly two groups");
  for (ExecutionGroupOp g : dispatch.groups) {
    if (g.getExtents().empty())
      plan.foldGroup = g;
    else if (g.getExtents().size() == 1)
      plan.walkGroup = g;
  }
  if (!plan.foldGroup || !plan.walkGroup)
    return std::string("the groups are not one without axes and one with one axis");
  // The fold: the only structured op of its group, its uses after it.
  Block &foldBody = plan.foldGroup.getBody().front();
  for (Operation &op : foldBody)
    if (auto f = dyn_cast<RegionFoldOp>(op)) {
      if (plan.fold)
        return std::string("the group without axes holds several folds");
      plan.fold = f;
    }
  if (!plan.fold)
    return std::string("the group without axes holds no region fold");
  RegionFoldOp fold = plan.fold;
  for (Operation *op = &foldBody.front(); op != fold.getOperation(); op = op->getNextNode())
    if (op->getNumRegions() || !isMemoryEffectFree(op))
      return std::string("the fold's group writes or branches before the fold");
  if (foldBody.getTerminator()->getNumOperands())
    return std::string("the fold's group yields values");
  APInt c;
  if (!matchPattern(fold.getLower(), m_ConstantInt(&c)) || !c.isZero())
    return std::string("the fold does not start at 0");
  for (Value id : fold.getIdentities())
    if (!matchPattern(id, m_Constant()) && !(id.getDefiningOp<SplatOp>() &&
                                             matchPattern(id.getDefiningOp<SplatOp>()->getOperand(0), m_Constant())))
      return std::string("an identity of the fold is not a constant");
  std::optional<SmallVector<FoldLane>> lanes = scalarLanes(fold);
  if (!lanes)
    return std::string("a summary component does not combine lane-wise by one associative, commutative binary "
                       "finished by its own reduction");
  plan.lanes = *lanes;
  if (!endBoundsLanesOnly(fold))
    return std::string("the fold's summarize uses its segment end beyond bounding its lanes");
  // The walk: one loop over the program's chunk [p * BP, min(p * BP + BP, hi)), ceil(hi / BP) programs.
  Block &walkBody = plan.walkGroup.getBody().front();
  for (Operation &op : walkBody)
    if (auto loop = dyn_cast<ForOp>(op)) {
      if (plan.walk)
        return std::string("the walk's group holds several loops");
      plan.walk = loop;
    }
  if (!plan.walk)
    return std::string("the walk's group holds no loop");
  ForOp walk = plan.walk;
  if (walk.getNumResults() || !straightLineBesides(walkBody, walk))
    return std::string("the walk carries values, or its group writes or branches outside its loop");
  if (!sameLaunchValue(walk.getStep(), fold.getStep()))
    return std::string("the walk's step is not the fold's");
  auto extent = plan.walkGroup.getExtents()[0].getDefiningOp<CeilDivOp>();
  if (!extent || !sameLaunchValue(extent.getLhs(), fold.getUpper()))
    return std::string("the walk's programs are not ceil(hi / BP) of the fold's hi");
  Value bp = extent.getRhs(), p = walkBody.getArgument(0);
  if (!positive(kernel, bp))
    return std::string("the walk's chunk is not positive at every launch");
  if (!isBinary(walk.getLower(), kir::BinaryKind::Mul, p, bp))
    return std::string("the walk does not start at p * BP");
  auto upper = walk.getUpper().getDefiningOp<BinaryOp>();
  if (!upper || upper.getKind() != kir::BinaryKind::Min ||
      !((isBinary(upper.getLhs(), kir::BinaryKind::Add, walk.getLower(), bp) &&
         sameLaunchValue(upper.getRhs(), fold.getUpper())) ||
        (isBinary(upper.getRhs(), kir::BinaryKind::Add, walk.getLower(), bp) &&
         sameLaunchValue(upper.getLhs(), fold.getUpper()))))
    return std::string("the walk does not end at min(p * BP + BP, hi)");
  // Neither segment writes what the other accesses: the fold then reads the same data inside the walk.
  DenseSet<Value> foldReads, foldWrites, walkReads, walkWrites;
  viewsOf(plan.foldGroup, foldReads, foldWrites);
  viewsOf(plan.walkGroup, walkReads, walkWrites);
  if (overlaps(walkWrites, foldReads) || overlaps(walkWrites, foldWrites) || overlaps(foldWrites, walkReads))
    return std::string("one segment writes a view the other accesses");
  for (StringRef symbol : {kPartialsSymbol})
    if (workspaceExtent(kernel, symbol))
      return std::string("the kernel already binds workspace extent '") + symbol.str() + "'";
  plan.space = space;
  return std::nullopt;
}

/// Erases the effect-free ops without regions of `block` that nothing uses, last first (so the ops
/// only they used go too).
void eraseUnused(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && !op->getNumRegions() && isMemoryEffectFree(op))
      op->erase();
}

void rewrite(KernelOp kernel, Plan &plan) {
  MLIRContext *ctx = kernel.getContext();
  RegionFoldOp fold = plan.fold;
  ForOp walk = plan.walk;
  ExecutionGroupOp group = plan.walkGroup;
  Location loc = fold.getLoc();
  // Launch values: the programs (at least one, so the uses run on an empty range), the workspace.
  OpBuilder b(plan.space);
  IRMapping hoisted;
  Value counted = hoistLaunchValue(b, plan.space, group.getExtents()[0], hoisted);
  Value programs = bin(b, loc, kir::BinaryKind::Max, counted, index(b, loc, 1));
  WorkspaceExtentOp::create(b, loc, kPartialsSymbol, programs);
  Value tickets = addZeroedCounters(kernel, loc, {IntegerAttr::get(IntegerType::get(ctx, 64), 1)});
  SmallVector<Value> partials(plan.lanes.size());
  for (auto [k, lane] : llvm::enumerate(plan.lanes))
    if (!lane.unused)
      partials[k] = addWorkspace(kernel, loc, elementTypeOf(fold.getResult(k).getType()),
                                 {StringAttr::get(ctx, kPartialsSymbol)}, TypedAttr());

  // The fold group's code before the fold (effect-free) runs at the top of the walk's body.
  Block &walkBody = group.getBody().front();
  IRMapping map;
  b.setInsertionPointToStart(&walkBody);
  for (Operation *op = &plan.foldGroup.getBody().front().front(); op != fold.getOperation(); op = op->getNextNode())
    b.clone(*op, map);
  SmallVector<Value> identities;
  for (Value id : fold.getIdentities())
    identities.push_back(map.lookupOrDefault(id));

  // The walk carries the fold's summary: each block summarizes its lanes of [b, d) and combines.
  b.setInsertionPoint(walk);
  auto carried = ForOp::create(b, walk.getLoc(), TypeRange(ValueRange(identities)), walk.getLower(),
                               walk.getUpper(), walk.getStep(), identities);
  Block *body = b.createBlock(&carried.getBody());
  Value begin = body->addArgument(b.getIndexType(), walk.getLoc());
  SmallVector<Value> acc;
  for (Value id : identities)
    acc.push_back(body->addArgument(id.getType(), loc));
  // The summary's reads come first: the walk's same reads then follow no write, and CSE shares them.
  b.setInsertionPointToEnd(body);
  SmallVector<Value> summarizeArgs{begin, walk.getUpper()};
  for (Value capture : fold.getCaptures())
    summarizeArgs.push_back(map.lookupOrDefault(capture));
  SmallVector<Value> args(acc);
  // Summarize and combine may use the fold group's values from above (the identity): their clones.
  llvm::append_range(args, inlineBlock(b, fold.getSummarize().front(), summarizeArgs, map));
  Block &old = walk.getBody().front();
  old.getArgument(0).replaceAllUsesWith(begin);
  body->getOperations().splice(body->end(), old.getOperations(), old.begin(), std::prev(old.end()));
  b.setInsertionPointToEnd(body);
  YieldOp::create(b, loc, inlineBlock(b, fold.getCombine().front(), args, map));
  walk.erase();

  // This program's partials, then the last arrival's combine and the fold's uses.
  b.setInsertionPointAfter(carried);
  Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Value p = walkBody.getArgument(0), zero = index(b, loc, 0);
  SmallVector<Value> fills(plan.lanes.size());
  for (auto [k, lane] : llvm::enumerate(plan.lanes)) {
    if (lane.unused)
      continue;
    fills[k] = b.clone(*lane.fill.getDefiningOp())->getResult(0);
    Value v = carried.getResult(k);
    if (lane.reduce) {
      IRMapping m;
      m.map(lane.reduce.getInputs()[0], v);
      m.map(lane.reduce.getIdentities()[0], fills[k]);
      v = b.clone(*lane.reduce.getOperation(), m)->getResult(0);
    }
    BufferStoreOp::create(b, loc, v, partials[k], ValueRange{p}, yes);
  }
  Value arrivals = programs;
  auto last = LastProgramOp::create(b, loc, tickets, ValueRange{zero}, arrivals);
  b.createBlock(&last.getBody());
  SmallVector<Value> inits;
  for (auto [k, lane] : llvm::enumerate(plan.lanes))
    if (!lane.unused)
      inits.push_back(fills[k]);
  auto loop = ForOp::create(b, loc, TypeRange(ValueRange(inits)), zero, arrivals, index(b, loc, kCapacity), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *step = b.createBlock(&loop.getBody());
    Value start = step->addArgument(b.getIndexType(), loc);
    for (Value i : inits)
      step->addArgument(i.getType(), loc);
    Attribute width = b.getI64IntegerAttr(kCapacity);
    auto indexFragment = FragmentType::get(ctx, b.getIndexType(), {width});
    Value at = IotaOp::create(b, loc, indexFragment, start);
    Value ok = CmpOp::create(b, loc, kir::CmpPredicate::LT, at, SplatOp::create(b, loc, indexFragment, arrivals));
    SmallVector<Value> next;
    unsigned j = 0;
    for (auto [k, lane] : llvm::enumerate(plan.lanes)) {
      if (lane.unused)
        continue;
      Type element = inits[j].getType();
      auto fragment = FragmentType::get(ctx, element, {width});
      Value loaded = BufferLoadOp::create(b, loc, fragment, partials[k], ValueRange{at}, ok, fills[k]);
      next.push_back(mergeLaneBlock(b, loc, lane, fills[k], step->getArgument(1 + j), loaded));
      ++j;
    }
    YieldOp::create(b, loc, next);
  }
  // The fold's uses on the combined scalars: a finishing reduction is its component's value.
  DenseSet<Operation *> replaced;
  unsigned j = 0;
  for (auto [k, lane] : llvm::enumerate(plan.lanes)) {
    if (lane.unused)
      continue;
    if (lane.reduce) {
      map.map(lane.reduce.getResult(0), loop.getResult(j));
      replaced.insert(lane.reduce.getOperation());
    } else {
      map.map(fold.getResult(k), loop.getResult(j));
    }
    ++j;
  }
  Block &foldBody = plan.foldGroup.getBody().front();
  for (Operation *op = fold->getNextNode(); op != foldBody.getTerminator(); op = op->getNextNode())
    if (!replaced.contains(op))
      b.clone(*op, map);
  YieldOp::create(b, loc);

  // The fold's segment leaves the chain: the walk's group is the space's body, its programs the space.
  Block &spaceBody = plan.space.getBody().front();
  Operation *holder = group;
  while (holder->getBlock() != &spaceBody)
    holder = holder->getParentOp();
  group->moveBefore(holder);
  group->setOperand(0, spaceBody.getArgument(0));
  group.setSegment(0);
  group.getExtentsMutable().assign(ValueRange{programs});
  holder->erase();
  eraseUnused(spaceBody);
  Operation *total = plan.space.getExtents()[0].getDefiningOp();
  plan.space->setOperand(0, programs);
  if (total && total->use_empty() && isMemoryEffectFree(total))
    total->erase();
  // The fold group's clones nothing uses (code only the fold's other uses needed).
  eraseUnused(walkBody);
}

struct FoldInWalks : public tessel::pgpu::impl::PGPUFoldInWalksBase<FoldInWalks> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<ProgramSpaceOp> spaces(kernel.getBody().getOps<ProgramSpaceOp>());
      if (spaces.size() != 1)
        continue;
      Plan plan;
      std::optional<std::string> why = analyze(kernel, spaces[0], plan);
      bool remarks = remarksEnabled(kernel);
      if (why) {
        if (remarks && plan.fold)
          plan.fold.emitRemark() << "pgpu-fold-in-walks: not folded in the walk beside it: " << *why;
        continue;
      }
      if (remarks)
        plan.fold.emitRemark() << "pgpu-fold-in-walks: the walk's programs fold this range (each block's summary "
                                  "combined into a carried one; one scalar a component a program to workspace ["
                               << kPartialsSymbol << "]); the last arrival combines them in program order and runs "
                                  "the fold's uses";
      rewrite(kernel, plan);
    }
  }
};
} // namespace

bool tessel::pgpu::endBoundsLanesOnly(RegionFoldOp fold, Value step) {
  if (!step)
    step = fold.getStep();
  Block &body = fold.getSummarize().front();
  Value begin = body.getArgument(0), end = body.getArgument(1);
  for (Operation *user : end.getUsers()) {
    auto splat = dyn_cast<SplatOp>(user);
    if (!splat)
      return false;
    for (Operation *use : splat->getUsers()) {
      auto lt = dyn_cast<CmpOp>(use);
      auto iota = lt ? lt.getLhs().getDefiningOp<IotaOp>() : IotaOp();
      if (!lt || lt.getPredicate() != kir::CmpPredicate::LT || lt.getRhs() != splat.getResult() || !iota ||
          iota->getOperand(0) != begin)
        return false;
      auto lanes = cast<FragmentType>(iota.getType());
      if (lanes.getRank() != 1)
        return false;
      Attribute extent = lanes.getExtents()[0];
      APInt c;
      if (auto param = step.getDefiningOp<ParamOp>()) {
        if (!isa<StringAttr>(extent) || cast<StringAttr>(extent).getValue() != param.getName())
          return false;
      } else if (!matchPattern(step, m_ConstantInt(&c)) || !isa<IntegerAttr>(extent) ||
                 cast<IntegerAttr>(extent).getInt() != c.getSExtValue()) {
        return false;
      }
    }
  }
  return true;
}

