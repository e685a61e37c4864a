//===- FormBlocking.cpp - fragments for independent loops and reductions ---===//
//
// seed 002 §3.3: rewrite scalar work ownership into parameterized fragments.
// A `pgpu.foreach` (independent iterations), `pgpu.range_reduce`
// (associative/commutative members) or `pgpu.range_scan` (associative,
// ordered members) over [lo, hi) becomes an ordered loop over blocks of BLOCK
// members whose body works on `!pgpu.fragment<_, [BLOCK]>` values. Ordered loops are never blocked:
// blocking them would change what the author ordered (seed 002 §4); one inside a blocked body whose
// bounds every lane shares runs its iterations in order for all the lanes at once, its lane-dependent
// carries fragments (a recurrence or accumulator per member, CarriedTensors.cpp).
//
// A perfect nest of such loops over a rectangular product space (a reduction
// over several axes, the stores of a several-axis tile) is first one loop over
// the product, its members' coordinates recovered with div/rem, so one block
// fills BLOCK lanes however short each axis is. In a block loop those div/rem
// of the lanes are carried from one scalar division a block (carryLaneDivisions).
//
// A kernel-level reduction (the only one of a group without axes) becomes a region fold over blocks
// instead of a loop, its [BLOCK] accumulator reduced once after it, so pgpu-split-folds may cut its
// blocks across programs (seed 002 §3.4).
//
// When every loop blocked in a kernel spans [0, S) of one named shape symbol S
// (a row of a view), BLOCK declares `covers = "S"`: a call's default then binds
// the smallest BLOCK at least the row, so the loop runs once with the whole
// row in one fragment (and stage-rows' single-pass path is taken) whenever a
// candidate fits (seed 003: defaults from facts of the call). Where every such
// loop walks a slice of one constant width w clipped to its row (a row's blocks
// of 128 columns; SliceWidth.h) or a constant range [0, w) (a 64x64 matrix's
// row), BLOCK declares `covers = "w"` (the number): no block needs more than w
// lanes, at any call. Ranges of different constant widths declare the widest.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "PerfectNests.h"
#include "tessel/Dialect/PGPU/IR/IndexSign.h"
#include "tessel/Dialect/PGPU/IR/SliceWidth.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

#include <map>

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUFORMBLOCKING
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::nests;

namespace {
/// Clones a straight-line body one block of lanes at a time: values that
/// depend on the loop index become fragments, the rest stay scalars.
class Fragmenter {
public:
  Fragmenter(OpBuilder &b, Value laneOk, StringAttr block) : b(b), laneOk(laneOk), block(block) {}

  FragmentType fragmentOf(Type element) { return FragmentType::get(element.getContext(), element, {block}); }
  bool isFragment(Value v) { return isa<FragmentType>(v.getType()); }
  Value splat(Location loc, Value scalar) {
    return SplatOp::create(b, loc, fragmentOf(scalar.getType()), scalar);
  }
  Value asFragment(Location loc, Value v) { return isFragment(v) ? v : splat(loc, v); }
  Value mapped(Value v) { return map.lookupOrDefault(v); }
  /// The lanes whose accesses are active from here on.
  void setLaneOk(Value ok) { laneOk = ok; }
  Value getLaneOk() const { return laneOk; }

  /// Lane validity conjoined with an access's own validity.
  Value validity(Location loc, Value own) {
    Value mine = asFragment(loc, mapped(own));
    return BinaryOp::create(b, loc, kir::BinaryKind::And, mine, laneOk, false, false);
  }

  LogicalResult clone(Operation &op) {
    Location loc = op.getLoc();
    if (isa<arith::ConstantOp, ParamOp, ExtentOp, StrideOp, CeilDivOp>(op)) {
      b.clone(op, map);
      return success();
    }
    if (isa<BinaryOp, UnaryOp, CmpOp, SelectOp, CastOp, BitcastOp>(op)) {
      bool anyFragment = llvm::any_of(op.getOperands(), [&](Value v) { return isFragment(mapped(v)); });
      if (!anyFragment) {
        b.clone(op, map);
        return success();
      }
      SmallVector<Value> operands;
      for (auto [i, v] : llvm::enumerate(op.getOperands())) {
        Value m = mapped(v);
        // A scalar select condition may stay scalar; everything else is lane-wide.
        operands.push_back(isa<SelectOp>(op) && i == 0 ? m : asFragment(loc, m));
      }
      OperationState state(loc, op.getName(), operands, {fragmentOf(op.getResult(0).getType())}, op.getAttrs());
      map.map(op.getResult(0), b.create(state)->getResult(0));
      return success();
    }
    if (auto load = dyn_cast<LoadOp>(op))
      return cloneRead(op, load.getView(), load.getCoords(), load.getValid(), load.getFill());
    if (auto gather = dyn_cast<GatherOp>(op))
      return cloneRead(op, gather.getView(), gather.getCoords(), gather.getValid(), gather.getFill());
    if (auto read = dyn_cast<BufferLoadOp>(op)) {
      // Workspace is shared memory of the invocation, read at explicit coordinates like a view;
      // program and iteration buffers hold one value per program, not per lane.
      if (cast<BufferType>(read.getBuffer().getType()).getScope() != BufferScope::Workspace)
        return failure();
      return cloneRead(op, read.getBuffer(), read.getCoords(), read.getValid(), read.getFill());
    }
    if (isa<StoreOp, ScatterOp>(op)) {
      Value value = op.getOperand(0), view = op.getOperand(1);
      ValueRange coords = isa<StoreOp>(op) ? cast<StoreOp>(op).getCoords() : cast<ScatterOp>(op).getCoords();
      Value valid = isa<StoreOp>(op) ? cast<StoreOp>(op).getValid() : cast<ScatterOp>(op).getValid();
      SmallVector<Value> newCoords;
      bool laneWide = false;
      for (Value c : coords) {
        newCoords.push_back(mapped(c));
        laneWide |= isFragment(newCoords.back());
      }
      if (!laneWide)
        return failure(); // every lane would write the same element
      Value v = asFragment(loc, mapped(value));
      Value ok = validity(loc, valid);
      if (isa<StoreOp>(op))
        StoreOp::create(b, loc, v, view, newCoords, ok);
      else
        ScatterOp::create(b, loc, v, view, newCoords, ok);
      return success();
    }
    if (auto write = dyn_cast<BufferStoreOp>(op)) {
      // Workspace is written at explicit coordinates like a view (a kept sum returned to zero by
      // the last program, pgpu-member-partials); other scopes hold one value per program.
      if (cast<BufferType>(write.getBuffer().getType()).getScope() != BufferScope::Workspace)
        return failure();
      SmallVector<Value> newCoords;
      bool laneWide = false;
      for (Value c : write.getCoords()) {
        newCoords.push_back(mapped(c));
        laneWide |= isFragment(newCoords.back());
      }
      if (!laneWide)
        return failure(); // every lane would write the same element
      BufferStoreOp::create(b, loc, asFragment(loc, mapped(write.getValue())), write.getBuffer(), newCoords,
                            validity(loc, write.getValid()));
      return success();
    }
    if (auto sr = dyn_cast<ScatterReduceOp>(op)) {
      // Collisions combine (seed 000 §6): lanes may update one element, so uniform coordinates
      // are spread over the lanes too; the combine region and its semantics are kept as they are.
      SmallVector<Value> newCoords;
      for (Value c : sr.getCoords())
        newCoords.push_back(asFragment(loc, mapped(c)));
      Value v = asFragment(loc, mapped(sr.getValue()));
      Value ok = validity(loc, sr.getValid());
      auto blocked = ScatterReduceOp::create(b, loc, v, sr.getView(), newCoords, ok);
      IRMapping regionMap;
      sr.getCombine().cloneInto(&blocked.getCombine(), regionMap);
      return success();
    }
    if (auto loop = dyn_cast<ForOp>(op))
      return cloneFor(loop);
    if (auto branch = dyn_cast<IfOp>(op))
      return cloneIf(branch);
    return failure(); // other control, reductions, tuples, atomics: not blocked here
  }

