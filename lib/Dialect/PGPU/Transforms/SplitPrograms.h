//===- SplitPrograms.h - a point's work cut across programs, its partials merged -*- C++ -*-===//
//
// What pgpu-split-folds, pgpu-split-row-reductions, pgpu-split-member-reductions and
// pgpu-split-row-walks share: a group's points gain a trailing (fastest) axis of programs (seed 002
// §3.2: the ownership of each program instance), each taking one contiguous slice of the point's
// reduced range, storing its partial at [point, slice] of invocation workspace (seed 000 §4.4) and the
// point's last arrival merging the partials in slice order with the reduction's own combine (seed 002
// §4: same bits on every run). The last two split a point's statistics in two phases under one
// decision, MEMBER_SPLIT (namespace `member` below). The helpers build the IR in the order the passes
// always built it, so the generated sources are unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_SPLITPROGRAMS_H
#define TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_SPLITPROGRAMS_H

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tessel::pgpu::split {

/// Whether `v` is defined outside `space` (before the program space: the same at every program).
inline bool outside(mlir::Value v, ProgramSpaceOp space) {
  return !space->isAncestor(v.getParentRegion()->getParentOp());
}

/// Whether `v` is a compile-time constant: a constant, or a splat or broadcast of one (a
/// reduction's identity that each slice may start from).
inline bool isConstantValue(mlir::Value v) {
  if (mlir::matchPattern(v, mlir::m_Constant()))
    return true;
  mlir::Operation *def = v.getDefiningOp();
  return def && mlir::isa<SplatOp, BroadcastOp>(def) && isConstantValue(def->getOperand(0));
}

/// The number of points of `group`: the product of its extents (`one` for a group without axes, a
/// kernel-level statement).
inline mlir::Value pointCount(mlir::OpBuilder &b, mlir::Location loc, ExecutionGroupOp group, mlir::Value one) {
  if (group.getExtents().empty())
    return one;
  mlir::Value points = group.getExtents().front();
  for (mlir::Value e : group.getExtents().drop_front())
    points = build::bin(b, loc, kir::BinaryKind::Mul, points, e);
  return points;
}

/// Sizes the partials' workspace [pointsSymbol, splitsSymbol]: no points where the split is off
/// (`on` false: the partials are never written).
inline void sizePartials(mlir::OpBuilder &b, mlir::Location loc, mlir::Value on, mlir::Value points, mlir::Value zero,
                         mlir::Value splits, llvm::StringRef pointsSymbol, llvm::StringRef splitsSymbol) {
  WorkspaceExtentOp::create(b, loc, pointsSymbol, SelectOp::create(b, loc, on, points, zero).getResult());
  WorkspaceExtentOp::create(b, loc, splitsSymbol, splits);
}

/// Appends the trailing axis of `members` programs with role `role` to `group` and returns its
/// coordinate (the body's new argument).
inline mlir::Value appendSplitAxis(ExecutionGroupOp group, mlir::Value members, llvm::StringRef role,
                                   mlir::Location loc) {
  mlir::MLIRContext *ctx = group.getContext();
  llvm::SmallVector<mlir::Value> extents(group.getExtents());
  extents.push_back(members);
  group.getExtentsMutable().assign(extents);
  llvm::SmallVector<mlir::Attribute> roles(group.getRoles().begin(), group.getRoles().end());
  roles.push_back(mlir::StringAttr::get(ctx, role));
  group.setRolesAttr(mlir::ArrayAttr::get(ctx, roles));
  return group.getBody().front().addArgument(mlir::IndexType::get(ctx), loc);
}

/// The row-major linear index of the point at `coords` over `extents` (the group's axes before the
/// split axis); 0 for a group without axes.
inline mlir::Value linearPoint(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<mlir::Value> coords,
                               mlir::ValueRange extents) {
  if (coords.empty())
    return build::index(b, loc, 0);
  mlir::Value point = coords.front();
  for (auto [c, e] : llvm::zip(coords.drop_front(), extents.drop_front()))
    point = build::bin(b, loc, kir::BinaryKind::Add, build::bin(b, loc, kir::BinaryKind::Mul, point, e), c);
  return point;
}

/// Slice `seg` of `cut`'s range in `splits` contiguous slices: [begin, end) of
/// chunk = ceil(steps / splits) steps (times `step` where given: a blocked walk's slice counts blocks),
/// clipped to the range (the last slices may be empty).
struct Slice {
  mlir::Value begin, end;
};
inline Slice sliceOf(mlir::OpBuilder &b, mlir::Location loc, const LaunchSplits &cut, mlir::Value splits,
                     mlir::Value seg, mlir::Value step = {}) {
  mlir::Value chunk = CeilDivOp::create(b, loc, cut.steps, splits).getResult();
  if (step)
    chunk = build::bin(b, loc, kir::BinaryKind::Mul, chunk, step);
  mlir::Value begin = build::bin(
      b, loc, kir::BinaryKind::Min,
      build::bin(b, loc, kir::BinaryKind::Add, cut.lower, build::bin(b, loc, kir::BinaryKind::Mul, seg, chunk)),
      cut.upper);
  mlir::Value end =
      build::bin(b, loc, kir::BinaryKind::Min, build::bin(b, loc, kir::BinaryKind::Add, begin, chunk), cut.upper);
  return {begin, end};
}

/// A range_reduce over `splits` partials of `r` (`buffers`: one workspace per result, indexed by
/// `lead` then the slice) in slice order with `r`'s combine, from `r`'s identities.
inline RangeReduceOp mergePartials(mlir::OpBuilder &b, RangeReduceOp r, mlir::Value splits, mlir::ValueRange lead,
                                   llvm::ArrayRef<mlir::Value> buffers) {
  mlir::Location loc = r.getLoc();
  auto whole = RangeReduceOp::create(b, loc, r.getResultTypes(), build::index(b, loc, 0), splits, r.getIdentities());
  mlir::OpBuilder::InsertionGuard guard(b);
  mlir::Block *element = b.createBlock(&whole.getElement(), {}, {b.getIndexType()}, {loc});
  llvm::SmallVector<mlir::Value> coords(lead.begin(), lead.end());
  coords.push_back(element->getArgument(0));
  llvm::SmallVector<mlir::Value> loaded;
  for (auto [v, buffer] : llvm::zip(r.getResults(), buffers)) {
    mlir::Type t = v.getType();
    mlir::Value fill = mlir::isa<mlir::FloatType>(t)
                           ? mlir::Value(mlir::arith::ConstantOp::create(b, loc, mlir::FloatAttr::get(t, 0.0)))
                           : mlir::Value(mlir::arith::ConstantOp::create(b, loc, mlir::IntegerAttr::get(t, 0)));
    mlir::Value ok = mlir::arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    loaded.push_back(BufferLoadOp::create(b, loc, t, buffer, coords, ok, fill));
  }
  YieldOp::create(b, loc, loaded);
  mlir::IRMapping combine;
  r.getCombine().cloneInto(&whole.getCombine(), combine);
  return whole;
}

/// Adds 1 to `counts[point]` (release): this program's partials are stored (seed 000 §4.4: acq_rel
/// tickets in invocation workspace).
inline void arrive(mlir::OpBuilder &b, mlir::Location loc, mlir::Value counts, mlir::Value point, mlir::Value yes) {
  mlir::Value one = mlir::arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
  AtomicRMWOp::create(b, loc, b.getI32Type(), kir::RMWKind::Add, one, counts, mlir::ValueRange{point}, yes,
                      kir::AtomicOrder::Release, kir::SharingDomain::Invocation);
}

/// Waits until `counts[point]` is `splits` (acquire): the earlier phase's partials are stored. The
/// programs waited for precede the waiting one in linear order, which a waiting program space starts in
/// order: the wait ends (seed 000 §8: there is no barrier across program instances).
inline void waitFor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value counts, mlir::Value point, mlir::Value splits,
                    mlir::Value yes) {
  mlir::Value want = CastOp::create(b, loc, b.getI32Type(), splits);
  auto wait = WhileOp::create(b, loc, mlir::TypeRange{}, mlir::ValueRange{});
  mlir::OpBuilder::InsertionGuard inner(b);
  b.createBlock(&wait.getBefore());
  mlir::Value seen = AtomicLoadOp::create(b, loc, b.getI32Type(), counts, point, yes, kir::AtomicOrder::Acquire,
                                          kir::SharingDomain::Invocation);
  ConditionOp::create(b, loc, build::cmp(b, loc, kir::CmpPredicate::LT, seen, want), mlir::ValueRange{});
  b.createBlock(&wait.getAfter());
  YieldOp::create(b, loc);
}

