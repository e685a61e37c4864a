//===- SplitRowReductions.cpp - kernel-level reductions' rows across programs ===//
//
// seed 002 §3.2 (rewrite the program space: the ownership of each program
// instance), §4 (an ordinary reduce is associative and commutative: its
// members may be regrouped), seed 000 §4.4 (invocation workspace; acq_rel
// tickets), ARCHITECTURE §4 (one launch: no grid barrier, no second launch).
//
// Kernel-level reductions (`n = T.sum(kept)`, `ce = T.sum(where(kept, lse - target, 0))` with
// `lse` a row's logsumexp, `loss[0] = ce / n`) are constructed as pgpu.range_reduce ops over the
// rows at the top of a group without axes: one program walks every row, once per reduction.
// pgpu-split-folds splits one blocked fold's tiles; a reduction whose element is itself a row
// reduction (a loop) is never blocked, and only one fold of a block is split, so such kernels ran
// in one program (issue 41, corpus 183). This pass spreads the rows over programs instead:
//
//   * the group gains an axis `fold_split` of FOLD_SPLITS = max(min(FOLD_SPLIT, rows), 1)
//     members (the space's one program becomes FOLD_SPLITS);
//   * member c reduces rows [lo + c * chunk, lo + (c + 1) * chunk) ∩ [lo, hi) (chunk =
//     ceil(rows / FOLD_SPLITS); an empty slice yields the identity) of every reduction, in row
//     order, from the identity, and stores each result at [c] of workspace [FOLD_SPLITS];
//   * the last arrival (`pgpu.last_program %tickets[0] arrivals FOLD_SPLITS`, acq_rel: every
//     member's partials are visible there) reduces each reduction's FOLD_SPLITS partials with its
//     own combine (a pgpu.range_reduce over [0, FOLD_SPLITS) of the stored partials) and runs the
//     ops after the reductions (the scalar expression and its stores: `ce / n` after the merge).
//
// Reductions whose elements hold loops are first fused into one range_reduce with all their
// components (each combine on its own components), so CSE shares what their elements compute
// alike: corpus 183's two sums of one row's logsumexp walk the row twice, not four times.
//
// The partials are merged in a fixed order (member order, blocked as any reduction), never by
// atomics: the output is the same bits on every run at one binding (it may differ in the last
// bits from the one-program sum, as any regrouping of a reduction does, seed 002 §4).
//
// Fires on a kernel whose sole program space has one program and one execution group without
// axes, or on each segment without axes of construction's dispatch chain (each its own FOLD_SPLITS
// from its own rows, one FOLD_SPLIT for all; corpus 274, 256). Each such group's top-level
// pgpu.range_reduce ops have equal launch-uniform bounds and constant
// identities, write no memory and are read only by the ops after the last of them; the ops
// before that write no memory; the ops after write memory only as single accesses (no loop or
// structured op that writes: a workset reading the scalars would run whole in the last program).
// It fires only where pgpu-split-folds would not split the work: two or more reductions, or one
// whose element holds a loop or a nested reduction (a row reduction per member). FOLD_SPLIT is the
// parameter pgpu-split-folds declares (its call default fills the device), so that pass leaves a
// kernel this one split.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "GramFolds.h"
#include "PerfectNests.h"
#include "SplitPrograms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUSPLITROWREDUCTIONS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::build;