  IRMapping map;

private:
  /// An ordered loop inside the blocked body (an author's loop run per member, seed 000 §5) whose
  /// bounds are the same for every lane: the lanes run its iterations together, in order, and a
  /// carry that depends on the lane becomes a fragment (seed 002 §3.3: the free axis blocked, the
  /// ordered one kept). Which carries are lane-wide is found by cloning until the yields agree.
  LogicalResult cloneFor(ForOp loop) {
    Location loc = loop.getLoc();
    Value lo = mapped(loop.getLower()), hi = mapped(loop.getUpper()), step = mapped(loop.getStep());
    if (isFragment(lo) || isFragment(hi) || isFragment(step))
      return failure(); // lanes with different trip counts
    Block &body = loop.getBody().front();
    SmallVector<bool> laneWide;
    for (Value init : loop.getInits())
      laneWide.push_back(isFragment(mapped(init)));
    for (unsigned attempt = 0; attempt <= laneWide.size(); ++attempt) {
      SmallVector<Value> inits;
      for (auto [init, wide] : llvm::zip(loop.getInits(), laneWide))
        inits.push_back(wide ? asFragment(loc, mapped(init)) : mapped(init));
      auto copy = ForOp::create(b, loc, TypeRange(inits), lo, hi, step, inits);
      bool widened = false;
      {
        OpBuilder::InsertionGuard guard(b);
        Block *nb = b.createBlock(&copy.getBody());
        map.map(body.getArgument(0), nb->addArgument(b.getIndexType(), loc));
        for (auto [arg, init] : llvm::zip(body.getArguments().drop_front(), inits))
          map.map(arg, nb->addArgument(init.getType(), loc));
        for (Operation &inner : body.without_terminator())
          if (failed(clone(inner))) {
            copy.erase();
            return failure();
          }
        SmallVector<Value> yields;
        for (auto [i, y] : llvm::enumerate(body.getTerminator()->getOperands())) {
          Value v = mapped(y);
          if (isFragment(v) && !laneWide[i])
            laneWide[i] = widened = true;
          yields.push_back(laneWide[i] ? asFragment(loc, v) : v);
        }
        if (!widened)
          YieldOp::create(b, loc, yields);
      }
      if (widened) {
        copy.erase();
        continue;
      }
      for (auto [r, n] : llvm::zip(loop.getResults(), copy.getResults()))
        map.map(r, n);
      return success();
    }
    return failure();
  }

  /// An author's `if` inside the blocked body (seed 000 §5: control per member): its condition may
  /// differ from lane to lane, so both branches run on every lane, if-converted. Each branch's reads
  /// and writes are masked by its own lanes (the lanes valid so far whose condition holds, or does
  /// not), so no member reads or writes what it would not have; each result is a select between the
  /// branches' values. Its pure arithmetic runs on the other lanes too and is discarded there.
  LogicalResult cloneIf(IfOp branch) {
    Location loc = branch.getLoc();
    Value cond = mapped(branch.getCondition());
    Value outer = laneOk;
    bool wasMasked = masked;
    Value lanes = asFragment(loc, cond);
    // The lanes a branch runs for, built only where the branch has code (else: the lanes where the
    // condition fails).
    auto arm = [&](Region &region, function_ref<Value()> ok) -> FailureOr<SmallVector<Value>> {
      SmallVector<Value> yields;
      if (region.empty())
        return yields;
      if (!region.front().without_terminator().empty())
        laneOk = ok();
      masked = true;
      for (Operation &inner : region.front().without_terminator())
        if (failed(clone(inner)))
          return failure();
      for (Value y : region.front().getTerminator()->getOperands())
        yields.push_back(mapped(y));
      return yields;
    };
    FailureOr<SmallVector<Value>> thenValues = arm(branch.getThenRegion(), [&] {
      return BinaryOp::create(b, loc, kir::BinaryKind::And, outer, lanes, false, false).getResult();
    });
    FailureOr<SmallVector<Value>> elseValues =
        succeeded(thenValues) ? arm(branch.getElseRegion(),
                                    [&] {
                                      Value no = asFragment(loc, falseScalar(loc));
                                      return SelectOp::create(b, loc, lanes, no, outer).getResult();
                                    })
                              : FailureOr<SmallVector<Value>>(failure());
    laneOk = outer;
    masked = wasMasked;
    if (failed(elseValues))
      return failure();
    for (auto [r, t, e] : llvm::zip(branch.getResults(), *thenValues, *elseValues)) {
      if (!isFragment(t) && !isFragment(e) && !isFragment(cond)) {
        map.map(r, SelectOp::create(b, loc, cond, t, e));
        continue;
      }
      map.map(r, SelectOp::create(b, loc, cond, asFragment(loc, t), asFragment(loc, e)));
    }
    return success();
  }

  Value falseScalar(Location loc) { return arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0); }

  LogicalResult cloneRead(Operation &op, Value view, ValueRange coords, Value valid, Value fill) {
    Location loc = op.getLoc();
    SmallVector<Value> newCoords;
    bool laneWide = false;
    for (Value c : coords) {
      newCoords.push_back(mapped(c));
      laneWide |= isFragment(newCoords.back());
    }
    // Under an if-converted branch a read at one address for every lane is still made only for the
    // lanes that take the branch (its address may be out of bounds for the others): spread and masked.
    if (!laneWide && masked) {
      for (Value &c : newCoords)
        c = asFragment(loc, c);
      laneWide = true;
    }
    if (!laneWide) {
      b.clone(op, map); // a uniform read: one per block
      return success();
    }
    Type type = fragmentOf(op.getResult(0).getType());
    Value ok = validity(loc, valid);
    Value result;
    if (isa<LoadOp>(op))
      result = LoadOp::create(b, loc, type, view, newCoords, ok, mapped(fill));
    else if (isa<GatherOp>(op))
      result = GatherOp::create(b, loc, type, view, newCoords, ok, mapped(fill));
    else
      result = BufferLoadOp::create(b, loc, type, view, newCoords, ok, mapped(fill));
    map.map(op.getResult(0), result);
    return success();
  }

  OpBuilder &b;
  Value laneOk;
  StringAttr block;    // the parameter naming the lanes
  bool masked = false; // inside an if-converted branch: laneOk holds the branch's lanes
};

/// Builds `for %b = lo to hi step BLOCK iter_args(inits)` whose body gets the
/// lanes `b + [0, BLOCK)` and their validity `lane < hi`; `fill` emits the
/// body and returns the yielded values. Erases the loop and fails when `fill`
/// fails, leaving the original op in place.
static FailureOr<ForOp> buildBlockLoop(OpBuilder &b, Location loc, Value lo, Value hi, ValueRange inits,
                                       function_ref<FailureOr<SmallVector<Value>>(Fragmenter &, Value lanes,
                                                                                  ValueRange carries)>
                                           fill,
                                       StringRef blockName = kBlockParam) {
  Value block = ParamOp::create(b, loc, b.getIndexType(), blockName);
  auto loop = ForOp::create(b, loc, TypeRange(inits), lo, hi, block, inits);
  OpBuilder::InsertionGuard guard(b);
  Block *body = b.createBlock(&loop.getBody());
  Value start = body->addArgument(b.getIndexType(), loc);
  for (Value i : inits)
    body->addArgument(i.getType(), loc);
  auto indexFragment = FragmentType::get(b.getContext(), b.getIndexType(), {b.getStringAttr(blockName)});
  Value lanes = IotaOp::create(b, loc, indexFragment, start);
  Value bound = SplatOp::create(b, loc, indexFragment, hi);
  Value laneOk = CmpOp::create(b, loc, kir::CmpPredicate::LT, lanes, bound);
  Fragmenter fragmenter(b, laneOk, b.getStringAttr(blockName));
  FailureOr<SmallVector<Value>> yields = fill(fragmenter, lanes, body->getArguments().drop_front());
  if (failed(yields)) {
    loop.erase();
    block.getDefiningOp()->erase();
    return failure();
  }
  YieldOp::create(b, loc, *yields);
  return loop;
}

/// The parameter P when `op` spans [lo, min(lo + P, n)) (pgpu-refine-mapping's members owned by one
/// program) and its body holds an ordered loop: its lanes are then one block of P, so that the ordered
/// loop runs once per program rather than once per block of lanes. Null otherwise.
static StringAttr ownedBlock(ForeachOp op) {
  bool ordered = false;
  op.getBody().walk([&](ForOp) { ordered = true; });
  auto min = op.getUpper().getDefiningOp<BinaryOp>();
  if (!ordered || !min || min.getKind() != kir::BinaryKind::Min)
    return {};
  auto add = min.getLhs().getDefiningOp<BinaryOp>();
  if (!add || add.getKind() != kir::BinaryKind::Add || add.getLhs() != op.getLower())
    return {};
  auto param = add.getRhs().getDefiningOp<ParamOp>();
  return param ? param.getNameAttr() : StringAttr();
}

/// Whether blocking `op` declares BLOCK (it does unless its lanes are a block of the members it owns).
bool usesBlockParam(Operation *op) {
  auto f = dyn_cast<ForeachOp>(op);
  return !f || !ownedBlock(f);
}

LogicalResult blockForeach(OpBuilder &b, ForeachOp op) {
  b.setInsertionPoint(op);
  StringAttr owned = ownedBlock(op);
  FailureOr<ForOp> loop = buildBlockLoop(
      b, op.getLoc(), op.getLower(), op.getUpper(), {},
      [&](Fragmenter &f, Value lanes, ValueRange) -> FailureOr<SmallVector<Value>> {
        Block &body = op.getBody().front();
        f.map.map(body.getArgument(0), lanes);
        for (Operation &inner : body.without_terminator())
          if (failed(f.clone(inner)))
            return failure();
        return SmallVector<Value>();
      },
      owned ? owned.getValue() : StringRef(kBlockParam));
  if (failed(loop))
    return failure();
  op.erase();
  return success();
}

