//===- FlattenWorksets.cpp - a program's whole-body workset becomes program axes ===//
//
// seed 000 §5 (a `pgpu.foreach` is an explicit independent workset), seed 002
// §3.2 (rewrite the logical ownership of each program instance), issue 13
// step 1 ("natural spellings of one computation must map alike"): a batched
// GEMV written as `T.parallel(b)` around `T.matvec` is constructed as one
// program per b walking the rows in a foreach, while the same GEMV written as
// one batched contraction is one program per (b, row). When a foreach over
// launch-uniform bounds is all a program does, its members are independent
// programs in all but name: the foreach becomes a trailing axis of the
// execution group (and the program space grows by its trip count), so both
// spellings reach form-tiles, refine-mapping and form-blocking as the same IR.
//
// Reads of `In` views may precede the foreach when it is an elementwise nest
// (a paged cache's dequantization reads the sequence's length, then writes its
// [L, H, D] positions: one program per sequence was 16 programs at B=16): no
// instance writes an `In` view (seed 000 §4.3), so every new program re-reads
// the value the one program read. A member that loops, or whose workset is one
// row, keeps its row form (one program a member, form-blocking walks the row in blocks).
//
// Fires on the sole execution group of a program space whose body is pure
// scalar code followed by one `pgpu.foreach` whose bounds are LaunchExprs (also
// under construction's dispatch guard beside a last-program finalization, whose
// count is the program space's own and so follows the new extent);
// repeats while the new body is again such a foreach. Must not fire when the
// body does anything else with effects or regions (a reduction or store
// around the foreach would run once per new program), reads a view the kernel
// writes, reads before a foreach whose members loop or that is one row, when the bounds depend
// on the program's coordinates or on data, or on several segments -- except construction's chain of
// segments (waiting ones included: phases through kernel-level buffers, issue 41), where each segment
// whose members compute a product (a range_reduce multiplying two reads) flattens on its own group and
// the chain's routing and the space's total follow its new count (flattenSegments).
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUFLATTENWORKSETS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"

} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// Whether `op` is a read of an `In` view: no instance of the launch writes it (seed 000 §4.3), so
/// every new program reading it again reads the same values the one program read.
bool readsInputView(Operation *op) {
  Value view;
  if (auto load = dyn_cast<LoadOp>(op))
    view = load.getView();
  else if (auto gather = dyn_cast<GatherOp>(op))
    view = gather.getView();
  auto type = view ? dyn_cast<ViewType>(view.getType()) : ViewType();
  return type && !type.isWritable();
}

/// Whether `use` is a coordinate of a view's load, gather or store (not its value or validity).
bool isCoordinate(OpOperand &use) {
  Operation *user = use.getOwner();
  OperandRange coords = user->getOperands().take_front(0);
  if (auto load = dyn_cast<LoadOp>(user))
    coords = load.getCoords();
  else if (auto gather = dyn_cast<GatherOp>(user))
    coords = gather.getCoords();
  else if (auto store = dyn_cast<StoreOp>(user))
    coords = store.getCoords();
  unsigned at = use.getOperandNumber();
  return !coords.empty() && coords.getBeginOperandIndex() <= at && at < coords.getBeginOperandIndex() + coords.size();
}

/// Whether every value computed from `read` (through casts and index arithmetic) only bounds, masks or
/// offsets the members: it is compared, or it is a coordinate of a view read or write (a packed
/// sequence's start row, corpus 250: `x[start + p]`), rather than entering their arithmetic. Reads whose
/// values feed the arithmetic (a per-channel weight and bias, corpus 102_b) keep the row form: flattened,
/// form-tiles counts such a per-member read as walking its axis and tiled 102_b's planes over (c, w), 3.9x
/// slower on the H100 (0.137 -> 0.536 ms); that orientation rule is the thing to fix before this widens.
/// A coordinate is an address, not a value the members compute with (seed 000 §4.3: an `In` view's
/// element is the same in every program that reads it).
bool onlyIndexes(Operation *read) {
  SmallVector<Value> work(read->getResults());
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      auto bin = dyn_cast<BinaryOp>(user);
      if (isa<CastOp>(user) || (bin && bin.getType().isIndex()))
        work.append(user->result_begin(), user->result_end());
      else if (isa<CmpOp>(user))
        continue;
      else if (!isCoordinate(use))
        return false;
    }
  }
  return true;
}

