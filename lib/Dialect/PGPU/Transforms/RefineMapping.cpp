//===- RefineMapping.cpp - enlarge the ownership of per-element worksets ---===//
//
// seed 002 §3.2: rewrite the logical ownership extent of each physical
// program instance. A workset of independent per-element instances (a
// whole-tensor store, an elementwise kernel) launched one element per program
// wastes the machine; here each program takes BLOCK_P consecutive members (in
// row-major order over all the group's axes) through a `pgpu.foreach`, which
// form-blocking then turns into fragments. The program space and the group's extents change together,
// as LaunchExprs, so the wrapper and the kernel still agree on the grid.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUREFINEMAPPING
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
constexpr llvm::StringLiteral kBlockP = "BLOCK_P";

/// Whether `v` is the product of `extents` multiplied left to right (pgpu-flatten-worksets' spelling
/// of a guard's bound after it added axes).
bool isProduct(Value v, ValueRange extents) {
  if (extents.size() == 1)
    return v == extents.front();
  auto mul = v.getDefiningOp<BinaryOp>();
  return mul && mul.getKind() == kir::BinaryKind::Mul && mul.getRhs() == extents.back() &&
         isProduct(mul.getLhs(), extents.drop_back());
}

/// The group a guard `if (pid < E) { group }` holds alone (construction's dispatch when an empty
/// program space still runs one instance for a pgpu.last_program; E the product of its extents), or null.
ExecutionGroupOp guardedGroup(Operation &op, Value pid) {
  auto guard = dyn_cast<IfOp>(op);
  if (!guard || !guard.getElseRegion().empty() || guard.getNumResults())
    return {};
  auto bound = guard.getCondition().getDefiningOp<CmpOp>();
  Block &then = guard.getThenRegion().front();
  auto group = dyn_cast<ExecutionGroupOp>(then.front());
  if (!bound || bound.getPredicate() != kir::CmpPredicate::LT || bound.getLhs() != pid || !group ||
      then.getOperations().size() != 2 || group.getExtents().empty() || !isProduct(bound.getRhs(), group.getExtents()))
    return {};
  return group;
}

} // namespace

/// The single execution group that the whole program space dispatches to, or null. With
/// `finalization`, also a group under construction's dispatch guard next to a pgpu.last_program
/// (the last-arrival finalization counts the program space's own instances, whatever their number).
ExecutionGroupOp pgpu::soleExecutionGroup(ProgramSpaceOp space, bool finalization) {
  Block &body = space.getBody().front();
  ExecutionGroupOp group;
  for (Operation &op : body.without_terminator()) {
    ExecutionGroupOp g = dyn_cast<ExecutionGroupOp>(op);
    if (!g && finalization)
      g = guardedGroup(op, body.getArgument(0));
    if (g) {
      if (group)
        return {};
      group = g;
      continue;
    }
    if (finalization && isa<LastProgramOp>(op))
      continue;
    if (!op.hasTrait<OpTrait::ConstantLike>() && !isMemoryEffectFree(&op))
      return {};
  }
  if (!group || group.getLinear() != body.getArgument(0) || space.getExtents().size() != 1)
    return {};
  return group;
}

namespace {
/// Per-element straight-line code: no loops, ifs, reductions or regions, and no
/// fragments (a group that pgpu-form-tiles already blocked owns its tiles). A
/// scatter-reduce's region is its pure combine, not control: its collisions combine
/// under the declared semantics whichever program performs them (seed 000 §6, §9).
/// An ordered loop (an author's loop per member, seed 000 §5) is per-element work too when its
/// bounds are the same for every member (defined outside the group) and its body is per-element:
/// form-blocking runs it for a block of members at once, its per-member carries fragments. So is an
/// `if` whose branches are per-element code (form-blocking if-converts it).
bool isPerElement(Block &block, Region &groupBody, bool &ordered) {
  for (Operation &op : block.without_terminator()) {
    if (llvm::any_of(op.getResultTypes(), [](Type t) { return isa<FragmentType>(t); }))
      return false;
    if (auto loop = dyn_cast<ForOp>(op)) {
      if (llvm::any_of(ValueRange{loop.getLower(), loop.getUpper(), loop.getStep()},
                       [&](Value v) { return groupBody.isAncestor(v.getParentRegion()); }) ||
          !isPerElement(loop.getBody().front(), groupBody, ordered))
        return false;
      ordered = true;
      continue;
    }
    // An author's `if` per member (a merge that skips empty chunks, corpus 357): form-blocking runs
    // both branches on a block of members, each branch's accesses masked by its members' condition.
    if (auto branch = dyn_cast<IfOp>(op)) {
      if (!isPerElement(branch.getThenRegion().front(), groupBody, ordered) ||
          (!branch.getElseRegion().empty() && !isPerElement(branch.getElseRegion().front(), groupBody, ordered)))
        return false;
      continue;
    }
    if (op.getNumRegions() != 0 && !isa<ScatterReduceOp>(op))
      return false;
  }
  return true;
}

/// Whether `v` varies with the group's member: it is (or is computed inside the group from) one of
/// the group body's arguments, or a value carried by a loop inside it (data that may differ per
/// member). A loop's own induction variable and values defined outside the group do not vary.
bool variesWithMember(Value v, Region &groupBody, DenseMap<Value, bool> &memo) {
  if (!groupBody.isAncestor(v.getParentRegion()))
    return false;
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  bool varies = false;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<ForOp>(arg.getOwner()->getParentOp());
    varies = !loop || arg.getArgNumber() != 0;
  } else {
    memo[v] = false; // no cycles in SSA outside graph regions; guards the recursion all the same
    varies = llvm::any_of(v.getDefiningOp()->getOperands(),
                          [&](Value o) { return variesWithMember(o, groupBody, memo); });
  }
  return memo[v] = varies;
}