LogicalResult blockRangeReduce(OpBuilder &b, RangeReduceOp op) {
  b.setInsertionPoint(op);
  Location loc = op.getLoc();
  FailureOr<ForOp> loop = buildBlockLoop(
      b, loc, op.getLower(), op.getUpper(), op.getIdentities(),
      [&](Fragmenter &f, Value lanes, ValueRange acc) -> FailureOr<SmallVector<Value>> {
        Block &element = op.getElement().front();
        f.map.map(element.getArgument(0), lanes);
        for (Operation &inner : element.without_terminator())
          if (failed(f.clone(inner)))
            return failure();
        // Invalid lanes contribute the identity; then one fragment reduction.
        SmallVector<Value> members;
        for (auto [x, id] : llvm::zip(element.getTerminator()->getOperands(), op.getIdentities())) {
          Value lane = f.asFragment(loc, f.mapped(x));
          Value neutral = f.splat(loc, id);
          Value ok = f.validity(loc, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
          members.push_back(SelectOp::create(b, loc, ok, lane, neutral));
        }
        auto partial = ReduceOp::create(b, loc, op.getResultTypes(), members, b.getDenseI64ArrayAttr({0}),
                                        op.getIdentities());
        IRMapping regionMap;
        op.getCombine().cloneInto(&partial.getCombine(), regionMap);
        // acc = combine(acc, partial), inlined.
        SmallVector<Value> args(acc);
        llvm::append_range(args, partial.getResults());
        return inlineBlock(b, op.getCombine().front(), args);
      });
  if (failed(loop))
    return failure();
  op.replaceAllUsesWith(loop->getResults());
  op.erase();
  return success();
}

static FailureOr<SmallVector<Value>> cloneBody(Fragmenter &f, Region &region, ValueRange args);

/// Whether `op` is a kernel-level reduction over a launch-uniform range: the only range_reduce of an
/// execution group without axes (construction's one instance for a statement such as `loss[0] =
/// T.sum(...)`), its bounds LaunchExprs. Its blocks are then the segments of a region fold that
/// pgpu-split-folds may cut across programs; otherwise one program walks the whole range. Asked of
/// the program before any rewrite (a group's other reductions are loops once blocked).
static bool kernelLevelReduction(RangeReduceOp op) {
  auto group = dyn_cast<ExecutionGroupOp>(op->getParentOp());
  if (!group || !group.getExtents().empty() || !isLaunchExpr(op.getLower()) || !isLaunchExpr(op.getUpper()))
    return false;
  unsigned reductions = 0;
  group.walk([&](RangeReduceOp) { ++reductions; });
  return reductions == 1;
}

/// A kernel-level reduction (kernelLevelReduction) as `pgpu.region_fold lo to hi step BLOCK` (seed 002
/// §3.4; seed 000 §8 lets the members be regrouped): summarize is one block of members, invalid lanes
/// neutralized to the identity, a [BLOCK] fragment; combine the reduction's combine lane-wise; the
/// fold's summary, the [BLOCK] accumulator, is reduced to the scalar once after it. Values from
/// outside the block become the fold's operands (constants are cloned in).
LogicalResult foldRangeReduce(OpBuilder &b, RangeReduceOp op) {
  b.setInsertionPoint(op);
  Location loc = op.getLoc();
  StringAttr blockName = b.getStringAttr(kBlockParam);
  auto fragmentOf = [&](Type t) { return FragmentType::get(b.getContext(), t, {blockName}); };
  SmallVector<Type> types;
  SmallVector<Value> inits;
  for (Value id : op.getIdentities()) {
    types.push_back(fragmentOf(id.getType()));
    inits.push_back(SplatOp::create(b, loc, types.back(), id));
  }
  Value step = ParamOp::create(b, loc, b.getIndexType(), kBlockParam);
  auto fold = RegionFoldOp::create(b, loc, types, op.getLower(), op.getUpper(), step, inits, ValueRange{});
  auto undo = [&]() {
    fold.erase();
    step.getDefiningOp()->erase();
    for (Value i : llvm::reverse(inits))
      i.getDefiningOp()->erase();
    return failure();
  };
  {
    OpBuilder::InsertionGuard guard(b);
    Type index = b.getIndexType();
    Block *body = b.createBlock(&fold.getSummarize(), {}, {index, index}, {loc, loc});
    Value lanes = IotaOp::create(b, loc, fragmentOf(index), body->getArgument(0));
    Value ok = CmpOp::create(b, loc, kir::CmpPredicate::LT, lanes, SplatOp::create(b, loc, fragmentOf(index),
                                                                                     body->getArgument(1)));
    Fragmenter f(b, ok, blockName);
    FailureOr<SmallVector<Value>> members = cloneBody(f, op.getElement(), {lanes});
    if (failed(members))
      return undo();
    SmallVector<Value> neutral;
    for (auto [x, id] : llvm::zip(*members, op.getIdentities()))
      neutral.push_back(SelectOp::create(b, loc, ok, f.asFragment(loc, x), f.splat(loc, id)));
    YieldOp::create(b, loc, neutral);
    SmallVector<Type> both(types);
    llvm::append_range(both, types);
    Block *combine = b.createBlock(&fold.getCombine(), {}, both, SmallVector<Location>(both.size(), loc));
    Fragmenter lanewise(b, Value(), blockName);
    FailureOr<SmallVector<Value>> merged = cloneBody(lanewise, op.getCombine(), combine->getArguments());
    if (failed(merged))
      return undo();
    SmallVector<Value> yields;
    for (Value m : *merged)
      yields.push_back(lanewise.asFragment(loc, m));
    YieldOp::create(b, loc, yields);
  }
  // The summarize region is closed: each value it uses from above is an operand (a constant cloned in).
  Region &region = fold.getSummarize();
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(region, above);
  {
    OpBuilder::InsertionGuard guard(b);
    Block &entry = region.front();
    b.setInsertionPointToStart(&entry);
    for (Value v : above) {
      Value inner;
      if (Operation *def = v.getDefiningOp(); def && isa<arith::ConstantOp>(def)) {
        inner = b.clone(*def)->getResult(0);
      } else {
        fold.getCapturesMutable().append(v);
        inner = entry.addArgument(v.getType(), v.getLoc());
      }
      replaceAllUsesInRegionWith(v, inner, region);
    }
  }
  auto total = ReduceOp::create(b, loc, op.getResultTypes(), fold.getResults(), b.getDenseI64ArrayAttr({0}),
                                op.getIdentities());
  IRMapping regionMap;
  op.getCombine().cloneInto(&total.getCombine(), regionMap);
  op.replaceAllUsesWith(total.getResults());
  op.erase();
  return success();
}

/// Clones `region`'s straight-line body with its terminator's operands
/// returned; `args` are the block arguments' new values.
static FailureOr<SmallVector<Value>> cloneBody(Fragmenter &f, Region &region, ValueRange args) {
  Block &block = region.front();
  for (auto [arg, v] : llvm::zip(block.getArguments(), args))
    f.map.map(arg, v);
  for (Operation &inner : block.without_terminator())
    if (failed(f.clone(inner)))
      return failure();
  SmallVector<Value> yields;
  for (Value y : block.getTerminator()->getOperands())
    yields.push_back(f.mapped(y));
  return yields;
}

/// Whether `op` is the partial of a split reduction: a range_reduce at the top of an execution group
/// with axes (each instance reduces its own slice: a phased sum's chunk, KIRToPGPU/PhasedSums.cpp)
/// whose every result is only added into memory by a scatter-reduce (the partials merged by atomics).
/// Its blocks then keep a [BLOCK] lane accumulator and reduce it once after the loop
/// (blockRangeReduceLanes), not once per block.
static bool splitPartial(RangeReduceOp op) {
  auto group = dyn_cast<ExecutionGroupOp>(op->getParentOp());
  if (!group || group.getExtents().empty() || op->getNumResults() == 0)
    return false;
  return llvm::all_of(op->getUses(), [&](OpOperand &use) {
    auto add = dyn_cast<ScatterReduceOp>(use.getOwner());
    return add && add->getBlock() == op->getBlock() && &use == &add.getValueMutable();
  });
}

/// A split reduction's partial (splitPartial) as a loop over blocks of BLOCK lanes carrying one
/// [BLOCK] accumulator per result (splat identities; invalid lanes neutralized to the identity; the
/// combine applied lane-wise), reduced to the scalar once after the loop. Seed 002 §4: the reduce is
/// regrouped (lane j sums members j, j + BLOCK, ...), as its contract permits.
static LogicalResult blockRangeReduceLanes(OpBuilder &b, RangeReduceOp op) {
  b.setInsertionPoint(op);
  Location loc = op.getLoc();
  StringAttr blockName = b.getStringAttr(kBlockParam);
  SmallVector<Value> inits;
  for (Value id : op.getIdentities())
    inits.push_back(SplatOp::create(b, loc, FragmentType::get(b.getContext(), id.getType(), {blockName}), id));
  FailureOr<ForOp> loop = buildBlockLoop(
      b, loc, op.getLower(), op.getUpper(), inits,
      [&](Fragmenter &f, Value lanes, ValueRange acc) -> FailureOr<SmallVector<Value>> {
        FailureOr<SmallVector<Value>> xs = cloneBody(f, op.getElement(), {lanes});
        if (failed(xs))
          return failure();
        SmallVector<Value> args(acc);
        for (auto [x, id] : llvm::zip(*xs, op.getIdentities())) {
          Value ok = f.validity(loc, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
          args.push_back(SelectOp::create(b, loc, ok, f.asFragment(loc, x), f.splat(loc, id)));
        }
        Fragmenter lanewise(b, Value(), blockName);
        FailureOr<SmallVector<Value>> merged = cloneBody(lanewise, op.getCombine(), args);
        if (failed(merged))
          return failure();
        SmallVector<Value> yields;
        for (Value m : *merged)
          yields.push_back(lanewise.asFragment(loc, m));
        return yields;
      });
  if (failed(loop)) {
    for (Value i : llvm::reverse(inits))
      i.getDefiningOp()->erase();
    return failure();
  }
  b.setInsertionPointAfter(*loop);
  auto total = ReduceOp::create(b, loc, op.getResultTypes(), loop->getResults(), b.getDenseI64ArrayAttr({0}),
                                op.getIdentities());
  IRMapping regionMap;
  op.getCombine().cloneInto(&total.getCombine(), regionMap);
  op.replaceAllUsesWith(total.getResults());
  op.erase();
  return success();
}

/// A stored scan over blocks in member order (seed 000 §8: the scan may be
/// regrouped, never reordered). Lane j of the block starting at visit
/// position b holds the (b + j)-th member in scan order: addresses run
/// backwards for a reverse scan, and an exclusive scan reads the previous
/// member (the identity before the first), so an inclusive fragment scan of
/// those members is the exclusive prefix. Invalid lanes hold the identity, so
/// the block's last prefix is the carry into the next block.
LogicalResult blockRangeScan(OpBuilder &b, RangeScanOp op) {
  b.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value lo = op.getLower(), hi = op.getUpper();
  auto bin = [&](kir::BinaryKind kind, Value x, Value y) -> Value {
    return BinaryOp::create(b, loc, kind, x, y, false, false);
  };
  FailureOr<ForOp> loop = buildBlockLoop(
      b, loc, lo, hi, op.getIdentities(),
      [&](Fragmenter &f, Value lanes, ValueRange carry) -> FailureOr<SmallVector<Value>> {
        Value laneOk = f.getLaneOk();
        // Visit position v -> address: v forward, lo + hi - 1 - v reverse.
        Value mirror = op.getReverse() ? bin(kir::BinaryKind::Sub, bin(kir::BinaryKind::Add, lo, hi),
                                             arith::ConstantIndexOp::create(b, loc, 1))
                                       : Value();
        auto address = [&](Value v) -> Value {
          return mirror ? bin(kir::BinaryKind::Sub, f.splat(loc, mirror), v) : v;
        };
        Value memberAt = lanes, memberOk = laneOk;
        if (op.getExclusive()) {
          Value one = f.splat(loc, arith::ConstantIndexOp::create(b, loc, 1));
          memberAt = bin(kir::BinaryKind::Sub, lanes, one);
          Value afterFirst = CmpOp::create(b, loc, kir::CmpPredicate::GT, lanes, f.splat(loc, lo));
          memberOk = bin(kir::BinaryKind::And, laneOk, afterFirst);
        }
        f.setLaneOk(memberOk);
        FailureOr<SmallVector<Value>> xs = cloneBody(f, op.getElement(), {address(memberAt)});
        if (failed(xs))
          return failure();
        SmallVector<Value> members;
        SmallVector<Type> types;
        for (auto [x, id] : llvm::zip(*xs, op.getIdentities())) {
          members.push_back(SelectOp::create(b, loc, memberOk, f.asFragment(loc, x), f.splat(loc, id)));
          types.push_back(members.back().getType());
        }
        auto prefix = ScanOp::create(b, loc, TypeRange(types), ValueRange(members), b.getI64IntegerAttr(0),
                                     op.getIdentities(), carry, /*exclusive=*/UnitAttr(), /*reverse=*/UnitAttr());
        IRMapping regionMap;
        op.getCombine().cloneInto(&prefix.getCombine(), regionMap);
        f.setLaneOk(laneOk);
        SmallVector<Value> emitArgs{address(lanes)};
        llvm::append_range(emitArgs, prefix.getResults());
        if (failed(cloneBody(f, op.getEmit(), emitArgs)))
          return failure();
        Value last = bin(kir::BinaryKind::Sub, ParamOp::create(b, loc, b.getIndexType(), kBlockParam),
                         arith::ConstantIndexOp::create(b, loc, 1));
        SmallVector<Value> next;
        for (auto [p, id] : llvm::zip(prefix.getResults(), op.getIdentities()))
          next.push_back(ExtractOp::create(b, loc, id.getType(), p, ValueRange{last}));
        return next;
      });
  if (failed(loop))
    return failure();
  op.erase();
  return success();
}


/// Whether every store and unique scatter in the innermost body of `nest` writes at coordinates
/// that depend on the member of every loop of the nest. Otherwise members of one loop write one
/// element, in order while the nest is nested (the last one stays), at once when flattened lanes
/// hold them; a scatter-reduce combines collisions (seed 000 §6) and may.
static bool writesOwnEveryMember(ArrayRef<Operation *> nest) {
  Block &body = memberRegion(nest.back()).front();
  for (Operation *loop : nest) {
    DenseSet<Value> depends{memberRegion(loop).front().getArgument(0)};
    for (Operation &op : body) {
      if (isa<StoreOp, ScatterOp>(op)) {
        ValueRange coords = isa<StoreOp>(op) ? cast<StoreOp>(op).getCoords() : cast<ScatterOp>(op).getCoords();
        if (llvm::none_of(coords, [&](Value c) { return depends.contains(c); }))
          return false;
      }
      if (llvm::any_of(op.getOperands(), [&](Value v) { return depends.contains(v); }))
        depends.insert(op.result_begin(), op.result_end());
    }
  }
  return true;
}


//===----------------------------------------------------------------------===//
// Lane coordinates by carries instead of divisions
//===----------------------------------------------------------------------===//
//
// A flattened nest's blocked member is iota(b) in a loop over blocks (b its index), and its
// coordinates are div/rem of it by the member counts: two integer divisions per lane and axis
// per block, which on the GPU cost tens of instructions each and dominate a memory-bound walk
// (corpus 53's per-channel statistics of NCHW: a (n, h, w) reduction). With tessel's floor
// division (KIRDialect.md) and P > 0, b + j = P (b / P + j / P) + (b % P + j % P), both
// remainders in [0, P), so (b + j) / P = b / P + j / P + c and (b + j) % P = b % P + j % P - c P,
// c = (b % P + j % P >= P): one scalar division a block, the lanes' own quotients once before
// the loop, and a compare and selects per lane. Nested quotients compose, (x / a) / b =
// x / (a b) for a, b >= 0 (either 0: both sides 0), and (x / a) % b = x / a - (x / (a b)) b
// for b > 0. A divisor that may be 0 (an empty extent: KIR's x / 0 = x % 0 = 0) clears the
// carry and selects 0 for a nested remainder, so the values are those of the divisions exactly.

namespace {
/// div(...div(iota(b), splat(d1))..., splat(dk)) with b the index of the pgpu.for `loop` and
/// every d_i an index scalar defined outside the loop, provably non-negative (floor division by
/// a negative divisor has remainders of its sign).
struct LaneChain {
  ForOp loop;
  IotaOp iota;
  SmallVector<Value> divisors;
};

/// The scalar `d` of `v = splat(d)` when `d` is a non-negative index defined outside `loop`.
Value loopInvariantDivisor(Value v, ForOp loop) {
  auto splat = v.getDefiningOp<SplatOp>();
  if (!splat || !splat.getOperand().getType().isIndex())
    return {};
  Value d = splat.getOperand();
  if (loop->isAncestor(d.getParentRegion()->getParentOp()) || !provablyNonNegative(d))
    return {};
  return d;
}

std::optional<LaneChain> laneChain(Value v) {
  if (auto iota = v.getDefiningOp<IotaOp>()) {
    auto base = dyn_cast<BlockArgument>(iota.getBase());
    auto loop = base ? dyn_cast<ForOp>(base.getOwner()->getParentOp()) : ForOp();
    if (!loop || base.getArgNumber() != 0 || cast<FragmentType>(iota.getType()).getRank() != 1)
      return std::nullopt;
    return LaneChain{loop, iota, {}};
  }
  auto div = v.getDefiningOp<BinaryOp>();
  if (!div || div.getKind() != kir::BinaryKind::Div)
    return std::nullopt;
  std::optional<LaneChain> chain = laneChain(div.getLhs());
  if (!chain)
    return std::nullopt;
  Value d = loopInvariantDivisor(div.getRhs(), chain->loop);
  if (!d)
    return std::nullopt;
  chain->divisors.push_back(d);
  return chain;
}

bool positiveConstant(Value v) {
  APInt c;
  return matchPattern(v, m_ConstantInt(&c)) && c.isStrictlyPositive();
}

/// Builds the carried quotients and remainders of one loop's lanes, each divisor product once.
class LaneDivider {
public:
  LaneDivider(OpBuilder &b, LaneChain chain) : b(b), chain(chain), loc(chain.iota.getLoc()) {}

  /// (b + j) / P and (b + j) % P of the lanes, P the product of `divisors`.
  std::pair<Value, Value> divide(ArrayRef<Value> divisors) {
    for (auto &[key, done] : memo)
      if (llvm::equal(key, divisors))
        return done;
    OpBuilder::InsertionGuard guard(b);
    // Before the loop: P, whether it is positive, and the lanes' own quotients j / P, j / P + 1
    // and remainders j % P (the loop's operands are defined there).
    b.setInsertionPoint(chain.loop);
    Value p = divisors.front();
    for (Value d : divisors.drop_front())
      p = bin(kir::BinaryKind::Mul, p, d);
    auto type = cast<FragmentType>(chain.iota.getType());
    Value zero = arith::ConstantIndexOp::create(b, loc, 0), one = arith::ConstantIndexOp::create(b, loc, 1);
    Value lanes = IotaOp::create(b, loc, type, zero);
    Value wide = SplatOp::create(b, loc, type, p);
    Value laneQ = bin(kir::BinaryKind::Div, lanes, wide);
    Value laneQ1 = bin(kir::BinaryKind::Add, laneQ, SplatOp::create(b, loc, type, one));
    Value laneR = bin(kir::BinaryKind::Rem, lanes, wide);
    Value positive = llvm::all_of(divisors, positiveConstant)
                         ? Value()
                         : SplatOp::create(b, loc, FragmentType::get(b.getContext(), b.getI1Type(), type.getExtents()),
                                           CmpOp::create(b, loc, kir::CmpPredicate::GT, p, zero));
    // In the loop, after the lanes: the block's quotient and remainder, the carry, the lanes'.
    b.setInsertionPointAfter(chain.iota);
    Value base = chain.iota.getBase();
    Value blockQ = SplatOp::create(b, loc, type, bin(kir::BinaryKind::Div, base, p));
    Value blockR = SplatOp::create(b, loc, type, bin(kir::BinaryKind::Rem, base, p));
    Value sum = bin(kir::BinaryKind::Add, blockR, laneR);
    Value carry = CmpOp::create(b, loc, kir::CmpPredicate::GE, sum, wide);
    if (positive)
      carry = bin(kir::BinaryKind::And, carry, positive);
    Value q = bin(kir::BinaryKind::Add, blockQ, SelectOp::create(b, loc, carry, laneQ1, laneQ));
    Value r = SelectOp::create(b, loc, carry, bin(kir::BinaryKind::Sub, sum, wide), sum);
    memo.push_back({SmallVector<Value>(divisors), {q, r}});
    return {q, r};
  }

  /// The value of `op` (div or rem of a lane chain of `divisors` by `d`) from carried quotients.
  Value rewrite(BinaryOp op, ArrayRef<Value> divisors, Value d) {
    SmallVector<Value> all(divisors);
    all.push_back(d);
    if (op.getKind() == kir::BinaryKind::Div)
      return divide(all).first;
    if (divisors.empty())
      return divide(all).second;
    // (x / a) % d = x / a - (x / (a d)) d for d > 0; 0 where d = 0.
    Value x = divide(divisors).first, q = divide(all).first;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(op);
    auto type = cast<FragmentType>(op.getType());
    Value wide = SplatOp::create(b, loc, type, d);
    Value r = bin(kir::BinaryKind::Sub, x, bin(kir::BinaryKind::Mul, q, wide));
    if (positiveConstant(d))
      return r;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value positive = SplatOp::create(b, loc, FragmentType::get(b.getContext(), b.getI1Type(), type.getExtents()),
                                     CmpOp::create(b, loc, kir::CmpPredicate::GT, d, zero));
    return SelectOp::create(b, loc, positive, r, SplatOp::create(b, loc, type, zero));
  }

private:
  Value bin(kir::BinaryKind kind, Value x, Value y) {
    return BinaryOp::create(b, loc, kind, x, y, false, false);
  }
  OpBuilder &b;
  LaneChain chain;
  Location loc;
  SmallVector<std::pair<SmallVector<Value>, std::pair<Value, Value>>> memo; // divisors -> (q, r)
};
} // namespace

/// Every div/rem of a blocked loop's lanes (a lane chain) by a loop-invariant divisor that is not
/// a constant (a constant divisor is a shift or a multiply already) takes the carried form.
/// Returns whether anything changed.
static bool carryLaneDivisions(KernelOp kernel) {
  struct Site {
    BinaryOp op;
    LaneChain chain;
    Value divisor;
  };
  SmallVector<Site> sites;
  kernel.walk([&](BinaryOp op) {
    if (op.getKind() != kir::BinaryKind::Div && op.getKind() != kir::BinaryKind::Rem)
      return;
    if (!isa<FragmentType>(op.getType()) || !cast<FragmentType>(op.getType()).getElementType().isIndex())
      return;
    std::optional<LaneChain> chain = laneChain(op.getLhs());
    if (!chain)
      return;
    Value d = loopInvariantDivisor(op.getRhs(), chain->loop);
    if (!d)
      return;
    if (positiveConstant(d) && llvm::all_of(chain->divisors, positiveConstant))
      return;
    sites.push_back({op, *chain, d});
  });
  if (sites.empty())
    return false;
  OpBuilder b(kernel.getContext());
  std::map<Operation *, std::unique_ptr<LaneDivider>> dividers; // by the lanes' iota
  SmallVector<std::pair<BinaryOp, Value>> replaced;
  for (Site &site : sites) {
    std::unique_ptr<LaneDivider> &divider = dividers[site.chain.iota.getOperation()];
    if (!divider)
      divider = std::make_unique<LaneDivider>(b, site.chain);
    replaced.push_back({site.op, divider->rewrite(site.op, site.chain.divisors, site.divisor)});
  }
  for (auto [op, value] : replaced)
    op.getResult().replaceAllUsesWith(value);
  for (auto [op, value] : llvm::reverse(replaced))
    if (op->use_empty())
      op->erase();
  return true;
}

/// Whether every value `op` uses from outside itself (operands and captures of its regions) is
/// defined before `at` (an earlier op of the same block) or outside that block.
static bool usesOnlyBefore(Operation *op, Operation *at) {
  Block *block = at->getBlock();
  auto before = [&](Value v) {
    Operation *def = v.getDefiningOp();
    Block *owner = def ? def->getBlock() : cast<BlockArgument>(v).getOwner();
    if (owner != block)
      return !def || !op->isAncestor(def); // from an enclosing block (or op's own regions: skipped)
    return !def || def->isBeforeInBlock(at);
  };
  bool ok = llvm::all_of(op->getOperands(), before);
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands()) {
      Operation *def = v.getDefiningOp();
      bool inside = def ? op->isAncestor(def) : op->isAncestor(cast<BlockArgument>(v).getOwner()->getParentOp());
      if (!inside && !before(v))
        ok = false;
    }
  });
  return ok;
}

