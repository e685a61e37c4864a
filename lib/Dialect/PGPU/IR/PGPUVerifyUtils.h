//===- PGPUVerifyUtils.h - shared checks of the pgpu verifier ---*- C++ -*-===//

#ifndef TESSEL_LIB_DIALECT_PGPU_IR_PGPUVERIFYUTILS_H
#define TESSEL_LIB_DIALECT_PGPU_IR_PGPUVERIFYUTILS_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"
#include "tessel/Dialect/Utils/RegionChecks.h"

namespace tessel::pgpu::checks {

/// Extents of a fragment (empty for scalars).
llvm::ArrayRef<mlir::Attribute> shapeOf(mlir::Type type);

/// Checks an access: one coordinate per source axis, each an index scalar or
/// an index fragment with exactly `accessed`'s shape; `valid` an i1 scalar or
/// an i1 fragment of that shape; `fill` (when given) a scalar of `element`
/// (seed 000 §6, invariant 5).
mlir::LogicalResult verifyAccess(mlir::Operation *op, unsigned rank, mlir::ValueRange coords, mlir::Type accessed,
                                 mlir::Type element, mlir::Value valid, mlir::Value fill);

/// Closure of pgpu regions: only constants may be captured.
mlir::LogicalResult verifyClosedRegion(mlir::Operation *op, mlir::Region &region, llvm::StringRef name);

/// Kernel-wide invariants of seed 000 §10 (PGPUKernelVerifier.cpp).
mlir::LogicalResult verifyKernelInvariants(KernelOp kernel);

} // namespace tessel::pgpu::checks

#endif // TESSEL_LIB_DIALECT_PGPU_IR_PGPUVERIFYUTILS_H
