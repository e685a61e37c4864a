//===- Numerics.cpp - scalar semantics of the reference interpreters -------===//

#include "tessel/Interp/Numerics.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

using namespace mlir;
using namespace tessel;
using namespace tessel::interp;

namespace {
/// A binary float format: `mant` stored mantissa bits, normal exponents in
/// [emin, emax], and whether it has infinities (f8E4M3FN has none).
struct FloatFormat {
  int mant, emin, emax;
  bool hasInf;
  double maxFinite;
};

const FloatFormat kHalf = {10, -14, 15, true, 65504.0};
const FloatFormat kBFloat16 = {7, -126, 127, true, 0x1.fep127};

FloatFormat formatOf(Type type) {
  if (type.isF16())
    return kHalf;
  if (type.isBF16())
    return kBFloat16;
  if (isa<Float8E5M2Type>(type))
    return {2, -14, 15, true, 57344.0};
  if (isa<Float8E4M3FNType>(type))
    return {3, -6, 8, false, 448.0};
  if (isa<Float8E8M0FNUType>(type))
    return {0, -127, 127, false, std::ldexp(1.0, 127)};
  return {23, -126, 127, true, std::numeric_limits<float>::max()};
}

/// Rounds |x| to the format's grid (nearest even); overflow gives inf (or NaN
/// for formats without infinities).
double roundToFormat(double x, const FloatFormat &fmt) {
  if (std::isnan(x) || std::isinf(x) || x == 0)
    return (std::isinf(x) && !fmt.hasInf) ? std::nan("") : x;
  double a = std::fabs(x);
  int e;
  std::frexp(a, &e);
  int exp = std::max(e - 1, fmt.emin);
  double quantum = std::ldexp(1.0, exp - fmt.mant);
  double q = std::nearbyint(a / quantum) * quantum;
  if (q > fmt.maxFinite)
    q = fmt.hasInf ? INFINITY : std::nan("");
  return std::copysign(q, x);
}

unsigned widthOf(Type type) { return type.isIndex() ? 64 : type.getIntOrFloatBitWidth(); }
bool isUnsignedInt(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && (integer.isUnsigned() || integer.getWidth() == 1);
}
} // namespace

bool interp::isFloatType(Type type) { return isa<FloatType>(type); }

double interp::roundToFloat(double value, Type type) {
  if (type.isF64())
    return value;
  if (type.isF32())
    return static_cast<double>(static_cast<float>(value));
  return roundToFormat(value, formatOf(type));
}

int64_t interp::wrapToInteger(int64_t value, Type type) {
  unsigned width = widthOf(type);
  if (width >= 64)
    return value;
  uint64_t mask = (uint64_t(1) << width) - 1;
  uint64_t bits = uint64_t(value) & mask;
  if (isUnsignedInt(type))
    return int64_t(bits);
  uint64_t sign = uint64_t(1) << (width - 1);
  return int64_t((bits ^ sign) - sign);
}

bool interp::isSubnormal(double value, Type type) {
  if (value == 0 || std::isnan(value) || std::isinf(value))
    return false;
  int emin = type.isF64() ? -1022 : formatOf(type).emin;
  return std::fabs(value) < std::ldexp(1.0, emin);
}

/// Bits of an already-representable value in a 16-bit format.
static uint16_t toBits16(double value, int mant, int emin, int bias) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  int expBits = 15 - mant;
  uint16_t expMask = uint16_t(((1 << expBits) - 1) << mant);
  if (std::isnan(value))
    return sign | expMask | uint16_t(1 << (mant - 1));
  if (std::isinf(value))
    return sign | expMask;
  double a = std::fabs(value);
  if (a == 0)
    return sign;
  if (a < std::ldexp(1.0, emin))
    return sign | uint16_t(a / std::ldexp(1.0, emin - mant));
  int e;
  std::frexp(a, &e);
  int exp = e - 1;
  uint16_t m = uint16_t(a / std::ldexp(1.0, exp - mant) - (1 << mant));
  return sign | uint16_t((exp + bias) << mant) | m;
}