/// The views and buffers `op`'s regions access.
static DenseSet<Value> accessedMemory(Operation *op) {
  DenseSet<Value> memory;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (isa<ViewType, BufferType>(v.getType()))
        memory.insert(v);
  });
  return memory;
}

/// Whether `op` and everything in its regions at most read memory.
static bool onlyReads(Operation *op) {
  bool ok = true;
  op->walk([&](Operation *inner) {
    if (auto iface = dyn_cast<MemoryEffectOpInterface>(inner)) {
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      ok &= llvm::all_of(effects, [](auto &e) { return isa<MemoryEffects::Read>(e.getEffect()); });
    } else if (!inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
      ok = false;
    }
  });
  return ok;
}

/// Whether `later` (a range_reduce after `earlier` in its block, over the same range) may be
/// computed by `earlier`'s walk: it uses nothing defined from `earlier` on (so it does not depend
/// on `earlier`'s results), both elements are straight-line, and what runs between them reads or
/// writes nothing `later` reads (a store to another view; the wrapper keeps written views apart
/// from every other view, seed 000 §4.3) and has no other effect.
static bool mergeable(RangeReduceOp earlier, RangeReduceOp later) {
  if (earlier.getLower() != later.getLower() || earlier.getUpper() != later.getUpper())
    return false;
  auto straight = [](RangeReduceOp r) {
    return llvm::all_of(r.getElement().front(), [](Operation &op) { return op.getNumRegions() == 0; });
  };
  if (!straight(earlier) || !straight(later) || !usesOnlyBefore(later, earlier))
    return false;
  DenseSet<Value> read = accessedMemory(later);
  for (Operation *op = earlier->getNextNode(); op != later.getOperation(); op = op->getNextNode()) {
    if (onlyReads(op))
      continue;
    auto store = dyn_cast<StoreOp>(op);
    if (!store || read.contains(store.getView()) || !isa<ViewType>(store.getView().getType()))
      return false;
  }
  return true;
}