/// Whether an ordered loop of `group` reads a view at coordinates that vary with the member (a
/// recurrence over time reading its channel's x[t, c] each step): such loops stream memory per
/// member and iteration. A loop that reads only member-independent values in its body (Horner's
/// rule over runtime coefficients c[j], the same scalars for every member) does not.
bool streamsPerMember(ExecutionGroupOp group) {
  Region &body = group.getBody();
  DenseMap<Value, bool> memo;
  return group
      .walk([&](ForOp loop) {
        bool streams = loop.getBody()
                           .walk([&](Operation *op) {
                             OperandRange coords = isa<LoadOp>(op) ? cast<LoadOp>(op).getCoords()
                                                   : isa<GatherOp>(op) ? cast<GatherOp>(op).getCoords()
                                                                       : op->getOperands().take_front(0);
                             return llvm::any_of(coords, [&](Value c) { return variesWithMember(c, body, memo); })
                                        ? WalkResult::interrupt()
                                        : WalkResult::advance();
                           })
                           .wasInterrupted();
        return streams ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

} // namespace

/// A last-program finalization still needs an instance when there are no members; that instance owns
/// none (its foreach is empty) and a dispatch guard pid < members keeps it out.
void pgpu::launchPrograms(OpBuilder &b, ProgramSpaceOp space, ExecutionGroupOp group, Value programs) {
  Location loc = group.getLoc();
  bool finalizes = llvm::any_of(space.getBody().front(), [](Operation &op) { return isa<LastProgramOp>(op); });
  space->setOperand(0, finalizes ? BinaryOp::create(b, loc, kir::BinaryKind::Max, programs,
                                                    arith::ConstantIndexOp::create(b, loc, 1), false, false)
                                       .getResult()
                                 : programs);
  group.getExtentsMutable().assign(ValueRange{programs});
  SmallVector<StringRef> roles;
  for (Attribute r : group.getRoles())
    roles.push_back(cast<StringAttr>(r).getValue());
  group.setRolesAttr(b.getStrArrayAttr({llvm::join(roles, "*")}));
}

namespace {
/// Each program takes BLOCK_P consecutive members of the group's row-major member order. One axis:
/// the members of that axis. Several axes: the flattened order, so a block spans rows when the
/// innermost extent is small (a scatter-add into D = 1 columns would otherwise run one member per
/// program) and stays contiguous along the innermost axis; each member's coordinates are decoded
/// from its linear position (remainders and quotients by the extents, innermost first).
/// Returns the group's program count (built before the space); the caller sizes the space by it.
Value refineGroup(ProgramSpaceOp space, ExecutionGroupOp group) {
  OpBuilder b(space);
  Location loc = group.getLoc();
  auto bin = [&](kir::BinaryKind kind, Value l, Value r) {
    return BinaryOp::create(b, loc, kind, l, r, false, false).getResult();
  };
  // Launch-time values: BLOCK_P, the members and the programs that own them.
  Value blockP = ParamOp::create(b, loc, b.getIndexType(), kBlockP);
  SmallVector<Value> extents(group.getExtents());
  Value members = extents.front();
  for (Value e : ArrayRef<Value>(extents).drop_front())
    members = bin(kir::BinaryKind::Mul, members, e);
  Value programs = CeilDivOp::create(b, loc, members, blockP);
  group.getExtentsMutable().assign(ValueRange{programs});
  SmallVector<StringRef> roles;
  for (Attribute r : group.getRoles())
    roles.push_back(cast<StringAttr>(r).getValue());
  group.setRolesAttr(b.getStrArrayAttr({llvm::join(roles, "*")}));

  // The body moves into a foreach over the owned members.
  Block &body = group.getBody().front();
  SmallVector<BlockArgument> coords(body.getArguments());
  BlockArgument owner = body.addArgument(b.getIndexType(), loc);
  b.setInsertionPointToStart(&body);
  Value lo = bin(kir::BinaryKind::Mul, owner, blockP);
  Value hi = bin(kir::BinaryKind::Min, bin(kir::BinaryKind::Add, lo, blockP), members);
  auto each = ForeachOp::create(b, loc, lo, hi);
  Block *eachBody = b.createBlock(&each.getBody());
  Value member = eachBody->addArgument(b.getIndexType(), loc);
  Operation *terminator = body.getTerminator();
  eachBody->getOperations().splice(eachBody->end(), body.getOperations(), std::next(Block::iterator(each)),
                                   Block::iterator(terminator));
  b.setInsertionPointToStart(eachBody);
  Value rest = member;
  for (size_t i = coords.size(); i-- > 0;) {
    Value at = rest;
    if (i > 0) {
      at = bin(kir::BinaryKind::Rem, rest, extents[i]);
      rest = bin(kir::BinaryKind::Div, rest, extents[i]);
    }
    coords[i].replaceAllUsesWith(at);
  }
  b.setInsertionPointToEnd(eachBody);
  YieldOp::create(b, loc);
  body.eraseArguments(0, coords.size());
  return programs;
}

/// The sole group of the space: its programs size the space (launchPrograms keeps one instance for a
/// last-program finalization).
void refine(ProgramSpaceOp space, ExecutionGroupOp group) {
  Value programs = refineGroup(space, group);
  OpBuilder b(space);
  launchPrograms(b, space, group, programs);
}

/// A linear form sum(coeff * atom) + constant of an index value, through additions, subtractions and
/// products with a constant; any other value is an atom.
struct Linear {
  llvm::MapVector<Value, int64_t> terms;
  int64_t constant = 0;
  void add(const Linear &o, int64_t scale) {
    for (auto [v, c] : o.terms)
      terms[v] += scale * c;
    constant += scale * o.constant;
  }
};

Linear linearOf(Value v, int depth = 0) {
  Linear out;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c))) {
    out.constant = c.getSExtValue();
    return out;
  }
  auto bin = v.getDefiningOp<BinaryOp>();
  if (bin && depth < 16) {
    kir::BinaryKind k = bin.getKind();
    if (k == kir::BinaryKind::Add || k == kir::BinaryKind::Sub) {
      out.add(linearOf(bin.getLhs(), depth + 1), 1);
      out.add(linearOf(bin.getRhs(), depth + 1), k == kir::BinaryKind::Add ? 1 : -1);
      return out;
    }
    if (k == kir::BinaryKind::Mul) {
      for (auto [x, y] : {std::pair{bin.getLhs(), bin.getRhs()}, std::pair{bin.getRhs(), bin.getLhs()}})
        if (matchPattern(x, m_ConstantInt(&c))) {
          out.add(linearOf(y, depth + 1), c.getSExtValue());
          return out;
        }
    }
  }
  out.terms[v] = 1;
  return out;
}