/// Whether the members of `each` are elementwise: its body, and that of every workset nested in it,
/// holds no op with regions but those worksets.
bool elementwiseMembers(ForeachOp each) {
  return !each.getBody()
              .walk([&](Operation *op) {
                return op != each.getOperation() && op->getNumRegions() != 0 && !isa<ForeachOp>(op)
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              })
              .wasInterrupted();
}

/// The group body's foreach when it is the body's only op with regions or effects and comes last,
/// else null; `why` says what stopped it (empty when there is no foreach at all). `nested`: an outer
/// level of the same nest has flattened already.
ForeachOp wholeBodyForeach(ExecutionGroupOp group, bool nested, std::string &why) {
  Block &body = group.getBody().front();
  if (llvm::none_of(body, [](Operation &op) { return isa<ForeachOp>(op); }))
    return {};
  ForeachOp each;
  for (Operation &op : body.without_terminator()) {
    if (auto f = dyn_cast<ForeachOp>(op)) {
      if (each) {
        why = "the program runs several worksets";
        return {};
      }
      each = f;
      continue;
    }
    if (op.getNumRegions() != 0 || !(isMemoryEffectFree(&op) || (!each && readsInputView(&op)))) {
      why = each ? "the program does more after the workset" : "the program does more than the workset";
      return {};
    }
    if (each && !op.use_empty()) {
      why = "the program does more after the workset";
      return {};
    }
  }
  for (Value bound : {each.getLower(), each.getUpper()})
    if (!isLaunchExpr(bound)) {
      why = "its bounds are not launch-uniform (they depend on the program or on data)";
      return {};
    }
  // Reads before the workset are repeated by every new program; that is kept to elementwise
  // members (nested worksets around straight-line code). A member that loops (a reduction, a
  // contraction) keeps its row form, which pgpu-tile-column-reductions and the tile walks block;
  // so does a member's workset of one axis (a row, which form-blocking walks in blocks). A nest of
  // worksets is the work one program would walk serially, the product of its extents: it flattens
  // whole (`nested`: an outer level has flattened).
  bool reads = llvm::any_of(body, [&](Operation &op) { return readsInputView(&op); });
  if (reads && !elementwiseMembers(each)) {
    why = "the program reads before a workset whose members loop";
    return {};
  }
  bool row = llvm::none_of(each.getBody().front(), [](Operation &op) { return isa<ForeachOp>(op); });
  if (reads && !nested && row) {
    why = "the program reads before a workset of one axis (a row, blocked along itself)";
    return {};
  }
  if (!nested && llvm::any_of(body, [&](Operation &op) { return readsInputView(&op) && !onlyIndexes(&op); })) {
    why = "the program reads a value its members compute with before the workset (only reads that bound, "
          "mask or offset the members are repeated per program)";
    return {};
  }
  return each;
}


/// The views `op`'s region writes (stores, scatters, scatter-reduces, atomics) and those it reads.
void viewsOf(Operation *root, DenseSet<Value> &read, DenseSet<Value> &written) {
  root->walk([&](Operation *op) {
    if (isa<LoadOp, GatherOp>(op))
      read.insert(op->getOperand(0));
    else if (isa<StoreOp, ScatterOp>(op))
      written.insert(op->getOperand(1));
    else if (auto sr = dyn_cast<ScatterReduceOp>(op))
      written.insert(sr.getView());
    else if (!isMemoryEffectFree(op) && !isa<ForeachOp>(op))
      written.insert(Value()); // another effect (an atomic, a buffer): counted as writing everything
  });
}

/// `v` modulo `c` (> 1) where index code built from constants, sums, differences and products with a
/// multiple of c fixes it (2 * p + 1 is 1 modulo 2 for every p), else none.
std::optional<int64_t> residue(Value v, int64_t c, unsigned depth = 0) {
  APInt k;
  if (matchPattern(v, m_ConstantInt(&k)))
    return ((k.getSExtValue() % c) + c) % c;
  auto bin = v.getDefiningOp<BinaryOp>();
  if (!bin || depth > 8)
    return std::nullopt;
  auto multipleOfC = [&](Value x) { return matchPattern(x, m_ConstantInt(&k)) && k.getSExtValue() % c == 0; };
  switch (bin.getKind()) {
  case kir::BinaryKind::Mul:
    if (multipleOfC(bin.getLhs()) || multipleOfC(bin.getRhs()))
      return 0;
    return std::nullopt;
  case kir::BinaryKind::Add:
  case kir::BinaryKind::Sub: {
    std::optional<int64_t> l = residue(bin.getLhs(), c, depth + 1), r = residue(bin.getRhs(), c, depth + 1);
    if (!l || !r)
      return std::nullopt;
    return ((bin.getKind() == kir::BinaryKind::Add ? *l + *r : *l - *r) % c + c) % c;
  }
  default:
    return std::nullopt;
  }
}

