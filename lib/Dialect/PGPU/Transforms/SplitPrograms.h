//===- SplitPrograms.h - a point's work cut across programs, its partials merged -*- C++ -*-===//
//
// What pgpu-split-folds, pgpu-split-row-reductions and pgpu-split-member-reductions share: a
// group's points gain a trailing (fastest) axis of programs (seed 002 §3.2: the ownership of each
// program instance), each taking one contiguous slice of the point's reduced range, storing its
// partial at [point, slice] of invocation workspace (seed 000 §4.4) and the point's last arrival
// merging the partials in slice order with the reduction's own combine (seed 002 §4: same bits on
// every run). The helpers build the IR in the order the passes always built it, so the generated
// sources are unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_SPLITPROGRAMS_H
#define TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_SPLITPROGRAMS_H

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tessel::pgpu::split {

/// Whether `v` is a compile-time constant: a constant, or a splat or broadcast of one (a
/// reduction's identity that each slice may start from).
inline bool isConstantValue(mlir::Value v) {
  if (mlir::matchPattern(v, mlir::m_Constant()))
    return true;
  mlir::Operation *def = v.getDefiningOp();
  return def && mlir::isa<SplatOp, BroadcastOp>(def) && isConstantValue(def->getOperand(0));
}

/// The number of points of `group`: the product of its extents (`one` for a group without axes, a
/// kernel-level statement).
inline mlir::Value pointCount(mlir::OpBuilder &b, mlir::Location loc, ExecutionGroupOp group, mlir::Value one) {
  if (group.getExtents().empty())
    return one;
  mlir::Value points = group.getExtents().front();
  for (mlir::Value e : group.getExtents().drop_front())
    points = build::bin(b, loc, kir::BinaryKind::Mul, points, e);
  return points;
}

/// Sizes the partials' workspace [pointsSymbol, splitsSymbol]: no points where the split is off
/// (`on` false: the partials are never written).
inline void sizePartials(mlir::OpBuilder &b, mlir::Location loc, mlir::Value on, mlir::Value points, mlir::Value zero,
                         mlir::Value splits, llvm::StringRef pointsSymbol, llvm::StringRef splitsSymbol) {
  WorkspaceExtentOp::create(b, loc, pointsSymbol, SelectOp::create(b, loc, on, points, zero).getResult());
  WorkspaceExtentOp::create(b, loc, splitsSymbol, splits);
}

/// Appends the trailing axis of `members` programs with role `role` to `group` and returns its
/// coordinate (the body's new argument).
inline mlir::Value appendSplitAxis(ExecutionGroupOp group, mlir::Value members, llvm::StringRef role,
                                   mlir::Location loc) {
  mlir::MLIRContext *ctx = group.getContext();
  llvm::SmallVector<mlir::Value> extents(group.getExtents());
  extents.push_back(members);
  group.getExtentsMutable().assign(extents);
  llvm::SmallVector<mlir::Attribute> roles(group.getRoles().begin(), group.getRoles().end());
  roles.push_back(mlir::StringAttr::get(ctx, role));
  group.setRolesAttr(mlir::ArrayAttr::get(ctx, roles));
  return group.getBody().front().addArgument(mlir::IndexType::get(ctx), loc);
}

/// The row-major linear index of the point at `coords` over `extents` (the group's axes before the
/// split axis); 0 for a group without axes.
inline mlir::Value linearPoint(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<mlir::Value> coords,
                               mlir::ValueRange extents) {
  if (coords.empty())
    return build::index(b, loc, 0);
  mlir::Value point = coords.front();
  for (auto [c, e] : llvm::zip(coords.drop_front(), extents.drop_front()))
    point = build::bin(b, loc, kir::BinaryKind::Add, build::bin(b, loc, kir::BinaryKind::Mul, point, e), c);
  return point;
}

/// Slice `seg` of `cut`'s range in `splits` contiguous slices: [begin, end) of
/// chunk = ceil(steps / splits) steps, clipped to the range (the last slices may be empty).
struct Slice {
  mlir::Value begin, end;
};
inline Slice sliceOf(mlir::OpBuilder &b, mlir::Location loc, const LaunchSplits &cut, mlir::Value splits,
                     mlir::Value seg) {
  mlir::Value chunk = CeilDivOp::create(b, loc, cut.steps, splits).getResult();
  mlir::Value begin = build::bin(
      b, loc, kir::BinaryKind::Min,
      build::bin(b, loc, kir::BinaryKind::Add, cut.lower, build::bin(b, loc, kir::BinaryKind::Mul, seg, chunk)),
      cut.upper);
  mlir::Value end =
      build::bin(b, loc, kir::BinaryKind::Min, build::bin(b, loc, kir::BinaryKind::Add, begin, chunk), cut.upper);
  return {begin, end};
}

/// A range_reduce over `splits` partials of `r` (`buffers`: one workspace per result, indexed by
/// `lead` then the slice) in slice order with `r`'s combine, from `r`'s identities.
inline RangeReduceOp mergePartials(mlir::OpBuilder &b, RangeReduceOp r, mlir::Value splits, mlir::ValueRange lead,
                                   llvm::ArrayRef<mlir::Value> buffers) {
  mlir::Location loc = r.getLoc();
  auto whole = RangeReduceOp::create(b, loc, r.getResultTypes(), build::index(b, loc, 0), splits, r.getIdentities());
  mlir::OpBuilder::InsertionGuard guard(b);
  mlir::Block *element = b.createBlock(&whole.getElement(), {}, {b.getIndexType()}, {loc});
  llvm::SmallVector<mlir::Value> coords(lead.begin(), lead.end());
  coords.push_back(element->getArgument(0));
  llvm::SmallVector<mlir::Value> loaded;
  for (auto [v, buffer] : llvm::zip(r.getResults(), buffers)) {
    mlir::Type t = v.getType();
    mlir::Value fill = mlir::isa<mlir::FloatType>(t)
                           ? mlir::Value(mlir::arith::ConstantOp::create(b, loc, mlir::FloatAttr::get(t, 0.0)))
                           : mlir::Value(mlir::arith::ConstantOp::create(b, loc, mlir::IntegerAttr::get(t, 0)));
    mlir::Value ok = mlir::arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    loaded.push_back(BufferLoadOp::create(b, loc, t, buffer, coords, ok, fill));
  }
  YieldOp::create(b, loc, loaded);
  mlir::IRMapping combine;
  r.getCombine().cloneInto(&whole.getCombine(), combine);
  return whole;
}

} // namespace tessel::pgpu::split

#endif // TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_SPLITPROGRAMS_H
