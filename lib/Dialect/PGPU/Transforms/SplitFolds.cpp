//===- SplitFolds.cpp - a region fold's segments across program instances --===//
//
// seed 002 §3.2 (rewrite the program space: the ownership of each program
// instance), §3.4 (region-fold realization), §4 (reassociating an ordered
// region operation while keeping member order under its own contract),
// seed 000 §4.4 (invocation workspace; acq_rel tickets), §8 (region fold).
//
// A blocked region fold runs all its source tiles in the one program of its
// point (attention: one program per (batch, head, query block) folds every
// key). When the launch has few points and the fold is long (decode: 32
// programs folding 32,768 keys each, on 132 multiprocessors) most of the
// machine idles. The fold's contract (KIR region_fold: any cut of the source
// axis into ordered contiguous slices, summarize(A ++ B) =
// combine(summarize A, summarize B), the identity neutral) lets the point's
// tiles be cut into FOLD_SPLITS contiguous segments, one program each:
//
//   * the group gains a trailing (fastest) axis `fold_split` of
//     FOLD_SPLITS = max(min(FOLD_SPLIT, tiles), 1) members;
//   * segment c's program folds its tiles [lo + c * chunk, lo + (c + 1) *
//     chunk) ∩ [lo, hi) (chunk = ceil(tiles / FOLD_SPLITS) tiles; the last
//     segments may be short or empty: an empty one yields the identity) from
//     the fold's identity, in source order, blocked as before, and stores
//     its summary at [point, c] of workspace [FOLD_POINTS, FOLD_SPLITS, ...]
//     (one buffer per summary component; pgpu.workspace_extent sizes it);
//   * the point's last arrival (`pgpu.last_program %tickets[point] arrivals
//     FOLD_SPLITS`, acq_rel: every segment's summary is visible there) folds
//     the FOLD_SPLITS summaries in segment order with the fold's own combine
//     (a pgpu.region_fold over the segments whose summarize reads one
//     summary) and runs the fold's uses (the ops after it: the epilogue and
//     its stores).
//
// Folds in sequence in one block (source numerics' exact two-pass softmax: the row maximum's fold,
// then the fold of exp(s - max) sums and products that reads it; single-query decode at B * HKV
// points; fused linear cross-entropy's row blocks): the last fold is split. An earlier fold alone
// before it in its block, over the same segments, is split in a first phase (`phase`): 2 *
// FOLD_SPLITS programs a point, the first FOLD_SPLITS folding its segments and counting themselves,
// the next FOLD_SPLITS waiting for the count (they follow them in linear order, as a chained
// scan's segments follow theirs), combining the stored summaries in segment order and folding
// their segment of the split fold with the complete maximum. Otherwise the earlier folds run whole
// in every segment's program (their work repeats per segment). Either way only the folds' own
// combines regroup slices: no partial summary is rescaled (that would be online segmented
// rescaling, which needs relaxed_normalization, seed 002 §4).
//
// Where the phased fold and the split fold after it compute the same product tile per segment by a
// K loop (fused linear cross-entropy: the maximum's and the exp-sum's folds over h @ W^T, corpus 116;
// `products::SameFoldProduct`), the first phase computes each tile of its segment once, in a loop
// before its fold, and keeps it in workspace [FOLD_POINTS, FOLD_TILES, tile] at [point, segment];
// both phases' folds load their segment's tile instead of running the K loop (the second phase after
// its acquire wait, which orders the first phase's stores). The product runs once, not twice: 2 K
// FLOPs an element against one store and one load of it (seed 002 §3.4 materialization; the rule of
// pgpu-keep-fold-tiles, whose K loop exists only past one K tile). The tile is the same ops on the
// same values at the same segment bounds, so the loaded tile is the recomputed one, bit for bit.
//
// Combining summaries of contiguous segments in source order is the fold's
// algebra, not a recognized pattern. The result equals the ordered fold up
// to the association of its combines (floating point rounds differently).
//
// The decision is the declared parameter FOLD_SPLIT ([1, 2, 4, ..., 64],
// default 1); FOLD_SPLITS = 1 (FOLD_SPLIT = 1, or one tile) keeps the
// original fold in the axis's one program, under a launch-fact guard, and
// its workspace is then empty. A call's default comes from the launch's
// program count against the multiprocessors (the wrapper's resource facts).
// Effects outside the split folds run once per point (the first segment).
// Where the split folds lie in branches with launch-uniform conditions and
// the launch takes none of them (pgpu-keep-fold-tiles' kept path, whose
// folds run whole; a staged row), FOLD_SPLITS is 1: the segments past the
// first would be programs without work (issue 41: corpus 189 launched 512
// programs of which 128 worked).
//
// A kernel-level fold (pgpu-form-blocking's fold of `loss[0] = T.sum(...)`) is one point in a group
// without axes, often one segment of construction's dispatch chain beside an elementwise segment
// (the loss's gradient): that segment's count grows by the split in the chain's bound, shift and
// total, the others keep theirs, and one point's FOLD_SPLIT reaches 1024 (132 multiprocessors).
//
// Fires on a program space with one execution group (or one segment of a chain) whose blocked region
// folds (pgpu.if branches only, launch-uniform equal bounds, constant
// identities: a fold's declared identity, not the summary of an earlier
// fold it continues) lie in mutually exclusive branches, have numeric
// scalar or fragment summaries of static or parameter extents, and whose
// results are used only after them in their block (earlier folds of the split fold's block, which
// write no memory, run whole); other effects have no results. Must not fire otherwise, nor when the
// group's point count is a constant that already fills the target's multiprocessors.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "ArrivalCounters.h"
#include "FoldProducts.h"
#include "SplitPrograms.h"
#include "tessel/Dialect/PGPU/Transforms/FoldLanes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUSPLITFOLDS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::build;