/// The coordinates of a store or scatter, or none for another op.
ValueRange writeCoords(Operation *op) {
  if (auto store = dyn_cast<StoreOp>(op))
    return store.getCoords();
  if (auto scatter = dyn_cast<ScatterOp>(op))
    return scatter.getCoords();
  return {};
}

/// Whether writes `a` and `b` (stores or scatters of one view) never reach the same element: on some axis
/// their coordinates differ modulo a constant stride (an interleaved pair's 2p and 2p + 1, for any two
/// members p), so no element is written by both whatever the other coordinates are.
bool residuesApart(Operation *a, Operation *b) {
  ValueRange ca = writeCoords(a), cb = writeCoords(b);
  if (ca.empty() || ca.size() != cb.size())
    return false;
  for (auto [x, y] : llvm::zip(ca, cb))
    for (int64_t c : {2, 3, 4, 8}) {
      std::optional<int64_t> rx = residue(x, c), ry = residue(y, c);
      if (rx && ry && *rx != *ry)
        return true;
    }
  return false;
}

/// Sibling worksets of one program body over the same bounds (construction's one workset per stored
/// output: a pool's values and its argmax indices) become one workset running each member's bodies in
/// order, when no view is both read and written in the group and no two of them write the same view
/// (or every write of a view shared by two lies apart from the other's by residue, residuesApart: an
/// interleaved pair out[.., 2p] and out[.., 2p + 1] of a GPT-J rotary embedding, seed 000 §4.3):
/// their members are then independent across the worksets too, so running member m of the second
/// right after member m of the first computes what running them one workset after the other does
/// (seed 000 §5: a foreach's members are unordered). Pure code between them moves before the first (it
/// reads nothing the worksets compute: they have no results). True when they merged.
bool mergeSiblingWorksets(ExecutionGroupOp group) {
  Block &body = group.getBody().front();
  SmallVector<ForeachOp> worksets;
  for (Operation &op : body.without_terminator()) {
    if (auto each = dyn_cast<ForeachOp>(op)) {
      worksets.push_back(each);
      continue;
    }
    if (!worksets.empty() && (op.getNumRegions() != 0 || !isMemoryEffectFree(&op)))
      return false;
  }
  if (worksets.size() < 2)
    return false;
  ForeachOp first = worksets.front();
  if (llvm::any_of(worksets, [&](ForeachOp each) {
        return each.getLower() != first.getLower() || each.getUpper() != first.getUpper();
      }))
    return false;
  DenseSet<Value> read, written;
  DenseMap<Value, SmallVector<std::pair<Operation *, ForeachOp>>> writesOf; // a view: its writes, by workset
  for (ForeachOp each : worksets) {
    DenseSet<Value> mine;
    viewsOf(each, read, mine);
    each.walk([&](Operation *op) {
      if (isa<StoreOp, ScatterOp>(op))
        writesOf[op->getOperand(1)].push_back({op, each});
      else if (auto sr = dyn_cast<ScatterReduceOp>(op))
        writesOf[sr.getView()].push_back({op, each}); // no coordinates residuesApart reads: never apart
    });
    for (Value v : mine) {
      if (!v)
        return false;
      if (written.insert(v).second)
        continue;
      // A view another workset writes too: each of this workset's writes of it lies apart from each
      // of the others' (no element written by two worksets, so their order does not matter).
      for (auto [w, owner] : writesOf[v])
        for (auto [u, other] : writesOf[v])
          if (owner == each && other != each && !residuesApart(w, u))
            return false;
    }
  }
  if (llvm::any_of(written, [&](Value v) { return read.contains(v); }))
    return false;
  // Pure code after the first workset moves before it, then each later body joins the first's.
  for (Operation &op : llvm::make_early_inc_range(llvm::make_range(std::next(Block::iterator(first)),
                                                                     Block::iterator(body.getTerminator()))))
    if (!isa<ForeachOp>(op))
      op.moveBefore(first);
  Block &into = first.getBody().front();
  for (ForeachOp each : ArrayRef<ForeachOp>(worksets).drop_front()) {
    Block &from = each.getBody().front();
    from.getArgument(0).replaceAllUsesWith(into.getArgument(0));
    into.getOperations().splice(std::prev(into.end()), from.getOperations(), from.begin(), std::prev(from.end()));
    each.erase();
  }
  return true;
}