/// Returns each of `counts` to 0 at `point` (release), as the next launch expects them.
inline void resetCounts(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<mlir::Value> counts, mlir::Value point,
                        mlir::Value yes) {
  mlir::Value zero = mlir::arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  for (mlir::Value c : counts)
    AtomicStoreOp::create(b, loc, zero, c, mlir::ValueRange{point}, yes, kir::AtomicOrder::Release,
                          kir::SharingDomain::Invocation);
}

/// The two-phase split of a point's statistics (pgpu-split-row-walks: a row's blocked walks;
/// pgpu-split-member-reductions: a member's reductions), one decision: MEMBER_SPLIT.
namespace member {
constexpr llvm::StringLiteral kSplitParam = "MEMBER_SPLIT", kSplitsSymbol = "MEMBER_SPLITS",
                              kPointsSymbol = "MEMBER_POINTS";
/// Programs a multiprocessor the split aims at (each walks one slice, its loads in flight).
constexpr int64_t kFill = 8;

/// max(min(`cut`'s splits, ceil(FILL * SMs / max(points, 1))), 1) (SMs: the target's multiprocessors, 1
/// where unknown): points that fill the device keep their one program. With `sliceBlocks` (> 0) the cap
/// is at least ceil(blocks / sliceBlocks): slices of at most that many blocks however many points.
inline mlir::Value fillSplits(mlir::OpBuilder &b, mlir::Location loc, KernelOp kernel, const LaunchSplits &cut,
                              mlir::Value points, int64_t sliceBlocks = 0) {
  auto target =
      kernel->getParentOfType<mlir::ModuleOp>()->getAttrOfType<TargetAttr>(PGPUDialect::getTargetAttrName());
  int64_t sms = target && target.getMultiprocessors() > 0 ? target.getMultiprocessors() : 1;
  mlir::Value fill = CeilDivOp::create(b, loc, build::index(b, loc, kFill * sms),
                                       build::bin(b, loc, kir::BinaryKind::Max, points, cut.one))
                         .getResult();
  if (sliceBlocks > 0)
    fill = build::bin(b, loc, kir::BinaryKind::Max, fill,
                      CeilDivOp::create(b, loc, cut.steps, build::index(b, loc, sliceBlocks)).getResult());
  return build::bin(b, loc, kir::BinaryKind::Max, build::bin(b, loc, kir::BinaryKind::Min, cut.splits, fill),
                    cut.one);
}

/// Runs each point of `group` as `members` programs (the program space's extent times `members`, the
/// group's trailing axis "member_split"), declares MEMBER_SPLIT (default `defaultSplit`) and returns the
/// member's coordinate.
inline mlir::Value spread(mlir::OpBuilder &b, mlir::Location loc, KernelOp kernel, ProgramSpaceOp space,
                          ExecutionGroupOp group, mlir::Value members, int64_t defaultSplit = 16) {
  mlir::MLIRContext *ctx = kernel.getContext();
  space->setOperand(0, build::bin(b, loc, kir::BinaryKind::Mul, space.getExtents()[0], members));
  mlir::Value member = appendSplitAxis(group, members, "member_split", loc);
  declareParam(kernel, ParamAttr::get(ctx, mlir::StringAttr::get(ctx, kSplitParam), {1, 2, 4, 8, 16, 32, 64},
                                      defaultSplit, mlir::StringAttr()));
  return member;
}

/// The skeleton both member splits build (pgpu-split-member-reductions, pgpu-split-member-worksets): each
/// point of `group` as `members` programs (`spread`, default MEMBER_SPLIT `defaultSplit`); the group's body
/// as it was moved into an if only the unsplit member takes (`on` false: MEMBER_SPLITS = 1, one program a
/// point, member 0); before it an if on `on` whose then-block, ending at `splitEnd`, the caller fills with
/// the split phases (`coords`: the group's coordinates before the split axis; `ops`: the body's ops, now
/// the unsplit branch's, for the phases to clone).
struct Skeleton {
  mlir::Value member;
  mlir::Operation *splitEnd;
  llvm::SmallVector<mlir::Value> coords;
  llvm::SmallVector<mlir::Operation *> ops;
};
inline Skeleton branchSplit(mlir::OpBuilder &b, mlir::Location loc, KernelOp kernel, ProgramSpaceOp space,
                            ExecutionGroupOp group, mlir::Value on, mlir::Value members, mlir::Value zero,
                            int64_t defaultSplit = 16) {
  mlir::Block &body = group.getBody().front();
  Skeleton out{mlir::Value(), nullptr, llvm::SmallVector<mlir::Value>(body.getArguments()), {}};
  out.member = spread(b, loc, kernel, space, group, members, defaultSplit); // after: coords, not its axis
  for (mlir::Operation &op : body.without_terminator())
    out.ops.push_back(&op);
  b.setInsertionPointToStart(&body);
  auto choice = IfOp::create(b, loc, mlir::TypeRange{}, on);
  b.createBlock(&choice.getThenRegion());
  out.splitEnd = YieldOp::create(b, loc);
  b.setInsertionPointAfter(choice);
  mlir::Value unsplit = SelectOp::create(b, loc, on, members, zero).getResult();
  auto whole = IfOp::create(b, loc, mlir::TypeRange{}, build::cmp(b, loc, kir::CmpPredicate::EQ, out.member, unsplit));
  b.createBlock(&whole.getThenRegion());
  auto wholeEnd = YieldOp::create(b, loc);
  for (mlir::Operation *op : out.ops)
    op->moveBefore(wholeEnd);
  b.setInsertionPoint(out.splitEnd);
  return out;
}

/// The kernel's sole program space of one extent and its one execution group with axes over the whole
/// space (extents defined before it), in `space` and `group`, where the kernel declares no MEMBER_SPLIT;
/// else why not.
inline std::optional<std::string> oneGroup(KernelOp kernel, ProgramSpaceOp &space, ExecutionGroupOp &group) {
  llvm::SmallVector<ProgramSpaceOp> spaces(kernel.getBody().getOps<ProgramSpaceOp>());
  if (spaces.size() != 1)
    return std::string("the kernel has several program spaces");
  if (spaces[0].getExtents().size() != 1)
    return std::string("the program space has several extents");
  llvm::SmallVector<ExecutionGroupOp> groups(spaces[0].getBody().front().getOps<ExecutionGroupOp>());
  if (groups.size() != 1 || groups[0].getExtents().empty())
    return std::string("the program space is not one execution group with axes");
  if (groups[0]->getOperand(0) != spaces[0].getBody().front().getArgument(0))
    return std::string("the group is not the whole program space");
  if (groups[0].getExtents().size() == 1 && groups[0].getExtents()[0] != spaces[0].getExtents()[0])
    return std::string("the group's extent is not the program space's");
  for (mlir::Value e : groups[0].getExtents())
    if (!outside(e, spaces[0]))
      return std::string("a group extent is computed in the program");
  if (kernel.getParam(kSplitParam))
    return std::string("the kernel declares MEMBER_SPLIT already");
  space = spaces[0];
  group = groups[0];
  return std::nullopt;
}

/// The latest phase of split results (`SplitOp`s of `body`) that `op`, its regions included, reads: -1
/// none, else the phase of the latest (a split op's own phase is its `reads` entry + 1).
template <typename SplitOp>
int latestPhase(mlir::Operation &op, mlir::Block &body, const llvm::DenseMap<mlir::Operation *, int> &reads) {
  int latest = -1;
  op.walk([&](mlir::Operation *inner) {
    for (mlir::Value v : inner->getOperands()) {
      mlir::Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != &body)
        continue;
      latest = std::max(latest, reads.lookup(def) + (mlir::isa<SplitOp>(def) ? 1 : 0));
    }
  });
  return latest;
}

