//===- KIREffectOps.cpp - kir accesses, atomics and buffers ----------------===//

#include "tessel/Dialect/KIR/IR/KIR.h"

#include "KIRVerifyUtils.h"

using namespace mlir;
using namespace tessel::kir;
using namespace tessel::kir::detail;

ArrayRef<int64_t> tessel::kir::jointOf(Operation *access) {
  if (auto joint = access->getAttrOfType<DenseI64ArrayAttr>("joint");
      joint && isa<GatherOp, ScatterOp, ScatterReduceOp>(access))
    return joint.asArrayRef();
  return {};
}

CoordinateAxes tessel::kir::coordinateAxes(Operation *access, ValueRange coords) {
  ArrayRef<int64_t> joint = jointOf(access);
  CoordinateAxes axes;
  for (auto [i, coord] : llvm::enumerate(coords)) {
    if (!joint.empty() && i < joint.size() && joint[i] >= 0 && size_t(joint[i]) < i) {
      axes.first.push_back(axes.first[joint[i]]);
      continue;
    }
    if (isa<DomainType>(coord.getType())) {
      axes.first.push_back(axes.rank++);
    } else if (auto tensor = dyn_cast<RankedTensorType>(coord.getType())) {
      axes.first.push_back(axes.rank);
      axes.rank += tensor.getRank();
    } else {
      axes.first.push_back(-1);
    }
  }
  return axes;
}

/// Shared checks of reads: coordinates, result type, validity and fill.
static LogicalResult verifyRead(Operation *op, ViewType view, ValueRange coords, Type result,
                                Value valid, Value fill, bool indexed) {
  FailureOr<SmallVector<int64_t>> shape = verifyCoordinates(op, view.getRank(), coords, indexed);
  if (failed(shape) ||
      failed(verifyAccessedType(op, result, *shape, view.getElementType(), "result")) ||
      failed(verifyValidityAndFill(op, valid, fill, *shape, view.getElementType())))
    return failure();
  return success();
}

/// The written value's axes must come from the coordinates' domains.
static LogicalResult verifyWrittenExtents(Operation *op, Value value, ValueRange coords) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  if (!tensor)
    return success();
  for (int64_t axis = 0; axis < tensor.getRank(); ++axis) {
    std::string valueKey = getAxisExtentKey(value, axis);
    std::string coordKey = getCoordinateAxisKey(op, coords, axis);
    if (!valueKey.empty() && !coordKey.empty() && valueKey != coordKey && valueKey[0] != 'c' &&
        coordKey[0] != 'c' && !haveEqualLengths(getAxisDomain(value, axis), getCoordinateAxisDomain(op, coords, axis)))
      return op->emitOpError() << "writes a value whose axis " << axis
                               << " is not provably as long as the destination coordinates";
  }
  return success();
}

/// Shared checks of writes: writable view, coordinates, value type, validity.
static LogicalResult verifyWrite(Operation *op, Value value, ViewType view, ValueRange coords,
                                 Value valid, bool indexed) {
  if (!view.isWritable())
    return op->emitOpError() << "writes to an 'in' view; declare it 'out' or 'inout'";
  FailureOr<SmallVector<int64_t>> shape = verifyCoordinates(op, view.getRank(), coords, indexed);
  if (failed(shape) ||
      failed(verifyAccessedType(op, value.getType(), *shape, view.getElementType(), "stored value")) ||
      failed(verifyValidityAndFill(op, valid, Value(), *shape, view.getElementType())))
    return failure();
  return verifyWrittenExtents(op, value, coords);
}

LogicalResult LoadOp::verify() {
  return verifyRead(*this, cast<ViewType>(getView().getType()), getCoords(), getType(), getValid(), getFill(), false);
}

LogicalResult GatherOp::verify() {
  return verifyRead(*this, cast<ViewType>(getView().getType()), getCoords(), getType(), getValid(), getFill(), true);
}

LogicalResult StoreOp::verify() {
  return verifyWrite(*this, getValue(), cast<ViewType>(getView().getType()), getCoords(), getValid(), false);
}

LogicalResult ScatterOp::verify() {
  return verifyWrite(*this, getValue(), cast<ViewType>(getView().getType()), getCoords(), getValid(), true);
}

LogicalResult ScatterReduceOp::verify() {
  return verifyWrite(*this, getValue(), cast<ViewType>(getView().getType()), getCoords(), getValid(), true);
}

