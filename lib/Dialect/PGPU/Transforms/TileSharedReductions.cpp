//===- TileSharedReductions.cpp - [TILE_M, TILE_N] members over a shared row ----===//
//
// A sole execution group whose last two axes are (a, b) (pgpu-flatten-worksets' members of an
// outer `T.parallel` and its inner vector axis; leading axes stay members of the program) whose per-member reduction over r reads, at each r, only
// values that do not depend on a (a table row t[b, r] every member of a shares: 278's cut points
// cuts[f, c] of a member (n, f)) besides per-member values that do not depend on r (x[n, f]):
//
//   out[a, b] = reduce_r g(v(a, b), t(b, r))
//
// One member per program (or ROWS of them, pgpu-pack-rows) reads the whole row t[b, :] again for
// every member of a and reduces it across lanes: NB compares and a lane reduction a member, the
// table's row re-read from L2 a program. Here a program owns a [TILE_M, TILE_N] tile of members
// (b contiguous in lanes: the per-member reads and writes coalesce along b) and walks r serially
// (a `pgpu.for` step 1), reading t[b-lanes, r] as one [TILE_N] fragment a trip that every member of
// a in the tile reuses from registers, and combining each member's term into a [TILE_M, TILE_N]
// carry: no cross-lane reduction, the table read once a program (seed 002 §3.2: a program may own
// any set of independent members; seed 000 §8: the reduction's terms may be regrouped, here in r
// order). Values of the element that do not depend on r (v and what follows from it alone) are
// computed once before the walk (seed 002 §3.4: a value is realized once where it is invariant).
//
// Must not fire: a group of fewer than two axes, or not the whole program space; a body with loops or
// control other than such reductions, writes whose last coordinate does not walk b alone, atomics
// or scatters; a reduction whose bounds depend on the members; an element read that walks r at
// coordinates that depend on a (each member reads its own row: nothing is shared, a dot product's
// x[n, r]); a reduction whose terms do not depend on a (every member of a would compute the same
// value: pgpu-hoist-invariant-reductions' concern); a kernel that declares TILE_M or TILE_N already.
//
//===----------------------------------------------------------------------===//

#include "TileBodies.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUTILESHAREDREDUCTIONS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// The lanes over the outer (shared) axis a and over the inner axis b.
constexpr llvm::StringLiteral kOuterParam = "TILE_M";
constexpr llvm::StringLiteral kInnerParam = "TILE_N";

/// Fragment axes of a value: a's lanes, b's lanes, or both ([TILE_M, TILE_N]).
enum Axes : unsigned { None = 0, Outer = 1, Inner = 2 };

/// Why `group` is not a shared-row reduction group (see the file comment), or empty when it is.
std::string whyNot(ExecutionGroupOp group) {
  auto space = dyn_cast<ProgramSpaceOp>(group->getParentOp());
  if (!space || soleExecutionGroup(space, /*finalization=*/false) != group ||
      !isProductOf(space.getExtents()[0], SmallVector<Value>(group.getExtents())))
    return "the group is not the whole program space";
  Block &body = group.getBody().front();
  unsigned rank = body.getNumArguments();
  if (rank < 2)
    return "the group has fewer than two axes";
  Region &region = group.getBody();
  DenseSet<Value> onA, onB;
  dependents(body.getArgument(rank - 2), region, onA);
  dependents(body.getArgument(rank - 1), region, onB);
  bool fragmentFromOutside = false;
  region.walk([&](Operation *op) {
    for (Value v : op->getOperands())
      if (isa<FragmentType>(v.getType()) && !region.isAncestor(v.getParentRegion()))
        fragmentFromOutside = true;
  });
  if (fragmentFromOutside)
    return "it uses fragments from outside";
  bool shared = false;
  for (Operation &op : body.without_terminator()) {
    if (isPointwiseOrRead(op))
      continue;
    if (auto store = dyn_cast<StoreOp>(op)) {
      ValueRange coords = store.getCoords();
      if (coords.empty() || !onB.contains(coords.back()) || onA.contains(coords.back()))
        return "a write's contiguous coordinate does not walk the inner axis alone";
      if (!llvm::any_of(coords, [&](Value c) { return onA.contains(c); }))
        return "a write does not depend on the outer axis";
      continue;
    }
    auto reduce = dyn_cast<RangeReduceOp>(op);
    if (!reduce)
      return "its body has loops, control, scatters, atomics or workspace accesses";
    // Bounds from outside the group: the same for every member, so a tile's members walk r together.
    if (region.isAncestor(reduce.getLower().getParentRegion()) ||
        region.isAncestor(reduce.getUpper().getParentRegion()))
      return "a reduction's bounds are computed in the group";
    Block &element = reduce.getElement().front();
    if (!llvm::all_of(element.without_terminator(), isPointwiseOrRead) ||
        llvm::any_of(reduce.getCombine().front().without_terminator(),
                     [](Operation &c) { return c.getNumRegions() > 0 || !isPointwiseOrRead(c); }))
      return "a reduction's element or combine is not straight-line pointwise code and reads";
    if (llvm::any_of(reduce.getResultTypes(), [](Type t) { return isa<FragmentType>(t); }))
      return "a reduction has fragment results";
    DenseSet<Value> onR;
    dependents(element.getArgument(0), reduce.getElement(), onR);
    for (Operation &inner : element.without_terminator()) {
      std::optional<ValueRange> coords = readCoords(inner);
      if (!coords || !llvm::any_of(*coords, [&](Value c) { return onR.contains(c); }))
        continue;
      // The fact this pass acts on: a read that walks r is the same for every member of a.
      if (llvm::any_of(inner.getOperands(), [&](Value v) { return onA.contains(v); }))
        return "a read walks the reduced axis at coordinates of the outer axis (no row is shared)";
      shared = true;
    }
    if (llvm::none_of(element.getTerminator()->getOperands(), [&](Value y) { return onA.contains(y); }))
      return "a reduction's terms do not depend on the outer axis";
  }
  if (!shared)
    return "no reduction reads a row every member of the outer axis shares";
  return "";
}

