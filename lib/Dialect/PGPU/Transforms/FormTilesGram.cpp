//===- FormTilesGram.cpp - pgpu-form-tiles: Gram nests ---------------------===//
//
// Part of pgpu-form-tiles (FormTiles.cpp describes the pass): a reduction over (t, s) of a pointwise
// function of contractions free on t and s, two reductions deep (per-sample gradient norms by ghost
// clipping, issue 41). gramNest accepts the nest in the analysis; tileGramFold realizes the walk over
// t blocks as a region fold that pgpu-split-folds may spread across programs.
//
//===----------------------------------------------------------------------===//

#include "FormTilesImpl.h"
#include "GramFolds.h"

#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace tessel::pgpu::formtiles {

/// seed 002 §3.3-§3.4: a reduction R over t (in the program body) of a reduction S over s of a
/// pointwise function of contractions C_i(t, s) = sum_k x_i(t, k) y_i(s, k) (per-sample gradient norms
/// by ghost clipping: sum_{t,s} (A A^T)[t, s] (G G^T)[t, s]) is realized as Gram tiles: t and s are
/// blocked by their own TILE_<axis>, R and S walk their blocks, each C_i is a [TILE_t, TILE_s] tile
/// accumulated by a K loop of tile products, and S and R reduce the function's tile along s then t
/// into their carries (their combine, invalid lanes at the identity). Every reduction in S's element
/// is such a contraction; S's bounds are free of t and the contractions' of t and s.
bool Tiler::gramNest(RangeReduceOp inner, RangeReduceOp outer) {
  unsigned t = loopAxis.lookup(outer), s = loopAxis.lookup(inner);
  // A group without axes (a kernel-level sum over (i, j) of a Gram tile's function: SigLIP's pairwise
  // loss) is tiled too: its one program's fold over t blocks is spread by pgpu-split-folds.
  if (outer->getBlock() != programBody ||
      ((maskOf(inner.getLower()) | maskOf(inner.getUpper())) & ~programAxes))
    return false;
  unsigned found = 0;
  for (auto [cOp, sOp] : enclosingOf) {
    if (sOp != inner.getOperation())
      continue;
    const ContractShape *c = nullptr;
    for (const ContractShape &shape : contracts)
      if (shape.reduce == cOp)
        c = &shape;
    auto contraction = cast<RangeReduceOp>(cOp);
    if (!c || (bit(c->lhsFree) | bit(c->rhsFree)) != (bit(t) | bit(s)) ||
        ((maskOf(contraction.getLower()) | maskOf(contraction.getUpper())) & ~programAxes))
      return false;
    ++found;
  }
  if (!found)
    return false;
  gramFolds.insert(outer);
  for (RangeReduceOp r : {outer, inner}) {
    int64_t extent = -1;
    std::optional<int64_t> lo = constantIndex(r.getLower()), hi = constantIndex(r.getUpper());
    if (lo && hi)
      extent = std::max<int64_t>(*hi - *lo, 1);
    nestAxes[loopAxis.lookup(r)] = extent;
  }
  return true;
}