namespace {
constexpr llvm::StringLiteral kSplitParam = "FOLD_SPLIT";
constexpr llvm::StringLiteral kPointsSymbol = "FOLD_POINTS", kSplitsSymbol = "FOLD_SPLITS";
constexpr llvm::StringLiteral kTilesSymbol = "FOLD_TILES";

/// The ops after `fold` in its block, before the terminator: the fold's uses and what follows them.
SmallVector<Operation *> tailOf(RegionFoldOp fold) {
  SmallVector<Operation *> tail;
  for (Operation *op = fold->getNextNode(); op && !op->hasTrait<OpTrait::IsTerminator>(); op = op->getNextNode())
    tail.push_back(op);
  return tail;
}

/// Whether `a` and `b` never both run in one program: they lie in different regions of a pgpu.if.
bool exclusive(Operation *a, Operation *b) {
  for (Operation *p = a->getParentOp(); p; p = p->getParentOp()) {
    if (!p->isProperAncestor(b))
      continue;
    auto branch = dyn_cast<IfOp>(p);
    if (!branch)
      return false;
    Region *ra = a->getParentRegion(), *rb = b->getParentRegion();
    while (ra->getParentOp() != p)
      ra = ra->getParentOp()->getParentRegion();
    while (rb->getParentOp() != p)
      rb = rb->getParentOp()->getParentRegion();
    return ra != rb;
  }
  return false;
}

} // namespace

/// The lane-wise combine `kind` of one summary component: the yielded value `k` of `combine` is
/// `pgpu.binary kind(a_k, b_k)` (either order) of an associative, commutative kind, or null.
static BinaryOp laneCombine(Region &combine, unsigned k, unsigned components) {
  Block &block = combine.front();
  auto yield = cast<YieldOp>(block.getTerminator());
  auto op = yield.getOperand(k).getDefiningOp<BinaryOp>();
  if (!op)
    return BinaryOp();
  switch (op.getKind()) {
  case kir::BinaryKind::Add:
  case kir::BinaryKind::Mul:
  case kir::BinaryKind::Max:
  case kir::BinaryKind::Min:
  case kir::BinaryKind::MaxNum:
  case kir::BinaryKind::MinNum:
  case kir::BinaryKind::And:
  case kir::BinaryKind::Or:
  case kir::BinaryKind::Xor:
    break;
  default:
    return BinaryOp();
  }
  Value a = block.getArgument(k), b = block.getArgument(components + k);
  bool operands = (op.getLhs() == a && op.getRhs() == b) || (op.getLhs() == b && op.getRhs() == a);
  return operands ? op : BinaryOp();
}

/// Whether two binary ops combine alike: the same kind and numerical attributes.
static bool sameCombine(BinaryOp x, BinaryOp y) {
  return x.getKind() == y.getKind() && x.getApproximate() == y.getApproximate() &&
         x.getFlushToZero() == y.getFlushToZero();
}

/// The components of `fold` when every one can be combined as scalars: a scalar with a constant
/// identity and a lane-wise associative, commutative combine, or a fragment with that combine whose
/// only use is a pgpu.reduce of all its lanes with the same combine (the fold's own finishing
/// reduction: reducing each segment's lanes first regroups the same associative, commutative
/// combine), or a fragment without uses. Then each segment stores one scalar per component and the
/// last arrival loads the FOLD_SPLITS scalars as fragments and reduces them (seed 002 §3.4), instead
/// of walking the segments one summary at a time. None otherwise.
Value pgpu::mergeLaneBlock(OpBuilder &b, Location loc, const FoldLane &lane, Value fill, Value carried,
                           Value loaded) {
  Type element = carried.getType();
  BinaryOp kind = lane.combine; // an op handle (its accessors are not const)
  auto combine = [&](Value l, Value r) {
    auto op = BinaryOp::create(b, loc, kind.getKind(), l, r);
    op.setApproximate(kind.getApproximate());
    op.setFlushToZero(kind.getFlushToZero());
    return op.getResult();
  };
  auto block = ReduceOp::create(b, loc, TypeRange{element}, ValueRange{loaded}, b.getDenseI64ArrayAttr({0}),
                                ValueRange{fill});
  {
    OpBuilder::InsertionGuard inner(b);
    Block *c = b.createBlock(&block.getCombine(), {}, {element, element}, {loc, loc});
    YieldOp::create(b, loc, combine(c->getArgument(0), c->getArgument(1)));
  }
  return combine(carried, block.getResult(0));
}

std::optional<SmallVector<FoldLane>> pgpu::scalarLanes(RegionFoldOp fold) {
  unsigned n = fold.getNumResults();
  SmallVector<FoldLane> lanes;
  for (unsigned k = 0; k < n; ++k) {
    FoldLane lane;
    lane.combine = laneCombine(fold.getCombine(), k, n);
    if (!lane.combine)
      return std::nullopt;
    Value r = fold.getResult(k);
    if (!isa<FragmentType>(r.getType())) {
      if (!matchPattern(fold.getIdentities()[k], m_Constant()))
        return std::nullopt;
      lane.fill = fold.getIdentities()[k];
      lanes.push_back(lane);
      continue;
    }
    if (r.use_empty()) {
      lane.unused = true;
      lanes.push_back(lane);
      continue;
    }
    if (!r.hasOneUse())
      return std::nullopt;
    auto reduce = dyn_cast<ReduceOp>(*r.getUsers().begin());
    auto type = cast<FragmentType>(r.getType());
    if (!reduce || reduce->getBlock() != fold->getBlock() || reduce.getInputs().size() != 1 ||
        reduce.getAxes().size() != type.getRank() || reduce.getNumResults() != 1 ||
        reduce.getResult(0).getType() != type.getElementType() ||
        !matchPattern(reduce.getIdentities()[0], m_Constant()))
      return std::nullopt;
    BinaryOp inner = laneCombine(reduce.getCombine(), 0, 1);
    if (!inner || !sameCombine(inner, lane.combine))
      return std::nullopt;
    lane.reduce = reduce;
    lane.fill = reduce.getIdentities()[0];
    lanes.push_back(lane);
  }
  return lanes;
}

