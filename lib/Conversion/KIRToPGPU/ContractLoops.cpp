//===- ContractLoops.cpp - K loops of contractions in fragment worksets ---===//
//
// Private to kir-to-pgpu (FoldWorkset.cpp). A free axis of a fold workset is
// a fragment axis of BLOCK_<D> members under the guard `size(D) <= BLOCK_<D>`
// (the element-wise construction past it). An axis that only contractions
// reduce -- a GEMM's K: per row n the logits w[vocab, ks] . h[n, ks] folded
// into a logsumexp, the target's w[labels[n], ks] . h[n, ks] -- needs no
// fragment of all of it: each contraction over it is a pgpu.for over its
// BLOCK_<D>-wide blocks, the operands read block by block inside the loop and
// the block products added into the carried accumulator (seed 002 §3.4:
// structured realization creates the loops; the add is regrouped, seed 000
// §8 contraction semantics). pgpu-merge-contract-add then makes the carry the
// tile product's accumulator: the [BLOCK_N, BLOCK_V] logits tile of a fold's
// summarizer is tl.dot over a K loop whatever K is.
//
//===----------------------------------------------------------------------===//

#include "FoldWorksetImpl.h"

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::construct;

void FoldWorksetImpl::planLoopAxes() {
  // Block arguments and branch results stand for the values they alias: their uses are the value's.
  DenseMap<Value, SmallVector<Value, 1>> aliasesOf;
  for (auto &[from, to] : alias)
    aliasesOf[resolve(to)].push_back(from);
  // Whether every use of every value over `d` keeps it over `d` (pure producers and reads, replayed
  // per block) or is a contraction reducing `d` (or a fold's capture or source along another axis,
  // whose summarizer's uses are checked as the value's).
  auto reducedOnly = [&](Value d) {
    for (auto &[v, s] : shapes) {
      if (!llvm::is_contained(s.axes, d))
        continue;
      if (llvm::count(s.axes, d) != 1)
        return false;
      SmallVector<Value, 2> names{v};
      if (auto it = aliasesOf.find(v); it != aliasesOf.end())
        llvm::append_range(names, it->second);
      for (Value name : names)
        for (OpOperand &use : name.getUses()) {
          Operation *user = use.getOwner();
          if (auto c = dyn_cast<kir::ContractOp>(user)) {
            if (c.getLhsReduce().size() != 1 || (use.get() != c.getLhs() && use.get() != c.getRhs()))
              return false;
            int64_t axis = use.get() == c.getLhs() ? c.getLhsReduce()[0] : c.getRhsReduce()[0];
            if (s.axes[axis] != d)
              return false;
            continue;
          }
          if (auto f = dyn_cast<kir::RegionFoldOp>(user)) {
            if (llvm::is_contained(f.getCaptures(), use.get()))
              continue;
            if (llvm::is_contained(f.getSources(), use.get()) && s.axes[f.getAxis()] != d)
              continue;
            return false;
          }
          if (user->hasTrait<OpTrait::IsTerminator>() && isa<kir::IfOp>(user->getParentOp()))
            continue; // the branch's result aliases it
          bool keeps = user->getNumResults() && llvm::all_of(user->getResults(), [&](Value r) {
            auto rs = shapes.find(resolve(r));
            return rs != shapes.end() && llvm::is_contained(rs->second.axes, d);
          });
          if (!keeps || !(isMemoryEffectFree(user) || isa<kir::LoadOp, kir::GatherOp>(user)))
            return false;
        }
    }
    return true;
  };
  for (auto &[d, name] : freeAxes) {
    if (!reducedOnly(d))
      continue;
    // BLOCK_K's loop step is TILE_K (form-tiles' name for a K block).
    std::string step = "TILE_" + StringRef(name).drop_front(StringRef(name).starts_with("BLOCK_") ? 6 : 0).str();
    auto taken = [&](StringRef n) {
      if (n == pgpu::kBlockParam || n == laneParam)
        return true;
      for (auto *axes : {&freeAxes, &tileAxes, &loopAxes})
        for (auto &[other, p] : *axes)
          if (p == n)
            return true;
      return false;
    };
    while (taken(step))
      step += "_";
    loopAxes[d] = step;
  }
}

bool FoldWorksetImpl::overLoopAxis(Value v) {
  if (!looping)
    return false;
  std::optional<Shape> s = shapeOf(v);
  return s && llvm::any_of(s->axes, [&](Value d) { return loopAxes.count(d) != 0; });
}

LogicalResult FoldWorksetImpl::realizeBeforeLoop(ArrayRef<Value> roots, Value axis,
                                                 function_ref<bool(Value)> realizeHere) {
  SmallVector<Value> work(roots);
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = resolve(work.pop_back_val());
    if (isa<kir::DomainType, kir::ViewType>(v.getType()) || !seen.insert(v).second)
      continue;
    std::optional<Shape> vs = shapeOf(v);
    if (!vs)
      return failure();
    if (!llvm::is_contained(vs->axes, axis)) {
      if (realizeHere(v) && failed(get(v)))
        return failure();
      continue;
    }
    if (Operation *def = v.getDefiningOp())
      llvm::append_range(work, def->getOperands());
  }
  return success();
}

