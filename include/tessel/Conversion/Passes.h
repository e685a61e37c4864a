//===- Passes.h - conversion passes -----------------------------*- C++ -*-===//

#ifndef TESSEL_CONVERSION_PASSES_H
#define TESSEL_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "tessel/Dialect/KIR/IR/KIR.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"

namespace tessel {
#define GEN_PASS_DECL
#include "tessel/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Conversion/Passes.h.inc"
} // namespace tessel

#endif // TESSEL_CONVERSION_PASSES_H