/// Whether `v` is defined outside the program space (launch-time values: the kernel's extents,
/// parameters and constants), so it may be used where the programs are counted.
bool launchValue(Value v, ProgramSpaceOp space) { return !space.getBody().isAncestor(v.getParentRegion()); }

/// The operands of `v` when it is a `kind` (min, max) of two values, else `v` alone.
SmallVector<Value, 2> operandsOf(Value v, kir::BinaryKind kind) {
  if (auto bin = v.getDefiningOp<BinaryOp>(); bin && bin.getKind() == kind)
    return {bin.getLhs(), bin.getRhs()};
  return {v};
}

/// A bound, in launch values, on the member count `upper` of a row loop [0, upper) whose upper bound
/// depends on the member: the length of a slice [s, s + w) of a row clipped to the view's axis,
/// construction's spelling max(min(e, C) - max(s, 0), 0) with e - s a linear form w in launch values
/// (seed 000 §5, source-derived subregions: cols[h * D : h * D + D2]). min(e, C) <= e and
/// max(s, 0) >= s, so the count is at most max(w, 0) for every member. None where `upper` has no
/// such form.
std::optional<Linear> clippedLength(Value upper, ProgramSpaceOp space) {
  Value length = upper;
  if (auto clamp = upper.getDefiningOp<BinaryOp>(); clamp && clamp.getKind() == kir::BinaryKind::Max) {
    if (matchPattern(clamp.getRhs(), m_Zero()))
      length = clamp.getLhs();
    else if (matchPattern(clamp.getLhs(), m_Zero()))
      length = clamp.getRhs();
  }
  auto diff = length.getDefiningOp<BinaryOp>();
  if (!diff || diff.getKind() != kir::BinaryKind::Sub)
    return std::nullopt;
  for (Value end : operandsOf(diff.getLhs(), kir::BinaryKind::Min))
    for (Value start : operandsOf(diff.getRhs(), kir::BinaryKind::Max)) {
      Linear w = linearOf(end);
      w.add(linearOf(start), -1);
      if (llvm::none_of(w.terms, [&](auto &t) { return t.second != 0 && !launchValue(t.first, space); }))
        return w;
    }
  return std::nullopt;
}

