//===- DomainPairing.h - which KIR domains pair by position -----*- C++ -*-===//
//
// The KIR verifier's rule for slices (KIR_SubregionOp), for passes that
// realize values over paired domains on one axis.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_KIR_IR_DOMAINPAIRING_H
#define TESSEL_DIALECT_KIR_IR_DOMAINPAIRING_H

#include "mlir/IR/Value.h"

namespace tessel::kir {
/// Whether two step-1 domains or subregions pair by position: their member counts have one affine
/// form over extents, constants and index arithmetic (`dims[H:2 * H]` and `T.domain(0, H)`), so
/// element `i` of a tensor over one combines with element `i` over the other.
bool pairByPosition(mlir::Value domainA, mlir::Value domainB);
} // namespace tessel::kir

#endif // TESSEL_DIALECT_KIR_IR_DOMAINPAIRING_H