/// Whether an op of `body` (its regions included) reads a view one of them writes: the merged body
/// would read what the last arrival writes.
inline bool readsWrittenView(mlir::Block &body) {
  llvm::DenseSet<mlir::Value> written, read;
  for (mlir::Operation &op : body.without_terminator())
    op.walk([&](mlir::Operation *inner) {
      bool writes = !inner->getNumRegions() && writesMemory(inner);
      for (mlir::Value v : inner->getOperands())
        if (mlir::isa<ViewType>(v.getType()))
          (writes ? written : read).insert(v);
    });
  return llvm::any_of(written, [&](mlir::Value v) { return read.contains(v); });
}

/// Member m < MEMBER_SPLITS runs the first phase (`early`), MEMBER_SPLITS + m the second; `seg`: m.
struct Phase {
  mlir::Value early, seg;
};
inline Phase phaseOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value member, mlir::Value splits) {
  mlir::Value early = build::cmp(b, loc, kir::CmpPredicate::LT, member, splits);
  mlir::Value seg =
      SelectOp::create(b, loc, early, member, build::bin(b, loc, kir::BinaryKind::Sub, member, splits)).getResult();
  return {early, seg};
}

/// A point's body cloned by phase. Its split ops (the walks or reductions, operands 0 and 1 their
/// range) of the first phase read no other's result, those of the second a first-phase one.
struct PhasedBody {
  /// Per op of the body: the latest phase of split results it reads (-1: none; 0: a first-phase result;
  /// 1: a second-phase one). A split op's own phase is its entry + 1.
  const llvm::DenseMap<mlir::Operation *, int> &reads;
  /// MEMBER_SPLITS, the point's linear index, this program's slice and its range [begin, end).
  mlir::Value splits, point, seg, begin, end;
  /// An op the last phase runs over this program's slice (operands 0 and 1 its range: a
  /// normalization's workset over the member), or null.
  mlir::Operation *ranged = nullptr;
  /// Per split op: its partials' workspace [MEMBER_POINTS, MEMBER_SPLITS], one per result.
  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<mlir::Value>> buffers;