namespace {
using Lane = FoldLane;

struct Plan {
  ProgramSpaceOp space;
  ExecutionGroupOp group;
  Dispatch dispatch; // construction's chain when the group is one segment of several
  int segment = -1;  // the group's place in it; -1 for the space's sole group
  SmallVector<RegionFoldOp> folds;
  SmallVector<RegionFoldOp> repeated; // earlier folds of a split fold's block: whole in every segment
  /// The repeated folds are split too, in a first phase of programs (see `phase`): each is alone
  /// before a split fold in its block, over the same segments, in the space's sole group.
  bool phased = false;
  /// Phased pairs (repeated fold, split fold of its block) whose product loops are one computation:
  /// the first phase keeps its tiles in workspace, the second loads them (see `keepTiles`).
  SmallVector<std::pair<RegionFoldOp, RegionFoldOp>> kept;
  DenseSet<Operation *> tails;      // the ops after each fold (they move with it)
  SmallVector<Operation *> effects; // effects outside the folds: they run once per point
};

/// Why `fold` cannot be split, or nullopt.
std::optional<std::string> foldIssue(KernelOp kernel, ExecutionGroupOp group, RegionFoldOp fold) {
  for (Operation *p = fold->getParentOp(); p != group; p = p->getParentOp())
    if (!isa<IfOp>(p))
      return std::string("it runs inside a loop or structured op ('") + p->getName().getStringRef().str() +
             "'): its segments are not its program's";
  for (Value v : {fold.getLower(), fold.getUpper(), fold.getStep()})
    if (!isLaunchExpr(v))
      return std::string("its bounds are not launch-uniform");
  APInt step;
  if (matchPattern(fold.getStep(), m_ConstantInt(&step)) && step.isOne())
    return std::string("it is not blocked (unit segments: one member per summarize)");
  for (Value c : fold.getCaptures())
    if (auto buffer = dyn_cast<BufferType>(c.getType()); buffer && buffer.getScope() == BufferScope::Workspace)
      return std::string("it reads workspace its program wrote (pgpu-keep-fold-tiles' kept tiles): a segment's "
                         "program would read tiles another program keeps");
  for (Value id : fold.getIdentities())
    if (!split::isConstantValue(id))
      return std::string("its identity is not a constant: it continues the summary of an earlier fold, which "
                         "each segment would count again");
  for (Type t : fold.getResultTypes()) {
    if (t.isIntOrIndexOrFloat() && !t.isIndex())
      continue;
    auto f = dyn_cast<FragmentType>(t);
    if (!f || f.getElementType().isIndex())
      return std::string("a summary component is not a numeric scalar or fragment");
    for (Attribute e : f.getExtents())
      if (auto name = dyn_cast<StringAttr>(e); name && !kernel.getParam(name.getValue()))
        return std::string("a summary fragment's extent is neither static nor a parameter");
  }
  Block *block = fold->getBlock();
  if (block->getTerminator()->getNumOperands())
    return std::string("its block yields values (its uses cannot move to the last arrival)");
  for (Value r : fold.getResults())
    for (Operation *user : r.getUsers()) {
      Operation *at = block->findAncestorOpInBlock(*user);
      if (!at || at->hasTrait<OpTrait::IsTerminator>())
        return std::string("a summary is used outside the ops after the fold in its block");
    }
  return std::nullopt;
}

/// The outermost ops of `block` (and of the regions of ops holding a split fold) that write memory,
/// hold no split fold and do not move with one.
void effectsOutside(Block &block, const Plan &plan, SmallVectorImpl<Operation *> &out) {
  for (Operation &op : block) {
    if (isa<RegionFoldOp>(op) && llvm::is_contained(plan.folds, cast<RegionFoldOp>(op)))
      continue;
    if (plan.tails.contains(&op) || !writesMemory(&op))
      continue;
    bool holds = llvm::any_of(plan.folds, [&](RegionFoldOp f) { return op.isProperAncestor(f); });
    if (!holds) {
      out.push_back(&op);
      continue;
    }
    for (Region &r : op.getRegions())
      for (Block &inner : r)
        effectsOutside(inner, plan, out);
  }
}

/// Why `space` cannot be split, or nullopt with `plan` filled.
std::optional<std::string> analyze(KernelOp kernel, ProgramSpaceOp space, Plan &plan,
                                   SmallVectorImpl<std::pair<RegionFoldOp, std::string>> &left) {
  if (space.getExtents().size() != 1)
    return std::string("the program space is not one-dimensional");
  if (kernel.getParam(kSplitParam))
    return std::string("the kernel's rows are split across programs already (pgpu-split-row-reductions)");
  ExecutionGroupOp group = soleExecutionGroup(space, /*finalization=*/false);
  // One segment of construction's chain (a kernel-level loss beside an elementwise gradient): the
  // only group holding region folds; its programs grow by the split, the other segments' stay. A
  // later segment may wait before its group (an in-place update after this workset's reduction of
  // its view, PhasedSums.cpp): its target is pid minus its shift, its linear start, so it counts the
  // split programs too; the chain may then end in a guard without else (Dispatch::end).
  if (!group && dispatchChain(space.getBody().front(), space.getBody().getArgument(0), plan.dispatch,
                              /*guardedEnd=*/true)) {
    for (auto [i, g] : llvm::enumerate(plan.dispatch.groups)) {
      bool folds = false;
      g.walk([&](RegionFoldOp) { folds = true; });
      if (!folds)
        continue;
      if (group)
        return std::string("several segments of the program space hold region folds");
      group = g;
      plan.segment = int(i);
    }
  }
  if (!group)
    return std::string("the program space has several execution groups");
  plan.space = space;
  plan.group = group;
  group.walk([&](RegionFoldOp f) {
    if (f->getParentOfType<RegionFoldOp>() || f->getParentOfType<RegionScanOp>())
      return;
    if (std::optional<std::string> why = foldIssue(kernel, group, f))
      left.push_back({f, *why});
    else
      plan.folds.push_back(f);
  });
  if (plan.folds.empty())
    return std::string("no region fold can be split");
  // Folds in sequence in one block (source numerics' two-pass softmax: the maximum's fold, then the
  // fold of exp(s - max) sums and products that reads it): the last is split, the earlier ones run
  // whole in every segment's program, so each segment folds its slice with the same, complete
  // earlier summaries (the same ops on the same data in the same order: the same bits everywhere).
  // No rescaling of partial summaries is involved (seed 002 §4: only the split fold's own combine
  // regroups its slices), so this needs no numerical permission beyond the fold's contract.
  SmallVector<RegionFoldOp> splittable;
  for (RegionFoldOp f : plan.folds) {
    bool later = llvm::any_of(plan.folds, [&](RegionFoldOp g) {
      return g != f && g->getBlock() == f->getBlock() && f->isBeforeInBlock(g);
    });
    if (!later) {
      splittable.push_back(f);
      continue;
    }
    if (writesMemory(f))
      return std::string("an earlier fold in the program writes memory: it cannot run in every segment");
    plan.repeated.push_back(f);
  }
  plan.folds = splittable;
  RegionFoldOp first = plan.folds.front();
  for (RegionFoldOp f : plan.folds) {
    if (!sameLaunchValue(f.getLower(), first.getLower()) || !sameLaunchValue(f.getUpper(), first.getUpper()) ||
        !sameLaunchValue(f.getStep(), first.getStep()))
      return std::string("the folds have different segments");
    for (RegionFoldOp g : plan.folds)
      if (f != g && !exclusive(f, g))
        return std::string("two folds run in one program outside one block (a program splits one fold)");
    for (Operation *op : tailOf(f))
      plan.tails.insert(op);
  }
  plan.phased = !plan.repeated.empty() && plan.segment < 0;
  for (RegionFoldOp r : plan.repeated) {
    bool alone = llvm::count_if(plan.repeated, [&](RegionFoldOp o) { return o->getBlock() == r->getBlock(); }) == 1;
    bool before = llvm::any_of(plan.folds, [&](RegionFoldOp f) { return f->getBlock() == r->getBlock(); });
    bool same = sameLaunchValue(r.getLower(), first.getLower()) && sameLaunchValue(r.getUpper(), first.getUpper()) &&
                sameLaunchValue(r.getStep(), first.getStep());
    plan.phased &= alone && before && same;
  }
  // A phased fold and the split fold after it computing the same product tile per segment (a fused
  // linear cross-entropy's row maximum, then its sum of exp(s - max), both over h @ W^T's tiles:
  // a K loop each) compute it once: the first phase keeps each segment's tile in workspace, the
  // second loads it (seed 002 §3.4: 2 K FLOPs an element recomputed against one write and one read
  // of it; the rule of pgpu-keep-fold-tiles, whose K loop exists only past one K tile).
  if (plan.phased)
    for (RegionFoldOp r : plan.repeated)
      for (RegionFoldOp f : plan.folds) {
        if (f->getBlock() != r->getBlock())
          continue;
        ForOp pr = products::productChain(kernel, r), pf = products::productChain(kernel, f);
        if (pr && pf && products::SameFoldProduct(r, f).ops(pr, pf))
          plan.kept.push_back({r, f});
      }
  for (StringRef symbol : {kPointsSymbol, kSplitsSymbol, kTilesSymbol})
    if (workspaceExtent(kernel, symbol))
      return std::string("the kernel already binds workspace extent '") + symbol.str() + "'";
  // A constant point count at least the multiprocessors fills the machine already.
  if (auto target = kernel->getParentOfType<ModuleOp>()->getAttrOfType<TargetAttr>(PGPUDialect::getTargetAttrName())) {
    int64_t points = 1;
    for (Value e : group.getExtents()) {
      APInt c;
      points = matchPattern(e, m_ConstantInt(&c)) && points >= 0 ? points * c.getSExtValue() : -1;
    }
    if (points >= 0 && target.getMultiprocessors() > 0 && points >= target.getMultiprocessors())
      return std::string("the group has ") + std::to_string(points) + " programs, at least the target's " +
             std::to_string(target.getMultiprocessors()) + " multiprocessors: it fills the machine already";
  }
  effectsOutside(group.getBody().front(), plan, plan.effects);
  for (Operation *op : plan.effects)
    if (op->getNumResults())
      return std::string("an effect ('") + op->getName().getStringRef().str() +
             "') has results: it cannot run under one segment only";
  return std::nullopt;
}

struct Splitter {
  KernelOp kernel;
  Plan &plan;
  Value on, splits, tiles, step, lower, upper; // launch values (before the space)
  Value seg, point;                            // the segment coordinate, the point's linear index
  Value tickets;
  Value phaseTickets; // the phased folds' per-point counts of first-phase arrivals (null unless phased)
  DenseMap<std::pair<unsigned, Type>, Value> summaries; // (component, type) -> workspace
  DenseMap<Operation *, Value> keptTiles;                // a kept pair's folds -> its tiles' workspace
  Attribute pointsAttr, splitsAttr;
  int64_t capacity; // FOLD_SPLIT's largest candidate: the most segments a point has