static double fromBits16(uint16_t bits, int mant, int emin, int bias) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int expBits = 15 - mant;
  int exp = (bits >> mant) & ((1 << expBits) - 1);
  int m = bits & ((1 << mant) - 1);
  if (exp == (1 << expBits) - 1)
    return m ? std::nan("") : sign * INFINITY;
  if (exp == 0)
    return sign * m * std::ldexp(1.0, emin - mant);
  return sign * (1.0 + m * std::ldexp(1.0, -mant)) * std::ldexp(1.0, exp - bias);
}

/// The 8-bit formats (OCP FP8: E4M3FN, E5M2; the E8M0FNU scale), with their stored exponent width and
/// bias. E4M3FN spells NaN as S.1111.111 only (no infinities, so S.1111.000-110 are finite: 256-448);
/// E5M2 is IEEE-like (S.11111.00 infinity, S.11111.xx NaN); E8M0FNU is 2^(e - 127), 0xFF NaN, unsigned.
namespace {
struct Float8Layout {
  int mant, expBits, bias;
  bool ieee; // all-ones exponent is inf/NaN (E5M2); else only the all-ones pattern is NaN
  bool hasSign;
};
std::optional<Float8Layout> float8Layout(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return Float8Layout{3, 4, 7, false, true};
  if (isa<Float8E5M2Type>(type))
    return Float8Layout{2, 5, 15, true, true};
  if (isa<Float8E8M0FNUType>(type))
    return Float8Layout{0, 8, 127, false, false};
  return std::nullopt;
}
} // namespace

bool interp::isFloat8Type(Type type) { return float8Layout(type).has_value(); }

uint8_t interp::toFloat8Bits(double value, Type type) {
  Float8Layout l = *float8Layout(type);
  double v = roundToFormat(value, formatOf(type));
  uint8_t sign = (l.hasSign && std::signbit(v)) ? 0x80 : 0;
  uint8_t expMask = uint8_t(((1 << l.expBits) - 1) << l.mant);
  if (std::isnan(v)) // the canonical quiet NaN (torch's: S.1111.111 for E4M3FN, S.11111.11 for E5M2)
    return l.hasSign ? uint8_t(sign | 0x7F) : 0xFF;
  if (std::isinf(v))
    return sign | expMask; // only formats with infinities (E5M2) keep one after rounding
  double a = std::fabs(v);
  int emin = 1 - l.bias;
  if (a == 0)
    return sign;
  if (a < std::ldexp(1.0, emin)) // subnormal (E8M0FNU has none: its grid starts at 2^-127)
    return sign | uint8_t(a / std::ldexp(1.0, emin - l.mant));
  int e;
  std::frexp(a, &e);
  int exp = e - 1;
  uint8_t m = uint8_t(a / std::ldexp(1.0, exp - l.mant) - (1 << l.mant));
  return sign | uint8_t((exp + l.bias) << l.mant) | m;
}

double interp::fromFloat8Bits(uint8_t bits, Type type) {
  Float8Layout l = *float8Layout(type);
  double sign = (l.hasSign && (bits & 0x80)) ? -1.0 : 1.0;
  int exp = (bits >> l.mant) & ((1 << l.expBits) - 1);
  int m = bits & ((1 << l.mant) - 1);
  int expAll = (1 << l.expBits) - 1;
  if (l.ieee && exp == expAll)
    return m ? std::nan("") : sign * INFINITY;
  if (!l.ieee && exp == expAll && m == (1 << l.mant) - 1)
    return std::nan("");
  if (exp == 0 && l.mant > 0)
    return sign * m * std::ldexp(1.0, 1 - l.bias - l.mant);
  return sign * (1.0 + m * std::ldexp(1.0, -l.mant)) * std::ldexp(1.0, exp - l.bias);
}

