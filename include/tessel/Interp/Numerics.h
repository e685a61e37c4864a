//===- Numerics.h - scalar semantics shared by the interpreters -*- C++ -*-===//
//
// Element values are held as `double` (floats) or `int64_t` (integers, i1 and
// index), always normalized to their MLIR element type: floats are rounded to
// nearest even after every operation (f16/bf16 emulated bit-exactly), integers
// wrap to their width (sign- or zero-extended). Arithmetic is done in double,
// which has enough bits that one rounding to f32/f16/bf16 is correctly rounded
// for + - * / sqrt.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_INTERP_NUMERICS_H
#define TESSEL_INTERP_NUMERICS_H

#include "mlir/IR/Types.h"
#include "tessel/Dialect/KIR/IR/KIR.h"

#include <bit>
#include <cstdint>

namespace tessel::interp {

/// One element: `f` for float types, `i` for integer/index/i1 types.
struct Elem {
  double f = 0;
  int64_t i = 0;
};

/// Whether two elements hold the same bits (NaN payloads and signed zeros told apart): a unique
/// scatter may write one destination twice only with the same bits.
inline bool sameBits(const Elem &a, const Elem &b) {
  return std::bit_cast<uint64_t>(a.f) == std::bit_cast<uint64_t>(b.f) && a.i == b.i;
}

bool isFloatType(mlir::Type type);

/// Rounds `value` to the float type `type` (round to nearest even).
double roundToFloat(double value, mlir::Type type);
/// Wraps `value` to the integer type `type` (index and i64 are 64-bit).
int64_t wrapToInteger(int64_t value, mlir::Type type);
/// True when `value` is subnormal in `type`.
bool isSubnormal(double value, mlir::Type type);

/// Bit patterns of f16/bf16 values (round to nearest even), and back.
uint16_t toHalfBits(double value);
uint16_t toBFloat16Bits(double value);
double fromHalfBits(uint16_t bits);
double fromBFloat16Bits(uint16_t bits);
/// True for the 8-bit float types (f8E4M3FN, f8E5M2, f8E8M0FNU).
bool isFloat8Type(mlir::Type type);
/// Bit patterns of 8-bit float values (round to nearest even; E4M3FN overflow and infinities give
/// NaN, E5M2 overflow gives inf, as torch's float8 conversions do), and back (exact).
uint8_t toFloat8Bits(double value, mlir::Type type);
double fromFloat8Bits(uint8_t bits, mlir::Type type);

/// Element conversions with kir.cast semantics: float->int truncates toward
/// zero and saturates; NaN becomes 0.
Elem castElem(Elem value, mlir::Type from, mlir::Type to);
Elem bitcastElem(Elem value, mlir::Type from, mlir::Type to);

struct NumericalOptions {
  bool approximate = false;
  bool flushToZero = false;
};

Elem applyBinary(kir::BinaryKind kind, Elem a, Elem b, mlir::Type type, NumericalOptions options);
/// The value an atomic read-modify-write of `kind` leaves where `old` was (exchange: `update`).
Elem applyRMW(kir::RMWKind kind, Elem old, Elem update, mlir::Type type);
Elem applyUnary(kir::UnaryKind kind, Elem a, mlir::Type type, NumericalOptions options);
bool applyCmp(kir::CmpPredicate predicate, Elem a, Elem b, mlir::Type type);

} // namespace tessel::interp

#endif // TESSEL_INTERP_NUMERICS_H