  Value summaryBuffer(Location loc, unsigned k, Type t) {
    Value &buffer = summaries[{k, t}];
    if (!buffer) {
      SmallVector<Attribute> extents{pointsAttr, splitsAttr};
      if (auto f = dyn_cast<FragmentType>(t))
        llvm::append_range(extents, f.getExtents());
      buffer = addWorkspace(kernel, loc, elementTypeOf(t), extents, TypedAttr());
    }
    return buffer;
  }

  /// In a split fold's last arrival: every program of the point has passed its wait on the first
  /// phase's count (it arrived after), so the count returns to 0 for the next launch.
  void resetPhaseTickets(OpBuilder &b, Location loc) {
    if (!phaseTickets)
      return;
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
    AtomicStoreOp::create(b, loc, zero, phaseTickets, ValueRange{point}, yes, kir::AtomicOrder::Release,
                          kir::SharingDomain::Invocation);
  }

  /// `fold`'s segment's bounds [begin, end) at this program's segment.
  std::pair<Value, Value> segmentBounds(OpBuilder &b, Location loc) {
    Value chunk = bin(b, loc, kir::BinaryKind::Mul, CeilDivOp::create(b, loc, tiles, splits).getResult(), step);
    Value begin = bin(b, loc, kir::BinaryKind::Min,
                      bin(b, loc, kir::BinaryKind::Add, lower, bin(b, loc, kir::BinaryKind::Mul, seg, chunk)), upper);
    Value end = bin(b, loc, kir::BinaryKind::Min, bin(b, loc, kir::BinaryKind::Add, begin, chunk), upper);
    return {begin, end};
  }

  /// A pgpu.region_fold over the point's FOLD_SPLITS summaries in `buffers`, in segment order, with
  /// `fold`'s identities and combine: the whole fold's summary from its segments'.
  RegionFoldOp foldSegments(OpBuilder &b, Location loc, RegionFoldOp fold, ArrayRef<Value> buffers) {
    SmallVector<Value> captures(buffers);
    captures.push_back(point);
    auto whole = RegionFoldOp::create(b, loc, fold.getResultTypes(), index(b, loc, 0), splits, index(b, loc, 1),
                                      fold.getIdentities(), captures);
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Type> argTypes{b.getIndexType(), b.getIndexType()};
    SmallVector<Location> argLocs(2 + captures.size(), loc);
    for (Value c : captures)
      argTypes.push_back(c.getType());
    Block *read = b.createBlock(&whole.getSummarize(), {}, argTypes, argLocs);
    SmallVector<Value> loaded;
    Value at = read->getArgument(0), readPoint = read->getArguments().back();
    for (auto [k, t] : llvm::enumerate(fold.getResultTypes())) {
      Type element = elementTypeOf(t);
      Value fill = isa<FloatType>(element) ? Value(arith::ConstantOp::create(b, loc, FloatAttr::get(element, 0.0)))
                                           : Value(arith::ConstantOp::create(b, loc, IntegerAttr::get(element, 0)));
      Value valid = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
      loaded.push_back(BufferLoadOp::create(b, loc, t, read->getArgument(2 + k),
                                            componentCoords(b, loc, {readPoint, at}, t), valid, fill));
    }
    YieldOp::create(b, loc, loaded);
    IRMapping combineMap;
    fold.getCombine().cloneInto(&whole.getCombine(), combineMap);
    return whole;
  }

