//===- SplitMemberWorksets.cpp - a member's chain of worksets across programs, one phase each ===//
//
// seed 000 §5 (a workset's iterations carry nothing and do not conflict: any of them may run in any
// program), §4.4 (invocation workspace; acq_rel tickets), §8 (no barrier across program instances);
// seed 002 §3.2 (rewrite the program space: the ownership of each program instance); ARCHITECTURE §4
// (one launch: no grid barrier, no second launch).
//
// A parallel member whose tensors are kept in workspace (kir-row-parallels: a squeeze-excitation's
// channel means s[n, c] over H x W, then h[n, r] from all of s, then the gate a[n, c] from all of h,
// then out[n, c, h, w] from a[n, c]) is constructed as a chain of top-level pgpu.foreach worksets in
// the member's group, each writing a workspace buffer at the member's point and reading what earlier
// ones wrote. One program runs the member's whole chain: with few members (64 images of 240 x 28 x
// 28 floats, corpus 249) the device runs a few programs, each a long serial walk. Here a workset's
// phase is one more than the latest phase whose buffers it reads (0: none), and each member runs as
// PHASES * MEMBER_SPLITS programs: program k runs phase p = k / MEMBER_SPLITS, slice
// s = k % MEMBER_SPLITS of each of that phase's worksets (ceil(range / MEMBER_SPLITS) iterations);
// a program of phase p > 0 first waits until the point's count is p * MEMBER_SPLITS (acquire), every
// program of a phase before the last counts itself when its slice is stored (release), and the last
// phase's last arrival at the point's ticket returns the count to 0. The count reaches
// p * MEMBER_SPLITS only after every program of phases < p arrived (a phase's programs arrive only
// after the wait for the one before). Every program a waiting one waits for precedes it in linear
// order (the split axis is the fastest, phases in order) and a program space that waits starts its
// instances in linear order: the wait ends. Nothing is merged: each iteration runs once, as written,
// so the values are the same bits as the one-program chain's.
//
// MEMBER_SPLITS = max(min(MEMBER_SPLIT, steps, ceil(FILL * SMs / points)), 1) (steps: the first
// workset's range), 1 where the first phase's worksets walk at most MIN_MEMBER elements a member
// (their nests' launch-uniform extents): members that fill the device or
// fit a block keep their one program, the body as it was.
//
// Fires on a kernel whose sole program space holds one execution group with axes whose top-level ops
// with regions are pgpu.foreach worksets, two phases at least, the others writing no memory and
// reading no buffer a workset writes; whose worksets write only by stores and buffer stores (no
// atomics, no result-bearing effects), read no buffer they or a later phase write, and hand their
// buffers over in invocation workspace; and whose group reads no view it writes. Must not fire
// otherwise (one phase, a top-level reduction: pgpu-split-member-reductions' case), nor on a kernel
// declaring MEMBER_SPLIT.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "SplitPrograms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUSPLITMEMBERWORKSETS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::build;