/// Whether `v` is a view extent, a constant >= 0 or max(x, 0).
bool knownNonNegative(Value v) {
  if (v.getDefiningOp<ExtentOp>())
    return true;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return !c.isNegative();
  auto max = v.getDefiningOp<BinaryOp>();
  return max && max.getKind() == kir::BinaryKind::Max &&
         (isZeroConstant(max.getLhs()) || isZeroConstant(max.getRhs()));
}

/// The dispatch guard `pid < E` around `group` (construction's form when a last-program
/// finalization needs an instance even for an empty workset), or null.
CmpOp dispatchGuard(ExecutionGroupOp group) {
  auto guard = dyn_cast<IfOp>(group->getParentOp());
  return guard ? guard.getCondition().getDefiningOp<CmpOp>() : CmpOp();
}

/// A group's program count, the left-folded product of its extents (1 without axes), built at `b`:
/// the form pgpu::dispatchChain matches as a segment's bound.
Value countOf(OpBuilder &b, ExecutionGroupOp group) {
  Location loc = group.getLoc();
  if (group.getExtents().empty())
    return arith::ConstantIndexOp::create(b, loc, 1);
  Value count = group.getExtents().front();
  for (Value e : group.getExtents().drop_front())
    count = BinaryOp::create(b, loc, kir::BinaryKind::Mul, count, e, false, false);
  return count;
}

/// Segment i's program count as the chain routes it: its bound, the ending guard's, or (an unguarded
/// last segment) its extents' product.
Value segmentCount(OpBuilder &b, Dispatch &chain, unsigned i) {
  if (i < chain.bounds.size())
    return chain.bounds[i].getRhs();
  if (chain.end && i + 1 == chain.groups.size())
    return chain.end.getRhs();
  return countOf(b, chain.groups[i]);
}

/// With `segment` (the group is a segment of construction's dispatch chain), the program count is
/// left to the caller (flattenSegments), which sets it once the whole nest has flattened.
void flatten(ProgramSpaceOp space, ExecutionGroupOp group, ForeachOp each, bool segment = false) {
  Location loc = each.getLoc();
  OpBuilder b(space);
  IRMapping map;
  auto bin = [&](kir::BinaryKind kind, Value l, Value r) {
    return BinaryOp::create(b, loc, kind, l, r, false, false).getResult();
  };
  Value lo = hoistLaunchValue(b, space, each.getLower(), map), hi = hoistLaunchValue(b, space, each.getUpper(), map);
  // The trip count, spelled as the batched form spells its extents (no re-clamping of a
  // max(x, 0) already clamped), so later passes see the same values.
  Value trips = isZeroConstant(lo) ? hi : bin(kir::BinaryKind::Sub, hi, lo);
  if (!knownNonNegative(trips))
    trips = bin(kir::BinaryKind::Max, trips, arith::ConstantIndexOp::create(b, loc, 0));
  // Under a dispatch guard the members are `pid < E` and the space keeps at least one instance
  // for the finalization (whose count is the space's own, so it follows).
  if (segment) {
    // The caller sets the segment's count in the chain's routing.
  } else if (CmpOp guard = dispatchGuard(group)) {
    Value members = bin(kir::BinaryKind::Mul, guard.getRhs(), trips);
    guard->setOperand(1, members);
    space->setOperand(0, bin(kir::BinaryKind::Max, members, arith::ConstantIndexOp::create(b, loc, 1)));
  } else {
    space->setOperand(0, bin(kir::BinaryKind::Mul, space.getExtents()[0], trips));
  }
  SmallVector<Value> extents(group.getExtents());
  extents.push_back(trips);
  group.getExtentsMutable().assign(extents);
  SmallVector<Attribute> roles(group.getRoles().begin(), group.getRoles().end());
  roles.push_back(b.getStringAttr("axis" + std::to_string(roles.size())));
  group.setRolesAttr(b.getArrayAttr(roles));
  // The member is the new trailing coordinate, offset by the workset's start.
  Block &body = group.getBody().front();
  BlockArgument coord = body.addArgument(b.getIndexType(), loc);
  b.setInsertionPoint(each);
  Value member = isZeroConstant(each.getLower())
                     ? Value(coord)
                     : BinaryOp::create(b, loc, kir::BinaryKind::Add, each.getLower(), coord, false, false).getResult();
  Block &inner = each.getBody().front();
  inner.getArgument(0).replaceAllUsesWith(member);
  body.getOperations().splice(Block::iterator(each), inner.getOperations(), inner.begin(),
                              std::prev(inner.end()));
  each.erase();
}