namespace {
constexpr llvm::StringLiteral kSplitParam = "FOLD_SPLIT", kSplitsSymbol = "FOLD_SPLITS";

struct Plan {
  ProgramSpaceOp space;
  ExecutionGroupOp group;
  SmallVector<RangeReduceOp> reductions;
  SmallVector<Operation *> tail; // the ops after the last reduction, before the terminator
};

/// Whether `v` is defined outside `space` (a launch value: the same in every program).
bool outside(Value v, ProgramSpaceOp space) {
  return !space->isAncestor(v.getParentRegion()->getParentOp());
}

std::optional<std::string> analyzeGroup(KernelOp kernel, Plan &plan);

/// Why no group of `kernel` is split, or nullopt with `plans` filled: the sole group without axes of
/// a one-program space, or each segment without axes of construction's dispatch chain that qualifies
/// (corpus 274: `loss[0]` and `clip_frac[0]` two kernel-level segments of one launch, each a walk of
/// every row in one program). `left` gets each segment that does not qualify, with why.
std::optional<std::string> analyze(KernelOp kernel, SmallVectorImpl<Plan> &plans, Dispatch &dispatch,
                                   SmallVectorImpl<int> &segments, SmallVectorImpl<std::pair<Plan, std::string>> &left) {
  SmallVector<ProgramSpaceOp> spaces(kernel.getBody().getOps<ProgramSpaceOp>());
  if (spaces.size() != 1)
    return std::string("the kernel has several program spaces");
  ProgramSpaceOp space = spaces[0];
  if (kernel.getParam(kSplitParam))
    return std::string("the kernel declares FOLD_SPLIT already");
  if (space.getExtents().size() != 1)
    return std::string("the program space is not one-dimensional");
  SmallVector<ExecutionGroupOp> groups(space.getBody().front().getOps<ExecutionGroupOp>());
  APInt one;
  if (groups.size() == 1) {
    if (!matchPattern(space.getExtents()[0], m_ConstantInt(&one)) || one.getSExtValue() != 1)
      return std::string("the program space has more than one program");
    if (!groups[0].getExtents().empty())
      return std::string("the program space is not one execution group without axes");
    Plan plan;
    plan.space = space;
    plan.group = groups[0];
    // seed 002 §3.3-§3.4: a sum over (t, s) of a function of contractions free on t and s is Gram
    // tiles (tensor-core tile products); its fold over t blocks is split by pgpu-split-folds.
    if (formsGramFold(kernel, space, plan.group)) {
      for (auto r : plan.group.getBody().front().getOps<RangeReduceOp>())
        plan.reductions.push_back(r);
      std::string why = "the reduction is a Gram nest: pgpu-form-tiles tiles it as a fold over row blocks of "
                        "tile products, which pgpu-split-folds spreads across programs";
      left.push_back({plan, why});
      return why;
    }
    if (std::optional<std::string> why = analyzeGroup(kernel, plan)) {
      left.push_back({plan, *why});
      return why;
    }
    plans.push_back(plan);
    return std::nullopt;
  }
  // Construction's chain of segments: each kernel-level one (a group without axes, one program)
  // is split on its own, its FOLD_SPLITS from its own rows (one FOLD_SPLIT for all).
  if (!groups.empty() || !dispatchChain(space.getBody().front(), space.getBody().getArgument(0), dispatch))
    return std::string("the program space is not one execution group without axes");
  for (auto [i, g] : llvm::enumerate(dispatch.groups)) {
    if (!g.getExtents().empty())
      continue;
    Plan plan;
    plan.space = space;
    plan.group = g;
    std::optional<std::string> why = analyzeGroup(kernel, plan);
    if (why) {
      left.push_back({plan, *why});
      continue;
    }
    plans.push_back(plan);
    segments.push_back(int(i));
  }
  if (plans.empty())
    return std::string("no segment of the program space's chain is kernel-level reductions to split");
  return std::nullopt;
}

std::optional<std::string> analyzeGroup(KernelOp kernel, Plan &plan) {
  ProgramSpaceOp space = plan.space;
  Block &body = plan.group.getBody().front();
  for (auto r : body.getOps<RangeReduceOp>())
    plan.reductions.push_back(r);
  if (plan.reductions.empty())
    return std::string("the group has no kernel-level reduction");
  RangeReduceOp first = plan.reductions.front(), last = plan.reductions.back();
  DenseSet<Operation *> tail;
  for (Operation *op = last->getNextNode(); op && !op->hasTrait<OpTrait::IsTerminator>(); op = op->getNextNode()) {
    plan.tail.push_back(op);
    tail.insert(op);
  }
  bool nested = false;
  for (RangeReduceOp r : plan.reductions) {
    if (!outside(r.getLower(), space) || !outside(r.getUpper(), space))
      return std::string("a reduction's bounds are computed in the program (not launch-uniform)");
    if (!sameLaunchValue(r.getLower(), first.getLower()) || !sameLaunchValue(r.getUpper(), first.getUpper()))
      return std::string("the reductions range over different rows");
    if (!llvm::all_of(r.getIdentities(), split::isConstantValue))
      return std::string("a reduction's identity is not a constant");
    if (writesMemory(r))
      return std::string("a reduction writes memory");
    for (Value v : r.getResults())
      for (Operation *user : v.getUsers()) {
        Operation *top = body.findAncestorOpInBlock(*user);
        if (!top || !tail.contains(top))
          return std::string("a reduction's result is read before the last reduction (by another reduction "
                             "or an op between them)");
      }
    r.getElement().walk([&](Operation *op) {
      if (op->getNumRegions() && op->getParentRegion() != &r.getElement())
        return;
      if (op->getNumRegions())
        nested = true;
    });
  }
  for (Operation &op : body) {
    if (&op == last.getOperation())
      break;
    if (!isa<RangeReduceOp>(op) && writesMemory(&op))
      return std::string("an op before the last reduction writes memory");
  }
  for (Operation *op : plan.tail)
    if (op->getNumRegions() && writesMemory(op))
      return std::string("a loop or structured op after the reductions writes memory (a workset reading their "
                         "scalars in the same kernel: it stays in the one program)");
  if (plan.reductions.size() < 2 && !nested)
    return std::string("one reduction without a nested loop: pgpu-form-blocking blocks it and pgpu-split-folds "
                       "splits its tiles");
  return std::nullopt;
}


/// Whether `r`'s element holds a loop or a nested structured op (a row reduction per member: never
/// blocked, it stays a walk of its members).
bool hasNested(RangeReduceOp r) {
  bool nested = false;
  for (Operation &op : r.getElement().front())
    nested |= op.getNumRegions() > 0;
  return nested;
}

/// Fuses the reductions whose elements hold loops into one range_reduce with all their components
/// (element: each element's ops in turn; combine: each combine on its own components), in place
/// of the last of them, so CSE shares what their elements compute alike: two sums of one row's
/// logsumexp walk the row once. The members' order and each component's combine are unchanged.
void fuseNested(Plan &plan) {
  SmallVector<RangeReduceOp> nested;
  for (RangeReduceOp r : plan.reductions)
    if (hasNested(r))
      nested.push_back(r);
  if (nested.size() < 2)
    return;
  RangeReduceOp at = nested.back();
  Location loc = at.getLoc();
  OpBuilder b(at);
  SmallVector<Type> types;
  SmallVector<Value> identities;
  for (RangeReduceOp r : nested) {
    llvm::append_range(types, r.getResultTypes());
    llvm::append_range(identities, r.getIdentities());
  }
  auto fused = RangeReduceOp::create(b, loc, types, at.getLower(), at.getUpper(), identities);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *element = b.createBlock(&fused.getElement(), {}, {b.getIndexType()}, {loc});
    SmallVector<Value> yields;
    for (RangeReduceOp r : nested) {
      IRMapping m;
      Block &body = r.getElement().front();
      m.map(body.getArgument(0), element->getArgument(0));
      for (Operation &op : body.without_terminator())
        b.clone(op, m);
      for (Value v : body.getTerminator()->getOperands())
        yields.push_back(m.lookupOrDefault(v));
    }
    YieldOp::create(b, loc, yields);
    SmallVector<Type> args(types);
    llvm::append_range(args, types);
    Block *combine = b.createBlock(&fused.getCombine(), {}, args, SmallVector<Location>(args.size(), loc));
    yields.clear();
    unsigned offset = 0, total = types.size();
    for (RangeReduceOp r : nested) {
      IRMapping m;
      Block &body = r.getCombine().front();
      unsigned k = r.getNumResults();
      for (unsigned j = 0; j < k; ++j) {
        m.map(body.getArgument(j), combine->getArgument(offset + j));
        m.map(body.getArgument(k + j), combine->getArgument(total + offset + j));
      }
      for (Operation &op : body.without_terminator())
        b.clone(op, m);
      for (Value v : body.getTerminator()->getOperands())
        yields.push_back(m.lookupOrDefault(v));
      offset += k;
    }
    YieldOp::create(b, loc, yields);
  }
  unsigned offset = 0;
  for (RangeReduceOp r : nested) {
    for (Value v : r.getResults())
      v.replaceAllUsesWith(fused.getResult(offset++));
  }
  SmallVector<RangeReduceOp> kept;
  for (RangeReduceOp r : plan.reductions) {
    if (r == at)
      kept.push_back(fused);
    else if (!llvm::is_contained(nested, r))
      kept.push_back(r);
  }
  for (RangeReduceOp r : nested)
    r.erase();
  plan.reductions = kept;
}

