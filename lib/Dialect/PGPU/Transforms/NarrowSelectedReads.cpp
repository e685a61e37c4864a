//===- NarrowSelectedReads.cpp - a read used only under a select takes its predicate ===//
//
// seed 002 §3.5 (predicate range narrowing) and seed 000 §8 (an access's validity says which lanes
// touch memory): a lane a select discards need not be read. A masked softmax's row
// `where(t < len, x[t], -inf)` (corpus 187's key lengths) reads every key below the row's extent,
// the masked ones too; the values read there are replaced by the select, so the read's validity may
// also require `t < len` and those lanes take the fill instead of memory. Only for intervals of lane
// positions (lengths, causal bounds): a condition on data (a dropout's keep mask) masks scattered lanes,
// which touches the same memory and costs the read its vector width.
//
//   %x = load %v[..] valid %ok fill %f            (fragment F)
//   %y = cast %x / unary %x / binary %x, %o       (lane-wise, read only along this chain)
//   %z = select %c, %y, %other                    (%c: iota < splat(len), of F's shape)
// ->
//   %x = load %v[..] valid (%ok & %c) fill %f
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUNARROWSELECTEDREADS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {

/// Whether `op` computes each lane of its fragment result from the same lane of its fragment
/// operands (and scalars), with nothing else observed: casts, unary and binary math.
bool laneWise(Operation *op) {
  if (!isa<CastOp, UnaryOp, BinaryOp>(op) || op->getNumResults() != 1)
    return false;
  auto type = dyn_cast<FragmentType>(op->getResult(0).getType());
  if (!type)
    return false;
  for (Value v : op->getOperands())
    if (auto f = dyn_cast<FragmentType>(v.getType()); f && f.getExtents() != type.getExtents())
      return false;
  return true;
}

/// The one condition under which every lane of `load`'s result is observed: each use, through
/// lane-wise ops read only along the chain, is the true side of a `pgpu.select` by the same i1
/// fragment of the result's shape. Null when there is none, with `why` set where a select is
/// reached but the uses disagree.
Value selectingCondition(LoadOp load, std::string &why) {
  auto type = dyn_cast<FragmentType>(load.getResult().getType());
  if (!type)
    return nullptr;
  Value cond;
  SmallVector<Value> work{load.getResult()};
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto sel = dyn_cast<SelectOp>(user)) {
        auto c = dyn_cast<FragmentType>(sel.getCondition().getType());
        if (use.getOperandNumber() != 1 || !c || c.getExtents() != type.getExtents()) {
          why = "a select reads the value as its condition, its false side, or under a scalar condition";
          return nullptr;
        }
        if (cond && cond != sel.getCondition()) {
          why = "its selects have different conditions";
          return nullptr;
        }
        cond = sel.getCondition();
        continue;
      }
      if (!laneWise(user))
        return nullptr; // observed otherwise: a reduction, a store, a coordinate
      if (seen.insert(user).second)
        work.push_back(user->getResult(0));
    }
  }
  return cond;
}

/// The leaves of an `and` tree.
void andLeaves(Value v, SmallVectorImpl<Value> &out) {
  if (auto b = v.getDefiningOp<BinaryOp>(); b && b.getKind() == kir::BinaryKind::And) {
    andLeaves(b.getLhs(), out);
    andLeaves(b.getRhs(), out);
    return;
  }
  out.push_back(v);
}

/// Whether `v` holds lane positions: an iota, a broadcast of positions, or positions plus or minus a
/// splat or broadcast value (a row's offset).
bool positions(Value v, unsigned depth = 0) {
  if (depth > 8)
    return false;
  if (v.getDefiningOp<IotaOp>())
    return true;
  if (auto bc = v.getDefiningOp<BroadcastOp>())
    return positions(bc.getOperand(), depth + 1);
  auto bin = v.getDefiningOp<BinaryOp>();
  if (!bin || (bin.getKind() != kir::BinaryKind::Add && bin.getKind() != kir::BinaryKind::Sub))
    return false;
  auto spread = [](Value x) { return x.getDefiningOp<SplatOp>() || x.getDefiningOp<BroadcastOp>(); };
  return (positions(bin.getLhs(), depth + 1) && spread(bin.getRhs()) && !positions(bin.getRhs(), depth + 1)) ||
         (bin.getKind() == kir::BinaryKind::Add && positions(bin.getRhs(), depth + 1) && spread(bin.getLhs()) &&
          !positions(bin.getLhs(), depth + 1));
}

