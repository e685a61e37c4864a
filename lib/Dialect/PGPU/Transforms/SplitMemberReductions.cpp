//===- SplitMemberReductions.cpp - a member's statistics across programs, in two phases ===//
//
// seed 002 §3.2 (rewrite the program space: the ownership of each program
// instance), §4 (an ordinary reduce is associative and commutative: its
// members may be regrouped), seed 000 §4.4 (invocation workspace; acq_rel
// tickets), §8 (no barrier across program instances), ARCHITECTURE §4 (one
// launch: no grid barrier, no second launch).
//
// A parallel member's statistics (`mu = T.sum(t) / n; var[c] = T.sum((t - mu)^2) / n` per channel
// c of a batch norm, per row r of a long row's variance) are constructed as pgpu.range_reduce ops
// at the top of the member's group, the second reading the first: one program walks the member's
// whole reduced range twice. With few members (64 rows of 4M elements, corpus 137; 256 channels of
// 100K strided elements, corpus 53) the device runs a few programs, each a long serial walk
// (issue 41). Here each member's reduced range is cut into MEMBER_SPLITS contiguous slices and the
// member runs as 2 * MEMBER_SPLITS programs, in two phases:
//
//   * member m < MEMBER_SPLITS reduces slice m of the first-phase reductions (those reading no
//     other reduction), stores each partial at [point, m] of workspace, counts itself (an atomic
//     add, release) and stops;
//   * member MEMBER_SPLITS + m waits until the count is MEMBER_SPLITS (acquire), merges the
//     first-phase partials in slice order with each reduction's combine (every program the same
//     bits), runs the pure ops between and reduces slice m of the second-phase reductions (those
//     reading first-phase results), stores its partials and arrives at the point's ticket;
//   * the point's last arrival merges every reduction's partials in slice order and runs the
//     member's ops as written (its stores: each output element written once), then returns the
//     first phase's count to 0.
//
// Every program a waiting one waits for precedes it in linear order (the split axis is the
// fastest, the first phase first) and a program space that waits starts its instances in linear
// order (as pgpu-split-folds' phases rely on): the wait ends. The partials merge in a fixed order,
// never by atomics: the same bits on every run at one binding (they may differ in the last bits
// from the one-program sum, as any regrouping of a reduction does, seed 002 §4).
//
// MEMBER_SPLITS = max(min(MEMBER_SPLIT, rows, ceil(FILL * SMs / points)), 1) at launch (rows: the
// outermost reduced range; points: the member count; SMs: the target's multiprocessors), 1 for a
// member of at most MIN_MEMBER elements (one block of the walk's largest candidate): members that
// fill the device or fit a block run as before (MEMBER_SPLITS = 1 takes the original body, one
// program a member).
//
// Fires on a kernel whose sole program space holds one execution group with axes (its space the
// product of its extents) whose top-level pgpu.range_reduce ops have equal launch-uniform bounds,
// each a perfect nest over the member's several axes (a channel's N x H x W: a row of one axis is
// left to the covering rule and the staged / packed row paths, which the call picks by its length;
// an element computing beyond its inner reduction is a contraction nest, left to the tiles), and
// constant identities and write no memory, at least one reading another's result (two phases:
// a reduction reading a second-phase one is left alone), whose other top-level ops hold no region
// and whose writes (stores: no results) go to views nothing in the group reads; every result a float
// or an integer of 8 bits or more (an argmax's index has no workspace element type).
// Must not fire otherwise (one phase, a writing loop after the statistics such as a normalization's
// workset, three phases, a read of a view the group writes), nor on a kernel declaring MEMBER_SPLIT.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "SplitPrograms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUSPLITMEMBERREDUCTIONS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::build;