uint16_t interp::toHalfBits(double value) { return toBits16(roundToFormat(value, kHalf), 10, -14, 15); }
uint16_t interp::toBFloat16Bits(double value) {
  return toBits16(roundToFormat(value, kBFloat16), 7, -126, 127);
}
double interp::fromHalfBits(uint16_t bits) { return fromBits16(bits, 10, -14, 15); }
double interp::fromBFloat16Bits(uint16_t bits) { return fromBits16(bits, 7, -126, 127); }

Elem interp::castElem(Elem value, Type from, Type to) {
  Elem out;
  bool fromFloat = isFloatType(from), toFloat = isFloatType(to);
  // An 8-bit float is reached through f32 (docs/language.md, Conversions):
  // torch converts f64 and integers to float8_e4m3fn/e5m2 by way of float, and the hardware's
  // cvt to e4m3/e5m2 takes f32, so an f64 just past an FP8 tie rounds to the tie first, then to even
  // (1.0625 + 2^-40 -> 1.0 in e4m3, as torch gives). From f32, f16 and bf16 this is one rounding.
  bool viaF32 = isFloat8Type(to) && !from.isF32() && !from.isF16() && !from.isBF16() && !isFloat8Type(from);
  auto narrow = [&](double v) { return roundToFloat(viaF32 ? double(float(v)) : v, to); };
  if (fromFloat && toFloat) {
    out.f = narrow(value.f);
  } else if (!fromFloat && toFloat) {
    bool u64 = isUnsignedInt(from) && widthOf(from) == 64;
    out.f = narrow(u64 ? double(uint64_t(value.i)) : double(value.i));
  } else if (fromFloat && !toFloat) {
    if (to.isInteger(1)) {
      out.i = value.f != 0;
    } else if (std::isnan(value.f)) {
      out.i = 0;
    } else {
      // Saturate by comparing with the powers of two that bound the range (exact in a double):
      // 2^63 - 1 is not a double, and converting 2^63 to int64_t is undefined.
      unsigned width = widthOf(to);
      bool u = isUnsignedInt(to);
      double t = std::trunc(value.f);
      double lo = u ? 0 : -std::ldexp(1.0, width - 1);
      double above = std::ldexp(1.0, u ? width : width - 1); // the first value past the range
      if (t >= above)
        out.i = u ? int64_t(width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1)
                  : int64_t((uint64_t(1) << (width - 1)) - 1);
      else if (t <= lo)
        out.i = u ? 0 : int64_t(-(uint64_t(1) << (width - 1)));
      else
        out.i = (u && width == 64 && t >= std::ldexp(1.0, 63)) ? int64_t(uint64_t(t)) : int64_t(t);
    }
  } else {
    out.i = to.isInteger(1) ? (value.i != 0) : wrapToInteger(value.i, to);
  }
  return out;
}

Elem interp::bitcastElem(Elem value, Type from, Type to) {
  uint64_t bits = 0;
  if (from.isF64()) {
    std::memcpy(&bits, &value.f, 8);
  } else if (from.isF32()) {
    float f = static_cast<float>(value.f);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    bits = b;
  } else if (from.isF16()) {
    bits = toHalfBits(value.f);
  } else if (from.isBF16()) {
    bits = toBFloat16Bits(value.f);
  } else if (isFloat8Type(from)) {
    bits = toFloat8Bits(value.f, from);
  } else {
    unsigned width = widthOf(from);
    bits = width >= 64 ? uint64_t(value.i) : uint64_t(value.i) & ((uint64_t(1) << width) - 1);
  }
  Elem out;
  if (to.isF64()) {
    std::memcpy(&out.f, &bits, 8);
  } else if (to.isF32()) {
    uint32_t b = uint32_t(bits);
    float f;
    std::memcpy(&f, &b, 4);
    out.f = f;
  } else if (to.isF16()) {
    out.f = fromHalfBits(uint16_t(bits));
  } else if (to.isBF16()) {
    out.f = fromBFloat16Bits(uint16_t(bits));
  } else if (isFloat8Type(to)) {
    out.f = fromFloat8Bits(uint8_t(bits), to);
  } else {
    out.i = wrapToInteger(int64_t(bits), to);
  }
  return out;
}