/// seed 002 §3.4 (region-fold realization): the reduction over t of a Gram nest (gramNest) is a
/// pgpu.region_fold over blocks of TILE_t whose summarize is one block's [TILE_t] members (the reduction
/// over s of the Gram tiles' function, invalid lanes at the identity) and whose combine is the
/// reduction's, lane-wise; the summary is reduced to the scalar after the fold, as pgpu-form-blocking
/// forms a kernel-level sum. So pgpu-split-folds may cut the t blocks of one sample across programs
/// (few samples, long Gram walks) and combine their summaries in its last arrival.
void Tiler::tileGramFold(RangeReduceOp op) {
  Location loc = op.getLoc();
  unsigned k = loopAxis.lookup(op);
  Block &element = op.getElement().front();
  SmallVector<Type> types;
  SmallVector<Value> inits;
  for (Value id : op.getIdentities()) {
    types.push_back(typeFor(id.getType(), bit(k)));
    inits.push_back(expand(loc, map.lookupOrDefault(id), blockedMask(id), bit(k)));
  }
  Value step = ParamOp::create(b, loc, b.getIndexType(), paramOf[k]);
  auto fold = RegionFoldOp::create(b, loc, types, map.lookupOrDefault(op.getLower()),
                                   map.lookupOrDefault(op.getUpper()), step, inits, ValueRange{});
  {
    OpBuilder::InsertionGuard guard(b);
    Type index = b.getIndexType();
    Block *body = b.createBlock(&fold.getSummarize(), {}, {index, index}, {loc, loc});
    bindAxis(k, body->getArgument(0), body->getArgument(1), element.getArgument(0));
    for (Operation &inner : element.without_terminator())
      (void)cloneOp(inner);
    SmallVector<Value> members;
    for (auto [y, id] : llvm::zip(element.getTerminator()->getOperands(), op.getIdentities()))
      members.push_back(SelectOp::create(b, loc, laneOk[k], mapped(loc, y, bit(k)),
                                         expand(loc, map.lookupOrDefault(id), blockedMask(id), bit(k))));
    YieldOp::create(b, loc, members);
    // The combine, lane-wise over [TILE_t] (analyzeReduce: straight-line code).
    SmallVector<Type> both(types);
    llvm::append_range(both, types);
    Block &from = op.getCombine().front();
    Block *combine = b.createBlock(&fold.getCombine(), {}, both, SmallVector<Location>(both.size(), loc));
    IRMapping lanewise;
    for (auto [arg, v] : llvm::zip(from.getArguments(), combine->getArguments()))
      lanewise.map(arg, v);
    for (Operation &c : from.without_terminator()) {
      SmallVector<Value> operands;
      for (Value v : c.getOperands()) {
        Value m = lanewise.lookupOrDefault(v);
        operands.push_back(isa<FragmentType>(m.getType()) ? m : Value(SplatOp::create(b, loc, typeFor(m.getType(), bit(k)), m)));
      }
      SmallVector<Type> results;
      for (Type t : c.getResultTypes())
        results.push_back(typeFor(t, bit(k)));
      OperationState state(c.getLoc(), c.getName(), operands, results, c.getAttrs());
      Operation *made = b.create(state);
      for (auto [r, n] : llvm::zip(c.getResults(), made->getResults()))
        lanewise.map(r, n);
    }
    SmallVector<Value> yields;
    for (Value y : from.getTerminator()->getOperands())
      yields.push_back(lanewise.lookupOrDefault(y));
    YieldOp::create(b, loc, yields);
  }
  // The summarize region is closed: what it uses from above is a capture, but launch-time pure values
  // (constants, parameters, extents and index arithmetic over them) are cloned in, so later passes still
  // see a K loop's bound as a view's extent (pgpu-narrow-predicates leaves that loop whole).
  Region &region = fold.getSummarize();
  llvm::SetVector<Value> above;
  {
    OpBuilder::InsertionGuard guard(b);
    Block &entry = region.front();
    for (bool changed = true; changed;) {
      changed = false;
      above.clear();
      getUsedValuesDefinedAbove(region, above);
      for (Value v : above) {
        Operation *def = v.getDefiningOp();
        if (!def || !(launchTime(v) || isa<arith::ConstantOp, ParamOp>(def)) || def->getNumRegions() || def->getNumResults() != 1 || !isMemoryEffectFree(def))
          continue;
        b.setInsertionPointToStart(&entry);
        replaceAllUsesInRegionWith(v, b.clone(*def)->getResult(0), region);
        changed = true;
      }
    }
    b.setInsertionPointToStart(&entry);
    for (Value v : above) {
      fold.getCapturesMutable().append(v);
      replaceAllUsesInRegionWith(v, entry.addArgument(v.getType(), v.getLoc()), region);
    }
  }
  SmallVector<Value> ids;
  for (Value id : op.getIdentities())
    ids.push_back(map.lookupOrDefault(id));
  auto total = ReduceOp::create(b, loc, op.getResultTypes(), fold.getResults(), b.getDenseI64ArrayAttr({0}), ids);
  IRMapping regionMap;
  op.getCombine().cloneInto(&total.getCombine(), regionMap);
  for (auto [r, n] : llvm::zip(op.getResults(), total.getResults()))
    map.map(r, n);
}

} // namespace tessel::pgpu::formtiles

bool tessel::pgpu::formsGramFold(KernelOp kernel, ProgramSpaceOp space, ExecutionGroupOp group) {
  formtiles::Tiler tiler(kernel, space, group, IfOp());
  return succeeded(tiler.analyze()) && !tiler.isSegmented() && tiler.formsGramFold();
}