  /// Before a first-phase segment's fold: a loop over its segments [begin, end) computing each
  /// segment's product tile as `fold`'s summarize does (the same ops, its segment start and end
  /// min(b + step, end), its captures) and storing it at [point, (b - lower) / step] of `ws`.
  void keepTiles(OpBuilder &b, Location loc, RegionFoldOp fold, Value begin, Value end, Value ws) {
    ForOp product = products::productChain(kernel, fold);
    Value fstep = fold.getStep();
    auto loop = ForOp::create(b, loc, TypeRange{}, begin, end, fstep, ValueRange{});
    OpBuilder::InsertionGuard guard(b);
    Block *body = b.createBlock(&loop.getBody());
    Value iv = body->addArgument(b.getIndexType(), loc);
    Block &summarize = fold.getSummarize().front();
    IRMapping map;
    map.map(summarize.getArgument(0), iv);
    map.map(summarize.getArgument(1),
            bin(b, loc, kir::BinaryKind::Min, bin(b, loc, kir::BinaryKind::Add, iv, fstep), end));
    for (auto [arg, capture] : llvm::zip(summarize.getArguments().drop_front(2), fold.getCaptures()))
      map.map(arg, capture);
    llvm::SetVector<Operation *> slice = products::productSlice(product);
    for (Operation &op : summarize)
      if (slice.contains(&op))
        b.clone(op, map);
    Value tile = map.lookup(product->getResult(0));
    Value at = bin(b, loc, kir::BinaryKind::Div, bin(b, loc, kir::BinaryKind::Sub, iv, lower), step);
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    BufferStoreOp::create(b, loc, tile, ws, componentCoords(b, loc, {point, at}, tile.getType()), yes);
    YieldOp::create(b, loc);
  }

  /// Replaces the product loop of `part` (a segment's fold of a kept pair) by a load of its segment's
  /// tile from `ws` (captured with the point, lower and step), and erases what only the loop read.
  void loadTiles(RegionFoldOp part, Value ws) {
    Location loc = part.getLoc();
    ForOp product = products::productChain(kernel, part);
    Block &summarize = part.getSummarize().front();
    part.getCapturesMutable().append(ValueRange{ws, point, lower, step});
    Value cws = summarize.addArgument(ws.getType(), loc), cpoint = summarize.addArgument(point.getType(), loc);
    Value clower = summarize.addArgument(lower.getType(), loc), cstep = summarize.addArgument(step.getType(), loc);
    OpBuilder b(product);
    Value at = bin(b, loc, kir::BinaryKind::Div,
                   bin(b, loc, kir::BinaryKind::Sub, summarize.getArgument(0), clower), cstep);
    Type type = product->getResult(0).getType();
    Type element = elementTypeOf(type);
    Value fill = isa<FloatType>(element) ? Value(arith::ConstantOp::create(b, loc, FloatAttr::get(element, 0.0)))
                                         : Value(arith::ConstantOp::create(b, loc, IntegerAttr::get(element, 0)));
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    auto kept = BufferLoadOp::create(b, loc, type, cws, componentCoords(b, loc, {cpoint, at}, type), yes, fill);
    product->getResult(0).replaceAllUsesWith(kept.getResult());
    product.erase();
    products::eraseDeadReads(summarize);
  }

  /// A repeated fold (the maximum's, before the sums of exp(s - max) that read it) split in a first
  /// phase: the point's programs are 2 * FOLD_SPLITS, the first FOLD_SPLITS (`first`) each fold the
  /// segment of `fold` and store its summary at [point, segment] of workspace of their own, count
  /// themselves (release) and stop; the second FOLD_SPLITS wait until the count is FOLD_SPLITS
  /// (acquire), fold the stored summaries in segment order with the fold's combine (the whole fold's
  /// summary, up to the association of its combines: for a maximum exact, seed 000 §8) and run the
  /// rest of the block, their segment of the split fold among it. Every program a second-phase one
  /// waits for precedes it in linear order (the segment axis is the fastest), and a program space that
  /// waits starts its instances in linear order (as pgpu-chain-scans relies on), so the wait ends. No
  /// partial summary is rescaled: the numerics are the repeated fold's own (seed 002 §4).
  void phase(RegionFoldOp fold, Value early, Value late) {
    Location loc = fold.getLoc();
    SmallVector<Operation *> tail = tailOf(fold);
    OpBuilder b(fold);
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    // `on` (a launch fact) outermost: unsplit, the program is the original one (a provider may
    // specialize the choice away).
    auto choice = IfOp::create(b, loc, fold.getResultTypes(), on);
    {
      OpBuilder::InsertionGuard guard(b);
      b.createBlock(&choice.getThenRegion());
      auto phases = IfOp::create(b, loc, fold.getResultTypes(), early);
      YieldOp::create(b, loc, phases.getResults());
      b.createBlock(&phases.getThenRegion());
      auto [begin, end] = segmentBounds(b, loc);
      Value ws = keptTiles.lookup(fold);
      if (ws)
        keepTiles(b, loc, fold, begin, end, ws);
      auto part = cast<RegionFoldOp>(b.clone(*fold.getOperation()));
      part->setOperand(0, begin);
      part->setOperand(1, end);
      if (ws)
        loadTiles(part, ws);
      SmallVector<Value> buffers;
      for (Value v : part.getResults()) {
        SmallVector<Attribute> extents{pointsAttr, splitsAttr};
        if (auto f = dyn_cast<FragmentType>(v.getType()))
          llvm::append_range(extents, f.getExtents());
        buffers.push_back(addWorkspace(kernel, loc, elementTypeOf(v.getType()), extents, TypedAttr()));
        BufferStoreOp::create(b, loc, v, buffers.back(), componentCoords(b, loc, {point, seg}, v.getType()), yes);
      }
      buildArrivalTicket(b, loc, phaseTickets, point, yes);
      YieldOp::create(b, loc, fold.getIdentities()); // unread: the program stops here
      b.createBlock(&phases.getElseRegion());
      buildArrivalWait(b, loc, phaseTickets, point, splits, yes);
      YieldOp::create(b, loc, foldSegments(b, loc, fold, buffers).getResults());
      Block *whole = b.createBlock(&choice.getElseRegion());
      auto y = YieldOp::create(b, loc, fold.getResults());
      for (auto [r, c] : llvm::zip(fold.getResults(), choice.getResults()))
        r.replaceUsesWithIf(c, [&](OpOperand &use) { return use.getOwner() != y; });
      fold->moveBefore(whole, whole->begin());
    }
    // The rest of the block: split, in the second phase only (its split folds rewritten later);
    // unsplit, a copy of it as it was.
    b.setInsertionPointAfter(choice);
    auto after = IfOp::create(b, loc, TypeRange{}, on);
    b.createBlock(&after.getThenRegion());
    auto second = IfOp::create(b, loc, TypeRange{}, late);
    YieldOp::create(b, loc);
    b.createBlock(&second.getThenRegion());
    auto y = YieldOp::create(b, loc);
    b.createBlock(&after.getElseRegion());
    // (in the segment axis's one member: its writes are the point's, as for an unsplit fold)
    auto only = IfOp::create(b, loc, TypeRange{}, cmp(b, loc, kir::CmpPredicate::EQ, seg, index(b, loc, 0)));
    YieldOp::create(b, loc);
    b.createBlock(&only.getThenRegion());
    IRMapping copy;
    for (Operation *op : tail)
      b.clone(*op, copy);
    YieldOp::create(b, loc);
    for (Operation *op : tail)
      op->moveBefore(y);
  }