namespace {
using split::member::kSplitParam;
/// Elements of a member that one block holds (BLOCK's largest candidate past which a walk loops).
constexpr int64_t kMinMember = 16384;

struct Plan {
  ProgramSpaceOp space;
  ExecutionGroupOp group;
  SmallVector<RangeReduceOp> reductions;
  /// The first reduction's nest bounds (the member's reduced axes, outermost first).
  SmallVector<Value> nest;
  /// A workset over the member's outer range reading second-phase results (a normalization's
  /// writes): it runs as a third phase, each program its slice.
  ForeachOp workset;
  /// Per top-level op of the group body: the latest phase of reduction results it reads (-1: none;
  /// 0: a first-phase result; 1: a second-phase one). A reduction's own phase is its entry + 1.
  DenseMap<Operation *, int> reads;
};

using split::outside;

/// The bounds of `r`'s perfect nest (the reduced axes of a member over several axes: its element
/// nothing but a range_reduce whose results it yields, down to an element without regions), each
/// launch-uniform; none where the element holds anything else with a region (a contraction's K
/// reduction under a row statistic: pgpu-form-tiles' tiles) or a bound computed in the program.
std::optional<SmallVector<Value>> nestBounds(RangeReduceOp r, ProgramSpaceOp space, Block *body) {
  auto bound = [&](Value v) {
    return outside(v, space) || (r->getBlock() != body && v.getDefiningOp() && v.getDefiningOp()->getBlock() == body);
  };
  if (!bound(r.getLower()) || !bound(r.getUpper()))
    return std::nullopt;
  SmallVector<Value> bounds{r.getUpper()};
  Block &element = r.getElement().front();
  bool regions = false;
  element.walk([&](Operation *op) { regions |= op->getNumRegions() > 0; });
  if (!regions)
    return bounds;
  auto innerReduce = dyn_cast<RangeReduceOp>(&element.front());
  if (!innerReduce || element.getOperations().size() != 2 ||
      element.getTerminator()->getOperands() != ValueRange(innerReduce.getResults()) ||
      !matchPattern(innerReduce.getLower(), m_Zero()))
    return std::nullopt;
  std::optional<SmallVector<Value>> rest = nestBounds(innerReduce, space, body);
  if (!rest)
    return std::nullopt;
  bounds.append(*rest);
  return bounds;
}

int phaseOf(Plan &plan, RangeReduceOp r) { return plan.reads.lookup(r) + 1; }

std::optional<std::string> analyze(KernelOp kernel, Plan &plan) {
  if (std::optional<std::string> why = split::member::oneGroup(kernel, plan.space, plan.group))
    return why;
  ProgramSpaceOp space = plan.space;
  ExecutionGroupOp group = plan.group;
  Block &body = group.getBody().front();
  for (auto r : body.getOps<RangeReduceOp>())
    plan.reductions.push_back(r);
  if (plan.reductions.size() < 2)
    return std::string("fewer than two reductions (no statistic reads another)");
  RangeReduceOp first = plan.reductions.front();
  for (Operation &op : body.without_terminator()) {
    int latest = plan.reads[&op] = split::member::latestPhase<RangeReduceOp>(op, body, plan.reads);
    if (auto r = dyn_cast<RangeReduceOp>(op)) {
      if (!outside(r.getLower(), space) || !outside(r.getUpper(), space))
        return std::string("a reduction's bounds are computed in the program (not launch-uniform)");
      if (!sameLaunchValue(r.getLower(), first.getLower()) || !sameLaunchValue(r.getUpper(), first.getUpper()))
        return std::string("the reductions range over different members");
      // Inner bounds may be computed in the program from no reduction (a group's clipped channel
      // count): each phase computes them again before its slice.
      std::optional<SmallVector<Value>> nest = nestBounds(r, space, &body);
      if (nest)
        for (Value v : ArrayRef<Value>(*nest).drop_front())
          if (!outside(v, space) && plan.reads.lookup(v.getDefiningOp()) != -1)
            nest = std::nullopt;
      if (!nest)
        return std::string("a reduction's element holds a loop or reduction besides a perfect nest (a "
                           "contraction nest: pgpu-form-tiles' tiles)");
      // One reduced axis: a row [0, S) of a view (or [0, w)), which pgpu-form-blocking's covering
      // rule (`covers = "S"`) and pgpu-stage-rows / pgpu-pack-rows' staged and packed paths choose by
      // its length at each call (ROWS rows a program for short rows, the whole row in one fragment
      // where a candidate fits); the split, decided before them, would displace those plans at every
      // length. A member over several axes (a channel's N x H x W) covers no one symbol: the call
      // cannot tell a short member from a long one (ROWS's call default is 1), its walk is its plan.
      if (nest->size() < 2)
        return std::string("the member is reduced over one axis (a row: the call's covering and "
                           "row-packing defaults choose its plan by its length)");
      if (r == first)
        plan.nest = *nest;
      else if (nest->size() != plan.nest.size() ||
               !llvm::all_of(llvm::zip(*nest, plan.nest),
                             [](auto p) { return sameLaunchValue(std::get<0>(p), std::get<1>(p)); }))
        return std::string("the reductions range over different members");
      if (!llvm::all_of(r.getIdentities(), split::isConstantValue))
        return std::string("a reduction's identity is not a constant");
      if (writesMemory(r))
        return std::string("a reduction writes memory");
      for (Type t : r.getResultTypes())
        if (!isa<FloatType>(t) && !(isa<IntegerType>(t) && t.getIntOrFloatBitWidth() >= 8))
          return std::string("a reduction's result is not a float or an integer of 8 bits or more (its "
                             "partials have no workspace element type)");
      if (phaseOf(plan, r) > 1)
        return std::string("a reduction reads a second-phase reduction (three phases)");
    } else if (auto w = dyn_cast<ForeachOp>(op); w && !plan.workset && !plan.reductions.empty() &&
                                                  latest == 1 && matchPattern(w.getLower(), m_Zero()) &&
                                                  sameLaunchValue(w.getUpper(), first.getUpper()) &&
                                                  op.getNextNode() == body.getTerminator()) {
      plan.workset = w;
    } else if (op.getNumRegions()) {
      return std::string("a loop or structured op beside the reductions ('") + op.getName().getStringRef().str() +
             "': a workset over the member stays in its program)";
    } else if (writesMemory(&op) && op.getNumResults()) {
      return std::string("an effect with results ('") + op.getName().getStringRef().str() + "')";
    }
  }
  if (split::member::readsWrittenView(body))
    return std::string("the member reads a view it writes");
  if (plan.workset)
    for (Operation &op : body.without_terminator())
      if (&op != plan.workset && writesMemory(&op))
        return std::string("a write beside the normalization's workset (three phases write only in the workset)");
  if (llvm::none_of(plan.reductions, [&](RangeReduceOp r) { return phaseOf(plan, r) == 1; }))
    return std::string("no reduction reads another (one phase: nothing waits)");
  return std::nullopt;
}

/// The member's body by phase: a reduction is merged from its partials by a range_reduce over them.
struct MemberBody : split::member::PhasedBody {
  using PhasedBody::PhasedBody;

