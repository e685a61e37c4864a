//===- AxisDomains.cpp - the coordinate domain of each axis of a KIR value ===//
//
// Shared by the KIR passes that rebuild values over the same domains (a region
// fold's identities, a broadcast divisor): a load's domain coordinates, a
// broadcast's domains, and what pointwise ops, contractions and reductions keep.
//
//===----------------------------------------------------------------------===//

#include "AxisDomains.h"

#include "tessel/Dialect/KIR/IR/KIR.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tessel::kir;

std::optional<SmallVector<Value>> tessel::kir::domainsOf(Value v, DenseMap<Value, SmallVector<Value>> &memo) {
  if (!isa<RankedTensorType>(v.getType()))
    return SmallVector<Value>{};
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  std::optional<SmallVector<Value>> out;
  auto without = [&](Value x, ArrayRef<int64_t> drop) -> std::optional<SmallVector<Value>> {
    auto d = domainsOf(x, memo);
    if (!d)
      return std::nullopt;
    SmallVector<Value> kept;
    for (auto [i, dom] : llvm::enumerate(*d))
      if (!llvm::is_contained(drop, (int64_t)i))
        kept.push_back(dom);
    return kept;
  };
  if (auto load = dyn_cast<LoadOp>(def)) {
    SmallVector<Value> d;
    for (Value c : load.getCoords())
      if (isa<DomainType>(c.getType()))
        d.push_back(c);
    out = d;
  } else if (auto gather = dyn_cast<GatherOp>(def)) {
    // Domain coordinates give their axis; an index tensor its axes (once for a joint pair).
    SmallVector<Value> d;
    ArrayRef<int64_t> joint = jointOf(gather);
    for (auto [i, c] : llvm::enumerate(gather.getCoords())) {
      if (isa<DomainType>(c.getType())) {
        d.push_back(c);
      } else if (isa<RankedTensorType>(c.getType()) && (joint.empty() || joint[i] < 0)) {
        auto inner = domainsOf(c, memo);
        if (!inner)
          return std::nullopt;
        llvm::append_range(d, *inner);
      }
    }
    out = d;
  } else if (auto ind = dyn_cast<IndicesOp>(def)) {
    out = SmallVector<Value>{ind.getDomain()};
  } else if (auto bc = dyn_cast<BroadcastOp>(def)) {
    out = SmallVector<Value>(bc.getDomains().begin(), bc.getDomains().end());
  } else if (auto bc = dyn_cast<BroadcastAsOp>(def)) {
    out = domainsOf(bc.getReference(), memo);
  } else if (isa<BinaryOp, UnaryOp, SelectOp, CastOp, CmpOp>(def)) {
    for (Value x : def->getOperands())
      if (isa<RankedTensorType>(x.getType()))
        return domainsOf(x, memo);
  } else if (auto c = dyn_cast<ContractOp>(def)) {
    auto l = without(c.getLhs(), c.getLhsReduce());
    SmallVector<int64_t> rdrop(c.getRhsReduce());
    llvm::append_range(rdrop, c.getRhsBatch());
    auto r = without(c.getRhs(), rdrop);
    if (l && r) {
      llvm::append_range(*l, *r);
      out = l;
    }
  } else if (auto r = dyn_cast<ReduceOp>(def)) {
    out = without(r.getInputs()[cast<OpResult>(v).getResultNumber()], r.getAxes());
  }
  if (out)
    memo[v] = *out;
  return out;
}

Value tessel::kir::axisFirstSource(Operation *s, Value domain, DenseMap<Operation *, Value> &views) {
  Value r = s->getResult(0);
  DenseMap<Value, SmallVector<Value>> memo;
  SmallVector<Value> doms = *domainsOf(r, memo);
  int64_t p = llvm::find(doms, domain) - doms.begin();
  if (p == 0)
    return r;
  if (Value v = views.lookup(s))
    return v;
  auto t = cast<RankedTensorType>(r.getType());
  SmallVector<int64_t> perm{p}, shape{t.getDimSize(p)};
  for (int64_t i = 0; i < t.getRank(); ++i)
    if (i != p) {
      perm.push_back(i);
      shape.push_back(t.getDimSize(i));
    }
  OpBuilder b(s->getContext());
  b.setInsertionPointAfter(s);
  Value v = TransposeOp::create(b, s->getLoc(), RankedTensorType::get(shape, t.getElementType()), r,
                                b.getDenseI64ArrayAttr(perm))
                .getResult();
  views[s] = v;
  return v;
}
