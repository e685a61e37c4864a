//===- AccessMatch.cpp - reading access shapes from coordinate SSA --------===//

#include "tessel/Target/AccessMatch.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

bool access::isConstant(Value v, int64_t c) {
  APInt value;
  return matchPattern(v, m_ConstantInt(&value)) && value.getSExtValue() == c;
}

/// `v` is the runtime extent `extent` of some view: a pgpu.extent of an axis
/// with that name, seen through the domain-size arithmetic construction adds
/// (max(x, 0), ceil_div(x, 1), x - 0), or the constant itself.
bool access::isExtent(Value v, Attribute extent) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto e = dyn_cast<ExtentOp>(def))
      return cast<ViewType>(e.getView().getType()).getExtents()[e.getAxis()] == extent;
    if (auto c = dyn_cast<CeilDivOp>(def); c && isConstant(c.getRhs(), 1)) {
      v = c.getLhs();
      continue;
    }
    if (auto b = dyn_cast<BinaryOp>(def);
        b && ((b.getKind() == kir::BinaryKind::Max || b.getKind() == kir::BinaryKind::Sub) && isConstant(b.getRhs(), 0))) {
      v = b.getLhs();
      continue;
    }
    break;
  }
  auto size = dyn_cast<IntegerAttr>(extent);
  return size && isConstant(v, size.getInt());
}

/// A coordinate fragment `broadcast(iota(start))`: the iota and the result dimension it walks.
std::optional<std::pair<IotaOp, unsigned>> access::walkOf(Value coord, bool allowBare) {
  if (auto iota = coord.getDefiningOp<IotaOp>(); allowBare && iota)
    return std::make_pair(iota, 0u);
  auto bc = coord.getDefiningOp<BroadcastOp>();
  if (!bc || bc.getDims().size() != 1)
    return std::nullopt;
  auto iota = bc.getOperand().getDefiningOp<IotaOp>();
  if (!iota)
    return std::nullopt;
  return std::make_pair(iota, unsigned(bc.getDims()[0]));
}

/// The conjuncts of a validity fragment (through `and` and broadcasts; splats of true drop out).
void access::conjuncts(Value v, SmallVectorImpl<Value> &out) {
  if (auto b = v.getDefiningOp<BinaryOp>(); b && b.getKind() == kir::BinaryKind::And) {
    conjuncts(b.getLhs(), out);
    conjuncts(b.getRhs(), out);
    return;
  }
  if (auto bc = v.getDefiningOp<BroadcastOp>())
    return conjuncts(bc.getOperand(), out);
  // `true` is the i1 constant 1 (isConstant reads the sign-extended value, -1 for an i1).
  if (auto s = v.getDefiningOp<SplatOp>(); s && matchPattern(s.getOperand(), m_One()))
    return;
  if (matchPattern(v, m_One()))
    return;
  out.push_back(v);
}