  /// The split branch when every component combines as scalars (`scalarLanes`): each segment
  /// reduces its fragment components to scalars and stores one scalar per component at [point,
  /// segment]; the last arrival loads the point's FOLD_SPLITS scalars CAP at a time as a fragment
  /// (the identity past FOLD_SPLITS), reduces each with the component's combine and runs the fold's
  /// uses on them, the finishing reductions replaced by the combined scalars.
  void combineScalars(OpBuilder &b, Location loc, RegionFoldOp fold, RegionFoldOp part, SmallVectorImpl<Lane> &lanes,
                      ArrayRef<Operation *> tail, Block *original) {
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    // Each neutral scalar is a constant: cloned here, it dominates the segment's finishing
    // reduction and the last arrival wherever the original was defined (possibly after the fold).
    for (Lane &lane : lanes)
      if (!lane.unused)
        lane.fill = b.clone(*lane.fill.getDefiningOp())->getResult(0);
    SmallVector<Value> buffers(lanes.size());
    for (auto [k, lane] : llvm::enumerate(lanes)) {
      if (lane.unused)
        continue;
      Value v = part.getResult(k);
      if (lane.reduce) {
        IRMapping m;
        m.map(lane.reduce.getInputs()[0], v);
        m.map(lane.reduce.getIdentities()[0], lane.fill);
        v = b.clone(*lane.reduce.getOperation(), m)->getResult(0);
      }
      buffers[k] = summaryBuffer(loc, k, v.getType());
      BufferStoreOp::create(b, loc, v, buffers[k], componentCoords(b, loc, {point, seg}, v.getType()), yes);
    }
    auto last = LastProgramOp::create(b, loc, tickets, ValueRange{point}, splits);
    YieldOp::create(b, loc);
    b.createBlock(&last.getBody());
    resetPhaseTickets(b, loc);
    // The segments' scalars, CAP a block (FOLD_SPLITS is at most FOLD_SPLIT's largest candidate:
    // one block), each block's lanes reduced and folded into the running value.
    MLIRContext *ctx = b.getContext();
    Value cap = index(b, loc, capacity);
    SmallVector<Value> inits;
    for (const Lane &lane : lanes)
      if (!lane.unused)
        inits.push_back(lane.fill);
    auto loop = ForOp::create(b, loc, TypeRange(ValueRange(inits)), index(b, loc, 0), splits, cap, inits);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *body = b.createBlock(&loop.getBody());
      Value start = body->addArgument(b.getIndexType(), loc);
      for (Value i : inits)
        body->addArgument(i.getType(), loc);
      Attribute extent = b.getI64IntegerAttr(capacity);
      auto indexFragment = FragmentType::get(ctx, b.getIndexType(), {extent});
      Value at = IotaOp::create(b, loc, indexFragment, start);
      Value ok = CmpOp::create(b, loc, kir::CmpPredicate::LT, at, SplatOp::create(b, loc, indexFragment, splits));
      SmallVector<Value> next;
      unsigned j = 0;
      for (auto [k, lane] : llvm::enumerate(lanes)) {
        if (lane.unused)
          continue;
        Type element = inits[j].getType();
        auto fragment = FragmentType::get(ctx, element, {extent});
        Value loaded = BufferLoadOp::create(b, loc, fragment, buffers[k], ValueRange{point, at}, ok, lane.fill);
        next.push_back(mergeLaneBlock(b, loc, lane, lane.fill, body->getArgument(1 + j), loaded));
        ++j;
      }
      YieldOp::create(b, loc, next);
    }
    // The fold's uses on the combined scalars: a finishing reduction is its component's value.
    IRMapping uses;
    DenseSet<Operation *> replaced;
    unsigned j = 0;
    for (auto [k, lane] : llvm::enumerate(lanes)) {
      if (lane.unused)
        continue;
      if (lane.reduce) {
        uses.map(lane.reduce.getResult(0), loop.getResult(j));
        replaced.insert(lane.reduce.getOperation());
      } else {
        uses.map(fold.getResult(k), loop.getResult(j));
      }
      ++j;
    }
    for (Operation *op : tail)
      if (!replaced.contains(op))
        b.clone(*op, uses);
    YieldOp::create(b, loc);
    fold->moveBefore(original->getTerminator());
    for (Operation *op : tail)
      op->moveBefore(original->getTerminator());
  }