/// Clones a shared-row reduction group's body as one [TILE_M, TILE_N] tile of its members.
class SharedTiler {
public:
  SharedTiler(OpBuilder &b, Region &original)
      : b(b), outer(b.getStringAttr(kOuterParam)), inner(b.getStringAttr(kInnerParam)) {
    Block &body = original.front();
    unsigned rank = body.getNumArguments();
    dependents(body.getArgument(rank - 2), original, onA);
    dependents(body.getArgument(rank - 1), original, onB);
  }

  /// Binds a and b to the tile's lanes from `a0` and `b0` (valid below `ea`, `eb`) and clones `ops`.
  void tile(ArrayRef<Operation *> ops, Value a, Value bAxis, Value a0, Value b0, Value ea, Value eb) {
    Location loc = a.getLoc();
    map.map(a, lanes(loc, outer, a0, ea, outerOk));
    map.map(bAxis, lanes(loc, inner, b0, eb, innerOk));
    for (Operation *op : ops)
      cloneOp(*op);
  }

private:
  Value lanes(Location loc, StringAttr param, Value start, Value hi, Value &ok) {
    auto type = FragmentType::get(b.getContext(), b.getIndexType(), {param});
    Value iota = IotaOp::create(b, loc, type, start);
    ok = CmpOp::create(b, loc, kir::CmpPredicate::LT, iota, SplatOp::create(b, loc, type, hi));
    return iota;
  }
  unsigned axesOf(Value v) const {
    auto type = dyn_cast<FragmentType>(v.getType());
    if (!type)
      return None;
    unsigned m = None;
    for (Attribute e : type.getExtents())
      m |= e == outer ? Outer : e == inner ? Inner : None;
    return m;
  }
  /// The axes an original value will have: those of the members it depends on.
  unsigned axesOfOriginal(Value v) const { return (onA.contains(v) ? Outer : None) | (onB.contains(v) ? Inner : None); }
  Type typeFor(Type element, unsigned m) {
    SmallVector<Attribute> extents;
    if (m & Outer)
      extents.push_back(outer);
    if (m & Inner)
      extents.push_back(inner);
    return extents.empty() ? element : Type(FragmentType::get(b.getContext(), element, extents));
  }
  Value expand(Location loc, Value v, unsigned to) {
    unsigned from = axesOf(v);
    if (from == to)
      return v;
    Type type = typeFor(elementTypeOf(v.getType()), to);
    if (from == None)
      return SplatOp::create(b, loc, type, v);
    return BroadcastOp::create(b, loc, type, v, b.getDenseI64ArrayAttr({from == Outer ? 0 : 1}));
  }
  Value mapped(Location loc, Value original, unsigned to) { return expand(loc, map.lookupOrDefault(original), to); }
  unsigned axesOfOperands(ValueRange originals) {
    unsigned m = None;
    for (Value v : originals)
      m |= axesOf(map.lookupOrDefault(v));
    return m;
  }
  /// `own` (original IR) conjoined with the lane validity of every axis in `m`.
  Value conjoin(Location loc, Value own, unsigned m) {
    Value ok;
    for (auto [axis, valid] : {std::pair{unsigned(Outer), outerOk}, std::pair{unsigned(Inner), innerOk}}) {
      if (!(m & axis))
        continue;
      Value mine = expand(loc, valid, m);
      ok = ok ? Value(BinaryOp::create(b, loc, kir::BinaryKind::And, ok, mine, false, false)) : mine;
    }
    if (matchPattern(own, m_One()))
      return ok;
    return BinaryOp::create(b, loc, kir::BinaryKind::And, mapped(loc, own, m), ok, false, false);
  }
  SmallVector<Value> coordsOver(Location loc, ValueRange coords, unsigned m) {
    SmallVector<Value> out;
    for (Value c : coords) {
      Value now = map.lookupOrDefault(c);
      out.push_back(axesOf(now) == None ? now : expand(loc, now, m));
    }
    return out;
  }

