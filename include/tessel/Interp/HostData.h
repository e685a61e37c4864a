//===- HostData.h - host arrays for `tessel run` and tests ------*- C++ -*-===//

#ifndef TESSEL_INTERP_HOSTDATA_H
#define TESSEL_INTERP_HOSTDATA_H

#include "tessel/Interp/Interpreter.h"

#include <optional>
#include <string>

namespace tessel::interp {

/// Fills `array` with seeded random values that are never zero: floats are
/// ±[0.25, 1) (representable in the element type after rounding), integers are
/// drawn from [range.first, range.second) when given and from ±[1, 8) otherwise.
void fillRandom(HostArray &array, std::mt19937_64 &rng,
                std::optional<std::pair<int64_t, int64_t>> range = std::nullopt);

/// Fills `array` with a value that marks "never written": NaN for floats, a
/// large pattern for integers. Out views start this way.
void fillPoison(HostArray &array);

/// Writes the logical contents of `array` as a NumPy .npy file. bf16 is
/// written as float32 (NumPy has no bf16), index as int64.
bool writeNpy(const HostArray &array, const std::string &path, std::string &error);

/// Reads a NumPy .npy file (format 1.0-3.0, little-endian, C or Fortran
/// order) as an array of `elementType`. Float element types take f2/f4/f8
/// files (rounded to the type); integer types take any integer file whose
/// values fit the type; i1 takes b1, u1 or i1 holding 0/1. Anything else is an
/// error naming the file and the problem, never a silent conversion.
std::optional<HostArray> readNpy(const std::string &path, mlir::Type elementType, std::string &error);

/// A one-line description: dtype, shape, sum and an FNV-1a hash of the
/// element bit patterns.
std::string describe(const HostArray &array);

} // namespace tessel::interp

#endif // TESSEL_INTERP_HOSTDATA_H
