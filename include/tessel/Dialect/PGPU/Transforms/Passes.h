//===- Passes.h - shared pgpu passes ----------------------------*- C++ -*-===//

#ifndef TESSEL_DIALECT_PGPU_TRANSFORMS_PASSES_H
#define TESSEL_DIALECT_PGPU_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "tessel/Dialect/PGPU/IR/PGPU.h"

namespace tessel::pgpu {
#define GEN_PASS_DECL
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"

/// The block extent pgpu-form-blocking declares for 1-d fragments and loops
/// over blocks; pgpu-stage-rows recognizes the loops it made by their step.
inline constexpr llvm::StringLiteral kBlockParam = "BLOCK";

/// Folds true masks out of `region` after a narrowing pass made them true: and(x, true) = x,
/// select(true, a, b) = a, and an idempotent reduction (or/and/max/min) of lanes all c is c.
void foldTrueMasks(mlir::Region &region);

/// An order comparison `a pred b` read from b's side when `flipped` (a < b is b > a, and so on); none for
/// an equality or inequality. Range analyses put the tile coordinate on the left this way.
inline std::optional<kir::CmpPredicate> orderFrom(kir::CmpPredicate pred, bool flipped) {
  switch (pred) {
  case kir::CmpPredicate::LT: return flipped ? kir::CmpPredicate::GT : pred;
  case kir::CmpPredicate::LE: return flipped ? kir::CmpPredicate::GE : pred;
  case kir::CmpPredicate::GT: return flipped ? kir::CmpPredicate::LT : pred;
  case kir::CmpPredicate::GE: return flipped ? kir::CmpPredicate::LE : pred;
  default: return std::nullopt;
  }
}

/// Whether the module's `kir.compile_options` ask for optimization remarks
/// (seed 002 §1: adopted and rejected transformations say why, at the op).
inline bool remarksEnabled(mlir::Operation *op) {
  auto module = op->getParentOfType<mlir::ModuleOp>();
  if (!module && llvm::isa<mlir::ModuleOp>(op))
    module = llvm::cast<mlir::ModuleOp>(op);
  if (!module)
    return false;
  auto options = module->getAttrOfType<kir::CompileOptionsAttr>(kir::KIRDialect::getCompileOptionsAttrName());
  return options && options.getOptimizationRemarks();
}

/// The single execution group that the whole program space dispatches to (one axis, pure code
/// around it), or null; with `finalization` also one under construction's dispatch guard beside a
/// pgpu.last_program (pgpu-refine-mapping).
ExecutionGroupOp soleExecutionGroup(ProgramSpaceOp space, bool finalization);

/// Whether the module permits online rewrites of normalized summaries: numerics
/// `relaxed_normalization` with `online_reduction` (seed 002 §1).
inline bool onlineNormalizationPermitted(mlir::ModuleOp module) {
  auto options = module->getAttrOfType<kir::CompileOptionsAttr>(kir::KIRDialect::getCompileOptionsAttrName());
  return options && options.getNumerics() == kir::Numerics::RelaxedNormalization && options.getOnlineReduction();
}
} // namespace tessel::pgpu

#endif // TESSEL_DIALECT_PGPU_TRANSFORMS_PASSES_H
