//===- KIRVerifyUtils.cpp - shared checks of the KIR verifier --------------===//

#include "KIRVerifyUtils.h"
#include "tessel/Dialect/Utils/RegionChecks.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace tessel::kir;

namespace tessel::kir::detail {

KernelOp getEnclosingKernel(Operation *op) { return op->getParentOfType<KernelOp>(); }

bool isConstexprValue(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (matchPattern(value, m_Constant()) || isa<ConstexprOp>(def))
    return true;
  if (isa<BinaryOp, UnaryOp, CmpOp, SelectOp, CastOp>(def))
    return llvm::all_of(def->getOperands(), isConstexprValue);
  return false;
}

//===----------------------------------------------------------------------===//
// Extent provenance
//===----------------------------------------------------------------------===//

/// A key for an index value: constants and named extents compare by value.
static std::string getIndexKey(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return "c" + std::to_string(constant.getSExtValue());
  if (auto extent = value.getDefiningOp<ExtentOp>())
    return "x:" + extent.getName().str();
  return "v" + std::to_string(reinterpret_cast<uintptr_t>(value.getAsOpaquePointer()));
}

std::string getDomainKey(Value domain) {
  if (auto op = domain.getDefiningOp<DomainOp>())
    return "[" + getIndexKey(op.getLower()) + "," + getIndexKey(op.getUpper()) + ")/" +
           std::to_string(op.getStep());
  if (auto op = domain.getDefiningOp<SubregionOp>()) {
    std::string source = getDomainKey(op.getSource());
    if (source.empty())
      return {};
    return source + "[" + getIndexKey(op.getBegin()) + ":" + getIndexKey(op.getEnd()) + "]";
  }
  return {};
}

/// The coordinates of an access that produce result axes, in result order.
std::string getCoordinateAxisKey(ValueRange coords, unsigned axis) {
  unsigned next = 0;
  for (Value coord : coords) {
    if (isa<DomainType>(coord.getType())) {
      if (next++ == axis)
        return getDomainKey(coord);
      continue;
    }
    if (auto tensor = dyn_cast<RankedTensorType>(coord.getType())) {
      if (axis < next + tensor.getRank())
        return getAxisExtentKey(coord, axis - next);
      next += tensor.getRank();
    }
  }
  return {};
}

std::string getAxisExtentKey(Value value, unsigned axis) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  if (!tensor || axis >= tensor.getRank())
    return {};
  if (!tensor.isDynamicDim(axis))
    return "c" + std::to_string(tensor.getDimSize(axis));
  Operation *def = value.getDefiningOp();
  if (!def)
    return {};
  if (auto op = dyn_cast<IndicesOp>(def))
    return getDomainKey(op.getDomain());
  if (auto op = dyn_cast<IndexRelationOp>(def))
    return getDomainKey(op.getDomain());
  if (auto op = dyn_cast<BroadcastOp>(def))
    return getDomainKey(op.getDomains()[axis]);
  if (auto op = dyn_cast<ReshapeOp>(def))
    return getDomainKey(op.getDomains()[axis]);
  if (auto op = dyn_cast<LoadOp>(def))
    return getCoordinateAxisKey(op.getCoords(), axis);
  if (auto op = dyn_cast<GatherOp>(def))
    return getCoordinateAxisKey(op.getCoords(), axis);
  if (auto op = dyn_cast<BufferLoadOp>(def))
    return getCoordinateAxisKey(op.getCoords(), axis);
  if (auto op = dyn_cast<BroadcastAsOp>(def))
    return getAxisExtentKey(op.getReference(), axis);
  if (auto op = dyn_cast<TransposeOp>(def))
    return getAxisExtentKey(op.getOperand(), op.getPermutation()[axis]);
  if (isa<BinaryOp, UnaryOp, CastOp, BitcastOp, SelectOp, CmpOp>(def))
    return getAxisExtentKey(def->getOperands().back(), axis);
  if (auto op = dyn_cast<JoinOp>(def))
    return getAxisExtentKey(op.getLhs(), axis);
  if (auto op = dyn_cast<ScanOp>(def))
    return getAxisExtentKey(op.getInputs()[cast<OpResult>(value).getResultNumber()], axis);
  if (auto op = dyn_cast<ReduceOp>(def)) {
    unsigned sourceAxis = 0, kept = 0;
    ArrayRef<int64_t> axes = op.getAxes();
    for (; sourceAxis < cast<RankedTensorType>(op.getInputs()[0].getType()).getRank(); ++sourceAxis) {
      if (llvm::is_contained(axes, sourceAxis))
        continue;
      if (kept++ == axis)
        return getAxisExtentKey(op.getInputs()[0], sourceAxis);
    }
  }
  return {};
}