  PhasedBody(const llvm::DenseMap<mlir::Operation *, int> &reads, mlir::Value splits, mlir::Value point,
             mlir::Value seg, mlir::Value begin, mlir::Value end)
      : reads(reads), splits(splits), point(point), seg(seg), begin(begin), end(end) {}
  virtual ~PhasedBody() = default;

  /// Maps `op`'s results in `m` to the merges of its MEMBER_SPLITS partials in slice order.
  virtual void merge(mlir::OpBuilder &b, mlir::Operation *op, mlir::IRMapping &m) = 0;

  int phaseOf(mlir::Operation *op) const { return reads.lookup(op) + 1; }

  /// Makes `op` a split op: one workspace of partials per result.
  void addPartials(KernelOp kernel, mlir::Operation *op) {
    mlir::MLIRContext *ctx = kernel.getContext();
    mlir::Attribute points = mlir::StringAttr::get(ctx, kPointsSymbol), splits = mlir::StringAttr::get(ctx, kSplitsSymbol);
    llvm::SmallVector<mlir::Value> &mine = buffers[op];
    for (mlir::Value v : op->getResults())
      mine.push_back(addWorkspace(kernel, op->getLoc(), v.getType(), {points, splits}, mlir::TypedAttr()));
  }

  /// `op` over this program's slice [begin, end), its partials stored at [point, seg].
  void slice(mlir::OpBuilder &b, mlir::Operation *op, mlir::IRMapping &m) {
    mlir::Operation *part = b.clone(*op, m);
    part->setOperand(0, begin);
    part->setOperand(1, end);
    mlir::Value yes = mlir::arith::ConstantIntOp::create(b, op->getLoc(), b.getI1Type(), 1);
    for (auto [v, buffer] : llvm::zip(part->getResults(), buffers[op]))
      BufferStoreOp::create(b, op->getLoc(), v, buffer, mlir::ValueRange{point, seg}, yes);
  }