/// max(w, 0) of a linear form in launch values, built by `b`.
Value materialize(OpBuilder &b, Location loc, const Linear &w) {
  auto bin = [&](kir::BinaryKind kind, Value l, Value r) {
    return BinaryOp::create(b, loc, kind, l, r, false, false).getResult();
  };
  Value sum;
  for (auto [atom, c] : w.terms) {
    if (c == 0)
      continue;
    Value term = c == 1 ? atom : bin(kir::BinaryKind::Mul, arith::ConstantIndexOp::create(b, loc, c), atom);
    sum = sum ? bin(kir::BinaryKind::Add, sum, term) : term;
  }
  if (!sum || w.constant != 0) {
    Value c = arith::ConstantIndexOp::create(b, loc, w.constant);
    sum = sum ? bin(kir::BinaryKind::Add, sum, c) : c;
  }
  return bin(kir::BinaryKind::Max, sum, arith::ConstantIndexOp::create(b, loc, 0));
}

/// Whether a row loop's body has only accesses the masked form can guard (loads and stores: their
/// validity takes the lane's column < count) beside pure per-element code.
bool maskableBody(ForeachOp each) {
  return llvm::all_of(each.getBody().front().without_terminator(), [](Operation &op) {
    return isa<LoadOp, StoreOp>(op) || (isMemoryEffectFree(&op) && op.getNumRegions() == 0);
  });
}

/// Whether every use of `v` (through pure ops of the group body's prefix: a cast to index) is a
/// coordinate of a read inside a row loop: a row's index read (pos[t]) that only selects the rows other
/// reads gather (cos[pos[t], d]), each lane's gather then reading it again (one broadcast load of a
/// cached element) where a row's value entering the arithmetic (a bias) would stop being a scalar.
bool onlyGathersRows(Value v, Block &body) {
  return llvm::all_of(v.getUses(), [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (user->getBlock() == &body) {
      return isMemoryEffectFree(user) && user->getNumRegions() == 0 && user->getNumResults() == 1 &&
             onlyGathersRows(user->getResult(0), body);
    }
    auto inLoop = [&] { return user->getParentOfType<ForeachOp>() && body.getParentOp()->isProperAncestor(user); };
    if (auto load = dyn_cast<LoadOp>(user))
      return inLoop() && load.getCoords().getBeginOperandIndex() <= use.getOperandNumber() &&
             use.getOperandNumber() < load.getCoords().getBeginOperandIndex() + load.getCoords().size();
    if (auto gather = dyn_cast<GatherOp>(user))
      return inLoop() && gather.getCoords().getBeginOperandIndex() <= use.getOperandNumber() &&
             use.getOperandNumber() < gather.getCoords().getBeginOperandIndex() + gather.getCoords().size();
    return false;
  });
}

