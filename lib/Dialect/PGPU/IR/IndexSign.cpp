//===- IndexSign.cpp - provably non-negative integer values ---------------===//
//
// IndexSign.h: a small structural sign analysis on pgpu values, conservative
// (false when unsure), bounded in depth so that it stays linear in practice.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/PGPU/IR/IndexSign.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
using Bound = std::optional<int64_t>; // a lower bound; nullopt: none known

Bound add(Bound x, Bound y) {
  int64_t r;
  if (!x || !y || llvm::AddOverflow(*x, *y, r))
    return std::nullopt;
  return r;
}

/// Whether `v` is `a - (a // b) * b` (either factor order): the floor remainder of a by b spelled out.
bool isSpelledRemainder(BinaryOp sub, Value &divisor) {
  auto mul = sub.getRhs().getDefiningOp<BinaryOp>();
  if (!mul || mul.getKind() != kir::BinaryKind::Mul)
    return false;
  for (auto [q, d] : {std::pair{mul.getLhs(), mul.getRhs()}, std::pair{mul.getRhs(), mul.getLhs()}}) {
    auto div = q.getDefiningOp<BinaryOp>();
    if (div && div.getKind() == kir::BinaryKind::Div && div.getLhs() == sub.getLhs() && div.getRhs() == d) {
      divisor = d;
      return true;
    }
  }
  return false;
}

/// Whether a >= b in every lane, from how the two are built from each other by min, max and the
/// addition or subtraction of non-negative values (the clamped spans of construction: `min(lo + n,
/// hi) - lo` where lo = min(x, hi)). Bounded in depth: the relation branches.
template <typename NonNeg>
bool atLeast(Value a, Value b, unsigned depth, NonNeg nonNeg) {
  if (a == b)
    return true;
  if (depth > 8)
    return false;
  auto ge = [&](Value x, Value y) { return atLeast(x, y, depth + 1, nonNeg); };
  APInt ca, cb;
  if (matchPattern(a, m_ConstantInt(&ca)) && matchPattern(b, m_ConstantInt(&cb)))
    return ca.sge(cb);
  if (auto x = a.getDefiningOp<BinaryOp>()) {
    switch (x.getKind()) {
    case kir::BinaryKind::Max:
      if (ge(x.getLhs(), b) || ge(x.getRhs(), b))
        return true;
      break;
    case kir::BinaryKind::Min:
      if (ge(x.getLhs(), b) && ge(x.getRhs(), b))
        return true;
      break;
    case kir::BinaryKind::Add:
      if ((nonNeg(x.getRhs()) && ge(x.getLhs(), b)) || (nonNeg(x.getLhs()) && ge(x.getRhs(), b)))
        return true;
      break;
    default: break;
    }
  }
  if (auto y = b.getDefiningOp<BinaryOp>()) {
    switch (y.getKind()) {
    case kir::BinaryKind::Min: return ge(a, y.getLhs()) || ge(a, y.getRhs());
    case kir::BinaryKind::Max: return ge(a, y.getLhs()) && ge(a, y.getRhs());
    case kir::BinaryKind::Sub: return nonNeg(y.getRhs()) && ge(a, y.getLhs());
    default: break;
    }
  }
  return false;
}

using Cache = llvm::DenseMap<Value, Bound>;
Bound lowerBoundOf(Value v, unsigned depth, Cache &cache);
template <typename Rec>
Bound lowerBoundOfOp(Value v, Operation *def, Rec rec);

/// Memoized over one query: shared subexpressions are bounded once (the depth limit keeps a long
/// chain from recursing deeply; beyond it nothing is known).
Bound lowerBound(Value v, unsigned depth, Cache &cache) {
  if (auto it = cache.find(v); it != cache.end())
    return it->second;
  Bound b = lowerBoundOf(v, depth, cache);
  cache[v] = b;
  return b;
}

Bound lowerBoundOf(Value v, unsigned depth, Cache &cache) {
  if (depth > 32)
    return std::nullopt;
  auto rec = [&](Value x) { return lowerBound(x, depth + 1, cache); };
  auto nonNeg = [&](Value x) {
    Bound b = rec(x);
    return b && *b >= 0;
  };
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSignificantBits() <= 64 ? Bound(c.getSExtValue()) : std::nullopt;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (!owner)
      return std::nullopt;
    // A program index; an execution group's coordinates (a non-negative program coordinate decoded
    // row-major, seed 000 §3).
    if (isa<ProgramSpaceOp, ExecutionGroupOp>(owner))
      return 0;
    if (arg.getArgNumber() != 0)
      return std::nullopt; // loop carries: not followed
    if (auto each = dyn_cast<ForeachOp>(owner))
      return rec(each.getLower());
    if (auto loop = dyn_cast<ForOp>(owner))
      return nonNeg(loop.getStep()) ? rec(loop.getLower()) : std::nullopt;
    return std::nullopt;
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  return lowerBoundOfOp(v, def, rec);
}

