//===- TileAccess.cpp - accesses with a tensor-descriptor spelling --------===//

#include "tessel/Target/Triton/TileAccess.h"
#include "tessel/Target/AccessMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// The symbolic name (or the static size) of extent `axis` of a view type.
Attribute extentOf(Value view, unsigned axis) { return cast<ViewType>(view.getType()).getExtents()[axis]; }
} // namespace
using access::conjuncts;
using access::isExtent;
using access::walkOf;

std::optional<triton::TileAccess> triton::matchTileAccess(Operation *op) {
  Value view, valid, result;
  ValueRange coords;
  if (auto load = dyn_cast<LoadOp>(op)) {
    APFloat zero(0.0);
    if (!matchPattern(load.getFill(), m_ConstantFloat(&zero)) || !zero.isZero())
      return std::nullopt;
    view = load.getView(), valid = load.getValid(), coords = load.getCoords(), result = load.getResult();
  } else if (auto store = dyn_cast<StoreOp>(op)) {
    view = store.getView(), valid = store.getValid(), coords = store.getCoords(), result = store.getValue();
  } else {
    return std::nullopt;
  }
  auto fragment = dyn_cast<FragmentType>(result.getType());
  if (!fragment || fragment.getRank() != 2 || coords.size() != 2)
    return std::nullopt;
  // Descriptors move 2- and 4-byte floats here (what the GEMM and transpose suites use).
  Type element = cast<ViewType>(view.getType()).getElementType();
  unsigned bits = element.getIntOrFloatBitWidth();
  if (!isa<FloatType>(element) || (bits != 16 && bits != 32) || !isa<BlockArgument>(view))
    return std::nullopt;
  TileAccess access{view, {}, {}};
  SmallVector<IotaOp, 2> iotas;
  for (Value c : coords) {
    auto walk = walkOf(c);
    if (!walk)
      return std::nullopt;
    iotas.push_back(walk->first);
    access.starts.push_back(walk->first.getBase());
    access.dimOf.push_back(walk->second);
  }
  if (access.dimOf[0] == access.dimOf[1])
    return std::nullopt;
  // Validity: exactly `iota_axis < extent_axis` for both axes, nothing else.
  SmallVector<Value> terms;
  conjuncts(valid, terms);
  if (terms.size() != 2)
    return std::nullopt;
  bool covered[2] = {false, false};
  for (Value term : terms) {
    auto cmp = term.getDefiningOp<CmpOp>();
    if (!cmp || cmp.getPredicate() != kir::CmpPredicate::LT)
      return std::nullopt;
    auto bound = cmp.getRhs().getDefiningOp<SplatOp>();
    if (!bound)
      return std::nullopt;
    unsigned axis = cmp.getLhs() == iotas[0].getResult() ? 0 : cmp.getLhs() == iotas[1].getResult() ? 1 : 2;
    if (axis == 2 || covered[axis] || !isExtent(bound.getOperand(), extentOf(view, axis)))
      return std::nullopt;
    covered[axis] = true;
  }
  return access;
}