  /// A range_reduce over the point's MEMBER_SPLITS partials of reduction `op` in slice order with its
  /// combine.
  void merge(OpBuilder &b, Operation *op, IRMapping &m) override {
    auto r = cast<RangeReduceOp>(op);
    for (auto [v, w] : llvm::zip(r.getResults(), split::mergePartials(b, r, splits, point, buffers[r]).getResults()))
      m.map(v, w);
  }
};

void split(KernelOp kernel, Plan &plan) {
  RangeReduceOp first = plan.reductions.front();
  Location loc = first.getLoc();
  ProgramSpaceOp space = plan.space;
  ExecutionGroupOp group = plan.group;
  OpBuilder b(space);
  IRMapping map;
  LaunchSplits cut =
      launchSplits(b, space, loc, first.getLower(), first.getUpper(), index(b, loc, 1), kSplitParam, map);
  Value points = split::pointCount(b, loc, group, cut.one);
  // Members that fill the device keep their one program: at most ceil(FILL * SMs / points) slices.
  Value splits = split::member::fillSplits(b, loc, kernel, cut, points);
  // A member of at most MIN_MEMBER elements fits one block of the walk's largest candidate (its whole
  // range in one fragment, read once): it keeps its one program.
  // (A member whose inner extent is computed in the program, a group's clipped channels, is counted
  // large: it splits wherever the members underfill the device.)
  if (llvm::all_of(plan.nest, [&](Value e) { return outside(e, space); })) {
    Value elements = cut.one;
    for (Value e : plan.nest)
      elements = bin(b, loc, kir::BinaryKind::Mul, elements, e);
    Value large = cmp(b, loc, kir::CmpPredicate::GT, elements, index(b, loc, kMinMember));
    splits = SelectOp::create(b, loc, large, splits, cut.one).getResult();
  }
  Value on = cmp(b, loc, kir::CmpPredicate::NE, splits, cut.one);
  split::sizePartials(b, loc, on, points, cut.zero, splits, split::member::kPointsSymbol,
                      split::member::kSplitsSymbol);
  // Two phases, or three with a normalization's workset (its slices after the second phase's).
  int64_t phaseCount = plan.workset ? 3 : 2;
  Value members = SelectOp::create(b, loc, on, bin(b, loc, kir::BinaryKind::Mul, splits, index(b, loc, phaseCount)),
                                   cut.one).getResult();
  // Unsplit (MEMBER_SPLITS = 1, one program a member): the body as it was.
  // (the split axis then has one member, 0, the only one equal to `unsplit`: its writes are the
  // member's, as before). The body stays a branch of an if directly in the group, where
  // pgpu-stage-rows still reads a member that fits one block once (an instance norm's plane).
  split::member::Skeleton skeleton = split::member::branchSplit(b, loc, kernel, space, group, on, members, cut.zero);
  Value member = skeleton.member;
  SmallVector<Value> &coords = skeleton.coords;
  SmallVector<Operation *> &ops = skeleton.ops;
  // Split: the point's linear index, this program's phase and slice [begin, end).
  Value point = split::linearPoint(b, loc, coords, group.getExtents());
  split::member::Phase phase = split::member::phaseOf(b, loc, member, splits);
  Value seg = phase.seg;
  Value twice = bin(b, loc, kir::BinaryKind::Add, splits, splits), third;
  if (plan.workset) {
    // members [2 * MEMBER_SPLITS, 3 * MEMBER_SPLITS): the workset's slices
    third = cmp(b, loc, kir::CmpPredicate::GE, member, twice);
    seg = SelectOp::create(b, loc, third, bin(b, loc, kir::BinaryKind::Sub, member, twice), seg).getResult();
  }
  split::Slice mine = split::sliceOf(b, loc, cut, splits, seg);
  Attribute pointsAttr = StringAttr::get(kernel.getContext(), split::member::kPointsSymbol);
  Value tickets = addZeroedCounters(kernel, loc, {pointsAttr});
  Value phaseTickets = addZeroedCounters(kernel, loc, {pointsAttr});
  Value secondTickets = plan.workset ? addZeroedCounters(kernel, loc, {pointsAttr}) : Value();
  MemberBody s(plan.reads, splits, point, seg, mine.begin, mine.end);
  s.ranged = plan.workset;
  for (RangeReduceOp r : plan.reductions)
    s.addPartials(kernel, r);
  if (!plan.workset)
    return split::member::buildPhases(b, loc, s, ops, IRMapping(), phase.early, tickets, phaseTickets);
  // Three phases: the second counts itself; the third waits for it, merges both and writes its slice of
  // the workset; the point's last third-phase arrival returns both counts to 0.
  split::member::buildPhases(b, loc, s, ops, IRMapping(), phase.early, tickets, phaseTickets, [&](Value yes) {
    auto later = IfOp::create(b, loc, TypeRange{}, third);
    {
      OpBuilder::InsertionGuard inner(b);
      b.createBlock(&later.getElseRegion());
      b.setInsertionPoint(YieldOp::create(b, loc));
      IRMapping m;
      s.clone(b, ops, 1, /*effects=*/false, m);
      split::arrive(b, loc, secondTickets, point, yes);
    }
    b.createBlock(&later.getThenRegion());
    b.setInsertionPoint(YieldOp::create(b, loc));
    split::waitFor(b, loc, secondTickets, point, splits, yes);
    IRMapping m;
    s.clone(b, ops, 2, /*effects=*/true, m);
    auto last = LastProgramOp::create(b, loc, tickets, ValueRange{point}, splits);
    b.createBlock(&last.getBody());
    b.setInsertionPoint(YieldOp::create(b, loc));
    split::resetCounts(b, loc, {phaseTickets, secondTickets}, point, yes);
  });
}

struct SplitMemberReductions
    : public tessel::pgpu::impl::PGPUSplitMemberReductionsBase<SplitMemberReductions> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      Plan plan;
      std::optional<std::string> why = analyze(kernel, plan);
      if (remarksEnabled(kernel))
        split::member::remark("pgpu-split-member-reductions", "each member's range", "", "reduction",
                              SmallVector<Operation *>(plan.reductions.begin(), plan.reductions.end()), plan.reads,
                              why);
      if (!why)
        split(kernel, plan);
    }
  }
};
} // namespace
