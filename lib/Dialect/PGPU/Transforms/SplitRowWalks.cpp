//===- SplitRowWalks.cpp - a long row's walked statistics across programs, in two phases ===//
//
// seed 002 §3.2 (rewrite the program space: the ownership of each program
// instance), §4 (an ordinary reduce is associative and commutative: its
// members may be regrouped), seed 000 §4.4 (invocation workspace; acq_rel
// tickets), §8 (no barrier across program instances), ARCHITECTURE §4 (one
// launch: no grid barrier, no second launch).
//
// A row's statistics over one axis (`mean = T.sum(row) / n; var[r] = T.sum((row - mean)^2) / n`,
// corpus 137) are planned by the call: a row that fits a block takes pgpu-stage-rows' staged path
// (ROWS rows a program, pgpu-pack-rows), a longer one the blocked path, where one program walks
// the whole row block by block, once per statistic. With few long rows (64 rows of 4M elements)
// the device runs a few programs, each a long serial walk (issue 41). pgpu-split-member-reductions
// leaves such a row alone (it decides before the row plans, which it would displace at every
// length); here, after them, only the blocked path is split: each row's walk is cut into
// MEMBER_SPLITS contiguous slices of blocks, and the row runs as 2 * MEMBER_SPLITS programs:
//
//   * member m < MEMBER_SPLITS walks slice m of the first-phase walks (those reading no other
//     walk's result) of each of its rows, stores each partial at [row, m] of workspace, counts
//     itself at the row (an atomic add, release);
//   * member MEMBER_SPLITS + m waits, row by row, until the row's count is MEMBER_SPLITS (acquire),
//     merges the first-phase partials in slice order with the walk's combine, runs the pure ops
//     between and walks slice m of the second-phase walks, stores its partials and arrives at the
//     row's ticket; the row's last arrival merges every walk's partials in slice order and runs the
//     row's ops as written (its stores: each output element written once), then returns the
//     first phase's count to 0.
//
// Every program a waiting one waits for precedes it in linear order (the split axis is the fastest,
// the first phase first) and a program space that waits starts its instances in linear order (as
// pgpu-split-member-reductions relies on): the wait ends. The partials merge in a fixed order,
// never by atomics: the same bits on every run at one binding.
//
// MEMBER_SPLITS = max(min(MEMBER_SPLIT, blocks, ceil(8 * SMs / rows)), 1) where the row takes the
// blocked path, 1 where it takes the staged one (a launch fact: the staged test is launch-uniform);
// where it is 1 the program space and the body run as before.
//
// Fires on a kernel whose sole program space holds one execution group, its body pure code and
// then a staged `pgpu.if` (launch-uniform test, no results) whose else-branch is pure code and
// one loop over the program's rows (step 1, its bound `min(.., R)` with R launch-uniform), whose
// body holds blocking walks (a pgpu.for over equal launch-uniform bounds whose step is a declared
// block parameter, carrying one scalar from a constant, each iteration combining a pgpu.reduce of
// its block into it with the reduce's own associative kind), pure ops and stores (writes without
// results, to views no op of the row reads), at least one walk reading another's result and none
// reading a second-phase one. Must not fire otherwise (an author's ordered loop, one phase, three
// phases, a staged test computed from the row), nor on a kernel declaring MEMBER_SPLIT.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "SplitPrograms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUSPLITROWWALKS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::build;

namespace {
using split::member::kSplitParam;

/// Blocks a slice walks at most where rows are many and long: the second phase re-reads each slice from
/// L2 only if the slices the resident first-phase programs stream between its two reads fit there. Corpus
/// 137 (64 rows of 4M f32, BLOCK 8192): 16 slices of 1 MiB a row, about 130 resident first-phase
/// programs streaming ~130 MiB past the H100's 50 MiB of L2 (0.742 ms: the 1 GiB read twice from DRAM);
/// 64 slices of 8 blocks (256 KiB) stream ~33 MiB.
constexpr int64_t kSliceBlocks = 8;
/// MEMBER_SPLIT's declared default here: the largest candidate, so the slices' cap above (and, with few
/// rows, the device's FILL) decides.
constexpr int64_t kDefaultSplit = 64;

struct Plan {
  ProgramSpaceOp space;
  ExecutionGroupOp group;
  IfOp staged;
  ForOp rows;
  /// The row count R of the row loop's bound `min(.., R)`.
  Value rowCount;
  SmallVector<ForOp> walks;
  /// Per op of the row body: the latest phase of walk results it reads (-1: none; 0: a first-phase
  /// result; 1: a second-phase one). A walk's own phase is its entry + 1.
  DenseMap<Operation *, int> reads;
};

/// Whether `v` is the same at every program of the launch: defined before the space, or by pure ops
/// without regions over such values (a block parameter, a staged test of the row length).
bool launchUniform(Value v, ProgramSpaceOp space) {
  if (split::outside(v, space))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumRegions() || !isPure(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value o) { return launchUniform(o, space); });
}