/// One range_reduce computing both `earlier`'s and `later`'s components, built at `earlier`:
/// its element is both elements on the same member, its combine both combines side by side
/// (seed 000 §8: each component's members and combine are unchanged).
static RangeReduceOp mergeReductions(OpBuilder &b, RangeReduceOp earlier, RangeReduceOp later) {
  Location loc = earlier.getLoc();
  b.setInsertionPoint(earlier);
  SmallVector<Type> types(earlier.getResultTypes());
  llvm::append_range(types, later.getResultTypes());
  SmallVector<Value> identities(earlier.getIdentities());
  llvm::append_range(identities, later.getIdentities());
  auto merged = RangeReduceOp::create(b, loc, types, earlier.getLower(), earlier.getUpper(), identities);
  merged->setDiscardableAttrs(earlier->getDiscardableAttrDictionary());
  OpBuilder::InsertionGuard guard(b);
  Block *element = b.createBlock(&merged.getElement(), {}, {b.getIndexType()}, {loc});
  SmallVector<Value> yields;
  for (RangeReduceOp r : {earlier, later}) {
    IRMapping map;
    Block &body = r.getElement().front();
    map.map(body.getArgument(0), element->getArgument(0));
    for (Operation &op : body.without_terminator())
      b.clone(op, map);
    for (Value v : body.getTerminator()->getOperands())
      yields.push_back(map.lookupOrDefault(v));
  }
  YieldOp::create(b, loc, yields);
  size_t n1 = earlier.getNumResults(), n2 = later.getNumResults();
  SmallVector<Type> args(types);
  llvm::append_range(args, types);
  Block *combine = b.createBlock(&merged.getCombine(), {}, args, SmallVector<Location>(args.size(), loc));
  SmallVector<Value> combined;
  for (auto [r, offset, n] : {std::tuple{earlier, size_t(0), n1}, std::tuple{later, n1, n2}}) {
    IRMapping map;
    Block &body = r.getCombine().front();
    for (size_t i = 0; i < n; ++i) {
      map.map(body.getArgument(i), combine->getArgument(offset + i));
      map.map(body.getArgument(n + i), combine->getArgument(n1 + n2 + offset + i));
    }
    for (Operation &op : body.without_terminator())
      b.clone(op, map);
    for (Value v : body.getTerminator()->getOperands())
      combined.push_back(map.lookupOrDefault(v));
  }
  YieldOp::create(b, loc, combined);
  earlier.replaceAllUsesWith(merged.getResults().take_front(n1));
  later.replaceAllUsesWith(merged.getResults().drop_front(n1));
  later.erase();
  earlier.erase();
  return merged;
}