LogicalResult verifyCompatibleAxes(Operation *op, Value a, unsigned axisA, Value b, unsigned axisB,
                                   Twine what) {
  auto ta = cast<RankedTensorType>(a.getType());
  auto tb = cast<RankedTensorType>(b.getType());
  if (!ta.isDynamicDim(axisA) && !tb.isDynamicDim(axisB)) {
    if (ta.getDimSize(axisA) != tb.getDimSize(axisB))
      return op->emitOpError() << what << " have different extents (" << ta.getDimSize(axisA)
                               << " vs " << tb.getDimSize(axisB) << ")";
    return success();
  }
  std::string ka = getAxisExtentKey(a, axisA), kb = getAxisExtentKey(b, axisB);
  if (ka.empty() || kb.empty() || ka == kb)
    return success();
  // A static size against a domain whose bounds are both constants.
  return op->emitOpError() << what
                           << " are not provably equal: they come from different domains";
}

LogicalResult verifySameExtents(Operation *op, Value a, Value b, StringRef aName, StringRef bName) {
  auto ta = dyn_cast<RankedTensorType>(a.getType());
  auto tb = dyn_cast<RankedTensorType>(b.getType());
  if (!ta || !tb || ta.getRank() != tb.getRank())
    return success();
  for (int64_t axis = 0; axis < ta.getRank(); ++axis)
    if (failed(verifyCompatibleAxes(op, a, axis, b, axis,
                                    "axis " + Twine(axis) + " of " + aName + " and " + bName)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Accesses
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>> verifyCoordinates(Operation *op, unsigned rank, ValueRange coords,
                                                  bool allowTensors) {
  if (coords.size() != rank)
    return op->emitOpError() << "has " << coords.size() << " coordinates but the accessed resource has rank "
                             << rank;
  SmallVector<int64_t> shape;
  bool sawTensor = false;
  for (auto [i, coord] : llvm::enumerate(coords)) {
    Type type = coord.getType();
    if (type.isIndex())
      continue;
    if (isa<DomainType>(type)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (tensor && tensor.getElementType().isIndex()) {
      if (!allowTensors)
        return op->emitOpError() << "coordinate #" << i
                                 << " is an index tensor; use kir.gather/kir.scatter for indexed access";
      sawTensor = true;
      llvm::append_range(shape, tensor.getShape());
      continue;
    }
    return op->emitOpError() << "coordinate #" << i
                             << " must be an index, a !kir.domain or an index tensor, got " << type;
  }
  if (allowTensors && !sawTensor && !isa<AtomicLoadOp, AtomicStoreOp, AtomicRMWOp, AtomicCASOp>(op))
    return op->emitOpError() << "has no index-tensor coordinate; use kir.load/kir.store for direct access";
  return shape;
}

LogicalResult verifyAccessedType(Operation *op, Type type, ArrayRef<int64_t> shape, Type elementType,
                                 StringRef what) {
  if (shape.empty()) {
    if (type != elementType)
      return op->emitOpError() << what << " must be a scalar " << elementType << ", got " << type;
    return success();
  }
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != static_cast<int64_t>(shape.size()) ||
      tensor.getElementType() != elementType)
    return op->emitOpError() << what << " must be a rank-" << shape.size() << " tensor of "
                             << elementType << ", got " << type;
  for (auto [i, expected, got] : llvm::enumerate(shape, tensor.getShape()))
    if (!ShapedType::isDynamic(expected) && !ShapedType::isDynamic(got) && expected != got)
      return op->emitOpError() << what << " axis " << i << " has extent " << got << " but "
                               << expected << " was expected";
  return success();
}

LogicalResult verifyValidityAndFill(Operation *op, Value valid, Value fill, ArrayRef<int64_t> shape,
                                    Type elementType) {
  if (valid) {
    Type type = valid.getType();
    if (getElementTypeOrSelf(type) != IntegerType::get(op->getContext(), 1))
      return op->emitOpError() << "validity mask must have i1 elements, got " << type;
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      if (failed(verifyAccessedType(op, type, shape, tensor.getElementType(), "validity mask")))
        return failure();
  }
  if (fill && fill.getType() != elementType)
    return op->emitOpError() << "fill must be a scalar of the element type " << elementType
                             << ", got " << fill.getType();
  return success();
}

} // namespace tessel::kir::detail