  /// Clones `ops` into `b`: split ops of phase < `sliced` merged from their partials, those of phase
  /// `sliced` cut to this program's slice, later ones and the ops reading them left out; writes kept
  /// only when `effects`.
  void clone(mlir::OpBuilder &b, llvm::ArrayRef<mlir::Operation *> ops, int sliced, bool effects,
             mlir::IRMapping &m) {
    for (mlir::Operation *op : ops) {
      if (buffers.count(op)) {
        int phase = phaseOf(op);
        if (phase < sliced)
          merge(b, op, m);
        else if (phase == sliced)
          slice(b, op, m);
        continue;
      }
      if (reads.lookup(op) >= sliced)
        continue;
      if (writesMemory(op) && !effects)
        continue;
      mlir::Operation *copy = b.clone(*op, m);
      if (op == ranged) {
        copy->setOperand(0, begin);
        copy->setOperand(1, end);
      }
    }
  }
};

/// The phases of a split point, from `body`'s `ops` (`base`: the values around them already copied).
/// The first (`early`) runs its slice of the first-phase ops and counts itself at `phaseTickets`; the
/// second waits for that count, then runs `later(yes)` where given, else its slice of the second-phase
/// ops and arrives at `tickets`, whose last arrival runs the whole body (every partial merged, the writes
/// as written: each output element written once) and returns the count to 0.
inline void buildPhases(mlir::OpBuilder &b, mlir::Location loc, PhasedBody &body, llvm::ArrayRef<mlir::Operation *> ops,
                        const mlir::IRMapping &base, mlir::Value early, mlir::Value tickets, mlir::Value phaseTickets,
                        llvm::function_ref<void(mlir::Value)> later = {}) {
  mlir::Value yes = mlir::arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  auto phases = IfOp::create(b, loc, mlir::TypeRange{}, early);
  mlir::OpBuilder::InsertionGuard guard(b);
  b.createBlock(&phases.getThenRegion());
  b.setInsertionPoint(YieldOp::create(b, loc));
  mlir::IRMapping first = base;
  body.clone(b, ops, 0, /*effects=*/false, first);
  arrive(b, loc, phaseTickets, body.point, yes);

  b.createBlock(&phases.getElseRegion());
  b.setInsertionPoint(YieldOp::create(b, loc));
  waitFor(b, loc, phaseTickets, body.point, body.splits, yes);
  if (later)
    return later(yes);
  mlir::IRMapping second = base;
  body.clone(b, ops, 1, /*effects=*/false, second);
  auto last = LastProgramOp::create(b, loc, tickets, mlir::ValueRange{body.point}, body.splits);
  b.createBlock(&last.getBody());
  b.setInsertionPoint(YieldOp::create(b, loc));
  mlir::IRMapping all = base;
  body.clone(b, ops, 2, /*effects=*/true, all);
  resetCounts(b, loc, {phaseTickets}, body.point, yes);
}