/// Sibling range reductions over the same range, independent of each other, become one walk
/// (a layer norm backward's sum(g) and sum(g * xhat) per row, its bias and weight gradients per
/// column): the members they share are read once per block instead of once per reduction.
/// Returns whether anything changed.
static bool mergeSiblingReductions(KernelOp kernel, bool remarks) {
  // Blocks holding two reductions or more; a merged reduction's own element block holds none (its
  // element is straight-line), so no block listed here is erased by a merge.
  SmallVector<Block *> blocks;
  kernel.walk([&](Block *block) {
    if (llvm::range_size(block->getOps<RangeReduceOp>()) > 1)
      blocks.push_back(block);
  });
  OpBuilder b(kernel.getContext());
  bool changed = false;
  for (Block *block : blocks) {
    SmallVector<RangeReduceOp> reductions(block->getOps<RangeReduceOp>());
    for (size_t i = 0; i < reductions.size(); ++i) {
      for (size_t j = i + 1; j < reductions.size(); ++j) {
        if (!reductions[i] || !reductions[j] || !mergeable(reductions[i], reductions[j]))
          continue;
        Location at = reductions[j].getLoc();
        reductions[i] = mergeReductions(b, reductions[i], reductions[j]);
        reductions[j] = RangeReduceOp();
        changed = true;
        if (remarks)
          emitRemark(at) << "pgpu-form-blocking: a reduction over the same range as an earlier one, "
                            "independent of it, is computed by the same walk";
      }
    }
  }
  return changed;
}

/// Whether `v` depends, through operands defined inside `scope`, on `index` (a block argument).
static bool dependsOn(Value v, Value index, Region &scope, DenseMap<Value, bool> &memo) {
  if (v == index)
    return true;
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  bool depends = false;
  if (def && scope.isAncestor(def->getParentRegion()))
    depends = llvm::any_of(def->getOperands(), [&](Value o) { return dependsOn(o, index, scope, memo); });
  memo[v] = depends;
  return depends;
}

/// Whether inner range_reduce `inner`, directly in the element of range_reduce `outer`, reads the
/// outer member's row along the view's contiguous axis: some read's last coordinate depends on the
/// outer index and not on the inner one, another of its coordinates on the inner index (logits
/// [n, c, h, w] reduced over the classes c inside a sum over the pixels w: NCHW). Its bounds are
/// the same for every outer member and its regions are straight-line. `scope` is the outer loop's
/// member region (a reduction's element, a foreach's body); workspace reads count like view reads.
static bool readsAlongOuter(RangeReduceOp inner, Region &scope) {
  for (Value bound : {inner.getLower(), inner.getUpper()})
    if (scope.isAncestor(bound.getParentRegion()))
      return false;
  auto straight = [](Region &r) {
    return llvm::none_of(r.front(), [](Operation &op) { return op.getNumRegions() > 0; });
  };
  if (!straight(inner.getElement()) || !straight(inner.getCombine()))
    return false;
  Value outerIndex = scope.front().getArgument(0), innerIndex = inner.getElement().front().getArgument(0);
  DenseMap<Value, bool> onOuter, onInner;
  for (Operation &op : inner.getElement().front()) {
    auto workspace = dyn_cast<BufferLoadOp>(op);
    if (workspace && cast<BufferType>(workspace.getBuffer().getType()).getScope() != BufferScope::Workspace)
      continue;
    if (!isa<LoadOp, GatherOp, BufferLoadOp>(op) || op.getNumOperands() < 2)
      continue;
    OperandRange coords = isa<LoadOp>(op)     ? cast<LoadOp>(op).getCoords()
                          : isa<GatherOp>(op) ? cast<GatherOp>(op).getCoords()
                                              : cast<BufferLoadOp>(op).getCoords();
    if (coords.empty())
      continue;
    Value last = coords.back();
    if (!dependsOn(last, outerIndex, scope, onOuter) || dependsOn(last, innerIndex, scope, onInner))
      continue;
    if (llvm::any_of(coords.drop_back(), [&](Value c) { return dependsOn(c, innerIndex, scope, onInner); }))
      return true;
  }
  return false;
}

/// Whether `inner` spans at most a constant number of members whatever its enclosing members: constant
/// bounds, or [0, n) with n the length of a slice of constant width clipped to its axis (SliceWidth.h).
static bool shortRange(RangeReduceOp inner) {
  Value lo = inner.getLower(), hi = inner.getUpper();
  APInt l, h;
  if (matchPattern(lo, m_ConstantInt(&l)) && matchPattern(hi, m_ConstantInt(&h)))
    return true;
  return matchPattern(lo, m_Zero()) && clippedWidth(hi).has_value();
}

/// An outer range_reduce whose element holds inner range_reduces reading along the outer axis
/// contiguously (readsAlongOuter) and no other loop or control: each inner one becomes its ordered
/// loop (a pgpu.for carrying the accumulator, combined member by member: one order of an associative,
/// commutative reduction, seed 000 §8), so the outer reduction is the one blocked, its lanes reading
/// consecutive elements, the inner loop run for all lanes at once (Fragmenter::cloneFor). Blocking
/// the inner reduction instead leaves the outer member a scalar loop (corpus 270: 512 x 1024 pixels
/// walked one at a time, each a 4096-lane block holding 19 classes). Seed 002 §3.3: the free axis
/// blocked, the ordered one kept.
///
/// Likewise an outer foreach (a row's output columns, each the sum of a window of rows of the same
/// column: corpus 348's vertical box sums hsum[b, c, lo:hi, col]) whose inner reductions read along
/// its axis and span at most a constant w members for every outer member (a window clipped to the
/// view, SliceWidth.h, or constant bounds): the columns become the lanes, each trip of the window's
/// loop one [BLOCK] read of consecutive columns. Blocking the inner one instead ran each column as
/// its own trip of a scalar loop, a BLOCK-lane block holding at most w rows (there a window of 15
/// rows in 512 lanes, 1024 columns a row walked one at a time). An inner range of unknown length
/// keeps its blocking: the foreach might be a few columns over a long range.
static bool orderInnerReductions(KernelOp kernel, bool remarks) {
  SmallVector<Operation *> outers;
  kernel.walk([&](Operation *outer) {
    if (!isa<RangeReduceOp, ForeachOp>(outer))
      return;
    bool any = false, all = true;
    Region &scope = memberRegion(outer);
    for (Operation &op : scope.front()) {
      if (op.getNumRegions() == 0)
        continue;
      auto inner = dyn_cast<RangeReduceOp>(op);
      if (inner && readsAlongOuter(inner, scope) && (isa<RangeReduceOp>(outer) || shortRange(inner)))
        any = true;
      else
        all = false;
    }
    if (any && all)
      outers.push_back(outer);
  });
  OpBuilder b(kernel.getContext());
  for (Operation *outer : outers) {
    SmallVector<RangeReduceOp> inners;
    for (Operation &op : memberRegion(outer).front())
      if (auto inner = dyn_cast<RangeReduceOp>(op))
        inners.push_back(inner);
    for (RangeReduceOp inner : inners) {
      Location loc = inner.getLoc();
      b.setInsertionPoint(inner);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      auto loop = ForOp::create(b, loc, inner.getResultTypes(), inner.getLower(), inner.getUpper(), one,
                                inner.getIdentities());
      {
        OpBuilder::InsertionGuard guard(b);
        Block *body = b.createBlock(&loop.getBody());
        Value at = body->addArgument(b.getIndexType(), loc);
        for (Type t : inner.getResultTypes())
          body->addArgument(t, loc);
        SmallVector<Value> members = inlineBlock(b, inner.getElement().front(), ValueRange{at});
        SmallVector<Value> args(body->getArguments().drop_front());
        llvm::append_range(args, members);
        YieldOp::create(b, loc, inlineBlock(b, inner.getCombine().front(), args));
      }
      inner.replaceAllUsesWith(loop.getResults());
      inner.erase();
    }
    if (remarks)
      emitRemark(outer->getLoc()) << "pgpu-form-blocking: " << inners.size() << " inner reduction(s) reading along this "
                                  << (isa<ForeachOp>(outer) ? "loop" : "reduction")
                                  << "'s axis contiguously run as ordered loops in its members, so its members are the "
                                     "lanes blocked";
  }
  return !outers.empty();
}

