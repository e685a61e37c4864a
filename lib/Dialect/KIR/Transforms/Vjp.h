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

/// The cotangent `g` of a kernel-level value, computed by each member of `parallel` (the value's
/// use there), recomputed at kernel level with the parallel's axes first (VjpLift.cpp): each read at
/// a member's index read over the member's domain, each per-member scalar it needs kept (stored by
/// the member to a buffer over the parallel's domains, read whole). Summed over those axes, the
/// member sum is a column sum the passes spread, not a buffer of every member's contribution.
class MemberLift {
public:
  explicit MemberLift(ParallelOp parallel);
  /// Whether `v` lifts (no IR change): reads index every member directly, the ops between are
  /// pointwise, broadcasts, transposes or reductions, per-member scalars are float or integer.
  bool lifts(mlir::Value v);
  /// Keeps the per-member scalars `g` needs (a buffer each, before the parallel; each member's store at
  /// the end of its body). After `lifts(g)`.
  void keep(mlir::Value g);
  /// At `b` (kernel level, after the parallel and `keep(g)`): `g` with the parallel's axes first.
  mlir::Value emit(mlir::OpBuilder &b, mlir::Value g);

private:
  ParallelOp parallel;
  llvm::DenseMap<mlir::Value, mlir::Value> domainOf; // member index -> its domain
  llvm::DenseMap<mlir::Value, bool> memberMemo, liftMemo;
  llvm::DenseMap<mlir::Value, mlir::Value> kept, uniformMemo, liftedMemo;

  bool inBody(mlir::Value v);
  bool perMember(mlir::Value v);
  bool clonable(mlir::Value v);
  static bool keepable(mlir::Value v);
  mlir::Type liftType(mlir::Type t);
  mlir::Value uniform(mlir::OpBuilder &b, mlir::Value v);
  mlir::Value operand(mlir::OpBuilder &b, mlir::Value v, mlir::Value ref);
};

} // namespace tessel::kir::vjp

#endif // TESSEL_LIB_DIALECT_KIR_TRANSFORMS_VJP_H