/// Whether `c` is an interval of lane positions: an order comparison of positions with a splat or a
/// broadcast (a length, a row's query position), or an `and` of such. A condition on loaded or hashed
/// data (a dropout's random keep mask) is not: it would mask scattered lanes, which saves no memory
/// traffic and costs the read its vector width.
bool positionalInterval(Value c) {
  SmallVector<Value> leaves;
  andLeaves(c, leaves);
  return llvm::all_of(leaves, [](Value leaf) {
    auto cmp = leaf.getDefiningOp<CmpOp>();
    if (!cmp || cmp.getPredicate() == kir::CmpPredicate::EQ || cmp.getPredicate() == kir::CmpPredicate::NE)
      return false;
    auto spread = [](Value x) { return x.getDefiningOp<SplatOp>() || x.getDefiningOp<BroadcastOp>(); };
    return (positions(cmp.getLhs()) && spread(cmp.getRhs())) || (positions(cmp.getRhs()) && spread(cmp.getLhs()));
  });
}

/// Whether `a` and `b` are the same value, or computed by the same pure region-free ops from the same
/// values (two copies of one mask that CSE has not merged yet).
bool sameValue(Value a, Value b, unsigned depth = 0) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || depth > 8 || x->getName() != y->getName() || x->getAttrDictionary() != y->getAttrDictionary() ||
      x->getNumRegions() || y->getNumRegions() || !isPure(x) || x->getNumOperands() != y->getNumOperands() ||
      x->getResultTypes() != y->getResultTypes() ||
      cast<OpResult>(a).getResultNumber() != cast<OpResult>(b).getResultNumber())
    return false;
  for (auto [u, v] : llvm::zip(x->getOperands(), y->getOperands()))
    if (!sameValue(u, v, depth + 1))
      return false;
  return true;
}

struct NarrowSelectedReads : tessel::pgpu::impl::PGPUNarrowSelectedReadsBase<NarrowSelectedReads> {
  void runOnOperation() override {
    bool remarks = remarksEnabled(getOperation());
    DominanceInfo dom(getOperation());
    SmallVector<LoadOp> loads;
    getOperation().walk([&](LoadOp load) { loads.push_back(load); });
    for (LoadOp load : loads) {
      std::string why;
      Value cond = selectingCondition(load, why);
      if (!cond) {
        if (remarks && !why.empty())
          load.emitRemark() << "pgpu-narrow-selected-reads: the read keeps its validity: " << why;
        continue;
      }
      if (!positionalInterval(cond)) {
        if (remarks)
          load.emitRemark() << "pgpu-narrow-selected-reads: the read keeps its validity: the select's condition "
                               "is not an interval of lane positions";
        continue;
      }
      Value valid = load.getValid();
      SmallVector<Value> leaves;
      andLeaves(valid, leaves);
      SmallVector<Value> condLeaves;
      andLeaves(cond, condLeaves);
      if (llvm::all_of(condLeaves, [&](Value c) {
            return llvm::any_of(leaves, [&](Value leaf) { return sameValue(leaf, c); });
          }))
        continue; // already read only there (every conjunct of the condition is one of the validity's)
      if (!dom.properlyDominates(cond, load)) {
        if (remarks)
          load.emitRemark() << "pgpu-narrow-selected-reads: the read keeps its validity: the select's "
                               "condition is computed after it";
        continue;
      }
      if (valid.getType() != cond.getType()) {
        // a scalar validity (a whole-fragment guard) is spread over the lanes first
        if (!valid.getType().isInteger(1))
          continue;
        OpBuilder b(load);
        valid = SplatOp::create(b, load.getLoc(), cond.getType(), valid);
      }
      OpBuilder b(load);
      Value narrowed = BinaryOp::create(b, load.getLoc(), kir::BinaryKind::And, valid, cond);
      load.getValidMutable().assign(narrowed);
      if (remarks)
        load.emitRemark() << "pgpu-narrow-selected-reads: the read's validity takes the condition of the "
                             "select that discards its other lanes";
    }
  }
};

} // namespace
