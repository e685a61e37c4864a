//===- TileAccess.cpp - accesses with a tensor-descriptor spelling --------===//

#include "tessel/Target/Triton/TileAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// The symbolic name (or the static size) of extent `axis` of a view type.
Attribute extentOf(Value view, unsigned axis) { return cast<ViewType>(view.getType()).getExtents()[axis]; }

bool isConstant(Value v, int64_t c) {
  APInt value;
  return matchPattern(v, m_ConstantInt(&value)) && value.getSExtValue() == c;
}

/// `v` is the runtime extent `extent` of some view: a pgpu.extent of an axis
/// with that name, seen through the domain-size arithmetic construction adds
/// (max(x, 0), ceil_div(x, 1), x - 0), or the constant itself.
bool isExtent(Value v, Attribute extent) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto e = dyn_cast<ExtentOp>(def))
      return extentOf(e.getView(), e.getAxis()) == extent;
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
std::optional<std::pair<IotaOp, unsigned>> walkOf(Value coord) {
  auto bc = coord.getDefiningOp<BroadcastOp>();
  if (!bc || bc.getDims().size() != 1)
    return std::nullopt;
  auto iota = bc.getOperand().getDefiningOp<IotaOp>();
  if (!iota)
    return std::nullopt;
  return std::make_pair(iota, unsigned(bc.getDims()[0]));
}

/// The conjuncts of a validity fragment (through `and` and broadcasts; splats of true drop out).
void conjuncts(Value v, SmallVectorImpl<Value> &out) {
  if (auto b = v.getDefiningOp<BinaryOp>(); b && b.getKind() == kir::BinaryKind::And) {
    conjuncts(b.getLhs(), out);
    conjuncts(b.getRhs(), out);
    return;
  }
  if (auto bc = v.getDefiningOp<BroadcastOp>())
    return conjuncts(bc.getOperand(), out);
  if (auto s = v.getDefiningOp<SplatOp>(); s && isConstant(s.getOperand(), 1))
    return;
  if (isConstant(v, 1))
    return;
  out.push_back(v);
}
} // namespace

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