/// Whether `v` is read from a view or buffer, through casts.
bool isRead(Value v) {
  while (auto c = v.getDefiningOp<CastOp>())
    v = c.getOperand();
  return v.getDefiningOp<LoadOp>() || v.getDefiningOp<BufferLoadOp>() || v.getDefiningOp<GatherOp>();
}

/// Whether `root` holds a product's reduction: a range_reduce whose element multiplies two reads (a
/// contraction's terms, which pgpu-form-tiles tiles once the members are program axes).
bool productReduction(Operation *root) {
  return root
      ->walk([](RangeReduceOp r) {
        bool product = false;
        r.getElement().walk([&](BinaryOp m) {
          product |= m.getKind() == kir::BinaryKind::Mul && isRead(m.getLhs()) && isRead(m.getRhs());
        });
        return product ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Construction's chain of segments (pgpu::dispatchChain, waiting segments and the ticketed end
/// included: a phase that uses what an earlier one wrote): each segment's whole-body workset nest
/// flattens as a sole group's would, its count becoming the product of its new extents in the chain's
/// routing, and the space's total the sum of the segments' counts (at least one instance where the
/// chain ends in a guard: construction's arrival for an empty launch).
void flattenSegments(ProgramSpaceOp space, bool remarks) {
  Dispatch chain;
  Block &body = space.getBody().front();
  if (space.getExtents().size() != 1 ||
      !dispatchChain(body, body.getArgument(0), chain, /*guardedEnd=*/true) || chain.groups.size() < 2)
    return;
  bool changed = false;
  for (auto [i, group] : llvm::enumerate(SmallVector<ExecutionGroupOp>(chain.groups))) {
    // A segment whose members compute a product (each member a dot product: the chained GEMMs' phases)
    // flattens for pgpu-form-tiles; other segments keep their rows for pgpu-refine-mapping and
    // pgpu-form-blocking as construction made them.
    if (!productReduction(group))
      continue;
    std::string why;
    bool flattened = false;
    for (bool nested = false; ForeachOp each = wholeBodyForeach(group, nested, why); nested = true) {
      if (remarks)
        each.emitRemark() << "pgpu-flatten-worksets: the workset that is segment " << i << "'s whole body becomes "
                          << "its program axis " << group.getExtents().size() << " (its members run as programs)";
      flatten(space, group, each, /*segment=*/true);
      flattened = true;
    }
    // The segment's count follows its group's new extents in its bound and shift (so later segments'
    // waits, which count the instances before them, follow too).
    if (flattened) {
      OpBuilder b(space);
      chain.setCount(i, countOf(b, group));
      changed = true;
    }
    if (remarks && !why.empty())
      group.emitRemark() << "pgpu-flatten-worksets: segment " << i << " not flattened: " << why;
  }
  if (!changed)
    return;
  OpBuilder b(space);
  Location loc = space.getLoc();
  Value total = segmentCount(b, chain, 0);
  for (unsigned i = 1; i < chain.groups.size(); ++i)
    total = BinaryOp::create(b, loc, kir::BinaryKind::Add, total, segmentCount(b, chain, i), false, false);
  if (chain.end)
    total = BinaryOp::create(b, loc, kir::BinaryKind::Max, total, arith::ConstantIndexOp::create(b, loc, 1), false,
                             false);
  space->setOperand(0, total);
}

struct FlattenWorksets : public tessel::pgpu::impl::PGPUFlattenWorksetsBase<FlattenWorksets> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      ProgramSpaceOp space;
      kernel.walk([&](ProgramSpaceOp s) { space = s; });
      ExecutionGroupOp group = space ? soleExecutionGroup(space, /*finalization=*/true) : ExecutionGroupOp();
      bool remarks = remarksEnabled(kernel);
      if (!group) {
        if (space)
          flattenSegments(space, remarks);
        continue;
      }
      if (mergeSiblingWorksets(group) && remarks)
        group.emitRemark() << "pgpu-flatten-worksets: sibling worksets over the same range, writing different "
                              "views or elements and reading none they write, became one workset";
      std::string why;
      for (bool nested = false; ForeachOp each = wholeBodyForeach(group, nested, why); nested = true) {
        if (remarks)
          each.emitRemark() << "pgpu-flatten-worksets: the workset that is the program's whole body becomes "
                               "program axis "
                            << group.getExtents().size() << " (its members run as programs)";
        flatten(space, group, each);
      }
      if (remarks && !why.empty())
        group.emitRemark() << "pgpu-flatten-worksets: not flattened: " << why;
    }
  }
};
} // namespace