/// Whether `a` and `b` compute the same index value: the same SSA value, or pure ops of one kind
/// and attributes over operands that do (refine-mapping builds each row loop's bound [c * P,
/// min(c * P + P, E * n)) from its own copy of E * n; no CSE has run since). `depth` bounds the walk.
static bool sameValue(Value a, Value b, unsigned depth = 8) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!depth || !x || !y || x->getName() != y->getName() || x->getNumRegions() || y->getNumRegions() ||
      x->getAttrDictionary() != y->getAttrDictionary() || x->getNumOperands() != y->getNumOperands() ||
      x->getNumResults() != 1 || y->getNumResults() != 1 || !isMemoryEffectFree(x) || !isMemoryEffectFree(y))
    return false;
  for (auto [u, v] : llvm::zip(x->getOperands(), y->getOperands()))
    if (!sameValue(u, v, depth - 1))
      return false;
  return true;
}

/// The views and buffers `op`'s regions write (any effect but a read counts), or nullopt when an
/// op with another effect names none (nothing then says what it touches).
static std::optional<DenseSet<Value>> writtenMemory(Operation *op) {
  DenseSet<Value> memory;
  bool known = true;
  op->walk([&](Operation *inner) {
    if (inner->getNumRegions() == 0 && !inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
        !isMemoryEffectFree(inner) && !onlyReads(inner)) {
      bool named = false;
      for (Value v : inner->getOperands())
        if (isa<ViewType, BufferType>(v.getType())) {
          memory.insert(v);
          named = true;
        }
      known &= named;
    }
  });
  if (!known)
    return std::nullopt;
  return memory;
}

/// Whether `later` (a foreach after `earlier` in its block, over the same range) may run in
/// `earlier`'s walk, member m of both in one iteration (seed 000 §5: a foreach's iterations run in
/// any order; fusing changes only the order of the two loops' members, so neither may write what
/// the other accesses): both bodies straight-line, `later` using nothing defined from `earlier` on,
/// what runs between them pure, and a view or buffer both read (the walk then reads it once a
/// block: a 2x2 max-pool's four window reads, shared by its value and its argmax loops). Two loops
/// over one range that share no read gain nothing from one walk but its register pressure.
static bool fusable(ForeachOp earlier, ForeachOp later) {
  if (!sameValue(earlier.getLower(), later.getLower()) || !sameValue(earlier.getUpper(), later.getUpper()) ||
      earlier->getDiscardableAttrDictionary() != later->getDiscardableAttrDictionary())
    return false;
  auto straight = [](ForeachOp f) {
    return llvm::all_of(f.getBody().front(), [](Operation &op) { return op.getNumRegions() == 0; });
  };
  if (!straight(earlier) || !straight(later))
    return false;
  // later's bounds are not used (earlier's are the same); its body must use only what precedes earlier.
  for (Operation &op : later.getBody().front())
    if (!usesOnlyBefore(&op, earlier))
      return false;
  for (Operation *op = earlier->getNextNode(); op != later.getOperation(); op = op->getNextNode())
    if (!isMemoryEffectFree(op))
      return false;
  std::optional<DenseSet<Value>> w1 = writtenMemory(earlier), w2 = writtenMemory(later);
  if (!w1 || !w2)
    return false;
  DenseSet<Value> a1 = accessedMemory(earlier), a2 = accessedMemory(later);
  if (llvm::any_of(*w1, [&](Value v) { return a2.contains(v); }) ||
      llvm::any_of(*w2, [&](Value v) { return a1.contains(v); }))
    return false;
  return llvm::any_of(a1, [&](Value v) { return a2.contains(v) && !w1->contains(v); });
}

/// Sibling foreach loops over one range, independent of each other and reading a common view, become
/// one loop at the earlier whose body is both bodies on the same member: the reads they share
/// (CSE'd after blocking) are made once per block instead of once per loop. Returns whether
/// anything changed.
static bool fuseSiblingForeachs(KernelOp kernel, bool remarks) {
  SmallVector<Block *> blocks;
  kernel.walk([&](Block *block) {
    if (llvm::range_size(block->getOps<ForeachOp>()) > 1)
      blocks.push_back(block);
  });
  bool changed = false;
  for (Block *block : blocks) {
    SmallVector<ForeachOp> loops(block->getOps<ForeachOp>());
    for (size_t i = 0; i < loops.size(); ++i) {
      for (size_t j = i + 1; j < loops.size(); ++j) {
        if (!loops[i] || !loops[j] || !fusable(loops[i], loops[j]))
          continue;
        // later's body moves to the end of earlier's, its member the earlier's member.
        Block &into = loops[i].getBody().front(), &from = loops[j].getBody().front();
        from.getTerminator()->erase();
        from.getArgument(0).replaceAllUsesWith(into.getArgument(0));
        into.getOperations().splice(into.getTerminator()->getIterator(), from.getOperations());
        Location at = loops[j].getLoc();
        loops[j].erase();
        loops[j] = ForeachOp();
        changed = true;
        if (remarks)
          emitRemark(at) << "pgpu-form-blocking: a foreach over the same range as an earlier one, reading what "
                            "it reads and independent of it, runs in the same walk";
      }
    }
  }
  return changed;
}

