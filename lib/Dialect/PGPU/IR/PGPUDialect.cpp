//===- PGPUDialect.cpp - pgpu dialect, types and attributes ----------------===//

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "tessel/Dialect/Utils/ExtentList.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

#include "tessel/Dialect/PGPU/IR/PGPUDialect.cpp.inc"
#include "tessel/Dialect/PGPU/IR/PGPUEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/PGPU/IR/PGPUAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tessel/Dialect/PGPU/IR/PGPUTypes.cpp.inc"

void PGPUDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "tessel/Dialect/PGPU/IR/PGPUOps.cpp.inc"
      >();
}

void PGPUDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tessel/Dialect/PGPU/IR/PGPUTypes.cpp.inc"
      >();
}

void PGPUDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessel/Dialect/PGPU/IR/PGPUAttrs.cpp.inc"
      >();
}

LogicalResult PGPUDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() == getTargetAttrName()) {
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << getTargetAttrName() << "' belongs on a builtin.module";
    if (!isa<TargetAttr>(attr.getValue()))
      return op->emitError() << "'" << getTargetAttrName() << "' must be a #pgpu.target attribute";
    return success();
  }
  // A launch fact for call defaults, never for execution (nothing in the program reads it): the tile
  // of ragged segments that pgpu-tile-column-reductions declared, and the view extents whose ratio is
  // the segments' average length (tessel/Target/Wrapper.h, kSegmentsAttr).
  if (attr.getName() == "pgpu.segments") {
    auto kernel = dyn_cast<KernelOp>(op);
    if (!kernel)
      return op->emitError() << "'pgpu.segments' belongs on a pgpu.kernel";
    auto facts = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!facts || facts.size() != 4)
      return op->emitError() << "'pgpu.segments' must be a dictionary of along, across, pool and count";
    for (StringRef key : {"along", "across", "pool", "count"}) {
      auto name = facts.getAs<StringAttr>(key);
      if (!name)
        return op->emitError() << "'pgpu.segments' needs a string '" << key << "'";
      if ((key == "along" || key == "across") && !kernel.getParam(name.getValue()))
        return op->emitError() << "'pgpu.segments' names '" << name.getValue() << "' as '" << key
                               << "', which the kernel does not declare";
    }
    return success();
  }
  return op->emitError() << "unknown pgpu attribute '" << attr.getName().getValue()
                         << "'; physical facts live in ops and types, not side records";
}