/// The kind of `kind(acc, x)` combining a blocking walk's carry `acc`: an associative, commutative
/// kind that the block's pgpu.reduce (yielding `x`) combines with too.
bool associative(kir::BinaryKind k) {
  using K = kir::BinaryKind;
  return k == K::Add || k == K::Mul || k == K::Max || k == K::Min || k == K::MaxNum || k == K::MinNum ||
         k == K::And || k == K::Or || k == K::Xor;
}

/// The walk's combine: the yielded `kind(acc, x)`, x a pgpu.reduce of the block with the same kind
/// and identity as the carry's constant start; null where `loop` is not such a blocking walk.
BinaryOp walkCombine(ForOp loop, ProgramSpaceOp space) {
  if (loop.getInits().size() != 1 || !split::isConstantValue(loop.getInits()[0]))
    return {};
  Type t = loop.getResult(0).getType();
  if (!isa<FloatType>(t) && !(isa<IntegerType>(t) && t.getIntOrFloatBitWidth() >= 8))
    return {};
  // A blocking walk steps by a declared block parameter (an author's loop never does: its order is
  // the program's, seed 000 §8, and is not regrouped here).
  if (!loop.getStep().getDefiningOp<ParamOp>() || !launchUniform(loop.getLower(), space) ||
      !launchUniform(loop.getUpper(), space))
    return {};
  Block &body = loop.getBody().front();
  Value acc = body.getArgument(1);
  auto combine = body.getTerminator()->getOperand(0).getDefiningOp<BinaryOp>();
  if (!combine || !associative(combine.getKind()) || !acc.hasOneUse())
    return {};
  Value x = combine.getLhs() == acc ? combine.getRhs() : combine.getLhs();
  if (x == acc || (combine.getLhs() != acc && combine.getRhs() != acc))
    return {};
  auto reduce = x.getDefiningOp<ReduceOp>();
  if (!reduce || reduce.getInputs().size() != 1 || reduce->getNumResults() != 1 ||
      reduce.getIdentities().size() != 1 || reduce.getResult(0).getType() != t)
    return {};
  auto inner = reduce.getCombine().front().getTerminator()->getOperand(0).getDefiningOp<BinaryOp>();
  if (!inner || inner.getKind() != combine.getKind())
    return {};
  Attribute start, identity;
  if (!matchPattern(loop.getInits()[0], m_Constant(&start)) ||
      !matchPattern(reduce.getIdentities()[0], m_Constant(&identity)) || start != identity)
    return {};
  bool writes = false;
  loop.getBody().walk([&](Operation *op) { writes |= !op->getNumRegions() && writesMemory(op); });
  return writes ? BinaryOp() : combine;
}

int phaseOf(Plan &plan, ForOp w) { return plan.reads.lookup(w) + 1; }

/// The `T` ending `block` (before its terminator) after pure code without regions; else null.
template <typename T>
T endingOp(Block &block) {
  for (Operation &op : block.without_terminator()) {
    if (auto t = dyn_cast<T>(op); t && op.getNextNode() == block.getTerminator())
      return t;
    if (op.getNumRegions() || !isPure(&op))
      return {};
  }
  return {};
}