template <typename Rec>
Bound lowerBoundOfOp(Value v, Operation *def, Rec rec) {
  auto nonNeg = [&](Value x) {
    Bound b = rec(x);
    return b && *b >= 0;
  };
  auto zeroIf = [](bool holds) -> Bound { return holds ? Bound(0) : std::nullopt; };
  return llvm::TypeSwitch<Operation *, Bound>(def)
      .Case([](ExtentOp) { return Bound(0); })
      .Case([](ParamOp p) -> Bound { // one of its declared candidates (checked where it is bound)
        auto kernel = p->getParentOfType<KernelOp>();
        ParamAttr declared = kernel ? kernel.getParam(p.getName()) : ParamAttr();
        if (!declared || declared.getCandidates().empty())
          return 0;
        return std::max<int64_t>(0, *llvm::min_element(declared.getCandidates()));
      })
      .Case([&](CeilDivOp d) { return zeroIf(nonNeg(d.getLhs()) && nonNeg(d.getRhs())); })
      .Case([&](DelinearizeOp d) { return zeroIf(nonNeg(d.getLinear()) && llvm::all_of(d.getExtents(), nonNeg)); })
      .Case([&](BinaryOp b) -> Bound {
        if (isa<FloatType>(elementTypeOf(b.getType())))
          return std::nullopt;
        Value l = b.getLhs(), r = b.getRhs();
        switch (b.getKind()) {
        case kir::BinaryKind::Add: return add(rec(l), rec(r));
        case kir::BinaryKind::Sub: {
          Value divisor;
          if (isSpelledRemainder(b, divisor)) // floor remainder: in [0, divisor) for a positive divisor
            return zeroIf(nonNeg(divisor));
          APInt k;
          Bound d;
          if (matchPattern(r, m_ConstantInt(&k)) && k.getSignificantBits() < 64)
            d = add(rec(l), -k.getSExtValue());
          if ((!d || *d < 0) && atLeast(l, r, 0, nonNeg))
            return 0;
          return d;
        }
        case kir::BinaryKind::Max:
        case kir::BinaryKind::MaxNum: {
          Bound x = rec(l), y = rec(r);
          if (!x || !y)
            return x ? x : y;
          return std::max(*x, *y);
        }
        case kir::BinaryKind::Min:
        case kir::BinaryKind::MinNum: {
          Bound x = rec(l), y = rec(r);
          if (!x || !y)
            return std::nullopt;
          return std::min(*x, *y);
        }
        case kir::BinaryKind::Mul: {
          Bound x = rec(l), y = rec(r);
          int64_t p;
          if (!x || !y || *x < 0 || *y < 0 || llvm::MulOverflow(*x, *y, p))
            return std::nullopt;
          return p;
        }
        case kir::BinaryKind::Div:
        case kir::BinaryKind::Or:
        case kir::BinaryKind::Xor: return zeroIf(nonNeg(l) && nonNeg(r));
        case kir::BinaryKind::And: // two's complement: either operand's clear sign bit clears it
          return zeroIf(nonNeg(l) || nonNeg(r));
        case kir::BinaryKind::Rem: // floor remainder: in [0, divisor) for a positive divisor, 0 for 0
          return zeroIf(nonNeg(r));
        case kir::BinaryKind::Shr: return zeroIf(nonNeg(l));
        default: return std::nullopt;
        }
      })
      .Case([&](CastOp c) -> Bound {
        Type from = elementTypeOf(c.getOperand().getType());
        auto i = dyn_cast<IntegerType>(from);
        return (from.isIndex() || (i && !i.isUnsigned() && i.getWidth() > 1)) ? rec(c.getOperand()) : std::nullopt;
      })
      .Case([&](IotaOp i) { return rec(i.getBase()); })
      .Case([&](SplatOp s) { return rec(s.getOperand()); })
      .Case([&](BroadcastOp b) { return rec(b.getOperand()); })
      .Case([&](ReshapeOp r) { return rec(r.getOperand()); })
      .Case([&](TransposeOp t) { return rec(t.getOperand()); })
      .Case([&](ExtractOp e) { return rec(e.getFragment()); })
      .Case([&](SelectOp s) -> Bound {
        Bound x = rec(s.getTrueValue()), y = rec(s.getFalseValue());
        if (!x || !y)
          return std::nullopt;
        return std::min(*x, *y);
      })
      .Default([](Operation *) { return std::nullopt; });
}
} // namespace

bool pgpu::provablyNonNegative(Value v) {
  Cache cache;
  Bound b = lowerBound(v, 0, cache);
  return b && *b >= 0;
}