/// Whether a group's body is independent loops over rows: `pgpu.foreach` ops over [lo, hi) with lo a
/// launch value and hi a launch value (every member walks the same range: a row's columns or a slice
/// of them) or the clipped length of a slice starting at a member-dependent column (clippedLength:
/// a head's half in a packed row), beside pure index code and loads, with per-element bodies, and no
/// buffer, nor view outside one loop, both read and written in the group (a member's workspace row
/// counted, then copied out) (the loops' members are then independent across loops too, so each
/// loop may run on its own schedule of members). A view read and written inside one loop only (an
/// in-place update, construction's one element loop: x[t, h, lo] and x[t, h, hi] read, then written)
/// is fine: that loop's members are independent (a foreach) and so are the rows (seed 000 §5), so its
/// members over all rows are too, and no other loop or program touches the view.
bool isRowLoops(ExecutionGroupOp group, ProgramSpaceOp space) {
  Block &body = group.getBody().front();
  // Not under construction's dispatch guard pid < E (a last-program finalization): the programs that
  // cover a loop's members over all rows may outnumber the rows E.
  if (body.without_terminator().empty() || llvm::any_of(space.getBody().front(), [](Operation &op) {
        return isa<LastProgramOp>(op);
      }))
    return false;
  bool loops = false, rowLoads = false, dependent = false;
  for (Operation &op : body.without_terminator()) {
    auto each = dyn_cast<ForeachOp>(op);
    if (!each) {
      rowLoads |= isa<LoadOp>(op);
      // Pure index code, or a read of the row's own values (a head's scale): recomputed per member (the
      // decoded coordinates of a member in range are a row's), no view being both read and written.
      if ((!isMemoryEffectFree(&op) && !isa<LoadOp>(op)) || op.getNumRegions() != 0)
        return false;
      continue;
    }
    loops = true;
    if (!launchValue(each.getLower(), space))
      return false;
    if (!launchValue(each.getUpper(), space)) {
      if (!matchPattern(each.getLower(), m_Zero()) || !maskableBody(each) || !clippedLength(each.getUpper(), space))
        return false;
      dependent = true;
    }
    bool ordered = false;
    if (!isPerElement(each.getBody().front(), group.getBody(), ordered) || ordered)
      return false;
  }
  // Row reads beside loops that all share one range (a row's bias or weights read once) keep one row a
  // program: their values stay scalars there, where spreading rows over lanes would read them per lane
  // (not measured: issue 41 left those as they were). Pure index code (a pool's or stencil's rows
  // 2 * i + dy, their offsets) is recomputed per lane from the decoded row: a few integer ops a lane,
  // where one short row a program (a 2x2 pool's 56 outputs) leaves most lanes of its block idle and
  // launches a program per row. Code that computes a member-dependent slice's range comes with that
  // slice.
  // Row reads that only index other reads (a position id gathering its table rows) come along per lane.
  bool indexReads = llvm::all_of(body.without_terminator(), [&](Operation &op) {
    return !isa<LoadOp>(op) || onlyGathersRows(op.getResult(0), body);
  });
  if (!loops || (rowLoads && !dependent && !indexReads))
    return false;
  DenseSet<Value> read, written;
  DenseMap<Value, Operation *> home;  // a view -> the one row loop holding all its accesses, else null
  group.walk([&](Operation *op) {
    Value view;
    if (isa<LoadOp, GatherOp, BufferLoadOp>(op))
      read.insert(view = op->getOperand(0));
    else if (isa<StoreOp, ScatterOp, BufferStoreOp>(op))
      written.insert(view = op->getOperand(1));
    else if (auto sr = dyn_cast<ScatterReduceOp>(op))
      written.insert(view = sr.getView());
    if (!view)
      return;
    Operation *loop = op->getParentOfType<ForeachOp>();
    if (!loop || loop->getBlock() != &body || isa<BufferLoadOp, BufferStoreOp>(op) || !isa<LoadOp, StoreOp>(op))
      loop = nullptr;
    auto [it, fresh] = home.try_emplace(view, loop);
    if (!fresh && it->second != loop)
      it->second = nullptr;
  });
  return llvm::none_of(written, [&](Value v) { return read.contains(v) && !home.lookup(v); });
}

