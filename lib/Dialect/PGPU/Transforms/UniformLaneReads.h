//===- UniformLaneReads.h - a read uniform over a loop's lanes, once -------===//
//
// Private to the pgpu transforms: pgpu-reuse-input-reads' helper (UniformLaneReads.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PGPU_TRANSFORMS_UNIFORMLANEREADS_H
#define TESSEL_PGPU_TRANSFORMS_UNIFORMLANEREADS_H

#include "tessel/Dialect/PGPU/Transforms/Passes.h"

namespace tessel::pgpu {
/// Reads of rank 2 in a K loop (from 0, stepped by a parameter) whose lane coordinate is k / G for a
/// constant G every candidate of the step divides (one value per trip: iv / G) become a read of the
/// other axis at iv / G broadcast along the lanes, the lanes' validity kept by a select against the
/// fill. Returns how many reads were rewritten.
unsigned readUniformLanesOnce(mlir::Operation *root);
} // namespace tessel::pgpu

#endif
