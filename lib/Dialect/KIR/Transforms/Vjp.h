//===- Vjp.h - reverse-mode differentiation of KIR (private) ----*- C++ -*-===//
//
// The adjoint bookkeeping shared by the kir-vjp pass driver (Vjp.cpp) and the
// per-op derivative rules (VjpRules.cpp). Private to the KIR transforms.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_KIR_TRANSFORMS_VJP_H
#define TESSEL_LIB_DIALECT_KIR_TRANSFORMS_VJP_H

#include "mlir/IR/Builders.h"
#include "tessel/Dialect/KIR/IR/KIR.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace tessel::kir::vjp {

/// The cotangents of one block's values while its ops are swept in reverse.
/// Only active values (floats that depend on a differentiated input) get one;
/// a value used several times gets the sum of its uses' contributions.
struct Adjoints {
  mlir::OpBuilder &b;
  const llvm::DenseSet<mlir::Value> &active;
  llvm::DenseMap<mlir::Value, mlir::Value> grads;

  /// Adds `g` (of `v`'s type) to the cotangent of `v` when `v` is active.
  void add(mlir::Value v, mlir::Value g);
  /// The accumulated cotangent of `v`, or null when nothing reached it.
  mlir::Value get(mlir::Value v) const { return grads.lookup(v); }
};

/// Emits, at `adj.b`'s insertion point, the contributions of `op`'s result
/// cotangents to its operands' cotangents. Fails with a located error naming
/// the op when `op` has no derivative rule here.
mlir::LogicalResult emitAdjoint(mlir::Operation *op, Adjoints &adj);

/// A constant `value` shaped like `like` (a scalar, or a tensor spread over
/// `like` with kir.broadcast_as) of `like`'s element type.
mlir::Value constantLike(mlir::OpBuilder &b, mlir::Location loc, double value, mlir::Value like);

/// `value` converted to `type`; a float widened from `type` and not changed since is its operand.
mlir::Value castTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value, mlir::Type type);

/// `x` with `axes` summed out (a scalar when none remain), as a kir.reduce add.
mlir::Value sumOver(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, llvm::ArrayRef<int64_t> axes);

} // namespace tessel::kir::vjp

#endif // TESSEL_LIB_DIALECT_KIR_TRANSFORMS_VJP_H