/// A group of row loops (isRowLoops): each program takes BLOCK_P consecutive members of every loop's
/// members over all rows (the row-major order of the group's axes then the loop's own range), so
/// short rows (a 64-member half row) fill a program's blocks instead of one row per program. Each
/// loop becomes a `pgpu.foreach` over [c * BLOCK_P, min(c * BLOCK_P + BLOCK_P, E * n)) (E the
/// group's members, n the loop's range, or its bound where the range depends on the member: then
/// the member's column is checked against its row's range in every access's validity), the column
/// and the row's coordinates decoded from its member, the group's index code recomputed from them;
/// the programs cover the longest loop. Returns the group's program count (built before the space).
Value refineRows(ProgramSpaceOp space, ExecutionGroupOp group, Value blockP) {
  OpBuilder b(space);
  Location loc = group.getLoc();
  auto bin = [&](kir::BinaryKind kind, Value l, Value r) {
    return BinaryOp::create(b, loc, kind, l, r, false, false).getResult();
  };
  Block &body = group.getBody().front();
  SmallVector<ForeachOp> loops;
  SmallVector<Operation *> prefix;  // the group's index code and row loads, recomputed per member
  for (Operation &op : body.without_terminator()) {
    if (auto each = dyn_cast<ForeachOp>(op))
      loops.push_back(each);
    else
      prefix.push_back(&op);
  }
  SmallVector<Value> extents(group.getExtents());
  Value rows = extents.front();
  for (Value e : ArrayRef<Value>(extents).drop_front())
    rows = bin(kir::BinaryKind::Mul, rows, e);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> columns, members;
  SmallVector<bool> masked;
  Value longest;
  for (ForeachOp each : loops) {
    Value n;
    masked.push_back(!launchValue(each.getUpper(), space));
    if (masked.back())
      n = materialize(b, loc, *clippedLength(each.getUpper(), space));
    else
      n = matchPattern(each.getLower(), m_Zero())
              ? each.getUpper()
              : bin(kir::BinaryKind::Max, bin(kir::BinaryKind::Sub, each.getUpper(), each.getLower()), zero);
    columns.push_back(n);
    members.push_back(bin(kir::BinaryKind::Mul, rows, n));
    longest = longest ? bin(kir::BinaryKind::Max, longest, members.back()) : members.back();
  }
  Value programs = CeilDivOp::create(b, loc, longest, blockP);
  group.getExtentsMutable().assign(ValueRange{programs});
  SmallVector<StringRef> roles;
  for (Attribute r : group.getRoles())
    roles.push_back(cast<StringAttr>(r).getValue());
  group.setRolesAttr(b.getStrArrayAttr({llvm::join(roles, "*")}));

  SmallVector<BlockArgument> coords(body.getArguments());
  BlockArgument owner = body.addArgument(b.getIndexType(), loc);
  b.setInsertionPointToStart(&body);
  Value lo = bin(kir::BinaryKind::Mul, owner, blockP);
  Value end = bin(kir::BinaryKind::Add, lo, blockP);
  for (auto [each, n, count, mask] : llvm::zip(loops, columns, members, masked)) {
    b.setInsertionPoint(each);
    auto flat = ForeachOp::create(b, loc, lo, bin(kir::BinaryKind::Min, end, count));
    Block *flatBody = b.createBlock(&flat.getBody());
    Value member = flatBody->addArgument(b.getIndexType(), loc);
    IRMapping map;
    Value column = bin(kir::BinaryKind::Rem, member, n);
    Value rest = bin(kir::BinaryKind::Div, member, n);
    map.map(each.getBody().front().getArgument(0),
            matchPattern(each.getLower(), m_Zero()) ? column : bin(kir::BinaryKind::Add, each.getLower(), column));
    for (size_t i = coords.size(); i-- > 0;) {
      Value at = rest;
      if (i > 0) {
        at = bin(kir::BinaryKind::Rem, rest, extents[i]);
        rest = bin(kir::BinaryKind::Div, rest, extents[i]);
      }
      map.map(coords[i], at);
    }
    SmallVector<Operation *> copies;
    for (Operation *op : prefix)
      copies.push_back(b.clone(*op, map));
    Value inRow;
    if (mask)
      inRow = CmpOp::create(b, loc, kir::CmpPredicate::LT, column, map.lookup(each.getUpper()));
    for (Operation &op : each.getBody().front()) {
      Operation *copy = b.clone(op, map);
      if (!inRow)
        continue;
      if (auto load = dyn_cast<LoadOp>(copy)) {
        b.setInsertionPoint(load);
        load.getValidMutable().assign(bin(kir::BinaryKind::And, load.getValid(), inRow));
        b.setInsertionPointAfter(load);
      } else if (auto store = dyn_cast<StoreOp>(copy)) {
        b.setInsertionPoint(store);
        store.getValidMutable().assign(bin(kir::BinaryKind::And, store.getValid(), inRow));
        b.setInsertionPointAfter(store);
      }
    }
    for (Operation *copy : llvm::reverse(copies))  // the index code this loop does not use
      if (copy->use_empty())
        copy->erase();
  }
  for (ForeachOp each : loops)
    each.erase();
  for (Operation *op : llvm::reverse(prefix))
    op->erase();
  body.eraseArguments(0, coords.size());
  return programs;
}

/// Whether `bound` is the program count of `group`: the product of its extents, or 1 for a group
/// without axes (one instance: construction's segment of a kernel-level statement).
bool countsGroup(Value bound, ExecutionGroupOp group) {
  if (group.getExtents().empty())
    return matchPattern(bound, m_One());
  return isProduct(bound, group.getExtents());
}

} // namespace

void pgpu::Dispatch::setCount(unsigned i, Value programs) {
  if (i < shifts.size()) {
    bounds[i]->setOperand(1, programs);
    shifts[i]->setOperand(1, programs);
  } else if (end && i + 1 == groups.size()) {
    end->setOperand(1, programs);
  }
}

namespace {
/// The execution group a segment's guard holds: alone, or (with `waits`) after result-less
/// pgpu.while loops that wait (Workset::waitsForFill in construction) and pure ops; null otherwise.
ExecutionGroupOp guardBody(Block &then, bool waits) {
  if (then.getOperations().size() < 2)
    return {};
  auto group = dyn_cast<ExecutionGroupOp>(*std::prev(then.end(), 2));
  if (!group)
    return {};
  for (Operation &op : then) {
    if (&op == group.getOperation() || op.hasTrait<OpTrait::IsTerminator>())
      continue;
    if (!waits)
      return {};
    if (auto loop = dyn_cast<WhileOp>(op); loop && !loop.getNumResults())
      continue;
    if (!op.hasTrait<OpTrait::ConstantLike>() && !isMemoryEffectFree(&op))
      return {};
  }
  return group;
}
} // namespace

