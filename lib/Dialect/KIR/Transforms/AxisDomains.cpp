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

namespace {
/// A failed query is memoized as this one-element vector of a null value (a known answer never holds
/// a null domain), so a chain rooted where no domain is known (a loop's tensor block argument) is
/// walked once, not once per query.
bool isFailure(const SmallVector<Value> &d) { return d.size() == 1 && !d[0]; }

/// The values whose domains `v`'s are computed from, pushed on `deps`; false when `v` has no known
/// domains whatever they are (a block argument, an op the analysis does not model).
bool dependencies(Value v, SmallVectorImpl<Value> &deps) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<LoadOp, IndicesOp, BroadcastOp>(def))
    return true;
  if (auto gather = dyn_cast<GatherOp>(def)) {
    ArrayRef<int64_t> joint = jointOf(gather);
    for (auto [i, c] : llvm::enumerate(gather.getCoords()))
      if (isa<RankedTensorType>(c.getType()) && (joint.empty() || joint[i] < 0))
        deps.push_back(c);
    return true;
  }
  if (auto bc = dyn_cast<BroadcastAsOp>(def)) {
    deps.push_back(bc.getReference());
    return true;
  }
  if (isa<BinaryOp, UnaryOp, SelectOp, CastOp, CmpOp>(def)) {
    for (Value x : def->getOperands())
      if (isa<RankedTensorType>(x.getType())) {
        deps.push_back(x); // the first tensor operand's axes (the verifier matched the others)
        return true;
      }
    return false;
  }
  if (auto c = dyn_cast<ContractOp>(def)) {
    deps.push_back(c.getLhs());
    deps.push_back(c.getRhs());
    return true;
  }
  if (auto r = dyn_cast<ReduceOp>(def)) {
    deps.push_back(r.getInputs()[cast<OpResult>(v).getResultNumber()]);
    return true;
  }
  return false;
}

/// `v`'s domains from its dependencies' (each already known: not a failure).
SmallVector<Value> combine(Value v, DenseMap<Value, SmallVector<Value>> &memo) {
  Operation *def = v.getDefiningOp();
  auto of = [&](Value x) -> const SmallVector<Value> & {
    static const SmallVector<Value> none;
    return isa<RankedTensorType>(x.getType()) ? memo.find(x)->second : none;
  };
  auto without = [&](Value x, ArrayRef<int64_t> drop) {
    SmallVector<Value> kept;
    for (auto [i, dom] : llvm::enumerate(of(x)))
      if (!llvm::is_contained(drop, (int64_t)i))
        kept.push_back(dom);
    return kept;
  };
  SmallVector<Value> d;
  if (auto load = dyn_cast<LoadOp>(def)) {
    for (Value c : load.getCoords())
      if (isa<DomainType>(c.getType()))
        d.push_back(c);
  } else if (auto gather = dyn_cast<GatherOp>(def)) {
    // Domain coordinates give their axis; an index tensor its axes (once for a joint pair).
    ArrayRef<int64_t> joint = jointOf(gather);
    for (auto [i, c] : llvm::enumerate(gather.getCoords())) {
      if (isa<DomainType>(c.getType()))
        d.push_back(c);
      else if (isa<RankedTensorType>(c.getType()) && (joint.empty() || joint[i] < 0))
        llvm::append_range(d, of(c));
    }
  } else if (auto ind = dyn_cast<IndicesOp>(def)) {
    d.push_back(ind.getDomain());
  } else if (auto bc = dyn_cast<BroadcastOp>(def)) {
    d.assign(bc.getDomains().begin(), bc.getDomains().end());
  } else if (auto bc = dyn_cast<BroadcastAsOp>(def)) {
    d = of(bc.getReference());
  } else if (isa<BinaryOp, UnaryOp, SelectOp, CastOp, CmpOp>(def)) {
    for (Value x : def->getOperands())
      if (isa<RankedTensorType>(x.getType())) {
        d = of(x);
        break;
      }
  } else if (auto c = dyn_cast<ContractOp>(def)) {
    d = without(c.getLhs(), c.getLhsReduce());
    SmallVector<int64_t> rdrop(c.getRhsReduce());
    llvm::append_range(rdrop, c.getRhsBatch());
    llvm::append_range(d, without(c.getRhs(), rdrop));
  } else if (auto r = dyn_cast<ReduceOp>(def)) {
    d = without(r.getInputs()[cast<OpResult>(v).getResultNumber()], r.getAxes());
  }
  return d;
}
} // namespace

// Iterative (issue 47: no recursion over def-use chains in the passes): a post-order walk with an
// explicit stack, every answer on the way memoized, failures too, so each value is visited once per
// memo and a chain of any length costs its length.
std::optional<SmallVector<Value>> tessel::kir::domainsOf(Value v, DenseMap<Value, SmallVector<Value>> &memo) {
  if (!isa<RankedTensorType>(v.getType()))
    return SmallVector<Value>{};
  SmallVector<std::pair<Value, bool>> stack{{v, false}}; // (value, its dependencies pushed)
  SmallVector<Value> deps;
  while (!stack.empty()) {
    auto [x, expanded] = stack.back();
    if (memo.count(x)) {
      stack.pop_back();
      continue;
    }
    deps.clear();
    if (!dependencies(x, deps)) {
      memo[x] = SmallVector<Value>{Value()};
      stack.pop_back();
      continue;
    }
    SmallVector<Value> pending;
    bool failed = false;
    for (Value y : deps) {
      if (!isa<RankedTensorType>(y.getType()))
        continue;
      auto it = memo.find(y);
      if (it == memo.end())
        pending.push_back(y);
      else
        failed |= isFailure(it->second);
    }
    if (failed || (expanded && !pending.empty())) {
      // A dependency failed (or, defensively, is still unknown after its walk: a cycle, which
      // SSA dominance rules out outside graph regions).
      memo[x] = SmallVector<Value>{Value()};
      stack.pop_back();
      continue;
    }
    if (pending.empty()) {
      memo[x] = combine(x, memo);
      stack.pop_back();
      continue;
    }
    stack.back().second = true;
    for (Value y : llvm::reverse(pending))
      stack.push_back({y, false});
  }
  const SmallVector<Value> &d = memo.find(v)->second;
  if (isFailure(d))
    return std::nullopt;
  return d;
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

Value tessel::kir::indicesOf(Value domain) {
  for (Operation *user : domain.getUsers())
    if (auto ind = dyn_cast<IndicesOp>(user); ind && !ind->getParentOfType<ParallelOp>())
      return ind.getResult();
  OpBuilder b(domain.getContext());
  b.setInsertionPointAfterValue(domain);
  return IndicesOp::create(b, domain.getLoc(), RankedTensorType::get({ShapedType::kDynamic}, b.getIndexType()),
                           domain)
      .getResult();
}