  void rewrite(RegionFoldOp fold) {
    Location loc = fold.getLoc();
    OpBuilder b(fold);
    SmallVector<Operation *> tail = tailOf(fold);
    auto choice = IfOp::create(b, loc, TypeRange{}, on);
    // Not split: the original fold and its uses, in the axis's one program.
    b.createBlock(&choice.getElseRegion());
    auto only = IfOp::create(b, loc, TypeRange{}, cmp(b, loc, kir::CmpPredicate::EQ, seg, index(b, loc, 0)));
    YieldOp::create(b, loc);
    Block *original = b.createBlock(&only.getThenRegion());
    YieldOp::create(b, loc);
    // Split: this segment's fold, its summary to workspace, the last arrival's combine and uses.
    b.createBlock(&choice.getThenRegion());
    auto [begin, end] = segmentBounds(b, loc);
    auto part = cast<RegionFoldOp>(b.clone(*fold.getOperation()));
    part->setOperand(0, begin);
    part->setOperand(1, end);
    if (Value ws = keptTiles.lookup(fold))
      loadTiles(part, ws);
    if (std::optional<SmallVector<Lane>> lanes = scalarLanes(fold)) {
      combineScalars(b, loc, fold, part, *lanes, tail, original);
      return;
    }
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    SmallVector<Value> buffers;
    for (auto [k, v] : llvm::enumerate(part.getResults())) {
      buffers.push_back(summaryBuffer(loc, k, v.getType()));
      BufferStoreOp::create(b, loc, v, buffers.back(), componentCoords(b, loc, {point, seg}, v.getType()), yes);
    }
    auto last = LastProgramOp::create(b, loc, tickets, ValueRange{point}, splits);
    YieldOp::create(b, loc);
    b.createBlock(&last.getBody());
    resetPhaseTickets(b, loc);
    // The segments' summaries folded in segment order with the fold's combine, from its identity.
    RegionFoldOp whole = foldSegments(b, loc, fold, buffers);
    // The fold's uses, on the combined summary, in the last arrival.
    IRMapping uses;
    for (auto [r, w] : llvm::zip(fold.getResults(), whole.getResults()))
      uses.map(r, w);
    for (Operation *op : tail)
      b.clone(*op, uses);
    YieldOp::create(b, loc);
    // The original fold and its uses move under the unsplit branch.
    fold->moveBefore(original->getTerminator());
    for (Operation *op : tail)
      op->moveBefore(original->getTerminator());
  }
};