LogicalResult ScatterReduceOp::verifyRegions() {
  Type element = cast<ViewType>(getView().getType()).getElementType();
  SmallVector<Type> schema{element};
  SmallVector<Type> args{element, element};
  if (failed(verifyRegionSignature(*this, getCombine(), "combine", args, schema)) ||
      failed(verifyClosedRegion(*this, getCombine(), "combine")) ||
      failed(verifyPureRegion(*this, getCombine(), "combine", /*allowReads=*/false)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Atomics: order and sharing domain are required (DSL effects rules).
//===----------------------------------------------------------------------===//

static LogicalResult verifyAtomic(Operation *op, std::optional<AtomicOrder> order,
                                  std::optional<SharingDomain> sharing,
                                  ArrayRef<AtomicOrder> allowed) {
  if (!order)
    return op->emitOpError() << "must state its memory order ('order relaxed|acquire|release|acq_rel')";
  if (!sharing)
    return op->emitOpError() << "must state its sharing domain ('sharing invocation|parallel')";
  if (!llvm::is_contained(allowed, *order))
    return op->emitOpError() << "does not accept memory order '" << stringifyAtomicOrder(*order) << "'";
  return success();
}

static LogicalResult verifyAtomicAccess(Operation *op, ViewType view, ValueRange coords, Type value,
                                        bool writes) {
  if (writes && !view.isWritable())
    return op->emitOpError() << "writes to an 'in' view; declare it 'out' or 'inout'";
  FailureOr<SmallVector<int64_t>> shape = verifyCoordinates(op, view.getRank(), coords, true);
  if (failed(shape))
    return failure();
  return verifyAccessedType(op, value, *shape, view.getElementType(), "atomic value");
}

LogicalResult AtomicLoadOp::verify() {
  if (failed(verifyAtomic(*this, getOrder(), getSharing(), {AtomicOrder::Relaxed, AtomicOrder::Acquire})))
    return failure();
  return verifyAtomicAccess(*this, cast<ViewType>(getView().getType()), getCoords(), getType(), false);
}

LogicalResult AtomicStoreOp::verify() {
  if (failed(verifyAtomic(*this, getOrder(), getSharing(), {AtomicOrder::Relaxed, AtomicOrder::Release})))
    return failure();
  return verifyAtomicAccess(*this, cast<ViewType>(getView().getType()), getCoords(), getValue().getType(), true);
}

static constexpr AtomicOrder kAllOrders[] = {AtomicOrder::Relaxed, AtomicOrder::Acquire,
                                             AtomicOrder::Release, AtomicOrder::AcqRel};

LogicalResult AtomicRMWOp::verify() {
  if (failed(verifyAtomic(*this, getOrder(), getSharing(), kAllOrders)) ||
      failed(verifyAtomicAccess(*this, cast<ViewType>(getView().getType()), getCoords(), getValue().getType(), true)))
    return failure();
  if (getOld().getType() != getValue().getType())
    return emitOpError() << "old value must have the type of the update, " << getValue().getType();
  RMWKind kind = getKind();
  Type element = cast<ViewType>(getView().getType()).getElementType();
  if ((kind == RMWKind::And || kind == RMWKind::Or || kind == RMWKind::Xor) && !element.isInteger())
    return emitOpError() << "'" << stringifyRMWKind(kind) << "' needs an integer view, got " << element;
  return success();
}

LogicalResult AtomicCASOp::verify() {
  if (failed(verifyAtomic(*this, getOrder(), getSharing(), kAllOrders)) ||
      failed(verifyAtomicAccess(*this, cast<ViewType>(getView().getType()), getCoords(), getExpected().getType(), true)))
    return failure();
  if (getSuccess().getType() != getI1Like(getOld().getType()))
    return emitOpError() << "success must be " << getI1Like(getOld().getType());
  return success();
}

AtomicOrder AtomicCASOp::getFailureOrder() {
  switch (getOrder().value_or(AtomicOrder::Relaxed)) {
  case AtomicOrder::Relaxed:
  case AtomicOrder::Release:
    return AtomicOrder::Relaxed;
  case AtomicOrder::Acquire:
  case AtomicOrder::AcqRel:
    return AtomicOrder::Acquire;
  }
  llvm_unreachable("unknown atomic order");
}

//===----------------------------------------------------------------------===//
// Logical buffers
//===----------------------------------------------------------------------===//

/// Shape and element type of a buffer's value.
static std::pair<SmallVector<int64_t>, Type> getBufferShape(BufferType type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type.getValueType()))
    return {SmallVector<int64_t>(tensor.getShape()), tensor.getElementType()};
  return {{}, type.getValueType()};
}

LogicalResult BufferOp::verify() {
  if (static_cast<bool>(getInit()) == getFirstWrite())
    return emitOpError() << "needs exactly one of 'init' (a full initial value) or 'first_write' "
                            "(an uninitialized buffer written before it is read)";
  auto [shape, element] = getBufferShape(cast<BufferType>(getType()));
  if (!element.isIntOrIndexOrFloat())
    return emitOpError() << "buffer elements must be scalars, got " << element;
  if (getDomains().size() != shape.size())
    return emitOpError() << "needs one domain per buffer axis (" << shape.size() << "), got "
                         << getDomains().size();
  if (Value init = getInit(); init && init.getType() != element && init.getType() != cast<BufferType>(getType()).getValueType())
    return emitOpError() << "init must be a scalar " << element << " or a full "
                         << cast<BufferType>(getType()).getValueType() << ", got " << init.getType();
  return success();
}

LogicalResult BufferLoadOp::verify() {
  auto [shape, element] = getBufferShape(cast<BufferType>(getBuffer().getType()));
  FailureOr<SmallVector<int64_t>> accessed = verifyCoordinates(*this, shape.size(), getCoords(), false);
  if (failed(accessed))
    return failure();
  return verifyAccessedType(*this, getType(), *accessed, element, "result");
}

LogicalResult BufferStoreOp::verify() {
  auto [shape, element] = getBufferShape(cast<BufferType>(getBuffer().getType()));
  FailureOr<SmallVector<int64_t>> accessed = verifyCoordinates(*this, shape.size(), getCoords(), false);
  if (failed(accessed) ||
      failed(verifyAccessedType(*this, getValue().getType(), *accessed, element, "stored value")))
    return failure();
  return verifyWrittenExtents(*this, getValue(), getCoords());
}
