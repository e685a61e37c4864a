//===- Passes.h - kir passes ------------------------------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_KIR_TRANSFORMS_PASSES_H
#define TESSEL_DIALECT_KIR_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "tessel/Dialect/KIR/IR/KIR.h"

namespace tessel::kir {
#define GEN_PASS_DECL
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Dialect/KIR/Transforms/Passes.h.inc"

/// The stable origin of `op`, if kir-annotate-origins has run.
OriginAttr getOrigin(mlir::Operation *op);
} // namespace tessel::kir

#endif // TESSEL_DIALECT_KIR_TRANSFORMS_PASSES_H
