//===- PGPUAccessOps.cpp - pgpu accesses (seed 000 §6, invariant 5) --------===//

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "PGPUVerifyUtils.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;
using namespace tessel::pgpu::checks;

LogicalResult checks::verifyAccess(Operation *op, unsigned rank, ValueRange coords, Type accessed, Type element,
                                   Value valid, Value fill) {
  if (coords.size() != rank)
    return op->emitOpError() << "has " << coords.size() << " coordinates but the resource has rank " << rank
                             << " (every source axis needs an explicit coordinate)";
  if (elementTypeOf(accessed) != element)
    return op->emitOpError() << "accesses " << element << " elements but its value is " << accessed;
  ArrayRef<Attribute> shape = shapeOf(accessed);
  for (auto [i, coord] : llvm::enumerate(coords)) {
    Type type = coord.getType();
    if (type.isIndex())
      continue;
    auto fragment = dyn_cast<FragmentType>(type);
    if (!fragment || !fragment.getElementType().isIndex())
      return op->emitOpError() << "coordinate #" << i << " must be an index or an index fragment, got " << type;
    if (fragment.getExtents() != shape)
      return op->emitOpError() << "coordinate #" << i << " has type " << type
                               << " but coordinates must have the accessed value's shape " << accessed
                               << " (broadcast them explicitly)";
  }
  Type validType = valid.getType();
  if (!elementTypeOf(validType).isInteger(1))
    return op->emitOpError() << "validity must have i1 elements, got " << validType;
  if (isa<FragmentType>(validType) && shapeOf(validType) != shape)
    return op->emitOpError() << "validity " << validType << " must have the accessed value's shape " << accessed;
  if (fill && fill.getType() != element)
    return op->emitOpError() << "fill must be a scalar " << element << ", got " << fill.getType();
  return success();
}

/// The first read `v` is computed from (through region-free ops), or null; with `lanesOnly`, only a
/// read that differs from lane to lane (a fragment): a scalar read is one value for every lane.
static Operation *firstRead(Value v, bool lanesOnly) {
  SmallVector<Value> work{v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    Operation *def = x.getDefiningOp();
    if (!def || def->getNumRegions() != 0)
      continue;
    if (isa<LoadOp, GatherOp, BufferLoadOp, AtomicRMWOp, AtomicCASOp, AtomicLoadOp>(def)) {
      if (!lanesOnly || isa<FragmentType>(x.getType()))
        return def;
      continue;
    }
    llvm::append_range(work, def->getOperands());
  }
  return nullptr;
}

Operation *pgpu::readFeeding(Value v) { return firstRead(v, /*lanesOnly=*/false); }

Operation *pgpu::laneReadFeeding(Value v) { return firstRead(v, /*lanesOnly=*/true); }

/// seed 000 §6: `load` and `store` take affine-style coordinates; coordinates
/// computed from data read in the program are an index relation, spelled
/// `gather` / `scatter` so analyses never assume otherwise.
static LogicalResult verifyNotDataDependent(Operation *op, ValueRange coords, StringRef instead) {
  for (auto [i, c] : llvm::enumerate(coords))
    if (Operation *read = readFeeding(c))
      return op->emitOpError() << "coordinate #" << i << " is computed from data read by '" << read->getName()
                               << "'; use " << instead << " for data-dependent coordinates";
  return success();
}

template <typename ReadOp>
static LogicalResult verifyRead(ReadOp op) {
  auto view = cast<ViewType>(op.getView().getType());
  return verifyAccess(op, view.getRank(), op.getCoords(), op.getType(), view.getElementType(), op.getValid(),
                      op.getFill());
}

template <typename WriteOp>
static LogicalResult verifyWrite(WriteOp op) {
  auto view = cast<ViewType>(op.getView().getType());
  if (!view.isWritable())
    return op.emitOpError() << "writes to an 'in' view";
  return verifyAccess(op, view.getRank(), op.getCoords(), op.getValue().getType(), view.getElementType(),
                      op.getValid(), Value());
}

LogicalResult LoadOp::verify() {
  if (failed(verifyRead(*this)))
    return failure();
  // A fragment's coordinates may be placed by scalars read from data (one runtime position for all
  // its lanes: laneReadFeeding); a scalar access (one member of a workset that blocking may turn into
  // lanes) may not.
  if (isa<FragmentType>(getType())) {
    for (auto [i, c] : llvm::enumerate(getCoords()))
      if (Operation *read = laneReadFeeding(c))
        return emitOpError() << "coordinate #" << i << " is computed lane by lane from data read by '"
                             << read->getName() << "'; use pgpu.gather for data-dependent coordinates";
    return success();
  }
  return verifyNotDataDependent(*this, getCoords(), "pgpu.gather");
}
LogicalResult GatherOp::verify() { return verifyRead(*this); }
LogicalResult StoreOp::verify() {
  if (failed(verifyWrite(*this)))
    return failure();
  return verifyNotDataDependent(*this, getCoords(), "pgpu.scatter");
}
LogicalResult ScatterOp::verify() { return verifyWrite(*this); }
LogicalResult ScatterReduceOp::verify() {
  auto buffer = dyn_cast<BufferType>(getView().getType());
  if (!buffer)
    return verifyWrite(*this);
  // A partial result merged by many programs: only invocation workspace is shared by them.
  if (buffer.getScope() != BufferScope::Workspace)
    return emitOpError() << "scatter-reduces into a " << stringifyBufferScope(buffer.getScope())
                         << " buffer; only invocation workspace is shared by program instances";
  return verifyAccess(*this, buffer.getRank(), getCoords(), getValue().getType(), buffer.getElementType(), getValid(),
                      Value());
}

