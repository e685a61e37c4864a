//===- NumericsTest.cpp - bit-exact f16/bf16 emulation and numerical options ===//

#include "tessel/Interp/Numerics.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace tessel;
using namespace tessel::interp;

namespace {
struct Numerics : ::testing::Test {
  MLIRContext context;
  Builder b{&context};
};

TEST_F(Numerics, HalfBitPatterns) {
  EXPECT_EQ(toHalfBits(1.0), 0x3c00);
  EXPECT_EQ(toHalfBits(-2.0), 0xc000);
  EXPECT_EQ(toHalfBits(65504.0), 0x7bff);        // largest finite
  EXPECT_EQ(toHalfBits(65520.0), 0x7c00);        // rounds to infinity
  EXPECT_EQ(toHalfBits(65519.0), 0x7bff);        // rounds down to max
  EXPECT_EQ(toHalfBits(std::ldexp(1.0, -24)), 0x0001); // smallest subnormal
  EXPECT_EQ(toHalfBits(std::ldexp(1.0, -25)), 0x0000); // tie to even: 0
  EXPECT_EQ(toHalfBits(std::ldexp(3.0, -25)), 0x0002); // 1.5 ulp -> 2 (even)
  EXPECT_EQ(toHalfBits(std::ldexp(1.0, -14)), 0x0400); // smallest normal
  EXPECT_EQ(toHalfBits(0.1), 0x2e66);
  EXPECT_EQ(toHalfBits(-0.0), 0x8000);
  EXPECT_EQ(toHalfBits(INFINITY), 0x7c00);
  EXPECT_EQ(toHalfBits(std::nan("")) & 0x7c00, 0x7c00);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
  EXPECT_EQ(toHalfBits(1.0 + std::ldexp(1.0, -11)), 0x3c00);
  EXPECT_EQ(toHalfBits(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);
}

TEST_F(Numerics, BFloat16BitPatterns) {
  EXPECT_EQ(toBFloat16Bits(1.0), 0x3f80);
  EXPECT_EQ(toBFloat16Bits(-1.0), 0xbf80);
  EXPECT_EQ(toBFloat16Bits(3.140625), 0x4049);
  EXPECT_EQ(toBFloat16Bits(0.1), 0x3dcd);
  EXPECT_EQ(toBFloat16Bits(1.0 + std::ldexp(1.0, -8)), 0x3f80);     // tie to even
  EXPECT_EQ(toBFloat16Bits(1.0 + 3 * std::ldexp(1.0, -8)), 0x3f82); // tie to even (up)
  EXPECT_EQ(toBFloat16Bits(std::ldexp(1.0, -133)), 0x0001);          // smallest subnormal
  EXPECT_EQ(toBFloat16Bits(3.4e38), 0x7f80);                          // overflow
}

TEST_F(Numerics, RoundTripAndRounding) {
  for (uint32_t bits = 0; bits < 0x10000; bits += 7) {
    double h = fromHalfBits(uint16_t(bits));
    if (!std::isnan(h)) {
      EXPECT_EQ(toHalfBits(h), bits) << bits;
      EXPECT_EQ(roundToFloat(h, b.getF16Type()), h);
    }
    double bf = fromBFloat16Bits(uint16_t(bits));
    if (!std::isnan(bf))
      EXPECT_EQ(toBFloat16Bits(bf), bits) << bits;
  }
  EXPECT_EQ(roundToFloat(1.0 / 3.0, b.getF32Type()), double(1.0f / 3.0f));
}

TEST_F(Numerics, FlushToZeroIsVisible) {
  Type f32 = b.getF32Type();
  Elem tiny;
  tiny.f = std::ldexp(1.0, -140); // an f32 subnormal
  Elem one;
  one.f = 1.0;
  Elem exact = applyBinary(kir::BinaryKind::Div, tiny, one, f32, {});
  EXPECT_EQ(exact.f, tiny.f);
  Elem flushed = applyBinary(kir::BinaryKind::Div, tiny, one, f32, {true, true});
  EXPECT_EQ(flushed.f, 0.0);
  EXPECT_TRUE(std::signbit(applyUnary(kir::UnaryKind::Exp2, Elem{-200.0, 0}, f32, {true, true}).f) == false);
  EXPECT_EQ(applyUnary(kir::UnaryKind::Exp2, Elem{-130.0, 0}, f32, {true, true}).f, 0.0);
  EXPECT_GT(applyUnary(kir::UnaryKind::Exp2, Elem{-130.0, 0}, f32, {}).f, 0.0);
}

TEST_F(Numerics, ApproximateTanhStaysWithinItsBound) {
  Type f32 = b.getF32Type();
  for (double x = -4; x <= 4; x += 0.37) {
    double exact = applyUnary(kir::UnaryKind::Tanh, Elem{x, 0}, f32, {}).f;
    double approx = applyUnary(kir::UnaryKind::Tanh, Elem{x, 0}, f32, {true, false}).f;
    EXPECT_LE(std::fabs(approx - exact), std::ldexp(std::fabs(exact), -11) + 1e-30) << x;
  }
}

TEST_F(Numerics, IntegerSemantics) {
  Type i8 = b.getIntegerType(8), u8 = IntegerType::get(&context, 8, IntegerType::Unsigned);
  auto bin = [&](kir::BinaryKind k, int64_t x, int64_t y, Type t) {
    return applyBinary(k, Elem{0, x}, Elem{0, y}, t, {}).i;
  };
  EXPECT_EQ(bin(kir::BinaryKind::Add, 127, 1, i8), -128);            // wraps
  EXPECT_EQ(bin(kir::BinaryKind::Add, 255, 1, u8), 0);
  EXPECT_EQ(bin(kir::BinaryKind::Div, -7, 2, i8), -4);               // floor division
  EXPECT_EQ(bin(kir::BinaryKind::Rem, -7, 2, i8), 1);                // sign of the divisor
  EXPECT_EQ(bin(kir::BinaryKind::Max, 200, 100, u8), 200);
  EXPECT_EQ(castElem(Elem{300.7, 0}, b.getF32Type(), i8).i, 127);    // saturates
  EXPECT_EQ(castElem(Elem{-3.9, 0}, b.getF32Type(), i8).i, -3);      // toward zero
  EXPECT_EQ(castElem(Elem{0, 1}, b.getI1Type(), b.getI32Type()).i, 1); // i1 zero-extends
  EXPECT_EQ(bitcastElem(Elem{1.0, 0}, b.getF32Type(), b.getI32Type()).i, 0x3f800000);
  EXPECT_EQ(bitcastElem(Elem{-1.0, 0}, b.getF16Type(), b.getI16Type()).i, int16_t(0xbc00));
}
} // namespace
