//===- KIRVerifyUtils.h - shared checks of the KIR verifier -----*- C++ -*-===//
//
// Helpers shared by the op verifiers (seed 002 §5.1: semantic legality only).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_KIR_IR_KIRVERIFYUTILS_H
#define TESSEL_LIB_DIALECT_KIR_IR_KIRVERIFYUTILS_H

#include "tessel/Dialect/KIR/IR/KIR.h"
#include "tessel/Dialect/Utils/RegionChecks.h"

namespace tessel::kir::detail {

/// True when `value` is a compile-time fact: a constant, a kir.constexpr, or
/// pure kir arithmetic on such values.
bool isConstexprValue(mlir::Value value);

using tessel::verifyPureRegion;
using tessel::verifyRegionSignature;

/// Closure for kir regions: constants and constexpr values may be captured.
inline mlir::LogicalResult verifyClosedRegion(mlir::Operation *op, mlir::Region &region, llvm::StringRef name) {
  return tessel::verifyRegionClosedOver(op, region, name, isConstexprValue);
}

/// A canonical key for the extent of `value`'s axis `axis` derived from its
/// domain provenance, or an empty string when unknown. Equal keys mean equal
/// extents at every launch.
std::string getAxisExtentKey(mlir::Value value, unsigned axis);

/// Extent keys are memoized while one kernel is verified: KernelOp::verify
/// opens the memo, KernelOp::verifyRegions (after the ops inside) closes it.
/// The IR does not change in between, so a chain of N pointwise ops costs O(N)
/// walk steps instead of O(N^2). Values outside the open kernel are not memoized.
void beginExtentMemo(KernelOp kernel);
void endExtentMemo(KernelOp kernel);

/// The extent key of result axis `axis` of an access with `coords`.
std::string getCoordinateAxisKey(mlir::Operation *access, mlir::ValueRange coords, unsigned axis);

/// A canonical key for the member set of a domain value ("" when unknown).
std::string getDomainKey(mlir::Value domain);

/// The domain (or subregion) value that axis `axis` of `value`, or of an access with `coords`, comes
/// from; null when it comes from no domain.
mlir::Value getAxisDomain(mlir::Value value, unsigned axis);
mlir::Value getCoordinateAxisDomain(mlir::Operation *access, mlir::ValueRange coords, unsigned axis);

/// Whether two step-1 domains or subregions have member counts of one affine form (upper - lower,
/// end - begin over extents, constants and index arithmetic): then their axes have equal extents
/// and combine position by position (a slice is re-based at 0).
bool haveEqualLengths(mlir::Value domainA, mlir::Value domainB);

/// Checks that axis `axisA` of `a` and axis `axisB` of `b` have compatible
/// extents: equal static sizes, or the same domain provenance when both are
/// known. `what` describes the pair in the diagnostic.
mlir::LogicalResult verifyCompatibleAxes(mlir::Operation *op, mlir::Value a, unsigned axisA,
                                         mlir::Value b, unsigned axisB, llvm::Twine what);

/// Checks that two values of one type (scalars or tensors) have provably
/// equal extents on every axis.
mlir::LogicalResult verifySameExtents(mlir::Operation *op, mlir::Value a, mlir::Value b,
                                      llvm::StringRef aName, llvm::StringRef bName);

/// Checks a coordinate list against a source of rank `rank` and returns the
/// shape of the accessed value (kDynamic for domain axes). Index tensors are
/// allowed only when `allowTensors` (gather/scatter coordinates).
mlir::FailureOr<llvm::SmallVector<int64_t>>
verifyCoordinates(mlir::Operation *op, unsigned rank, mlir::ValueRange coords, bool allowTensors);

/// Checks that `type` is the value accessed with `shape` and `elementType`
/// (a scalar when `shape` is empty); `what` names the value.
mlir::LogicalResult verifyAccessedType(mlir::Operation *op, mlir::Type type,
                                       llvm::ArrayRef<int64_t> shape, mlir::Type elementType,
                                       llvm::StringRef what);

/// Checks an optional validity mask (i1 scalar or i1 tensor shaped `shape`)
/// and fill (a scalar of `elementType`).
mlir::LogicalResult verifyValidityAndFill(mlir::Operation *op, mlir::Value valid, mlir::Value fill,
                                          llvm::ArrayRef<int64_t> shape, mlir::Type elementType);


/// The `kir.kernel` enclosing `op`, or null.
KernelOp getEnclosingKernel(mlir::Operation *op);

/// Whole-kernel rules: Out views are not read before a dominating write
/// (KIRKernelVerifier.cpp).
mlir::LogicalResult verifyKernelBody(KernelOp kernel);

/// Writes in a kir.parallel body must not conflict across iterations
/// (KIRKernelVerifier.cpp).
mlir::LogicalResult verifyParallelIndependence(ParallelOp op);

} // namespace tessel::kir::detail

#endif // TESSEL_LIB_DIALECT_KIR_IR_KIRVERIFYUTILS_H