/// The element type of a scatter-reduce's target (a view or a workspace buffer).
static Type targetElement(Value target) {
  if (auto buffer = dyn_cast<BufferType>(target.getType()))
    return buffer.getElementType();
  return cast<ViewType>(target.getType()).getElementType();
}

LogicalResult ScatterReduceOp::verifyRegions() {
  Type element = targetElement(getView());
  if (failed(verifyRegionSignature(*this, getCombine(), "combine", {element, element}, {element})) ||
      failed(verifyPureRegion(*this, getCombine(), "combine", /*allowReads=*/false)))
    return failure();
  return verifyClosedRegion(*this, getCombine(), "combine");
}

/// Atomic orders each kind accepts (DSL effects rules).
static LogicalResult verifyOrder(Operation *op, kir::AtomicOrder order, ArrayRef<kir::AtomicOrder> allowed) {
  if (!llvm::is_contained(allowed, order))
    return op->emitOpError() << "does not accept memory order '" << kir::stringifyAtomicOrder(order) << "'";
  return success();
}

template <typename AtomicOp>
static LogicalResult verifyAtomicTarget(AtomicOp op, Type value) {
  if (auto buffer = dyn_cast<BufferType>(op.getView().getType())) {
    // Shared by the program instances of one launch: only invocation workspace is.
    if (buffer.getScope() != BufferScope::Workspace)
      return op.emitOpError() << "is atomic on a " << stringifyBufferScope(buffer.getScope())
                              << " buffer; only invocation workspace is shared by program instances";
    return verifyAccess(op, buffer.getRank(), op.getCoords(), value, buffer.getElementType(), op.getValid(), Value());
  }
  auto view = cast<ViewType>(op.getView().getType());
  if (!view.isWritable())
    return op.emitOpError() << "is atomic on an 'in' view";
  return verifyAccess(op, view.getRank(), op.getCoords(), value, view.getElementType(), op.getValid(), Value());
}

LogicalResult AtomicRMWOp::verify() {
  if (getOld().getType() != getValue().getType())
    return emitOpError() << "old value must have the update's type " << getValue().getType();
  kir::RMWKind kind = getKind();
  Type element = isa<BufferType>(getView().getType()) ? cast<BufferType>(getView().getType()).getElementType()
                                                      : cast<ViewType>(getView().getType()).getElementType();
  if ((kind == kir::RMWKind::And || kind == kir::RMWKind::Or || kind == kir::RMWKind::Xor) && !element.isInteger())
    return emitOpError() << "'" << kir::stringifyRMWKind(kind) << "' needs an integer view, got " << element;
  return verifyAtomicTarget(*this, getValue().getType());
}

LogicalResult AtomicCASOp::verify() {
  if (getSuccess().getType() != getI1Like(getOld().getType()))
    return emitOpError() << "success must be " << getI1Like(getOld().getType());
  return verifyAtomicTarget(*this, getExpected().getType());
}

LogicalResult AtomicLoadOp::verify() {
  if (failed(verifyOrder(*this, getOrder(), {kir::AtomicOrder::Relaxed, kir::AtomicOrder::Acquire})))
    return failure();
  if (isa<BufferType>(getView().getType()))
    return verifyAtomicTarget(*this, getType());
  auto view = cast<ViewType>(getView().getType());
  return verifyAccess(*this, view.getRank(), getCoords(), getType(), view.getElementType(), getValid(), Value());
}

LogicalResult AtomicStoreOp::verify() {
  if (failed(verifyOrder(*this, getOrder(), {kir::AtomicOrder::Relaxed, kir::AtomicOrder::Release})))
    return failure();
  return verifyAtomicTarget(*this, getValue().getType());
}

//===----------------------------------------------------------------------===//
// Buffers (seed 000 §4.4, invariant 7)
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  auto type = cast<BufferType>(getType());
  if (type.getScope() == BufferScope::Workspace)
    return emitOpError() << "cannot allocate invocation workspace inside the kernel; it is a kernel argument "
                            "marked {pgpu.private = \"workspace\"} that the runtime allocates before the launch";
  if (static_cast<bool>(getInit()) == getFirstWrite())
    return emitOpError() << "needs exactly one of 'init' (a full initial value) or 'first_write'";
  if (Value init = getInit()) {
    Type initType = init.getType();
    bool scalarFill = initType == type.getElementType();
    bool fullValue = isa<FragmentType>(initType) && elementTypeOf(initType) == type.getElementType() &&
                     shapeOf(initType) == type.getExtents();
    if (!scalarFill && !fullValue)
      return emitOpError() << "init must be a scalar " << type.getElementType()
                           << " or a fragment of the buffer's shape, got " << initType;
  }
  if (type.getScope() == BufferScope::Iteration && !(*this)->getParentOfType<ForOp>() &&
      !(*this)->getParentOfType<WhileOp>())
    return emitOpError() << "allocates an iteration-private buffer outside any loop";
  return success();
}

LogicalResult BufferLoadOp::verify() {
  auto buffer = cast<BufferType>(getBuffer().getType());
  return verifyAccess(*this, buffer.getRank(), getCoords(), getType(), buffer.getElementType(), getValid(),
                      getFill());
}

LogicalResult BufferStoreOp::verify() {
  auto buffer = cast<BufferType>(getBuffer().getType());
  return verifyAccess(*this, buffer.getRank(), getCoords(), getValue().getType(), buffer.getElementType(),
                      getValid(), Value());
}