Operation *PGPUDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type, Location loc) {
  if (auto typed = dyn_cast<TypedAttr>(value); typed && typed.getType() == type)
    return arith::ConstantOp::create(builder, loc, type, typed);
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// `<elementType, [extents]` then, for views/buffers, `, keyword`.
static ParseResult parseElementAndExtents(AsmParser &parser, Type &elementType, SmallVectorImpl<Attribute> &extents) {
  return failure(parser.parseLess() || parser.parseType(elementType) || parser.parseComma() ||
                 parseExtentList(parser, extents));
}

Type FragmentType::parse(AsmParser &parser) {
  Type elementType;
  SmallVector<Attribute> extents;
  if (parseElementAndExtents(parser, elementType, extents) || parser.parseGreater())
    return {};
  return parser.getChecked<FragmentType>(parser.getContext(), elementType, extents);
}

void FragmentType::print(AsmPrinter &printer) const {
  printer << "<" << getElementType() << ", ";
  printExtentList(printer, getExtents());
  printer << ">";
}

LogicalResult FragmentType::verify(function_ref<InFlightDiagnostic()> emitError, Type elementType,
                                   ArrayRef<Attribute> extents) {
  if (!elementType.isIntOrIndexOrFloat())
    return emitError() << "fragment elements must be scalars, got " << elementType;
  if (extents.empty())
    return emitError() << "a fragment has at least one axis; use a scalar instead (seed 000 §4.1)";
  return verifyExtentList(emitError, extents);
}

Type ViewType::parse(AsmParser &parser) {
  Type elementType;
  SmallVector<Attribute> extents;
  StringRef mode;
  if (parseElementAndExtents(parser, elementType, extents) || parser.parseComma() || parser.parseKeyword(&mode) ||
      parser.parseGreater())
    return {};
  std::optional<kir::ViewMode> parsed = kir::symbolizeViewMode(mode);
  if (!parsed) {
    parser.emitError(parser.getCurrentLocation()) << "expected view mode 'in', 'out' or 'inout', got '" << mode << "'";
    return {};
  }
  return parser.getChecked<ViewType>(parser.getContext(), elementType, extents, *parsed);
}

void ViewType::print(AsmPrinter &printer) const {
  printer << "<" << getElementType() << ", ";
  printExtentList(printer, getExtents());
  printer << ", " << kir::stringifyViewMode(getMode()) << ">";
}

LogicalResult ViewType::verify(function_ref<InFlightDiagnostic()> emitError, Type elementType,
                               ArrayRef<Attribute> extents, kir::ViewMode) {
  if (!elementType.isIntOrIndexOrFloat())
    return emitError() << "view elements must be scalars, got " << elementType;
  return verifyExtentList(emitError, extents);
}

Type BufferType::parse(AsmParser &parser) {
  Type elementType;
  SmallVector<Attribute> extents;
  StringRef scope;
  if (parseElementAndExtents(parser, elementType, extents) || parser.parseComma() || parser.parseKeyword(&scope) ||
      parser.parseGreater())
    return {};
  std::optional<BufferScope> parsed = symbolizeBufferScope(scope);
  if (!parsed) {
    parser.emitError(parser.getCurrentLocation())
        << "expected buffer scope 'program', 'iteration' or 'workspace', got '" << scope << "'";
    return {};
  }
  return parser.getChecked<BufferType>(parser.getContext(), elementType, extents, *parsed);
}

void BufferType::print(AsmPrinter &printer) const {
  printer << "<" << getElementType() << ", ";
  printExtentList(printer, getExtents());
  printer << ", " << stringifyBufferScope(getScope()) << ">";
}

LogicalResult BufferType::verify(function_ref<InFlightDiagnostic()> emitError, Type elementType,
                                 ArrayRef<Attribute> extents, BufferScope) {
  if (!elementType.isIntOrIndexOrFloat())
    return emitError() << "buffer elements must be scalars, got " << elementType;
  return verifyExtentList(emitError, extents);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Type pgpu::getI1Like(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto fragment = dyn_cast<FragmentType>(type))
    return FragmentType::get(type.getContext(), i1, fragment.getExtents());
  return i1;
}

Type pgpu::elementTypeOf(Type type) {
  if (auto fragment = dyn_cast<FragmentType>(type))
    return fragment.getElementType();
  return type;
}

bool pgpu::isLaunchExpr(Value value, Operation **offender) {
  // A worklist over the value's definitions, each visited once: an op verifier asks before MLIR has
  // checked dominance, so a malformed kernel may hold a use-def cycle (`%a = pgpu.binary %a, ...`,
  // found by the fuzzer as unbounded recursion); the dominance check reports that one after.
  llvm::SmallPtrSet<Value, 16> seen;
  SmallVector<Value, 16> work{value};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      // ABI scalars (kernel arguments passed by value) are leaves.
      if (isa<KernelOp>(arg.getOwner()->getParentOp()) && arg.getType().isIntOrIndexOrFloat())
        continue;
      if (offender)
        *offender = nullptr;
      return false;
    }
    Operation *def = v.getDefiningOp();
    bool allowed = def->hasTrait<LaunchExprOp>() || matchPattern(v, m_Constant());
    if (auto binary = dyn_cast<BinaryOp>(def))
      allowed = binary.getType().isIntOrIndex();
    else if (auto cmp = dyn_cast<CmpOp>(def))
      allowed = cmp.getLhs().getType().isIntOrIndex();
    else if (auto select = dyn_cast<SelectOp>(def))
      allowed = select.getType().isIntOrIndex();
    else if (auto cast = dyn_cast<CastOp>(def)) // an integer scalar re-typed (`T.cast(G, T.index)`)
      allowed = cast.getType().isIntOrIndex() && cast.getOperand().getType().isIntOrIndex();
    if (!allowed) {
      if (offender)
        *offender = def;
      return false;
    }
    // Operands in reverse so the first operand is examined first (the offender reported is the one
    // the recursive walk found).
    for (Value operand : llvm::reverse(def->getOperands()))
      if (!isa<ViewType>(operand.getType())) // shape/stride metadata of an ABI view
        work.push_back(operand);
  }
  return true;
}