  void cloneOp(Operation &op) {
    Location loc = op.getLoc();
    if (auto reduce = dyn_cast<RangeReduceOp>(op))
      return tileReduce(reduce);
    if (auto load = dyn_cast<LoadOp>(op))
      return cloneRead(op, load.getView(), load.getCoords(), load.getValid(), load.getFill());
    if (auto gather = dyn_cast<GatherOp>(op))
      return cloneRead(op, gather.getView(), gather.getCoords(), gather.getValid(), gather.getFill());
    if (auto store = dyn_cast<StoreOp>(op)) {
      ValueRange coords = store.getCoords();
      unsigned m = axesOfOperands(coords) | axesOfOperands(op.getOperand(0)) | axesOfOperands(store.getValid());
      SmallVector<Value> newCoords = coordsOver(loc, coords, m);
      StoreOp::create(b, loc, mapped(loc, op.getOperand(0), m), op.getOperand(1), newCoords,
                      conjoin(loc, store.getValid(), m));
      return;
    }
    unsigned m = axesOfOperands(op.getOperands());
    if (m == None) {
      b.clone(op, map);
      return;
    }
    // Pointwise over the union of its operands' axes (a scalar select condition stays scalar).
    SmallVector<Value> operands;
    for (auto [i, v] : llvm::enumerate(op.getOperands()))
      operands.push_back(isa<SelectOp>(op) && i == 0 && axesOf(map.lookupOrDefault(v)) == None
                             ? map.lookupOrDefault(v)
                             : mapped(loc, v, m));
    OperationState state(loc, op.getName(), operands, {typeFor(op.getResult(0).getType(), m)}, op.getAttrs());
    map.map(op.getResult(0), b.create(state)->getResult(0));
  }

  void cloneRead(Operation &op, Value view, ValueRange coords, Value valid, Value fill) {
    Location loc = op.getLoc();
    unsigned m = axesOfOperands(coords) | axesOfOperands(valid);
    if (m == None) {
      b.clone(op, map); // a uniform read: once per tile (per trip in the walk)
      return;
    }
    SmallVector<Value> newCoords = coordsOver(loc, coords, m);
    Value ok = conjoin(loc, valid, m);
    Type type = typeFor(op.getResult(0).getType(), m);
    Value result = isa<LoadOp>(op)
                       ? Value(LoadOp::create(b, loc, type, view, newCoords, ok, map.lookupOrDefault(fill)))
                       : Value(GatherOp::create(b, loc, type, view, newCoords, ok, map.lookupOrDefault(fill)));
    map.map(op.getResult(0), result);
  }

  /// `for r = lo to hi step 1 iter_args(acc = identity)`: the element's r-invariant values first (once
  /// a tile), then each trip's term combined into the [TILE_M, TILE_N] carry (seed 000 §8: terms in r
  /// order, any association is the reduction's).
  void tileReduce(RangeReduceOp op) {
    Location loc = op.getLoc();
    Block &element = op.getElement().front();
    DenseSet<Value> onR;
    dependents(element.getArgument(0), op.getElement(), onR);
    for (Operation &inner : element.without_terminator())
      if (llvm::none_of(inner.getResults(), [&](Value v) { return onR.contains(v); }))
        cloneOp(inner);
    SmallVector<Value> inits;
    SmallVector<unsigned> carryAxes;
    for (auto [y, id] : llvm::zip(element.getTerminator()->getOperands(), op.getIdentities())) {
      carryAxes.push_back(axesOfOriginal(y) | axesOfOriginal(id));
      inits.push_back(mapped(loc, id, carryAxes.back()));
    }
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value lo = map.lookupOrDefault(op.getLower()), hi = map.lookupOrDefault(op.getUpper());
    auto loop = ForOp::create(b, loc, TypeRange(ValueRange(inits)), lo, hi, one, inits);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *body = b.createBlock(&loop.getBody());
      map.map(element.getArgument(0), body->addArgument(b.getIndexType(), loc));
      SmallVector<Value> carry;
      for (Value i : inits)
        carry.push_back(body->addArgument(i.getType(), loc));
      for (Operation &inner : element.without_terminator())
        if (llvm::any_of(inner.getResults(), [&](Value v) { return onR.contains(v); }))
          cloneOp(inner);
      Block &combine = op.getCombine().front();
      unsigned n = inits.size();
      for (unsigned i = 0; i < n; ++i) {
        map.map(combine.getArgument(i), carry[i]);
        map.map(combine.getArgument(n + i), mapped(loc, element.getTerminator()->getOperand(i), carryAxes[i]));
      }
      for (Operation &c : combine.without_terminator())
        cloneOp(c);
      SmallVector<Value> next;
      for (auto [i, y] : llvm::enumerate(combine.getTerminator()->getOperands()))
        next.push_back(mapped(loc, y, carryAxes[i]));
      YieldOp::create(b, loc, next);
    }
    for (auto [r, v] : llvm::zip(op.getResults(), loop.getResults()))
      map.map(r, v);
  }

  OpBuilder &b;
  StringAttr outer, inner;
  DenseSet<Value> onA, onB;
  IRMapping map;
  Value outerOk, innerOk;
};