std::optional<std::string> analyze(KernelOp kernel, Plan &plan) {
  if (std::optional<std::string> why = split::member::oneGroup(kernel, plan.space, plan.group))
    return why;
  ProgramSpaceOp space = plan.space;
  plan.staged = endingOp<IfOp>(plan.group.getBody().front());
  if (!plan.staged || plan.staged->getNumResults() || plan.staged.getElseRegion().empty())
    return std::string("no staged row path (pure code, then a pgpu.if without results, with a blocked branch) ends "
                       "the group");
  if (!launchUniform(plan.staged.getCondition(), space))
    return std::string("the staged test depends on the row (its paths are chosen per program)");
  plan.rows = endingOp<ForOp>(plan.staged.getElseRegion().front());
  if (!plan.rows || !plan.rows.getInits().empty() || !matchPattern(plan.rows.getStep(), m_One()))
    return std::string("the blocked path is not pure code, then a loop over the program's rows");
  auto bound = plan.rows.getUpper().getDefiningOp<BinaryOp>();
  if (bound && bound.getKind() == kir::BinaryKind::Min)
    plan.rowCount = launchUniform(bound.getRhs(), space) ? bound.getRhs()
                    : launchUniform(bound.getLhs(), space) ? bound.getLhs()
                                                           : Value();
  if (!plan.rowCount)
    return std::string("the row loop's bound is not min(.., R) of a launch-uniform row count");

  Block &row = plan.rows.getBody().front();
  for (Operation &op : row.without_terminator()) {
    plan.reads[&op] = split::member::latestPhase<ForOp>(op, row, plan.reads);
    if (auto w = dyn_cast<ForOp>(op)) {
      if (!walkCombine(w, space))
        return std::string("a loop in the row is not a blocking walk combining its blocks' reductions");
      if (!plan.walks.empty() && (!sameLaunchValue(w.getLower(), plan.walks[0].getLower()) ||
                                  !sameLaunchValue(w.getUpper(), plan.walks[0].getUpper()) ||
                                  !sameLaunchValue(w.getStep(), plan.walks[0].getStep())))
        return std::string("the walks range over different blocks");
      if (phaseOf(plan, w) > 1)
        return std::string("a walk reads a second-phase walk (three phases)");
      plan.walks.push_back(w);
    } else if (op.getNumRegions()) {
      return std::string("a structured op in the row besides its walks ('") + op.getName().getStringRef().str() + "')";
    } else if (writesMemory(&op) && op.getNumResults()) {
      return std::string("an effect with results ('") + op.getName().getStringRef().str() + "')";
    } else if (!writesMemory(&op) && !isPure(&op) && !isa<LoadOp>(op)) {
      return std::string("an op in the row that is neither pure, a read nor a write ('") +
             op.getName().getStringRef().str() + "')";
    }
  }
  if (split::member::readsWrittenView(row))
    return std::string("the row reads a view it writes");
  if (plan.walks.size() < 2 || llvm::none_of(plan.walks, [&](ForOp w) { return phaseOf(plan, w) == 1; }))
    return std::string("no walk reads another (one phase: nothing waits)");
  return std::nullopt;
}

/// The row body by phase: a walk is merged from its partials by a walk over them.
struct RowBody : split::member::PhasedBody {
  Plan &plan;
  RowBody(Plan &plan, Value splits, Value row, Value seg, Value begin, Value end)
      : PhasedBody(plan.reads, splits, row, seg, begin, end), plan(plan) {}

  /// A walk over the row's MEMBER_SPLITS partials of walk `op` in slice order with its combine.
  void merge(OpBuilder &b, Operation *op, IRMapping &m) override {
    auto w = cast<ForOp>(op);
    Location loc = w.getLoc();
    BinaryOp combine = walkCombine(w, plan.space);
    Value start = m.lookupOrDefault(w.getInits()[0]);
    auto loop = ForOp::create(b, loc, TypeRange{start.getType()}, index(b, loc, 0), splits, index(b, loc, 1),
                              ValueRange{start});
    OpBuilder::InsertionGuard guard(b);
    Block *step = b.createBlock(&loop.getBody());
    Value at = step->addArgument(b.getIndexType(), loc);
    Value acc = step->addArgument(start.getType(), loc);
    Value ok = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    Value part = BufferLoadOp::create(b, loc, start.getType(), buffers[w][0], ValueRange{point, at}, ok, start);
    YieldOp::create(b, loc, bin(b, loc, combine.getKind(), acc, part));
    m.map(w.getResult(0), loop.getResult(0));
  }
};