bool pgpu::dispatchChain(Block &block, Value linear, Dispatch &out, bool guardedEnd) {
  Operation *routing = nullptr;
  for (Operation &op : block.without_terminator()) {
    if (isa<ExecutionGroupOp, IfOp>(op)) {
      if (routing)
        return false;
      routing = &op;
      continue;
    }
    // The space's own finalization (no coordinates) follows every segment (with guardedEnd).
    if (auto last = dyn_cast<LastProgramOp>(op); last && guardedEnd && last.getCoords().empty())
      continue;
    if (!op.hasTrait<OpTrait::ConstantLike>() && !isMemoryEffectFree(&op))
      return false;
  }
  if (auto group = dyn_cast_or_null<ExecutionGroupOp>(routing)) {
    out.groups.push_back(group);
    return group.getLinear() == linear && (!group.getExtents().empty() || !out.bounds.empty());
  }
  auto guard = dyn_cast_or_null<IfOp>(routing);
  if (!guard || guard.getNumResults())
    return false;
  // A guard without else ends a ticketed chain of several segments (with guardedEnd only).
  bool ends = guard.getElseRegion().empty();
  if (ends && (!guardedEnd || out.bounds.empty()))
    return false;
  auto bound = guard.getCondition().getDefiningOp<CmpOp>();
  Block &then = guard.getThenRegion().front();
  ExecutionGroupOp first = guardBody(then, guardedEnd);
  if (!bound || bound.getPredicate() != kir::CmpPredicate::LT || bound.getLhs() != linear || !first ||
      first.getLinear() != linear || !countsGroup(bound.getRhs(), first))
    return false;
  if (ends) {
    out.groups.push_back(first);
    out.end = bound;
    return true;
  }
  Block &other = guard.getElseRegion().front();
  auto shift = other.empty() ? BinaryOp() : dyn_cast<BinaryOp>(other.front());
  if (!shift || shift.getKind() != kir::BinaryKind::Sub || shift.getLhs() != linear || shift.getRhs() != bound.getRhs())
    return false;
  out.groups.push_back(first);
  out.bounds.push_back(bound);
  out.shifts.push_back(shift);
  return dispatchChain(other, shift.getResult(), out, guardedEnd);
}