struct SplitFolds : public tessel::pgpu::impl::PGPUSplitFoldsBase<SplitFolds> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<ProgramSpaceOp> spaces(kernel.getBody().getOps<ProgramSpaceOp>());
      if (spaces.size() != 1)
        continue;
      bool remarks = remarksEnabled(kernel);
      Plan plan;
      SmallVector<std::pair<RegionFoldOp, std::string>> left;
      std::optional<std::string> why = analyze(kernel, spaces[0], plan, left);
      if (remarks) {
        for (auto &[f, reason] : left)
          f.emitRemark() << "pgpu-split-folds: this fold is not split: " << reason;
        if (why && !plan.folds.empty())
          for (RegionFoldOp f : plan.folds)
            f.emitRemark() << "pgpu-split-folds: not split: " << *why;
        else if (why && left.empty() && plan.group)
          plan.group.emitRemark() << "pgpu-split-folds: not split: " << *why;
      }
      if (why)
        continue;
      if (remarks)
        for (RegionFoldOp f : plan.folds)
          f.emitRemark() << "pgpu-split-folds: the fold's tiles are cut into " << kSplitParam
                         << " contiguous segments, one program each (a trailing program axis); each stores its "
                            "summary to workspace ["
                         << kPointsSymbol << ", " << kSplitsSymbol
                         << ", ...] and the point's last arrival combines them in segment order with the fold's "
                            "combine, then runs the fold's uses";
      if (remarks)
        for (RegionFoldOp f : plan.repeated)
          f.emitRemark() << (plan.phased
                                 ? "pgpu-split-folds: this fold is split in a first phase: FOLD_SPLITS more programs "
                                   "a point each fold one segment of it and count themselves; the split fold's "
                                   "programs after them wait for the count and combine its segments' summaries in "
                                   "segment order before their own segment (a later fold in its block reads it)"
                                 : "pgpu-split-folds: this fold runs whole in every segment's program (a later fold "
                                   "in its block is split and reads it)");
      if (remarks)
        for (auto [r, f] : plan.kept)
          r.emitRemark() << "pgpu-split-folds: the first phase computes each segment's product tile once and keeps "
                            "it in workspace ["
                         << kPointsSymbol << ", " << kTilesSymbol
                         << ", ...]; its fold and the split fold after it (the same product) load it instead of "
                            "running their K loops (the product once, not twice)";
      split(kernel, plan);
    }
  }

  /// Where the launch takes a branch holding a split fold, hoisted before the space: the disjunction
  /// over the split folds (and the phased ones) of their enclosing pgpu.if conditions (each
  /// launch-uniform, the else-branch's negated). Elsewhere (a fold left whole on pgpu-keep-fold-tiles'
  /// kept tiles, a staged row) the branch runs in the first segment's program only (its effects are
  /// guarded), so a split there adds programs without work. Null where a split fold lies directly in
  /// the group (every launch splits) or is reached through a branch that is not launch-uniform.
  static Value splitTaken(OpBuilder &b, Location loc, const Plan &plan, IRMapping &map) {
    SmallVector<RegionFoldOp> split(plan.folds);
    if (plan.phased)
      llvm::append_range(split, plan.repeated);
    Value any;
    for (RegionFoldOp f : split) {
      Value taken;
      Region *from = f->getParentRegion();
      for (Operation *p = f->getParentOp(); p != plan.group; from = p->getParentRegion(), p = p->getParentOp()) {
        auto branch = dyn_cast<IfOp>(p);
        if (!branch || !isLaunchExpr(branch.getCondition()))
          return Value();
        Value c = hoistLaunchValue(b, plan.space, branch.getCondition(), map);
        if (from == &branch.getElseRegion())
          c = cmp(b, loc, kir::CmpPredicate::EQ, c, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0));
        taken = taken ? bin(b, loc, kir::BinaryKind::And, taken, c) : c;
      }
      if (!taken)
        return Value();
      any = any ? bin(b, loc, kir::BinaryKind::Or, any, taken) : taken;
    }
    return any;
  }

  void split(KernelOp kernel, Plan &plan) {
    MLIRContext *ctx = kernel.getContext();
    RegionFoldOp first = plan.folds.front();
    Location loc = first.getLoc();
    ProgramSpaceOp space = plan.space;
    ExecutionGroupOp group = plan.group;
    OpBuilder b(space);
    IRMapping map;
    // tiles = ceil(max(U - L, 0) / S); FOLD_SPLITS = max(min(FOLD_SPLIT, tiles), 1).
    LaunchSplits cut =
        launchSplits(b, space, loc, first.getLower(), first.getUpper(), first.getStep(), kSplitParam, map);
    Value lower = cut.lower, upper = cut.upper, step = cut.step, zero = cut.zero, one = cut.one;
    Value tiles = cut.steps, param = cut.param, splits = cut.splits;
    // Where the launch takes no branch holding a split fold (kept tiles past one K tile, corpus 189's
    // and 138's, whose folds run whole; a staged row), FOLD_SPLITS is 1: no programs without work, no
    // tickets (issue 41).
    if (Value taken = splitTaken(b, loc, plan, map))
      splits = SelectOp::create(b, loc, taken, splits, one).getResult();
    Value on = cmp(b, loc, kir::CmpPredicate::NE, splits, one);
    // A group without axes (a kernel-level statement) is one point.
    Value points = split::pointCount(b, loc, group, one);
    // The summaries' workspace is empty when the fold is not split.
    split::sizePartials(b, loc, on, points, zero, splits, kPointsSymbol, kSplitsSymbol);
    // Phased: 2 * FOLD_SPLITS programs a point where split (the repeated folds' segments first).
    Value members = plan.phased ? Value(SelectOp::create(b, loc, on, bin(b, loc, kir::BinaryKind::Add, splits, splits),
                                                         splits))
                                : splits;
    if (plan.segment < 0) {
      space->setOperand(0, bin(b, loc, kir::BinaryKind::Mul, space.getExtents()[0], members));
    } else {
      // The segment's count S becomes S * FOLD_SPLITS in the chain's bound and shift and the total.
      Value grown = bin(b, loc, kir::BinaryKind::Mul, points, splits);
      Value others = bin(b, loc, kir::BinaryKind::Sub, space.getExtents()[0], points);
      space->setOperand(0, bin(b, loc, kir::BinaryKind::Add, others, grown));
      plan.dispatch.setCount(plan.segment, grown);
    }
    // The segment axis trails the group (fastest: a point's segments run side by side).
    Block &body = group.getBody().front();
    SmallVector<Value> coords(body.getArguments());
    Value member = split::appendSplitAxis(group, members, "fold_split", loc);
    // The point's row-major linear index over the original group axes.
    OpBuilder at(&body, body.begin());
    // Phased: member m < FOLD_SPLITS folds segment m of the repeated folds (the first phase), member
    // FOLD_SPLITS + c segment c of the split ones.
    Value seg = member, early, late;
    if (plan.phased) {
      late = cmp(at, loc, kir::CmpPredicate::GE, member, splits);
      early = cmp(at, loc, kir::CmpPredicate::LT, member, splits);
      seg = SelectOp::create(at, loc, late, bin(at, loc, kir::BinaryKind::Sub, member, splits), member);
    }
    Value point = split::linearPoint(at, loc, coords, group.getExtents());
    Value firstSeg = cmp(at, loc, kir::CmpPredicate::EQ, seg, index(at, loc, 0));
    if (plan.phased) // not a first-phase program (unsplit, FOLD_SPLITS is 1 and the member 0)
      firstSeg = bin(at, loc, kir::BinaryKind::And, firstSeg,
                     bin(at, loc, kir::BinaryKind::Or, late, cmp(at, loc, kir::CmpPredicate::EQ, splits,
                                                                 index(at, loc, 1))));
    // One point (a kernel-level reduction) fills the device only with as many segments as it has
    // multiprocessors or more (132 on an H100): its split reaches 256, and 1024 where every fold's
    // segments leave scalars the last arrival combines in one block (`scalarLanes`): several
    // programs a multiprocessor then keep more loads in flight at no serial cost in the combine.
    SmallVector<int64_t> candidates{1, 2, 4, 8, 16, 32, 64};
    bool blocked = llvm::all_of(plan.folds, [](RegionFoldOp f) { return scalarLanes(f).has_value(); });
    if (coords.empty())
      candidates.append({128, 256});
    if (coords.empty() && blocked)
      candidates.append({512, 1024});
    declareParam(kernel, ParamAttr::get(ctx, StringAttr::get(ctx, kSplitParam), candidates, 1, StringAttr()));
    Attribute pointsAttr = StringAttr::get(ctx, kPointsSymbol), splitsAttr = StringAttr::get(ctx, kSplitsSymbol);
    Value tickets = addZeroedCounters(kernel, loc, {pointsAttr});
    Value phaseTickets =
        plan.phased ? addZeroedCounters(kernel, loc, {pointsAttr}) : Value();
    // The map spelled out: DenseMap's default constructor is explicit (clang rejects `{}` here).
    Splitter s{kernel, plan, on, splits, tiles, step, lower, upper, seg, point, tickets, phaseTickets,
               DenseMap<std::pair<unsigned, Type>, Value>(), DenseMap<Operation *, Value>(), pointsAttr, splitsAttr,
               candidates.back()};
    // Kept pairs: workspace [FOLD_POINTS, FOLD_TILES, tile...] (empty unsplit: FOLD_POINTS is 0).
    if (!plan.kept.empty()) {
      OpBuilder w(space);
      WorkspaceExtentOp::create(w, loc, kTilesSymbol, tiles);
    }
    for (auto [r, f] : plan.kept) {
      ForOp product = products::productChain(kernel, r);
      auto type = cast<FragmentType>(product->getResult(0).getType());
      SmallVector<Attribute> extents{pointsAttr, StringAttr::get(ctx, kTilesSymbol)};
      llvm::append_range(extents, type.getExtents());
      Value ws = addWorkspace(kernel, loc, type.getElementType(), extents, TypedAttr());
      s.keptTiles[r] = ws;
      s.keptTiles[f] = ws;
    }
    for (RegionFoldOp r : plan.phased ? ArrayRef<RegionFoldOp>(plan.repeated) : ArrayRef<RegionFoldOp>())
      s.phase(r, early, late);
    // Effects outside the folds run once per point.
    for (Operation *op : plan.effects)
      guardEffect(op, firstSeg);
    for (RegionFoldOp f : plan.folds)
      s.rewrite(f);
  }
};
} // namespace