void split(KernelOp kernel, Plan &plan) {
  ForOp first = plan.walks.front();
  Location loc = first.getLoc();
  ProgramSpaceOp space = plan.space;
  ExecutionGroupOp group = plan.group;
  OpBuilder b(space);
  IRMapping map;
  // blocks = ceil(max(U - L, 0) / BLOCK); at most max(ceil(FILL * SMs / rows), ceil(blocks / SLICE))
  // slices a row: the second phase re-reads its slice right after the row's first phase, so slices of
  // at most kSliceBlocks blocks keep what the resident first-phase programs stream within L2.
  LaunchSplits cut = launchSplits(b, space, loc, first.getLower(), first.getUpper(), first.getStep(), kSplitParam, map);
  Value rows = hoistLaunchValue(b, space, plan.rowCount, map);
  Value splits = split::member::fillSplits(b, loc, kernel, cut, rows, kSliceBlocks);
  // A row on the staged path (it fits one block) keeps its program: one slice.
  Value staged = hoistLaunchValue(b, space, plan.staged.getCondition(), map);
  splits = SelectOp::create(b, loc, staged, cut.one, splits).getResult();
  Value on = cmp(b, loc, kir::CmpPredicate::NE, splits, cut.one);
  split::sizePartials(b, loc, on, rows, cut.zero, splits, split::member::kPointsSymbol, split::member::kSplitsSymbol);
  Value members = SelectOp::create(b, loc, on, bin(b, loc, kir::BinaryKind::Add, splits, splits), cut.one).getResult();
  Value member = split::member::spread(b, loc, kernel, space, group, members, kDefaultSplit);

  // Unsplit (MEMBER_SPLITS = 1, the only member 0): the staged if as it was, under member == 0
  // (no member where split: each element is written by one program). Split: the blocked path's
  // code again, its row loop's body by phase.
  Block &body = group.getBody().front();
  b.setInsertionPoint(body.getTerminator());
  Value unsplit = SelectOp::create(b, loc, on, members, cut.zero).getResult();
  auto whole = IfOp::create(b, loc, TypeRange{}, cmp(b, loc, kir::CmpPredicate::EQ, member, unsplit));
  b.createBlock(&whole.getThenRegion());
  auto wholeEnd = YieldOp::create(b, loc);
  plan.staged->moveBefore(wholeEnd);
  b.setInsertionPointAfter(whole);
  auto choice = IfOp::create(b, loc, TypeRange{}, on);
  b.createBlock(&choice.getThenRegion());
  auto splitEnd = YieldOp::create(b, loc);
  b.setInsertionPoint(splitEnd);
  IRMapping outer;
  for (Operation &op : plan.staged.getElseRegion().front().without_terminator())
    b.clone(op, outer);
  auto rowsCopy = cast<ForOp>(outer.lookup(plan.rows.getOperation()));
  Block &row = plan.rows.getBody().front();
  Block &rowCopy = rowsCopy.getBody().front();
  // The copy's row body is rebuilt by phase below (erased back to front: later ops use earlier ones).
  while (rowCopy.getOperations().size() > 1)
    rowCopy.getTerminator()->getPrevNode()->erase();
  b.setInsertionPoint(rowCopy.getTerminator());
  Value rowIndex = rowCopy.getArgument(0);
  // The blocked path's values outside the row and the row index, mapped to their copies.
  IRMapping base;
  for (Operation &op : plan.staged.getElseRegion().front().without_terminator())
    for (Value v : op.getResults())
      base.map(v, outer.lookup(v));
  base.map(row.getArgument(0), rowIndex);
  split::member::Phase phase = split::member::phaseOf(b, loc, member, splits);
  // Slice `seg`'s blocks: chunk = ceil(blocks / MEMBER_SPLITS) blocks from the walk's lower bound.
  split::Slice mine = split::sliceOf(b, loc, cut, splits, phase.seg, cut.step);
  Attribute pointsAttr = StringAttr::get(kernel.getContext(), split::member::kPointsSymbol);
  Value tickets = addZeroedCounters(kernel, loc, {pointsAttr});
  Value phaseTickets = addZeroedCounters(kernel, loc, {pointsAttr});
  RowBody s(plan, splits, rowIndex, phase.seg, mine.begin, mine.end);
  for (ForOp w : plan.walks)
    s.addPartials(kernel, w);
  SmallVector<Operation *> ops;
  for (Operation &op : row.without_terminator())
    ops.push_back(&op);
  split::member::buildPhases(b, loc, s, ops, base, phase.early, tickets, phaseTickets);
}

struct SplitRowWalks : public tessel::pgpu::impl::PGPUSplitRowWalksBase<SplitRowWalks> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      Plan plan;
      std::optional<std::string> why = analyze(kernel, plan);
      if (remarksEnabled(kernel))
        split::member::remark("pgpu-split-row-walks", "the row's blocked walk", " of blocks", "walk",
                              SmallVector<Operation *>(plan.walks.begin(), plan.walks.end()), plan.reads, why);
      if (!why)
        split(kernel, plan);
    }
  }
};
} // namespace
