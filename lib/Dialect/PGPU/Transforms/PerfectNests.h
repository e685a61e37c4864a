//===- PerfectNests.h - perfect nests of member loops and their flat walk -*- C++ -*-===//
//
// What pgpu-form-blocking and pgpu-split-row-reductions share: the perfect nest of foreach or alike
// range_reduce loops over a rectangular product space, and the one loop over [0, n_0 * ... * n_k)
// that stands for it (seed 000 §8: a reduction's members may be regrouped and reordered).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_PERFECTNESTS_H
#define TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_PERFECTNESTS_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"

namespace tessel::pgpu::nests {
using namespace mlir;

/// The bounds of a foreach or range_reduce.
inline std::pair<Value, Value> boundsOf(Operation *op) {
  if (auto f = dyn_cast<ForeachOp>(op))
    return {f.getLower(), f.getUpper()};
  auto r = cast<RangeReduceOp>(op);
  return {r.getLower(), r.getUpper()};
}

/// The single region of a foreach (its body) or range_reduce (its element).
inline Region &memberRegion(Operation *op) {
  if (auto f = dyn_cast<ForeachOp>(op))
    return f.getBody();
  return cast<RangeReduceOp>(op).getElement();
}

/// Whether `outer` and `inner` (both range_reduce) reduce alike: the same identities and equivalent
/// combines, so the nest is one reduction over the product of their ranges (seed 000 §8: the
/// members of an associative/commutative reduce may be regrouped and reordered).
inline bool reducesAlike(RangeReduceOp outer, RangeReduceOp inner) {
  if (outer.getResultTypes() != inner.getResultTypes())
    return false;
  for (auto [a, b] : llvm::zip(outer.getIdentities(), inner.getIdentities())) {
    Attribute ca, cb;
    if (a != b && !(matchPattern(a, m_Constant(&ca)) && matchPattern(b, m_Constant(&cb)) && ca == cb))
      return false;
  }
  return OperationEquivalence::isRegionEquivalentTo(&outer.getCombine(), &inner.getCombine(),
                                                    OperationEquivalence::IgnoreLocations);
}

/// The perfect nest that ends at `op`, outermost first: each enclosing loop of the same kind whose
/// member region holds nothing but the next loop and the yield of its results (a foreach, or a
/// range_reduce that reduces alike), while no bound of the loops inside is computed in it (the nest
/// spans a rectangular product space). Just {op} when no loop encloses it so.
inline SmallVector<Operation *> perfectNest(Operation *op) {
  SmallVector<Operation *> nest{op};
  while (Operation *parent = nest.front()->getParentOp()) {
    Operation *inner = nest.front();
    if (parent->getName() != inner->getName())
      break;
    Block &body = memberRegion(parent).front();
    if (&body.front() != inner || inner->getNextNode() != body.getTerminator() ||
        !llvm::equal(body.getTerminator()->getOperands(), inner->getResults()))
      break;
    if (auto r = dyn_cast<RangeReduceOp>(parent); r && !reducesAlike(r, cast<RangeReduceOp>(inner)))
      break;
    bool rectangular = llvm::all_of(nest, [&](Operation *loop) {
      auto [lo, hi] = boundsOf(loop);
      return !memberRegion(parent).isAncestor(lo.getParentRegion()) &&
             !memberRegion(parent).isAncestor(hi.getParentRegion());
    });
    if (!rectangular)
      break;
    nest.insert(nest.begin(), parent);
  }
  return nest;
}

/// One loop over [0, n_0 * ... * n_k) for the perfect nest `nest` (outermost first; n_j the member
/// count of loop j): member f stands for the members lo_j + (f / (n_{j+1} * ... * n_k)) % n_j of the
/// loops, and the innermost member region is cloned on them. A nest over several short axes
/// (a group's channels, rows and columns) becomes one long range that blocking fills (seed 002 §3.3:
/// enlarge what one program instance owns; the members and their combination are unchanged).
/// Built before the nest; the caller replaces the nest's results or erases it.
/// `made` receives the ops built before the nest (the member counts), for the caller to erase when
/// the loop is not kept.
inline Operation *flattenNest(OpBuilder &b, ArrayRef<Operation *> nest, SmallVectorImpl<Operation *> &made) {
  Operation *outer = nest.front(), *inner = nest.back();
  Location loc = inner->getLoc();
  b.setInsertionPoint(outer);
  auto bin = [&](kir::BinaryKind kind, Value x, Value y) -> Value {
    Value v = BinaryOp::create(b, loc, kind, x, y, false, false);
    if (v.getParentBlock() == outer->getBlock())
      made.push_back(v.getDefiningOp());
    return v;
  };
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  made.push_back(zero.getDefiningOp());
  SmallVector<Value> counts;
  Value total;
  for (Operation *loop : nest) {
    auto [lo, hi] = boundsOf(loop);
    Value n = matchPattern(lo, m_Zero()) ? hi : bin(kir::BinaryKind::Max, bin(kir::BinaryKind::Sub, hi, lo), zero);
    counts.push_back(n);
    total = total ? bin(kir::BinaryKind::Mul, total, n) : n;
  }
  Operation *flat;
  if (auto reduce = dyn_cast<RangeReduceOp>(inner)) {
    auto r = RangeReduceOp::create(b, loc, reduce.getResultTypes(), zero, total,
                                   cast<RangeReduceOp>(outer).getIdentities());
    IRMapping combineMap;
    reduce.getCombine().cloneInto(&r.getCombine(), combineMap);
    flat = r;
  } else {
    flat = ForeachOp::create(b, loc, zero, total);
  }
  OpBuilder::InsertionGuard guard(b);
  Block *body = b.createBlock(&memberRegion(flat));
  Value rest = body->addArgument(b.getIndexType(), loc);
  IRMapping map;
  for (int j = nest.size() - 1; j >= 0; --j) {
    Value at = j == 0 ? rest : bin(kir::BinaryKind::Rem, rest, counts[j]);
    if (j > 0)
      rest = bin(kir::BinaryKind::Div, rest, counts[j]);
    Value lo = boundsOf(nest[j]).first;
    map.map(memberRegion(nest[j]).front().getArgument(0),
            matchPattern(lo, m_Zero()) ? at : bin(kir::BinaryKind::Add, lo, at));
  }
  for (Operation &op : memberRegion(inner).front())
    b.clone(op, map);
  return flat;
}

} // namespace tessel::pgpu::nests

#endif // TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_PERFECTNESTS_H
