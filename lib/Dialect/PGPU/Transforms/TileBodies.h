//===- TileBodies.h - what the tiling passes ask of a group's body -*- C++ -*-===//
//
// The small questions pgpu-tile-column-reductions, pgpu-tile-shared-reductions, pgpu-member-tickets and
// pgpu-narrow-guarded-worksets ask of straight-line group bodies: which ops are pointwise or reads, a
// read's coordinates, what depends on a value, whether a value is the product flattening built from a
// list of extents; and the declaration of a tile parameter they add.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_TILEBODIES_H
#define TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_TILEBODIES_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace tessel::pgpu {

/// Straight-line code a tiled body may hold besides reductions and writes.
inline bool isPointwiseOrRead(mlir::Operation &op) {
  return mlir::isa<BinaryOp, UnaryOp, CmpOp, SelectOp, CastOp, BitcastOp, LoadOp, GatherOp, mlir::arith::ConstantOp,
                   ParamOp, ExtentOp, StrideOp, CeilDivOp>(op);
}

/// The coordinates of a view read (load or gather), or none.
inline std::optional<mlir::ValueRange> readCoords(mlir::Operation &op) {
  if (auto load = mlir::dyn_cast<LoadOp>(op))
    return load.getCoords();
  if (auto gather = mlir::dyn_cast<GatherOp>(op))
    return gather.getCoords();
  return std::nullopt;
}

/// The values of `region` (and `seed`) that depend on `seed` through def-use, in walk order.
inline void dependents(mlir::Value seed, mlir::Region &region, llvm::DenseSet<mlir::Value> &out) {
  out.insert(seed);
  region.walk([&](mlir::Operation *op) {
    if (llvm::any_of(op->getOperands(), [&](mlir::Value v) { return out.contains(v); }))
      out.insert(op->result_begin(), op->result_end());
  });
}

/// Whether `v` is es[0] * es[1] * ... multiplied left to right (as construction and flattening spell a
/// product of extents), or the one factor.
inline bool isProductOf(mlir::Value v, llvm::ArrayRef<mlir::Value> es) {
  if (es.size() == 1)
    return v == es.front();
  auto mul = v.getDefiningOp<BinaryOp>();
  return mul && mul.getKind() == kir::BinaryKind::Mul && mul.getRhs() == es.back() &&
         isProductOf(mul.getLhs(), es.drop_back());
}

/// Declares tile parameter `name` on `kernel` (its candidates, default and the extent it covers) unless
/// it is declared already.
inline void declareTileParam(KernelOp kernel, llvm::StringRef name, llvm::ArrayRef<int64_t> candidates,
                             int64_t fallback, mlir::StringAttr covers) {
  mlir::MLIRContext *ctx = kernel.getContext();
  declareParam(kernel, ParamAttr::get(ctx, mlir::StringAttr::get(ctx, name), candidates, fallback,
                                      mlir::StringAttr(), covers));
}

} // namespace tessel::pgpu

#endif // TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_TILEBODIES_H