/// The group's last two axes become blocks of TILE_M and TILE_N members (extents ceil(E / TILE), the
/// program space the product of all its extents again), the body one tile; leading axes stay members.
void tileGroup(OpBuilder &b, ExecutionGroupOp group) {
  Location loc = group.getLoc();
  auto space = group->getParentOfType<ProgramSpaceOp>();
  b.setInsertionPoint(space);
  SmallVector<Value> extents(group.getExtents());
  unsigned rank = extents.size(), first = rank - 2;
  Value members[2] = {extents[first], extents[first + 1]};
  StringRef names[2] = {kOuterParam, kInnerParam};
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (unsigned axis = 0; axis < 2; ++axis) {
    Value step = ParamOp::create(b, loc, b.getIndexType(), names[axis]);
    extents[first + axis] =
        BinaryOp::create(b, loc, kir::BinaryKind::Max, CeilDivOp::create(b, loc, members[axis], step), zero, false, false);
  }
  Value total = extents[0];
  for (Value e : ArrayRef<Value>(extents).drop_front())
    total = BinaryOp::create(b, loc, kir::BinaryKind::Mul, total, e, false, false);
  space->setOperand(0, total);
  group.getExtentsMutable().assign(extents);
  Block &body = group.getBody().front();
  SmallVector<Operation *> old;
  for (Operation &op : body.without_terminator())
    old.push_back(&op);
  b.setInsertionPointToStart(&body);
  Value starts[2];
  for (unsigned axis = 0; axis < 2; ++axis)
    starts[axis] = BinaryOp::create(b, loc, kir::BinaryKind::Mul, body.getArgument(first + axis),
                                    ParamOp::create(b, loc, b.getIndexType(), names[axis]), false, false);
  SharedTiler(b, group.getBody())
      .tile(old, body.getArgument(first), body.getArgument(first + 1), starts[0], starts[1], members[0], members[1]);
  for (Operation *op : llvm::reverse(old))
    op->erase();
}

struct TileSharedReductions : public tessel::pgpu::impl::PGPUTileSharedReductionsBase<TileSharedReductions> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      bool remarks = remarksEnabled(kernel);
      if (kernel.getParam(kOuterParam) || kernel.getParam(kInnerParam))
        continue;
      SmallVector<ExecutionGroupOp> groups;
      kernel.walk([&](ExecutionGroupOp group) { groups.push_back(group); });
      for (ExecutionGroupOp group : groups) {
        bool reduces = llvm::any_of(group.getBody().front(), [](Operation &op) { return isa<RangeReduceOp>(op); });
        if (!reduces)
          continue;
        std::string why = whyNot(group);
        if (!why.empty()) {
          if (remarks)
            emitRemark(group.getLoc()) << "pgpu-tile-shared-reductions: not tiled: " << why;
          continue;
        }
        OpBuilder b(group);
        tileGroup(b, group);
        // [128, 32] at the defaults: rows of 32 contiguous elements (one 128-byte line of f32) per
        // member of a, 32 members a lane at 4 warps; each trip's [32] table read serves 128 members
        // (a lane's few columns of it: one table element read a lane per 32 terms). TILE_N covers no
        // extent: a tile as wide as the inner axis would read 4x the table lanes per term.
        declareTileParam(kernel, kOuterParam, {1, 2, 4, 8, 16, 32, 64, 128, 256}, 128, StringAttr());
        declareTileParam(kernel, kInnerParam, {16, 32, 64, 128, 256}, 32, StringAttr());
        if (remarks)
          emitRemark(group.getLoc()) << "pgpu-tile-shared-reductions: [TILE_M, TILE_N] tiles of members walk the "
                                        "reduced axis serially, each trip's shared row read once a tile";
      }
    }
  }
};
} // namespace