LogicalResult FoldWorksetImpl::emitLoopedContract(kir::ContractOp c, Value d) {
  Location l = c.getLoc();
  // What the operands read that does not range over `d` (a gathered row's index, the lanes'
  // positions, a fold tile's members) is realized once, before the loop.
  if (failed(realizeBeforeLoop({c.getLhs(), c.getRhs()}, d, [](Value) { return true; })))
    return failure();
  FailureOr<DomainVals> dom = domainOf(l, d);
  std::optional<Shape> so = shapeOf(c.getResult());
  if (failed(dom) || !so)
    return failure();
  Type element = getElementTypeOrSelf(c.getType());
  FailureOr<Type> type = physType(*so, element);
  if (failed(type))
    return failure();
  Value init = kc.zeroOf(l, element);
  if (*type != element)
    init = pgpu::SplatOp::create(b, l, *type, init);
  StringRef name = loopAxes.find(d)->second;
  auto loop = pgpu::ForOp::create(b, l, TypeRange{*type}, kc.constIndex(l, 0), dom->size,
                                  param(l, name), ValueRange{init});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = b.createBlock(&loop.getBody());
    Value begin = body->addArgument(b.getIndexType(), l);
    Value carry = body->addArgument(*type, l);
    blocks[d] = makeBlock(l, name, begin, dom->size, *dom);
    scopes.emplace_back();
    LogicalResult done = emitContract(c);
    Value part = succeeded(done) ? scopes.back().lookup(c.getResult()) : Value();
    scopes.pop_back();
    blocks.erase(d);
    if (!part)
      return failure();
    pgpu::YieldOp::create(b, l, ValueRange{kc.binary(l, kir::BinaryKind::Add, part, carry)});
  }
  bind(c.getResult(), loop.getResult(0));
  return success();
}

LogicalResult FoldWorksetImpl::emitLooped() {
  Location l = par.getLoc();
  looping = true;
  scopes.emplace_back();
  emittedScans.clear();
  for (auto &[d, name] : freeAxes) {
    if (loopAxes.count(d)) {
      blocks.erase(d); // values over it exist only inside its contractions' loops
      continue;
    }
    const DomainVals &dv = kc.domains.find(d)->second;
    blocks[d] = makeBlock(l, name, kc.constIndex(l, 0), dv.size, dv);
  }
  localDomains.clear();
  LogicalResult done = success();
  for (Value d : memberDomains)
    if (!laneDomains.contains(d) && failed(domainOf(d.getLoc(), d))) // a lane domain's range: in its fold
      done = failure();
  if (succeeded(done))
    done = emitEffects(par.getBody().front());
  scopes.pop_back();
  looping = false;
  if (succeeded(done) && remarks)
    emitRemark(l) << "kir-to-pgpu: where a contraction's paired axis is longer than its block, each contraction "
                     "over it is a loop over blocks of it, the product accumulated (the axis is only reduced: "
                     "no fragment holds all of it)";
  return done;
}

LogicalResult FoldWorksetImpl::emitPastBlocks(ArrayRef<Value> coords, Value laneBase) {
  Location l = par.getLoc();
  if (loopAxes.empty()) {
    scopes.clear();
    return emitFallback(coords, laneBase);
  }
  // Loop axes need no block of all of their extent (a GEMM's K): the looped variant, where every
  // other free axis fits (and, for grouped lanes, G >= 1).
  Value rest = groupSize ? Value(pgpu::CmpOp::create(b, l, kir::CmpPredicate::GE, get(groupSize).value(),
                                                     kc.constIndex(l, 1)))
                         : Value();
  if (Value paired = pairedSizes(l))
    rest = rest ? kc.binary(l, kir::BinaryKind::And, rest, paired) : paired;
  for (auto &[d, name] : freeAxes) {
    if (loopAxes.count(d))
      continue;
    Value ok = pgpu::CmpOp::create(b, l, kir::CmpPredicate::LE, kc.domains.find(d)->second.size, param(l, name));
    rest = rest ? kc.binary(l, kir::BinaryKind::And, rest, ok) : ok;
  }
  if (!rest)
    return emitLooped();
  auto split = pgpu::IfOp::create(b, l, TypeRange(), rest);
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&split.getThenRegion());
  if (failed(emitLooped()))
    return failure();
  pgpu::YieldOp::create(b, l);
  b.createBlock(&split.getElseRegion());
  scopes.clear();
  if (failed(emitFallback(coords, laneBase)))
    return failure();
  pgpu::YieldOp::create(b, l);
  return success();
}
