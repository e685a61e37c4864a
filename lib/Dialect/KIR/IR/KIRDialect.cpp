//===- KIRDialect.cpp - kir dialect registration ---------------------------===//

#include "tessel/Dialect/KIR/IR/KIR.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel::kir;

#include "tessel/Dialect/KIR/IR/KIRDialect.cpp.inc"
#include "tessel/Dialect/KIR/IR/KIREnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/KIR/IR/KIRAttrs.cpp.inc"

void KIRDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "tessel/Dialect/KIR/IR/KIROps.cpp.inc"
      >();
}

void KIRDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessel/Dialect/KIR/IR/KIRAttrs.cpp.inc"
      >();
}

/// `kir.compile_options` must be a `#kir.compile_options` on a module (seed 002
/// §1: construction, clones and provider containers carry it unchanged).
LogicalResult KIRDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() == getCompileOptionsAttrName()) {
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << getCompileOptionsAttrName()
                             << "' belongs on a builtin.module, not on '" << op->getName() << "'";
    if (!isa<CompileOptionsAttr>(attr.getValue()))
      return op->emitError() << "'" << getCompileOptionsAttrName()
                             << "' must be a #kir.compile_options attribute, got " << attr.getValue();
    return success();
  }
  return op->emitError() << "unknown kir attribute '" << attr.getName().getValue() << "'";
}

Type tessel::kir::getI1Like(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(tensor.getShape(), i1);
  return i1;
}