/// Splits `plan`'s group into `cut.splits` members (its rows' split), its workspace [`extent`].
void splitGroup(KernelOp kernel, Plan &plan, const LaunchSplits &cut, StringRef extent) {
  MLIRContext *ctx = kernel.getContext();
  RangeReduceOp first = plan.reductions.front();
  Location loc = first.getLoc();
  ExecutionGroupOp group = plan.group;
  OpBuilder b(group);
  Value splits = cut.splits;
  group.getExtentsMutable().assign(ValueRange{splits});
  group.setRolesAttr(ArrayAttr::get(ctx, {StringAttr::get(ctx, "fold_split")}));
  Block &body = group.getBody().front();
  Value seg = body.addArgument(b.getIndexType(), loc);
  // This member's rows [begin, end).
  OpBuilder at(&body, body.begin());
  split::Slice mine = split::sliceOf(at, loc, cut, splits, seg);
  for (RangeReduceOp r : plan.reductions) {
    r->setOperand(0, mine.begin);
    r->setOperand(1, mine.end);
  }
  // Each partial to workspace [FOLD_SPLITS] at the member's index.
  b.setInsertionPointAfter(plan.reductions.back());
  Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Attribute splitsAttr = StringAttr::get(ctx, extent);
  SmallVector<SmallVector<Value>> buffers;
  for (RangeReduceOp r : plan.reductions) {
    buffers.emplace_back();
    for (Value v : r.getResults()) {
      Value buffer = addWorkspace(kernel, r.getLoc(), v.getType(), {splitsAttr}, TypedAttr());
      BufferStoreOp::create(b, r.getLoc(), v, buffer, ValueRange{seg}, yes);
      buffers.back().push_back(buffer);
    }
  }
  Value tickets = addZeroedCounters(kernel, loc, {b.getI64IntegerAttr(1)});
  auto last = LastProgramOp::create(b, loc, tickets, ValueRange{index(b, loc, 0)}, splits);
  Block *merge = b.createBlock(&last.getBody());
  auto done = YieldOp::create(b, loc);
  b.setInsertionPoint(done);
  // The ops after the reductions run once, in the last arrival, on the merged values.
  for (Operation *op : plan.tail)
    op->moveBefore(done);
  b.setInsertionPoint(&merge->front());
  // Each reduction's partials reduced in member order with its own combine.
  for (auto [r, bufs] : llvm::zip(plan.reductions, buffers)) {
    RangeReduceOp whole = split::mergePartials(b, r, splits, ValueRange(), bufs);
    for (auto [v, w] : llvm::zip(r.getResults(), whole.getResults()))
      v.replaceUsesWithIf(w, [&](OpOperand &use) { return last->isProperAncestor(use.getOwner()); });
  }
}

