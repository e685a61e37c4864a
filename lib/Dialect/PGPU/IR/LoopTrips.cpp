//===- LoopTrips.cpp - where a parameter-stepped loop's trips start -------===//

#include "tessel/Dialect/PGPU/IR/LoopTrips.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

static bool multipleOf(Value v, StringRef name, int depth) {
  if (depth > 8)
    return false;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.isZero();
  if (auto p = v.getDefiningOp<ParamOp>())
    return p.getName() == name;
  auto bin = v.getDefiningOp<BinaryOp>();
  if (!bin)
    return false;
  if (bin.getKind() == kir::BinaryKind::Mul)
    return multipleOf(bin.getLhs(), name, depth + 1) || multipleOf(bin.getRhs(), name, depth + 1);
  if (bin.getKind() == kir::BinaryKind::Add)
    return multipleOf(bin.getLhs(), name, depth + 1) && multipleOf(bin.getRhs(), name, depth + 1);
  return false;
}

bool pgpu::multipleOfParam(Value v, StringRef name) { return multipleOf(v, name, 0); }

bool pgpu::tripsStartAtMultiples(ForOp loop, StringRef name) {
  Value lower = loop.getLower();
  if (multipleOfParam(lower, name))
    return true;
  auto min = lower.getDefiningOp<BinaryOp>();
  if (!min || min.getKind() != kir::BinaryKind::Min)
    return false;
  Value upper = loop.getUpper();
  auto upperMin = upper.getDefiningOp<BinaryOp>();
  auto atLeastUpper = [&](Value u) {
    return u == upper || (upperMin && upperMin.getKind() == kir::BinaryKind::Min &&
                          (upperMin.getLhs() == u || upperMin.getRhs() == u));
  };
  return (multipleOfParam(min.getLhs(), name) && atLeastUpper(min.getRhs())) ||
         (multipleOfParam(min.getRhs(), name) && atLeastUpper(min.getLhs()));
}
