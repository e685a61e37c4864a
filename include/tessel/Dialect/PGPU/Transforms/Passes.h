//===- Passes.h - shared pgpu passes ----------------------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_PGPU_TRANSFORMS_PASSES_H
#define TESSEL_DIALECT_PGPU_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"

namespace tessel::pgpu {
#define GEN_PASS_DECL
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

#endif // TESSEL_DIALECT_PGPU_TRANSFORMS_PASSES_H