/// Flush-to-zero of one operand or result (seed 000 §7: at the op's boundary).
static double flush(double v, Type type, bool ftz) {
  return (ftz && isSubnormal(v, type)) ? std::copysign(0.0, v) : v;
}

Elem interp::applyBinary(kir::BinaryKind kind, Elem a, Elem b, Type type, NumericalOptions options) {
  using K = kir::BinaryKind;
  Elem out;
  if (isFloatType(type)) {
    double x = flush(a.f, type, options.flushToZero), y = flush(b.f, type, options.flushToZero);
    double r = 0;
    switch (kind) {
    case K::Add: r = x + y; break;
    case K::Sub: r = x - y; break;
    case K::Mul: r = x * y; break;
    case K::Div:
      // The approximate form multiplies by a reciprocal rounded to f32.
      r = options.approximate ? x * double(float(1.0 / y)) : x / y;
      break;
    case K::Rem: r = std::fmod(x, y); break;
    case K::Max: r = (std::isnan(x) || std::isnan(y)) ? std::nan("") : std::max(x, y); break;
    case K::Min: r = (std::isnan(x) || std::isnan(y)) ? std::nan("") : std::min(x, y); break;
    case K::MaxNum: r = std::fmax(x, y); break;
    case K::MinNum: r = std::fmin(x, y); break;
    case K::Pow: r = std::pow(x, y); break;
    default: r = std::nan(""); break; // bitwise kinds are rejected by the verifier
    }
    out.f = flush(roundToFloat(r, type), type, options.flushToZero);
    return out;
  }
  bool isUnsigned = isUnsignedInt(type);
  unsigned width = widthOf(type);
  int64_t x = a.i, y = b.i;
  uint64_t ux = uint64_t(x), uy = uint64_t(y);
  int64_t r = 0;
  switch (kind) {
  case K::Add: r = int64_t(ux + uy); break;
  case K::Sub: r = int64_t(ux - uy); break;
  case K::Mul: r = int64_t(ux * uy); break;
  case K::Div:
    if (y == 0) {
      r = 0;
    } else if (isUnsigned) {
      r = int64_t(ux / uy);
    } else {
      r = (x == std::numeric_limits<int64_t>::min() && y == -1) ? x : x / y;
      if ((x % y != 0) && ((x < 0) != (y < 0)))
        --r; // floor division
    }
    break;
  case K::Rem:
    if (y == 0) {
      r = 0;
    } else if (isUnsigned) {
      r = int64_t(ux % uy);
    } else {
      r = (y == -1) ? 0 : x % y;
      if (r != 0 && ((r < 0) != (y < 0)))
        r += y; // floor modulo: the sign of the divisor
    }
    break;
  case K::Max: case K::MaxNum: r = isUnsigned ? int64_t(std::max(ux, uy)) : std::max(x, y); break;
  case K::Min: case K::MinNum: r = isUnsigned ? int64_t(std::min(ux, uy)) : std::min(x, y); break;
  case K::And: r = x & y; break;
  case K::Or: r = x | y; break;
  case K::Xor: r = x ^ y; break;
  case K::Shl: r = (uy >= width) ? 0 : int64_t(ux << uy); break;
  case K::Shr:
    if (isUnsigned)
      r = (uy >= width) ? 0 : int64_t(ux >> uy);
    else
      r = x >> std::min<uint64_t>(uy, 63);
    break;
  case K::Pow: {
    r = 1;
    for (int64_t e = y; e > 0; --e)
      r = int64_t(uint64_t(r) * ux);
    break;
  }
  }
  out.i = wrapToInteger(r, type);
  return out;
}