namespace {
/// A linear form over named shape symbols: sum of coefficient x symbol, plus a constant.
struct Linear {
  std::map<std::string, int64_t> terms;
  int64_t constant = 0;
  bool nonNegative() const {
    return constant >= 0 && llvm::all_of(terms, [](auto &t) { return t.second >= 0; });
  }
  Linear scaled(int64_t k) const {
    Linear r = *this;
    r.constant *= k;
    for (auto &t : r.terms)
      t.second *= k;
    return r;
  }
  Linear plus(const Linear &o) const {
    Linear r = *this;
    r.constant += o.constant;
    for (auto &[s, c] : o.terms)
      if ((r.terms[s] += c) == 0)
        r.terms.erase(s);
    return r;
  }
};

/// The exact linear form of an index value built from named extents and constants (through the
/// identities ceil_div(x, 1) and max(x, 0) of a non-negative x that construction wraps them in).
std::optional<Linear> exactForm(Value v) {
  if (std::optional<int64_t> c = constantIndex(v))
    return Linear{{}, *c};
  Operation *def = v.getDefiningOp();
  if (auto extent = dyn_cast_or_null<ExtentOp>(def)) {
    Attribute e = cast<ViewType>(extent.getView().getType()).getExtents()[extent.getAxis()];
    if (auto name = dyn_cast<StringAttr>(e))
      return Linear{{{name.str(), 1}}, 0};
    return std::nullopt;
  }
  if (auto cd = dyn_cast_or_null<CeilDivOp>(def); cd && matchPattern(cd.getRhs(), m_One()))
    return exactForm(cd.getLhs());
  auto bin = dyn_cast_or_null<BinaryOp>(def);
  if (!bin)
    return std::nullopt;
  std::optional<Linear> x = exactForm(bin.getLhs()), y = exactForm(bin.getRhs());
  if (!x || !y)
    return std::nullopt;
  switch (bin.getKind()) {
  case kir::BinaryKind::Add:
    return x->plus(*y);
  case kir::BinaryKind::Sub:
    return x->plus(y->scaled(-1));
  case kir::BinaryKind::Mul:
    if (x->terms.empty())
      return y->scaled(x->constant);
    if (y->terms.empty())
      return x->scaled(y->constant);
    return std::nullopt;
  case kir::BinaryKind::Max:
    if (y->terms.empty() && y->constant == 0 && x->nonNegative())
      return x;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

/// Linear forms each at least `v` (any one bounds it above): min(a, b) of two shape-bounded sides
/// by a bound of either, a - b by a bound of a less b's exact form, max(x, 0) by a non-negative bound of x.
SmallVector<Linear> upperForms(Value v) {
  if (std::optional<Linear> e = exactForm(v))
    return {*e};
  Operation *def = v.getDefiningOp();
  if (auto cd = dyn_cast_or_null<CeilDivOp>(def); cd && matchPattern(cd.getRhs(), m_One()))
    return upperForms(cd.getLhs());
  auto bin = dyn_cast_or_null<BinaryOp>(def);
  if (!bin)
    return {};
  SmallVector<Linear> forms;
  switch (bin.getKind()) {
  case kir::BinaryKind::Min: {
    // Both sides bounded by shapes (a static slice of a row); a bound that moves with a loop or a
    // program (groups[0:g]) is no row's length.
    forms = upperForms(bin.getLhs());
    SmallVector<Linear> other = upperForms(bin.getRhs());
    if (forms.empty() || other.empty())
      return {};
    llvm::append_range(forms, other);
    return forms;
  }
  case kir::BinaryKind::Sub:
    if (std::optional<Linear> y = exactForm(bin.getRhs()))
      for (const Linear &x : upperForms(bin.getLhs()))
        forms.push_back(x.plus(y->scaled(-1)));
    return forms;
  case kir::BinaryKind::Max:
    if (matchPattern(bin.getRhs(), m_Zero()))
      for (const Linear &x : upperForms(bin.getLhs()))
        if (x.nonNegative())
          forms.push_back(x);
    return forms;
  default:
    return {};
  }
}
} // namespace

} // namespace

namespace tessel::pgpu {
/// The shape symbol S a range [lo, hi) is covered by: lo is 0 and hi at most the `pgpu.extent` S
/// of a view axis declared by name: hi is S itself, or a slice of a row bounded by S (`dims[0:D2]`
/// spans min(D2, D); `dims[D2:2 * D2]` min(2 * D2, D) - D2), so one block of S members holds it.
/// A slice of constant width w starting at a member-dependent column (a row's blocks of 128) is
/// covered by w, spelled as the number ("128"): one block of w members holds it.
/// Empty for any other range.
StringAttr spannedSymbol(Value lo, Value hi) {
  if (!matchPattern(lo, m_Zero()))
    return {};
  for (const Linear &form : upperForms(hi))
    if (form.constant == 0 && form.terms.size() == 1 && form.terms.begin()->second == 1)
      return StringAttr::get(hi.getContext(), form.terms.begin()->first);
  if (std::optional<int64_t> w = clippedWidth(hi); w && *w > 0)
    return StringAttr::get(hi.getContext(), std::to_string(*w));
  // A constant range [0, k) (a matrix's 64 columns, A: [B, 64, 64]) is covered by k: one block of k
  // members holds it at any call.
  if (std::optional<int64_t> k = constantIndex(hi); k && *k > 0)
    return StringAttr::get(hi.getContext(), std::to_string(*k));
  return {};
}
} // namespace tessel::pgpu

namespace {
/// Two constant widths (numbers, "128" and "64": a group's 128 columns, then its 64 packed pairs) are
/// covered by the wider: no block needs more lanes at any call. Empty for anything else.
StringAttr widerWidth(StringAttr a, StringAttr b) {
  int64_t x, y;
  if (!a || !b || a.getValue().getAsInteger(10, x) || b.getValue().getAsInteger(10, y))
    return {};
  return x >= y ? a : b;
}

struct FormBlocking : public tessel::pgpu::impl::PGPUFormBlockingBase<FormBlocking> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      bool remarks = remarksEnabled(kernel);
      // Independent sibling reductions over one range: one walk (before the candidates are listed).
      mergeSiblingReductions(kernel, remarks);
      // Independent sibling foreach loops over one range reading a common view: one walk.
      fuseSiblingForeachs(kernel, remarks);
      // Inner reductions reading along an enclosing reduction's axis: ordered, the outer one blocked.
      orderInnerReductions(kernel, remarks);
      SmallVector<Operation *> candidates;
      DenseSet<Operation *> kernelLevel;
      kernel.walk([&](Operation *op) {
        if (isa<ForeachOp, RangeReduceOp, RangeScanOp>(op))
          candidates.push_back(op);
        if (auto r = dyn_cast<RangeReduceOp>(op); r && kernelLevelReduction(r))
          kernelLevel.insert(op);
      });
      OpBuilder b(kernel.getContext());
      bool changed = false;
      // The symbol every blocked range spans, or empty once two disagree or one spans none.
      std::optional<StringAttr> covered;
      // A perfect nest of foreach or alike range_reduce loops whose innermost body is straight-line
      // is one loop over the product of their ranges, blocked as one (walk order: innermost first).
      // Kept only when that loop blocks; otherwise the nest stays as it was.
      DenseSet<Operation *> gone;
      // A reduction nest's innermost element may also hold ordered loops whose bounds are the same for
      // every member of the nest (orderInnerReductions' class loops): the lanes run them together.
      for (Operation *op : candidates) {
        if (gone.contains(op) || isa<RangeScanOp>(op))
          continue;
        SmallVector<ForOp> ordered;
        if (llvm::any_of(memberRegion(op).front(), [&](Operation &inner) {
              if (inner.getNumRegions() == 0)
                return false;
              auto loop = dyn_cast<ForOp>(inner);
              if (loop && isa<RangeReduceOp>(op))
                ordered.push_back(loop);
              return !loop || !isa<RangeReduceOp>(op);
            }))
          continue;
        SmallVector<Operation *> nest = perfectNest(op);
        if (nest.size() < 2 || !writesOwnEveryMember(nest))
          continue;
        Region &outermost = memberRegion(nest.front());
        if (llvm::any_of(ordered, [&](ForOp loop) {
              return llvm::any_of(ValueRange{loop.getLower(), loop.getUpper(), loop.getStep()},
                                  [&](Value v) {
                                    return !matchPattern(v, m_Constant()) && outermost.isAncestor(v.getParentRegion());
                                  });
            }))
          continue;
        SmallVector<Operation *> made;
        Operation *flat = flattenNest(b, nest, made);
        nest.front()->replaceAllUsesWith(flat->getResults());
        LogicalResult done = isa<ForeachOp>(flat) ? blockForeach(b, cast<ForeachOp>(flat))
                                                  : blockRangeReduce(b, cast<RangeReduceOp>(flat));
        if (failed(done)) {
          flat->replaceAllUsesWith(nest.front()->getResults());
          flat->erase();
          for (Operation *dead : llvm::reverse(made))
            if (dead->use_empty())
              dead->erase();
          continue;
        }
        if (remarks)
          emitRemark(op->getLoc()) << "pgpu-form-blocking: a perfect nest of " << nest.size() << " '"
                                   << op->getName().getStringRef()
                                   << "' became one loop over blocks of BLOCK lanes of their product space";
        gone.insert(nest.begin(), nest.end());
        nest.front()->erase();
        changed = true;
        covered = StringAttr(); // a product of ranges spans no one symbol
      }
      // Innermost first; a loop whose body still holds a loop is not blocked.
      for (Operation *op : llvm::reverse(candidates)) {
        if (gone.contains(op))
          continue;
        Location loc = op->getLoc();
        StringRef what = op->getName().getStringRef();
        std::string name = what.str();
        StringAttr spans;
        if (auto f = dyn_cast<ForeachOp>(op))
          spans = spannedSymbol(f.getLower(), f.getUpper());
        else if (auto s = dyn_cast<RangeScanOp>(op))
          spans = spannedSymbol(s.getLower(), s.getUpper());
        else
          spans = spannedSymbol(cast<RangeReduceOp>(op).getLower(), cast<RangeReduceOp>(op).getUpper());
        LogicalResult done = failure();
        bool declares = usesBlockParam(op);
        if (auto f = dyn_cast<ForeachOp>(op))
          done = blockForeach(b, f);
        else if (auto s = dyn_cast<RangeScanOp>(op))
          done = blockRangeScan(b, s);
        else if (kernelLevel.contains(op) &&
                 succeeded(foldRangeReduce(b, cast<RangeReduceOp>(op)))) {
          done = success();
          if (remarks)
            emitRemark(loc) << "pgpu-form-blocking: a kernel-level reduction became a region fold over blocks "
                               "of BLOCK lanes (its [BLOCK] accumulator reduced once after it)";
        } else if (splitPartial(cast<RangeReduceOp>(op)) &&
                   succeeded(blockRangeReduceLanes(b, cast<RangeReduceOp>(op)))) {
          done = success();
          if (remarks)
            emitRemark(loc) << "pgpu-form-blocking: a split reduction's partial keeps a [BLOCK] lane accumulator "
                               "across its blocks, reduced once after the loop";
        } else
          done = blockRangeReduce(b, cast<RangeReduceOp>(op));
        changed |= succeeded(done) && declares;
        if (succeeded(done) && declares)
          covered = !covered || *covered == spans ? spans : widerWidth(*covered, spans);
        if (remarks && succeeded(done))
          emitRemark(loc) << "pgpu-form-blocking: '" << name << "' became a loop over blocks of "
                          << (declares ? "BLOCK lanes" : "its program's owned members (one block; it holds an ordered loop)");
        else if (remarks)
          emitRemark(loc) << "pgpu-form-blocking: '" << name
                          << "' not blocked: its body has nested loops, control, reductions, tuples or atomics, or "
                             "a write that every lane would repeat";
      }
      // The blocked members' coordinates: carried quotients instead of per-lane divisions.
      carryLaneDivisions(kernel);
      if (changed && !kernel.getParam(kBlockParam)) {
        SmallVector<Attribute> params;
        if (auto existing = kernel.getParams())
          params.assign(existing->begin(), existing->end());
        params.push_back(ParamAttr::get(kernel.getContext(), StringAttr::get(kernel.getContext(), kBlockParam),
                                        {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}, 512,
                                        StringAttr(), covered.value_or(StringAttr())));
        kernel.setParamsAttr(ArrayAttr::get(kernel.getContext(), params));
      }
    }
  }
};
} // namespace
