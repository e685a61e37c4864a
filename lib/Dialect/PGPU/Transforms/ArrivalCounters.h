//===- ArrivalCounters.h - programs that wait for each other's arrivals -*- C++ -*-===//
//
// What pgpu-stage-operands, pgpu-split-folds and pgpu-chain-scans share (InstanceWork.cpp): a program
// publishes values to invocation workspace and counts its arrival on an i32 ticket with release order;
// another waits for a number of arrivals with acquire loads before it reads them (seed 000 §4.4).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_ARRIVALCOUNTERS_H
#define TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_ARRIVALCOUNTERS_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

#include "mlir/IR/Builders.h"

namespace tessel::pgpu {

/// Counts one arrival at `tickets[slot]` (an i32 add of 1, `order`, invocation-shared) and returns the
/// count before it: a program announcing that what it published is there.
mlir::Value buildArrivalTicket(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tickets, mlir::ValueRange slot,
                               mlir::Value valid, kir::AtomicOrder order = kir::AtomicOrder::Release);

/// Waits until `tickets[slot]` counts `want` (an index) arrivals: a pgpu.while whose condition is an
/// acquire load of the count below `want`, so what the arrivals published before their release is
/// visible after it. Leaves `b` after the loop.
void buildArrivalWait(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tickets, mlir::ValueRange slot,
                      mlir::Value want, mlir::Value valid);

} // namespace tessel::pgpu

#endif // TESSEL_LIB_DIALECT_PGPU_TRANSFORMS_ARRIVALCOUNTERS_H
