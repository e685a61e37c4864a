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

/// Whether masks `a` and `b` are one value: the same SSA value or broadcasts of one operand along the same
/// axes (pgpu-form-tiles expands a lane bound anew for each use before CSE merges the copies).
static bool sameMask(Value a, Value b) {
  if (a == b)
    return true;
  auto ba = a.getDefiningOp<BroadcastOp>(), bb = b.getDefiningOp<BroadcastOp>();
  return ba && bb && ba.getType() == bb.getType() && ba.getDims() == bb.getDims() && ba.getOperand() == bb.getOperand();
}

/// Whether a lane-wise operation passes its operands' lanes to its result without a trap or a warning
/// where an operand holds an arbitrary value (no division or remainder, no float-to-integer cast: the
/// interpreter's numpy warns on those).
static bool laneWise(Operation *op) {
  if (auto bin = dyn_cast<BinaryOp>(op))
    return bin.getKind() != kir::BinaryKind::Div && bin.getKind() != kir::BinaryKind::Rem;
  if (auto c = dyn_cast<CastOp>(op))
    return !(isa<FloatType>(elementTypeOf(c.getOperand().getType())) && !isa<FloatType>(elementTypeOf(c.getType())));
  return false;
}

/// Whether every lane of `v` where `mask` is false is discarded: each use is the chosen value of a select
/// on `mask` (its fill taken there) or a lane-wise operation of the same shape whose result is discarded
/// there too (seed 002 §3.4: a contraction's operand zeroed past the K bound after the dequantization
/// arithmetic, corpus 57's (nib - zeros) * scales, discards the lanes the read's own select filled).
static bool discardedOff(Value v, Value mask, unsigned depth) {
  if (depth > 16 || v.use_empty() || !isa<FragmentType>(v.getType()))
    return false;
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (auto select = dyn_cast<SelectOp>(user)) {
      if (use.getOperandNumber() == 1 && sameMask(select.getCondition(), mask))
        continue;
      return false;
    }
    if (!laneWise(user) || user->getNumResults() != 1 || !isa<FragmentType>(user->getResult(0).getType()) ||
        cast<FragmentType>(user->getResult(0).getType()).getExtents() != cast<FragmentType>(v.getType()).getExtents() ||
        !discardedOff(user->getResult(0), mask, depth + 1))
      return false;
  }
  return true;
}

bool pgpu::lanesDiscardedOff(Value v, Value mask) { return discardedOff(v, mask, 0); }
