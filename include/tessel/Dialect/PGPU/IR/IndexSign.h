//===- IndexSign.h - provably non-negative integer values ------*- C++ -*-===//
//
// One sign fact on pgpu IR, shared by the passes and every provider: whether
// an index or integer value (scalar or fragment) is provably non-negative in
// every lane. tessel's integer `div`/`rem` are floor division and its
// remainder (KIRDialect.md; `//` and `%` in the DSL); a provider whose own
// operators truncate (Triton's // and %) may spell them as is only where the
// dividend is non-negative and the divisor positive, where both agree. A
// divisor of 0 is the user's error (KIR gives 0), so a non-negative divisor
// counts as positive.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_PGPU_IR_INDEXSIGN_H
#define TESSEL_DIALECT_PGPU_IR_INDEXSIGN_H

#include "mlir/IR/Value.h"

namespace tessel::pgpu {

/// Whether every value (every lane of a fragment) of the index or integer `v` is provably >= 0, from
/// facts of the IR only: a non-negative constant; an extent or a declared parameter; a program index,
/// an execution group's decoded coordinate, a foreach index from a non-negative lower bound, a loop
/// index counting up (non-negative step) from a non-negative lower bound; `delinearize` results of a
/// non-negative coordinate by non-negative extents; sums, products, quotients, min, or, xor, ceil_div
/// of such values; max or bitwise and with one such operand; a floor remainder by such a divisor; an
/// arithmetic right shift of one; a cast of one from index or a signed integer; iota from such a base,
/// splat, broadcast, reshape, transpose and extract of such a fragment, and select between two.
/// A difference with a constant, `a - (a // b) * b` (a spelled floor remainder) are bounded
/// too (lower bounds are tracked, not only signs: `extent + 63` is).
/// Conservative: false when unsure (a difference of unknowns, a loop carry, a loaded value).
bool provablyNonNegative(mlir::Value v);

} // namespace tessel::pgpu

#endif // TESSEL_DIALECT_PGPU_IR_INDEXSIGN_H
