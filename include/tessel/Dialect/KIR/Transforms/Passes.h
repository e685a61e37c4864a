//===- Passes.h - kir passes ------------------------------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_KIR_TRANSFORMS_PASSES_H
#define TESSEL_DIALECT_KIR_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "tessel/Dialect/KIR/IR/KIR.h"

namespace tessel::kir {
#define GEN_PASS_DECL
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"

/// The stable origin of `op`, if kir-annotate-origins has run.
OriginAttr getOrigin(mlir::Operation *op);

/// Whether the module's `kir.compile_options` ask for optimization remarks
/// (seed 002 §1: adopted and rejected transformations say why, at the op).
inline bool remarksEnabled(mlir::Operation *op) {
  auto module = llvm::dyn_cast<mlir::ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<mlir::ModuleOp>();
  if (!module)
    return false;
  auto options = module->getAttrOfType<CompileOptionsAttr>(KIRDialect::getCompileOptionsAttrName());
  return options && options.getOptimizationRemarks();
}
} // namespace tessel::kir

#endif // TESSEL_DIALECT_KIR_TRANSFORMS_PASSES_H