Elem interp::applyRMW(kir::RMWKind kind, Elem old, Elem update, Type type) {
  using K = kir::RMWKind;
  NumericalOptions none;
  switch (kind) {
  case K::Exchange: return update;
  case K::Add: return applyBinary(kir::BinaryKind::Add, old, update, type, none);
  case K::Max: return applyBinary(kir::BinaryKind::Max, old, update, type, none);
  case K::Min: return applyBinary(kir::BinaryKind::Min, old, update, type, none);
  case K::And: return applyBinary(kir::BinaryKind::And, old, update, type, none);
  case K::Or: return applyBinary(kir::BinaryKind::Or, old, update, type, none);
  case K::Xor: return applyBinary(kir::BinaryKind::Xor, old, update, type, none);
  }
  return update;
}

Elem interp::applyUnary(kir::UnaryKind kind, Elem a, Type type, NumericalOptions options) {
  using K = kir::UnaryKind;
  Elem out;
  if (!isFloatType(type)) {
    switch (kind) {
    case K::Neg: out.i = wrapToInteger(int64_t(0 - uint64_t(a.i)), type); break;
    case K::Abs: out.i = wrapToInteger(a.i < 0 ? int64_t(0 - uint64_t(a.i)) : a.i, type); break;
    case K::Not: out.i = type.isInteger(1) ? !a.i : wrapToInteger(~a.i, type); break;
    default: out.i = 0; break; // rejected by the verifier
    }
    return out;
  }
  double x = flush(a.f, type, options.flushToZero), r = 0;
  switch (kind) {
  case K::Neg: r = -x; break;
  case K::Abs: r = std::fabs(x); break;
  case K::Exp: r = std::exp(x); break;
  case K::Exp2: r = options.approximate ? double(std::exp2(float(x))) : std::exp2(x); break;
  case K::Log: r = std::log(x); break;
  case K::Log2: r = std::log2(x); break;
  case K::Sqrt: r = std::sqrt(x); break;
  case K::Rsqrt: r = 1.0 / std::sqrt(x); break;
  case K::Sigmoid: r = 1.0 / (1.0 + std::exp(-x)); break;
  case K::Tanh:
    r = std::tanh(x);
    // The approximate form keeps 11 significant bits: relative error <= 2^-11.
    if (options.approximate)
      r = roundToFormat(r, {10, -126, 127, true, std::numeric_limits<float>::max()});
    break;
  case K::Sin: r = std::sin(x); break;
  case K::Cos: r = std::cos(x); break;
  case K::Erf: r = std::erf(x); break;
  // log(1 + x) and e^x - 1 without the rounded 1 + x / e^x (types §5): exact at signed zero, -inf at -1.
  case K::Log1p: r = std::log1p(x); break;
  case K::Expm1: r = std::expm1(x); break;
  case K::Floor: r = std::floor(x); break;
  case K::Ceil: r = std::ceil(x); break;
  case K::Round: r = std::nearbyint(x); break; // ties to even: the default rounding mode
  case K::Not: r = std::nan(""); break;
  }
  out.f = flush(roundToFloat(r, type), type, options.flushToZero);
  return out;
}

bool interp::applyCmp(kir::CmpPredicate predicate, Elem a, Elem b, Type type) {
  using P = kir::CmpPredicate;
  if (isFloatType(type)) {
    double x = a.f, y = b.f;
    switch (predicate) {
    case P::EQ: return x == y;
    case P::NE: return x != y; // true when either is NaN
    case P::LT: return x < y;
    case P::LE: return x <= y;
    case P::GT: return x > y;
    case P::GE: return x >= y;
    }
  }
  if (isUnsignedInt(type)) {
    uint64_t x = uint64_t(a.i), y = uint64_t(b.i);
    switch (predicate) {
    case P::EQ: return x == y;
    case P::NE: return x != y;
    case P::LT: return x < y;
    case P::LE: return x <= y;
    case P::GT: return x > y;
    case P::GE: return x >= y;
    }
  }
  int64_t x = a.i, y = b.i;
  switch (predicate) {
  case P::EQ: return x == y;
  case P::NE: return x != y;
  case P::LT: return x < y;
  case P::LE: return x <= y;
  case P::GT: return x > y;
  case P::GE: return x >= y;
  }
  return false;
}