/// The perfect nests at the top of `r`'s element (a member's statistics over several axes: a
/// sample's C x H x W sums), outermost level first, each a range_reduce over two or more axes with
/// launch-uniform bounds down to a straight-line element, constant identities and results a
/// workspace holds (the innermost element may hold straight-line reductions per member with
/// launch-uniform bounds); none where the element holds another op with regions (a row of one axis:
/// the member's walk is one row, left whole) or no nest.
std::optional<SmallVector<SmallVector<Operation *>>> innerNests(RangeReduceOp r, ProgramSpaceOp space) {
  SmallVector<SmallVector<Operation *>> out;
  for (Operation &op : r.getElement().front()) {
    if (!op.getNumRegions())
      continue;
    auto top = dyn_cast<RangeReduceOp>(op);
    if (!top)
      return std::nullopt;
    Operation *inner = top;
    while (true) {
      Block &body = nests::memberRegion(inner).front();
      auto child = dyn_cast<RangeReduceOp>(&body.front());
      if (!child || child->getNextNode() != body.getTerminator() ||
          !nests::reducesAlike(cast<RangeReduceOp>(inner), child))
        break;
      inner = child;
    }
    // The innermost element is straight-line, or holds reductions per member with launch-uniform
    // bounds and straight-line regions (NCHW classes per pixel: pgpu-form-blocking runs them as
    // ordered loops for the pixel lanes).
    for (Operation &o : nests::memberRegion(inner).front()) {
      if (!o.getNumRegions())
        continue;
      auto perMember = dyn_cast<RangeReduceOp>(o);
      if (!perMember || !outside(perMember.getLower(), space) || !outside(perMember.getUpper(), space))
        return std::nullopt;
      for (Region *region : {&perMember.getElement(), &perMember.getCombine()})
        if (llvm::any_of(region->front(), [](Operation &x) { return x.getNumRegions() > 0; }))
          return std::nullopt;
    }
    SmallVector<Operation *> nest = nests::perfectNest(inner);
    // The nest starts at `top`: `r` itself may reduce alike and hold nothing else (a sum over n of
    // sums over h and w), but its rows are split, not sliced.
    auto at = llvm::find(nest, top.getOperation());
    if (at == nest.end())
      return std::nullopt;
    nest.erase(nest.begin(), at);
    if (nest.size() < 2)
      return std::nullopt;
    for (Operation *level : nest) {
      auto [lo, hi] = nests::boundsOf(level);
      if (!outside(lo, space) || !outside(hi, space))
        return std::nullopt;
    }
    if (!llvm::all_of(top.getIdentities(), split::isConstantValue))
      return std::nullopt;
    for (Type t : top.getResultTypes())
      if (!isa<FloatType>(t) && !(isa<IntegerType>(t) && t.getIntOrFloatBitWidth() >= 8))
        return std::nullopt;
    out.push_back(nest);
  }
  if (out.empty())
    return std::nullopt;
  return out;
}