/// Remarks of a two-phase split pass `pass` at the split ops `ops`: why not (at the last, where there
/// are two or more), or each one's phase; `whole` is what is cut into MEMBER_SPLITS contiguous slices
/// (`unit`: what they hold, " of blocks", or empty), `noun` what an op is.
inline void remark(llvm::StringRef pass, llvm::StringRef whole, llvm::StringRef unit, llvm::StringRef noun,
                   llvm::ArrayRef<mlir::Operation *> ops, const llvm::DenseMap<mlir::Operation *, int> &reads,
                   const std::optional<std::string> &why) {
  if (why) {
    if (ops.size() >= 2)
      ops.back()->emitRemark() << pass << ": not split: " << *why;
    return;
  }
  for (mlir::Operation *op : ops)
    op->emitRemark() << pass << ": " << whole << " is cut into " << kSplitsSymbol << " contiguous slices"
                     << unit << "; this " << noun << "'s slices run in "
                     << (reads.lookup(op) + 1 == 0 ? "the first phase" : "the second phase (after a wait)")
                     << ", one program each, each storing its partial to workspace [" << kPointsSymbol << ", "
                     << kSplitsSymbol << "]; the partials merge in slice order with the " << noun << "'s combine";
}
} // namespace member

} // namespace tessel::pgpu::split

#endif // TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_SPLITPROGRAMS_H