namespace {
using split::member::kSplitParam;
using split::outside;
/// Elements of a member's first phase that one block holds (BLOCK's largest candidate).
constexpr int64_t kMinMember = 16384;

struct Plan {
  ProgramSpaceOp space;
  ExecutionGroupOp group;
  /// The top-level worksets in order and each one's phase.
  SmallVector<ForeachOp> worksets;
  /// Every top-level workset of the group, where there is one group (the remarks' subject).
  SmallVector<ForeachOp> candidates;
  DenseMap<Operation *, int> phase;
  int phases = 0;
};

/// The buffer an access reads or writes: operand 1 of a buffer store, operand 0 of a buffer load.
Value bufferOf(Operation *op) {
  if (auto s = dyn_cast<BufferStoreOp>(op))
    return s->getOperand(1);
  if (auto l = dyn_cast<BufferLoadOp>(op))
    return l->getOperand(0);
  return {};
}

/// Why `w`'s effects may not be cut across programs, or none: it writes by stores and buffer stores
/// only (no atomics, no scatter-reduce, no effect with results).
std::optional<std::string> plainWrites(ForeachOp w) {
  std::optional<std::string> why;
  w.getBody().walk([&](Operation *op) {
    if (why || op->getNumRegions() || !writesMemory(op) || isa<StoreOp, BufferStoreOp>(op))
      return;
    why = std::string("a workset writes by '") + op->getName().getStringRef().str() +
          "' (only stores and buffer stores are cut across programs)";
  });
  return why;
}

std::optional<std::string> analyze(KernelOp kernel, Plan &plan) {
  if (std::optional<std::string> why = split::member::oneGroup(kernel, plan.space, plan.group))
    return why;
  Block &body = plan.group.getBody().front();
  plan.candidates = llvm::to_vector(body.getOps<ForeachOp>());
  // Per workspace buffer: the phase of the latest workset writing it.
  DenseMap<Value, int> writer;
  for (Operation &op : body.without_terminator()) {
    auto w = dyn_cast<ForeachOp>(op);
    if (!w) {
      if (op.getNumRegions())
        return std::string("a loop or structured op beside the worksets ('") +
               op.getName().getStringRef().str() + "')";
      if (writesMemory(&op))
        return std::string("a write beside the worksets ('") + op.getName().getStringRef().str() + "')";
      if (Value buf = bufferOf(&op); buf && writer.count(buf))
        return std::string("a read of a workset's buffer beside the worksets");
      continue;
    }
    if (!outside(w.getLower(), plan.space) || !outside(w.getUpper(), plan.space))
      return std::string("a workset's bounds are computed in the program (not launch-uniform)");
    if (std::optional<std::string> why = plainWrites(w))
      return why;
    int phase = 0;
    SmallVector<Value> writes;
    w.getBody().walk([&](Operation *inner) {
      Value buf = bufferOf(inner);
      if (!buf)
        return;
      if (isa<BufferStoreOp>(inner))
        writes.push_back(buf);
      else if (auto it = writer.find(buf); it != writer.end())
        phase = std::max(phase, it->second + 1);
    });
    for (Value buf : writes) {
      auto type = dyn_cast<BufferType>(buf.getType());
      if (!type || type.getScope() != BufferScope::Workspace)
        return std::string("a workset writes a buffer that is not invocation workspace (another program "
                           "cannot read it)");
      if (writer.count(buf))
        return std::string("two worksets write one buffer");
    }
    // A workset reading what it writes itself would read another program's slice unwaited.
    bool own = false;
    w.getBody().walk([&](BufferLoadOp l) { own |= llvm::is_contained(writes, l->getOperand(0)); });
    if (own)
      return std::string("a workset reads a buffer it writes");
    for (Value buf : writes)
      writer[buf] = phase;
    plan.phase[w] = phase;
    plan.phases = std::max(plan.phases, phase + 1);
    plan.worksets.push_back(w);
  }
  if (plan.worksets.empty())
    return std::string("no workset");
  if (plan.phases < 2)
    return std::string("no workset reads another's buffer (one phase: nothing waits)");
  if (split::member::readsWrittenView(body))
    return std::string("the member reads a view it writes");
  return std::nullopt;
}

/// The elements `op`'s perfect nest walks (its range times its element's sole nested loop's, down to
/// an element without one), from launch-uniform bounds; none where a bound is computed in the program.
std::optional<Value> nestElements(OpBuilder &b, Location loc, Operation *op, ProgramSpaceOp space) {
  Value lower = op->getOperand(0), upper = op->getOperand(1);
  if (!outside(lower, space) || !outside(upper, space))
    return std::nullopt;
  Value n = bin(b, loc, kir::BinaryKind::Max, bin(b, loc, kir::BinaryKind::Sub, upper, lower), index(b, loc, 0));
  Operation *inner = nullptr;
  for (Operation &o : op->getRegion(0).front())
    if (isa<ForeachOp, RangeReduceOp>(o)) {
      if (inner)
        return n; // several nested loops: the outer range alone
      inner = &o;
    }
  if (!inner)
    return n;
  std::optional<Value> rest = nestElements(b, loc, inner, space);
  if (!rest)
    return std::nullopt;
  return bin(b, loc, kir::BinaryKind::Mul, n, *rest);
}

void split(KernelOp kernel, Plan &plan) {
  ForeachOp first = plan.worksets.front();
  Location loc = first.getLoc();
  ProgramSpaceOp space = plan.space;
  ExecutionGroupOp group = plan.group;
  OpBuilder b(space);
  IRMapping map;
  LaunchSplits cut =
      launchSplits(b, space, loc, first.getLower(), first.getUpper(), index(b, loc, 1), kSplitParam, map);
  Value points = split::pointCount(b, loc, group, cut.one);
  Value splits = split::member::fillSplits(b, loc, kernel, cut, points);
  // A member whose first phase walks at most MIN_MEMBER elements keeps its one program: the waits
  // would cost more than the slices save.
  Value elements = cut.zero;
  bool known = true;
  for (ForeachOp w : plan.worksets)
    if (plan.phase.lookup(w) == 0) {
      std::optional<Value> n = nestElements(b, loc, w, space);
      if (!n) {
        known = false;
        break;
      }
      elements = bin(b, loc, kir::BinaryKind::Add, elements, *n);
    }
  if (known) {
    Value large = cmp(b, loc, kir::CmpPredicate::GT, elements, index(b, loc, kMinMember));
    splits = SelectOp::create(b, loc, large, splits, cut.one).getResult();
  }
  Value on = cmp(b, loc, kir::CmpPredicate::NE, splits, cut.one);
  // The counts' workspace: one per point where split, none otherwise.
  WorkspaceExtentOp::create(b, loc, split::member::kPointsSymbol,
                            SelectOp::create(b, loc, on, points, cut.zero).getResult());
  Value members =
      SelectOp::create(b, loc, on, bin(b, loc, kir::BinaryKind::Mul, splits, index(b, loc, plan.phases)), cut.one)
          .getResult();
  // Unsplit (MEMBER_SPLITS = 1): the body as it was, in an if directly in the group.
  split::member::Skeleton skeleton = split::member::branchSplit(b, loc, kernel, space, group, on, members, cut.zero);
  Value member = skeleton.member;
  SmallVector<Value> &coords = skeleton.coords;
  SmallVector<Operation *> &ops = skeleton.ops;
  // Split: the point, this program's phase and slice; the ops without regions once, then the phases.
  Value point = split::linearPoint(b, loc, coords, group.getExtents());
  Value phase = bin(b, loc, kir::BinaryKind::Div, member, splits);
  Value seg = bin(b, loc, kir::BinaryKind::Rem, member, splits);
  Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Attribute pointsAttr = StringAttr::get(kernel.getContext(), split::member::kPointsSymbol);
  Value counts = addZeroedCounters(kernel, loc, {pointsAttr});
  Value tickets = addZeroedCounters(kernel, loc, {pointsAttr});
  IRMapping base;
  for (Operation *op : ops)
    if (!isa<ForeachOp>(op))
      b.clone(*op, base);
  for (int p = 0; p < plan.phases; ++p) {
    auto mine = IfOp::create(b, loc, TypeRange{}, cmp(b, loc, kir::CmpPredicate::EQ, phase, index(b, loc, p)));
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&mine.getThenRegion());
    b.setInsertionPoint(YieldOp::create(b, loc));
    if (p > 0)
      split::waitFor(b, loc, counts, point, bin(b, loc, kir::BinaryKind::Mul, splits, index(b, loc, p)), yes);
    IRMapping m = base;
    for (ForeachOp w : plan.worksets) {
      if (plan.phase.lookup(w) != p)
        continue;
      LaunchSplits range = cut;
      range.lower = m.lookupOrDefault(w.getLower());
      range.upper = m.lookupOrDefault(w.getUpper());
      range.steps = bin(b, loc, kir::BinaryKind::Max, bin(b, loc, kir::BinaryKind::Sub, range.upper, range.lower),
                        cut.zero);
      split::Slice slice = split::sliceOf(b, loc, range, splits, seg);
      Operation *part = b.clone(*w, m);
      part->setOperand(0, slice.begin);
      part->setOperand(1, slice.end);
    }
    if (p + 1 < plan.phases) {
      split::arrive(b, loc, counts, point, yes);
      continue;
    }
    auto last = LastProgramOp::create(b, loc, tickets, ValueRange{point}, splits);
    b.createBlock(&last.getBody());
    b.setInsertionPoint(YieldOp::create(b, loc));
    split::resetCounts(b, loc, {counts}, point, yes);
  }
}

struct SplitMemberWorksets : public tessel::pgpu::impl::PGPUSplitMemberWorksetsBase<SplitMemberWorksets> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      Plan plan;
      std::optional<std::string> why = analyze(kernel, plan);
      if (remarksEnabled(kernel)) {
        if (why) {
          // only where the group holds worksets: every other kernel is not this pass's case
          if (plan.candidates.size() >= 2)
            plan.candidates.back()->emitRemark() << "pgpu-split-member-worksets: not split: " << *why;
        } else {
          for (ForeachOp w : plan.worksets)
            w->emitRemark() << "pgpu-split-member-worksets: each member's worksets run in " << plan.phases
                            << " phases of MEMBER_SPLITS programs; this workset's range is cut into "
                            << "MEMBER_SPLITS contiguous slices, one a program, in phase " << plan.phase.lookup(w)
                            << (plan.phase.lookup(w) ? " (after a wait for the phases before)" : "");
        }
      }
      if (!why)
        split(kernel, plan);
    }
  }
};
} // namespace