/// The kernel-level reduction `plan.reductions[0]` over few rows whose element reduces `nestList`
/// (perfect nests over several axes, innerNests) runs as max(rows, 1) * S programs, S =
/// max(min(FOLD_SPLIT, walk), 1) slices of each row's walks (walk: the first nest's members):
/// program c takes row lo + c / S and slice c % S of each nest flattened to one range (its
/// members [s * chunk, s * chunk + chunk) of [0, walk), chunk = ceil(walk / S)), stores each
/// nest's partial at [c] of workspace [FOLD_SPLITS], and the last arrival reduces the rows: each
/// row's nests the merge of its S partials in slice order with the nest's combine, the rest of
/// the element as written, then the ops after the reduction.
void splitInner(KernelOp kernel, Plan &plan, ArrayRef<SmallVector<Operation *>> nestList) {
  MLIRContext *ctx = kernel.getContext();
  RangeReduceOp r = plan.reductions.front();
  Location loc = r.getLoc();
  ProgramSpaceOp space = plan.space;
  ExecutionGroupOp group = plan.group;
  // Each nest one flat walk of its members in r's element (pgpu-form-blocking's flattening).
  SmallVector<RangeReduceOp> flats;
  OpBuilder fb(ctx);
  for (ArrayRef<Operation *> nest : nestList) {
    SmallVector<Operation *> made;
    Operation *flat = nests::flattenNest(fb, nest, made);
    nest.front()->replaceAllUsesWith(flat->getResults());
    nest.front()->erase();
    flats.push_back(cast<RangeReduceOp>(flat));
  }
  OpBuilder b(space);
  IRMapping hoisted;
  LaunchSplits cut = launchSplits(b, space, loc, index(b, loc, 0), flats.front().getUpper(), index(b, loc, 1),
                                  kSplitParam, hoisted);
  Value slicesPerRow = cut.splits;
  Value rows = bin(b, loc, kir::BinaryKind::Max, bin(b, loc, kir::BinaryKind::Sub, r.getUpper(), r.getLower()),
                   cut.zero);
  Value anyRow = bin(b, loc, kir::BinaryKind::Min, rows, cut.one); // 0 without rows: every slice empty
  Value programs = bin(b, loc, kir::BinaryKind::Mul, bin(b, loc, kir::BinaryKind::Max, rows, cut.one), slicesPerRow);
  // Per distinct walk length: its members where a row exists, and the slice length.
  struct Walk {
    Value length, limit, chunk, begin, end;
  };
  SmallVector<Walk> walks;
  SmallVector<unsigned> walkOf;
  for (RangeReduceOp f : flats) {
    Value length = hoistLaunchValue(b, space, f.getUpper(), hoisted);
    auto same = llvm::find_if(walks, [&](const Walk &w) { return sameLaunchValue(w.length, length); });
    walkOf.push_back(same - walks.begin());
    if (same == walks.end())
      walks.push_back({length, bin(b, loc, kir::BinaryKind::Mul, length, anyRow),
                       CeilDivOp::create(b, loc, length, slicesPerRow).getResult(), Value(), Value()});
  }
  WorkspaceExtentOp::create(b, loc, kSplitsSymbol, programs);
  space->setOperand(0, programs);
  group.getExtentsMutable().assign(ValueRange{programs});
  group.setRolesAttr(ArrayAttr::get(ctx, {StringAttr::get(ctx, "fold_split")}));
  declareParam(kernel, ParamAttr::get(ctx, StringAttr::get(ctx, kSplitParam),
                                      {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, 1, StringAttr()));
  Block &body = group.getBody().front();
  Value member = body.addArgument(b.getIndexType(), loc);
  // This program's row and slice, and each walk's members [begin, end).
  OpBuilder at(&body, body.begin());
  Value row = bin(at, loc, kir::BinaryKind::Add, r.getLower(),
                  bin(at, loc, kir::BinaryKind::Div, member, slicesPerRow));
  Value slice = bin(at, loc, kir::BinaryKind::Rem, member, slicesPerRow);
  for (Walk &w : walks) {
    w.begin = bin(at, loc, kir::BinaryKind::Min, bin(at, loc, kir::BinaryKind::Mul, slice, w.chunk), w.limit);
    w.end = bin(at, loc, kir::BinaryKind::Min, bin(at, loc, kir::BinaryKind::Add, w.begin, w.chunk), w.limit);
  }
  // The element up to its last walk, on this program's row, each walk on its slice.
  Block &element = r.getElement().front();
  b.setInsertionPoint(r);
  IRMapping mine;
  mine.map(element.getArgument(0), row);
  SmallVector<RangeReduceOp> sliced;
  SmallVector<Operation *> copies;
  for (Operation &op : element.without_terminator()) {
    Operation *copy = b.clone(op, mine);
    copies.push_back(copy);
    if (auto f = dyn_cast<RangeReduceOp>(op)) {
      const Walk &w = walks[walkOf[llvm::find(flats, f) - flats.begin()]];
      copy->setOperand(0, w.begin);
      copy->setOperand(1, w.end);
      sliced.push_back(cast<RangeReduceOp>(copy));
      if (sliced.size() == flats.size())
        break;
    }
  }
  // Each partial to workspace [FOLD_SPLITS] at the program's index.
  Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Attribute splitsAttr = StringAttr::get(ctx, kSplitsSymbol);
  SmallVector<SmallVector<Value>> buffers;
  for (RangeReduceOp f : sliced) {
    buffers.emplace_back();
    for (Value v : f.getResults()) {
      Value buffer = addWorkspace(kernel, f.getLoc(), v.getType(), {splitsAttr}, TypedAttr());
      BufferStoreOp::create(b, f.getLoc(), v, buffer, ValueRange{member}, yes);
      buffers.back().push_back(buffer);
    }
  }
  // What the element computes from its walks (the row's expression) runs in the last arrival: the
  // copies here are dead, and the partials' only use is their store (pgpu-form-blocking's split partial).
  for (Operation *op : llvm::reverse(copies))
    if (isOpTriviallyDead(op))
      op->erase();
  Value tickets = addZeroedCounters(kernel, loc, {b.getI64IntegerAttr(1)});
  auto last = LastProgramOp::create(b, loc, tickets, ValueRange{index(b, loc, 0)}, programs);
  Block *merge = b.createBlock(&last.getBody());
  auto done = YieldOp::create(b, loc);
  for (Operation *op : plan.tail)
    op->moveBefore(done);
  b.setInsertionPoint(&merge->front());
  // The rows reduced again, each row's walks the merge of its slices' partials.
  auto whole = RangeReduceOp::create(b, loc, r.getResultTypes(), r.getLower(), r.getUpper(), r.getIdentities());
  {
    OpBuilder::InsertionGuard guard(b);
    Block *rowElement = b.createBlock(&whole.getElement(), {}, {b.getIndexType()}, {loc});
    Value rowArg = rowElement->getArgument(0);
    IRMapping theirs;
    theirs.map(element.getArgument(0), rowArg);
    Value first = bin(b, loc, kir::BinaryKind::Mul, bin(b, loc, kir::BinaryKind::Sub, rowArg, r.getLower()),
                      slicesPerRow);
    for (Operation &op : element) {
      auto f = dyn_cast<RangeReduceOp>(op);
      if (!f || !llvm::is_contained(flats, f)) {
        b.clone(op, theirs);
        continue;
      }
      const SmallVector<Value> &bufs = buffers[llvm::find(flats, f) - flats.begin()];
      SmallVector<Value> ids;
      for (Value id : f.getIdentities())
        ids.push_back(theirs.lookupOrDefault(id));
      auto parts = RangeReduceOp::create(b, f.getLoc(), f.getResultTypes(), cut.zero, slicesPerRow, ids);
      OpBuilder::InsertionGuard inner(b);
      Block *partElement = b.createBlock(&parts.getElement(), {}, {b.getIndexType()}, {loc});
      Value at = bin(b, loc, kir::BinaryKind::Add, first, partElement->getArgument(0));
      SmallVector<Value> loaded;
      for (auto [v, buffer] : llvm::zip(f.getResults(), bufs)) {
        Type t = v.getType();
        Value fill = isa<FloatType>(t) ? Value(arith::ConstantOp::create(b, loc, FloatAttr::get(t, 0.0)))
                                       : Value(arith::ConstantOp::create(b, loc, IntegerAttr::get(t, 0)));
        loaded.push_back(BufferLoadOp::create(b, loc, t, buffer, ValueRange{at}, yes, fill));
      }
      YieldOp::create(b, loc, loaded);
      IRMapping combine;
      f.getCombine().cloneInto(&parts.getCombine(), combine);
      theirs.map(f.getResults(), parts.getResults());
    }
    IRMapping combine;
    r.getCombine().cloneInto(&whole.getCombine(), combine);
  }
  r.replaceAllUsesWith(whole.getResults());
  r.erase();
}

/// Splits every planned group, each into FOLD_SPLITS = max(min(FOLD_SPLIT, rows), 1) members of its
/// own rows (one parameter for all): a sole group's one program becomes FOLD_SPLITS; a chain
/// segment's count 1 becomes its FOLD_SPLITS in its bound and shift and in the space's total (the
/// other segments keep their programs), its workspace sized by its own extent (FOLD_SPLITS for the
/// first split segment, FOLD_SPLITS_<segment> for later ones).
void split(KernelOp kernel, SmallVectorImpl<Plan> &plans, Dispatch &dispatch, ArrayRef<int> segments) {
  for (Plan &plan : plans)
    fuseNested(plan);
  MLIRContext *ctx = kernel.getContext();
  ProgramSpaceOp space = plans.front().space;
  OpBuilder b(space);
  IRMapping map;
  Value total = space.getExtents()[0];
  for (auto [i, plan] : llvm::enumerate(plans)) {
    RangeReduceOp first = plan.reductions.front();
    Location loc = first.getLoc();
    // rows = max(hi - lo, 0); FOLD_SPLITS = max(min(FOLD_SPLIT, rows), 1).
    LaunchSplits cut =
        launchSplits(b, space, loc, first.getLower(), first.getUpper(), index(b, loc, 1), kSplitParam, map);
    std::string extent = i == 0 ? kSplitsSymbol.str() : (kSplitsSymbol + "_" + Twine(segments[i])).str();
    WorkspaceExtentOp::create(b, loc, extent, cut.splits);
    if (segments.empty()) {
      total = cut.splits;
    } else {
      total = bin(b, loc, kir::BinaryKind::Add, bin(b, loc, kir::BinaryKind::Sub, total, index(b, loc, 1)),
                  cut.splits);
      dispatch.setCount(unsigned(segments[i]), cut.splits);
    }
    splitGroup(kernel, plan, cut, extent);
  }
  space->setOperand(0, total);
  declareParam(kernel, ParamAttr::get(ctx, StringAttr::get(ctx, kSplitParam),
                                      {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}, 1,
                                      StringAttr()));
}

struct SplitRowReductions : public tessel::pgpu::impl::PGPUSplitRowReductionsBase<SplitRowReductions> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      SmallVector<Plan> plans;
      SmallVector<std::pair<Plan, std::string>> left;
      SmallVector<int> segments;
      Dispatch dispatch;
      std::optional<std::string> why = analyze(kernel, plans, dispatch, segments, left);
      bool remarks = remarksEnabled(kernel);
      // A sole group whose reductions are a row's statistics over several axes (fused into one
      // reduction first): its rows' walks are sliced too.
      if (!why && plans.size() == 1 && segments.empty()) {
        Plan &plan = plans.front();
        bool sliced = llvm::all_of(plan.reductions, [&](RangeReduceOp r) {
          return (plan.reductions.size() == 1 || hasNested(r)) && innerNests(r, plan.space).has_value();
        });
        if (sliced) {
          fuseNested(plan);
          if (auto inner = innerNests(plan.reductions.front(), plan.space); inner && plan.reductions.size() == 1) {
            if (remarks)
              plan.reductions.front().emitRemark()
                  << "pgpu-split-row-reductions: each row's reductions over several axes are cut into "
                  << kSplitParam
                  << " slices of their flattened members, one program a row and slice; each stores its "
                     "partials to workspace ["
                  << kSplitsSymbol
                  << "] and the last arrival merges each row's slices in order, then reduces the rows and "
                     "runs the ops after the reduction";
            splitInner(kernel, plan, *inner);
            continue;
          }
        }
      }
      if (remarks)
        for (auto &[plan, reason] : left)
          if (!plan.reductions.empty())
            plan.reductions.back().emitRemark() << "pgpu-split-row-reductions: not split: " << reason;
      if (why)
        continue;
      if (remarks)
        for (Plan &plan : plans)
          for (RangeReduceOp r : plan.reductions)
            r.emitRemark() << "pgpu-split-row-reductions: the rows are cut into " << kSplitParam
                           << " contiguous slices, one program each; each stores its partial to workspace ["
                           << kSplitsSymbol
                           << "] and the last arrival merges them in program order with the reduction's "
                              "combine, then runs the ops after the reductions"
                           << (segments.empty() ? "" : " (a segment of the launch's chain)");
      split(kernel, plans, dispatch, segments);
    }
  }
};
} // namespace
