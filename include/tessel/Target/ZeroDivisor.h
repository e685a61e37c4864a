//===- ZeroDivisor.h - KIR's integer division by zero, for providers -*- C++ -*-===//
//
// KIR defines integer `div` and `rem` by zero: x // 0 = 0 and x % 0 = 0
// (docs/KIRDialect.md, the interpreter's Numerics.cpp). Triton's `//` and
// `%`, cuTile's and PTX's division leave it undefined, so every provider
// guards a divisor that may be 0: divides by 1 there and selects 0. The
// decision of which divisions need the guard lives here, once.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TARGET_ZERODIVISOR_H
#define TESSEL_TARGET_ZERODIVISOR_H

#include "tessel/Dialect/PGPU/IR/PGPU.h"

namespace tessel::target {

/// Whether the integer divisor `d` is nonzero in every lane, from the IR alone: a nonzero constant (or a
/// splat or broadcast of one), a declared parameter none of whose candidates is 0, or the maximum of a
/// value with a positive constant.
bool provablyNonZero(mlir::Value d);

/// Whether a source provider guards `b`'s divisor: an integer (wider than i1) `div` or `rem` whose
/// divisor is not provably nonzero. `index` quotients are construction's address arithmetic, by extents
/// and block sizes, where a zero divisor means an empty range: they keep the plain spelling.
bool guardsZeroDivisor(pgpu::BinaryOp b);

} // namespace tessel::target

#endif // TESSEL_TARGET_ZERODIVISOR_H