namespace {
struct RefineMapping : public tessel::pgpu::impl::PGPURefineMappingBase<RefineMapping> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      ProgramSpaceOp space;
      kernel.walk([&](ProgramSpaceOp s) { space = s; });
      if (!space)
        continue;
      ExecutionGroupOp group = soleExecutionGroup(space, /*finalization=*/true);
      bool remarks = remarksEnabled(kernel);
      // A group with no axes (a rank-0 store, a kernel without kir.parallel) is one instance:
      // there is no innermost axis whose members a program could take several of.
      if (group && group.getExtents().empty()) {
        if (remarks)
          space.emitRemark() << "pgpu-refine-mapping: one instance per program kept: the group has no axes";
        continue;
      }
      bool ordered = false;
      // Row loops in every segment of the dispatch (one group, or construction's chain of several: each
      // segment's program count becomes its own, the chain's bounds and the space's total follow).
      Dispatch dispatch;
      bool chained = !kernel.getParam(kBlockP) && space.getExtents().size() == 1 &&
                     dispatchChain(space.getBody().front(), space.getBody().getArgument(0), dispatch,
                                   /*guardedEnd=*/true);
      if (chained && llvm::all_of(dispatch.groups, [&](ExecutionGroupOp g) {
            return !g.getExtents().empty() && isRowLoops(g, space);
          })) {
        OpBuilder b(space);
        Value blockP = ParamOp::create(b, space.getLoc(), b.getIndexType(), kBlockP);
        Value total;
        for (auto [i, g] : llvm::enumerate(dispatch.groups)) {
          Value programs = refineRows(space, g, blockP);
          dispatch.setCount(i, programs);
          b.setInsertionPoint(space);
          total = total ? BinaryOp::create(b, g.getLoc(), kir::BinaryKind::Add, total, programs, false, false)
                              .getResult()
                        : programs;
          if (remarks)
            g.emitRemark() << "pgpu-refine-mapping: each program owns BLOCK_P consecutive members of the rows' "
                              "loops (several rows per program)";
        }
        space->setOperand(0, atLeastOne(space, dispatch, total));
        declareBlockP(kernel, /*ordered=*/false);
        continue;
      }
      // Several segments (construction's chain), some of them per-element worksets beside others (a
      // kernel-level reduction's one instance beside an elementwise store): each per-element segment
      // takes BLOCK_P members a program as a sole one would; the others keep their programs.
      if (chained && dispatch.groups.size() > 1 && refineSegments(space, dispatch, remarks, ordered)) {
        declareBlockP(kernel, ordered);
        continue;
      }
      if (!group || !isPerElement(group.getBody().front(), group.getBody(), ordered) || kernel.getParam(kBlockP)) {
        if (remarks)
          space.emitRemark() << "pgpu-refine-mapping: one instance per program kept: "
                             << (!group && chained ? "the program space has several segments, none of them per-element "
                                                     "work (each holds loops or fragments: a tiled product owns its tile)"
                                 : !group ? "the program space has several segments or dispatch code"
                                        : "the group body has loops, control or fragments (it owns more than an "
                                          "element already)");
        continue;
      }
      bool streams = ordered && streamsPerMember(group);
      bool branches = group.walk([](IfOp) { return WalkResult::interrupt(); }).wasInterrupted();
      refine(space, group);
      if (remarks)
        group.emitRemark() << "pgpu-refine-mapping: each program owns BLOCK_P consecutive members of the workset"
                           << (ordered && !streams ? " (its loop reads no member's own values: elementwise-sized)"
                                                   : "")
                           << (branches ? " (its ifs per member run both branches a block, each masked by its "
                                          "members' condition)"
                                        : "");
      declareBlockP(kernel, streams);
    }
  }

  /// Refines every per-element group of `dispatch` (refineGroup), replacing its count in the chain's
  /// bound and shift and in the space's total (the sum of every segment's programs). False, with
  /// nothing changed, when no group is per-element.
  /// `ordered` is set when a refined group's members walk an ordered loop that streams their own values.
  static bool refineSegments(ProgramSpaceOp space, Dispatch &dispatch, bool remarks, bool &ordered) {
    SmallVector<bool> per;
    for (ExecutionGroupOp g : dispatch.groups) {
      bool walks = false;
      per.push_back(!g.getExtents().empty() && isPerElement(g.getBody().front(), g.getBody(), walks));
      ordered |= per.back() && walks && streamsPerMember(g);
    }
    if (llvm::none_of(per, [](bool p) { return p; }))
      return false;
    OpBuilder b(space);
    Value total;
    for (auto [i, g] : llvm::enumerate(dispatch.groups)) {
      Value programs;
      if (per[i]) {
        programs = refineGroup(space, g);
        dispatch.setCount(i, programs);
        if (remarks)
          g.emitRemark() << "pgpu-refine-mapping: each program owns BLOCK_P consecutive members of the "
                            "workset (one segment of several)";
      } else {
        // The segment's own count, its extents' product (the chain's bound), built before the space.
        b.setInsertionPoint(space);
        if (g.getExtents().empty()) {
          programs = arith::ConstantIndexOp::create(b, g.getLoc(), 1);
        } else {
          programs = g.getExtents().front();
          for (Value e : g.getExtents().drop_front())
            programs = BinaryOp::create(b, g.getLoc(), kir::BinaryKind::Mul, programs, e, false, false);
        }
      }
      b.setInsertionPoint(space);
      total = total ? BinaryOp::create(b, g.getLoc(), kir::BinaryKind::Add, total, programs, false, false).getResult()
                    : programs;
    }
    space->setOperand(0, atLeastOne(space, dispatch, total));
    return true;
  }

  /// The space's total: `total`, or at least one instance where the chain ends in a guard (a
  /// ticketed space: its last arrival runs the finalization even when every segment is empty).
  static Value atLeastOne(ProgramSpaceOp space, Dispatch &dispatch, Value total) {
    if (!dispatch.end)
      return total;
    OpBuilder b(space);
    return BinaryOp::create(b, space.getLoc(), kir::BinaryKind::Max, total,
                            arith::ConstantIndexOp::create(b, space.getLoc(), 1), false, false);
  }

  /// `ordered`: the refined members walk loops that stream their own values (streamsPerMember).
  static void declareBlockP(KernelOp kernel, bool ordered) {
    SmallVector<Attribute> params;
    if (auto existing = kernel.getParams())
      params.assign(existing->begin(), existing->end());
    // Members that each run an ordered loop are one block of lanes per program (form-blocking):
    // where the loop streams each member's own values (a recurrence reading x[t, c] each step), fewer
    // per program keep more programs walking their loops at once. A loop that reads only values every
    // member shares (Horner's rule over runtime coefficients) is elementwise work per member: the
    // elementwise sizes, so each shared read serves a wide block of lanes (seed 002 §3.2).
    if (ordered)
      params.push_back(ParamAttr::get(kernel.getContext(), StringAttr::get(kernel.getContext(), kBlockP),
                                      {16, 32, 64, 128, 256, 512, 1024}, 64, StringAttr()));
    else
      params.push_back(ParamAttr::get(kernel.getContext(), StringAttr::get(kernel.getContext(), kBlockP),
                                      {256, 512, 1024, 2048, 4096}, 2048, StringAttr()));
    kernel.setParamsAttr(ArrayAttr::get(kernel.getContext(), params));
  }
};
} // namespace
